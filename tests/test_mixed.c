/* Tests of hla_gesv_mixed, the mixed-precision solve: random well-conditioned systems on every grid
 * shape (refined without fallback in a few steps, HPL's residual recomputed here below 16, A
 * unchanged, the float factorisation's pivots); a sweep of prescribed condition numbers (1e2 and
 * 1e4 refined, 1e10 falling back with the double factors in A); entries beyond float's range;
 * a matrix singular in float but not in double; refine_max; non-finite, singular and float
 * input; n = 0; errors agreed on every rank with the same message.
 * @procs 1 2 3 4 6
 */
#include "test_lu_util.h"

/* ---------------------------------------------------------------- helpers */

/* HPL's scaled residual of the gathered n x n A, n x nrhs X and B, the worst column:
 * ||b - A x||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n), eps = DBL_EPSILON / 2. 0 for
 * n = 0. */
static double hpl_residual(int64_t n, int64_t nrhs, const double *A, const double *X,
                           const double *B) {
  const double eps = DBL_EPSILON / 2;
  double anorm = 0.0, worst = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int64_t j = 0; j < n; j++) s += fabs(A[i + j * n]);
    anorm = fmax(anorm, s);
  }
  for (int64_t c = 0; c < nrhs && n > 0; c++) {
    double r = 0.0, xn = 0.0, bn = 0.0;
    for (int64_t i = 0; i < n; i++) {
      double s = B[i + c * n];
      for (int64_t j = 0; j < n; j++) s -= A[i + j * n] * X[j + c * n];
      if (!(fabs(s) <= r)) r = fabs(s); /* NaN sticks */
      xn = fmax(xn, fabs(X[i + c * n]));
      bn = fmax(bn, fabs(B[i + c * n]));
    }
    double q = r / (eps * (anorm * xn + bn) * (double)n);
    if (!(q <= worst)) worst = q;
  }
  return worst;
}

/* What one call of hla_gesv_mixed gave, and the gathered matrices around it (on the grid's rank
 * 0; elsewhere buffers not read). */
typedef struct {
  int rc;
  hla_report rep;
  int64_t info;
  int64_t ipiv[200];
  double *A0, *B0, *A1, *X; /* A and B before, A and B (X) after */
} outcome;

/* hla_gesv_mixed(A, ipiv, B) with base's options (NULL: none but the report), gathering before
 * and after. ipiv[n..] holds -7 to see it untouched. */
static void solve_mixed(hmat A, hmat B, const hla_opts *base, outcome *o) {
  int64_t n;
  hmat_size(A, &n, NULL);
  hla_opts opts = HLA_OPTS_INIT;
  if (base) opts = *base;
  memset(&o->rep, 0x55, sizeof o->rep);
  opts.report = &o->rep;
  o->info = 99;
  opts.info_out = &o->info;
  for (int i = 0; i < 200; i++) o->ipiv[i] = -7;
  o->A0 = ht_gather(A), o->B0 = ht_gather(B);
  o->rc = hla_gesv_mixed(A, o->ipiv, B, &opts);
  o->A1 = ht_gather(A), o->X = ht_gather(B);
}

static void outcome_free(outcome *o) {
  free(o->A0), free(o->B0), free(o->A1), free(o->X);
}

/* On the grid's rank 0: the answer meets HPL's bar (recomputed here); the report's residual is
 * below it where the float factors gave the answer, -1 after a fallback (A then holds the
 * factors). what names the case in a failure's message. */
static void check_answer(const tgrid *t, int64_t n, int64_t nrhs, const outcome *o,
                         const char *what) {
  if (o->rep.fallback == HLA_MIXED_REFINED) {
    CU_ASSERT(o->rep.residual >= 0.0 && o->rep.residual < 16.0);
  } else {
    CU_ASSERT_EQUAL(o->rep.residual, -1.0);
  }
  if (t->rank != 0) return;
  double r = hpl_residual(n, nrhs, o->A0, o->X, o->B0);
  CU_ASSERT(r < 16.0);
  if (!(r < 16.0))
    printf("%s: n %lld nrhs %lld on %d x %d: residual %g (report %g), fallback %d, %d steps\n",
           what, (long long)n, (long long)nrhs, t->M, t->N, r, o->rep.residual, o->rep.fallback,
           o->rep.iterations);
}

