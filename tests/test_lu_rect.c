/* Tests of hlu_factor on rectangular m x n matrices against LAPACK's dgetrf (the same pivots, the
 * factors within the LU bar, the same first zero pivot; zero pivots of the padding not reported),
 * and of hlu_solve_trans against A^T x = b (residual bar), on many grids.
 * @procs 1 2 3 4 6
 */
#include "test_lu_util.h"

/* LAPACK's dgetrf of the gathered m x n A: pivots (0-based, k of them) into ipiv, factors into F,
 * returns its info (0, or the 1-based first zero pivot). */
static int lapack_rect(int64_t m, int64_t n, const double *A, int64_t *ipiv, double *F) {
  const int64_t k = m < n ? m : n;
  lapack_int *p = malloc((size_t)(k > 0 ? k : 1) * sizeof *p);
  memcpy(F, A, (size_t)(m * n) * sizeof(double));
  int info = 0;
  if (k > 0)
    info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, F,
                          (lapack_int)(m > 1 ? m : 1), p);
  for (int64_t i = 0; i < k; i++) ipiv[i] = p[i] - 1;
  free(p);
  return info;
}

/* Random m x n matrices, tall and wide, several blocks: LAPACK's pivots, the factors within the
 * bar, nothing past ipiv[min(m, n)) written. */
static void random_on(const tgrid *t, void *ctx) {
  static const int64_t shapes[][2] = {{10, 12}, {17, 13}, {5, 23},  {31, 7},
                                      {1, 6},   {6, 1},   {40, 39}, {0, 4}};
  static const int nbs[] = {1, 2, 3, 5, 8};
  for (int s = 0; s < 8; s++)
    for (int b = 0; b < 5; b++) {
      const int64_t m = shapes[s][0], n = shapes[s][1], k = m < n ? m : n;
      uint64_t seed = 100 + (uint64_t)(7 * s + b);
      int64_t ipiv[41], ref[41];
      for (int i = 0; i < 41; i++) ipiv[i] = -7;
      hla_opts o = HLA_OPTS_INIT;
      int64_t info = 99;
      o.info_out = &info;
      hmat A = ht_mat(t->g, m, n, nbs[b], nbs[b], ht_entry, &seed);
      double *A0 = ht_gather(A);
      CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
      CU_ASSERT_EQUAL(info, -1);
      for (int64_t i = k; i < 41; i++) CU_ASSERT_EQUAL(ipiv[i], -7);
      double *F = ht_gather(A);
      if (t->rank == 0) {
        double *L = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof *L);
        CU_ASSERT_EQUAL(lapack_rect(m, n, A0, ref, L), 0);
        CU_ASSERT_EQUAL(memcmp(ipiv, ref, (size_t)k * sizeof *ipiv), 0);
        double r = factor_residual_mn(m, n, A0, F, ipiv);
        CU_ASSERT(r < 1.0);
        if (!(r < 1.0))
          printf("rectangular factor residual %g: %lld x %lld, nb %d on %d x %d\n", r, (long long)m,
                 (long long)n, nbs[b], t->M, t->N);
        free(L);
      }
      free(A0), free(F);
      hmat_free(&A);
    }
}

static void test_random(void) {
  tgrid_each(random_on, NULL);
}

/* A random matrix with a chosen column zero: that column stays exactly zero through the updates,
 * so its step finds an exactly zero pivot, as LAPACK's; zero pivots of the padding only (a tall
 * matrix of full column rank, a wide one of full row rank) are not reported. */
static double zero_col_entry(int64_t i, int64_t j, void *ctx) {
  const int64_t *z = ctx; /* z[0]: the zero column, z[1]: seed */
  return j == z[0] ? 0.0 : ht_rand_entry((uint64_t)z[1], i, j);
}

