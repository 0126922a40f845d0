/* Tests of the node-local kernels (src/kernels) against LAPACKE and naive loops.
 * @procs 1
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "harness.h"
#include "kernels/kernels.h"

static double *rand_mat(uint64_t seed, int64_t m, int64_t n, int64_t ld) {
  double *A = malloc((size_t)(ld * (n > 0 ? n : 1)) * sizeof(double));
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < ld; i++) A[i + j * ld] = i < m ? ht_rand_entry(seed, i, j) : -99.0;
  return A;
}

static double max_abs_diff(int64_t m, int64_t n, const double *A, int64_t lda, const double *B,
                           int64_t ldb) {
  double d = 0.0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) d = fmax(d, fabs(A[i + j * lda] - B[i + j * ldb]));
  return d;
}

static void test_thread_policy(void) {
  /* (HLA_NUM_THREADS's text is parsed and checked by src/settings.c: test_settings.c) */
  CU_ASSERT_EQUAL(hkern_threads_choose(4, 2, 8, 8), 4);
  CU_ASSERT_EQUAL(hkern_threads_choose(16, 8, 2, 1), 16); /* the user's choice wins */
  CU_ASSERT_EQUAL(hkern_threads_choose(0, 2, 8, 8), 4);
  CU_ASSERT_EQUAL(hkern_threads_choose(0, 3, 8, 8), 2);
  CU_ASSERT_EQUAL(hkern_threads_choose(0, 8, 2, 2), 1); /* never oversubscribe, never 0 */
  CU_ASSERT_EQUAL(hkern_threads_choose(0, 1, 8, 2), 2); /* bound to 2 cores */
  CU_ASSERT_EQUAL(hkern_threads_choose(-3, 2, 8, 8), 4);
  CU_ASSERT_EQUAL(hkern_threads_choose(0, 0, 0, 0), 1);
  CU_ASSERT(hkern_node_cores() >= 1);
  CU_ASSERT(hkern_affinity_cores() >= 1);
  int t = 0;
  CU_ASSERT_EQUAL(hkern_threads_apply(1, 1, &t), HLA_OK); /* as the tests set HLA_NUM_THREADS=1 */
  CU_ASSERT_EQUAL(t, 1);
  CU_ASSERT_EQUAL(hkern_threads_get(), 1);
}

static void test_dgemm(void) {
  const char tr[2] = {'N', 'T'};
  int64_t m = 13, n = 7, k = 9;
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++) {
      int64_t lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 1, ldc = m + 2;
      double *A = rand_mat(1, ta ? k : m, ta ? m : k, lda);
      double *B = rand_mat(2, tb ? n : k, tb ? k : n, ldb);
      double *C = rand_mat(3, m, n, ldc), *R = rand_mat(3, m, n, ldc);
      CU_ASSERT_EQUAL(hkern_dgemm(tr[ta], tr[tb], m, n, k, 0.5, A, lda, B, ldb, -2.0, C, ldc),
                      HLA_OK);
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
          double s = 0.0;
          for (int64_t l = 0; l < k; l++)
            s += (ta ? A[l + i * lda] : A[i + l * lda]) * (tb ? B[j + l * ldb] : B[l + j * ldb]);
          R[i + j * ldc] = 0.5 * s - 2.0 * R[i + j * ldc];
        }
      CU_ASSERT(max_abs_diff(m, n, C, ldc, R, ldc) < 1e-14 * k * 4);
      CU_ASSERT_EQUAL(C[m + 1], -99.0); /* padding rows untouched */
      free(A), free(B), free(C), free(R);
    }
  /* empty sizes are fine, oversized ones refused */
  CU_ASSERT_EQUAL(hkern_dgemm('N', 'N', 0, 5, 5, 1.0, NULL, 1, NULL, 5, 0.0, NULL, 1), HLA_OK);
  CU_ASSERT_EQUAL(
      hkern_dgemm('N', 'N', (int64_t)1 << 40, 1, 1, 1.0, NULL, 1, NULL, 1, 0.0, NULL, 1),
      HLA_ERR_ARG);
}

