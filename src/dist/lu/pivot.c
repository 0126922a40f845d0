/* hla — pivot search of the LU: the largest |a_ij| below the diagonal of one column, over the
 * process column that owns it, with the location as a global row.
 *
 * Ties go to the lowest global row at both steps: locally hkern_idamax keeps the first maximum,
 * and my local rows are in increasing global order; across ranks HBSP_MAXABSLOC keeps the lowest
 * index. So the pivots depend neither on the grid nor on the block size, and equal those of
 * LAPACK's dgetrf (whose idamax also takes the first maximum) wherever the values agree. */
#include <stdint.h>
#include "dist/lu/lu_impl.h"
#include "kernels/kernels.h"

int64_t hlu_pivot_local(const hlu_ctx *ctx, int64_t j, int64_t jl, hbsp_dloc *piv) {
  int64_t lr = hmat_numroc(j, ctx->nb, ctx->myrow, ctx->M); /* my first local row >= j */
  const hreal *col = ctx->a + jl * ctx->lld;
  if (lr < ctx->mloc) {
    int64_t i = lr + hkern_idamax(ctx->mloc - lr, col + lr, 1);
    piv->value = col[i];
    piv->index = hmat_idx_l2g(i, ctx->nb, ctx->myrow, ctx->M);
    return i;
  }
  /* no candidate here: a zero at an index that loses every tie */
  piv->value = 0.0;
  piv->index = INT64_MAX;
  return -1;
}

int hlu_pivot(hlu_ctx *ctx, int64_t j, int64_t jl, hbsp_dloc *piv) {
  hlu_pivot_local(ctx, j, jl, piv);
  return hlu_maxloc(&ctx->collv, piv, ctx->howp);
}
