/* hla — libhla_scalapack: PDGESV, sub(A) X = sub(B), X into sub(B), by hla_gesv.
 *
 * As ScaLAPACK's pdgesv (SRC/pdgesv.f): CHK1MAT's checks of sub(A) (N at place 1, IA 4, JA 5,
 * DESCA 6) and sub(B) (NRHS 2, IB 9, JB 10, DESCB 11) and the contexts (-1102), then PCHK2MAT's;
 * illegal arguments through PXERBLA; then PDGETRF and, when it succeeded, PDGETRS: INFO = k > 0
 * (U(IA + k - 1, JA + k - 1) exactly zero) leaves sub(B) as it was. PDGETRF's quick return for
 * M_A = 1 is kept (IPIV(1) = 1 and INFO 0 whatever A(1, 1) is; the solve then divides by it).
 * ScaLAPACK's alignment refusals (-4, -5, -606, -9, -1106) are not errors here: copies.
 * In place as pdgetrf (B on a copy where A is, sl_lu_grid); Inf or NaN in sub(A): NaN factors and
 * solution, as pdgetrf. BSP cost: hla_gesv's, one allreduce of the checks, and the copies'
 * redistributions. Collective over the processes of A's BLACS context; arguments global but A, B,
 * IPIV and the descriptors' LLD (local), as ScaLAPACK documents them. A process outside the context
 * returns at once with INFO -602 (PXERBLA).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "scalapack/scalapack_impl.h"

SL_EXPORT void pdgesv_(const int *N, const int *NRHS, double *A, const int *IA, const int *JA,
                       const int *DESCA, int *IPIV, double *B, const int *IB, const int *JB,
                       const int *DESCB, int *INFO) {
  static const char rout[] = "PDGESV";
  const int ctxt = DESCA[1];
  int nprow, npcol, myrow, mycol;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  if (nprow == -1) { /* not a process of A's grid */
    *INFO = -(600 + 2);
    sl_count(SL_PDGESV, SL_ILLEGAL);
    sl_xerbla(ctxt, rout, *INFO);
    return;
  }
  int code = SL_BIGNUM;
  sl_chk1mat(*N, 1, *N, 1, *IA, *JA, DESCA, 6, &code);
  sl_chk1mat(*N, 1, *NRHS, 2, *IB, *JB, DESCB, 11, &code);
  if (code == SL_BIGNUM && DESCB[1] != ctxt) code = 11 * SL_DESCMULT + 2;
  sl_grid *G;
  int e = sl_grid_get(ctxt, &G);
  if (e != HLA_OK) Cblacs_abort(ctxt, e);
  sl_globals gl = {0};
  sl_globals_mat(&gl, *N, 1, *N, 1, *IA, *JA, DESCA, 6);
  sl_globals_mat(&gl, *N, 1, *NRHS, 2, *IB, *JB, DESCB, 11);
  if (sl_agree(G, &code, &gl, NULL) != HLA_OK) sl_fail(G, rout, HLA_ERR_MPI);
  *INFO = sl_info(code);
  if (*INFO != 0) {
    sl_count(SL_PDGESV, SL_ILLEGAL);
    sl_xerbla(ctxt, rout, *INFO);
    return;
  }
  const int64_t n = *N, nrhs = *NRHS, ia = *IA - 1, ja = *JA - 1, ib = *IB - 1, jb = *JB - 1;
  sl_desc da, db;
  sl_desc_read(DESCA, &da), sl_desc_read(DESCB, &db);
  int in_place = 0;
  if (DESCA[2] == 1) { /* PDGETRF's quick return, then PDGETRS */
    IPIV[0] = 1;
    const int64_t none = 0;
    if (n > 0 && nrhs > 0) {
      e = sl_getrs(G, 'N', n, nrhs, A, ia, ja, &da, &none, B, ib, jb, &db, &in_place);
      if (e != HLA_OK) sl_fail(G, rout, e);
    }
    sl_count(SL_PDGESV, SL_TRIVIAL);
    return;
  }
  if (n == 0) {
    sl_count(SL_PDGESV, SL_TRIVIAL);
    return;
  }
  const int b = sl_lu_block(&da, n, n);
  hgrid lg;
  int direct = b > 0;
  if ((e = sl_lu_grid(G, &direct, &lg)) != HLA_OK) sl_fail(G, rout, e);
  const sl_use ua = {
      .direct = direct, .mb = b, .nb = b, .cmb = b, .cnb = b, .grid = lg, .read = 1, .write = 1};
  sl_mat xa, xb;
  if ((e = sl_mat_open(G, A, &da, ia, ja, n, n, &ua, &xa)) != HLA_OK) sl_fail(G, rout, e);
  int wb, unused;
  hmat_blocks(xa.work, &wb, &unused);
  const hgrid ag = xa.copy ? lg : G->g; /* B goes where A's factors are */
  const sl_use ub = {
      .direct = ag == G->g, .mb = wb, .cmb = wb, .cnb = db.nb, .grid = ag, .read = 1, .write = 1};
  if ((e = sl_mat_open(G, B, &db, ib, jb, n, nrhs, &ub, &xb)) != HLA_OK) sl_fail(G, rout, e);
  int64_t *ipiv = sl_malloc(rout, (size_t)n * sizeof *ipiv), info = -1;
  hla_opts o = HLA_OPTS_INIT;
  o.info_out = &info;
  e = hla_gesv(xa.work, ipiv, xb.work, &o);
  int write_b = e == HLA_OK;
  if (e == HLA_ERR_NONFINITE) { /* NaN factors and solution, no interchanges */
    if (myrow == 0 && mycol == 0)
      fprintf(stderr,
              "hla_scalapack: %s: sub(A) holds Inf or NaN; its factors and the solution "
              "are set to NaN and IPIV to no interchanges\n",
              rout);
    sl_mat_fill(&xa, NAN);
    sl_mat_fill(&xb, NAN);
    for (int64_t i = 0; i < n; i++) ipiv[i] = i;
    e = HLA_OK;
  } else if (e == HLA_OK || e == HLA_ERR_SINGULAR) {
    *INFO = e == HLA_ERR_SINGULAR ? (int)info + 1 : 0;
    e = HLA_OK;
  }
  const int wrote_a = write_b || *INFO > 0; /* hla's factors are in work (not on NaN: the pieces) */
  if (e == HLA_OK) e = sl_mat_close(&xb, write_b);
  if (e == HLA_OK) e = sl_mat_close(&xa, wrote_a);
  if (e != HLA_OK) sl_fail(G, rout, e);
  sl_ipiv_put(G, &da, ia, n, ipiv, IPIV);
  free(ipiv);
  sl_count(SL_PDGESV, xa.in_place && xb.in_place ? SL_IN_PLACE
                      : ag != G->g               ? SL_TRANSPOSED
                                                 : SL_COPIED);
}
