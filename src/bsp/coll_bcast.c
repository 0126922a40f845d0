/* hla — base broadcast algorithms (one level; the two-level form is in coll.c).
 *
 * Ranks are renumbered relative to the root (v = 0 is the root) so every tree works for any root.
 * Costs for m bytes on P ranks in the Hockney model (alpha latency, beta seconds per byte):
 *   NATIVE            MPI_Bcast: whatever the MPI library chooses.
 *   FLAT              the root sends to every rank:              (P-1)(alpha + m beta)
 *   BINOMIAL          binomial tree, any P:                      ceil(log2 P)(alpha + m beta)
 *   PIPELINE          chain in v order, X = ceil(m/segment):     (X + P - 2)(alpha + (m/X) beta)
 *   SCATTER_ALLGATHER van de Geijn: binomial scatter of P blocks of ceil(m/P) bytes, then ring
 *                     allgather:            (ceil(log2 P) + P - 1) alpha + 2 ((P-1)/P) m beta
 * No workspace: every algorithm works in buf.
 */
#include "bsp/coll_impl.h"

static int bcast_native(const hbsp_coll_ctx *c, char *buf, size_t bytes, int root) {
  for (size_t off = 0; off < bytes; off += HBSP_COLL_CHUNK) {
    size_t n = bytes - off < HBSP_COLL_CHUNK ? bytes - off : HBSP_COLL_CHUNK;
    HBSP_MPI(c->env, MPI_Bcast(buf + off, (int)n, MPI_BYTE, root, c->env->comm));
  }
  return HLA_OK;
}

static int bcast_flat(const hbsp_coll_ctx *c, char *buf, size_t bytes, int root) {
  hbsp_env e = c->env;
  if (e->rank != root) return hbsp_coll_recv(e, root, buf, bytes);
  for (int r = 0; r < e->P; r++)
    if (r != root) HLA_CALL(hbsp_coll_send(e, r, buf, bytes));
  return HLA_OK;
}

static int bcast_binomial(const hbsp_coll_ctx *c, char *buf, size_t bytes, int root) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P), top = hbsp_subtree(v, P);
  if (v) HLA_CALL(hbsp_coll_recv(e, hbsp_abs_rank(v - top, root, P), buf, bytes));
  for (int mask = top >> 1; mask > 0; mask >>= 1) /* largest subtree first */
    if (v + mask < P) HLA_CALL(hbsp_coll_send(e, hbsp_abs_rank(v + mask, root, P), buf, bytes));
  return HLA_OK;
}

static int bcast_pipeline(const hbsp_coll_ctx *c, char *buf, size_t bytes, int root) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P);
  int prev = v > 0 ? hbsp_abs_rank(v - 1, root, P) : -1;
  int next = v < P - 1 ? hbsp_abs_rank(v + 1, root, P) : -1;
  /* Segment k goes on with a non-blocking send while segment k+1 comes in. */
  MPI_Request req = MPI_REQUEST_NULL;
  for (size_t off = 0; off < bytes; off += c->seg) {
    size_t n = bytes - off < c->seg ? bytes - off : c->seg;
    if (prev >= 0) {
      int rc = hbsp_coll_recv(e, prev, buf + off, n);
      if (rc != HLA_OK) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        return rc;
      }
    }
    if (next >= 0) {
      HBSP_MPI(e, MPI_Wait(&req, MPI_STATUS_IGNORE));
      HBSP_MPI(e, MPI_Isend(buf + off, (int)n, MPI_BYTE, next, HBSP_TAG_COLL, e->comm, &req));
      hbsp_prof_msg(e, next, n, 1);
    }
  }
  HBSP_MPI(e, MPI_Wait(&req, MPI_STATUS_IGNORE));
  return HLA_OK;
}

/* Bytes [*lo, *hi) of blocks [a, b) when m bytes are cut into blocks of bs (the last ones may be
 * short or empty). */
static void block_span(size_t m, size_t bs, int a, int b, size_t *lo, size_t *hi) {
  size_t x = (size_t)a * bs, y = (size_t)b * bs;
  *lo = x < m ? x : m;
  *hi = y < m ? y : m;
}

static int bcast_scatter_allgather(const hbsp_coll_ctx *c, char *buf, size_t bytes, int root) {
  hbsp_env e = c->env;
  int P = e->P, v = hbsp_rel_rank(e->rank, root, P), top = hbsp_subtree(v, P);
  size_t bs = bytes / (size_t)P + (bytes % (size_t)P != 0), lo, hi;
  /* Binomial scatter: v receives the blocks of its subtree [v, v + top), block i is for v = i. */
  if (v) {
    block_span(bytes, bs, v, v + top < P ? v + top : P, &lo, &hi);
    HLA_CALL(hbsp_coll_recv(e, hbsp_abs_rank(v - top, root, P), buf + lo, hi - lo));
  }
  for (int mask = top >> 1; mask > 0; mask >>= 1) {
    int child = v + mask;
    if (child >= P) continue;
    block_span(bytes, bs, child, child + mask < P ? child + mask : P, &lo, &hi);
    HLA_CALL(hbsp_coll_send(e, hbsp_abs_rank(child, root, P), buf + lo, hi - lo));
  }
  /* Ring allgather: at step s, pass on the block received at step s-1 (own block first). */
  int right = hbsp_abs_rank(v + 1, root, P), left = hbsp_abs_rank(v - 1 + P, root, P);
  for (int s = 0; s < P - 1; s++) {
    int sb = (v - s + P) % P, rb = (v - s - 1 + P) % P;
    size_t slo, shi, rlo, rhi;
    block_span(bytes, bs, sb, sb + 1, &slo, &shi);
    block_span(bytes, bs, rb, rb + 1, &rlo, &rhi);
    HLA_CALL(hbsp_coll_sendrecv(e, right, buf + slo, shi - slo, left, buf + rlo, rhi - rlo));
  }
  return HLA_OK;
}

int hbsp_coll_bcast_run(const hbsp_coll_ctx *c, void *buf, size_t bytes, int root) {
  if (c->env->P == 1 || bytes == 0) return HLA_OK;
  switch (c->alg) {
  case HBSP_AUTO: /* resolved by the caller; NATIVE if not */
  case HBSP_NATIVE:
    return bcast_native(c, buf, bytes, root);
  case HBSP_FLAT:
    return bcast_flat(c, buf, bytes, root);
  case HBSP_BINOMIAL:
    return bcast_binomial(c, buf, bytes, root);
  case HBSP_PIPELINE:
    return bcast_pipeline(c, buf, bytes, root);
  case HBSP_SCATTER_ALLGATHER:
    return bcast_scatter_allgather(c, buf, bytes, root);
  }
  return HBSP_FAIL(c->env, HLA_ERR_INTERNAL, "bcast: unknown algorithm %d", (int)c->alg);
}

int hbsp_coll_base_bcast(const hbsp_coll_ctx *c, void *buf, size_t bytes, int root) {
  hbsp_prof_begin(c->env);
  int rc = hbsp_coll_bcast_run(c, buf, bytes, root);
  hbsp_prof_end(c->env, "bcast");
  return rc;
}
