/* Tests of hmatmul: SUMMA, HSUMMA and 3D against a serial dgemm of the gathered operands
 * (DESIGN §4: max |C - C_ref| / ((|alpha| |A| |B| k + |beta| |C|) eps) <= 16 with max norms),
 * and the row-reduce multiply, on every grid shape of P, with transposes, odd sizes, mixed block
 * sizes, panels that cross blocks, beta = 0 over NaN, k = 0; HSUMMA bitwise equal to SUMMA; bad
 * input on every rank.
 * @procs 1 2 3 4 6 8
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "kernels/kernels.h"

#define TOL 16.0

static double nan_entry(int64_t i, int64_t j, void *ctx) {
  (void)i, (void)j, (void)ctx;
  return NAN;
}

/* One multiply: the layouts and scalars. */
typedef struct {
  char ta, tb;
  int64_t m, n, k;
  int amb, anb, bmb, bnb, cmb, cnb;
  double alpha, beta;
} mcase;

static double maxabs(const double *x, int64_t n) {
  double v = 0;
  for (int64_t i = 0; i < n; i++) v = fabs(x[i]) > v ? fabs(x[i]) : v;
  return v;
}

/* Run one case on grid g with opts; check against the serial reference on rank 0. If out is not
 * NULL, the gathered result is copied there on rank 0 (m n doubles). Returns 1 on every rank iff
 * the call succeeded and the result is within the bar. */
static int run_case(hgrid g, const mcase *c, const hla_opts *opts, double *out) {
  int rank = ht_rank();
  int na_ = c->ta == 'N' || c->ta == 'n', nb_ = c->tb == 'N' || c->tb == 'n';
  int64_t ar = na_ ? c->m : c->k, ac = na_ ? c->k : c->m;
  int64_t br = nb_ ? c->k : c->n, bc = nb_ ? c->n : c->k;
  hmat A, B, C;
  uint64_t sa = 101, sb = 202, sc = 303;
  hmat_create(g, ar, ac, c->amb, c->anb, &A);
  hmat_create(g, br, bc, c->bmb, c->bnb, &B);
  hmat_create(g, c->m, c->n, c->cmb, c->cnb, &C);
  hmat_fill(A, ht_entry, &sa);
  hmat_fill(B, ht_entry, &sb);
  hmat_fill(C, c->beta == 0.0 ? nan_entry : ht_entry, &sc);
  double *Ga = NULL, *Gb = NULL, *Gc = NULL, *Gr = NULL;
  if (rank == 0) {
    Ga = malloc((size_t)(ar * ac + 1) * sizeof(double));
    Gb = malloc((size_t)(br * bc + 1) * sizeof(double));
    Gc = malloc((size_t)(c->m * c->n + 1) * sizeof(double));
    Gr = malloc((size_t)(c->m * c->n + 1) * sizeof(double));
  }
  int64_t lda = ar > 1 ? ar : 1, ldb = br > 1 ? br : 1, ldc = c->m > 1 ? c->m : 1;
  hmat_gather(A, 0, Ga, lda);
  hmat_gather(B, 0, Gb, ldb);
  hmat_gather(C, 0, Gc, ldc);
  int e = hmatmul(c->ta, c->tb, c->alpha, A, B, c->beta, C, opts);
  hmat_gather(C, 0, Gr, ldc);
  int ok = e == HLA_OK;
  if (rank == 0 && ok) {
    double nc = c->beta == 0.0 ? 0.0 : maxabs(Gc, c->m * c->n);
    if (c->beta == 0.0)
      for (int64_t i = 0; i < c->m * c->n; i++) Gc[i] = 0.0; /* the reference must not read NaN */
    if (c->m > 0 && c->n > 0) {
      if (c->k > 0)
        hkern_dgemm(c->ta, c->tb, c->m, c->n, c->k, c->alpha, Ga, lda, Gb, ldb, c->beta, Gc, ldc);
      else
        for (int64_t i = 0; i < c->m * c->n; i++) Gc[i] *= c->beta;
    }
    double na = maxabs(Ga, ar * ac), nb = maxabs(Gb, br * bc), err = 0;
    for (int64_t i = 0; i < c->m * c->n; i++) {
      double d = fabs(Gr[i] - Gc[i]);
      if (!(d <= err)) err = d; /* NaN counts as a failure */
    }
    double den = (fabs(c->alpha) * na * nb * (double)c->k + fabs(c->beta) * nc) * DBL_EPSILON;
    double ratio = err / (den > 0 ? den : DBL_MIN);
    if (!(ratio <= TOL)) {
      ok = 0;
      printf("  FAIL %c%c m %lld n %lld k %lld blocks A %dx%d B %dx%d C %dx%d alpha %g beta %g:"
             " ratio %g\n",
             c->ta, c->tb, (long long)c->m, (long long)c->n, (long long)c->k, c->amb, c->anb,
             c->bmb, c->bnb, c->cmb, c->cnb, c->alpha, c->beta, ratio);
    }
    if (out != NULL) memcpy(out, Gr, (size_t)(c->m * c->n) * sizeof(double));
  } else if (rank == 0 && !ok) {
    printf("  FAIL: hmatmul returned %d (%s)\n", e, hgrid_errmsg(g));
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(Ga), free(Gb), free(Gc), free(Gr);
  hmat_free(&A), hmat_free(&B), hmat_free(&C);
  return ht_all(MPI_COMM_WORLD, ok);
}

static hla_opts alg_opts(int alg, int b) {
  hla_opts o = HLA_OPTS_INIT;
  o.mm_alg = alg;
  o.inner_block = b;
  return o;
}

/* Room for m n results on rank 0 (where run_case leaves them); NULL elsewhere. */
static double *results(int64_t mn) {
  return ht_rank() == 0 ? malloc((size_t)mn * sizeof(double)) : NULL;
}

/* run_case, and the result must be the same bits as rank 0's ref: the number of failures (0, 1
 * or 2, the same on every rank). */
static int run_same(hgrid g, const mcase *c, const hla_opts *o, const double *ref) {
  int64_t mn = c->m * c->n;
  double *got = results(mn);
  int bad = !run_case(g, c, o, got);
  int same = ht_rank() != 0 || memcmp(ref, got, (size_t)mn * sizeof(double)) == 0;
  MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!same && ht_rank() == 0) {
    int M, N;
    hgrid_shape(g, &M, &N, NULL, NULL);
    printf("  %dx%d alg %d b %d groups %dx%d G %d Mo %d bcast %d: not the reference's bits\n", M, N,
           (int)o->mm_alg, o->inner_block, o->groups_row, o->groups_col, o->groups, o->outer_block,
           (int)o->bcast.alg);
  }
  free(got);
  return bad + !same;
}

