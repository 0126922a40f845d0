/* hla — base reduce and allreduce algorithms (one level; the two-level form is in coll.c).
 *
 * m = count * element size bytes on P ranks; Hockney model with alpha (latency), beta (seconds
 * per byte) and gamma (seconds per byte combined). P' is the largest power of two <= P and
 * r = P - P'; non-powers of two fold the first 2r ranks in pairs first (one more step each way).
 *
 * reduce (result on root; ranks renumbered relative to the root):
 *   NATIVE            MPI_Reduce.
 *   FLAT              root receives from every rank:      (P-1)(alpha + m beta + m gamma)
 *   BINOMIAL          binomial tree:                      ceil(log2 P)(alpha + m beta + m gamma)
 *   PIPELINE          segmented chain towards the root, X = ceil(m/segment) segments:
 *                                                         (X + P - 2)(alpha + (m/X)(beta + gamma))
 *   SCATTER_ALLGATHER Rabenseifner: reduce-scatter by recursive halving, then binomial gather:
 *                     2 log2 P' alpha + 2 ((P'-1)/P') m beta + ((P'-1)/P') m gamma
 *                     (+ alpha + m beta + m gamma for the fold when r > 0)
 * allreduce (result on every rank; with the algorithms below, the same bits on all of them):
 *   NATIVE            MPI_Allreduce.
 *   FLAT              FLAT reduce to rank 0 + FLAT bcast: 2(P-1)(alpha + m beta) + (P-1) m gamma
 *   BINOMIAL          recursive doubling (butterfly):     log2 P' (alpha + m beta + m gamma)
 *                     (+ 2(alpha + m beta) + m gamma for the fold when r > 0)
 *   PIPELINE          PIPELINE reduce to rank 0 + PIPELINE bcast:
 *                                     2(X + P - 2)(alpha + (m/X) beta) + (X + P - 2)(m/X) gamma
 *   SCATTER_ALLGATHER Rabenseifner: reduce-scatter by recursive halving, allgather by recursive
 *                     doubling:  2 log2 P' alpha + 2 ((P'-1)/P') m beta + ((P'-1)/P') m gamma
 *                     (+ 2(alpha + m beta) + m gamma for the fold when r > 0)
 * Integer, MAX/MIN and MAXLOC/MAXABSLOC results do not depend on the algorithm; a double SUM
 * differs in rounding only.
 */
#include <string.h>
#include "bsp/coll_impl.h"

static void copy(void *dst, const void *src, size_t n) {
  if (dst != src && n) memcpy(dst, src, n);
}

static size_t seg_elems(size_t seg, size_t esz) {
  return seg / esz ? seg / esz : 1;
}

/* ---------------------------------------------------------------- reduce */

/* Binomial: v has children iff v is even and v + 1 < P. */
static int has_children(int v, int P) {
  return v % 2 == 0 && v + 1 < P;
}

size_t hbsp_coll_reduce_ws(hbsp_alg alg, int P, int v, size_t count, size_t esz, size_t seg) {
  size_t m = hbsp_ws_round(hbsp_sat_mul(count, esz));
  if (P == 1) return 0;
  switch (alg) {
  case HBSP_AUTO:
  case HBSP_NATIVE: /* the root's copy of its part, one MPI message at a time (reduce_native) */
    return HBSP_REDUCE_INPLACE_COPY && v == 0
               ? hbsp_ws_round(m < HBSP_COLL_CHUNK ? m : HBSP_COLL_CHUNK)
               : 0;
  case HBSP_FLAT:
    return v == 0 ? m : 0;
  case HBSP_BINOMIAL: /* accumulator off the root, incoming vector where there are children */
    return hbsp_sat_add(v ? (has_children(v, P) ? m : 0) : 0, has_children(v, P) ? m : 0);
  case HBSP_PIPELINE: /* one segment, except at the far end of the chain */
    return v == P - 1 ? 0 : hbsp_ws_round(seg_elems(seg, esz) * esz);
  case HBSP_SCATTER_ALLGATHER:
    return v == 0 ? m : hbsp_sat_add(m, m);
  }
  return 0;
}

