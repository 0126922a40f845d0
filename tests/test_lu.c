/* Tests of hlu_factor, hlu_solve and hla_gesv on many grids: the seeds' known-answer matrices
 * (exact, with ==), random matrices against LAPACK (pivots, factor and solve residuals), variants
 * against each other (==), singular and non-finite input, tiny sizes, bad arguments.
 * @procs 1 2 3 4 6 8 9
 */
#include "dist/plan/thresholds.h"
#include "test_lu_util.h"

/* A fresh n x n matrix of f(i, j, ctx) on t's grid with nb x nb blocks, factored with variant v. */
static hmat factor_variant(const tgrid *t, int64_t n, int nb, int v, ht_entry_fn f, void *ctx,
                           int64_t *ipiv) {
  hla_opts o;
  lu_variant(v, &o);
  hmat A = ht_mat(t->g, n, n, nb, nb, f, ctx);
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
  return A;
}

/* The variant of the c-th factorisation on grid t: every variant in turn, from a different start on
 * each grid (a function of the grid, not a counter: a rank skips the grids it is not on). */
static int variant_of(const tgrid *t, int c) {
  return 3 * t->shape + c;
}

/* The seeds' matrix: exactly its factors and pivots, every block size, the variants in turn. */
static void thesis_on(const tgrid *t, void *ctx) {
  int64_t sizes[] = {13, 5, 1};
  for (int q = 0; q < 3; q++) {
    int64_t n = sizes[q], ipiv[13];
    int nbs[] = {1, 2, 3, 8, (int)n};
    for (int b = 0; b < 5; b++) {
      hmat A = factor_variant(t, n, nbs[b], variant_of(t, 5 * q + b), thesis_entry, &n, ipiv);
      CU_ASSERT(ht_local_is(A, thesis_factors, NULL));
      for (int64_t k = 0; k < n; k++) CU_ASSERT_EQUAL(ipiv[k], k + 1 < n ? k + 1 : k);
      hmat_free(&A);
    }
  }
}

static void test_thesis_matrix(void) {
  tgrid_each(thesis_on, NULL);
}

/* The exact generator: its factors and pivots, every block size, the variants in turn. */
static void exact_on(const tgrid *t, void *ctx) {
  int64_t sizes[] = {22, 6};
  for (int q = 0; q < 2; q++) {
    int64_t n = sizes[q], ipiv[22];
    exact_t e;
    exact_make(&e, n, 1000 + (uint64_t)(t->shape * 10 + q), -1);
    int nbs[] = {1, 2, 3, 8, (int)n};
    for (int b = 0; b < 5; b++) {
      hmat A = factor_variant(t, n, nbs[b], variant_of(t, 5 * q + b), global_entry, &e, ipiv);
      CU_ASSERT(ht_local_is(A, factors_entry, &e));
      CU_ASSERT_EQUAL(memcmp(ipiv, e.ipiv, (size_t)n * sizeof *ipiv), 0);
      hmat_free(&A);
    }
    exact_free(&e);
  }
}

static void test_exact_generator(void) {
  tgrid_each(exact_on, NULL);
}

/* Random matrices: LAPACK's pivots, a small factor residual, on every grid, both panels. */
static void random_vs_lapack_on(const tgrid *t, void *ctx) {
  const int64_t n = 45;
  int nbs[] = {4, 7, 16};
  for (int b = 0; b < 3; b++) {
    uint64_t seed = 77 + (uint64_t)b;
    hla_opts o = HLA_OPTS_INIT;
    o.panel = b == 1 ? HLA_PANEL_COLUMNS : HLA_PANEL_AUTO;
    int64_t ipiv[45], ref[45];
    hmat A = ht_mat(t->g, n, n, nbs[b], nbs[b], ht_entry, &seed);
    double *A0 = ht_gather(A);
    CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
    double *F = ht_gather(A);
    if (t->rank == 0) {
      lapack_pivots(n, A0, ref);
      CU_ASSERT_EQUAL(memcmp(ipiv, ref, sizeof ref), 0);
      double r = factor_residual(n, A0, F, ipiv);
      CU_ASSERT(r < 1.0);
      if (!(r < 1.0)) printf("factor residual %g on %d x %d, nb %d\n", r, t->M, t->N, nbs[b]);
    }
    free(A0);
    free(F);
    hmat_free(&A);
  }
}

static void test_random_vs_lapack(void) {
  tgrid_each(random_vs_lapack_on, NULL);
}

/* Flat and hierarchical, look-ahead on and off, the long swap, a broadcast algorithm of the user
 * (which has U12 solved on one process row and broadcast, where the default shares the solve over
 * the column): the same pivots and the same bits. */
