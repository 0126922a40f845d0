/* hla — base gather, scatter and allgather algorithms (one level; the two-level form is in
 * coll.c).
 *
 * Every rank contributes or receives m bytes; the root's buffer holds P blocks of m in rank
 * order. In place (send == recv): for gather and allgather this rank's block is already at
 * recv + rank*m; for scatter the root's block stays at send + root*m. A pointer to the own slot
 * (send == recv + rank*m, or recv == send + root*m for scatter) works the same way.
 * Trees are built on ranks relative to the root (v = 0 is the root). Costs (Hockney):
 *
 * gather / scatter:
 *   NATIVE            MPI_Gather / MPI_Scatter.
 *   FLAT              root talks to every rank:            (P-1)(alpha + m beta)
 *   BINOMIAL          minimum spanning (binomial) tree, subtrees travel as one message:
 *                                                          ceil(log2 P) alpha + (P-1) m beta
 *   PIPELINE          chain in v order, blocks cut into X = ceil(m/segment) segments; scatter
 *                     sends the farthest block first:      ((P-1) X + P - 2)(alpha + (m/X) beta)
 *   SCATTER_ALLGATHER the binomial tree (it is the scatter phase of van de Geijn's broadcast and
 *                     already meets both lower bounds), same as BINOMIAL.
 * allgather:
 *   NATIVE            MPI_Allgather.
 *   FLAT              direct exchange, step s swaps with rank +- s: (P-1)(alpha + m beta)
 *   BINOMIAL          Bruck's recursive doubling, any P:   ceil(log2 P) alpha + (P-1) m beta
 *   PIPELINE          ring, each step's block cut into X segments: (P-1) X (alpha + (m/X) beta)
 *   SCATTER_ALLGATHER ring (the allgather phase of van de Geijn's broadcast): (P-1)(alpha + m beta)
 */
#include <string.h>
#include "bsp/coll_impl.h"

static void copy(void *dst, const void *src, size_t n) {
  if (dst != src && n) memcpy(dst, src, n);
}

/* Number of blocks in the binomial subtree of v. */
static int subtree_blocks(int v, int P) {
  int top = hbsp_subtree(v, P);
  return v + top < P ? top : P - v;
}

/* Rotate P blocks of m between relative order (block v) and rank order (block (v + root) % P). */
static void to_rank_order(char *dst, const char *src, int P, int root, size_t m) {
  memcpy(dst + (size_t)root * m, src, (size_t)(P - root) * m);
  memcpy(dst, src + (size_t)(P - root) * m, (size_t)root * m);
}
static void to_rel_order(char *dst, const char *src, int P, int root, size_t m) {
  memcpy(dst, src + (size_t)root * m, (size_t)(P - root) * m);
  memcpy(dst + (size_t)(P - root) * m, src, (size_t)root * m);
}

/* Chunked native calls: blocks over 1 GiB go as a strided type (one piece of each block). */
typedef enum { NAT_GATHER, NAT_SCATTER, NAT_ALLGATHER } nat_kind;

static int native(const hbsp_coll_ctx *c, nat_kind kind, const char *send, char *recv, size_t m,
                  int root) {
  hbsp_env e = c->env;
  int me_root = kind == NAT_ALLGATHER || e->rank == root;
  char *own = me_root && kind != NAT_SCATTER ? recv + (size_t)e->rank * m : NULL;
  const char *sown = me_root && kind == NAT_SCATTER ? send + (size_t)e->rank * m : NULL;
  int in_place = kind == NAT_SCATTER ? me_root && (recv == send || recv == sown)
                                     : me_root && (send == recv || send == own);
  for (size_t off = 0; off < m; off += HBSP_COLL_CHUNK) {
    size_t n = m - off < HBSP_COLL_CHUNK ? m - off : HBSP_COLL_CHUNK;
    MPI_Datatype blk = MPI_BYTE, t;
    int bcount = (int)n;
    if (n != m) { /* n bytes of each block, blocks m apart */
      HBSP_MPI(e, MPI_Type_contiguous((int)n, MPI_BYTE, &t));
      int rc = MPI_Type_create_resized(t, 0, (MPI_Aint)m, &blk);
      MPI_Type_free(&t);
      if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&blk);
      if (rc != MPI_SUCCESS) return HBSP_FAIL(e, HLA_ERR_MPI, "strided type failed (MPI %d)", rc);
      bcount = 1;
    }
    int rc;
    if (kind == NAT_GATHER)
      rc = MPI_Gather(in_place ? MPI_IN_PLACE : send + off, (int)n, MPI_BYTE,
                      me_root ? recv + off : NULL, bcount, blk, root, e->comm);
    else if (kind == NAT_SCATTER)
      rc = MPI_Scatter(me_root ? send + off : NULL, bcount, blk,
                       in_place ? MPI_IN_PLACE : recv + off, (int)n, MPI_BYTE, root, e->comm);
    else
      rc = MPI_Allgather(in_place ? MPI_IN_PLACE : send + off, (int)n, MPI_BYTE, recv + off, bcount,
                         blk, e->comm);
    if (blk != MPI_BYTE) MPI_Type_free(&blk);
    if (rc != MPI_SUCCESS)
      return HBSP_FAIL(e, HLA_ERR_MPI, "native collective failed (MPI %d)", rc);
  }
  return HLA_OK;
}