static int reduce_native(const hbsp_coll_ctx *c, const char *send, char *recv, size_t count,
                         hbsp_type type, hbsp_op op, int root) {
  hbsp_env e = c->env;
  size_t esz = hbsp_coll_type_size(type), step = HBSP_COLL_CHUNK / esz;
  MPI_Datatype dt;
  MPI_Op mop;
  hbsp_coll_mpi_op(c->cache, type, op, &dt, &mop);
  int in_place = e->rank == root && send == recv;
  const int copy_in = in_place && root != 0 && HBSP_REDUCE_INPLACE_COPY;
  for (size_t off = 0; off < count; off += step) {
    size_t n = count - off < step ? count - off : step;
    const void *s = in_place ? MPI_IN_PLACE : (const void *)(send + off * esz);
    if (copy_in) s = memcpy(c->ws, send + off * esz, n * esz);
    void *r = e->rank == root ? recv + off * esz : NULL; /* recv may be NULL elsewhere */
    HBSP_MPI(e, MPI_Reduce(s, r, (int)n, dt, mop, root, e->comm));
  }
  return HLA_OK;
}

static int reduce_flat(const hbsp_coll_ctx *c, const char *send, char *recv, size_t count,
                       hbsp_type type, hbsp_op op, int root) {
  hbsp_env e = c->env;
  size_t m = count * hbsp_coll_type_size(type);
  if (e->rank != root) return hbsp_coll_send(e, root, send, m);
  copy(recv, send, m);
  for (int r = 0; r < e->P; r++) {
    if (r == root) continue;
    HLA_CALL(hbsp_coll_recv(e, r, c->ws, m));
    hbsp_coll_combine(type, op, recv, c->ws, count);
  }
  return HLA_OK;
}

static int reduce_binomial(const hbsp_coll_ctx *c, const char *send, char *recv, size_t count,
                           hbsp_type type, hbsp_op op, int root) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P);
  size_t m = count * hbsp_coll_type_size(type);
  if (!has_children(v, P)) /* a leaf sends its own vector as it is */
    return v ? hbsp_coll_send(e, hbsp_abs_rank(v - (v & -v), root, P), send, m) : HLA_OK;
  char *acc = v ? c->ws : recv, *in = v ? c->ws + hbsp_ws_round(m) : c->ws;
  copy(acc, send, m);
  for (int mask = 1; mask < P; mask <<= 1) {
    if (v & mask) return hbsp_coll_send(e, hbsp_abs_rank(v - mask, root, P), acc, m);
    if (v + mask < P) {
      HLA_CALL(hbsp_coll_recv(e, hbsp_abs_rank(v + mask, root, P), in, m));
      hbsp_coll_combine(type, op, acc, in, count);
    }
  }
  return HLA_OK;
}

static int reduce_pipeline(const hbsp_coll_ctx *c, const char *send, char *recv, size_t count,
                           hbsp_type type, hbsp_op op, int root) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P);
  int up = v < P - 1 ? hbsp_abs_rank(v + 1, root, P) : -1;
  int down = v > 0 ? hbsp_abs_rank(v - 1, root, P) : -1;
  size_t esz = hbsp_coll_type_size(type), se = seg_elems(c->seg, esz);
  /* The partial sums of ranks v+1 .. P-1 flow down the chain one segment at a time. */
  for (size_t off = 0; off < count; off += se) {
    size_t n = count - off < se ? count - off : se, nb = n * esz;
    const char *s = send + off * esz;
    if (up < 0) {
      HLA_CALL(hbsp_coll_send(e, down, s, nb));
    } else if (down < 0) {
      char *r = recv + off * esz;
      copy(r, s, nb);
      HLA_CALL(hbsp_coll_recv(e, up, c->ws, nb));
      hbsp_coll_combine(type, op, r, c->ws, n);
    } else {
      HLA_CALL(hbsp_coll_recv(e, up, c->ws, nb));
      hbsp_coll_combine(type, op, c->ws, s, n);
      HLA_CALL(hbsp_coll_send(e, down, c->ws, nb));
    }
  }
  return HLA_OK;
}

/* Rabenseifner's reduce-scatter, shared by reduce and allreduce.
 * v: rank relative to root. Ranks v < 2r fold in pairs: odd v sends its vector to v-1 and drops
 * out (*nr = -1); the others take new ranks nr in [0, P'), nr = v/2 or v - r. Then recursive
 * halving over P' blocks (block b = elements [blk(b), blk(b+1))): at distance mask = P'/2 .. 1
 * each keeps the half of its range on its side of nr's bit and receives the partner's version of
 * it. On return block nr of work holds the reduction of that block over all ranks. */
