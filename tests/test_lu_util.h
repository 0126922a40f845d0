/* Helpers shared by the LU test programs (tests/test_lu*.c): sub-grids of the world, the
 * known-answer matrices of the seeds, gathering and LAPACK comparisons. Header-only. */
#ifndef HLA_TEST_LU_UTIL_H
#define HLA_TEST_LU_UTIL_H

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "harness.h"

/* ---------------------------------------------------------------- grids */

/* An M x N grid on the first M N ranks of the world; the others are not members. */
typedef struct {
  hbsp_env world, sub;
  hgrid g;
  int M, N, member, rank; /* rank in the grid's ALL */
} tgrid;

static inline int tgrid_open(hbsp_env world, int M, int N, tgrid *t) {
  memset(t, 0, sizeof *t);
  t->world = world, t->M = M, t->N = N;
  int r = hbsp_rank(world);
  int rc = hbsp_split(world, r < M * N ? 0 : HBSP_UNDEFINED, r, &t->sub);
  if (rc != HLA_OK) return rc;
  t->member = t->sub != NULL;
  if (t->member) {
    rc = hgrid_create(t->sub, M, N, &t->g);
    t->rank = hbsp_rank(t->sub);
  }
  return rc;
}

static inline void tgrid_close(tgrid *t) {
  if (t->g) CU_ASSERT_EQUAL(hgrid_free(&t->g), HLA_OK);
  if (t->sub) CU_ASSERT_EQUAL(hbsp_free(&t->sub), HLA_OK);
}

/* The grid shapes of the tests that fit in P ranks (1x1, 1xP, Px1, 2x3, 3x2, 2x2, 2x1, 1x2). */
static inline int tgrid_shapes(int P, int shapes[][2]) {
  int cand[][2] = {{1, 1}, {1, P}, {P, 1}, {2, 3}, {3, 2}, {2, 2}, {2, 1}, {1, 2}};
  int k = 0;
  for (size_t c = 0; c < sizeof cand / sizeof cand[0]; c++) {
    int M = cand[c][0], N = cand[c][1], dup = 0;
    if (M * N > P) continue;
    for (int q = 0; q < k; q++) dup |= shapes[q][0] == M && shapes[q][1] == N;
    if (dup) continue;
    shapes[k][0] = M, shapes[k][1] = N, k++;
  }
  return k;
}

/* ---------------------------------------------------------------- matrices */

/* The seeds' test matrix (reference 002 §6.4): B(i,j) = i/2 + 1 (i <= j), (j+1)/2 (i > j), and
 * A(i,j) = B((i-1) mod n, j). Its LU: L = 1/2 below the diagonal, U = 1 on and above, and stage k
 * swaps rows k and k+1. */
static inline double thesis_entry(int64_t i, int64_t j, void *ctx) {
  int64_t n = *(int64_t *)ctx, ib = (i - 1 + n) % n;
  return ib <= j ? 0.5 * (double)ib + 1.0 : 0.5 * (double)(j + 1);
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

static inline double global_entry(int64_t i, int64_t j, void *ctx) {
  const exact_t *e = ctx;
  return e->A[i + j * e->n];
}

static inline double rand_entry(int64_t i, int64_t j, void *ctx) {
  return ht_rand_entry(*(uint64_t *)ctx, i, j);
}

/* 1 iff every local entry of A equals G(i, j) (column-major n-leading global array). Local. */
static inline int local_equals(hmat A, const double *G, int64_t ldg) {
  double *a;
  int64_t lld, ml, nl;
  hmat_local(A, &a, &lld, &ml, &nl);
  for (int64_t j = 0; j < nl; j++)
    for (int64_t i = 0; i < ml; i++)
      if (a[i + j * lld] != G[hmat_l2g_row(A, i) + hmat_l2g_col(A, j) * ldg]) return 0;
  return 1;
}

/* A gathered n x m copy on rank 0 of the grid (other ranks get a buffer they do not read). */
static inline double *gather_all(hmat A) {
  int64_t m, n;
  hmat_size(A, &m, &n);
  double *G = calloc((size_t)(m * n > 0 ? m * n : 1), sizeof(double));
  CU_ASSERT_EQUAL(hmat_gather(A, 0, G, m > 1 ? m : 1), HLA_OK);
  return G;
}

/* ||P A - L U||_1 / (||A||_1 n eps) for gathered A (original) and F (factors), ipiv 0-based. */
static inline double factor_residual(int64_t n, const double *A, const double *F,
                                     const int64_t *ipiv) {
  double *PA = malloc((size_t)(n * n > 0 ? n * n : 1) * sizeof(double));
  memcpy(PA, A, (size_t)(n * n) * sizeof(double));
  for (int64_t k = 0; k < n; k++)
    if (ipiv[k] != k)
      for (int64_t j = 0; j < n; j++) {
        double x = PA[k + j * n];
        PA[k + j * n] = PA[ipiv[k] + j * n], PA[ipiv[k] + j * n] = x;
      }
  double dmax = 0.0, amax = 0.0;
  for (int64_t j = 0; j < n; j++) {
    double dc = 0.0, ac = 0.0;
    for (int64_t i = 0; i < n; i++) {
      double s = 0.0;
      for (int64_t m = 0; m <= (i < j ? i : j); m++)
        s += (m == i ? 1.0 : F[i + m * n]) * F[m + j * n];
      dc += fabs(PA[i + j * n] - s);
      ac += fabs(A[i + j * n]);
    }
    dmax = fmax(dmax, dc), amax = fmax(amax, ac);
  }
  free(PA);
  return n == 0 ? 0.0 : dmax / (amax * (double)n * DBL_EPSILON);
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

#endif
