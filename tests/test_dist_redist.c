/* Tests of hmat_redistribute: exact round trips between block sizes and grids over the same ranks.
 * @procs 1 2 3 4 6 8
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static double entry(int64_t i, int64_t j, void *ctx) {
  return ht_rand_entry(*(uint64_t *)ctx, i, j);
}

/* Every local entry of A equals the generator's (i, j) entry; the same verdict on every rank. */
static int holds(hmat A, uint64_t seed) {
  double *a;
  int64_t lld, mloc, nloc;
  hmat_local(A, &a, &lld, &mloc, &nloc);
  int ok = 1;
  for (int64_t jl = 0; jl < nloc; jl++)
    for (int64_t il = 0; il < mloc; il++)
      ok &= a[il + jl * lld] == ht_rand_entry(seed, hmat_l2g_row(A, il), hmat_l2g_col(A, jl));
  return ht_all(MPI_COMM_WORLD, ok);
}

typedef struct {
  hgrid g;
  int mb, nb;
} layout;

#define MAXL 40

/* Grids: every factorisation of P, plus a 1 x P grid over a reversed twin of the world (same
 * ranks, another order). Blocks: square, non-square, 1 x 1, larger than the matrix. */
static int make_layouts(hbsp_env w, hbsp_env twin, hgrid *grids, int *ng, layout *L) {
  int P = hbsp_size(w), nl = 0;
  *ng = 0;
  for (int M = 1; M <= P; M++)
    if (P % M == 0) hgrid_create(w, M, P / M, &grids[(*ng)++]);
  hgrid_create(twin, 1, P, &grids[(*ng)++]);
  const int blocks[][2] = {{2, 3}, {4, 4}, {1, 1}, {5, 2}, {64, 64}};
  for (int k = 0; k < *ng; k++)
    for (int b = 0; b < 5; b++) {
      if ((k + b) % 2 && b != 0) continue; /* keep the pair count modest */
      L[nl++] = (layout){grids[k], blocks[b][0], blocks[b][1]};
    }
  return nl;
}

static void test_all_pairs(void) {
  hbsp_env w, twin;
  hbsp_init(MPI_COMM_WORLD, &w);
  int P = hbsp_size(w);
  hbsp_reorder(w, P - hbsp_rank(w), &twin);
  hgrid grids[16];
  layout L[MAXL];
  int ng, nl = make_layouts(w, twin, grids, &ng, L);
  const int64_t m = 17, n = 13;
  uint64_t seed = 11;
  int bad = 0;
  for (int s = 0; s < nl; s++) {
    hmat A, B, C;
    hmat_create(L[s].g, m, n, L[s].mb, L[s].nb, &A);
    hmat_create(L[s].g, m, n, L[s].mb, L[s].nb, &C);
    hmat_fill(A, entry, &seed);
    for (int d = 0; d < nl; d++) {
      hmat_create(L[d].g, m, n, L[d].mb, L[d].nb, &B);
      int e1 = hmat_redistribute(A, B);
      int ok1 = holds(B, seed);
      int e2 = hmat_redistribute(B, C); /* and back */
      int ok2 = holds(C, seed);
      if (e1 != HLA_OK || e2 != HLA_OK || !ok1 || !ok2) bad++;
      hmat_free(&B);
    }
    hmat_free(&A);
    hmat_free(&C);
  }
  CU_ASSERT_EQUAL(bad, 0);
  for (int k = 0; k < ng; k++) hgrid_free(&grids[k]);
  hbsp_free(&twin);
  hbsp_free(&w);
}