typedef struct {
  size_t count, esz;
  int P2, r; /* P' and r = P - P' */
} rab;

static rab rab_make(int P, size_t count, size_t esz) {
  rab R = {count, esz, 1, 0};
  while (R.P2 * 2 <= P) R.P2 *= 2;
  R.r = P - R.P2;
  return R;
}
/* First element of block b. */
static size_t rab_blk(const rab *R, int b) {
  size_t q = R->count / (size_t)R->P2, rem = R->count % (size_t)R->P2;
  return (size_t)b * q + ((size_t)b < rem ? (size_t)b : rem);
}
/* Relative rank of new rank nr. */
static int rab_v(const rab *R, int nr) {
  return nr < R->r ? 2 * nr : nr + R->r;
}

static int rab_reduce_scatter(const hbsp_coll_ctx *c, const rab *R, const char *send, char *work,
                              char *tmp, hbsp_type type, hbsp_op op, int root, int *nr_out) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P), nr;
  size_t m = R->count * R->esz;
  *nr_out = -1;
  if (v < 2 * R->r && v % 2) return hbsp_coll_send(e, hbsp_abs_rank(v - 1, root, P), send, m);
  copy(work, send, m);
  if (v < 2 * R->r) {
    HLA_CALL(hbsp_coll_recv(e, hbsp_abs_rank(v + 1, root, P), tmp, m));
    hbsp_coll_combine(type, op, work, tmp, R->count);
    nr = v / 2;
  } else {
    nr = v - R->r;
  }
  int lo = 0, hi = R->P2;
  for (int mask = R->P2 / 2; mask > 0; mask >>= 1) {
    int partner = hbsp_abs_rank(rab_v(R, nr ^ mask), root, P), mid = lo + mask;
    int klo = nr & mask ? mid : lo, khi = nr & mask ? hi : mid; /* kept */
    int glo = nr & mask ? lo : mid, ghi = nr & mask ? mid : hi; /* given away */
    size_t k0 = rab_blk(R, klo), k1 = rab_blk(R, khi), g0 = rab_blk(R, glo), g1 = rab_blk(R, ghi);
    HLA_CALL(hbsp_coll_sendrecv(e, partner, work + g0 * R->esz, (g1 - g0) * R->esz, partner, tmp,
                                (k1 - k0) * R->esz));
    hbsp_coll_combine(type, op, work + k0 * R->esz, tmp, k1 - k0);
    lo = klo;
    hi = khi;
  }
  *nr_out = nr;
  return HLA_OK;
}

static int reduce_scatter_gather(const hbsp_coll_ctx *c, const char *send, char *recv, size_t count,
                                 hbsp_type type, hbsp_op op, int root) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P), nr;
  rab R = rab_make(P, count, hbsp_coll_type_size(type));
  size_t m = count * R.esz;
  char *work = v ? c->ws : recv, *tmp = v ? c->ws + hbsp_ws_round(m) : c->ws;
  HLA_CALL(rab_reduce_scatter(c, &R, send, work, tmp, type, op, root, &nr));
  if (nr < 0) return HLA_OK;
  /* Binomial gather of the blocks to nr = 0 (v = 0, the root): nr collects [nr, nr + lowbit). */
  for (int mask = 1; mask < R.P2; mask <<= 1) {
    if (nr & mask) {
      size_t a = rab_blk(&R, nr), b = rab_blk(&R, nr + mask);
      return hbsp_coll_send(e, hbsp_abs_rank(rab_v(&R, nr - mask), root, P), work + a * R.esz,
                            (b - a) * R.esz);
    }
    size_t a = rab_blk(&R, nr + mask), b = rab_blk(&R, nr + 2 * mask);
    HLA_CALL(hbsp_coll_recv(e, hbsp_abs_rank(rab_v(&R, nr + mask), root, P), work + a * R.esz,
                            (b - a) * R.esz));
  }
  return HLA_OK;
}

