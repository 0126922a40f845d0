/* Hierarchical LU on virtual nodes: two-level pivot search and broadcasts give the same pivots and
 * the same bits as the flat LU; the automatic choice takes the hierarchical variant exactly where
 * a process row or column spans both nodes with two ranks on one of them.
 * @procs 1 2 3 4 6 8
 * @env HLA_VIRTUAL_NODES=2
 */
#include "dist/lu/lu_impl.h"
#include "dist/plan/thresholds.h"
#include "test_lu_util.h"

/* Node of rank r of P under HLA_VIRTUAL_NODES=2 (two consecutive halves). */
static int vnode(int r, int P) {
  return P > 1 && r >= P / 2;
}

/* 1 if some process row or column of an M x N grid spans both nodes with two ranks on one. */
static int expect_hier(int M, int N) {
  int P = M * N, hier = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int a = 0; a < (pass ? N : M); a++) {
      int cnt[2] = {0, 0};
      for (int b = 0; b < (pass ? M : N); b++) {
        int r = pass ? b * N + a : a * N + b; /* column a / row a */
        cnt[vnode(r, P)]++;
      }
      if (cnt[0] && cnt[1] && (cnt[0] > 1 || cnt[1] > 1)) hier = 1;
    }
  return hier;
}

/* Flat, hierarchical, automatic and hierarchical with the column panel and no look-ahead: the
 * same pivots; the first three also the same bits (the column panel rounds otherwise). */
#ifdef HLA_SMPI
static const int boards = 0; /* SMPI's ranks are threads: no shared-memory board (bsp/board.c) */
#else
static const int boards = 1;
#endif

static void hier_equals_flat_on(const tgrid *t, void *ctx) {
  const int64_t n = 41;
  double *F[4];
  int64_t ipiv[4][41];
  int algs[4] = {HLA_LU_FLAT, HLA_LU_HIER, HLA_LU_AUTO, HLA_LU_HIER};
  for (int v = 0; v < 4; v++) {
    hla_opts o = HLA_OPTS_INIT;
    hla_report rep;
    o.report = &rep;
    o.lu_alg = algs[v];
    if (v == 3) o.lookahead = -1, o.panel = HLA_PANEL_COLUMNS;
    F[v] = factor_gathered(t, n, 4, 21, &o, ipiv[v]);
    if (v == 2) {
      CU_ASSERT_EQUAL(rep.lu_alg, expect_hier(t->M, t->N) ? HLA_LU_HIER : HLA_LU_FLAT);
    } else {
      CU_ASSERT_EQUAL(rep.lu_alg, algs[v]);
    }
    if (v <= 1 && t->member && t->N > 1) { /* the L panels: a board only on a row in one node */
      const int first = t->rank / t->N * t->N, P = t->M * t->N;
      const int node = vnode(first, P) == vnode(first + t->N - 1, P), one = boards && node;
      if (one && t->N > 2) CU_ASSERT_PTR_NOT_NULL(strstr(rep.why, "L panels on the row's board"));
      /* short rows across both nodes: from the root to each when flat, by node two levels */
      if ((!one || t->N == 2) && t->N <= HLU_EARLY_MAX)
        CU_ASSERT_EQUAL(strstr(rep.why, "L panels sent early") != NULL,
                        v == 0 || node || t->N == 2);
      /* longer rows across both nodes, or without a board: round a ring, by node too (each node's
       * ranks follow one another along the row) */
      CU_ASSERT_EQUAL(strstr(rep.why, "round a ring") != NULL,
                      (!one || t->N == 2 || !boards) && t->N > HLU_EARLY_MAX);
      if (!one) CU_ASSERT_PTR_NULL(strstr(rep.why, "row's board"));
    }
    if (v == 0 && t->member) { /* the pivot records: a board only on a column in one node of up
                                * to HLU_PANEL_FUSE_MAX rows, else the binary exchange (flat) */
      const int top = t->rank % t->N, P = t->M * t->N;
      const int one = boards && vnode(top, P) == vnode(top + (t->M - 1) * t->N, P) &&
                      t->M <= HLU_PANEL_FUSE_MAX;
      CU_ASSERT_EQUAL(strstr(rep.why, "pivots on the column's board") != NULL, one && t->M > 1);
      CU_ASSERT_EQUAL(strstr(rep.why, "pivots by binary exchange") != NULL, !one && t->M > 1);
    }
  }
  if (t->rank == 0) {
    for (int v = 1; v < 3; v++) {
      CU_ASSERT_EQUAL(memcmp(ipiv[0], ipiv[v], sizeof ipiv[0]), 0);
      CU_ASSERT_EQUAL(ht_ndiff(F[0], F[v], n * n), 0);
    }
    CU_ASSERT_EQUAL(memcmp(ipiv[0], ipiv[3], sizeof ipiv[0]), 0);
  }
  for (int v = 0; v < 4; v++) free(F[v]);
}

