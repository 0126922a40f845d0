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

int hlu_move_rows(hlu_ctx *ctx, hmat X, const int64_t *dst, const int64_t *src, int64_t npairs,
                  int64_t c0, int64_t c1) {
  hbsp_env col = ctx->collv.env;
  int nb = ctx->nb, M = ctx->M, me = ctx->myrow;
  int64_t right = X->nloc - c1, ncols = c0 + right, lld = X->lld;
  /* Every rank of the column has the same ncols (same process column), so all skip together. */
  if (npairs == 0 || ncols == 0) return HLA_OK;
  size_t bytes = (size_t)(ncols + 1) * sizeof(double);
  ctx->msg.n = 0;
  HLA_CALL(hla_buf_reserve(&ctx->msg, bytes));
  double *buf = (double *)ctx->msg.p;
  for (int64_t t = 0; t < npairs; t++) {
    if (hmat_idx_owner(src[t], nb, M) != me) continue;
    const double *row = X->data + hmat_idx_g2l(src[t], nb, M);
    memcpy(buf, &dst[t], sizeof dst[t]); /* header: the global row it goes to */
    for (int64_t j = 0; j < c0; j++) buf[1 + j] = row[j * lld];
    for (int64_t j = 0; j < right; j++) buf[1 + c0 + j] = row[(c1 + j) * lld];
    HLA_CALL(hbsp_send(col, hmat_idx_owner(dst[t], nb, M), NULL, buf, bytes));
  }
  HLA_CALL(hbsp_sync(col));
  size_t nmsg, got;
  HLA_CALL(hbsp_qsize(col, &nmsg, NULL));
  for (size_t q = 0; q < nmsg; q++) {
    HLA_CALL(hbsp_move(col, NULL, buf, bytes, &got));
    int64_t d;
    memcpy(&d, buf, sizeof d);
    if (got != bytes || hmat_idx_owner(d, nb, M) != me)
      return HBSP_FAIL(col, HLA_ERR_INTERNAL, "LU row move: unexpected message for row %lld",
                       (long long)d);
    double *row = X->data + hmat_idx_g2l(d, nb, M);
    for (int64_t j = 0; j < c0; j++) row[j * lld] = buf[1 + j];
    for (int64_t j = 0; j < right; j++) row[(c1 + j) * lld] = buf[1 + c0 + j];
  }
  return HLA_OK;
}
