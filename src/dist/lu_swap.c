/* hla — row interchanges of the LU and of the solve, applied together: the interchanges of a block
 * (or of the whole factorisation) are composed into one permutation of the rows they touch, and
 * each row is sent once, straight to the process row that owns its final place, in one superstep
 * of the process column (a subset sync: process columns do not wait for each other).
 *
 * The factorisation moves rows right of the panel at every block step (the trailing matrix needs
 * them), but left of it only once, at the end (hlu_swap_left): the L columns of block k take all
 * later interchanges composed, so each of their rows moves at most once instead of once per later
 * block, about half the words of swapping both sides at every step, and off the critical path.
 *
 * Example (seed 000, L1307): swaps (0,4), (1,3), (2,4), (3,5) on rows i0..i5 leave
 * [i4, i3, i0, i5, i2, i1]: row 0 receives i4, row 2 receives i0, and so on. */
#include <string.h>
#include "dist/lu_impl.h"

void hlu_perm_pairs(const int64_t *ipiv, int64_t k0, int64_t k1, int64_t n, int64_t *work,
                    int64_t **dst, int64_t **src, int64_t *npairs) {
  /* perm[i - k0]: the original row now at place i, for places [k0, n). */
  int64_t len = n - k0, *perm = work, *d = work + len, *s = d + len, cnt = 0;
  for (int64_t i = 0; i < len; i++) perm[i] = k0 + i;
  for (int64_t k = k0; k < k1; k++) {
    int64_t x = perm[k - k0];
    perm[k - k0] = perm[ipiv[k] - k0];
    perm[ipiv[k] - k0] = x;
  }
  for (int64_t i = 0; i < len; i++)
    if (perm[i] != k0 + i) d[cnt] = k0 + i, s[cnt] = perm[i], cnt++;
  *dst = d, *src = s, *npairs = cnt;
}

int hlu_swap_left(hlu_ctx *ctx, const int64_t *ipiv) {
  const int64_t n = ctx->n;
  const int nb = ctx->nb, N = ctx->N, me = ctx->mycol;
  /* Block k's columns live on process column k mod N only: the other columns have nothing to do,
   * and every rank of a process column takes the same branches (a subset sync per block). */
  for (int64_t j0 = (int64_t)me * nb, k = me; j0 + nb < n; j0 += (int64_t)N * nb, k += N) {
    int64_t *dst, *src, np;
    hlu_perm_pairs(ipiv, j0 + nb, n, n, ctx->iwork, &dst, &src, &np);
    int64_t jl0 = hmat_numroc(j0, nb, me, N);
    HLA_CALL(hlu_move_rows(ctx, ctx->A, dst, src, np, jl0, jl0 + nb));
  }
  return HLA_OK;
}

/* The pairs whose source and target rows are both mine, over my columns [c0, c0 + ncols): the
 * sources gathered column by column (each column is contiguous; a row walk would touch one cache
 * line per column), a few columns at a time so that they are still in cache for the scatter. */
static int local_moves(hlu_ctx *ctx, hmat X, const int64_t *dst, const int64_t *src, int64_t npairs,
                       int64_t c0, int64_t ncols) {
  const int nb = ctx->nb, M = ctx->M, me = ctx->myrow;
  const int64_t lld = X->lld;
  enum { JB = 16 };
  ctx->msg.n = 0;
  if (hla_buf_reserve(&ctx->msg, (size_t)(npairs * (JB + 2)) * sizeof(double)) != HLA_OK)
    return HBSP_FAIL(ctx->collv.env, HLA_ERR_NOMEM, "LU row move: out of memory");
  int64_t *ls = (int64_t *)ctx->msg.p, *ld = ls + npairs, cnt = 0;
  double *tmp = (double *)(ld + npairs);
  for (int64_t t = 0; t < npairs; t++) /* local row indices first: no division inside */
    if (hmat_idx_owner(src[t], nb, M) == me && hmat_idx_owner(dst[t], nb, M) == me)
      ls[cnt] = hmat_idx_g2l(src[t], nb, M), ld[cnt] = hmat_idx_g2l(dst[t], nb, M), cnt++;
  for (int64_t j0 = 0; cnt > 0 && j0 < ncols; j0 += JB) {
    int64_t jn = ncols - j0 < JB ? ncols - j0 : JB;
    for (int64_t j = 0; j < jn; j++) {
      const double *cj = X->data + (c0 + j0 + j) * lld;
      for (int64_t t = 0; t < cnt; t++) tmp[t + j * cnt] = cj[ls[t]];
    }
    for (int64_t j = 0; j < jn; j++) {
      double *cj = X->data + (c0 + j0 + j) * lld;
      for (int64_t t = 0; t < cnt; t++) cj[ld[t]] = tmp[t + j * cnt];
    }
  }
  return HLA_OK;
}

