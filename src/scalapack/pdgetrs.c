/* hla — libhla_scalapack: PDGETRS, sub(B) := op(sub(A))^-1 sub(B) with the factors of PDGETRF, by
 * hlu_solve_trans.
 *
 * As ScaLAPACK's pdgetrs (SRC/pdgetrs.f): CHK1MAT's checks of sub(A) (N at place 2, IA 5, JA 6,
 * DESCA 7) and sub(B) (NRHS 3, IB 10, JB 11, DESCB 12), TRANS (1) and the contexts (-1202), then
 * PCHK2MAT's (the same values on every process, TRANS included); illegal arguments through
 * PXERBLA; N = 0 or NRHS = 0 returns. The factors and IPIV may be ScaLAPACK's own or hla's (the
 * same conventions: ipiv.c). IPIV is read for sub(A)'s N rows; a pivot outside them is reported
 * as an illegal IPIV (-8), which ScaLAPACK does not check. ScaLAPACK refuses what its algorithm
 * cannot align (IA, JA, IB off a block's first row or column, B's rows on other processes than
 * A's, MB_A != NB_A, MB_B != NB_A); hla takes them, on copies in its layout.
 * sub(A) is used in place when it is all of A in suitable square blocks (sl_lu_block) with its
 * first block on process (0, 0), sub(B) when it is all of B with A's row blocks; else copies.
 * BSP cost: hlu_solve_trans's (src/dist/lu/solve.c), one allreduce of the checks, one of N words
 * down the process columns for IPIV, and the copies' redistributions.
 * Collective over the processes of A's BLACS context; arguments global but A, B, IPIV and the
 * descriptors' LLD (local), as ScaLAPACK documents them. A process outside the context returns at
 * once with INFO -702 (PXERBLA).
 */
#include <ctype.h>
#include <stdlib.h>
#include "scalapack/scalapack_impl.h"

int sl_getrs(sl_grid *G, char trans, int64_t n, int64_t nrhs, double *A, int64_t ia, int64_t ja,
             const sl_desc *da, const int64_t *ipiv, double *B, int64_t ib, int64_t jb,
             const sl_desc *db, int *in_place) {
  const int b = sl_lu_block(da, n, n);
  const sl_use ua = {.direct = b > 0, .mb = b, .nb = b, .cmb = b, .cnb = b, .read = 1};
  sl_mat xa, xb;
  HLA_CALL(sl_mat_open(G, A, da, ia, ja, n, n, &ua, &xa));
  int wb, unused;
  hmat_blocks(xa.work, &wb, &unused);
  const sl_use ub = {.direct = 1, .mb = wb, .cmb = wb, .cnb = db->nb, .read = 1, .write = 1};
  int code = sl_mat_open(G, B, db, ib, jb, n, nrhs, &ub, &xb);
  if (code != HLA_OK) {
    sl_mat_close(&xa, 0);
    return code;
  }
  code = hlu_solve_trans(trans, xa.work, ipiv, xb.work, NULL);
  *in_place = xa.in_place && xb.in_place;
  int e = sl_mat_close(&xb, code == HLA_OK), e2 = sl_mat_close(&xa, 0);
  return code != HLA_OK ? code : e != HLA_OK ? e : e2;
}

SL_EXPORT void pdgetrs_(const char *trans, const int *N, const int *NRHS, double *A, const int *IA,
                        const int *JA, const int *DESCA, const int *IPIV, double *B, const int *IB,
                        const int *JB, const int *DESCB, int *INFO) {
  static const char rout[] = "PDGETRS";
  const int ctxt = DESCA[1];
  int nprow, npcol, myrow, mycol;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  if (nprow == -1) { /* not a process of A's grid */
    *INFO = -(700 + 2);
    sl_count(SL_PDGETRS, SL_ILLEGAL);
    sl_xerbla(ctxt, rout, *INFO);
    return;
  }
  const char t = (char)toupper((unsigned char)trans[0]);
  int code = SL_BIGNUM;
  sl_chk1mat(*N, 2, *N, 2, *IA, *JA, DESCA, 7, &code);
  sl_chk1mat(*N, 2, *NRHS, 3, *IB, *JB, DESCB, 12, &code);
  if (code == SL_BIGNUM) {
    if (t != 'N' && t != 'T' && t != 'C')
      code = 1 * SL_DESCMULT;
    else if (DESCB[1] != ctxt)
      code = 12 * SL_DESCMULT + 2;
  }
  sl_grid *G;
  int e = sl_grid_get(ctxt, &G);
  if (e != HLA_OK) Cblacs_abort(ctxt, e);
  sl_globals gl = {0};
  sl_globals_mat(&gl, *N, 2, *N, 2, *IA, *JA, DESCA, 7);
  sl_globals_mat(&gl, *N, 2, *NRHS, 3, *IB, *JB, DESCB, 12);
  sl_globals_add(&gl, t == 'N' ? 'N' : t == 'T' ? 'T' : 'C', 1 * SL_DESCMULT);
  if (sl_agree(G, &code, &gl, NULL) != HLA_OK) sl_fail(G, rout, HLA_ERR_MPI);
  *INFO = sl_info(code);
  if (*INFO != 0) {
    sl_count(SL_PDGETRS, SL_ILLEGAL);
    sl_xerbla(ctxt, rout, *INFO);
    return;
  }
  const int64_t n = *N, nrhs = *NRHS;
  if (n == 0 || nrhs == 0) {
    sl_count(SL_PDGETRS, SL_TRIVIAL);
    return;
  }
  sl_desc da, db;
  sl_desc_read(DESCA, &da), sl_desc_read(DESCB, &db);
  int64_t *ipiv = sl_malloc(rout, (size_t)n * sizeof *ipiv);
  if ((e = sl_ipiv_get(G, &da, *IA - 1, n, IPIV, ipiv)) != HLA_OK) sl_fail(G, rout, e);
  int in_place = 0;
  e = sl_getrs(G, t, n, nrhs, A, *IA - 1, *JA - 1, &da, ipiv, B, *IB - 1, *JB - 1, &db, &in_place);
  free(ipiv);
  if (e == HLA_ERR_ARG) { /* the only argument left to hla's checks: a pivot out of range */
    *INFO = -8;
    sl_count(SL_PDGETRS, SL_ILLEGAL);
    sl_xerbla(ctxt, rout, *INFO);
    return;
  }
  if (e != HLA_OK) sl_fail(G, rout, e);
  sl_count(SL_PDGETRS, in_place ? SL_IN_PLACE : SL_COPIED);
}