/* A fell back to the double factorisation: it holds hlu_factor's factors of the original (in the
 * same layout: the same bits) and ipiv their pivots. Acopy: a copy of the original A. */
static void check_double_factors(const tgrid *t, int64_t n, hmat Acopy, const outcome *o) {
  int64_t p[200];
  CU_ASSERT_EQUAL(hlu_factor(Acopy, p, NULL), HLA_OK);
  CU_ASSERT_EQUAL(memcmp(p, o->ipiv, (size_t)n * sizeof *p), 0);
  double *F = ht_gather(Acopy);
  if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(F, o->A1, n * n), 0);
  free(F);
}

/* The refined answer came from the float factors: ipiv are hlu_factor's pivots of A in float. */
static void check_float_pivots(const tgrid *t, hmat A, const outcome *o) {
  int64_t n, p[200];
  int mb, nb;
  hmat_size(A, &n, NULL);
  hmat_blocks(A, &mb, &nb);
  hmat F = NULL;
  CU_ASSERT_EQUAL(hmat_create_typed(hmat_grid(A), n, n, mb, nb, HLA_FLOAT, &F), HLA_OK);
  CU_ASSERT_EQUAL(hmat_convert(A, F), HLA_OK);
  CU_ASSERT_EQUAL(hlu_factor(F, p, NULL), HLA_OK);
  CU_ASSERT_EQUAL(memcmp(p, o->ipiv, (size_t)n * sizeof *p), 0);
  hmat_free(&F);
}

/* ---------------------------------------------------------------- well-conditioned systems */

/* Random n x n (HPL-like, uniform entries) with 1 and 3 right-hand sides on every grid shape:
 * refined in fewer than 5 steps, no fallback, A unchanged, the float pivots, nothing past ipiv[n)
 * written. */
static void random_on(const tgrid *t, void *ctx) {
  static const int64_t ns[] = {1, 7, 50, 131};
  for (int q = 0; q < 4; q++)
    for (int r = 0; r < 2; r++) {
      const int64_t n = ns[q], nrhs = r ? 3 : 1;
      const int nb = n >= 50 ? 8 : 3;
      uint64_t sa = 500 + (uint64_t)q, sb = 600 + (uint64_t)(2 * q + r);
      hmat A = ht_mat(t->g, n, n, nb, nb, ht_entry, &sa);
      hmat B = ht_mat(t->g, n, nrhs, nb, 2, ht_entry, &sb);
      outcome o;
      solve_mixed(A, B, NULL, &o);
      CU_ASSERT_EQUAL(o.rc, HLA_OK);
      CU_ASSERT_EQUAL(o.rep.fallback, HLA_MIXED_REFINED);
      CU_ASSERT(o.rep.iterations >= 0 && o.rep.iterations < 5);
      CU_ASSERT_EQUAL(o.info, -1);
      for (int i = (int)n; i < 200; i++) CU_ASSERT_EQUAL(o.ipiv[i], -7);
      check_answer(t, n, nrhs, &o, "random");
      if (t->rank == 0) CU_ASSERT_EQUAL(memcmp(o.A0, o.A1, (size_t)(n * n) * sizeof(double)), 0);
      check_float_pivots(t, A, &o);
      outcome_free(&o);
      hmat_free(&A), hmat_free(&B);
    }
}

static void test_random(void) {
  tgrid_each(random_on, NULL);
}

