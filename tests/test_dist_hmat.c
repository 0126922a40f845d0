/* Tests of block-cyclic matrices: index maps, local sizes, fill, scatter/gather, norms, errors.
 * @procs 1 2 3 4 6 8
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "harness.h"

typedef struct {
  int64_t m, n;
  int mb, nb;
} shape;

/* Sizes 0, 1, smaller than a block, not divisible by the blocks or by P, non-square blocks. */
static const shape shapes[] = {{0, 0, 2, 2},   {0, 5, 2, 3},  {4, 0, 3, 2},    {1, 1, 1, 1},
                               {1, 1, 4, 4},   {3, 2, 4, 5},  {17, 13, 3, 5},  {20, 20, 4, 4},
                               {7, 31, 2, 8},  {33, 9, 1, 1}, {12, 12, 12, 1}, {25, 40, 0, 0},
                               {70, 3, 64, 2}, {9, 11, 5, 0}};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* The pure index maps, against a brute-force enumeration of the cyclic deal. */
static void test_index_maps(void) {
  const int64_t ns[] = {0, 1, 5, 16, 17, 100};
  const int64_t nbs[] = {1, 2, 3, 7, 64};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t b = 0; b < sizeof nbs / sizeof nbs[0]; b++)
      for (int np = 1; np <= 5; np++) {
        int64_t n = ns[a], nb = nbs[b], total = 0;
        int ok = 1;
        int64_t cnt[5] = {0};
        for (int64_t i = 0; i < n; i++) {
          int p = (int)((i / nb) % np); /* block i / nb goes to process (i / nb) mod np */
          ok &= hmat_idx_owner(i, nb, np) == p;
          ok &= hmat_idx_g2l(i, nb, np) == cnt[p];
          ok &= hmat_idx_l2g(cnt[p], nb, p, np) == i;
          cnt[p]++;
        }
        for (int p = 0; p < np; p++) {
          ok &= hmat_numroc(n, nb, p, np) == cnt[p];
          total += hmat_numroc(n, nb, p, np);
        }
        ok &= total == n;
        CU_ASSERT(ok);
      }
}

/* Gathers A on root into G (ldg > m rows; NULL on the other ranks): the random matrix of seed,
 * and the rows below it untouched. */
static void check_gather(hmat A, int root, double *G, int64_t ldg, uint64_t seed) {
  int64_t m, n;
  hmat_size(A, &m, &n);
  if (G)
    for (int64_t k = 0; k < ldg * n; k++) G[k] = -7.0;
  CU_ASSERT_EQUAL(hmat_gather(A, root, G, ldg), HLA_OK);
  if (G) {
    int ok = 1;
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < ldg; i++)
        ok &= G[i + j * ldg] == (i < m ? ht_rand_entry(seed, i, j) : -7.0);
    CU_ASSERT(ok);
  }
}