/* fn on every grid shape M x N = P, counting its failures into *(int *)ctx: none. */
static void on_every_grid(tgrid_fn fn) {
  int bad = 0;
  tgrid_each_world(fn, &bad);
  CU_ASSERT_EQUAL(bad, 0);
}

/* The same on the automatic grid shape of P. */
static void on_auto_grid(tgrid_fn fn) {
  tgrid t = tgrid_world(0, 0);
  int bad = 0;
  fn(&t, &bad);
  CU_ASSERT_EQUAL(bad, 0);
  tgrid_close(&t);
}

/* ---------------------------------------------------------------- SUMMA */

/* Every grid shape, operands in place (blocks agree), sizes not divisible by blocks or P. */
static void summa_grids_on(const tgrid *t, void *bad) {
  int *b = bad;
  hla_opts o = alg_opts(HLA_MM_SUMMA, 4); /* panels of one block: many panels at small sizes */
  hla_report rep;
  o.report = &rep;
  mcase c1 = {'N', 'N', 37, 50, 7, 4, 4, 4, 4, 4, 4, 1.5, 0.5};
  mcase c2 = {'N', 'N', 7, 37, 50, 3, 5, 5, 2, 3, 2, -1.0, 1.0}; /* rectangular blocks */
  *b += !run_case(t->g, &c1, &o, NULL);
  *b += !(rep.mm_alg == HLA_MM_SUMMA && rep.redistributed == 0 && rep.inner_block == 4 &&
          rep.M == t->M && rep.N == t->N);
  o.inner_block = 5;
  *b += !run_case(t->g, &c2, &o, NULL);
  *b += !(rep.redistributed == 0 && rep.inner_block == 5);
}

static void test_summa_grids(void) {
  on_every_grid(summa_grids_on);
}

/* Both transposes (and 't', 'C' spellings), mixed block sizes (remapped), beta = 0 over NaN; on
 * 1 x P and a middle shape. */