/* opts = NULL works too, and the answer agrees with hla_gesv's to the accuracy of the problem. */
static void null_opts_on(const tgrid *t, void *ctx) {
  const int64_t n = 37;
  uint64_t sa = 17, sb = 18;
  int64_t ipiv[37], ipiv2[37];
  hmat A = ht_mat(t->g, n, n, 4, 4, ht_entry, &sa), B = ht_mat(t->g, n, 2, 4, 2, ht_entry, &sb);
  hmat A2 = ht_mat(t->g, n, n, 4, 4, ht_entry, &sa), B2 = ht_mat(t->g, n, 2, 4, 2, ht_entry, &sb);
  CU_ASSERT_EQUAL(hla_gesv_mixed(A, ipiv, B, NULL), HLA_OK);
  CU_ASSERT_EQUAL(hla_gesv(A2, ipiv2, B2, NULL), HLA_OK);
  double *X = ht_gather(B), *X2 = ht_gather(B2);
  if (t->rank == 0) {
    double d = 0.0, xn = 0.0;
    for (int64_t i = 0; i < 2 * n; i++) d = fmax(d, fabs(X[i] - X2[i])), xn = fmax(xn, fabs(X2[i]));
    CU_ASSERT(d <= 1e-10 * xn); /* a random matrix of this size: condition far below 1e5 */
  }
  free(X), free(X2);
  CU_ASSERT(ht_local_is(A, ht_entry, &sa));
  hmat_free(&A), hmat_free(&B), hmat_free(&A2), hmat_free(&B2);
}

static void test_null_opts(void) {
  tgrid_each(null_opts_on, NULL);
}

/* A and B over the caller's arrays (hmat_wrap) with their first block on process (M - 1, 1):
 * refined as on hla's layout, A's array unchanged. */
static void wrapped_on(const tgrid *t, void *ctx) {
  const int64_t n = 29;
  const int nb = 4, M = t->M, N = t->N, rs = M - 1, cs = N > 1 ? 1 : 0;
  uint64_t sa = 830, sb = 831;
  int myr, myc;
  hgrid_shape(t->g, NULL, NULL, &myr, &myc);
  const int64_t ml = hmat_numroc(n, nb, (myr - rs + M) % M, M), lld = ml > 1 ? ml : 1;
  const int64_t nla = hmat_numroc(n, nb, (myc - cs + N) % N, N), nlb = hmat_numroc(2, 2, myc, N);
  double *a = calloc((size_t)(lld * (nla > 0 ? nla : 1)), sizeof *a);
  double *b = calloc((size_t)(lld * (nlb > 0 ? nlb : 1)), sizeof *b);
  hmat SA = ht_mat(t->g, n, n, nb, nb, ht_entry, &sa),
       SB = ht_mat(t->g, n, 2, nb, 2, ht_entry, &sb);
  hmat WA = NULL, WB = NULL;
  CU_ASSERT_EQUAL(hmat_wrap(t->g, n, n, nb, nb, rs, cs, a, lld, &WA), HLA_OK);
  CU_ASSERT_EQUAL(hmat_wrap(t->g, n, 2, nb, 2, rs, 0, b, lld, &WB), HLA_OK);
  CU_ASSERT_EQUAL(hmat_redistribute(SA, WA), HLA_OK);
  CU_ASSERT_EQUAL(hmat_redistribute(SB, WB), HLA_OK);
  outcome o;
  solve_mixed(WA, WB, NULL, &o);
  CU_ASSERT_EQUAL(o.rc, HLA_OK);
  if (o.rc != HLA_OK && t->rank == 0)
    printf("wrapped on %d x %d: %s: %s\n", M, N, hla_strerror(o.rc), hgrid_errmsg(t->g));
  if (o.rc == HLA_OK) { /* agreed: the same branch on every rank */
    CU_ASSERT_EQUAL(o.rep.fallback, HLA_MIXED_REFINED);
    check_answer(t, n, 2, &o, "wrapped");
    if (t->rank == 0) CU_ASSERT_EQUAL(memcmp(o.A0, o.A1, (size_t)(n * n) * sizeof(double)), 0);
    check_float_pivots(t, SA, &o);
  }
  outcome_free(&o);
  hmat_free(&WA), hmat_free(&WB), hmat_free(&SA), hmat_free(&SB);
  free(a), free(b);
}

static void test_wrapped(void) {
  tgrid_each(wrapped_on, NULL);
}

/* ---------------------------------------------------------------- conditioning */