static void singular_on(const tgrid *t, void *ctx) {
  static const int64_t cases[][3] = {{9, 6, 2}, {6, 9, 4}, {6, 9, 7}, {9, 6, -1}, {4, 11, 0}};
  for (int c = 0; c < 5; c++) {
    const int64_t m = cases[c][0], n = cases[c][1], k = m < n ? m : n;
    int64_t z[2] = {cases[c][2], 31 + c}, ipiv[9], ref[9], info = 99;
    hla_opts o = HLA_OPTS_INIT;
    o.info_out = &info;
    hmat A = ht_mat(t->g, m, n, 2, 2, zero_col_entry, z);
    double *A0 = ht_gather(A);
    int rc = hlu_factor(A, ipiv, &o);
    double *F = ht_gather(A);
    int lapack = 0;
    if (t->rank == 0) {
      double *L = malloc((size_t)(m * n) * sizeof *L);
      lapack = lapack_rect(m, n, A0, ref, L);
      CU_ASSERT_EQUAL(memcmp(ipiv, ref, (size_t)k * sizeof *ipiv), 0);
      CU_ASSERT(factor_residual_mn(m, n, A0, F, ipiv) < 1.0);
      free(L);
    }
    hbsp_env all;
    hgrid_env(t->g, HGRID_ALL, &all);
    MPI_Bcast(&lapack, 1, MPI_INT, 0, hbsp_comm(all));
    CU_ASSERT_EQUAL(rc, lapack > 0 ? HLA_ERR_SINGULAR : HLA_OK);
    CU_ASSERT_EQUAL(info, lapack > 0 ? lapack - 1 : -1);
    /* a zero column inside the first k: singular; beyond them (or none): not */
    CU_ASSERT_EQUAL(lapack > 0, z[0] >= 0 && z[0] < k);
    free(A0), free(F);
    hmat_free(&A);
  }
}

static void test_singular(void) {
  tgrid_each(singular_on, NULL);
}

/* A wrapped rectangular matrix with its first block elsewhere gives the same factors and pivots as
 * hla's own layout. */
static void wrapped_on(const tgrid *t, void *ctx) {
  const int64_t m = 19, n = 14;
  const int nb = 3, rs = t->M - 1, cs = t->N > 1 ? 1 : 0;
  uint64_t seed = 5;
  hmat S = ht_mat(t->g, m, n, nb, nb, ht_entry, &seed);
  int myr, myc;
  hgrid_shape(t->g, NULL, NULL, &myr, &myc);
  int64_t ml = hmat_numroc(m, nb, (myr - rs + t->M) % t->M, t->M);
  int64_t nl = hmat_numroc(n, nb, (myc - cs + t->N) % t->N, t->N), lld = (ml > 1 ? ml : 1) + 2;
  double *a = calloc((size_t)(lld * (nl > 0 ? nl : 1)), sizeof *a);
  hmat W;
  CU_ASSERT_EQUAL(hmat_wrap(t->g, m, n, nb, nb, rs, cs, a, lld, &W), HLA_OK);
  CU_ASSERT_EQUAL(hmat_redistribute(S, W), HLA_OK);
  int64_t p1[14], p2[14];
  CU_ASSERT_EQUAL(hlu_factor(W, p1, NULL), HLA_OK);
  CU_ASSERT_EQUAL(hlu_factor(S, p2, NULL), HLA_OK);
  CU_ASSERT_EQUAL(memcmp(p1, p2, sizeof p1), 0);
  double *g1 = ht_gather(W), *g2 = ht_gather(S);
  if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(g1, g2, m * n), 0);
  free(g1), free(g2);
  hmat_free(&W), hmat_free(&S);
  free(a);
}

static void test_wrapped(void) {
  tgrid_each(wrapped_on, NULL);
}

/* hlu_solve_trans: A^T X = B within the solve bar for the fan-in (1, 5 columns) and the blocked
 * (67) solves; 'N' gives hlu_solve's bits; a transposed solve on a wrapped B with its first block
 * elsewhere gives the same bits as on hla's layout. */
