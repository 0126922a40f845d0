/* Helpers shared by the LU test programs (tests/test_lu*.c): the known-answer matrices of the
 * seeds, factoring on a test grid, and the LAPACK comparisons. Header-only; the grids are
 * harness.h's. */
#ifndef HLA_TEST_LU_UTIL_H
#define HLA_TEST_LU_UTIL_H

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "harness.h"

/* ---------------------------------------------------------------- matrices */

/* The seeds' test matrix (reference 002 §6.4): B(i,j) = i/2 + 1 (i <= j), (j+1)/2 (i > j), and
 * A(i,j) = B((i-1) mod n, j). Its LU: L = 1/2 below the diagonal, U = 1 on and above, and stage k
 * swaps rows k and k+1. */
static inline double thesis_entry(int64_t i, int64_t j, void *ctx) {
  int64_t n = *(int64_t *)ctx, ib = (i - 1 + n) % n;
  return ib <= j ? 0.5 * (double)ib + 1.0 : 0.5 * (double)(j + 1);
}
/* Its factors L\U. */
static inline double thesis_factors(int64_t i, int64_t j, void *ctx) {
  return i > j ? 0.5 : 1.0;
}

/* The stronger exact generator (reference 002 §6.5): A(pi(i), :) = (L U)(i, :) with L unit lower,
 * |l_ij| < 1 in multiples of 1/8, U upper with a power-of-two diagonal and small integers above,
 * pi a random permutation. Partial pivoting recovers L, U and pi exactly, in any summation order.
 * zero_at >= 0 puts a zero on U's diagonal there (a singular matrix with a known first zero). */
typedef struct {
  int64_t n;
  double *A;     /* n x n, column-major */
  double *LU;    /* expected factors, L\U */
  int64_t *ipiv; /* expected LAPACK-style interchanges */
} exact_t;

static inline void exact_make(exact_t *e, int64_t n, uint64_t seed, int64_t zero_at) {
  e->n = n;
  size_t nn = (size_t)(n > 0 ? n * n : 1);
  e->A = calloc(nn, sizeof(double));
  e->LU = calloc(nn, sizeof(double));
  e->ipiv = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
  int64_t *pi = malloc((size_t)(n > 0 ? n : 1) * sizeof *pi),
          *cur = malloc((size_t)(n > 0 ? n : 1) * sizeof *cur);
  static const double diag[] = {1.0, -1.0, 2.0, -2.0, 0.5};
  uint64_t s = seed;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      double v;
      if (i > j)
        v = (double)((int)(ht_rand_u64(&s) % 15) - 7) / 8.0;
      else if (i == j)
        v = i == zero_at ? 0.0 : diag[ht_rand_u64(&s) % 5];
      else
        v = (double)((int)(ht_rand_u64(&s) % 7) - 3);
      e->LU[i + j * n] = v;
    }
  for (int64_t i = 0; i < n; i++) pi[i] = i;
  for (int64_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
    int64_t k = (int64_t)(ht_rand_u64(&s) % (uint64_t)(i + 1)), x = pi[i];
    pi[i] = pi[k], pi[k] = x;
  }
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      double sum = 0.0;
      for (int64_t m = 0; m <= (i < j ? i : j); m++)
        sum += (m == i ? 1.0 : e->LU[i + m * n]) * e->LU[m + j * n];
      e->A[pi[i] + j * n] = sum;
    }
  for (int64_t p = 0; p < n; p++) cur[p] = p;
  for (int64_t k = 0; k < n; k++) {
    int64_t p = k;
    while (cur[p] != pi[k]) p++;
    e->ipiv[k] = p;
    int64_t x = cur[k];
    cur[k] = cur[p], cur[p] = x;
  }
  free(pi);
  free(cur);
}

static inline void exact_free(exact_t *e) {
  free(e->A);
  free(e->LU);
  free(e->ipiv);
}

/* Entries of an exact_t's A (for hmat_fill) and of its expected factors (for ht_local_is). */
static inline double global_entry(int64_t i, int64_t j, void *ctx) {
  const exact_t *e = ctx;
  return e->A[i + j * e->n];
}
static inline double factors_entry(int64_t i, int64_t j, void *ctx) {
  const exact_t *e = ctx;
  return e->LU[i + j * e->n];
}

/* Factors the n x n random matrix of seed (nb x nb blocks) on t's grid with o, asserting success:
 * the pivots into ipiv; returns the gathered factors (ht_gather: read them on the grid's rank 0).
 */
