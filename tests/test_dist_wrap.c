/* Matrices over the caller's own arrays (hmat_wrap, ScaLAPACK's descriptors: any source process,
 * a longer leading dimension), grids in column-major order (hgrid_create_order), copies of parts
 * (hmat_redistribute_part), and the operations on wrapped matrices, against an independent
 * computation of ScaLAPACK's index maps in this file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static const uint64_t seed = 77;

/* ScaLAPACK's NUMROC and INDXL2G with a source process, written out here again on purpose. */
static int64_t numroc(int64_t n, int nb, int p, int src, int np) {
  int64_t cnt = 0;
  for (int64_t b = 0; b * nb < n; b++)
    if ((b + src) % np == p) cnt += (n - b * nb < nb ? n - b * nb : nb);
  return cnt;
}
static int64_t l2g(int64_t l, int nb, int p, int src, int np) {
  int d = (p - src + np) % np;
  return (l / nb * np + d) * nb + l % nb;
}

/* A wrapped m x n matrix of entries ht_entry(seed) on g: its array has lld = local rows + pad,
 * the padding full of a sentinel. */
typedef struct {
  hmat A;
  double *a;
  int64_t mloc, nloc, lld;
} wrapped;

static const double sentinel = -12345.5;

static wrapped wrap(hgrid g, int64_t m, int64_t n, int mb, int nb, int rs, int cs, int pad) {
  int M, N, r, c;
  hgrid_shape(g, &M, &N, &r, &c);
  wrapped w;
  w.mloc = numroc(m, mb, r, rs, M), w.nloc = numroc(n, nb, c, cs, N);
  w.lld = (w.mloc > 1 ? w.mloc : 1) + pad;
  w.a = malloc((size_t)(w.lld * (w.nloc > 0 ? w.nloc : 1)) * sizeof *w.a);
  for (int64_t j = 0; j < w.nloc; j++)
    for (int64_t i = 0; i < w.lld; i++)
      w.a[i + j * w.lld] =
          i < w.mloc ? ht_rand_entry(seed, l2g(i, mb, r, rs, M), l2g(j, nb, c, cs, N)) : sentinel;
  CU_ASSERT_EQUAL(hmat_wrap(g, m, n, mb, nb, rs, cs, w.a, w.lld, &w.A), HLA_OK);
  return w;
}

static int padding_intact(const wrapped *w) {
  for (int64_t j = 0; j < w->nloc; j++)
    for (int64_t i = w->mloc; i < w->lld; i++)
      if (w->a[i + j * w->lld] != sentinel) return 0;
  return 1;
}

static void unwrap(wrapped *w) {
  hmat_free(&w->A);
  free(w->a);
}

/* Wrapped matrices read as the same global matrix, whatever the source process and padding:
 * gathered, copied into hla's layout, filled, and local index maps. */
static void on_grid_wrap(const tgrid *t, void *ctx) {
  (void)ctx;
  int M = t->M, N = t->N;
  const int64_t m = 23, n = 17;
  hmat S = ht_mat(t->g, m, n, 4, 3, ht_entry, (void *)&seed);
  double *want = ht_gather(S);
  for (int rs = 0; rs < M; rs++)
    for (int cs = 0; cs < N; cs++) {
      wrapped w = wrap(t->g, m, n, 3 + rs, 2 + cs, rs, cs, 2);
      CU_ASSERT(ht_local_is(w.A, ht_entry, (void *)&seed));
      double *got = ht_gather(w.A);
      if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(got, want, m * n), 0);
      free(got);
      hmat D = ht_mat(t->g, m, n, 5, 5, NULL, NULL);
      CU_ASSERT_EQUAL(hmat_redistribute(w.A, D), HLA_OK);
      CU_ASSERT(ht_local_is(D, ht_entry, (void *)&seed));
      CU_ASSERT_EQUAL(hmat_set(w.A, 0.0, 0.0), HLA_OK); /* into the wrapped array, then back */
      CU_ASSERT_EQUAL(hmat_redistribute(D, w.A), HLA_OK);
      CU_ASSERT(ht_local_is(w.A, ht_entry, (void *)&seed));
      CU_ASSERT(padding_intact(&w));
      double f1, f2;
      CU_ASSERT(hmat_norm(w.A, 'F', &f1) == HLA_OK && hmat_norm(S, 'F', &f2) == HLA_OK);
      CU_ASSERT_DOUBLE_EQUAL(f1, f2, 1e-12 * f2);
      int pr, pc;
      CU_ASSERT_EQUAL(hmat_owner(w.A, 0, 0, &pr, &pc), HLA_OK);
      CU_ASSERT(pr == rs && pc == cs);
      hmat_free(&D);
      unwrap(&w);
    }
  hmat_free(&S);
  free(want);
}