static void summa_trans_on(const tgrid *t, void *bad) {
  if (t->shape % (t->nshapes > 2 ? t->nshapes / 2 : 1)) return;
  int *b = bad, P = t->M * t->N;
  hla_opts o = alg_opts(HLA_MM_SUMMA, 0);
  hla_report rep;
  o.report = &rep;
  const char tr[4][2] = {{'N', 'T'}, {'T', 'N'}, {'t', 'C'}, {'n', 'n'}};
  for (int k = 0; k < 4; k++) {
    mcase c = {tr[k][0], tr[k][1], 37, 7, 50, 3, 5, 4, 2, 5, 3, 0.75, k % 2 ? 0.0 : -2.0};
    *b += !run_case(t->g, &c, &o, NULL);
    *b += !(rep.redistributed == (P > 1)); /* one process: a plain dgemm, nothing moves */
  }
}

static void test_summa_trans(void) {
  on_every_grid(summa_trans_on);
}

/* Sizes 0, 1, 7, 37, 50 in every dimension, alpha = 0, k = 0 (C := beta C), and a wide C. */
static void summa_sizes_on(const tgrid *t, void *bad) {
  int *b = bad;
  hla_opts o = alg_opts(HLA_MM_SUMMA, 0);
  const int64_t sz[][3] = {{1, 1, 1},    {1, 50, 7}, {50, 1, 37}, {7, 7, 1},
                           {37, 50, 50}, {7, 37, 0}, {0, 7, 5},   {5, 0, 7}};
  for (int i = 0; i < 8; i++) {
    mcase c = {'N', 'T', sz[i][0], sz[i][1], sz[i][2], 4, 4, 3, 4, 4, 4, 2.0, i % 2 ? 0.0 : 0.5};
    *b += !run_case(t->g, &c, &o, NULL);
  }
  mcase z = {'N', 'N', 37, 7, 50, 4, 4, 4, 4, 4, 4, 0.0, 0.0}; /* alpha = 0: C := 0 */
  *b += !run_case(t->g, &z, &o, NULL);
  /* Wide enough (1024 local columns and more on 2 process columns or fewer) that the update goes
   * in slices (mm_update). */
  mcase w = {'N', 'T', 3, 2100, 5, 4, 4, 4, 4, 4, 4, 1.0, 1.0};
  *b += !run_case(t->g, &w, &o, NULL);
}

static void test_summa_sizes(void) {
  on_auto_grid(summa_sizes_on);
}

/* Panel widths that do not match the blocks: panels cross block boundaries and come in pieces;
 * every broadcast algorithm gives the same bits as the native one. */
static void summa_panels_on(const tgrid *t, void *bad) {
  int *b = bad;
  mcase c = {'N', 'N', 23, 29, 50, 4, 5, 3, 4, 4, 4, 1.0, 1.0}; /* k-blocks 5 (A) and 3 (B) */
  double *ref = results(c.m * c.n);
  const int bs[] = {1, 3, 8, 13, 64};
  for (int i = 0; i < 5; i++) {
    hla_opts o = alg_opts(HLA_MM_SUMMA, bs[i]);
    *b += !run_case(t->g, &c, &o, ref);
    const hbsp_alg algs[] = {HBSP_NATIVE, HBSP_BINOMIAL, HBSP_FLAT, HBSP_PIPELINE,
                             HBSP_SCATTER_ALLGATHER};
    for (int a = 0; a < 5 && i == 2; a++) {
      o.bcast.alg = algs[a];
      o.bcast.segment = 64;
      *b += run_same(t->g, &c, &o, ref);
    }
  }
  free(ref);
}

static void test_summa_panels(void) {
  on_auto_grid(summa_panels_on);
}

/* ---------------------------------------------------------------- HSUMMA */

/* Every group arrangement I x J of every grid shape, Mo = b and Mo = 3b: correct, and bitwise
 * equal to SUMMA with the same b. */
static void hsumma_groups_on(const tgrid *t, void *bad) {
  int *b = bad, M = t->M, N = t->N;
  mcase c = {'N', 'N', 29, 31, 45, 3, 4, 4, 3, 3, 3, 1.25, -0.5};
  double *ref = results(c.m * c.n);
  hla_report rep;
  hla_opts o = alg_opts(HLA_MM_SUMMA, 4);
  *b += !run_case(t->g, &c, &o, ref);
  for (int I = 1; I <= M; I++)
    for (int J = 1; J <= N; J++) {
      if (M % I || N % J) continue;
      for (int mo = 1; mo <= 3; mo += 2) {
        hla_opts h = alg_opts(HLA_MM_HSUMMA, 4);
        h.groups_row = I, h.groups_col = J, h.outer_block = 4 * mo, h.report = &rep;
        *b += run_same(t->g, &c, &h, ref);
        *b += !(rep.mm_alg == HLA_MM_HSUMMA && rep.groups_row == I && rep.groups_col == J &&
                rep.outer_block == 4 * mo && rep.inner_block == 4);
      }
    }
  free(ref);
}

