/* Tests of hlu_factor, hlu_solve and hla_gesv on many grids: the seeds' known-answer matrices
 * (exact, with ==), random matrices against LAPACK (pivots, factor and solve residuals), variants
 * against each other (==), singular and non-finite input, tiny sizes, bad arguments.
 * @procs 1 2 3 4 6 8
 */
#include "test_lu_util.h"

/* Variants cycled through by the exact tests: all must give the exact factors. */
static void variant(int v, hla_opts *o) {
  memset(o, 0, sizeof *o);
  switch (v % 5) {
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
  }
}

static void test_thesis_matrix(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int shapes[8][2], ns = tgrid_shapes(ht_size(), shapes), v = 0;
  for (int s = 0; s < ns; s++) {
    tgrid t;
    CU_ASSERT_EQUAL(tgrid_open(w, shapes[s][0], shapes[s][1], &t), HLA_OK);
    int64_t sizes[] = {13, 5, 1};
    for (int q = 0; t.member && q < 3; q++) {
      int64_t n = sizes[q];
      int nbs[] = {1, 2, 3, 8, (int)n};
      for (int b = 0; b < 5; b++, v++) {
        hmat A;
        hla_opts o;
        variant(v, &o);
        int64_t ipiv[13];
        CU_ASSERT_EQUAL(hmat_create(t.g, n, n, nbs[b], nbs[b], &A), HLA_OK);
        hmat_fill(A, thesis_entry, &n);
        CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
        double *a;
        int64_t lld, ml, nl, bad = 0;
        hmat_local(A, &a, &lld, &ml, &nl);
        for (int64_t j = 0; j < nl; j++)
          for (int64_t i = 0; i < ml; i++)
            bad += a[i + j * lld] != (hmat_l2g_row(A, i) > hmat_l2g_col(A, j) ? 0.5 : 1.0);
        CU_ASSERT_EQUAL(bad, 0);
        for (int64_t k = 0; k < n; k++) CU_ASSERT_EQUAL(ipiv[k], k + 1 < n ? k + 1 : k);
        hmat_free(&A);
      }
    }
    tgrid_close(&t);
  }
  hbsp_free(&w);
}

static void test_exact_generator(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int shapes[8][2], ns = tgrid_shapes(ht_size(), shapes), v = 0;
  for (int s = 0; s < ns; s++) {
    tgrid t;
    CU_ASSERT_EQUAL(tgrid_open(w, shapes[s][0], shapes[s][1], &t), HLA_OK);
    int64_t sizes[] = {22, 6};
    for (int q = 0; t.member && q < 2; q++) {
      int64_t n = sizes[q];
      exact_t e;
      exact_make(&e, n, 1000 + (uint64_t)(s * 10 + q), -1);
      int nbs[] = {1, 2, 3, 8, (int)n};
      for (int b = 0; b < 5; b++, v++) {
        hmat A;
        hla_opts o;
        variant(v, &o);
        int64_t ipiv[22];
        CU_ASSERT_EQUAL(hmat_create(t.g, n, n, nbs[b], nbs[b], &A), HLA_OK);
        hmat_fill(A, global_entry, &e);
        CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
        CU_ASSERT(local_equals(A, e.LU, n));
        CU_ASSERT_EQUAL(memcmp(ipiv, e.ipiv, (size_t)n * sizeof *ipiv), 0);
        hmat_free(&A);
      }
      exact_free(&e);
    }
    tgrid_close(&t);
  }
  hbsp_free(&w);
}