static void test_wrap(void) {
  tgrid_each(on_grid_wrap, NULL);
}

/* Bad wrapping: every rank gets the error. */
static void test_wrap_bad(void) {
  tgrid t = tgrid_world(0, 0);
  double a[4];
  hmat A = NULL;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hmat_wrap(t.g, 8, 8, 2, 2, t.M, 0, a, 8, &A) == HLA_ERR_ARG));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hmat_wrap(t.g, 8, 8, 2, 2, 0, 0, a, 1, &A) == HLA_ERR_ARG ||
                                       t.M * t.N == 8)); /* lld < local rows unless one row each */
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hmat_wrap(t.g, 8, 8, 0, 2, 0, 0, a, 8, &A) == HLA_ERR_ARG));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hmat_wrap(t.g, 8, 8, 2, 2, 0, 0, NULL, 8, &A) == HLA_ERR_ARG));
  CU_ASSERT_PTR_NULL(A);
  tgrid_close(&t);
}

/* hgrid_create_order: 'C' puts rank r at (r % M, r / M); ALL stays row-major. */
static void test_order(void) {
  hbsp_env w = ht_world();
  int P = hbsp_size(w), r = hbsp_rank(w), shapes[TGRID_MAXSHAPES][2];
  int ns = tgrid_factors(P, shapes);
  for (int s = 0; s < ns; s++) {
    int M = shapes[s][0], N = shapes[s][1], pr, pc;
    hgrid g;
    CU_ASSERT_EQUAL_FATAL(hgrid_create_order(w, M, N, 'C', &g), HLA_OK);
    hgrid_shape(g, NULL, NULL, &pr, &pc);
    CU_ASSERT(pr == r % M && pc == r / M);
    hbsp_env all;
    hgrid_env(g, HGRID_ALL, &all);
    CU_ASSERT_EQUAL(hbsp_rank(all), pr * N + pc);
    /* a matrix on it is the same global matrix as on a row-major grid */
    hmat A = ht_mat(g, 19, 11, 3, 2, ht_entry, (void *)&seed);
    double *got = ht_gather(A);
    hgrid g2;
    CU_ASSERT_EQUAL_FATAL(hgrid_create(w, M, N, &g2), HLA_OK);
    hmat B = ht_mat(g2, 19, 11, 2, 5, NULL, NULL);
    CU_ASSERT_EQUAL(hmat_redistribute(A, B), HLA_OK); /* the same ranks in another order */
    CU_ASSERT(ht_local_is(B, ht_entry, (void *)&seed));
    hmat_free(&A), hmat_free(&B);
    free(got);
    hgrid_free(&g2);
    hgrid_free(&g);
  }
  hgrid g = NULL;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hgrid_create_order(w, 1, P, 'X', &g) == HLA_ERR_ARG));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hgrid_create_order(w, 0, 0, 'C', &g) == HLA_ERR_ARG));
  hbsp_free(&w);
}

/* hmat_redistribute_part: parts between layouts land where they should, the rest untouched. */
static double other(int64_t i, int64_t j, void *ctx) {
  (void)ctx;
  return 1000.0 + (double)i - 0.25 * (double)j;
}

static void on_grid_part(const tgrid *t, void *ctx) {
  (void)ctx;
  const int64_t m = 21, n = 14;
  hmat S = ht_mat(t->g, m, n, 4, 3, ht_entry, (void *)&seed);
  wrapped w = wrap(t->g, 30, 25, 5, 2, t->M - 1, 0, 1);
  hmat_fill(w.A, other, NULL);
  int64_t si = 3, sj = 2, di = 7, dj = 9, pm = 15, pn = 11;
  CU_ASSERT_EQUAL(hmat_redistribute_part(S, si, sj, w.A, di, dj, pm, pn), HLA_OK);
  double *got = ht_gather(w.A);
  if (t->rank == 0) {
    int64_t bad = 0;
    for (int64_t j = 0; j < 25; j++)
      for (int64_t i = 0; i < 30; i++) {
        int in = i >= di && i < di + pm && j >= dj && j < dj + pn;
        double v = in ? ht_rand_entry(seed, i - di + si, j - dj + sj) : other(i, j, NULL);
        bad += got[i + j * 30] != v;
      }
    CU_ASSERT_EQUAL(bad, 0);
  }
  free(got);
  CU_ASSERT(padding_intact(&w));
  /* outside either matrix: an error on every rank, nothing written */
  hbsp_env all;
  hgrid_env(t->g, HGRID_ALL, &all);
  CU_ASSERT(
      ht_all(hbsp_comm(all), hmat_redistribute_part(S, 10, 0, w.A, 0, 0, 12, 3) == HLA_ERR_DIM));
  hmat_free(&S);
  unwrap(&w);
}

static void test_part(void) {
  tgrid_each(on_grid_part, NULL);
}