/* On the calling rank: the n x n matrix Q1 diag(s) Q2^T with s geometric from 1 to 1 / kappa and
 * Q1, Q2 the orthogonal factors of random matrices (dgeqrf, dorgqr): 2-norm condition kappa. */
static double *conditioned(int64_t n, double kappa, uint64_t seed) {
  const size_t nn = (size_t)(n * n);
  double *Q1 = malloc(nn * sizeof *Q1), *Q2 = malloc(nn * sizeof *Q2);
  double *A = calloc(nn, sizeof *A), *tau = malloc((size_t)n * sizeof *tau);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      Q1[i + j * n] = ht_rand_entry(seed, i, j);
      Q2[i + j * n] = ht_rand_entry(seed + 1, i, j);
    }
  double *Q[2] = {Q1, Q2};
  for (int k = 0; k < 2; k++) {
    CU_ASSERT_EQUAL(
        LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, Q[k], (lapack_int)n, tau),
        0);
    CU_ASSERT_EQUAL(LAPACKE_dorgqr(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, (lapack_int)n,
                                   Q[k], (lapack_int)n, tau),
                    0);
  }
  for (int64_t k = 0; k < n; k++) {
    double s = n > 1 ? pow(kappa, -(double)k / (double)(n - 1)) : 1.0;
    for (int64_t j = 0; j < n; j++) {
      double w = s * Q2[j + k * n];
      for (int64_t i = 0; i < n; i++) A[i + j * n] += Q1[i + k * n] * w;
    }
  }
  free(Q1), free(Q2), free(tau);
  return A;
}

/* An n x n matrix on t's grid (nb x nb blocks) from the global G on the grid's rank 0. */
static hmat scattered(const tgrid *t, int64_t n, int nb, const double *G) {
  hmat A = ht_mat(t->g, n, n, nb, nb, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_scatter(A, 0, G, n > 1 ? n : 1), HLA_OK);
  return A;
}

/* kappa 1e2, 1e4: refined, no fallback, A unchanged; kappa 1e10 (beyond 1 / eps_float): the
 * refinement stagnates, the double factorisation answers and A holds its factors. */
static void conditioning_on(const tgrid *t, void *ctx) {
  static const double kappas[] = {1e2, 1e4, 1e10};
  const int64_t n = 60, nrhs = 2;
  for (int c = 0; c < 3; c++) {
    double *G = t->rank == 0 ? conditioned(n, kappas[c], 700 + (uint64_t)c) : NULL;
    hmat A = scattered(t, n, 8, G), Acopy;
    CU_ASSERT_EQUAL(hmat_dup(A, &Acopy), HLA_OK);
    uint64_t sb = 710 + (uint64_t)c;
    hmat B = ht_mat(t->g, n, nrhs, 8, 2, ht_entry, &sb);
    outcome o;
    solve_mixed(A, B, NULL, &o);
    CU_ASSERT_EQUAL(o.rc, HLA_OK);
    check_answer(t, n, nrhs, &o, "conditioned");
    if (kappas[c] < 1e5) {
      CU_ASSERT_EQUAL(o.rep.fallback, HLA_MIXED_REFINED);
      CU_ASSERT(o.rep.iterations >= 1 && o.rep.iterations <= 30);
      if (t->rank == 0) CU_ASSERT_EQUAL(memcmp(o.A0, o.A1, (size_t)(n * n) * sizeof(double)), 0);
      check_float_pivots(t, Acopy, &o);
    } else {
      CU_ASSERT_EQUAL(o.rep.fallback, HLA_MIXED_STAGNATED);
      CU_ASSERT(o.rep.iterations >= 1); /* stagnation is seen after a step */
      check_double_factors(t, n, Acopy, &o);
    }
    if (t->rank == 0 && (o.rep.fallback != (kappas[c] < 1e5 ? 0 : HLA_MIXED_STAGNATED)))
      printf("kappa %g on %d x %d: fallback %d after %d steps\n", kappas[c], t->M, t->N,
             o.rep.fallback, o.rep.iterations);
    outcome_free(&o);
    free(G);
    hmat_free(&A), hmat_free(&Acopy), hmat_free(&B);
  }
}