/* Random matrices: LAPACK's pivots, a small factor residual, on every grid, both panels. */
static void test_random_vs_lapack(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int shapes[8][2], ns = tgrid_shapes(ht_size(), shapes);
  for (int s = 0; s < ns; s++) {
    tgrid t;
    CU_ASSERT_EQUAL(tgrid_open(w, shapes[s][0], shapes[s][1], &t), HLA_OK);
    const int64_t n = 45;
    int nbs[] = {4, 7, 16};
    for (int b = 0; t.member && b < 3; b++) {
      uint64_t seed = 77 + (uint64_t)b;
      hmat A;
      hla_opts o = HLA_OPTS_INIT;
      o.panel = b == 1 ? HLA_PANEL_COLUMNS : HLA_PANEL_AUTO;
      int64_t ipiv[45], ref[45];
      CU_ASSERT_EQUAL(hmat_create(t.g, n, n, nbs[b], nbs[b], &A), HLA_OK);
      hmat_fill(A, rand_entry, &seed);
      double *A0 = gather_all(A);
      CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
      double *F = gather_all(A);
      if (t.rank == 0) {
        lapack_pivots(n, A0, ref);
        CU_ASSERT_EQUAL(memcmp(ipiv, ref, sizeof ref), 0);
        double r = factor_residual(n, A0, F, ipiv);
        CU_ASSERT(r < 1.0);
        if (!(r < 1.0)) printf("factor residual %g on %d x %d, nb %d\n", r, t.M, t.N, nbs[b]);
      }
      free(A0);
      free(F);
      hmat_free(&A);
    }
    tgrid_close(&t);
  }
  hbsp_free(&w);
}

/* Flat and hierarchical, look-ahead on and off: the same pivots and the same bits. */
static void test_variants_identical(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int shapes[8][2], ns = tgrid_shapes(ht_size(), shapes);
  for (int s = 0; s < ns; s++) {
    tgrid t;
    CU_ASSERT_EQUAL(tgrid_open(w, shapes[s][0], shapes[s][1], &t), HLA_OK);
    const int64_t n = 37;
    uint64_t seed = 5;
    double *F[4] = {0};
    int64_t ipiv[4][37];
    for (int v = 0; t.member && v < 4; v++) {
      hmat A;
      hla_opts o = HLA_OPTS_INIT;
      hla_report rep;
      o.report = &rep;
      o.lookahead = v & 1 ? -1 : 0;
      if (v & 2)
        o.lu_alg = HLA_LU_HIER, o.groups_row = 2, o.groups_col = 3;
      else
        o.lu_alg = HLA_LU_FLAT;
      CU_ASSERT_EQUAL(hmat_create(t.g, n, n, 5, 5, &A), HLA_OK);
      hmat_fill(A, rand_entry, &seed);
      CU_ASSERT_EQUAL(hlu_factor(A, ipiv[v], &o), HLA_OK);
      CU_ASSERT_EQUAL(rep.lu_alg, v & 2 ? HLA_LU_HIER : HLA_LU_FLAT);
      CU_ASSERT_EQUAL(rep.lookahead, v & 1 ? 0 : 1);
      CU_ASSERT_EQUAL(rep.groups_row, v & 2 && t.M >= 3 ? 2 : 1); /* groups of one rank: flat */
      F[v] = gather_all(A);
      hmat_free(&A);
    }
    if (t.member && t.rank == 0)
      for (int v = 1; v < 4; v++) {
        CU_ASSERT_EQUAL(memcmp(ipiv[0], ipiv[v], sizeof ipiv[0]), 0);
        int64_t bad = 0;
        for (int64_t i = 0; i < n * n; i++) bad += F[0][i] != F[v][i];
        CU_ASSERT_EQUAL(bad, 0);
      }
    for (int v = 0; v < 4; v++) free(F[v]);
    tgrid_close(&t);
  }
  hbsp_free(&w);
}

/* hla_gesv with several right-hand sides (HPL's residual), and hlu_factor + hlu_solve the same.
 * 1 and 5 columns run the fan-in solve, 67 (more than its limit of 64) the blocked one. */