/* A chain through every layout for other sizes, then back to the start, compared with ==. */
static void test_chains(void) {
  hbsp_env w, twin;
  hbsp_init(MPI_COMM_WORLD, &w);
  int P = hbsp_size(w);
  hbsp_reorder(w, P - hbsp_rank(w), &twin);
  hgrid grids[16];
  layout L[MAXL];
  int ng, nl = make_layouts(w, twin, grids, &ng, L);
  const int64_t sizes[][2] = {{0, 0}, {0, 4}, {1, 1}, {3, 5}, {40, 23}, {9, 1}};
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    int64_t m = sizes[t][0], n = sizes[t][1];
    uint64_t seed = 100 + t;
    hmat A, cur, next;
    hmat_create(L[0].g, m, n, L[0].mb, L[0].nb, &A);
    hmat_fill(A, entry, &seed);
    hmat_dup(A, &cur);
    int bad = 0;
    for (int k = 1; k <= nl; k++) {
      layout *l = &L[k % nl];
      hmat_create(l->g, m, n, l->mb, l->nb, &next);
      bad += hmat_redistribute(cur, next) != HLA_OK;
      bad += !holds(next, seed);
      hmat_free(&cur);
      cur = next;
    }
    /* back at L[0]: bitwise equal to the start */
    double *a, *c;
    int64_t mloc, nloc;
    hmat_local(A, &a, NULL, &mloc, &nloc);
    hmat_local(cur, &c, NULL, NULL, NULL);
    bad += !ht_all(MPI_COMM_WORLD, memcmp(a, c, (size_t)(mloc * nloc) * sizeof(double)) == 0);
    CU_ASSERT_EQUAL(bad, 0);
    hmat_free(&A);
    hmat_free(&cur);
  }
  for (int k = 0; k < ng; k++) hgrid_free(&grids[k]);
  hbsp_free(&twin);
  hbsp_free(&w);
}

/* 1 x P <-> P x 1, row blocks to column blocks: the case with the most traffic. */
static void test_row_to_column(void) {
  hbsp_env w;
  hbsp_init(MPI_COMM_WORLD, &w);
  int P = hbsp_size(w);
  hgrid g1, g2;
  hgrid_create(w, 1, P, &g1);
  hgrid_create(w, P, 1, &g2);
  hmat A, B, C;
  uint64_t seed = 5;
  hmat_create(g1, 30, 31, 30, 1, &A); /* each rank a set of whole columns */
  hmat_create(g2, 30, 31, 1, 31, &B); /* each rank a set of whole rows */
  hmat_create(g1, 30, 31, 30, 1, &C);
  hmat_fill(A, entry, &seed);
  CU_ASSERT_EQUAL(hmat_redistribute(A, B), HLA_OK);
  CU_ASSERT(holds(B, seed));
  CU_ASSERT_EQUAL(hmat_redistribute(B, C), HLA_OK);
  CU_ASSERT(holds(C, seed));
  /* same layout on the same grid: a local copy; src == dst: nothing */
  hmat D;
  hmat_create(g1, 30, 31, 30, 1, &D);
  CU_ASSERT_EQUAL(hmat_redistribute(C, D), HLA_OK);
  CU_ASSERT(holds(D, seed));
  CU_ASSERT_EQUAL(hmat_redistribute(D, D), HLA_OK);
  CU_ASSERT(holds(D, seed));
  hmat_free(&A), hmat_free(&B), hmat_free(&C), hmat_free(&D);
  hgrid_free(&g1), hgrid_free(&g2);
  hbsp_free(&w);
}

static void test_errors(void) {
  hbsp_env w, half;
  hbsp_init(MPI_COMM_WORLD, &w);
  int P = hbsp_size(w), s = hbsp_rank(w);
  hgrid g;
  hgrid_create(w, 0, 0, &g);
  hmat A, B;
  uint64_t seed = 9;
  hmat_create(g, 10, 10, 3, 3, &A);
  hmat_create(g, 10, 11, 3, 3, &B);
  hmat_fill(A, entry, &seed);
  CU_ASSERT_EQUAL(hmat_redistribute(A, B), HLA_ERR_DIM);
  CU_ASSERT_EQUAL(hmat_redistribute(B, A), HLA_ERR_DIM);
  CU_ASSERT(holds(A, seed)); /* untouched */
  CU_ASSERT_EQUAL(hmat_redistribute(NULL, A), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_redistribute(A, NULL), HLA_ERR_ARG);
  hmat_free(&B);
  if (P > 1) {
    /* a grid over half of the ranks is not over the same ranks */
    hbsp_split(w, s < P / 2, s, &half);
    hgrid gh;
    hgrid_create(half, 0, 0, &gh);
    hmat_create(gh, 10, 10, 2, 2, &B);
    CU_ASSERT_EQUAL(hmat_redistribute(A, B), HLA_ERR_DIST);
    hmat_free(&B);
    hgrid_free(&gh);
    hbsp_free(&half);
  }
  CU_ASSERT(holds(A, seed));
  hmat_free(&A);
  hgrid_free(&g);
  hbsp_free(&w);
}

void hla_test_register(void) {
  CU_pSuite s = CU_add_suite("dist_redist", NULL, NULL);
  HT_ADD(s, test_all_pairs);
  HT_ADD(s, test_chains);
  HT_ADD(s, test_row_to_column);
  HT_ADD(s, test_errors);
}