static void test_conditioning(void) {
  tgrid_each(conditioning_on, NULL);
}

/* refine_max: -1 always falls back (STAGNATED, no float step) with the right answer and the double
 * factors; 1 on a matrix of condition 1e4 either refines in that one step or falls back after
 * it. */
static void refine_max_on(const tgrid *t, void *ctx) {
  const int64_t n = 45;
  uint64_t sa = 720, sb = 721;
  hmat A = ht_mat(t->g, n, n, 5, 5, ht_entry, &sa), Acopy;
  CU_ASSERT_EQUAL(hmat_dup(A, &Acopy), HLA_OK);
  hmat B = ht_mat(t->g, n, 3, 5, 2, ht_entry, &sb);
  hla_opts base = HLA_OPTS_INIT;
  base.refine_max = -1;
  outcome o;
  solve_mixed(A, B, &base, &o);
  CU_ASSERT_EQUAL(o.rc, HLA_OK);
  CU_ASSERT_EQUAL(o.rep.fallback, HLA_MIXED_STAGNATED);
  CU_ASSERT_EQUAL(o.rep.iterations, 0);
  check_answer(t, n, 3, &o, "refine_max -1");
  check_double_factors(t, n, Acopy, &o);
  outcome_free(&o);
  hmat_free(&A), hmat_free(&Acopy), hmat_free(&B);

  double *G = t->rank == 0 ? conditioned(n, 1e4, 730) : NULL;
  A = scattered(t, n, 5, G);
  B = ht_mat(t->g, n, 1, 5, 1, ht_entry, &sb);
  base.refine_max = 1;
  solve_mixed(A, B, &base, &o);
  CU_ASSERT_EQUAL(o.rc, HLA_OK);
  check_answer(t, n, 1, &o, "refine_max 1");
  CU_ASSERT(o.rep.fallback == HLA_MIXED_REFINED
                ? o.rep.iterations <= 1
                : o.rep.fallback == HLA_MIXED_STAGNATED && o.rep.iterations == 1);
  outcome_free(&o);
  free(G);
  hmat_free(&A), hmat_free(&B);
}

static void test_refine_max(void) {
  tgrid_each(refine_max_on, NULL);
}

/* ---------------------------------------------------------------- range and float singularity */

/* The random matrix of a seed, scaled. */
typedef struct {
  uint64_t seed;
  double scale;
} scaled_t;

static double scaled_entry(int64_t i, int64_t j, void *ctx) {
  const scaled_t *s = ctx;
  return s->scale * ht_rand_entry(s->seed, i, j);
}

/* 2 I, but rows and columns 3 and 6 hold [1 1; 1 1 + 2^-30]: in float the 2 x 2 block is [1 1;
 * 1 1], exactly singular (a zero pivot at 6); in double its condition is about 2^32. */
static double float_singular_entry(int64_t i, int64_t j, void *ctx) {
  int ii = i == 3 || i == 6, jj = j == 3 || j == 6;
  if (ii && jj) return i == 6 && j == 6 ? 1.0 + 0x1p-30 : 1.0;
  return i == j ? 2.0 : 0.0;
}

/* Entries beyond FLT_MAX: RANGE before any float step; tiny entries (below float's smallest):
 * RANGE or a singular float factorisation; a float-singular matrix: SINGULAR; a right-hand side
 * beyond float's range: the right answer whichever way. The double factors in A after a
 * fallback. */
