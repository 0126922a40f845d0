/* hla — pivot search of the LU: my candidate for the largest |a_ij| below the diagonal of one
 * column, with the location as a global row; the panel combines the process column's candidates
 * (panel.c).
 *
 * Ties go to the lowest global row at both steps: locally hkern_idamax keeps the first maximum,
 * and my local rows are in increasing global order; across ranks hbsp_dloc_wins (HBSP_MAXABSLOC's
 * rule) keeps the lowest index. So the pivots depend neither on the grid nor on the block size, and
 * equal those of LAPACK's dgetrf (whose idamax also takes the first maximum) wherever the values
 * agree.
 *
 * In the simulation's model mode (HLA_SIM=model, kernels/sim.c) the entries are meaningless, so
 * each candidate row gets a value from a hash of (row, column) in [1, 2) instead: the pivots fall
 * anywhere below the diagonal, as a random matrix's do, and the rows travel as they would. */
#include <stdint.h>
#include "dist/lu/lu_impl.h"
#include "kernels/kernels.h"

/* A value in [1, 2) from row i and column j (splitmix64's finaliser). */
static double model_value(int64_t i, int64_t j) {
  uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)j * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return 1.0 + (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

int64_t hlu_pivot_local(const hlu_ctx *ctx, int64_t j, int64_t jl, hbsp_dloc *piv) {
  int64_t lr = hmat_numroc(j, ctx->nb, ctx->myrow, ctx->M); /* my first local row >= j */
  const hreal *col = ctx->a + jl * ctx->lld;
  if (lr < ctx->mloc && hkern_sim_model()) {
    int64_t best = lr;
    piv->value = 0.0;
    for (int64_t i = lr; i < ctx->mloc; i++) {
      const double v = model_value(hmat_idx_l2g(i, ctx->nb, ctx->myrow, ctx->M), j);
      if (v > piv->value) piv->value = v, best = i;
    }
    piv->index = hmat_idx_l2g(best, ctx->nb, ctx->myrow, ctx->M);
    return best;
  }
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
