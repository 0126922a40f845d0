/* hla — libhla_scalapack: PDGEMM, sub(C) := alpha op(sub(A)) op(sub(B)) + beta sub(C), by hmatmul.
 *
 * As PBLAS's pdgemm_ (PBLAS/SRC/pdgemm_.c): descriptors of type 1 or 2, the checks of PB_Cchkmat
 * with PBLAS's INFO (positions TRANSA 1, TRANSB 2, M 3, N 4, K 5, A's descriptor 10, B's 14,
 * C's 19; a descriptor's entries numbered as in PBLAS's 11-entry form, a 9-entry descriptor's too,
 * since PBLAS converts it first: its MB_ is entry 7), an illegal argument reported through
 * PB_Cabort, the quick returns (M = 0, N = 0, or alpha = 0 or K = 0 with beta = 1) and alpha = 0
 * or K = 0 as a scaling of sub(C) alone (A and B not read, as PBLAS promises). Unlike PBLAS, the
 * processes agree on INFO (the smallest), and arguments that must be the same everywhere are
 * checked to be.
 *
 * sub(C) is computed in place when it is all of C in a plain layout (C wrapped; with its first
 * block elsewhere than process (0, 0) hla copies it itself), else on a copy in C's blocks (MB = NB)
 * or hla's; A and B are used wrapped when whole and plain (hmatmul remaps them if their blocks
 * differ from C's), else copied. sub(A) or sub(B) in memory that C's array overlaps on some
 * process (ScaLAPACK's routines pass parts of one array) is copied before C is written.
 * BSP cost: hmatmul's (see src/dist/matmul), plus one allreduce of the checks and, per copied
 * operand, a redistribution of its part (twice for C when beta != 0).
 * Collective over the processes of A's BLACS context (the first call on a context makes its grid:
 * context.c); arguments global but the local arrays and the descriptors' LLD, as PBLAS documents
 * them. A process outside the context gets PBLAS's INFO -1002 through PB_Cabort, alone.
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include "scalapack/scalapack_impl.h"

/* The entries of an operand's descriptor that every process must give alike (not the context's
 * handle nor LLD), in PBLAS's numbering. */
static void global_desc(sl_globals *gl, const sl_desc *d, int pos) {
  const int v[9] = {d->dtype, d->m, d->n, d->imb, d->inb, d->mb, d->nb, d->rsrc, d->csrc};
  static const int e[9] = {1, 3, 4, 5, 6, 7, 8, 9, 10};
  for (int q = 0; q < 9; q++) sl_globals_add(gl, v[q], pos * SL_DESCMULT + e[q]);
}

/* Do [a, a + na) and [c, c + nc) (words) overlap? */
static int overlaps(const double *a, int64_t na, const double *c, int64_t nc) {
  uintptr_t a0 = (uintptr_t)a, a1 = a0 + (uintptr_t)na * sizeof(double), c0 = (uintptr_t)c,
            c1 = c0 + (uintptr_t)nc * sizeof(double);
  return na > 0 && nc > 0 && a0 < c1 && c0 < a1;
}