static void range_on(const tgrid *t, void *ctx) {
  const int64_t n = 40;
  for (int k = 0; k < 2; k++) {
    scaled_t sa = {740 + (uint64_t)k, k ? 1e-200 : 1e300}, sb = {750, k ? 1e-200 : 1.0};
    hmat A = ht_mat(t->g, n, n, 6, 6, scaled_entry, &sa), Acopy;
    hmat B = ht_mat(t->g, n, 2, 6, 2, scaled_entry, &sb);
    CU_ASSERT_EQUAL(hmat_dup(A, &Acopy), HLA_OK);
    outcome o;
    solve_mixed(A, B, NULL, &o);
    CU_ASSERT_EQUAL(o.rc, HLA_OK);
    if (k == 0) {
      CU_ASSERT_EQUAL(o.rep.fallback, HLA_MIXED_RANGE);
      CU_ASSERT_EQUAL(o.rep.iterations, 0);
    } else {
      CU_ASSERT(o.rep.fallback == HLA_MIXED_RANGE || o.rep.fallback == HLA_MIXED_SINGULAR);
    }
    check_answer(t, n, 2, &o, k ? "tiny entries" : "huge entries");
    check_double_factors(t, n, Acopy, &o);
    outcome_free(&o);
    hmat_free(&A), hmat_free(&Acopy), hmat_free(&B);
  }
  /* singular in float only */
  const int64_t m = 9;
  hmat A = ht_mat(t->g, m, m, 2, 2, float_singular_entry, NULL), Acopy;
  CU_ASSERT_EQUAL(hmat_dup(A, &Acopy), HLA_OK);
  uint64_t sb = 760;
  hmat B = ht_mat(t->g, m, 2, 2, 2, ht_entry, &sb);
  outcome o;
  solve_mixed(A, B, NULL, &o);
  CU_ASSERT_EQUAL(o.rc, HLA_OK);
  CU_ASSERT_EQUAL(o.rep.fallback, HLA_MIXED_SINGULAR);
  CU_ASSERT_EQUAL(o.info, -1); /* not singular in double */
  check_answer(t, m, 2, &o, "float-singular");
  check_double_factors(t, m, Acopy, &o);
  outcome_free(&o);
  hmat_free(&A), hmat_free(&Acopy), hmat_free(&B);
  /* a right-hand side beyond float's range, A well conditioned */
  uint64_t s1 = 770;
  scaled_t sbig = {771, 1e300};
  A = ht_mat(t->g, n, n, 6, 6, ht_entry, &s1);
  B = ht_mat(t->g, n, 1, 6, 1, scaled_entry, &sbig);
  solve_mixed(A, B, NULL, &o);
  CU_ASSERT_EQUAL(o.rc, HLA_OK);
  check_answer(t, n, 1, &o, "huge right-hand side");
  outcome_free(&o);
  hmat_free(&A), hmat_free(&B);
}

static void test_range_and_float_singular(void) {
  tgrid_each(range_on, NULL);
}

/* ---------------------------------------------------------------- errors */

/* The code on every rank of the world. */
static int agreed(int rc, int want) {
  return ht_all(MPI_COMM_WORLD, rc == want);
}

/* Set entry (i, j) of the double matrix A to v on its owner. Local. */
static void dset(hmat A, int64_t i, int64_t j, double v) {
  int pr, pc, myr, myc;
  hmat_owner(A, i, j, &pr, &pc);
  hgrid_shape(hmat_grid(A), NULL, NULL, &myr, &myc);
  double *a;
  int64_t lld;
  if (pr == myr && pc == myc && hmat_local(A, &a, &lld, NULL, NULL) == HLA_OK)
    a[hmat_g2l_row(A, i) + hmat_g2l_col(A, j) * lld] = v;
}

/* A random matrix with column z[0] zero (z[1]: the seed). */
static double zero_col_entry(int64_t i, int64_t j, void *ctx) {
  const int64_t *z = ctx;
  return j == z[0] ? 0.0 : ht_rand_entry((uint64_t)z[1], i, j);
}

/* NaN / Inf in A or B: HLA_ERR_NONFINITE, nothing touched. A zero column: HLA_ERR_SINGULAR as
 * hla_gesv (B unchanged, A hla_gesv's factors, the same pivots and first zero pivot). On every
 * world grid, with the same message on every rank. */
