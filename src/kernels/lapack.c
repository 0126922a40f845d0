/* hla — LAPACK-like node kernels: LU (LAPACKE and our recursive panel LU), row interchanges,
 * copies. 0-based pivots and indices throughout. An element file (src/prec.h): compiled for double
 * and for float. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "prec.h"
#include "kernels/kernels.h"

/* The simulation's model mode (sim.c): an m x n LU's flops (m n^2 - n^3/3 for m >= n, and the
 * transpose's otherwise) charged as kind (LAPACK's or the recursive panel's), and no interchanges:
 * the pivots of a node's panel travel nowhere. */
static int sim_lu(hkern_sim_kind kind, int64_t m, int64_t n, int64_t *ipiv) {
  const double k = (double)(m < n ? m : n), l = (double)(m < n ? n : m);
  for (int64_t r = 0; r < (m < n ? m : n); r++) ipiv[r] = r;
  hkern_sim_charge(kind, l * k * k - k * k * k / 3, k, 0);
  return HLA_OK;
}

int hkern_dgetrf(int64_t m, int64_t n, hreal *A, int64_t lda, int64_t *ipiv, int64_t *info) {
  *info = -1;
  if (hkern_sim_model()) return sim_lu(HKERN_SIM_GETRF, m, n, ipiv);
  if (m < 0 || n < 0 || m > INT_MAX || n > INT_MAX || lda > INT_MAX || lda < (m > 1 ? m : 1))
    return HLA_ERR_ARG;
  int64_t k = m < n ? m : n;
  if (k == 0) return HLA_OK;
  lapack_int *p = malloc((size_t)k * sizeof *p);
  if (p == NULL) return HLA_ERR_NOMEM;
  lapack_int i =
      HLAPACKE(getrf_work)(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, A, (lapack_int)lda, p);
  for (int64_t r = 0; r < k; r++) ipiv[r] = (int64_t)p[r] - 1;
  free(p);
  if (i < 0) return HLA_ERR_INTERNAL; /* arguments were checked above */
  if (i > 0) *info = (int64_t)i - 1;
  return HLA_OK;
}

/* ---------------------------------------------------------------- panel LU */

/* Unblocked right-looking LU of a narrow panel (dgetf2): row swaps over the panel's n columns,
 * rank-1 updates. first0 is the column offset of this panel inside the caller's, for *info. */
static int getf2(int64_t m, int64_t n, hreal *A, int64_t lda, int64_t *ipiv, int64_t *info,
                 int64_t first0) {
  int64_t k = m < n ? m : n;
  for (int64_t j = 0; j < k; j++) {
    hreal *colj = A + j + j * lda;
    int64_t p = j + hkern_idamax(m - j, colj, 1);
    ipiv[j] = p;
    if (A[p + j * lda] != 0.0) {
      if (p != j) hkern_dswap(n, A + j, lda, A + p, lda);
      hreal piv = colj[0];
      if (fabs(piv) >= DBL_MIN) {
        hkern_dscal(m - j - 1, 1.0 / piv, colj + 1, 1);
      } else { /* 1/piv would overflow */
        for (int64_t i = 1; i < m - j; i++) colj[i] /= piv;
      }
    } else if (*info < 0) {
      *info = first0 + j;
    }
    if (j + 1 < n)
      HLA_CALL(hkern_dger(m - j - 1, n - j - 1, -1.0, colj + 1, 1, A + j + (j + 1) * lda, lda,
                          A + (j + 1) + (j + 1) * lda, lda));
  }
  return HLA_OK;
}

/* Narrow panels go to getf2: below this width recursion only adds call overhead. */
#define PANEL_BASE 8