int hbsp_coll_reduce_run(const hbsp_coll_ctx *c, const void *send, void *recv, size_t count,
                         hbsp_type type, hbsp_op op, int root) {
  if (count == 0) return HLA_OK;
  if (c->env->P == 1) {
    copy(recv, send, count * hbsp_coll_type_size(type));
    return HLA_OK;
  }
  switch (c->alg) {
  case HBSP_AUTO:
  case HBSP_NATIVE:
    return reduce_native(c, send, recv, count, type, op, root);
  case HBSP_FLAT:
    return reduce_flat(c, send, recv, count, type, op, root);
  case HBSP_BINOMIAL:
    return reduce_binomial(c, send, recv, count, type, op, root);
  case HBSP_PIPELINE:
    return reduce_pipeline(c, send, recv, count, type, op, root);
  case HBSP_SCATTER_ALLGATHER:
    return reduce_scatter_gather(c, send, recv, count, type, op, root);
  }
  return HBSP_FAIL(c->env, HLA_ERR_INTERNAL, "reduce: unknown algorithm %d", (int)c->alg);
}

int hbsp_coll_base_reduce(const hbsp_coll_ctx *c, const void *send, void *recv, size_t count,
                          hbsp_type type, hbsp_op op, int root) {
  hbsp_prof_begin(c->env);
  int rc = hbsp_coll_reduce_run(c, send, recv, count, type, op, root);
  hbsp_prof_end(c->env, "reduce");
  return rc;
}

/* ---------------------------------------------------------------- allreduce */

size_t hbsp_coll_allreduce_ws(hbsp_alg alg, int P, int rank, size_t count, size_t esz, size_t seg) {
  if (P == 1) return 0;
  switch (alg) {
  case HBSP_AUTO:
  case HBSP_NATIVE:
    return 0;
  case HBSP_FLAT:
  case HBSP_PIPELINE:
    return hbsp_coll_reduce_ws(alg, P, rank, count, esz, seg);
  case HBSP_BINOMIAL:
  case HBSP_SCATTER_ALLGATHER:
    return hbsp_ws_round(hbsp_sat_mul(count, esz));
  }
  return 0;
}

static int allreduce_native(const hbsp_coll_ctx *c, const char *send, char *recv, size_t count,
                            hbsp_type type, hbsp_op op) {
  hbsp_env e = c->env;
  size_t esz = hbsp_coll_type_size(type), step = HBSP_COLL_CHUNK / esz;
  MPI_Datatype dt;
  MPI_Op mop;
  hbsp_coll_mpi_op(c->cache, type, op, &dt, &mop);
  for (size_t off = 0; off < count; off += step) {
    size_t n = count - off < step ? count - off : step;
    const void *s = send == recv ? MPI_IN_PLACE : (const void *)(send + off * esz);
    HBSP_MPI(e, MPI_Allreduce(s, recv + off * esz, (int)n, dt, mop, e->comm));
  }
  return HLA_OK;
}

/* Recursive doubling; both partners combine the same two vectors, and a op b == b op a bit for
 * bit for every operator here, so all ranks end with the same bits. */
static int allreduce_doubling(const hbsp_coll_ctx *c, const char *send, char *recv, size_t count,
                              hbsp_type type, hbsp_op op) {
  hbsp_env e = c->env;
  rab R = rab_make(e->P, count, hbsp_coll_type_size(type));
  size_t m = count * R.esz;
  int v = e->rank, nr;
  copy(recv, send, m);
  if (v < 2 * R.r && v % 2) { /* folded away: hand over, get the result back at the end */
    HLA_CALL(hbsp_coll_send(e, v - 1, recv, m));
    return hbsp_coll_recv(e, v - 1, recv, m);
  }
  if (v < 2 * R.r) {
    HLA_CALL(hbsp_coll_recv(e, v + 1, c->ws, m));
    hbsp_coll_combine(type, op, recv, c->ws, count);
    nr = v / 2;
  } else {
    nr = v - R.r;
  }
  for (int mask = 1; mask < R.P2; mask <<= 1) {
    int partner = rab_v(&R, nr ^ mask);
    HLA_CALL(hbsp_coll_sendrecv(e, partner, recv, m, partner, c->ws, m));
    hbsp_coll_combine(type, op, recv, c->ws, count);
  }
  return v < 2 * R.r ? hbsp_coll_send(e, v + 1, recv, m) : HLA_OK;
}