int hlu_move_rows(hlu_ctx *ctx, hmat X, const int64_t *dst, const int64_t *src, int64_t npairs,
                  int64_t c0, int64_t c1) {
  hbsp_env col = ctx->collv.env;
  int nb = ctx->nb, M = ctx->M, me = ctx->myrow;
  int64_t ncols = c1 - c0, lld = X->lld;
  /* Every rank of the column has the same ncols (same process column), so all skip together. */
  if (npairs == 0 || ncols == 0) return HLA_OK;
  /* Rows are gathered column by column (each column is contiguous), never row by row with a
   * stride of lld: a row walk touches one cache line per column. */
  if (M == 1) return local_moves(ctx, X, dst, src, npairs, c0, ncols);
  /* One message per other process row: [count][count target rows][count x ncols values,
   * column-major]; then the moves inside my rows, once every row I send is packed (it may be the
   * target of a local move); the rows that arrive are written after the sync, when every source
   * here has been read. */
  for (int d = 0; d < M; d++) {
    if (d == me) continue;
    int64_t cnt = 0;
    for (int64_t t = 0; t < npairs; t++)
      cnt += hmat_idx_owner(src[t], nb, M) == me && hmat_idx_owner(dst[t], nb, M) == d;
    if (cnt == 0) continue;
    size_t words = (size_t)(1 + cnt + cnt * ncols);
    ctx->msg.n = 0;
    if (hla_buf_reserve(&ctx->msg, words * sizeof(double)) != HLA_OK)
      return HBSP_FAIL(col, HLA_ERR_NOMEM, "LU row move: out of memory");
    double *buf = (double *)ctx->msg.p, *val = buf + 1 + cnt;
    int64_t *hdr = (int64_t *)buf, q = 0;
    hdr[0] = cnt;
    for (int64_t t = 0; t < npairs; t++)
      if (hmat_idx_owner(src[t], nb, M) == me && hmat_idx_owner(dst[t], nb, M) == d)
        hdr[1 + q++] = t; /* pair index for now: the source row is read below */
    for (q = 0; q < cnt; q++)
      hdr[1 + q] = hmat_idx_g2l(src[hdr[1 + q]], nb, M); /* local source row */
    for (int64_t j = 0; j < ncols; j++) {
      const double *cj = X->data + (c0 + j) * lld;
      for (q = 0; q < cnt; q++) val[q + j * cnt] = cj[hdr[1 + q]];
    }
    /* The header now carries the target rows (global). */
    for (int64_t t = 0, q2 = 0; t < npairs; t++)
      if (hmat_idx_owner(src[t], nb, M) == me && hmat_idx_owner(dst[t], nb, M) == d)
        hdr[1 + q2++] = dst[t];
    HLA_CALL(hbsp_send(col, d, NULL, buf, words * sizeof(double)));
  }
  HLA_CALL(local_moves(ctx, X, dst, src, npairs, c0, ncols));
  size_t nmsg;
  HLA_CALL(hdist_sync_count(col, &nmsg));
  for (size_t m = 0; m < nmsg; m++) {
    size_t got;
    double *buf;
    HLA_CALL(hdist_move_next(col, &ctx->msg, "LU row move", &buf, &got));
    int64_t cnt = ((const int64_t *)buf)[0];
    size_t words = (size_t)(1 + cnt + cnt * ncols);
    if (cnt < 1 || got != words * sizeof(double))
      return HBSP_FAIL(col, HLA_ERR_INTERNAL, "LU row move: message of %zu bytes, expected %zu",
                       got, words * sizeof(double));
    double *val = buf + 1 + cnt;
    int64_t *hdr = (int64_t *)buf;
    for (int64_t q = 0; q < cnt; q++) {
      if (hmat_idx_owner(hdr[1 + q], nb, M) != me)
        return HBSP_FAIL(col, HLA_ERR_INTERNAL, "LU row move: row %lld is not mine",
                         (long long)hdr[1 + q]);
      hdr[1 + q] = hmat_idx_g2l(hdr[1 + q], nb, M); /* local row, once */
    }
    for (int64_t j = 0; j < ncols; j++) {
      double *cj = X->data + (c0 + j) * lld;
      for (int64_t q = 0; q < cnt; q++) cj[hdr[1 + q]] = val[q + j * cnt];
    }
  }
  return HLA_OK;
}