/* ---------------------------------------------------------------- gather */

size_t hbsp_coll_gather_ws(hbsp_alg alg, int P, int v, int root, size_t bytes, size_t seg) {
  if (P == 1) return 0;
  switch (alg) {
  case HBSP_BINOMIAL:
  case HBSP_SCATTER_ALLGATHER:
    if (v == 0) return root ? hbsp_ws_round(hbsp_sat_mul((size_t)P, bytes)) : 0;
    return subtree_blocks(v, P) > 1
               ? hbsp_ws_round(hbsp_sat_mul((size_t)subtree_blocks(v, P), bytes))
               : 0;
  case HBSP_PIPELINE:
    return v > 0 && v < P - 1 ? hbsp_ws_round(seg < bytes ? seg : bytes) : 0;
  default:
    return 0;
  }
}

static int gather_flat(const hbsp_coll_ctx *c, const char *send, char *recv, size_t m, int root) {
  hbsp_env e = c->env;
  if (e->rank != root) return hbsp_coll_send(e, root, send, m);
  char *own = recv + (size_t)root * m;
  copy(own, send == recv ? own : send, m);
  for (int r = 0; r < e->P; r++)
    if (r != root) HLA_CALL(hbsp_coll_recv(e, r, recv + (size_t)r * m, m));
  return HLA_OK;
}

static int gather_binomial(const hbsp_coll_ctx *c, const char *send, char *recv, size_t m,
                           int root) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P), top = hbsp_subtree(v, P);
  int nblk = subtree_blocks(v, P);
  if (v && nblk == 1) return hbsp_coll_send(e, hbsp_abs_rank(v - top, root, P), send, m);
  /* Collect the subtree's blocks in v order: in recv itself at a root 0, else in the workspace. */
  char *buf = v == 0 && root == 0 ? recv : c->ws;
  copy(buf, v == 0 && send == recv ? recv + (size_t)root * m : send, m);
  for (int mask = 1; mask < top; mask <<= 1) {
    int child = v + mask;
    if (child >= P) break;
    HLA_CALL(hbsp_coll_recv(e, hbsp_abs_rank(child, root, P), buf + (size_t)mask * m,
                            (size_t)subtree_blocks(child, P) * m));
  }
  if (v) return hbsp_coll_send(e, hbsp_abs_rank(v - top, root, P), buf, (size_t)nblk * m);
  if (root) to_rank_order(recv, buf, P, root, m);
  return HLA_OK;
}

/* Chain v = P-1 -> ... -> 0: rank v passes on its own block, then those of v+1 .. P-1 as they
 * arrive, one segment at a time. */
static int gather_pipeline(const hbsp_coll_ctx *c, const char *send, char *recv, size_t m,
                           int root) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P);
  int up = v < P - 1 ? hbsp_abs_rank(v + 1, root, P) : -1, down = hbsp_abs_rank(v - 1 + P, root, P);
  size_t sg = c->seg;
  if (v == 0) {
    char *own = recv + (size_t)root * m;
    copy(own, send == recv ? own : send, m);
  } else {
    for (size_t off = 0; off < m; off += sg)
      HLA_CALL(hbsp_coll_send(e, down, send + off, m - off < sg ? m - off : sg));
  }
  for (int k = v + 1; k < P; k++) {
    for (size_t off = 0; off < m; off += sg) {
      size_t n = m - off < sg ? m - off : sg;
      if (v == 0) {
        HLA_CALL(hbsp_coll_recv(e, up, recv + (size_t)hbsp_abs_rank(k, root, P) * m + off, n));
      } else {
        HLA_CALL(hbsp_coll_recv(e, up, c->ws, n));
        HLA_CALL(hbsp_coll_send(e, down, c->ws, n));
      }
    }
  }
  return HLA_OK;
}