static void test_dtrsm_ger_gemv(void) {
  int64_t m = 11, n = 5, ld = 14;
  double *A = rand_mat(4, m, m, ld), *B = rand_mat(5, m, n, ld), *X = rand_mat(5, m, n, ld);
  for (int64_t i = 0; i < m; i++) A[i + i * ld] += 4.0; /* well conditioned */
  CU_ASSERT_EQUAL(hkern_dtrsm('L', 'L', 'N', 'N', m, n, 2.0, A, ld, X, ld), HLA_OK);
  /* L X = 2 B with L the lower triangle of A */
  double err = 0.0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      double s = 0.0;
      for (int64_t l = 0; l <= i; l++) s += A[i + l * ld] * X[l + j * ld];
      err = fmax(err, fabs(s - 2.0 * B[i + j * ld]));
    }
  CU_ASSERT(err < 1e-13);
  double x[11], y[5], yr[5];
  for (int i = 0; i < 11; i++) x[i] = i - 3.0;
  for (int i = 0; i < 5; i++) y[i] = yr[i] = i;
  CU_ASSERT_EQUAL(hkern_dgemv('T', m, n, 1.0, B, ld, x, 1, 3.0, y, 1), HLA_OK);
  for (int j = 0; j < 5; j++) {
    double s = 3.0 * yr[j];
    for (int i = 0; i < 11; i++) s += B[i + j * ld] * x[i];
    CU_ASSERT(fabs(s - y[j]) < 1e-13);
  }
  double C[6] = {0};
  double u[2] = {1, 2}, v[3] = {3, 4, 5};
  CU_ASSERT_EQUAL(hkern_dger(2, 3, 1.0, u, 1, v, 1, C, 2), HLA_OK);
  CU_ASSERT_EQUAL(C[0], 3.0);
  CU_ASSERT_EQUAL(C[5], 10.0);
  free(A), free(B), free(X);
}

static void test_idamax(void) {
  double a[6] = {1.0, -3.0, 3.0, 2.0, -3.0, 0.5};
  CU_ASSERT_EQUAL(hkern_idamax(6, a, 1), 1); /* ties go to the lowest index */
  CU_ASSERT_EQUAL(hkern_idamax(3, a, 2), 1); /* 1, 3, -3 */
  CU_ASSERT_EQUAL(hkern_idamax(0, a, 1), -1);
  double b[4] = {1.0, NAN, 5.0, NAN};
  CU_ASSERT_EQUAL(hkern_idamax(4, b, 1), 1);
}

/* Compare our LU (panel or LAPACKE wrapper) with LAPACKE_dgetrf on the same matrix. */
static void check_lu(int64_t m, int64_t n, int64_t lda, uint64_t seed, int panel) {
  double *A = rand_mat(seed, m, n, lda), *R = rand_mat(seed, m, n, lda);
  int64_t k = m < n ? m : n, info = 7;
  int64_t *ipiv = malloc((size_t)(k + 1) * sizeof *ipiv);
  lapack_int *rp = malloc((size_t)(k + 1) * sizeof *rp);
  int rc =
      panel ? hkern_panel_lu(m, n, A, lda, ipiv, &info) : hkern_dgetrf(m, n, A, lda, ipiv, &info);
  CU_ASSERT_EQUAL(rc, HLA_OK);
  lapack_int rinfo = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (int)m, (int)n, R, (int)lda, rp);
  CU_ASSERT_EQUAL(info, rinfo > 0 ? rinfo - 1 : -1);
  int same = 1;
  for (int64_t i = 0; i < k; i++) same &= ipiv[i] == rp[i] - 1;
  CU_ASSERT(same);
  double scale = 1.0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) scale = fmax(scale, fabs(R[i + j * lda]));
  CU_ASSERT(max_abs_diff(m, n, A, lda, R, lda) < 1e-12 * scale * (k + 1));
  /* padding below m untouched */
  int pad = 1;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = m; i < lda; i++) pad &= A[i + j * lda] == -99.0;
  CU_ASSERT(pad);
  free(A), free(R), free(ipiv), free(rp);
}

static void test_lu_random(void) {
  const int64_t sz[][3] = {{1, 1, 1},    {5, 1, 5},      {1, 6, 3},     {7, 7, 7},
                           {9, 9, 12},   {100, 37, 101}, {64, 64, 64},  {300, 20, 300},
                           {20, 50, 23}, {33, 17, 40},   {128, 96, 130}};
  for (size_t c = 0; c < sizeof sz / sizeof sz[0]; c++) {
    check_lu(sz[c][0], sz[c][1], sz[c][2], 100 + c, 1);
    check_lu(sz[c][0], sz[c][1], sz[c][2], 100 + c, 0);
  }
}