static void test_solve(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int shapes[8][2], ns = tgrid_shapes(ht_size(), shapes);
  static const int64_t nrhss[3] = {5, 1, 67};
  for (int s = 0; s < ns; s++) {
    tgrid t;
    CU_ASSERT_EQUAL(tgrid_open(w, shapes[s][0], shapes[s][1], &t), HLA_OK);
    const int64_t n = 31;
    for (int b = 0; t.member && b < 6; b++) {
      const int nb = b % 2 ? 8 : 3;
      const int64_t nrhs = nrhss[b / 2];
      uint64_t sa = 11, sb = 12;
      hmat A, B, A2, B2;
      int64_t ipiv[31], ipiv2[31];
      CU_ASSERT_EQUAL(hmat_create(t.g, n, n, nb, nb, &A), HLA_OK);
      CU_ASSERT_EQUAL(hmat_create(t.g, n, nrhs, nb, 2, &B), HLA_OK);
      hmat_fill(A, rand_entry, &sa);
      hmat_fill(B, rand_entry, &sb);
      CU_ASSERT_EQUAL(hmat_dup(A, &A2), HLA_OK);
      CU_ASSERT_EQUAL(hmat_dup(B, &B2), HLA_OK);
      double *A0 = gather_all(A), *B0 = gather_all(B);
      hla_opts o = HLA_OPTS_INIT;
      int64_t info = 99;
      o.info_out = &info;
      CU_ASSERT_EQUAL(hla_gesv(A, ipiv, B, &o), HLA_OK);
      CU_ASSERT_EQUAL(info, -1);
      double *X = gather_all(B);
      if (t.rank == 0) {
        double r = solve_residual(n, nrhs, A0, X, B0);
        CU_ASSERT(r < 16.0);
        if (!(r < 16.0))
          printf("solve residual %g on %d x %d, nb %d, %lld right-hand sides\n", r, t.M, t.N, nb,
                 (long long)nrhs);
      }
      CU_ASSERT_EQUAL(hlu_factor(A2, ipiv2, NULL), HLA_OK);
      CU_ASSERT_EQUAL(hlu_solve(A2, ipiv2, B2, NULL), HLA_OK);
      CU_ASSERT_EQUAL(memcmp(ipiv, ipiv2, sizeof ipiv), 0);
      double *X2 = gather_all(B2);
      if (t.rank == 0) {
        int64_t bad = 0;
        for (int64_t i = 0; i < n * nrhs; i++) bad += X[i] != X2[i];
        CU_ASSERT_EQUAL(bad, 0);
      }
      /* no right-hand side */
      hmat E;
      CU_ASSERT_EQUAL(hmat_create(t.g, n, 0, nb, nb, &E), HLA_OK);
      CU_ASSERT_EQUAL(hlu_solve(A2, ipiv2, E, NULL), HLA_OK);
      hmat_free(&E);
      free(A0), free(B0), free(X), free(X2);
      hmat_free(&A), hmat_free(&B), hmat_free(&A2), hmat_free(&B2);
    }
    tgrid_close(&t);
  }
  hbsp_free(&w);
}

/* Singular matrices complete as dgetrf and report the first zero pivot on every rank. */
static void test_singular(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int shapes[8][2], ns = tgrid_shapes(ht_size(), shapes);
  for (int s = 0; s < ns; s++) {
    tgrid t;
    CU_ASSERT_EQUAL(tgrid_open(w, shapes[s][0], shapes[s][1], &t), HLA_OK);
    if (t.member) {
      const int64_t n = 10;
      hmat A, B;
      int64_t ipiv[10], ref[10], info = 99;
      hla_opts o = HLA_OPTS_INIT;
      o.info_out = &info;
      /* A = 0: the first pivot is zero, no interchanges */
      CU_ASSERT_EQUAL(hmat_create(t.g, n, n, 3, 3, &A), HLA_OK);
      CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_SINGULAR);
      CU_ASSERT_EQUAL(info, 0);
      for (int64_t k = 0; k < n; k++) CU_ASSERT_EQUAL(ipiv[k], k);
      CU_ASSERT(strstr(hgrid_errmsg(t.g), "singular") != NULL);
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
        for (int64_t i = 0; i < n; i++)
          small[i + j * n] = (double)((int)(ht_rand_u64(&seed) % 9) - 4);
      for (int64_t j = 0; j < n; j++) small[7 + j * n] = small[2 + j * n];
      exact_t g2 = {n, small, NULL, NULL};
      hmat_fill(A, global_entry, &g2);
      CU_ASSERT_EQUAL(hmat_create(t.g, n, 2, 3, 3, &B), HLA_OK);
      hmat_set(B, 1.0, 2.0);
      info = 99;
      int singular = 1;
      if (t.M * t.N == 1) {
        lapack_int lp[10];
        double W[100];
        memcpy(W, small, sizeof W);
        singular = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, W, n, lp) > 0;
      }
      int rc = hla_gesv(A, ipiv, B, &o);
      CU_ASSERT_EQUAL(rc, singular ? HLA_ERR_SINGULAR : HLA_OK);
      CU_ASSERT(singular ? info >= 0 && info < n : info == -1);
      double *a;
      int64_t lld, ml, nl, bad = 0;
      hmat_local(B, &a, &lld, &ml, &nl);
      for (int64_t j = 0; j < nl && singular; j++)
        for (int64_t i = 0; i < ml; i++)
          bad += a[i + j * lld] != (hmat_l2g_row(B, i) == hmat_l2g_col(B, j) ? 2.0 : 1.0);
      CU_ASSERT_EQUAL(bad, 0);
      hmat_free(&A), hmat_free(&B);
    }
    tgrid_close(&t);
  }
  hbsp_free(&w);
}

