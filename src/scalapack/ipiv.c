/* hla — libhla_scalapack: ScaLAPACK's distributed IPIV <-> hla's replicated pivots.
 *
 * ScaLAPACK's IPIV (LOCr(M_A) + MB_A entries on every process) is tied to A's rows: the entry of
 * local row i of A holds the global row (1-based, counted in all of A) that row was swapped with,
 * for the rows of sub(A)'s first min(M, N) (pdgetrf's PDGETF2 writes them on the process row that
 * owns the row and broadcasts them along it, so every process column has them). hla's pivots are
 * global too, relative to sub(A)'s first row, 0-based, and every process has all of them.
 */
#include <stdlib.h>
#include "scalapack/scalapack_impl.h"

/* Global row (0-based, in A) of my local row il of A's plain layout (type 1: first block MB). */
static int64_t row_of(sl_grid *G, const sl_desc *d, int64_t il) {
  return hmat_idx_l2g(il, d->mb, (G->myrow - d->rsrc + G->nprow) % G->nprow, G->nprow);
}

void sl_ipiv_put(sl_grid *G, const sl_desc *d, int64_t i0, int64_t k, const int64_t *ipiv,
                 int *IPIV) {
  int64_t mp = sl_numroc(d->m, d->mb, d->mb, G->myrow, d->rsrc, G->nprow);
  for (int64_t il = 0; il < mp; il++) {
    int64_t g = row_of(G, d, il) - i0;
    if (g >= 0 && g < k) IPIV[il] = (int)(ipiv[g] + i0 + 1);
  }
}

int sl_ipiv_get(sl_grid *G, const sl_desc *d, int64_t i0, int64_t n, const int *IPIV,
                int64_t *ipiv) {
  /* each process row puts its rows' pivots, zeros elsewhere; the sum down the process column
   * has them all (every process row owns its own rows: no two add to one entry) */
  long long *mine = sl_malloc("hla_scalapack", (size_t)n * sizeof *mine);
  long long *all = sl_malloc("hla_scalapack", (size_t)n * sizeof *all);
  int code = HLA_OK;
  int64_t mp = sl_numroc(d->m, d->mb, d->mb, G->myrow, d->rsrc, G->nprow);
  for (int64_t g = 0; g < n; g++) mine[g] = 0;
  for (int64_t il = 0; il < mp; il++) {
    int64_t g = row_of(G, d, il) - i0;
    if (g >= 0 && g < n) mine[g] = (long long)IPIV[il] - 1 - i0;
  }
  if (MPI_Allreduce(mine, all, (int)n, MPI_LONG_LONG, MPI_SUM, G->col) != MPI_SUCCESS)
    code = HLA_ERR_MPI;
  for (int64_t g = 0; code == HLA_OK && g < n; g++) ipiv[g] = all[g];
  free(mine);
  free(all);
  return code;
}