static void bad_input_on(const tgrid *t, void *ctx) {
  const int64_t n = 10;
  uint64_t sa = 800, sb = 801;
  for (int kind = 0; kind < 4; kind++) {
    hmat A = ht_mat(t->g, n, n, 3, 3, ht_entry, &sa), B = ht_mat(t->g, n, 2, 3, 2, ht_entry, &sb);
    if (kind < 2)
      dset(A, 6, 4, kind ? -INFINITY : NAN);
    else
      dset(B, 9, 1, kind == 2 ? NAN : INFINITY);
    outcome o;
    solve_mixed(A, B, NULL, &o);
    CU_ASSERT(agreed(o.rc, HLA_ERR_NONFINITE));
    CU_ASSERT(ht_same_text(hgrid_errmsg(t->g)));
    for (int i = 0; i < 200; i++) CU_ASSERT_EQUAL(o.ipiv[i], -7);
    if (t->rank == 0) {
      CU_ASSERT_EQUAL(memcmp(o.A0, o.A1, (size_t)(n * n) * sizeof(double)), 0);
      CU_ASSERT_EQUAL(memcmp(o.B0, o.X, (size_t)(n * 2) * sizeof(double)), 0);
    }
    outcome_free(&o);
    hmat_free(&A), hmat_free(&B);
  }
  /* exactly singular: a zero column */
  int64_t z[2] = {3, 802}, ipiv2[10], info2 = 99;
  hmat A = ht_mat(t->g, n, n, 3, 3, zero_col_entry, z), B = ht_mat(t->g, n, 2, 3, 2, ht_entry, &sb);
  hmat A2 = ht_mat(t->g, n, n, 3, 3, zero_col_entry, z);
  hmat B2 = ht_mat(t->g, n, 2, 3, 2, ht_entry, &sb);
  outcome o;
  solve_mixed(A, B, NULL, &o);
  CU_ASSERT(agreed(o.rc, HLA_ERR_SINGULAR));
  CU_ASSERT(ht_same_text(hgrid_errmsg(t->g)));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, ht_local_is(B, ht_entry, &sb)));
  hla_opts go = HLA_OPTS_INIT;
  go.info_out = &info2;
  CU_ASSERT_EQUAL(hla_gesv(A2, ipiv2, B2, &go), HLA_ERR_SINGULAR);
  CU_ASSERT_EQUAL(o.info, info2);
  CU_ASSERT_EQUAL(o.info, 3);
  CU_ASSERT_EQUAL(memcmp(o.ipiv, ipiv2, sizeof ipiv2), 0);
  double *F2 = ht_gather(A2);
  if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(F2, o.A1, n * n), 0);
  free(F2);
  outcome_free(&o);
  hmat_free(&A), hmat_free(&B), hmat_free(&A2), hmat_free(&B2);
}

static void test_bad_input(void) {
  tgrid_each_world(bad_input_on, NULL);
}

/* Float operands and hla_gesv's argument errors: the code on every rank, the same message,
 * nothing touched. */