static void test_hsumma_groups(void) {
  on_every_grid(hsumma_groups_on);
}

/* HSUMMA with transposes, remapped operands and opts->groups = G; bitwise equal to SUMMA. */
static void hsumma_trans_on(const tgrid *t, void *bad) {
  int *b = bad, P = ht_size();
  mcase c = {'T', 'T', 17, 23, 40, 5, 2, 3, 3, 4, 2, -1.0, 0.0};
  double *ref = results(c.m * c.n);
  hla_opts o = alg_opts(HLA_MM_SUMMA, 3);
  *b += !run_case(t->g, &c, &o, ref);
  for (int G = 1; G <= P; G++) {
    if (P % G) continue;
    hla_opts h = alg_opts(HLA_MM_HSUMMA, 3);
    h.groups = G, h.outer_block = 6;
    *b += run_same(t->g, &c, &h, ref);
  }
  free(ref);
}

static void test_hsumma_trans(void) {
  on_auto_grid(hsumma_trans_on);
}

/* ---------------------------------------------------------------- 3D */

/* Every replication c dividing M or N, every grid shape (2 x 2 x 2 cubes at P = 8 from the 2 x 4
 * and 4 x 2 grids); c = 1; k not a multiple of c b. */
static void threed_on(const tgrid *t, void *bad) {
  int *b = bad, M = t->M, N = t->N;
  hla_report rep;
  for (int c = 1; c <= M * N; c++) {
    if (M % c && N % c) continue;
    hla_opts o = alg_opts(HLA_MM_3D, 4);
    o.replication = c, o.report = &rep;
    mcase c1 = {'N', 'N', 19, 26, 45, 3, 4, 4, 3, 3, 2, 0.5, 2.0};
    mcase c2 = {'T', 'N', 26, 19, 7, 3, 4, 4, 3, 2, 3, 1.0, 0.0};
    *b += !run_case(t->g, &c1, &o, NULL);
    *b += !(rep.mm_alg == HLA_MM_3D && rep.replication == c);
    *b += !run_case(t->g, &c2, &o, NULL);
  }
}

static void test_3d(void) {
  on_every_grid(threed_on);
}

/* Refusals: a c that divides neither grid dimension (HLA_ERR_ARG), a memory bound too small
 * (HLA_ERR_NOMEM); C untouched. */
static void test_3d_refuse(void) {
  tgrid t = tgrid_world(0, 0);
  int P = ht_size();
  uint64_t s = 7;
  hmat A = ht_mat(t.g, 30, 40, 4, 4, NULL, NULL), B = ht_mat(t.g, 40, 20, 4, 4, NULL, NULL);
  hmat C = ht_mat(t.g, 30, 20, 4, 4, ht_entry, &s);
  hla_opts o = alg_opts(HLA_MM_3D, 4);
  o.replication = P + 1;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hmatmul('N', 'N', 1, A, B, 0, C, &o) == HLA_ERR_ARG));
  if (P > 1) {
    o.replication = t.M > 1 ? t.M : P; /* a 1 x P grid is the default for primes: P divides N */
    o.mem_bound = 100;                 /* bytes */
    CU_ASSERT(ht_all(MPI_COMM_WORLD, hmatmul('N', 'N', 1, A, B, 0, C, &o) == HLA_ERR_NOMEM));
    o.mem_bound = 1e9;
    CU_ASSERT(ht_all(MPI_COMM_WORLD, hmatmul('N', 'N', 1, A, B, 0, C, &o) == HLA_OK));
    hmat_fill(C, ht_entry, &s);
  }
  CU_ASSERT(ht_all(MPI_COMM_WORLD, ht_local_is(C, ht_entry, &s)));
  hmat_free(&A), hmat_free(&B), hmat_free(&C);
  tgrid_close(&t);
}

/* ---------------------------------------------------------------- row-reduce */