static inline double *factor_gathered(const tgrid *t, int64_t n, int nb, uint64_t seed,
                                      const hla_opts *o, int64_t *ipiv) {
  hmat A = ht_mat(t->g, n, n, nb, nb, ht_entry, &seed);
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, o), HLA_OK);
  double *F = ht_gather(A);
  hmat_free(&A);
  return F;
}

/* ||P A - L U||_1 / (||A||_1 max(m, n) eps) for the gathered m x n A (original) and F (its
 * factors, dgetrf's form: L m x min(m, n) unit lower, U min(m, n) x n), ipiv 0-based, min(m, n)
 * of them. 0 for an empty or zero A. */
static inline double factor_residual_mn(int64_t m, int64_t n, const double *A, const double *F,
                                        const int64_t *ipiv) {
  const int64_t k = m < n ? m : n;
  double *PA = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof(double));
  memcpy(PA, A, (size_t)(m * n) * sizeof(double));
  for (int64_t r = 0; r < k; r++)
    if (ipiv[r] != r)
      for (int64_t j = 0; j < n; j++) {
        double x = PA[r + j * m];
        PA[r + j * m] = PA[ipiv[r] + j * m], PA[ipiv[r] + j * m] = x;
      }
  double dmax = 0.0, amax = 0.0;
  for (int64_t j = 0; j < n; j++) {
    double dc = 0.0, ac = 0.0;
    for (int64_t i = 0; i < m; i++) {
      double s = 0.0;
      for (int64_t q = 0; q <= (i < j ? i : j) && q < k; q++)
        s += (q == i ? 1.0 : F[i + q * m]) * F[q + j * m];
      dc += fabs(PA[i + j * m] - s);
      ac += fabs(A[i + j * m]);
    }
    dmax = fmax(dmax, dc), amax = fmax(amax, ac);
  }
  free(PA);
  int64_t big = m > n ? m : n;
  return big == 0 || amax == 0.0 ? 0.0 : dmax / (amax * (double)big * DBL_EPSILON);
}

/* The same for a square n x n A. */
static inline double factor_residual(int64_t n, const double *A, const double *F,
                                     const int64_t *ipiv) {
  return factor_residual_mn(n, n, A, F, ipiv);
}

/* LAPACK's pivots of the gathered n x n A (0-based). */
static inline void lapack_pivots(int64_t n, const double *A, int64_t *ipiv) {
  double *W = malloc((size_t)(n * n > 0 ? n * n : 1) * sizeof(double));
  lapack_int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
  memcpy(W, A, (size_t)(n * n) * sizeof(double));
  if (n > 0) LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, W, (lapack_int)n, p);
  for (int64_t i = 0; i < n; i++) ipiv[i] = p[i] - 1;
  free(W);
  free(p);
}

/* HPL's residual max_c ||A x_c - b_c||_inf / (eps (||A||_inf ||x_c||_inf + ||b_c||_inf) n). */
static inline double solve_residual(int64_t n, int64_t nrhs, const double *A, const double *X,
                                    const double *B) {
  double anorm = 0.0, worst = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int64_t j = 0; j < n; j++) s += fabs(A[i + j * n]);
    anorm = fmax(anorm, s);
  }
  for (int64_t c = 0; c < nrhs; c++) {
    double r = 0.0, xn = 0.0, bn = 0.0;
    for (int64_t i = 0; i < n; i++) {
      double s = -B[i + c * n];
      for (int64_t j = 0; j < n; j++) s += A[i + j * n] * X[j + c * n];
      r = fmax(r, fabs(s));
      xn = fmax(xn, fabs(X[i + c * n]));
      bn = fmax(bn, fabs(B[i + c * n]));
    }
    worst = fmax(worst, r / (DBL_EPSILON * (anorm * xn + bn) * (double)n));
  }
  return worst;
}

/* ---------------------------------------------------------------- variants */

/* The variants the exact LU tests cycle through (v % 7): every one must give the exact factors. */
static inline void lu_variant(int v, hla_opts *o) {
  memset(o, 0, sizeof *o);
  switch (v % 7) {
  case 1:
    o->lookahead = -1;
    break;
  case 2:
    o->panel = HLA_PANEL_COLUMNS;
    break;
  case 3:
    o->lu_alg = HLA_LU_HIER, o->groups_row = 2, o->groups_col = 2;
    break;
  case 4:
    o->lu_alg = HLA_LU_FLAT, o->bcast.alg = HBSP_BINOMIAL;
    break;
  case 5:
    o->swap = HLA_SWAP_SPREAD;
    break;
  case 6:
    o->swap = HLA_SWAP_SPREAD, o->lookahead = -1;
    break;
  }
}

#endif
