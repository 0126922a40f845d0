/* HPL under SimGrid in the simulation's model mode, as hla runs there (src/kernels/sim.c): the
 * BLAS that HPL calls (its C interface, HPL_CALL_CBLAS) charge their operation count to the
 * simulated clock (smpi_execute_flops at the platform's host speed) instead of computing, the
 * same prices hla's kernels pay: 2 m n k for a dgemm, m^2 n or m n^2 for a dtrsm, 2 m n for a
 * dgemv or dger, n^2 for a dtrsv, n or 2 n for dscal and daxpy, and a copy or swap of w words w
 * operations. Copies, swaps and idamax are done for real (HPL moves its pivots' row indices
 * through them), so HPL's pivots come from its real random matrix, which is never updated: its row
 * interchanges have the pattern of a real run, and its final residual check fails (the time is what
 * is compared). HPL's own copy and row-swap loops (HPL_dlaswp*, HPL_dlacpy, HPL_dlatcpy) are not
 * BLAS: they run for real and are not charged. Built with smpicc and HPL's headers by
 * bench/sim/hpl.sh; no part of hla. */
#include <smpi/smpi.h>
#include "hpl.h"

void probe_wait_work(void); /* probe_wait.c: this rank computed since its last probe */

static void charge(double ops) {
  if (ops > 0) smpi_execute_flops(ops), probe_wait_work();
}

CBLAS_INDEX cblas_idamax(const int n, const double *x, const int incx) {
  charge(n);
  int best = 0;
  double big = -1;
  for (int i = 0; i < n; i++) {
    double v = x[(size_t)i * incx] < 0 ? -x[(size_t)i * incx] : x[(size_t)i * incx];
    if (v > big) big = v, best = i;
  }
  return (CBLAS_INDEX)best;
}

/* Copies and swaps are done: HPL moves its pivots' row indices and maxima through them. */
void cblas_dswap(const int n, double *x, const int incx, double *y, const int incy) {
  charge(2.0 * n);
  for (int i = 0; i < n; i++) {
    double t = x[(size_t)i * incx];
    x[(size_t)i * incx] = y[(size_t)i * incy], y[(size_t)i * incy] = t;
  }
}

void cblas_dcopy(const int n, const double *x, const int incx, double *y, const int incy) {
  charge(n);
  for (int i = 0; i < n; i++) y[(size_t)i * incy] = x[(size_t)i * incx];
}

void cblas_daxpy(const int n, const double a, const double *x, const int incx, double *y,
                 const int incy) {
  (void)a, (void)x, (void)incx, (void)y, (void)incy;
  charge(2.0 * n);
}

void cblas_dscal(const int n, const double a, double *x, const int incx) {
  (void)a, (void)x, (void)incx;
  charge(n);
}

void cblas_dgemv(const enum CBLAS_ORDER o, const enum CBLAS_TRANSPOSE t, const int m, const int n,
                 const double a, const double *A, const int lda, const double *x, const int incx,
                 const double b, double *y, const int incy) {
  (void)o, (void)t, (void)a, (void)A, (void)lda, (void)x, (void)incx, (void)b, (void)y, (void)incy;
  charge(2.0 * m * n);
}

void cblas_dger(const enum CBLAS_ORDER o, const int m, const int n, const double a, const double *x,
                const int incx, const double *y, const int incy, double *A, const int lda) {
  (void)o, (void)a, (void)x, (void)incx, (void)y, (void)incy, (void)A, (void)lda;
  charge(2.0 * m * n);
}

void cblas_dtrsv(const enum CBLAS_ORDER o, const enum CBLAS_UPLO u, const enum CBLAS_TRANSPOSE t,
                 const enum CBLAS_DIAG d, const int n, const double *A, const int lda, double *x,
                 const int incx) {
  (void)o, (void)u, (void)t, (void)d, (void)A, (void)lda, (void)x, (void)incx;
  charge((double)n * n);
}

void cblas_dgemm(const enum CBLAS_ORDER o, const enum CBLAS_TRANSPOSE ta,
                 const enum CBLAS_TRANSPOSE tb, const int m, const int n, const int k,
                 const double a, const double *A, const int lda, const double *B, const int ldb,
                 const double b, double *C, const int ldc) {
  (void)o, (void)ta, (void)tb, (void)a, (void)A, (void)lda, (void)B, (void)ldb, (void)b, (void)C;
  (void)ldc;
  charge(2.0 * m * n * k);
}

void cblas_dtrsm(const enum CBLAS_ORDER o, const enum CBLAS_SIDE s, const enum CBLAS_UPLO u,
                 const enum CBLAS_TRANSPOSE t, const enum CBLAS_DIAG d, const int m, const int n,
                 const double a, const double *A, const int lda, double *B, const int ldb) {
  (void)o, (void)u, (void)t, (void)d, (void)a, (void)A, (void)lda, (void)B, (void)ldb;
  charge(s == CblasLeft ? (double)m * m * n : (double)m * n * n);
}