/* Gather and scatter run the same trees (reversed): one dispatcher for both. */
typedef int (*rooted_fn)(const hbsp_coll_ctx *, const char *, char *, size_t, int);

static int run_rooted(const hbsp_coll_ctx *c, const char *kind, nat_kind nat, rooted_fn flat,
                      rooted_fn tree, rooted_fn pipe, const char *send, char *recv, size_t bytes,
                      int root) {
  if (bytes == 0) return HLA_OK;
  int rc = HLA_OK;
  hbsp_prof_begin(c->env);
  if (c->env->P == 1) {
    copy(recv, send, bytes);
  } else {
    switch (c->alg) {
    case HBSP_AUTO:
    case HBSP_NATIVE:
      rc = native(c, nat, send, recv, bytes, root);
      break;
    case HBSP_FLAT:
      rc = flat(c, send, recv, bytes, root);
      break;
    case HBSP_BINOMIAL:
    case HBSP_SCATTER_ALLGATHER:
      rc = tree(c, send, recv, bytes, root);
      break;
    case HBSP_PIPELINE:
      rc = pipe(c, send, recv, bytes, root);
      break;
    default:
      rc = HBSP_FAIL(c->env, HLA_ERR_INTERNAL, "%s: unknown algorithm %d", kind, (int)c->alg);
    }
  }
  hbsp_prof_end(c->env, kind);
  return rc;
}

int hbsp_coll_base_gather(const hbsp_coll_ctx *c, const void *send, void *recv, size_t bytes,
                          int root) {
  return run_rooted(c, "gather", NAT_GATHER, gather_flat, gather_binomial, gather_pipeline,
                    (const char *)send, (char *)recv, bytes, root);
}

/* ---------------------------------------------------------------- scatter */

size_t hbsp_coll_scatter_ws(hbsp_alg alg, int P, int v, int root, size_t bytes, size_t seg) {
  return hbsp_coll_gather_ws(alg, P, v, root, bytes, seg); /* the same trees, reversed */
}

static int scatter_flat(const hbsp_coll_ctx *c, const char *send, char *recv, size_t m, int root) {
  hbsp_env e = c->env;
  if (e->rank != root) return hbsp_coll_recv(e, root, recv, m);
  for (int r = 0; r < e->P; r++)
    if (r != root) HLA_CALL(hbsp_coll_send(e, r, send + (size_t)r * m, m));
  if (recv != send) copy(recv, send + (size_t)root * m, m);
  return HLA_OK;
}

static int scatter_binomial(const hbsp_coll_ctx *c, const char *send, char *recv, size_t m,
                            int root) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P), top = hbsp_subtree(v, P);
  int nblk = subtree_blocks(v, P);
  const char *buf;
  if (v == 0) { /* blocks in v order: send itself at root 0, else a rotated copy */
    if (root) to_rel_order(c->ws, send, P, root, m);
    buf = root ? c->ws : send;
    if (recv != send) copy(recv, send + (size_t)root * m, m);
  } else if (nblk == 1) {
    return hbsp_coll_recv(e, hbsp_abs_rank(v - top, root, P), recv, m);
  } else {
    HLA_CALL(hbsp_coll_recv(e, hbsp_abs_rank(v - top, root, P), c->ws, (size_t)nblk * m));
    copy(recv, c->ws, m);
    buf = c->ws;
  }
  for (int mask = top >> 1; mask > 0; mask >>= 1) { /* largest subtree first */
    int child = v + mask;
    if (child < P)
      HLA_CALL(hbsp_coll_send(e, hbsp_abs_rank(child, root, P), buf + (size_t)mask * m,
                              (size_t)subtree_blocks(child, P) * m));
  }
  return HLA_OK;
}

/* Chain 0 -> 1 -> ... -> P-1 (v order): the root sends the blocks of v = P-1 down to 1, farthest
 * first; rank v passes on all but the last one it receives, which is its own. */
static int scatter_pipeline(const hbsp_coll_ctx *c, const char *send, char *recv, size_t m,
                            int root) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P);
  int prev = hbsp_abs_rank(v - 1 + P, root, P),
      next = v < P - 1 ? hbsp_abs_rank(v + 1, root, P) : -1;
  size_t sg = c->seg;
  for (int k = P - 1; k > v; k--) {
    for (size_t off = 0; off < m; off += sg) {
      size_t n = m - off < sg ? m - off : sg;
      if (v == 0) {
        HLA_CALL(hbsp_coll_send(e, next, send + (size_t)hbsp_abs_rank(k, root, P) * m + off, n));
      } else {
        HLA_CALL(hbsp_coll_recv(e, prev, c->ws, n));
        HLA_CALL(hbsp_coll_send(e, next, c->ws, n));
      }
    }
  }
  if (v == 0) {
    if (recv != send) copy(recv, send + (size_t)root * m, m);
    return HLA_OK;
  }
  for (size_t off = 0; off < m; off += sg)
    HLA_CALL(hbsp_coll_recv(e, prev, recv + off, m - off < sg ? m - off : sg));
  return HLA_OK;
}