/* Local sizes, index maps and owners of one matrix, fill + gather = the global function. */
static void check_layout(hgrid g, const shape *s) {
  int M, N, r, c, P = ht_size(), me = ht_rank();
  hgrid_shape(g, &M, &N, &r, &c);
  hmat A = NULL;
  CU_ASSERT_EQUAL(hmat_create(g, s->m, s->n, s->mb, s->nb, &A), HLA_OK);
  if (A == NULL) return;
  int mb, nb;
  int64_t m, n, lld, mloc, nloc;
  double *a;
  hmat_blocks(A, &mb, &nb);
  hmat_size(A, &m, &n);
  CU_ASSERT(m == s->m && n == s->n);
  if (s->mb > 0) CU_ASSERT_EQUAL(mb, s->mb);
  if (s->nb > 0) CU_ASSERT_EQUAL(nb, s->nb);
  if (s->mb == 0 && s->nb == 0) {
    int64_t big = s->m > s->n ? s->m : s->n;
    int64_t want = big < 1 ? 1 : big < HMAT_DEFAULT_BLOCK ? big : HMAT_DEFAULT_BLOCK;
    CU_ASSERT(mb == want && nb == want);
  }
  if (s->mb != 0 && s->nb == 0) CU_ASSERT_EQUAL(nb, s->mb);
  CU_ASSERT(hmat_grid(A) == g);
  CU_ASSERT_EQUAL(hmat_local(A, &a, &lld, &mloc, &nloc), HLA_OK);
  CU_ASSERT(a != NULL);
  CU_ASSERT_EQUAL(lld, mloc > 1 ? mloc : 1);
  int64_t ml2, nl2;
  CU_ASSERT_EQUAL(hmat_local_size(A, r, c, &ml2, &nl2), HLA_OK);
  CU_ASSERT(ml2 == mloc && nl2 == nloc);
  CU_ASSERT_EQUAL(hmat_local_size(A, M, 0, &ml2, &nl2), HLA_ERR_ARG);
  /* local sizes add up to m n over the grid */
  long long mine = (long long)(mloc * nloc), total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CU_ASSERT_EQUAL(total, (long long)(m * n));
  /* index maps round trip, owners are me */
  int ok = 1;
  for (int64_t il = 0; il < mloc; il++) {
    int64_t i = hmat_l2g_row(A, il);
    ok &= i >= 0 && i < m && hmat_g2l_row(A, i) == il;
    int pr = -1, pc = -1;
    for (int64_t jl = 0; jl < nloc; jl++) {
      int64_t j = hmat_l2g_col(A, jl);
      ok &= j >= 0 && j < n && hmat_g2l_col(A, j) == jl;
      ok &= hmat_owner(A, i, j, &pr, &pc) == HLA_OK && pr == r && pc == c;
    }
  }
  ok &= hmat_l2g_row(A, mloc) == -1 && hmat_l2g_col(A, -1) == -1;
  ok &= hmat_g2l_row(A, m) == -1 && hmat_g2l_col(A, n) == -1;
  ok &= hmat_owner(A, m, 0, NULL, NULL) == HLA_ERR_ARG;
  CU_ASSERT(ok);

  /* fill by global indices; gather on the last rank equals the function */
  uint64_t seed = 42;
  CU_ASSERT_EQUAL(hmat_fill(A, ht_entry, &seed), HLA_OK);
  int root = P - 1;
  int64_t ldg = m + 3;
  double *G = me == root ? malloc((size_t)(ldg * (n > 0 ? n : 1)) * sizeof(double)) : NULL;
  check_gather(A, root, G, ldg, seed);

  /* scatter a different matrix from rank 0 (leading dimension m) and gather it back exactly; every
   * rank builds it, for the norms below */
  seed = 7;
  int64_t ldh = m > 1 ? m : 1;
  double *R = malloc((size_t)(ldh * (n > 0 ? n : 1)) * sizeof(double));
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) R[i + j * ldh] = ht_rand_entry(seed, i, j);
  CU_ASSERT_EQUAL(hmat_scatter(A, 0, me == 0 ? R : NULL, ldh), HLA_OK);
  CU_ASSERT(ht_local_is(A, ht_entry, &seed));
  check_gather(A, root, G, ldg, seed);

  /* norms on every rank against LAPACKE on the global matrix */
  const char norms[] = {'1', 'O', 'I', 'F', 'E', 'M', 'm', 'f'};
  for (size_t k = 0; k < sizeof norms; k++) {
    double v = -1.0, ref = 0.0;
    CU_ASSERT_EQUAL(hmat_norm(A, norms[k], &v), HLA_OK);
    if (m > 0 && n > 0)
      ref = LAPACKE_dlange(LAPACK_COL_MAJOR, norms[k], (int)m, (int)n, R, (int)ldh);
    CU_ASSERT(fabs(v - ref) <= 1e-14 * (ref + 1.0) * (double)(m + n + 1));
    /* bitwise the same on every rank */
    double mx = v, mn = v;
    MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    CU_ASSERT(mx == mn);
  }

  /* dup copies, identity sets the diagonal */
  hmat B = NULL;
  CU_ASSERT_EQUAL(hmat_dup(A, &B), HLA_OK);
  double *b;
  int64_t lldb;
  hmat_local(B, &b, &lldb, NULL, NULL);
  CU_ASSERT(b != a && lldb == lld && memcmp(a, b, (size_t)(mloc * nloc) * sizeof(double)) == 0);
  CU_ASSERT_EQUAL(hmat_set(B, 0.0, 1.0), HLA_OK);
  double one = -1.0, fro = -1.0;
  CU_ASSERT_EQUAL(hmat_norm(B, '1', &one), HLA_OK);
  CU_ASSERT_EQUAL(hmat_norm(B, 'F', &fro), HLA_OK);
  int64_t k = m < n ? m : n;
  CU_ASSERT_EQUAL(one, k > 0 ? 1.0 : 0.0);
  CU_ASSERT(fabs(fro - sqrt((double)k)) < 1e-15 * (k + 1));
  hmat_free(&B);
  CU_ASSERT(B == NULL);

  free(G), free(R);
  hmat_free(&A);
}

/* Every matrix shape on one grid. */
static void layouts_on(const tgrid *t, void *ctx) {
  for (size_t k = 0; k < NSHAPES; k++) check_layout(t->g, &shapes[k]);
}

static void test_layouts_every_grid(void) {
  tgrid_each_world(layouts_on, NULL);
}

static double big(int64_t i, int64_t j, void *ctx) {
  return 1e300;
}
static double tiny(int64_t i, int64_t j, void *ctx) {
  return (i + j) % 2 ? 1e-300 : -1e-300;
}
static double nan_at(int64_t i, int64_t j, void *ctx) {
  return i == 5 && j == 3 ? NAN : 1.0;
}

