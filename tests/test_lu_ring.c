/* The LU's L panels round a ring (factor.c): process rows of more than HLU_EARLY_MAX ranks that do
 * not lie on one node. Every rank is a node of its own here, so no row has a board and every row
 * longer than HLU_EARLY_MAX goes by the ring: the same pivots and bits as the blocking broadcast
 * and as no look-ahead, LAPACK's pivots, ragged and rectangular sizes (process rows and columns
 * without entries still pass the panels on; those with no column right of a panel take only its
 * pivots and flag), a zero pivot's flag and a solve.
 * @procs 5 6 10
 * @env HLA_VIRTUAL_NODES=4096
 */
#include "dist/plan/thresholds.h"
#include "test_lu_util.h"

/* Factors the seed's m x n matrix (nb x nb blocks) with o; returns the gathered factors and, where
 * A0 is not NULL, the matrix (both to be read on the grid's rank 0). */
static double *factor_mn(const tgrid *t, int64_t m, int64_t n, int nb, uint64_t seed,
                         const hla_opts *o, int64_t *ipiv, int64_t *info, double **A0) {
  hla_opts oi = *o;
  oi.info_out = info;
  hmat A = ht_mat(t->g, m, n, nb, nb, ht_entry, &seed);
  if (A0) *A0 = ht_gather(A);
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &oi), HLA_OK);
  double *F = ht_gather(A);
  hmat_free(&A);
  return F;
}

/* The ring (default), the pipelined chain (asked for) and no look-ahead: the same pivots and bits;
 * square against LAPACK's pivots and the factor bar, rectangular within the bar. */
static void ring_equals_chain_on(const tgrid *t, void *ctx) {
  static const int64_t shapes[][2] = {{37, 37}, {50, 50}, {23, 50}, {50, 23}, {3, 40}};
  static const int nbs[] = {1, 3, 8};
  for (int s = 0; s < 5; s++)
    for (int b = 0; b < 3; b++) {
      const int64_t m = shapes[s][0], n = shapes[s][1], k = m < n ? m : n;
      const uint64_t seed = 500 + (uint64_t)(3 * s + b);
      int64_t ipiv[3][50], info[3];
      double *F[3], *A0 = NULL;
      for (int v = 0; v < 3; v++) {
        hla_opts o = HLA_OPTS_INIT;
        hla_report rep;
        o.report = &rep;
        o.lu_alg = HLA_LU_FLAT;
        if (v == 1) o.bcast.alg = HBSP_PIPELINE;
        if (v == 2) o.lookahead = -1;
        F[v] = factor_mn(t, m, n, nbs[b], seed, &o, ipiv[v], &info[v], v == 0 ? &A0 : NULL);
        CU_ASSERT_EQUAL(strstr(rep.why, "round a ring") != NULL,
                        v == 0 && t->N > HLU_EARLY_MAX && t->M * t->N > 1);
        CU_ASSERT_EQUAL(info[v], -1);
      }
      /* on every rank: those past the last block column of a panel take only its header */
      for (int v = 1; v < 3; v++)
        CU_ASSERT_EQUAL(memcmp(ipiv[0], ipiv[v], (size_t)k * sizeof(int64_t)), 0);
      if (t->rank == 0) {
        for (int v = 1; v < 3; v++) CU_ASSERT_EQUAL(ht_ndiff(F[0], F[v], m * n), 0);
        if (m == n) {
          int64_t ref[50];
          lapack_pivots(n, A0, ref);
          CU_ASSERT_EQUAL(memcmp(ipiv[0], ref, (size_t)n * sizeof(int64_t)), 0);
        }
        double r = factor_residual_mn(m, n, A0, F[0], ipiv[0]);
        CU_ASSERT(r < 1.0);
        if (!(r < 1.0))
          printf("ring: factor residual %g, %lld x %lld, nb %d on %d x %d\n", r, (long long)m,
                 (long long)n, nbs[b], t->M, t->N);
      }
      free(A0);
      for (int v = 0; v < 3; v++) free(F[v]);
    }
}

static void test_ring_equals_chain(void) {
  tgrid_each_world(ring_equals_chain_on, NULL);
}

/* A zero pivot's flag travels with the panel: the first zero pivot on every rank, LAPACK's
 * pivots; then hla_gesv on a regular matrix, several times on the grid (its L buffers kept). */
static void ring_singular_and_solve_on(const tgrid *t, void *ctx) {
  const int64_t n = 29;
  exact_t e;
  exact_make(&e, n, 9090, 17);
  int64_t ipiv[29], ref[29], info = 99;
  hla_opts o = HLA_OPTS_INIT;
  o.info_out = &info;
  hmat A = ht_mat(t->g, n, n, 2, 2, global_entry, &e);
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_SINGULAR);
  CU_ASSERT_EQUAL(info, 17);
  lapack_pivots(n, e.A, ref);
  CU_ASSERT_EQUAL(memcmp(ipiv, ref, sizeof ref), 0);
  exact_free(&e);
  hmat_free(&A);
  for (int rep = 0; rep < 3; rep++) {
    uint64_t sa = 31 + (uint64_t)rep, sb = 41;
    const int nb = rep + 2;
    A = ht_mat(t->g, n, n, nb, nb, ht_entry, &sa);
    hmat B = ht_mat(t->g, n, 3, nb, 2, ht_entry, &sb);
    double *A0 = ht_gather(A), *B0 = ht_gather(B);
    info = 99;
    CU_ASSERT_EQUAL(hla_gesv(A, ipiv, B, &o), HLA_OK);
    CU_ASSERT_EQUAL(info, -1);
    double *X = ht_gather(B);
    if (t->rank == 0) {
      double r = solve_residual(n, 3, A0, X, B0);
      CU_ASSERT(r < 16.0);
      if (!(r < 16.0)) printf("ring: solve residual %g on %d x %d, nb %d\n", r, t->M, t->N, nb);
    }
    free(A0), free(B0), free(X);
    hmat_free(&A), hmat_free(&B);
  }
}

static void test_ring_singular_and_solve(void) {
  tgrid_each_world(ring_singular_and_solve_on, NULL);
}

void hla_test_register(void) {
  HT_SUITE("lu_ring", test_ring_equals_chain, test_ring_singular_and_solve);
}