/* The row-reduce multiply asked for on every grid: thin and wide C, B in any layout and
 * transposed, ragged sizes, beta = 0 over NaN, k = 0 and sizes 0; the automatic choice takes it
 * for a C of at most one block column on several process columns; op(A) = A^T or A in other row
 * blocks than C's is refused on every rank with one message. */
static void reduce_on(const tgrid *t, void *bad) {
  int *b = bad;
  hla_opts o = alg_opts(HLA_MM_REDUCE, 0);
  hla_report rep;
  o.report = &rep;
  const mcase cs[] = {{'N', 'N', 37, 1, 50, 4, 5, 3, 1, 4, 1, 1.0, 0.0},
                      {'N', 'N', 37, 3, 50, 4, 5, 7, 2, 4, 3, -1.0, 1.0},
                      {'N', 'T', 29, 2, 41, 3, 4, 2, 5, 3, 2, 0.5, -2.0},
                      {'N', 'N', 23, 29, 50, 4, 5, 3, 4, 4, 4, 1.0, 1.0}, /* wide: any n works */
                      {'N', 'T', 7, 5, 0, 4, 4, 4, 4, 4, 4, 2.0, 0.5},    /* k = 0 */
                      {'N', 'N', 0, 3, 9, 4, 4, 4, 4, 4, 4, 1.0, 0.0},
                      {'N', 'N', 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.0, 0.0}};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    *b += !run_case(t->g, &cs[i], &o, NULL);
    if (t->M * t->N > 1 && cs[i].m > 0 && cs[i].k > 0) *b += !(rep.mm_alg == HLA_MM_REDUCE);
  }
  hla_opts a = HLA_OPTS_INIT;
  a.report = &rep;
  mcase thin = {'N', 'N', 45, 2, 33, 5, 3, 4, 2, 5, 2, 1.0, 0.5};
  *b += !run_case(t->g, &thin, &a, NULL);
  *b += !((rep.mm_alg == HLA_MM_REDUCE) == (t->N > 1));
  /* refused: A transposed, or in other row blocks than C's */
  hmat A, B, C;
  hmat_create(t->g, 9, 9, 3, 3, &A), hmat_create(t->g, 9, 1, 3, 1, &B);
  hmat_create(t->g, 9, 1, 4, 1, &C);
  int e1 = hmatmul('T', 'N', 1.0, A, B, 0.0, C, &o), e2 = hmatmul('N', 'N', 1.0, A, B, 0.0, C, &o);
  *b += !(e1 == HLA_ERR_ARG && e2 == HLA_ERR_ARG && ht_same_text(hgrid_errmsg(t->g)));
  hmat_free(&A), hmat_free(&B), hmat_free(&C);
}

static void test_reduce(void) {
  on_every_grid(reduce_on);
}

/* ---------------------------------------------------------------- automatic choice */

static void auto_on(const tgrid *t, void *bad) {
  int *b = bad;
  mcase c1 = {'N', 'N', 37, 29, 21, 4, 4, 4, 4, 4, 4, 1.0, 1.0};
  mcase c2 = {'N', 'T', 9, 7, 90, 4, 4, 4, 4, 4, 4, 1.0, 0.0}; /* k large: 3D when possible */
  *b += !run_case(t->g, &c1, NULL, NULL);
  hla_opts o = HLA_OPTS_INIT;
  hla_report rep;
  o.report = &rep;
  *b += !run_case(t->g, &c1, &o, NULL);
  *b += !(rep.mm_alg >= HLA_MM_SUMMA && rep.mm_alg <= HLA_MM_3D && rep.why[0] != 0 &&
          rep.inner_block == 21 && rep.seconds >= 0); /* widened panel, capped at k */
  *b += !run_case(t->g, &c2, &o, NULL);
  *b += !(rep.why[0] != 0);
}

static void test_auto(void) {
  on_auto_grid(auto_on);
}

/* ---------------------------------------------------------------- bad input */

/* The error code on every rank and C unchanged. */
static int refused(int code, int want, hmat C, uint64_t seed) {
  return ht_all(MPI_COMM_WORLD, code == want && (C == NULL || ht_local_is(C, ht_entry, &seed)));
}