/* Inf or NaN anywhere: HLA_ERR_NONFINITE on every rank, A untouched. n = 0 and n = 1. */
static void test_nonfinite_and_tiny(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int shapes[8][2], ns = tgrid_shapes(ht_size(), shapes);
  for (int s = 0; s < ns; s++) {
    tgrid t;
    CU_ASSERT_EQUAL(tgrid_open(w, shapes[s][0], shapes[s][1], &t), HLA_OK);
    if (t.member) {
      const int64_t n = 9;
      uint64_t seed = 8;
      hmat A;
      int64_t ipiv[9];
      CU_ASSERT_EQUAL(hmat_create(t.g, n, n, 2, 2, &A), HLA_OK);
      for (int kind = 0; kind < 2; kind++) {
        hmat_fill(A, rand_entry, &seed);
        double *a;
        int64_t lld;
        hmat_local(A, &a, &lld, NULL, NULL);
        int pr, pc;
        hmat_owner(A, 6, 4, &pr, &pc);
        int myr, myc;
        hgrid_shape(t.g, NULL, NULL, &myr, &myc);
        if (pr == myr && pc == myc)
          a[hmat_g2l_row(A, 6) + hmat_g2l_col(A, 4) * lld] = kind ? INFINITY : NAN;
        double *G0 = gather_all(A);
        CU_ASSERT_EQUAL(hlu_factor(A, ipiv, NULL), HLA_ERR_NONFINITE);
        double *G1 = gather_all(A);
        if (t.rank == 0) CU_ASSERT_EQUAL(memcmp(G0, G1, (size_t)(n * n) * sizeof(double)), 0);
        free(G0), free(G1);
      }
      hmat_free(&A);
      /* n = 0 */
      CU_ASSERT_EQUAL(hmat_create(t.g, 0, 0, 4, 4, &A), HLA_OK);
      CU_ASSERT_EQUAL(hlu_factor(A, NULL, NULL), HLA_OK);
      hmat_free(&A);
      /* n = 1 */
      CU_ASSERT_EQUAL(hmat_create(t.g, 1, 1, 4, 4, &A), HLA_OK);
      hmat_set(A, 0.0, -3.0);
      hmat B;
      CU_ASSERT_EQUAL(hmat_create(t.g, 1, 3, 4, 1, &B), HLA_OK);
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
    tgrid_close(&t);
  }
  hbsp_free(&w);
}

/* Bad arguments: the right code on every rank, nothing modified. */
static void test_bad_arguments(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int P = ht_size(), M = P % 2 == 0 ? 2 : 1;
  tgrid t, t2;
  CU_ASSERT_EQUAL(tgrid_open(w, M, P / M, &t), HLA_OK);
  CU_ASSERT_EQUAL(tgrid_open(w, 1, P, &t2), HLA_OK); /* another grid on the same ranks */
  const int64_t n = 7;
  uint64_t seed = 9;
  hmat A, B, R, S, W, O;
  int64_t ipiv[7];
  CU_ASSERT_EQUAL(hmat_create(t.g, n, n, 2, 2, &A), HLA_OK);
  CU_ASSERT_EQUAL(hmat_create(t.g, n, 2, 2, 2, &B), HLA_OK);
  CU_ASSERT_EQUAL(hmat_create(t.g, n, n - 1, 2, 2, &R), HLA_OK); /* not square */
  CU_ASSERT_EQUAL(hmat_create(t.g, n, n, 2, 3, &S), HLA_OK);     /* blocks not square */
  CU_ASSERT_EQUAL(hmat_create(t.g, n + 1, 2, 2, 2, &W), HLA_OK); /* wrong rows */
  CU_ASSERT_EQUAL(hmat_create(t2.g, n, 2, 2, 2, &O), HLA_OK);    /* other grid */
  hmat_fill(A, rand_entry, &seed);
  hmat_fill(B, rand_entry, &seed);
  double *A0 = gather_all(A), *B0 = gather_all(B);

  CU_ASSERT_EQUAL(hlu_factor(NULL, ipiv, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hlu_factor(A, NULL, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hlu_factor(R, ipiv, NULL), HLA_ERR_DIM);
  CU_ASSERT_EQUAL(hlu_factor(S, ipiv, NULL), HLA_ERR_DIST);
  CU_ASSERT(strstr(hgrid_errmsg(t.g), "square blocks") != NULL);
  hla_opts o = HLA_OPTS_INIT;
  o.lu_alg = 9;
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_ARG);
  o.lu_alg = 0, o.lookahead = -2;
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_ARG);
  o.lookahead = 0, o.panel = 7;
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, B, &o), HLA_ERR_ARG);
  o.panel = 0, o.lu_alg = ht_rank() == 0 ? HLA_LU_FLAT : HLA_LU_HIER; /* differs between ranks */
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, P > 1 ? &o : NULL), P > 1 ? HLA_ERR_ARG : HLA_OK);
  hmat_free(&A);
  CU_ASSERT_EQUAL(hmat_create(t.g, n, n, 2, 2, &A), HLA_OK);
  CU_ASSERT_EQUAL(hmat_scatter(A, 0, A0, n), HLA_OK);

  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, NULL, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, W, NULL), HLA_ERR_DIM);
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, O, NULL), HLA_ERR_DIST);
  CU_ASSERT_EQUAL(hla_gesv(A, NULL, B, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hla_gesv(S, ipiv, B, NULL), HLA_ERR_DIST);
  hmat Bw;
  CU_ASSERT_EQUAL(hmat_create(t.g, n, 2, 3, 2, &Bw), HLA_OK); /* row block differs */
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, Bw, NULL), HLA_ERR_DIST);
  double *A1 = gather_all(A);
  if (t.rank == 0) CU_ASSERT_EQUAL(memcmp(A0, A1, (size_t)(n * n) * sizeof(double)), 0);
  free(A1);

  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, NULL), HLA_OK);
  CU_ASSERT_EQUAL(hlu_solve(A, NULL, B, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hlu_solve(NULL, ipiv, B, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hlu_solve(A, ipiv, W, NULL), HLA_ERR_DIM);
  CU_ASSERT_EQUAL(hlu_solve(A, ipiv, Bw, NULL), HLA_ERR_DIST);
  CU_ASSERT_EQUAL(hlu_solve(A, ipiv, O, NULL), HLA_ERR_DIST);
  int64_t badp[7];
  memcpy(badp, ipiv, sizeof badp);
  badp[3] = 1; /* below its row */
  CU_ASSERT_EQUAL(hlu_solve(A, badp, B, NULL), HLA_ERR_ARG);
  double *B1 = gather_all(B);
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
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int P = ht_size();
  tgrid t;
  CU_ASSERT_EQUAL(tgrid_open(w, 1, P, &t), HLA_OK);
  hmat A;
  uint64_t seed = 4;
  int64_t ipiv[20];
  CU_ASSERT_EQUAL(hmat_create(t.g, 20, 20, 6, 6, &A), HLA_OK);
  hmat_fill(A, rand_entry, &seed);
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
  CU_pSuite s = CU_add_suite("lu", NULL, NULL);
  HT_ADD(s, test_thesis_matrix);
  HT_ADD(s, test_exact_generator);
  HT_ADD(s, test_random_vs_lapack);
  HT_ADD(s, test_variants_identical);
  HT_ADD(s, test_solve);
  HT_ADD(s, test_singular);
  HT_ADD(s, test_nonfinite_and_tiny);
  HT_ADD(s, test_bad_arguments);
  HT_ADD(s, test_report);
}
