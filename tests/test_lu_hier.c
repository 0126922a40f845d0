/* Hierarchical LU on virtual nodes: two-level pivot search and broadcasts give the same pivots and
 * the same bits as the flat LU; the automatic choice takes the hierarchical variant exactly where
 * a process row or column spans both nodes with two ranks on one of them.
 * @procs 1 2 3 4 6 8
 * @env HLA_VIRTUAL_NODES=2
 */
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

static void test_hier_equals_flat(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int shapes[8][2], ns = tgrid_shapes(ht_size(), shapes);
  for (int s = 0; s < ns; s++) {
    tgrid t;
    CU_ASSERT_EQUAL(tgrid_open(w, shapes[s][0], shapes[s][1], &t), HLA_OK);
    const int64_t n = 41;
    uint64_t seed = 21;
    double *F[4] = {0};
    int64_t ipiv[4][41];
    int algs[4] = {HLA_LU_FLAT, HLA_LU_HIER, HLA_LU_AUTO, HLA_LU_HIER};
    for (int v = 0; t.member && v < 4; v++) {
      hmat A;
      hla_opts o = HLA_OPTS_INIT;
      hla_report rep;
      o.report = &rep;
      o.lu_alg = algs[v];
      if (v == 3) o.lookahead = -1, o.panel = HLA_PANEL_COLUMNS;
      CU_ASSERT_EQUAL(hmat_create(t.g, n, n, 4, 4, &A), HLA_OK);
      hmat_fill(A, rand_entry, &seed);
      CU_ASSERT_EQUAL(hlu_factor(A, ipiv[v], &o), HLA_OK);
      if (v == 2) {
        CU_ASSERT_EQUAL(rep.lu_alg, expect_hier(t.M, t.N) ? HLA_LU_HIER : HLA_LU_FLAT);
      } else {
        CU_ASSERT_EQUAL(rep.lu_alg, algs[v]);
      }
      F[v] = gather_all(A);
      hmat_free(&A);
    }
    if (t.member && t.rank == 0)
      for (int v = 1; v < 3; v++) { /* v = 3 has another panel: same pivots, other rounding */
        CU_ASSERT_EQUAL(memcmp(ipiv[0], ipiv[v], sizeof ipiv[0]), 0);
        int64_t bad = 0;
        for (int64_t i = 0; i < n * n; i++) bad += F[0][i] != F[v][i];
        CU_ASSERT_EQUAL(bad, 0);
      }
    if (t.member && t.rank == 0) CU_ASSERT_EQUAL(memcmp(ipiv[0], ipiv[3], sizeof ipiv[0]), 0);
    for (int v = 0; v < 4; v++) free(F[v]);
    tgrid_close(&t);
  }
  hbsp_free(&w);
}

static void test_hier_exact_and_solve(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int shapes[8][2], ns = tgrid_shapes(ht_size(), shapes);
  for (int s = 0; s < ns; s++) {
    tgrid t;
    CU_ASSERT_EQUAL(tgrid_open(w, shapes[s][0], shapes[s][1], &t), HLA_OK);
    const int64_t n = 19;
    exact_t e;
    exact_make(&e, n, 77 + (uint64_t)s, -1);
    int nbs[] = {1, 3, 8};
    for (int b = 0; t.member && b < 3; b++) {
      hmat A, B;
      hla_opts o = HLA_OPTS_INIT;
      o.lu_alg = HLA_LU_HIER;
      o.lookahead = b == 1 ? -1 : 0;
      int64_t ipiv[19];
      CU_ASSERT_EQUAL(hmat_create(t.g, n, n, nbs[b], nbs[b], &A), HLA_OK);
      hmat_fill(A, global_entry, &e);
      CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
      CU_ASSERT(local_equals(A, e.LU, n));
      CU_ASSERT_EQUAL(memcmp(ipiv, e.ipiv, sizeof ipiv), 0);
      /* solve with the factors: B = A * ones, so x = ones */
      CU_ASSERT_EQUAL(hmat_create(t.g, n, 3, nbs[b], 1, &B), HLA_OK);
      double *rows = calloc((size_t)n, sizeof(double));
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) rows[i] += e.A[i + j * n];
      double *x;
      int64_t lld, ml, nl;
      hmat_local(B, &x, &lld, &ml, &nl);
      for (int64_t j = 0; j < nl; j++)
        for (int64_t i = 0; i < ml; i++) x[i + j * lld] = rows[hmat_l2g_row(B, i)];
      CU_ASSERT_EQUAL(hlu_solve(A, ipiv, B, &o), HLA_OK);
      int64_t bad = 0;
      for (int64_t j = 0; j < nl; j++)
        for (int64_t i = 0; i < ml; i++) bad += fabs(x[i + j * lld] - 1.0) > 1e-10;
      CU_ASSERT_EQUAL(bad, 0);
      free(rows);
      hmat_free(&A), hmat_free(&B);
    }
    exact_free(&e);
    tgrid_close(&t);
  }
  hbsp_free(&w);
}

void hla_test_register(void) {
  CU_pSuite s = CU_add_suite("lu_hier", NULL, NULL);
  HT_ADD(s, test_hier_equals_flat);
  HT_ADD(s, test_hier_exact_and_solve);
}