#ifdef HLA_SMPI
static const int boards = 0; /* SMPI's ranks are threads: no shared-memory board (bsp/board.c) */
#else
static const int boards = 1;
#endif

static void variants_identical_on(const tgrid *t, void *ctx) {
  const int64_t n = 37;
  double *F[12];
  int64_t ipiv[12][37];
  /* v < 9: bit 0 look-ahead off, bit 1 two levels, bit 2 the long swap (auto: row swaps), bit 3
   * binomial broadcasts. v = 9: MPI's broadcasts, so that the L panels leave early by messages
   * where the default posts them on the row's board (one node). v = 10, 11: the library's other
   * broadcasts, the chain in segments of 64 bytes (many per message). */
  for (int v = 0; v < 12; v++) {
    hla_opts o = HLA_OPTS_INIT;
    const int b = v >= 9 ? 0 : v;
    hla_report rep;
    o.report = &rep;
    o.lookahead = b & 1 ? -1 : 0;
    if (b & 2)
      o.lu_alg = HLA_LU_HIER, o.groups_row = 2, o.groups_col = 3;
    else
      o.lu_alg = HLA_LU_FLAT;
    const int two = b & 2 && t->M >= 3; /* groups of one rank: flat */
    if (b & 4) o.swap = HLA_SWAP_SPREAD;
    if (v == 8) o.bcast.alg = HBSP_BINOMIAL;
    if (v == 9) o.bcast.alg = HBSP_NATIVE;
    if (v == 10) o.bcast.alg = HBSP_SCATTER_ALLGATHER;
    if (v == 11) o.bcast.alg = HBSP_PIPELINE, o.bcast.segment = 64;
    F[v] = factor_gathered(t, n, 5, 5, &o, ipiv[v]);
    CU_ASSERT_EQUAL(rep.lu_alg, b & 2 ? HLA_LU_HIER : HLA_LU_FLAT);
    CU_ASSERT_EQUAL(rep.lookahead, b & 1 ? 0 : 1);
    CU_ASSERT_EQUAL(rep.groups_row, two ? 2 : 1);
    CU_ASSERT_EQUAL(rep.swap, b & 4 ? HLA_SWAP_SPREAD : HLA_SWAP_ROWS);
    /* how the L panels went (the tests run on one node, so every process row has a board) */
    if (boards && t->N > 2 && v == 0)
      CU_ASSERT_PTR_NOT_NULL(strstr(rep.why, "L panels on the row's board"));
    if (t->N > 1 && t->N <= 4 && (v == 9 || (v == 0 && t->N == 2)))
      CU_ASSERT_PTR_NOT_NULL(strstr(rep.why, "L panels sent early"));
    /* the panel's pivot records: on the column's board up to HLU_PANEL_FUSE_MAX process rows,
     * except with MPI's collectives (v = 9); else by the binary exchange */
    if (v == 0 || v == 9) {
      const int board = boards && v == 0 && t->M <= HLU_PANEL_FUSE_MAX;
      CU_ASSERT_EQUAL(strstr(rep.why, "pivots on the column's board") != NULL, board && t->M > 1);
      CU_ASSERT_EQUAL(strstr(rep.why, "pivots by binary exchange") != NULL, !board && t->M > 1);
    }
  }
  if (t->rank == 0)
    for (int v = 1; v < 12; v++) {
      CU_ASSERT_EQUAL(memcmp(ipiv[0], ipiv[v], sizeof ipiv[0]), 0);
      CU_ASSERT_EQUAL(ht_ndiff(F[0], F[v], n * n), 0);
    }
  for (int v = 0; v < 12; v++) free(F[v]);
}

static void test_variants_identical(void) {
  tgrid_each(variants_identical_on, NULL);
}

/* hla_gesv with several right-hand sides (HPL's residual), and hlu_factor + hlu_solve the same.
 * 1 and 5 columns run the fan-in solve, 67 (more than its limit of 64) the blocked one. */
