/* Tests of hmat_redistribute: exact round trips between block sizes and grids over the same ranks.
 * @procs 1 2 3 4 6 8
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"

/* Every local entry of A equals the generator's (i, j) entry; the same verdict on every rank. */
static int holds(hmat A, uint64_t seed) {
  return ht_all(MPI_COMM_WORLD, ht_local_is(A, ht_entry, &seed));
}

typedef struct {
  hgrid g;
  int mb, nb;
} layout;

#define MAXL 40

/* Grids: every factorisation of P, plus a 1 x P grid over a reversed twin of the world (same
 * ranks, another order). Blocks: square, non-square, 1 x 1, larger than the matrix. */
typedef struct {
  hbsp_env w, twin;
  hgrid grids[TGRID_MAXSHAPES + 1];
  int ng, nl;
  layout L[MAXL];
} layouts;

static void layouts_open(layouts *x) {
  x->w = ht_world();
  int P = hbsp_size(x->w), shapes[TGRID_MAXSHAPES][2], ns = tgrid_factors(P, shapes);
  hbsp_reorder(x->w, P - hbsp_rank(x->w), &x->twin);
  x->ng = 0, x->nl = 0;
  for (int s = 0; s < ns; s++) hgrid_create(x->w, shapes[s][0], shapes[s][1], &x->grids[x->ng++]);
  hgrid_create(x->twin, 1, P, &x->grids[x->ng++]);
  const int blocks[][2] = {{2, 3}, {4, 4}, {1, 1}, {5, 2}, {64, 64}};
  for (int k = 0; k < x->ng; k++)
    for (int b = 0; b < 5; b++) {
      if ((k + b) % 2 && b != 0) continue; /* keep the pair count modest */
      x->L[x->nl++] = (layout){x->grids[k], blocks[b][0], blocks[b][1]};
    }
}

static void layouts_close(layouts *x) {
  for (int k = 0; k < x->ng; k++) hgrid_free(&x->grids[k]);
  hbsp_free(&x->twin);
  hbsp_free(&x->w);
}

/* An m x n matrix in layout l (entries of seed unless seed is NULL). */
static hmat in_layout(const layout *l, int64_t m, int64_t n, uint64_t *seed) {
  return ht_mat(l->g, m, n, l->mb, l->nb, seed ? ht_entry : NULL, seed);
}

/* From every layout to every layout and back. */
static void test_all_pairs(void) {
  layouts x;
  layouts_open(&x);
  const int64_t m = 17, n = 13;
  uint64_t seed = 11;
  int bad = 0;
  for (int s = 0; s < x.nl; s++) {
    hmat A = in_layout(&x.L[s], m, n, &seed), C = in_layout(&x.L[s], m, n, NULL);
    for (int d = 0; d < x.nl; d++) {
      hmat B = in_layout(&x.L[d], m, n, NULL);
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
  layouts_close(&x);
}

/* A chain through every layout for other sizes, then back to the start, compared with ==. */
static void test_chains(void) {
  layouts x;
  layouts_open(&x);
  const int64_t sizes[][2] = {{0, 0}, {0, 4}, {1, 1}, {3, 5}, {40, 23}, {9, 1}};
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    int64_t m = sizes[t][0], n = sizes[t][1];
    uint64_t seed = 100 + t;
    hmat A = in_layout(&x.L[0], m, n, &seed), cur;
    hmat_dup(A, &cur);
    int bad = 0;
    for (int k = 1; k <= x.nl; k++) {
      hmat next = in_layout(&x.L[k % x.nl], m, n, NULL);
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
  layouts_close(&x);
}

/* 1 x P <-> P x 1, row blocks to column blocks: the case with the most traffic. */
static void test_row_to_column(void) {
  tgrid t = tgrid_world(1, ht_size());
  hgrid g1 = t.g, g2;
  CU_ASSERT_EQUAL(hgrid_create(t.world, ht_size(), 1, &g2), HLA_OK);
  uint64_t seed = 5;
  hmat A = ht_mat(g1, 30, 31, 30, 1, ht_entry, &seed); /* each rank a set of whole columns */
  hmat B = ht_mat(g2, 30, 31, 1, 31, NULL, NULL);      /* each rank a set of whole rows */
  hmat C = ht_mat(g1, 30, 31, 30, 1, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_redistribute(A, B), HLA_OK);
  CU_ASSERT(holds(B, seed));
  CU_ASSERT_EQUAL(hmat_redistribute(B, C), HLA_OK);
  CU_ASSERT(holds(C, seed));
  /* same layout on the same grid: a local copy; src == dst: nothing */
  hmat D = ht_mat(g1, 30, 31, 30, 1, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_redistribute(C, D), HLA_OK);
  CU_ASSERT(holds(D, seed));
  CU_ASSERT_EQUAL(hmat_redistribute(D, D), HLA_OK);
  CU_ASSERT(holds(D, seed));
  hmat_free(&A), hmat_free(&B), hmat_free(&C), hmat_free(&D);
  hgrid_free(&g2);
  tgrid_close(&t);
}

static void test_errors(void) {
  tgrid t = tgrid_world(0, 0);
  int P = ht_size(), s = ht_rank();
  uint64_t seed = 9;
  hmat A = ht_mat(t.g, 10, 10, 3, 3, ht_entry, &seed), B = ht_mat(t.g, 10, 11, 3, 3, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_redistribute(A, B), HLA_ERR_DIM);
  CU_ASSERT_EQUAL(hmat_redistribute(B, A), HLA_ERR_DIM);
  CU_ASSERT(holds(A, seed)); /* untouched */
  CU_ASSERT_EQUAL(hmat_redistribute(NULL, A), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_redistribute(A, NULL), HLA_ERR_ARG);
  hmat_free(&B);
  if (P > 1) {
    /* a grid over half of the ranks is not over the same ranks */
    hbsp_env half;
    hbsp_split(t.world, s < P / 2, s, &half);
    hgrid gh;
    hgrid_create(half, 0, 0, &gh);
    B = ht_mat(gh, 10, 10, 2, 2, NULL, NULL);
    CU_ASSERT_EQUAL(hmat_redistribute(A, B), HLA_ERR_DIST);
    hmat_free(&B);
    hgrid_free(&gh);
    hbsp_free(&half);
  }
  CU_ASSERT(holds(A, seed));
  hmat_free(&A);
  tgrid_close(&t);
}

void hla_test_register(void) {
  HT_SUITE("dist_redist", test_all_pairs, test_chains, test_row_to_column, test_errors);
}
