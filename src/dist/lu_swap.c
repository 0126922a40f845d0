/* hla — row interchanges of the LU and of the solve, applied together: the interchanges of a block
 * (or of the whole factorisation) are composed into one permutation of the rows they touch, and
 * each row is sent once, straight to the process row that owns its final place, in one superstep
 * of the process column (a subset sync: process columns do not wait for each other).
 *
 * Example (seed 000, L1307): swaps (0,4), (1,3), (2,4), (3,5) on rows i0..i5 leave
 * [i4, i3, i0, i5, i2, i1]: row 0 receives i4, row 2 receives i0, and so on. */
#include <string.h>
#include "dist/lu_impl.h"

void hlu_compose(const int64_t *ipiv, int64_t k0, int64_t k1, int64_t *dst, int64_t *src,
                 int64_t *npairs) {
  /* dst[t]: a touched row; src[t]: the original row now at that place. */
  int64_t cnt = 0;
  for (int64_t k = k0; k < k1; k++) {
    int64_t r[2] = {k, ipiv[k]}, at[2];
    if (r[0] == r[1]) continue;
    for (int s = 0; s < 2; s++) {
      int64_t t = 0;
      while (t < cnt && dst[t] != r[s]) t++;
      if (t == cnt) dst[cnt] = src[cnt] = r[s], cnt++;
      at[s] = t;
    }
    int64_t x = src[at[0]];
    src[at[0]] = src[at[1]];
    src[at[1]] = x;
  }
  int64_t m = 0; /* keep the rows that really change */
  for (int64_t t = 0; t < cnt; t++)
    if (dst[t] != src[t]) dst[m] = dst[t], src[m] = src[t], m++;
  *npairs = m;
}

/* Local column jj of the j-th moved column: [0, c0) then [c1, nloc). */
static inline int64_t moved_col(int64_t j, int64_t c0, int64_t c1) {
  return j < c0 ? j : c1 + (j - c0);
}

int hlu_move_rows(hlu_ctx *ctx, hmat X, const int64_t *dst, const int64_t *src, int64_t npairs,
                  int64_t c0, int64_t c1) {
  hbsp_env col = ctx->collv.env;
  int nb = ctx->nb, M = ctx->M, me = ctx->myrow;
  int64_t ncols = c0 + X->nloc - c1, lld = X->lld;
  /* Every rank of the column has the same ncols (same process column), so all skip together. */
  if (npairs == 0 || ncols == 0) return HLA_OK;
  /* Rows are gathered column by column (each column is contiguous), never row by row with a
   * stride of lld: a row walk touches one cache line per column. */
  if (M == 1) {
    /* All rows are mine: gather the sources, then scatter them to their places (local row
     * indices first: no division in the inner loops). */
    ctx->msg.n = 0;
    if (hla_buf_reserve(&ctx->msg, (size_t)(npairs * (16 + 2)) * sizeof(double)) != HLA_OK)
      return HBSP_FAIL(col, HLA_ERR_NOMEM, "LU row move: out of memory");
    int64_t *ls = (int64_t *)ctx->msg.p, *ld = ls + npairs;
    double *tmp = (double *)(ld + npairs);
    for (int64_t t = 0; t < npairs; t++)
      ls[t] = hmat_idx_g2l(src[t], nb, M), ld[t] = hmat_idx_g2l(dst[t], nb, M);
    /* A few columns at a time, so that the gathered rows stay in cache for the scatter. */
    enum { JB = 16 };
    for (int64_t j0 = 0; j0 < ncols; j0 += JB) {
      int64_t jn = ncols - j0 < JB ? ncols - j0 : JB;
      for (int64_t j = 0; j < jn; j++) {
        const double *cj = X->data + moved_col(j0 + j, c0, c1) * lld;
        for (int64_t t = 0; t < npairs; t++) tmp[t + j * npairs] = cj[ls[t]];
      }
      for (int64_t j = 0; j < jn; j++) {
        double *cj = X->data + moved_col(j0 + j, c0, c1) * lld;
        for (int64_t t = 0; t < npairs; t++) cj[ld[t]] = tmp[t + j * npairs];
      }
    }
    return HLA_OK;
  }
  /* One message per destination process row: [count][count target rows][count x ncols values,
   * column-major], packed after every source row is read, so moves within a rank are safe. */
  for (int d = 0; d < M; d++) {
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
      const double *cj = X->data + moved_col(j, c0, c1) * lld;
      for (q = 0; q < cnt; q++) val[q + j * cnt] = cj[hdr[1 + q]];
    }
    /* The header now carries the target rows (global). */
    for (int64_t t = 0, q2 = 0; t < npairs; t++)
      if (hmat_idx_owner(src[t], nb, M) == me && hmat_idx_owner(dst[t], nb, M) == d)
        hdr[1 + q2++] = dst[t];
    HLA_CALL(hbsp_send(col, d, NULL, buf, words * sizeof(double)));
  }
  HLA_CALL(hbsp_sync(col));
  size_t nmsg;
  HLA_CALL(hbsp_qsize(col, &nmsg, NULL));
  for (size_t m = 0; m < nmsg; m++) {
    size_t bytes, got;
    HLA_CALL(hbsp_peek(col, &bytes, NULL));
    ctx->msg.n = 0;
    if (hla_buf_reserve(&ctx->msg, bytes) != HLA_OK)
      return HBSP_FAIL(col, HLA_ERR_NOMEM, "LU row move: out of memory");
    double *buf = (double *)ctx->msg.p;
    HLA_CALL(hbsp_move(col, NULL, buf, bytes, &got));
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
      double *cj = X->data + moved_col(j, c0, c1) * lld;
      for (int64_t q = 0; q < cnt; q++) cj[hdr[1 + q]] = val[q + j * cnt];
    }
  }
  return HLA_OK;
}