static void solve_on(const tgrid *t, void *ctx) {
  static const int64_t nrhss[3] = {5, 1, 67};
  const int64_t n = 31;
  for (int b = 0; b < 6; b++) {
    const int nb = b % 2 ? 8 : 3;
    const int64_t nrhs = nrhss[b / 2];
    uint64_t sa = 11, sb = 12;
    hmat A = ht_mat(t->g, n, n, nb, nb, ht_entry, &sa);
    hmat B = ht_mat(t->g, n, nrhs, nb, 2, ht_entry, &sb), A2, B2;
    int64_t ipiv[31], ipiv2[31];
    CU_ASSERT_EQUAL(hmat_dup(A, &A2), HLA_OK);
    CU_ASSERT_EQUAL(hmat_dup(B, &B2), HLA_OK);
    double *A0 = ht_gather(A), *B0 = ht_gather(B);
    hla_opts o = HLA_OPTS_INIT;
    int64_t info = 99;
    o.info_out = &info;
    CU_ASSERT_EQUAL(hla_gesv(A, ipiv, B, &o), HLA_OK);
    CU_ASSERT_EQUAL(info, -1);
    double *X = ht_gather(B);
    if (t->rank == 0) {
      double r = solve_residual(n, nrhs, A0, X, B0);
      CU_ASSERT(r < 16.0);
      if (!(r < 16.0))
        printf("solve residual %g on %d x %d, nb %d, %lld right-hand sides\n", r, t->M, t->N, nb,
               (long long)nrhs);
    }
    CU_ASSERT_EQUAL(hlu_factor(A2, ipiv2, NULL), HLA_OK);
    CU_ASSERT_EQUAL(hlu_solve(A2, ipiv2, B2, NULL), HLA_OK);
    CU_ASSERT_EQUAL(memcmp(ipiv, ipiv2, sizeof ipiv), 0);
    double *X2 = ht_gather(B2);
    if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(X, X2, n * nrhs), 0);
    /* no right-hand side */
    hmat E = ht_mat(t->g, n, 0, nb, nb, NULL, NULL);
    CU_ASSERT_EQUAL(hlu_solve(A2, ipiv2, E, NULL), HLA_OK);
    hmat_free(&E);
    free(A0), free(B0), free(X), free(X2);
    hmat_free(&A), hmat_free(&B), hmat_free(&A2), hmat_free(&B2);
  }
}

static void test_solve(void) {
  tgrid_each(solve_on, NULL);
}

/* hmat_set(B, 1, 2): 2 on the diagonal, 1 elsewhere. */
static double set_entry(int64_t i, int64_t j, void *ctx) {
  return i == j ? 2.0 : 1.0;
}

/* Singular matrices complete as dgetrf and report the first zero pivot on every rank. */
static void singular_on(const tgrid *t, void *ctx) {
  const int64_t n = 10;
  int64_t ipiv[10], ref[10], info = 99;
  hla_opts o = HLA_OPTS_INIT;
  o.info_out = &info;
  /* A = 0: the first pivot is zero, no interchanges */
  hmat A = ht_mat(t->g, n, n, 3, 3, NULL, NULL);
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_SINGULAR);
  CU_ASSERT_EQUAL(info, 0);
  for (int64_t k = 0; k < n; k++) CU_ASSERT_EQUAL(ipiv[k], k);
  CU_ASSERT(strstr(hgrid_errmsg(t->g), "singular") != NULL);
  /* exact generator with a zero on U's diagonal at 6: exactly zero there */
  exact_t e;
  exact_make(&e, n, 4242, 6);
  hmat_fill(A, global_entry, &e);
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_SINGULAR);
  CU_ASSERT_EQUAL(info, 6);
  lapack_pivots(n, e.A, ref);
  CU_ASSERT_EQUAL(memcmp(ipiv, ref, sizeof ref), 0);
  exact_free(&e);
  /* two equal rows (small integers): gesv reports it and leaves B alone. Distributed, both
   * rows get the same operations, so the pivot is exactly zero; one process runs LAPACK's
   * dgetrf, whose rounding may leave a tiny pivot: there the verdict is LAPACK's. */
  uint64_t seed = 3;
  double small[100];
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) small[i + j * n] = (double)((int)(ht_rand_u64(&seed) % 9) - 4);
  for (int64_t j = 0; j < n; j++) small[7 + j * n] = small[2 + j * n];
  exact_t g2 = {n, small, NULL, NULL};
  hmat_fill(A, global_entry, &g2);
  hmat B = ht_mat(t->g, n, 2, 3, 3, NULL, NULL);
  hmat_set(B, 1.0, 2.0);
  info = 99;
  int singular = 1;
  if (t->M * t->N == 1) {
    lapack_int lp[10];
    double W[100];
    memcpy(W, small, sizeof W);
    singular = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, W, n, lp) > 0;
  }
  int rc = hla_gesv(A, ipiv, B, &o);
  CU_ASSERT_EQUAL(rc, singular ? HLA_ERR_SINGULAR : HLA_OK);
  CU_ASSERT(singular ? info >= 0 && info < n : info == -1);
  CU_ASSERT(!singular || ht_local_is(B, set_entry, NULL));
  hmat_free(&A), hmat_free(&B);
}