/* The operations on wrapped matrices with the first block elsewhere give what they give on hla's
 * own layout (multiply: the same bits; LU: the same factors and pivots). */
static double dominant(int64_t i, int64_t j, void *ctx) {
  (void)ctx;
  return (i == j ? 4.0 : 0.0) + ht_rand_entry(seed + 1, i, j);
}

static void on_grid_ops(const tgrid *t, void *ctx) {
  (void)ctx;
  const int64_t n = 26;
  int rs = t->M - 1, cs = t->N > 1 ? 1 : 0;
  /* multiply: C wrapped (first block at (rs, cs)), A wrapped, B hla's */
  wrapped wa = wrap(t->g, n, n, 4, 4, rs, cs, 0), wc = wrap(t->g, n, n, 4, 4, rs, cs, 3);
  hmat B = ht_mat(t->g, n, n, 4, 4, dominant, NULL), A = ht_mat(t->g, n, n, 4, 4, NULL, NULL);
  hmat C = ht_mat(t->g, n, n, 4, 4, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_redistribute(wa.A, A), HLA_OK);
  CU_ASSERT_EQUAL(hmatmul('N', 'T', 1.5, wa.A, B, 0.0, wc.A, NULL), HLA_OK);
  CU_ASSERT_EQUAL(hmatmul('N', 'T', 1.5, A, B, 0.0, C, NULL), HLA_OK);
  double *g1 = ht_gather(wc.A), *g2 = ht_gather(C);
  if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(g1, g2, n * n), 0);
  free(g1), free(g2);
  CU_ASSERT(padding_intact(&wc));
  /* the row-reduce multiply of a thin C (n <= its block): B wrapped with its first block
   * elsewhere, A in place */
  wrapped wx = wrap(t->g, n, 3, 4, 3, rs, cs, 2);
  hmat Y1 = ht_mat(t->g, n, 3, 4, 3, NULL, NULL), Y2 = ht_mat(t->g, n, 3, 4, 3, NULL, NULL);
  hmat X3 = ht_mat(t->g, n, 3, 4, 3, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_redistribute(wx.A, X3), HLA_OK);
  hla_opts o = HLA_OPTS_INIT;
  o.mm_alg = HLA_MM_REDUCE;
  CU_ASSERT_EQUAL(hmatmul('N', 'N', 1.5, A, wx.A, 0.0, Y1, &o), HLA_OK);
  o.mm_alg = HLA_MM_SUMMA;
  CU_ASSERT_EQUAL(hmatmul('N', 'N', 1.5, A, X3, 0.0, Y2, &o), HLA_OK);
  g1 = ht_gather(Y1), g2 = ht_gather(Y2);
  if (t->rank == 0)
    for (int64_t i = 0; i < n * 3; i++) CU_ASSERT(fabs(g1[i] - g2[i]) <= 1e-12 * (1 + fabs(g2[i])));
  free(g1), free(g2);
  CU_ASSERT(padding_intact(&wx));
  hmat_free(&Y1), hmat_free(&Y2), hmat_free(&X3);
  unwrap(&wx);
  /* LU and solve */
  wrapped wl = wrap(t->g, n, n, 3, 3, rs, cs, 1), wb = wrap(t->g, n, 2, 3, 2, rs, 0, 2);
  hmat_fill(wl.A, dominant, NULL);
  hmat L = ht_mat(t->g, n, n, 3, 3, dominant, NULL), X = ht_mat(t->g, n, 2, 3, 2, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_redistribute(wb.A, X), HLA_OK);
  int64_t *p1 = calloc(n, sizeof *p1), *p2 = calloc(n, sizeof *p2);
  CU_ASSERT_EQUAL(hla_gesv(wl.A, p1, wb.A, NULL), HLA_OK);
  CU_ASSERT_EQUAL(hla_gesv(L, p2, X, NULL), HLA_OK);
  CU_ASSERT_EQUAL(memcmp(p1, p2, n * sizeof *p1), 0);
  g1 = ht_gather(wl.A), g2 = ht_gather(L);
  if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(g1, g2, n * n), 0);
  free(g1), free(g2);
  g1 = ht_gather(wb.A), g2 = ht_gather(X);
  if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(g1, g2, n * 2), 0);
  free(g1), free(g2);
  CU_ASSERT(padding_intact(&wl) && padding_intact(&wb));
  free(p1), free(p2);
  hmat_free(&A), hmat_free(&B), hmat_free(&C), hmat_free(&L), hmat_free(&X);
  unwrap(&wa), unwrap(&wc), unwrap(&wl), unwrap(&wb);
}

static void test_ops(void) {
  tgrid_each(on_grid_ops, NULL);
}

void hla_test_register(void) {
  HT_SUITE("dist_wrap", test_wrap, test_wrap_bad, test_order, test_part, test_ops);
}