static void test_hier_equals_flat(void) {
  tgrid_each(hier_equals_flat_on, NULL);
}

/* Row i of the exact matrix summed: B = A * ones, so that x = ones. */
static double row_sum(int64_t i, int64_t j, void *ctx) {
  const exact_t *e = ctx;
  double s = 0.0;
  for (int64_t k = 0; k < e->n; k++) s += e->A[i + k * e->n];
  return s;
}

/* Hierarchical LU of the exact generator: its factors and pivots exactly; then a solve. */
static void hier_exact_and_solve_on(const tgrid *t, void *ctx) {
  const int64_t n = 19;
  exact_t e;
  exact_make(&e, n, 77 + (uint64_t)t->shape, -1);
  int nbs[] = {1, 3, 8};
  for (int b = 0; b < 3; b++) {
    hla_opts o = HLA_OPTS_INIT;
    o.lu_alg = HLA_LU_HIER;
    o.lookahead = b == 1 ? -1 : 0;
    int64_t ipiv[19];
    hmat A = ht_mat(t->g, n, n, nbs[b], nbs[b], global_entry, &e);
    CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
    CU_ASSERT(ht_local_is(A, factors_entry, &e));
    CU_ASSERT_EQUAL(memcmp(ipiv, e.ipiv, sizeof ipiv), 0);
    /* solve with the factors: x = ones */
    hmat B = ht_mat(t->g, n, 3, nbs[b], 1, row_sum, &e);
    CU_ASSERT_EQUAL(hlu_solve(A, ipiv, B, &o), HLA_OK);
    double *x;
    int64_t lld, ml, nl, bad = 0;
    hmat_local(B, &x, &lld, &ml, &nl);
    for (int64_t j = 0; j < nl; j++)
      for (int64_t i = 0; i < ml; i++) bad += fabs(x[i + j * lld] - 1.0) > 1e-10;
    CU_ASSERT_EQUAL(bad, 0);
    hmat_free(&A), hmat_free(&B);
  }
  exact_free(&e);
}

static void test_hier_exact_and_solve(void) {
  tgrid_each(hier_exact_and_solve_on, NULL);
}

/* Whether a row's groups (nodes) each follow one another round it, so that the L panels' ring
 * crosses to the next group once a group (lu.c). Local: rank 0 alone. */
static void test_groups_in_runs(void) {
  static const int runs[] = {0, 0, 1, 1, 1}, wrap[] = {1, 0, 0, 1, 1}, mixed[] = {0, 1, 0, 1, 1},
                   three[] = {0, 1, 1, 2, 2}, split[] = {0, 0, 1, 1, 0, 2};
  CU_ASSERT_TRUE(hlu_groups_in_runs(NULL, 5, 1));
  CU_ASSERT_TRUE(hlu_groups_in_runs(runs, 5, 2));
  CU_ASSERT_TRUE(hlu_groups_in_runs(wrap, 5, 2)); /* group 1 runs on round the end */
  CU_ASSERT_FALSE(hlu_groups_in_runs(mixed, 5, 2));
  CU_ASSERT_TRUE(hlu_groups_in_runs(three, 5, 3));
  CU_ASSERT_FALSE(hlu_groups_in_runs(split, 6, 3));
}

void hla_test_register(void) {
  HT_SUITE("lu_hier", test_hier_equals_flat, test_hier_exact_and_solve, test_groups_in_runs);
}