static void test_singular(void) {
  tgrid_each(singular_on, NULL);
}

/* Inf or NaN anywhere: HLA_ERR_NONFINITE on every rank, A untouched. n = 0 and n = 1. */
static void nonfinite_and_tiny_on(const tgrid *t, void *ctx) {
  const int64_t n = 9;
  uint64_t seed = 8;
  int64_t ipiv[9];
  hmat A = ht_mat(t->g, n, n, 2, 2, NULL, NULL);
  for (int kind = 0; kind < 2; kind++) {
    hmat_fill(A, ht_entry, &seed);
    double *a;
    int64_t lld;
    hmat_local(A, &a, &lld, NULL, NULL);
    int pr, pc;
    hmat_owner(A, 6, 4, &pr, &pc);
    int myr, myc;
    hgrid_shape(t->g, NULL, NULL, &myr, &myc);
    if (pr == myr && pc == myc)
      a[hmat_g2l_row(A, 6) + hmat_g2l_col(A, 4) * lld] = kind ? INFINITY : NAN;
    double *G0 = ht_gather(A);
    CU_ASSERT_EQUAL(hlu_factor(A, ipiv, NULL), HLA_ERR_NONFINITE);
    double *G1 = ht_gather(A);
    if (t->rank == 0) CU_ASSERT_EQUAL(memcmp(G0, G1, (size_t)(n * n) * sizeof(double)), 0);
    free(G0), free(G1);
  }
  hmat_free(&A);
  /* n = 0 */
  A = ht_mat(t->g, 0, 0, 4, 4, NULL, NULL);
  CU_ASSERT_EQUAL(hlu_factor(A, NULL, NULL), HLA_OK);
  hmat_free(&A);
  /* n = 1 */
  A = ht_mat(t->g, 1, 1, 4, 4, NULL, NULL);
  hmat_set(A, 0.0, -3.0);
  hmat B = ht_mat(t->g, 1, 3, 4, 1, NULL, NULL);
  hmat_set(B, 6.0, 6.0);
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, B, NULL), HLA_OK);
  CU_ASSERT_EQUAL(ipiv[0], 0);
  double *x;
  int64_t ml, nl, lld;
  hmat_local(B, &x, &lld, &ml, &nl);
  for (int64_t j = 0; j < nl; j++)
    for (int64_t i = 0; i < ml; i++) CU_ASSERT_EQUAL(x[i + j * lld], -2.0);
  hmat_free(&A), hmat_free(&B);
}

static void test_nonfinite_and_tiny(void) {
  tgrid_each(nonfinite_and_tiny_on, NULL);
}