/* Recursive doubling on one record under the caller's combine; see coll_impl.h. */
static int allreduce_rec(hbsp_env e, char *rec, char *ws, size_t bytes, hbsp_rec_combine f,
                         void *arg) {
  rab R = rab_make(e->P, 1, 1);
  int v = e->rank, nr;
  if (v < 2 * R.r && v % 2) { /* folded away: hand over, get the result back at the end */
    HLA_CALL(hbsp_coll_send(e, v - 1, rec, bytes));
    return hbsp_coll_recv(e, v - 1, rec, bytes);
  }
  if (v < 2 * R.r) {
    HLA_CALL(hbsp_coll_recv(e, v + 1, ws, bytes));
    f(rec, ws, arg);
    nr = v / 2;
  } else {
    nr = v - R.r;
  }
  for (int mask = 1; mask < R.P2; mask <<= 1) {
    int partner = rab_v(&R, nr ^ mask);
    HLA_CALL(hbsp_coll_sendrecv(e, partner, rec, bytes, partner, ws, bytes));
    f(rec, ws, arg);
  }
  return v < 2 * R.r ? hbsp_coll_send(e, v + 1, rec, bytes) : HLA_OK;
}

int hbsp_coll_allreduce_rec(hbsp_env env, void *rec, void *ws, size_t bytes, hbsp_rec_combine f,
                            void *arg) {
  if (bytes == 0 || env->P == 1) return HLA_OK;
  hbsp_prof_begin(env);
  int rc = allreduce_rec(env, rec, ws, bytes, f, arg);
  hbsp_prof_end(env, "allreduce");
  return rc;
}

static int allreduce_rabenseifner(const hbsp_coll_ctx *c, const char *send, char *recv,
                                  size_t count, hbsp_type type, hbsp_op op) {
  hbsp_env e = c->env;
  int v = e->rank, nr;
  rab R = rab_make(e->P, count, hbsp_coll_type_size(type));
  size_t m = count * R.esz;
  HLA_CALL(rab_reduce_scatter(c, &R, send, recv, c->ws, type, op, 0, &nr));
  if (nr < 0) return hbsp_coll_recv(e, v - 1, recv, m);
  /* Recursive doubling allgather: at distance mask, swap the ranges [base, base + mask). */
  for (int mask = 1; mask < R.P2; mask <<= 1) {
    int mine = nr & ~(mask - 1), theirs = (nr ^ mask) & ~(mask - 1);
    size_t a = rab_blk(&R, mine), b = rab_blk(&R, mine + mask);
    size_t x = rab_blk(&R, theirs), y = rab_blk(&R, theirs + mask);
    int partner = rab_v(&R, nr ^ mask);
    HLA_CALL(hbsp_coll_sendrecv(e, partner, recv + a * R.esz, (b - a) * R.esz, partner,
                                recv + x * R.esz, (y - x) * R.esz));
  }
  return v < 2 * R.r ? hbsp_coll_send(e, v + 1, recv, m) : HLA_OK;
}

int hbsp_coll_base_allreduce(const hbsp_coll_ctx *c, const void *send, void *recv, size_t count,
                             hbsp_type type, hbsp_op op) {
  if (count == 0) return HLA_OK;
  size_t m = count * hbsp_coll_type_size(type);
  int rc = HLA_OK;
  hbsp_prof_begin(c->env);
  if (c->env->P == 1) {
    copy(recv, send, m);
  } else {
    switch (c->alg) {
    case HBSP_AUTO:
    case HBSP_NATIVE:
      rc = allreduce_native(c, send, recv, count, type, op);
      break;
    case HBSP_FLAT:
    case HBSP_PIPELINE: /* reduce to rank 0, then broadcast from it with the same shape */
      rc = hbsp_coll_reduce_run(c, send, recv, count, type, op, 0);
      if (rc == HLA_OK) rc = hbsp_coll_bcast_run(c, recv, m, 0);
      break;
    case HBSP_BINOMIAL:
      rc = allreduce_doubling(c, send, recv, count, type, op);
      break;
    case HBSP_SCATTER_ALLGATHER:
      rc = allreduce_rabenseifner(c, send, recv, count, type, op);
      break;
    default:
      rc = HBSP_FAIL(c->env, HLA_ERR_INTERNAL, "allreduce: unknown algorithm %d", (int)c->alg);
    }
  }
  hbsp_prof_end(c->env, "allreduce");
  return rc;
}