/* Ties in |value| go to the lowest row, as dgetrf's idamax. */
static void test_lu_ties(void) {
  double A[9] = {1, -1, 1, 2, 5, 7, 3, 1, 2}; /* first column ties: pivot row 0 */
  double B[9] = {0, -2, 2, 1, 1, 1, 4, 5, 9}; /* ties between rows 1 and 2: pivot row 1 */
  int64_t ip[3], info;
  lapack_int rp[3];
  double R[9];
  memcpy(R, A, sizeof R);
  CU_ASSERT_EQUAL(hkern_panel_lu(3, 3, A, 3, ip, &info), HLA_OK);
  LAPACKE_dgetrf(LAPACK_COL_MAJOR, 3, 3, R, 3, rp);
  CU_ASSERT_EQUAL(ip[0], 0);
  for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(ip[i], rp[i] - 1);
  memcpy(R, B, sizeof R);
  CU_ASSERT_EQUAL(hkern_panel_lu(3, 3, B, 3, ip, &info), HLA_OK);
  LAPACKE_dgetrf(LAPACK_COL_MAJOR, 3, 3, R, 3, rp);
  CU_ASSERT_EQUAL(ip[0], 1);
  for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(ip[i], rp[i] - 1);
}

/* A zero column: info reports it, and the factorisation completes as dgetrf's. */
static void test_lu_singular(void) {
  int64_t m = 40, n = 24, ld = 40;
  for (int z = 0; z < 2; z++) {
    int64_t zc = z ? 0 : 13;
    double *A = rand_mat(7, m, n, ld), *R = rand_mat(7, m, n, ld);
    for (int64_t i = 0; i < m; i++) A[i + zc * ld] = R[i + zc * ld] = 0.0;
    int64_t ip[24], info;
    lapack_int rp[24];
    CU_ASSERT_EQUAL(hkern_panel_lu(m, n, A, ld, ip, &info), HLA_OK);
    lapack_int rinfo = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (int)m, (int)n, R, (int)ld, rp);
    CU_ASSERT_EQUAL(info, zc);
    CU_ASSERT_EQUAL(rinfo, zc + 1);
    int same = 1;
    for (int i = 0; i < n; i++) same &= ip[i] == rp[i] - 1;
    CU_ASSERT(same);
    CU_ASSERT(max_abs_diff(m, n, A, ld, R, ld) < 1e-11);
    free(A), free(R);
  }
}

static void test_dlaswp(void) {
  int64_t m = 10, n = 70, ld = 12;
  double *A = rand_mat(8, m, n, ld), *R = rand_mat(8, m, n, ld);
  int64_t ip[6] = {3, 1, 9, 5, 4, 8};
  hkern_dlaswp(n, A, ld, 0, 6, ip, 1);
  /* row 0 now holds old row 3, row 2 old row 9 ... check one swap by hand */
  CU_ASSERT_EQUAL(A[0 + 40 * ld], R[3 + 40 * ld]);
  CU_ASSERT_EQUAL(A[1 + 40 * ld], R[1 + 40 * ld]);
  hkern_dlaswp(n, A, ld, 0, 6, ip, -1); /* backward undoes forward */
  CU_ASSERT_EQUAL(max_abs_diff(ld, n, A, ld, R, ld), 0.0);
  /* LAPACK agreement */
  lapack_int lp[6];
  for (int i = 0; i < 6; i++) lp[i] = (lapack_int)ip[i] + 1;
  hkern_dlaswp(n, A, ld, 2, 5, ip, 1);
  LAPACKE_dlaswp(LAPACK_COL_MAJOR, (int)n, R, (int)ld, 3, 5, lp, 1);
  CU_ASSERT_EQUAL(max_abs_diff(m, n, A, ld, R, ld), 0.0);
  free(A), free(R);
}