/* Frobenius without overflow or underflow; NaN reaches every rank. */
static void test_norm_extremes(void) {
  tgrid t = tgrid_world(0, 0);
  int64_t m = 13, n = 11;
  hmat A = ht_mat(t.g, m, n, 2, 3, NULL, NULL);
  double v = 0.0;
  hmat_fill(A, big, NULL);
  CU_ASSERT_EQUAL(hmat_norm(A, 'F', &v), HLA_OK);
  CU_ASSERT(isfinite(v) && fabs(v / (1e300 * sqrt((double)(m * n))) - 1.0) < 1e-14);
  CU_ASSERT_EQUAL(hmat_norm(A, 'M', &v), HLA_OK);
  CU_ASSERT_EQUAL(v, 1e300);
  hmat_fill(A, tiny, NULL);
  CU_ASSERT_EQUAL(hmat_norm(A, 'F', &v), HLA_OK);
  CU_ASSERT(fabs(v / (1e-300 * sqrt((double)(m * n))) - 1.0) < 1e-14);
  hmat_fill(A, nan_at, NULL);
  const char norms[] = {'1', 'I', 'F', 'M'};
  for (size_t k = 0; k < sizeof norms; k++) {
    v = 0.0;
    CU_ASSERT_EQUAL(hmat_norm(A, norms[k], &v), HLA_OK);
    CU_ASSERT(isnan(v));
  }
  hmat_free(&A);
  tgrid_close(&t);
}

static void test_bad_input(void) {
  tgrid t = tgrid_world(0, 0);
  int P = ht_size(), me = ht_rank();
  hgrid g = t.g;
  hmat A = (hmat)&t; /* untouched on error */
  CU_ASSERT_EQUAL(hmat_create(g, -1, 5, 2, 2, &A), HLA_ERR_ARG);
  CU_ASSERT(ht_same_text(hgrid_errmsg(g)));
  CU_ASSERT_EQUAL(hmat_create(g, 5, -1, 2, 2, &A), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_create(g, 5, 5, -2, 2, &A), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_create(g, 5, 5, 2, -1, &A), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_create(g, 5 + (me == P - 1), 5, 2, 2, &A), P > 1 ? HLA_ERR_ARG : HLA_OK);
  if (P == 1) hmat_free(&A), A = (hmat)&t;
  CU_ASSERT(ht_same_text(hgrid_errmsg(g)));
  CU_ASSERT_EQUAL(hmat_create(g, 5, 5, 2, 2, me == 0 ? NULL : &A), HLA_ERR_ARG);
  CU_ASSERT(A == (hmat)&t);
  CU_ASSERT_EQUAL(hmat_create(NULL, 5, 5, 2, 2, &A), HLA_ERR_ARG);

  CU_ASSERT_EQUAL(hmat_create(g, 6, 5, 2, 2, &A), HLA_OK);
  double G[30] = {0}, *Groot = me == 0 ? G : NULL;
  CU_ASSERT_EQUAL(hmat_scatter(A, P, Groot, 6), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_scatter(A, -1, Groot, 6), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_scatter(A, 0, NULL, 6), HLA_ERR_ARG);  /* NULL G on the root */
  CU_ASSERT_EQUAL(hmat_scatter(A, 0, Groot, 5), HLA_ERR_ARG); /* ldg < m on the root */
  CU_ASSERT(ht_same_text(hgrid_errmsg(g)));
  CU_ASSERT_EQUAL(hmat_gather(A, 0, NULL, 6), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_gather(A, 0, G, 0), HLA_ERR_ARG);
  if (P > 1) CU_ASSERT_EQUAL(hmat_gather(A, me, G, 6), HLA_ERR_ARG); /* root differs */
  /* nothing was written by the failed calls */
  double *a;
  int64_t mloc, nloc;
  hmat_local(A, &a, NULL, &mloc, &nloc);
  int zero = 1;
  for (int64_t k = 0; k < mloc * nloc; k++) zero &= a[k] == 0.0;
  CU_ASSERT(zero);
  double v = 5.0;
  CU_ASSERT_EQUAL(hmat_norm(A, 'X', &v), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_norm(A, 'F', me == 0 ? NULL : &v), HLA_ERR_ARG);
  if (P > 1) CU_ASSERT_EQUAL(hmat_norm(A, me == 0 ? 'F' : 'M', &v), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(v, 5.0);
  CU_ASSERT_EQUAL(hmat_norm(NULL, 'F', &v), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_fill(A, NULL, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_fill(NULL, ht_entry, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_local(NULL, NULL, NULL, NULL, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_scatter(NULL, 0, G, 6), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_dup(NULL, &A), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_l2g_row(NULL, 0), -1);
  CU_ASSERT(hmat_grid(NULL) == NULL);
  CU_ASSERT_EQUAL(hmat_free(NULL), HLA_OK);
  /* the grid still works after all that */
  uint64_t seed = 3;
  hmat_fill(A, ht_entry, &seed);
  CU_ASSERT_EQUAL(hmat_gather(A, 0, Groot, 6), HLA_OK);
  if (me == 0) CU_ASSERT_EQUAL(G[4 + 3 * 6], ht_rand_entry(3, 4, 3));
  hmat_free(&A);
  tgrid_close(&t); /* asserts that the grid frees */
}

void hla_test_register(void) {
  HT_SUITE("dist_hmat", test_index_maps, test_layouts_every_grid, test_norm_extremes,
           test_bad_input);
}