static int rec_lu(int64_t m, int64_t n, hreal *A, int64_t lda, int64_t *ipiv, int64_t *info,
                  int64_t first0) {
  int64_t k = m < n ? m : n;
  if (k == 0) return HLA_OK;
  if (n <= PANEL_BASE || m == 1) return getf2(m, n, A, lda, ipiv, info, first0);
  int64_t n1 = k / 2, n2 = n - n1;
  hreal *A12 = A + n1 * lda, *A21 = A + n1, *A22 = A + n1 + n1 * lda;
  /* [A11; A21] = P1 [L11; L21] U11 */
  HLA_CALL(rec_lu(m, n1, A, lda, ipiv, info, first0));
  hkern_dlaswp(n2, A12, lda, 0, n1, ipiv, 1);
  /* U12 = L11^-1 A12;  A22 -= L21 U12 */
  HLA_CALL(hkern_dtrsm('L', 'L', 'N', 'U', n1, n2, 1.0, A, lda, A12, lda));
  HLA_CALL(hkern_dgemm('N', 'N', m - n1, n2, n1, -1.0, A21, lda, A12, lda, 1.0, A22, lda));
  /* A22 = P2 L22 U22, then the pivots become relative to the whole panel */
  HLA_CALL(rec_lu(m - n1, n2, A22, lda, ipiv + n1, info, first0 + n1));
  for (int64_t i = n1; i < k; i++) ipiv[i] += n1;
  hkern_dlaswp(n1, A, lda, n1, k, ipiv, 1);
  return HLA_OK;
}

int hkern_panel_lu(int64_t m, int64_t n, hreal *A, int64_t lda, int64_t *ipiv, int64_t *info) {
  *info = -1;
  if (hkern_sim_model()) return sim_lu(HKERN_SIM_PANEL, m, n, ipiv);
  if (m < 0 || n < 0 || lda < (m > 1 ? m : 1)) return HLA_ERR_ARG;
  return rec_lu(m, n, A, lda, ipiv, info, 0);
}

/* ---------------------------------------------------------------- row interchanges */

void hkern_dlaswp(int64_t n, hreal *A, int64_t lda, int64_t k1, int64_t k2, const int64_t *ipiv,
                  int inc) {
  HKERN_SIM_WORDS(2.0 * (double)n * (double)(k2 > k1 ? k2 - k1 : 0));
  enum { JB = 32 }; /* columns per sweep: each sweep's rows stay in cache */
  if (n <= 0 || k2 <= k1) return;
  for (int64_t j0 = 0; j0 < n; j0 += JB) {
    int64_t jn = n - j0 < JB ? n - j0 : JB;
    hreal *B = A + j0 * lda;
    for (int64_t t = 0; t < k2 - k1; t++) {
      int64_t kk = inc > 0 ? k1 + t : k2 - 1 - t;
      int64_t p = ipiv[kk];
      if (p == kk) continue;
      for (int64_t j = 0; j < jn; j++) {
        hreal x = B[kk + j * lda];
        B[kk + j * lda] = B[p + j * lda];
        B[p + j * lda] = x;
      }
    }
  }
}

/* ---------------------------------------------------------------- copies */

void hkern_dlacpy(char uplo, int64_t m, int64_t n, const hreal *A, int64_t lda, hreal *B,
                  int64_t ldb) {
  HKERN_SIM_WORDS((double)m * (double)n);
  for (int64_t j = 0; j < n; j++) {
    int64_t lo = 0, hi = m;
    if (uplo == 'U' || uplo == 'u')
      hi = j + 1 < m ? j + 1 : m;
    else if (uplo == 'L' || uplo == 'l')
      lo = j < m ? j : m;
    if (hi > lo) memcpy(B + lo + j * ldb, A + lo + j * lda, (size_t)(hi - lo) * sizeof(hreal));
  }
}

void hkern_dlaset(int64_t m, int64_t n, hreal offdiag, hreal diag, hreal *A, int64_t lda) {
  HKERN_SIM_WORDS((double)m * (double)n);
  for (int64_t j = 0; j < n; j++) {
    hreal *c = A + j * lda;
    for (int64_t i = 0; i < m; i++) c[i] = offdiag;
    if (j < m) c[j] = diag;
  }
}