static void test_dlange(void) {
  int64_t m = 17, n = 9, ld = 20;
  double *A = rand_mat(9, m, n, ld), work[20];
  const char norms[] = {'M', '1', 'O', 'I', 'F', 'E'};
  for (size_t k = 0; k < sizeof norms; k++) {
    double v = hkern_dlange(norms[k], m, n, A, ld, work);
    double r = LAPACKE_dlange(LAPACK_COL_MAJOR, norms[k], (int)m, (int)n, A, (int)ld);
    CU_ASSERT(fabs(v - r) <= 1e-14 * r);
  }
  CU_ASSERT_EQUAL(hkern_dlange('F', 0, 5, A, 1, work), 0.0);
  /* No overflow: 1e300 entries */
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) A[i + j * ld] = 1e300;
  double f = hkern_dlange('F', m, n, A, ld, work);
  CU_ASSERT(isfinite(f) && fabs(f / (1e300 * sqrt((double)(m * n))) - 1.0) < 1e-14);
  /* nor underflow */
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) A[i + j * ld] = 1e-300;
  f = hkern_dlange('F', m, n, A, ld, work);
  CU_ASSERT(fabs(f / (1e-300 * sqrt((double)(m * n))) - 1.0) < 1e-14);
  /* NaN and Inf propagate */
  A[3 + 4 * ld] = INFINITY;
  CU_ASSERT(isinf(hkern_dlange('F', m, n, A, ld, work)));
  CU_ASSERT(isinf(hkern_dlange('M', m, n, A, ld, work)));
  A[5 + 2 * ld] = NAN;
  for (size_t k = 0; k < sizeof norms; k++)
    CU_ASSERT(isnan(hkern_dlange(norms[k], m, n, A, ld, work)));
  /* merging two halves equals the whole */
  double *B = rand_mat(10, m, n, ld);
  double s1 = 0, q1 = 1, s2 = 0, q2 = 1;
  hkern_dlassq(m, 4, B, ld, &s1, &q1);
  hkern_dlassq(m, n - 4, B + 4 * ld, ld, &s2, &q2);
  hkern_lassq_merge(&s1, &q1, s2, q2);
  CU_ASSERT(fabs(s1 * sqrt(q1) - hkern_dlange('F', m, n, B, ld, work)) < 1e-14);
  free(A), free(B);
}

static void test_copies(void) {
  int64_t m = 9, n = 6, ld = 11;
  double *A = rand_mat(11, m, n, ld), *B = rand_mat(12, m, n, ld), *C = rand_mat(12, m, n, ld);
  hkern_dlacpy('U', m, n, A, ld, B, ld);
  hkern_dlacpy('L', m, n, A, ld, C, ld);
  int ok = 1;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      ok &= (i <= j ? B[i + j * ld] == A[i + j * ld] : B[i + j * ld] == ht_rand_entry(12, i, j));
      ok &= (i >= j ? C[i + j * ld] == A[i + j * ld] : C[i + j * ld] == ht_rand_entry(12, i, j));
    }
  CU_ASSERT(ok);
  hkern_dlaset(m, n, 0.0, 1.0, B, ld);
  CU_ASSERT_EQUAL(B[2 + 2 * ld], 1.0);
  CU_ASSERT_EQUAL(B[3 + 2 * ld], 0.0);
  CU_ASSERT_EQUAL(B[m + 2 * ld], -99.0);

  /* pack / unpack round trip */
  double buf[200];
  hkern_pack(m, n, A, ld, buf);
  CU_ASSERT_EQUAL(buf[3 + 2 * m], A[3 + 2 * ld]);
  hkern_dlaset(m, n, 0.0, 0.0, C, ld);
  hkern_unpack(m, n, buf, C, ld);
  CU_ASSERT_EQUAL(max_abs_diff(m, n, A, ld, C, ld), 0.0);
  CU_ASSERT_EQUAL(C[m], -99.0);

  /* indexed pack / unpack (runs and gaps) */
  int64_t rows[5] = {0, 1, 2, 5, 8}, cols[3] = {1, 2, 5};
  hkern_pack_idx(5, rows, 3, cols, A, ld, buf);
  ok = 1;
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 5; r++) ok &= buf[r + c * 5] == A[rows[r] + cols[c] * ld];
  CU_ASSERT(ok);
  hkern_dlaset(m, n, 0.0, 0.0, C, ld);
  hkern_unpack_idx(5, rows, 3, cols, buf, C, ld);
  ok = 1;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      int in = 0;
      for (int r = 0; r < 5; r++)
        for (int c = 0; c < 3; c++) in |= rows[r] == i && cols[c] == j;
      ok &= C[i + j * ld] == (in ? A[i + j * ld] : 0.0);
    }
  CU_ASSERT(ok);
  free(A), free(B), free(C);
}

/* Ragged on both sides of the 32 x 32 tiles, and nothing written past B's n rows. */
static void test_transpose(void) {
  int64_t m = 37, n = 70, lda = 41, ldb = 73;
  double *A = rand_mat(14, m, n, lda), *B = rand_mat(15, n, m, ldb);
  hkern_transpose(m, n, A, lda, B, ldb);
  int ok = 1;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) ok &= B[j + i * ldb] == A[i + j * lda];
  for (int64_t i = 0; i < m; i++) ok &= B[n + i * ldb] == -99.0;
  CU_ASSERT(ok);
  hkern_transpose(0, n, A, lda, B, ldb); /* empty: nothing to do, nothing touched */
  hkern_transpose(m, 0, A, lda, B, ldb);
  CU_ASSERT_EQUAL(B[1 + 2 * ldb], A[2 + 1 * lda]);
  free(A), free(B);
}