static void trans_on(const tgrid *t, void *ctx) {
  static const int64_t nrhss[3] = {5, 1, 67};
  const int64_t n = 29;
  for (int b = 0; b < 6; b++) {
    const int nb = b % 2 ? 8 : 3;
    const int64_t nrhs = nrhss[b / 2];
    uint64_t sa = 21, sb = 22;
    int64_t ipiv[29];
    hmat A = ht_mat(t->g, n, n, nb, nb, ht_entry, &sa);
    hmat B = ht_mat(t->g, n, nrhs, nb, 2, ht_entry, &sb), B2;
    CU_ASSERT_EQUAL(hmat_dup(B, &B2), HLA_OK);
    double *A0 = ht_gather(A), *B0 = ht_gather(B);
    CU_ASSERT_EQUAL(hlu_factor(A, ipiv, NULL), HLA_OK);
    CU_ASSERT_EQUAL(hlu_solve_trans(b % 3 ? 'T' : 'c', A, ipiv, B, NULL), HLA_OK);
    double *X = ht_gather(B);
    if (t->rank == 0) {
      double *At = malloc((size_t)(n * n) * sizeof *At);
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) At[j + i * n] = A0[i + j * n];
      double r = solve_residual(n, nrhs, At, X, B0);
      CU_ASSERT(r < 16.0);
      if (!(r < 16.0))
        printf("transposed solve residual %g on %d x %d, nb %d, %lld right-hand sides\n", r, t->M,
               t->N, nb, (long long)nrhs);
      free(At);
    }
    /* 'N' is hlu_solve */
    hmat B3;
    CU_ASSERT_EQUAL(hmat_dup(B2, &B3), HLA_OK);
    CU_ASSERT_EQUAL(hlu_solve_trans('N', A, ipiv, B2, NULL), HLA_OK);
    CU_ASSERT_EQUAL(hlu_solve(A, ipiv, B3, NULL), HLA_OK);
    double *X2 = ht_gather(B2), *X3 = ht_gather(B3);
    if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(X2, X3, n * nrhs), 0);
    free(A0), free(B0), free(X), free(X2), free(X3);
    hmat_free(&A), hmat_free(&B), hmat_free(&B2), hmat_free(&B3);
  }
  /* wrapped B, first block elsewhere */
  uint64_t sa = 23, sb = 24;
  int64_t ipiv[29];
  const int nb = 4, rs = t->M - 1;
  hmat A = ht_mat(t->g, n, n, nb, nb, ht_entry, &sa), B = ht_mat(t->g, n, 3, nb, 2, ht_entry, &sb);
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, NULL), HLA_OK);
  int myr, myc;
  hgrid_shape(t->g, NULL, NULL, &myr, &myc);
  int64_t ml = hmat_numroc(n, nb, (myr - rs + t->M) % t->M, t->M);
  int64_t nl = hmat_numroc(3, 2, myc, t->N), lld = ml > 1 ? ml : 1;
  double *w = calloc((size_t)(lld * (nl > 0 ? nl : 1)), sizeof *w);
  hmat W;
  CU_ASSERT_EQUAL(hmat_wrap(t->g, n, 3, nb, 2, rs, 0, w, lld, &W), HLA_OK);
  CU_ASSERT_EQUAL(hmat_redistribute(B, W), HLA_OK);
  CU_ASSERT_EQUAL(hlu_solve_trans('T', A, ipiv, W, NULL), HLA_OK);
  CU_ASSERT_EQUAL(hlu_solve_trans('T', A, ipiv, B, NULL), HLA_OK);
  double *g1 = ht_gather(W), *g2 = ht_gather(B);
  if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(g1, g2, n * 3), 0);
  free(g1), free(g2), free(w);
  /* bad trans: every rank, B untouched */
  double *B0 = ht_gather(B);
  CU_ASSERT_EQUAL(hlu_solve_trans('X', A, ipiv, B, NULL), HLA_ERR_ARG);
  CU_ASSERT(strstr(hgrid_errmsg(t->g), "trans 'X'") != NULL);
  double *B1 = ht_gather(B);
  if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(B0, B1, n * 3), 0);
  free(B0), free(B1);
  hmat_free(&W), hmat_free(&A), hmat_free(&B);
}

static void test_trans(void) {
  tgrid_each(trans_on, NULL);
}

void hla_test_register(void) {
  HT_SUITE("lu_rect", test_random, test_singular, test_wrapped, test_trans);
}
