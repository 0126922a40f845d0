/* hla — libhla_scalapack: PDGETRF, sub(A) = P L U by hlu_factor (m x n, as ScaLAPACK's).
 *
 * As ScaLAPACK's pdgetrf (SRC/pdgetrf.f): CHK1MAT's checks of M (place 1), N (2), IA (4), JA
 * (5), DESCA (6), then PCHK1MAT's: every process must give the same values (INFO -(place) or
 * -(600 + entry) otherwise, on every process); an illegal argument is reported through PXERBLA.
 * Then ScaLAPACK's quick returns: M_A = 1 sets IPIV(1) = 1 and returns (without looking at A, as
 * ScaLAPACK does), M = 0 or N = 0 returns. INFO = k > 0: U(IA + k - 1, JA + k - 1) is exactly zero
 * (the first such), the factorisation completed. IPIV as ScaLAPACK's (ipiv.c).
 * ScaLAPACK refuses what its algorithm cannot align (IA, JA not on a block's first row or column:
 * INFO -4, -5; MB_A != NB_A: -606); hla takes them, on a copy in its layout.
 * sub(A) is factored in place when it is all of A, in square blocks of at least SL_LU_MIN_BLOCK
 * (or any on a small matrix), with the first block on process (0, 0); elsewhere on a copy, which
 * on a grid taller than wide lies on its transpose (sl_lu_grid; HLA_SCALAPACK_LU_GRID).
 * A matrix with Inf or NaN (which hla's LU refuses) gets NaN factors, IPIV without interchanges
 * and INFO 0, with a warning: what ScaLAPACK leaves there is no better.
 * BSP cost: hlu_factor's (src/dist/lu), plus one allreduce of the checks and, on a copy, two
 * redistributions of sub(A).
 * Collective over the processes of A's BLACS context (the first call on a context makes its grid:
 * context.c); arguments global but A, IPIV and the descriptor's LLD (local), as ScaLAPACK
 * documents them. A process outside the context returns at once with INFO -602 (PXERBLA).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "scalapack/scalapack_impl.h"

SL_EXPORT void pdgetrf_(const int *M, const int *N, double *A, const int *IA, const int *JA,
                        const int *DESCA, int *IPIV, int *INFO) {
  static const char rout[] = "PDGETRF";
  const int ctxt = DESCA[1];
  int nprow, npcol, myrow, mycol;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  if (nprow == -1) { /* not a process of A's grid */
    *INFO = -(600 + 2);
    sl_count(SL_PDGETRF, SL_ILLEGAL);
    sl_xerbla(ctxt, rout, *INFO);
    return;
  }
  int code = SL_BIGNUM;
  sl_chk1mat(*M, 1, *N, 2, *IA, *JA, DESCA, 6, &code);
  sl_grid *G;
  int e = sl_grid_get(ctxt, &G);
  if (e != HLA_OK) Cblacs_abort(ctxt, e);
  sl_globals gl = {0};
  sl_globals_mat(&gl, *M, 1, *N, 2, *IA, *JA, DESCA, 6);
  if (sl_agree(G, &code, &gl, NULL) != HLA_OK) sl_fail(G, rout, HLA_ERR_MPI);
  *INFO = sl_info(code);
  if (*INFO != 0) {
    sl_count(SL_PDGETRF, SL_ILLEGAL);
    sl_xerbla(ctxt, rout, *INFO);
    return;
  }
  if (DESCA[2] == 1) { /* ScaLAPACK's quick return for a one-row A */
    IPIV[0] = 1;
    sl_count(SL_PDGETRF, SL_TRIVIAL);
    return;
  }
  const int64_t m = *M, n = *N, k = m < n ? m : n, ia = *IA - 1, ja = *JA - 1;
  if (k == 0) {
    sl_count(SL_PDGETRF, SL_TRIVIAL);
    return;
  }
  sl_desc d;
  sl_desc_read(DESCA, &d);
  const int b = sl_lu_block(&d, m, n);
  hgrid lg;
  int direct = b > 0;
  if ((e = sl_lu_grid(G, &direct, &lg)) != HLA_OK) sl_fail(G, rout, e);
  const sl_use u = {
      .direct = direct, .mb = b, .nb = b, .cmb = b, .cnb = b, .grid = lg, .read = 1, .write = 1};
  sl_mat x;
  if ((e = sl_mat_open(G, A, &d, ia, ja, m, n, &u, &x)) != HLA_OK) sl_fail(G, rout, e);
  int64_t *ipiv = sl_malloc(rout, (size_t)k * sizeof *ipiv), info = -1;
  hla_opts o = HLA_OPTS_INIT;
  o.info_out = &info;
  e = hlu_factor(x.work, ipiv, &o);
  if (e == HLA_ERR_NONFINITE) { /* NaN factors, no interchanges */
    if (myrow == 0 && mycol == 0)
      fprintf(stderr,
              "hla_scalapack: %s: sub(A) holds Inf or NaN; its factors are set to NaN "
              "and IPIV to no interchanges\n",
              rout);
    sl_mat_fill(&x, NAN);
    for (int64_t i = 0; i < k; i++) ipiv[i] = i;
    e = sl_mat_close(&x, 0);
  } else if (e == HLA_OK || e == HLA_ERR_SINGULAR) {
    *INFO = e == HLA_ERR_SINGULAR ? (int)info + 1 : 0;
    e = sl_mat_close(&x, 1);
  }
  if (e != HLA_OK) sl_fail(G, rout, e);
  sl_ipiv_put(G, &d, ia, k, ipiv, IPIV);
  free(ipiv);
  sl_count(SL_PDGETRF, x.in_place ? SL_IN_PLACE : x.copy && lg != G->g ? SL_TRANSPOSED : SL_COPIED);
}