/* Big enough to take the OpenMP path of the packing kernels. */
static void test_pack_large(void) {
  int64_t m = 700, n = 400, ld = 703;
  double *A = rand_mat(13, m, n, ld), *buf = malloc((size_t)(m * n) * sizeof(double));
  double *C = calloc((size_t)(ld * n), sizeof(double));
  hkern_pack(m, n, A, ld, buf);
  hkern_unpack(m, n, buf, C, ld);
  CU_ASSERT_EQUAL(max_abs_diff(m, n, A, ld, C, ld), 0.0);
  free(A), free(buf), free(C);
}

#ifdef HLA_SMPI
#include <simgrid/host.h>
/* The model mode's pricing (kernels/sim.c) on the test platform's kernel rates
 * (bench/platforms/cluster_4x4.xml): each kernel advances the simulated clock by the planner's
 * time for its shape, read here from the same host properties. */
static double rate_of(const char *name) {
  const char *v = sg_host_get_property_value(sg_host_self(), name);
  return v ? atof(v) : 0.0;
}

static double charged(int what) {
  const double t0 = MPI_Wtime();
  int64_t ipiv[300], info;
  switch (what) {
  case 0:
    hkern_dgemm('N', 'N', 2000, 1000, 500, 1.0, NULL, 2000, NULL, 500, 0.0, NULL, 2000);
    break;
  case 1:
    hkern_dtrsm('L', 'L', 'N', 'U', 600, 2000, 1.0, NULL, 600, NULL, 600);
    break;
  case 2:
    hkern_panel_lu(20000, 300, NULL, 20000, ipiv, &info);
    break;
  case 3:
    hkern_dgetrf(3000, 300, NULL, 3000, ipiv, &info);
    break;
  case 4:
    hkern_pack(4000, 3000, NULL, 4000, NULL);
    break;
  default:
    hkern_dger(4000, 3000, 1.0, NULL, 1, NULL, 1, NULL, 4000);
    break;
  }
  return MPI_Wtime() - t0;
}

static void test_sim_pricing(void) {
  const double gemm = rate_of("hla_gemm_rate"), kh = rate_of("hla_gemm_khalf"),
               mh = rate_of("hla_gemm_mhalf"), panel = rate_of("hla_panel_rate"),
               ph = rate_of("hla_panel_half"), getrf = rate_of("hla_getrf_rate"),
               gh = rate_of("hla_getrf_half"), copy = rate_of("hla_copy_rate");
  CU_ASSERT_FATAL(gemm > 0 && panel > 0 && getrf > 0 && copy > 0);
  const double lu_fl = 20000.0 * 300 * 300 - 300.0 * 300 * 300 / 3,
               rf_fl = 3000.0 * 300 * 300 - 300.0 * 300 * 300 / 3;
  const double want[6] = {2.0 * 2000 * 1000 * 500 * (1 + kh / 500) * (1 + mh / 1000) / gemm,
                          600.0 * 600 * 2000 * (1 + kh / 600) * (1 + mh / 600) / gemm,
                          lu_fl * (300 + ph) / (300 * panel),
                          rf_fl * (1 + gh / 300) / getrf,
                          4000.0 * 3000 * 8 / copy,
                          4000.0 * 3000 * 8 / copy};
  hkern_sim_set(1);
  for (int w = 0; w < 6; w++) {
    const double t = charged(w);
    if (fabs(t - want[w]) > 1e-3 * want[w])
      printf("kernel %d: charged %.6g s, priced %.6g s\n", w, t, want[w]);
    CU_ASSERT(fabs(t - want[w]) <= 1e-3 * want[w]);
  }
  hkern_sim_set(0);
}
#endif

void hla_test_register(void) {
  HT_SUITE("kernels", test_thread_policy, test_dgemm, test_dtrsm_ger_gemv, test_idamax,
           test_lu_random, test_lu_ties, test_lu_singular, test_dlaswp, test_dlange, test_copies,
           test_transpose, test_pack_large);
#ifdef HLA_SMPI
  HT_SUITE("kernels_sim", test_sim_pricing);
#endif
}