SL_EXPORT void pdgemm_(const char *transa, const char *transb, const int *M, const int *N,
                       const int *K, const double *alpha, double *A, const int *IA, const int *JA,
                       const int *DESCA, double *B, const int *IB, const int *JB, const int *DESCB,
                       const double *beta, double *C, const int *IC, const int *JC,
                       const int *DESCC) {
  static const char rout[] = "PDGEMM";
  const char ta = (char)toupper((unsigned char)transa[0]),
             tb = (char)toupper((unsigned char)transb[0]);
  const int nota = ta == 'N', notb = tb == 'N';
  sl_desc da, db, dc;
  sl_desc_read(DESCA, &da), sl_desc_read(DESCB, &db), sl_desc_read(DESCC, &dc);
  const int ctxt = da.ctxt, m = *M, n = *N, k = *K;
  const int ia = *IA - 1, ja = *JA - 1, ib = *IB - 1, jb = *JB - 1, ic = *IC - 1, jc = *JC - 1;

  /* the checks, as pdgemm_ (PBLAS's running INFO, negative on error) */
  int nprow, npcol, myrow, mycol, info;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  if (nprow == -1) { /* not a process of A's grid: PBLAS stops there */
    sl_count(SL_PDGEMM, SL_ILLEGAL);
    sl_pb_abort(ctxt, rout, -(1001 + 1));
    return;
  }
  info = 0;
  if (!nota && ta != 'T' && ta != 'C') {
    sl_pb_warn(ctxt, rout, "Illegal TRANSA = %c", ta);
    info = -1;
  } else if (!notb && tb != 'T' && tb != 'C') {
    sl_pb_warn(ctxt, rout, "Illegal TRANSB = %c", tb);
    info = -2;
  }
  if (nota)
    sl_pb_chkmat(ctxt, rout, "A", m, 3, k, 5, ia, ja, &da, 10, &info);
  else
    sl_pb_chkmat(ctxt, rout, "A", k, 5, m, 3, ia, ja, &da, 10, &info);
  if (notb)
    sl_pb_chkmat(ctxt, rout, "B", k, 5, n, 4, ib, jb, &db, 14, &info);
  else
    sl_pb_chkmat(ctxt, rout, "B", n, 4, k, 5, ib, jb, &db, 14, &info);
  sl_pb_chkmat(ctxt, rout, "C", m, 3, n, 4, ic, jc, &dc, 19, &info);

  sl_grid *G;
  int e = sl_grid_get(ctxt, &G);
  if (e != HLA_OK) Cblacs_abort(ctxt, e);
  /* agree on INFO, on the arguments every process must give alike, and on whether C's array
   * overlaps A's or B's somewhere */
  int code = sl_code(info), flags = 0;
  sl_globals gl = {0};
  int64_t al, be;
  memcpy(&al, alpha, sizeof al), memcpy(&be, beta, sizeof be);
  const int64_t gv[] = {ta, tb, m, n, k, al, ia, ja, ib, jb, be, ic, jc};
  static const int gp[] = {1, 2, 3, 4, 5, 6, 8, 9, 12, 13, 15, 17, 18};
  for (int q = 0; q < 13; q++) sl_globals_add(&gl, gv[q], gp[q] * SL_DESCMULT);
  global_desc(&gl, &da, 10), global_desc(&gl, &db, 14), global_desc(&gl, &dc, 19);
  if (info == 0) {
    int64_t wa = sl_local_words(G, &da), wb = sl_local_words(G, &db), wc = sl_local_words(G, &dc);
    if (overlaps(A, wa, C, wc)) flags |= 1;
    if (overlaps(B, wb, C, wc)) flags |= 2;
  }
  if (sl_agree(G, &code, &gl, &flags) != HLA_OK) sl_fail(G, rout, HLA_ERR_MPI);
  if (code != SL_BIGNUM) {
    sl_count(SL_PDGEMM, SL_ILLEGAL);
    sl_pb_abort(ctxt, rout, sl_info(code));
    return;
  }

  /* quick returns */
  if (m == 0 || n == 0 || ((*alpha == 0.0 || k == 0) && *beta == 1.0)) {
    sl_count(SL_PDGEMM, SL_TRIVIAL);
    return;
  }
  sl_mat xc, xa, xb;
  if (*alpha == 0.0 || k == 0) { /* sub(C) := beta sub(C), each process its own entries */
    if ((e = sl_mat_wrap(G, C, &dc, ic, jc, m, n, 1, &xc)) != HLA_OK) sl_fail(G, rout, e);
    sl_mat_scale(&xc, *beta);
    sl_mat_close(&xc, 0);
    sl_count(SL_PDGEMM, SL_TRIVIAL);
    return;
  }
  /* C: in place when whole and plain, else a copy in its square blocks or hla's (read only when
   * beta != 0: hmatmul never reads C then) */
  const int bc = dc.mb == dc.nb ? dc.mb : 0;
  const sl_use uc = {.direct = 1, .cmb = bc, .cnb = bc, .read = *beta != 0.0, .write = 1};
  if ((e = sl_mat_open(G, C, &dc, ic, jc, m, n, &uc, &xc)) != HLA_OK) sl_fail(G, rout, e);
  int cmb, cnb;
  hmat_blocks(xc.work, &cmb, &cnb);
  /* A and B: wrapped when whole and plain (hmatmul remaps them to C's blocks if need be), unless
   * C is computed on its own array and overlaps theirs; else copied in C's blocks */
  const sl_use ua = {.direct = xc.copy || !(flags & 1), .cmb = cmb, .cnb = cmb, .read = 1};
  const sl_use ub = {.direct = xc.copy || !(flags & 2), .cmb = cnb, .cnb = cnb, .read = 1};
  if ((e = sl_mat_open(G, A, &da, ia, ja, nota ? m : k, nota ? k : m, &ua, &xa)) != HLA_OK)
    sl_fail(G, rout, e);
  if ((e = sl_mat_open(G, B, &db, ib, jb, notb ? k : n, notb ? n : k, &ub, &xb)) != HLA_OK)
    sl_fail(G, rout, e);
  e = hmatmul(nota ? 'N' : 'T', notb ? 'N' : 'T', *alpha, xa.work, xb.work, *beta, xc.work, NULL);
  if (e != HLA_OK) sl_fail(G, rout, e);
  const int in_place = xa.in_place && xb.in_place && xc.in_place;
  if ((e = sl_mat_close(&xa, 0)) != HLA_OK || (e = sl_mat_close(&xb, 0)) != HLA_OK ||
      (e = sl_mat_close(&xc, 1)) != HLA_OK)
    sl_fail(G, rout, e);
  sl_count(SL_PDGEMM, in_place ? SL_IN_PLACE : SL_COPIED);
}
