/* hla — BLAS wrappers with int64_t sizes over OpenBLAS's 32-bit cblas interface. */
#include <limits.h>
#include <math.h>
#include <cblas.h>
#include "prec.h"
#include "kernels/kernels.h"

/* The cblas underneath takes int: refuse what does not fit instead of wrapping around. */
static int fits(int64_t v) {
  return v >= INT_MIN && v <= INT_MAX;
}

static enum CBLAS_TRANSPOSE trans_of(char t) {
  return (t == 'T' || t == 't' || t == 'C' || t == 'c') ? CblasTrans : CblasNoTrans;
}

int hkern_dgemm(char transa, char transb, int64_t m, int64_t n, int64_t k, hreal alpha,
                const hreal *A, int64_t lda, const hreal *B, int64_t ldb, hreal beta, hreal *C,
                int64_t ldc) {
  HKERN_SIM(HKERN_SIM_GEMM, 2.0 * (double)m * (double)n * (double)k, (double)k,
            (double)(m < n ? m : n), HLA_OK);
  if (!fits(m) || !fits(n) || !fits(k) || !fits(lda) || !fits(ldb) || !fits(ldc))
    return HLA_ERR_ARG;
  if (m <= 0 || n <= 0) return HLA_OK;
  HBLAS(gemm)
  (CblasColMajor, trans_of(transa), trans_of(transb), (int)m, (int)n, (int)k, alpha, A, (int)lda, B,
   (int)ldb, beta, C, (int)ldc);
  return HLA_OK;
}

int hkern_dtrsm(char side, char uplo, char transa, char diag, int64_t m, int64_t n, hreal alpha,
                const hreal *A, int64_t lda, hreal *B, int64_t ldb) {
  const double tri = side == 'R' || side == 'r' ? (double)n : (double)m;
  HKERN_SIM(HKERN_SIM_GEMM, tri * (double)m * (double)n, tri, (double)(m < n ? m : n), HLA_OK);
  if (!fits(m) || !fits(n) || !fits(lda) || !fits(ldb)) return HLA_ERR_ARG;
  if (m <= 0 || n <= 0) return HLA_OK;
  HBLAS(trsm)
  (CblasColMajor, (side == 'R' || side == 'r') ? CblasRight : CblasLeft,
   (uplo == 'U' || uplo == 'u') ? CblasUpper : CblasLower, trans_of(transa),
   (diag == 'U' || diag == 'u') ? CblasUnit : CblasNonUnit, (int)m, (int)n, alpha, A, (int)lda, B,
   (int)ldb);
  return HLA_OK;
}

int hkern_dger(int64_t m, int64_t n, hreal alpha, const hreal *x, int64_t incx, const hreal *y,
               int64_t incy, hreal *A, int64_t lda) {
  HKERN_SIM(HKERN_SIM_MEM, 2.0 * (double)m * (double)n, (double)m * (double)n * sizeof(hreal), 0,
            HLA_OK);
  if (!fits(m) || !fits(n) || !fits(incx) || !fits(incy) || !fits(lda)) return HLA_ERR_ARG;
  if (m <= 0 || n <= 0) return HLA_OK;
  HBLAS(ger)(CblasColMajor, (int)m, (int)n, alpha, x, (int)incx, y, (int)incy, A, (int)lda);
  return HLA_OK;
}

int hkern_dgemv(char trans, int64_t m, int64_t n, hreal alpha, const hreal *A, int64_t lda,
                const hreal *x, int64_t incx, hreal beta, hreal *y, int64_t incy) {
  HKERN_SIM(HKERN_SIM_MEM, 2.0 * (double)m * (double)n, (double)m * (double)n * sizeof(hreal), 0,
            HLA_OK);
  if (!fits(m) || !fits(n) || !fits(incx) || !fits(incy) || !fits(lda)) return HLA_ERR_ARG;
  if (m <= 0 || n <= 0) {
    /* y := beta y still applies to the (possibly non-empty) output vector. */
    int64_t leny = trans_of(trans) == CblasNoTrans ? m : n;
    int64_t inc = incy < 0 ? -incy : incy;
    for (int64_t i = 0; i < leny; i++) y[i * inc] = beta == 0.0 ? 0.0 : beta * y[i * inc];
    return HLA_OK;
  }
  HBLAS(gemv)
  (CblasColMajor, trans_of(trans), (int)m, (int)n, alpha, A, (int)lda, x, (int)incx, beta, y,
   (int)incy);
  return HLA_OK;
}

/* Own loop rather than cblas_idamax: int64_t sizes, and a tie rule and NaN rule we can promise. */
int64_t hkern_idamax(int64_t n, const hreal *x, int64_t incx) {
  if (n <= 0) return -1;
  int64_t best = 0;
  hreal bv = fabs(x[0]);
  if (bv != bv) return 0;
  for (int64_t i = 1; i < n; i++) {
    hreal v = fabs(x[i * incx]);
    if (v != v) return i;         /* the first NaN wins */
    if (v > bv) bv = v, best = i; /* strict: ties stay with the lowest index */
  }
  return best;
}

void hkern_dscal(int64_t n, hreal alpha, hreal *x, int64_t incx) {
  HKERN_SIM(HKERN_SIM_MEM, (double)n, (double)n * sizeof(hreal), 0);
  for (int64_t i = 0; i < n; i++) x[i * incx] *= alpha;
}

void hkern_dswap(int64_t n, hreal *x, int64_t incx, hreal *y, int64_t incy) {
  HKERN_SIM_WORDS(2.0 * (double)n);
  for (int64_t i = 0; i < n; i++) {
    hreal t = x[i * incx];
    x[i * incx] = y[i * incy];
    y[i * incy] = t;
  }
}