static void bad_args_on(const tgrid *t, void *ctx) {
  const int64_t n = 8;
  uint64_t sa = 810, sb = 811;
  int64_t ipiv[8];
  hmat A = ht_mat(t->g, n, n, 2, 2, ht_entry, &sa), B = ht_mat(t->g, n, 3, 2, 2, ht_entry, &sb);
  hmat Af = NULL, Bf = NULL;
  CU_ASSERT_EQUAL(hmat_create_typed(t->g, n, n, 2, 2, HLA_FLOAT, &Af), HLA_OK);
  CU_ASSERT_EQUAL(hmat_create_typed(t->g, n, 3, 2, 2, HLA_FLOAT, &Bf), HLA_OK);
  hmat_fill(Af, ht_entry, &sa), hmat_fill(Bf, ht_entry, &sb);
  double *Af0 = ht_gather(Af), *Bf0 = ht_gather(Bf);
  hmat W = ht_mat(t->g, n + 1, 3, 2, 2, NULL, NULL); /* wrong rows */
  hmat S = ht_mat(t->g, n, n, 2, 3, NULL, NULL);     /* blocks not square */
  hmat Bw = ht_mat(t->g, n, 3, 3, 2, NULL, NULL);    /* another row block */
  const struct {
    hmat A;
    int64_t *ipiv;
    hmat B;
    int want;
  } cases[] = {
      {Af, ipiv, B, HLA_ERR_ARG},   {A, ipiv, Bf, HLA_ERR_ARG}, {Af, ipiv, Bf, HLA_ERR_ARG},
      {NULL, ipiv, B, HLA_ERR_ARG}, {A, NULL, B, HLA_ERR_ARG},  {A, ipiv, NULL, HLA_ERR_ARG},
      {A, ipiv, A, HLA_ERR_ARG},    {A, ipiv, W, HLA_ERR_DIM},  {S, ipiv, B, HLA_ERR_DIST},
      {A, ipiv, Bw, HLA_ERR_DIST},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int rc = hla_gesv_mixed(cases[k].A, cases[k].ipiv, cases[k].B, NULL);
    CU_ASSERT(agreed(rc, cases[k].want));
    CU_ASSERT(ht_same_text(hgrid_errmsg(t->g)));
    if (rc != cases[k].want && t->rank == 0)
      printf("bad argument case %d: %d (%s), expected %d\n", (int)k, rc, hgrid_errmsg(t->g),
             cases[k].want);
  }
  CU_ASSERT(ht_all(MPI_COMM_WORLD, ht_local_is(A, ht_entry, &sa) && ht_local_is(B, ht_entry, &sb)));
  double *Af1 = ht_gather(Af), *Bf1 = ht_gather(Bf);
  if (t->rank == 0) {
    CU_ASSERT_EQUAL(ht_ndiff(Af0, Af1, n * n), 0);
    CU_ASSERT_EQUAL(ht_ndiff(Bf0, Bf1, n * 3), 0);
  }
  /* one rank passes a NULL B: still agreed */
  int P = t->M * t->N;
  int rc = hla_gesv_mixed(A, ipiv, t->rank == P - 1 ? NULL : B, NULL);
  CU_ASSERT(agreed(rc, HLA_ERR_ARG));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, ht_local_is(A, ht_entry, &sa) && ht_local_is(B, ht_entry, &sb)));
  free(Af0), free(Bf0), free(Af1), free(Bf1);
  hmat_free(&A), hmat_free(&B), hmat_free(&Af), hmat_free(&Bf), hmat_free(&W), hmat_free(&S);
  hmat_free(&Bw);
}

static void test_bad_args(void) {
  tgrid_each_world(bad_args_on, NULL);
}

/* n = 0 (with and without right-hand sides) and nrhs = 0: nothing to do, HLA_OK. */
static void empty_on(const tgrid *t, void *ctx) {
  int64_t ipiv[8] = {-7, -7, -7, -7, -7, -7, -7, -7};
  hmat A = ht_mat(t->g, 0, 0, 4, 4, NULL, NULL), B = ht_mat(t->g, 0, 3, 4, 2, NULL, NULL);
  hmat B0 = ht_mat(t->g, 0, 0, 4, 2, NULL, NULL);
  CU_ASSERT_EQUAL(hla_gesv_mixed(A, ipiv, B, NULL), HLA_OK);
  CU_ASSERT_EQUAL(hla_gesv_mixed(A, ipiv, B0, NULL), HLA_OK);
  CU_ASSERT_EQUAL(ipiv[0], -7);
  hmat_free(&A), hmat_free(&B), hmat_free(&B0);
  uint64_t sa = 820;
  A = ht_mat(t->g, 6, 6, 4, 4, ht_entry, &sa), B = ht_mat(t->g, 6, 0, 4, 2, NULL, NULL);
  CU_ASSERT_EQUAL(hla_gesv_mixed(A, ipiv, B, NULL), HLA_OK);
  hmat_free(&A), hmat_free(&B);
}

static void test_empty(void) {
  tgrid_each(empty_on, NULL);
}

void hla_test_register(void) {
  HT_SUITE("mixed", test_random, test_null_opts, test_wrapped, test_conditioning, test_refine_max,
           test_range_and_float_singular, test_bad_input, test_bad_args, test_empty);
}