int hbsp_coll_base_scatter(const hbsp_coll_ctx *c, const void *send, void *recv, size_t bytes,
                           int root) {
  return run_rooted(c, "scatter", NAT_SCATTER, scatter_flat, scatter_binomial, scatter_pipeline,
                    (const char *)send, (char *)recv, bytes, root);
}

/* ---------------------------------------------------------------- allgather */

size_t hbsp_coll_allgather_ws(hbsp_alg alg, int P, size_t bytes) {
  return alg == HBSP_BINOMIAL && P > 1 ? hbsp_ws_round(hbsp_sat_mul((size_t)P, bytes)) : 0;
}

static int allgather_flat(const hbsp_coll_ctx *c, const char *own, char *recv, size_t m) {
  hbsp_env e = c->env;
  int P = e->P;
  for (int s = 1; s < P; s++) {
    int dst = (e->rank + s) % P, src = (e->rank - s + P) % P;
    HLA_CALL(hbsp_coll_sendrecv(e, dst, own, m, src, recv + (size_t)src * m, m));
  }
  return HLA_OK;
}

/* Bruck: after the step at distance d, ws holds blocks rank .. rank + 2d - 1 (mod P). */
static int allgather_bruck(const hbsp_coll_ctx *c, const char *own, char *recv, size_t m) {
  hbsp_env e = c->env;
  int P = e->P, have = 1;
  memcpy(c->ws, own, m);
  for (int d = 1; d < P; d <<= 1) {
    int k = have < P - have ? have : P - have;
    HLA_CALL(hbsp_coll_sendrecv(e, (e->rank - d + P) % P, c->ws, (size_t)k * m, (e->rank + d) % P,
                                c->ws + (size_t)have * m, (size_t)k * m));
    have += k;
  }
  to_rank_order(recv, c->ws, P, e->rank, m);
  return HLA_OK;
}

/* Ring: at step s pass on block rank - s to the right, receive block rank - s - 1 from the left. */
static int allgather_ring(const hbsp_coll_ctx *c, char *recv, size_t m, size_t sg) {
  hbsp_env e = c->env;
  int P = e->P, right = (e->rank + 1) % P, left = (e->rank - 1 + P) % P;
  for (int s = 0; s < P - 1; s++) {
    char *sb = recv + (size_t)((e->rank - s + P) % P) * m;
    char *rb = recv + (size_t)((e->rank - s - 1 + P) % P) * m;
    for (size_t off = 0; off < m; off += sg) {
      size_t n = m - off < sg ? m - off : sg;
      HLA_CALL(hbsp_coll_sendrecv(e, right, sb + off, n, left, rb + off, n));
    }
  }
  return HLA_OK;
}

int hbsp_coll_base_allgather(const hbsp_coll_ctx *c, const void *send, void *recv, size_t bytes) {
  if (bytes == 0) return HLA_OK;
  hbsp_env e = c->env;
  char *slot = (char *)recv + (size_t)e->rank * bytes;
  const char *own = send == recv ? slot : send;
  int rc = HLA_OK;
  hbsp_prof_begin(e);
  if (e->P == 1) {
    copy(recv, own, bytes);
  } else {
    switch (c->alg) {
    case HBSP_AUTO:
    case HBSP_NATIVE:
      rc = native(c, NAT_ALLGATHER, send, recv, bytes, 0);
      break;
    case HBSP_FLAT:
      copy(slot, own, bytes);
      rc = allgather_flat(c, slot, recv, bytes);
      break;
    case HBSP_BINOMIAL:
      rc = allgather_bruck(c, own, recv, bytes);
      break;
    case HBSP_PIPELINE:
    case HBSP_SCATTER_ALLGATHER:
      copy(slot, own, bytes);
      rc = allgather_ring(c, recv, bytes, c->alg == HBSP_PIPELINE ? c->seg : bytes);
      break;
    default:
      rc = HBSP_FAIL(e, HLA_ERR_INTERNAL, "allgather: unknown algorithm %d", (int)c->alg);
    }
  }
  hbsp_prof_end(e, "allgather");
  return rc;
}