/* Bad arguments: the right code on every rank, nothing modified. */
static void test_bad_arguments(void) {
  hbsp_env w = ht_world();
  int P = ht_size(), M = P % 2 == 0 ? 2 : 1;
  tgrid t, t2;
  CU_ASSERT_EQUAL(tgrid_open(w, M, P / M, &t), HLA_OK);
  CU_ASSERT_EQUAL(tgrid_open(w, 1, P, &t2), HLA_OK); /* another grid on the same ranks */
  const int64_t n = 7;
  uint64_t seed = 9;
  int64_t ipiv[7];
  hmat A = ht_mat(t.g, n, n, 2, 2, ht_entry, &seed);
  hmat B = ht_mat(t.g, n, 2, 2, 2, ht_entry, &seed);
  hmat R = ht_mat(t.g, n, n - 1, 2, 2, NULL, NULL); /* not square (zero) */
  hmat S = ht_mat(t.g, n, n, 2, 3, NULL, NULL);     /* blocks not square */
  hmat W = ht_mat(t.g, n + 1, 2, 2, 2, NULL, NULL); /* wrong rows */
  hmat O = ht_mat(t2.g, n, 2, 2, 2, NULL, NULL);    /* other grid */
  double *A0 = ht_gather(A), *B0 = ht_gather(B);

  CU_ASSERT_EQUAL(hlu_factor(NULL, ipiv, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hlu_factor(A, NULL, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hlu_factor(R, ipiv, NULL), HLA_ERR_SINGULAR); /* rectangular: factored, zero */
  CU_ASSERT_EQUAL(hlu_solve(R, ipiv, B, NULL), HLA_ERR_DIM);    /* but not solved with */
  CU_ASSERT_EQUAL(hlu_factor(S, ipiv, NULL), HLA_ERR_DIST);
  CU_ASSERT(strstr(hgrid_errmsg(t.g), "square blocks") != NULL);
  hla_opts o = HLA_OPTS_INIT;
  o.lu_alg = 9;
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_ARG);
  o.lu_alg = 0, o.lookahead = -2;
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_ARG);
  o.lookahead = 0, o.swap = 3;
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_ARG);
  o.swap = 0, o.panel = 7;
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, B, &o), HLA_ERR_ARG);
  o.panel = 0, o.lu_alg = ht_rank() == 0 ? HLA_LU_FLAT : HLA_LU_HIER; /* differs between ranks */
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, P > 1 ? &o : NULL), P > 1 ? HLA_ERR_ARG : HLA_OK);
  hmat_free(&A);
  A = ht_mat(t.g, n, n, 2, 2, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_scatter(A, 0, A0, n), HLA_OK);

  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, NULL, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, A, NULL), HLA_ERR_ARG); /* B is A */
  CU_ASSERT(strstr(hgrid_errmsg(t.g), "must not be the matrix") != NULL);
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, W, NULL), HLA_ERR_DIM);
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, O, NULL), HLA_ERR_DIST);
  CU_ASSERT_EQUAL(hla_gesv(A, NULL, B, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hla_gesv(S, ipiv, B, NULL), HLA_ERR_DIST);
  hmat Bw = ht_mat(t.g, n, 2, 3, 2, NULL, NULL); /* row block differs */
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, Bw, NULL), HLA_ERR_DIST);
  double *A1 = ht_gather(A);
  if (t.rank == 0) CU_ASSERT_EQUAL(memcmp(A0, A1, (size_t)(n * n) * sizeof(double)), 0);
  free(A1);

  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, NULL), HLA_OK);
  CU_ASSERT_EQUAL(hlu_solve(A, NULL, B, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hlu_solve(NULL, ipiv, B, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hlu_solve(A, ipiv, W, NULL), HLA_ERR_DIM);
  CU_ASSERT_EQUAL(hlu_solve(A, ipiv, A, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hlu_solve(A, ipiv, Bw, NULL), HLA_ERR_DIST);
  CU_ASSERT_EQUAL(hlu_solve(A, ipiv, O, NULL), HLA_ERR_DIST);
  int64_t badp[7];
  memcpy(badp, ipiv, sizeof badp);
  badp[3] = 1; /* below its row */
  CU_ASSERT_EQUAL(hlu_solve(A, badp, B, NULL), HLA_ERR_ARG);
  double *B1 = ht_gather(B);
  if (t.rank == 0) CU_ASSERT_EQUAL(memcmp(B0, B1, (size_t)(n * 2) * sizeof(double)), 0);
  free(B1);

  free(A0), free(B0);
  hmat_free(&A), hmat_free(&B), hmat_free(&R), hmat_free(&S), hmat_free(&W), hmat_free(&O);
  hmat_free(&Bw);
  tgrid_close(&t2);
  tgrid_close(&t);
  hbsp_free(&w);
}

/* Automatic choices are reported with a reason. */
static void test_report(void) {
  hbsp_env w = ht_world();
  int P = ht_size();
  tgrid t;
  CU_ASSERT_EQUAL(tgrid_open(w, 1, P, &t), HLA_OK);
  uint64_t seed = 4;
  int64_t ipiv[20];
  hmat A = ht_mat(t.g, 20, 20, 6, 6, ht_entry, &seed);
  hla_report r;
  memset(&r, 0x7f, sizeof r);
  hla_opts o = HLA_OPTS_INIT;
  o.report = &r;
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
  int nn;
  hgrid_nodes(t.g, &nn, NULL, NULL);
  if (nn == 1) CU_ASSERT_EQUAL(r.lu_alg, HLA_LU_FLAT);
  CU_ASSERT_EQUAL(r.M, 1);
  CU_ASSERT_EQUAL(r.N, P);
  CU_ASSERT_EQUAL(r.nb, 6);
  CU_ASSERT_EQUAL(r.mb, 6);
  CU_ASSERT_EQUAL(r.lookahead, 1);
  CU_ASSERT_EQUAL(r.panel, HLA_PANEL_RECURSIVE);
  CU_ASSERT(r.seconds >= 0.0);
  CU_ASSERT(strlen(r.why) > 0 && strlen(r.why) < sizeof r.why);
  hmat_free(&A);
  tgrid_close(&t);
  hbsp_free(&w);
}

void hla_test_register(void) {
  HT_SUITE("lu", test_thesis_matrix, test_exact_generator, test_random_vs_lapack,
           test_variants_identical, test_solve, test_singular, test_nonfinite_and_tiny,
           test_bad_arguments, test_report);
}