static void test_bad_input(void) {
  tgrid t = tgrid_world(0, 0);
  int P = ht_size();
  hgrid g = t.g, g2;
  CU_ASSERT_EQUAL(hgrid_create(t.world, P, 1, &g2), HLA_OK);
  uint64_t s = 9;
  hmat A = ht_mat(g, 10, 12, 3, 3, NULL, NULL), B = ht_mat(g, 12, 8, 3, 3, NULL, NULL);
  hmat C = ht_mat(g, 10, 8, 3, 3, ht_entry, &s), A2 = ht_mat(g2, 10, 12, 3, 3, NULL, NULL);
  hmat C2 = ht_mat(g, 8, 10, 3, 3, ht_entry, &s);
  hla_opts o = HLA_OPTS_INIT;

  CU_ASSERT(refused(hmatmul('N', 'N', 1, NULL, B, 1, C, NULL), HLA_ERR_ARG, C, s));
  CU_ASSERT(refused(hmatmul('N', 'N', 1, A, NULL, 1, C, NULL), HLA_ERR_ARG, C, s));
  CU_ASSERT(refused(hmatmul('N', 'N', 1, A, B, 1, NULL, NULL), HLA_ERR_ARG, NULL, s));
  CU_ASSERT(refused(hmatmul('X', 'N', 1, A, B, 1, C, NULL), HLA_ERR_ARG, C, s));
  CU_ASSERT(refused(hmatmul('N', 'Q', 1, A, B, 1, C, NULL), HLA_ERR_ARG, C, s));
  CU_ASSERT(refused(hmatmul('T', 'N', 1, A, B, 1, C, NULL), HLA_ERR_DIM, C, s));
  CU_ASSERT(refused(hmatmul('N', 'N', 1, A, B, 1, C2, NULL), HLA_ERR_DIM, C2, s));
  CU_ASSERT(refused(hmatmul('N', 'N', 1, A2, B, 1, C, NULL), HLA_ERR_DIST, C, s));
  CU_ASSERT(refused(hmatmul('N', 'T', 1, C, C, 1, C, NULL), HLA_ERR_ARG, C, s));
  /* One rank passes a NULL operand: still agreed. */
  CU_ASSERT(refused(hmatmul('N', 'N', 1, ht_rank() == P - 1 ? NULL : A, B, 1, C, NULL), HLA_ERR_ARG,
                    C, s));
  /* Arguments that differ between ranks. */
  CU_ASSERT(refused(hmatmul('N', 'N', ht_rank() == 0 ? 2.0 : 1.0, A, B, 1, C, NULL),
                    P > 1 ? HLA_ERR_ARG : HLA_OK, P > 1 ? C : NULL, s));
  hmat_fill(C, ht_entry, &s);
  /* Bad options. */
  o.mm_alg = 7;
  CU_ASSERT(refused(hmatmul('N', 'N', 1, A, B, 1, C, &o), HLA_ERR_ARG, C, s));
  o = (hla_opts)HLA_OPTS_INIT;
  o.mm_alg = HLA_MM_HSUMMA, o.inner_block = 4, o.outer_block = 6;
  CU_ASSERT(refused(hmatmul('N', 'N', 1, A, B, 1, C, &o), HLA_ERR_ARG, C, s));
  o.outer_block = 8, o.groups_row = P + 1;
  CU_ASSERT(refused(hmatmul('N', 'N', 1, A, B, 1, C, &o), HLA_ERR_ARG, C, s));
  o.groups_row = 0, o.groups = P + 1;
  CU_ASSERT(refused(hmatmul('N', 'N', 1, A, B, 1, C, &o), HLA_ERR_ARG, C, s));
  o = (hla_opts)HLA_OPTS_INIT;
  o.inner_block = -1;
  CU_ASSERT(refused(hmatmul('N', 'N', 1, A, B, 1, C, &o), HLA_ERR_ARG, C, s));
  o = (hla_opts)HLA_OPTS_INIT;
  o.mem_bound = -1;
  CU_ASSERT(refused(hmatmul('N', 'N', 1, A, B, 1, C, &o), HLA_ERR_ARG, C, s));

  hmat_free(&A), hmat_free(&B), hmat_free(&C), hmat_free(&A2), hmat_free(&C2);
  hgrid_free(&g2);
  tgrid_close(&t);
}

void hla_test_register(void) {
  HT_SUITE("matmul", test_reduce, test_summa_grids, test_summa_trans, test_summa_sizes,
           test_summa_panels, test_hsumma_groups, test_hsumma_trans, test_3d, test_3d_refuse,
           test_auto, test_bad_input);
}
