/* Tests of process grids: every shape of P, row/column environments, node level, errors.
 * @procs 1 2 3 4 6 8
 */
#include <stdlib.h>
#include <string.h>
#include "dist/layout/layout_impl.h"
#include "harness.h"

/* Shape, coordinates, environment sizes and ranks, and traffic along rows and columns. */
static void check_grid(hbsp_env w, int M, int N) {
  int P = hbsp_size(w), s = hbsp_rank(w);
  hgrid g = NULL;
  CU_ASSERT_EQUAL(hgrid_create(w, M, N, &g), HLA_OK);
  if (g == NULL) return;
  int gM, gN, r, c;
  CU_ASSERT_EQUAL(hgrid_shape(g, &gM, &gN, &r, &c), HLA_OK);
  CU_ASSERT(gM == M && gN == N);
  CU_ASSERT(r == s / N && c == s % N); /* row-major */
  CU_ASSERT_EQUAL(hgrid_rank(g, r, c), s);
  CU_ASSERT_EQUAL(hgrid_rank(g, M, 0), -1);
  int pr = -1, pc = -1;
  CU_ASSERT_EQUAL(hgrid_coords(g, P - 1, &pr, &pc), HLA_OK);
  CU_ASSERT(pr == M - 1 && pc == N - 1);
  CU_ASSERT_EQUAL(hgrid_coords(g, P, &pr, &pc), HLA_ERR_ARG);

  hbsp_env all, row, col;
  CU_ASSERT_EQUAL(hgrid_env(g, HGRID_ALL, &all), HLA_OK);
  CU_ASSERT_EQUAL(hgrid_env(g, HGRID_ROW, &row), HLA_OK);
  CU_ASSERT_EQUAL(hgrid_env(g, HGRID_COL, &col), HLA_OK);
  CU_ASSERT(all != w); /* the grid's own twin */
  CU_ASSERT(hbsp_size(all) == P && hbsp_rank(all) == s);
  CU_ASSERT(hbsp_size(row) == N && hbsp_rank(row) == c);
  CU_ASSERT(hbsp_size(col) == M && hbsp_rank(col) == r);

  /* A broadcast along my row from its first member brings that member's world rank. */
  int v = s;
  CU_ASSERT_EQUAL(hbsp_bcast(row, &v, sizeof v, 0, NULL), HLA_OK);
  CU_ASSERT_EQUAL(v, r * N);
  v = s;
  CU_ASSERT_EQUAL(hbsp_bcast(col, &v, sizeof v, M - 1, NULL), HLA_OK);
  CU_ASSERT_EQUAL(v, (M - 1) * N + c);

  /* A put to my right neighbour in the row and my lower neighbour in the column. */
  int from_left = -1, from_up = -1;
  hbsp_push_reg(row, &from_left, sizeof from_left);
  hbsp_push_reg(col, &from_up, sizeof from_up);
  CU_ASSERT_EQUAL(hbsp_sync(row), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(col), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_put(row, (c + 1) % N, &s, &from_left, 0, sizeof s), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_put(col, (r + 1) % M, &s, &from_up, 0, sizeof s), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(row), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(col), HLA_OK);
  CU_ASSERT_EQUAL(from_left, r * N + (c + N - 1) % N);
  CU_ASSERT_EQUAL(from_up, ((r + M - 1) % M) * N + c);
  hbsp_pop_reg(row, &from_left);
  hbsp_pop_reg(col, &from_up);
  hbsp_sync(row);
  hbsp_sync(col);

  CU_ASSERT_EQUAL(hgrid_threads(g), 1); /* the tests set HLA_NUM_THREADS=1 */
  CU_ASSERT_EQUAL(hgrid_free(&g), HLA_OK);
  CU_ASSERT(g == NULL);
}

static void test_every_shape(void) {
  hbsp_env w = ht_world();
  int P = hbsp_size(w);
  for (int M = 1; M <= P; M++)
    if (P % M == 0) check_grid(w, M, P / M);
  hbsp_free(&w);
}

static void test_auto_shape(void) {
  hbsp_env w = ht_world();
  int P = hbsp_size(w);
  hgrid g;
  CU_ASSERT_EQUAL(hgrid_create(w, 0, 0, &g), HLA_OK);
  int M, N;
  hgrid_shape(g, &M, &N, NULL, NULL);
  const int wantM[9] = {0, 1, 1, 1, 2, 1, 2, 1, 2};
  CU_ASSERT_EQUAL(M * N, P);
  if (P <= 8) CU_ASSERT_EQUAL(M, wantM[P]);
  CU_ASSERT(M <= N);
  hgrid_free(&g);
  hbsp_free(&w);
}

static void test_bad_shapes(void) {
  hbsp_env w = ht_world();
  int P = hbsp_size(w), s = hbsp_rank(w);
  hgrid g = (hgrid)&w; /* must stay untouched on error */
  const int bad[][2] = {{P + 1, 1}, {1, P + 1}, {-1, -P}, {-P, -1}, {0, P}, {P, 0}, {2 * P, 2}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    CU_ASSERT_EQUAL(hgrid_create(w, bad[k][0], bad[k][1], &g), HLA_ERR_ARG);
    CU_ASSERT(ht_same_text(hbsp_errmsg(w)));
  }
  CU_ASSERT(g == (hgrid)&w);
  /* Shapes that differ between ranks. */
  if (P > 1) {
    CU_ASSERT_EQUAL(hgrid_create(w, s == 0 ? 1 : P, s == 0 ? P : 1, &g), HLA_ERR_ARG);
    CU_ASSERT(ht_same_text(hbsp_errmsg(w)));
  }
  /* A NULL out-pointer on one rank fails everywhere. */
  CU_ASSERT_EQUAL(hgrid_create(w, 1, P, s == P - 1 ? NULL : &g), HLA_ERR_ARG);
  CU_ASSERT(ht_same_text(hbsp_errmsg(w)));
  CU_ASSERT(g == (hgrid)&w);
  CU_ASSERT_EQUAL(hgrid_create(NULL, 1, P, &g), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hgrid_free(NULL), HLA_ERR_ARG);
  hgrid none = NULL;
  CU_ASSERT_EQUAL(hgrid_free(&none), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hgrid_shape(NULL, NULL, NULL, NULL, NULL), HLA_ERR_ARG);
  hbsp_env e;
  CU_ASSERT_EQUAL(hgrid_env(NULL, HGRID_ALL, &e), HLA_ERR_ARG);
  /* The environment is still fine. */
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);
  hbsp_free(&w);
}

/* The node level, with virtual nodes and without. */
static void test_nodes(void) {
  hbsp_env w = ht_world();
  int P = hbsp_size(w), s = hbsp_rank(w);
  for (int k = 1; k <= 3; k++) {
    char val[8];
    snprintf(val, sizeof val, "%d", k);
    setenv("HLA_VIRTUAL_NODES", val, 1); /* read by hbsp_init */
    hbsp_free(&w);
    w = ht_world();
    hgrid g;
    CU_ASSERT_EQUAL(hgrid_create(w, 0, 0, &g), HLA_OK);
    int nn, ns, nr;
    CU_ASSERT_EQUAL(hgrid_nodes(g, &nn, &ns, &nr), HLA_OK);
    int kk = k < P ? k : P;
    CU_ASSERT_EQUAL(nn, kk);
    /* node i holds ranks floor(i P / k) .. floor((i + 1) P / k) - 1 */
    int node = 0;
    while (node + 1 < kk && (node + 1) * P / kk <= s) node++;
    int lo = node * P / kk, hi = (node + 1) * P / kk;
    CU_ASSERT(ns == hi - lo && nr == s - lo);
    hbsp_env ne, ce;
    hgrid_env(g, HGRID_NODE, &ne);
    hgrid_env(g, HGRID_CROSS, &ce);
    CU_ASSERT(hbsp_size(ne) == ns && hbsp_rank(ne) == nr);
    /* the cross environment: one rank per node that has a rank nr */
    int cnt = 0, before = 0;
    for (int i = 0; i < kk; i++) {
      int has = (i + 1) * P / kk - i * P / kk > nr;
      cnt += has;
      before += has && i < node;
    }
    CU_ASSERT_EQUAL(hbsp_size(ce), cnt);
    CU_ASSERT_EQUAL(hbsp_rank(ce), before);
    int sum = 0, one = 1;
    CU_ASSERT_EQUAL(hbsp_allreduce(ce, &one, &sum, 1, HBSP_INT, HBSP_SUM, NULL), HLA_OK);
    CU_ASSERT_EQUAL(sum, cnt);
    hgrid_free(&g);
  }
  unsetenv("HLA_VIRTUAL_NODES");
  hbsp_free(&w);
  w = ht_world();
  hgrid g;
  CU_ASSERT_EQUAL(hgrid_create(w, 1, P, &g), HLA_OK);
  int nn, ns;
  hgrid_nodes(g, &nn, &ns, NULL);
  CU_ASSERT(nn >= 1 && ns >= 1 && ns <= P);
  hgrid_free(&g);
  hbsp_free(&w);
}

/* A grid refuses to be freed while a matrix lives on it; grids over sub-environments. */
static void test_lifetime_and_subsets(void) {
  hbsp_env w = ht_world(), half;
  int P = hbsp_size(w), s = hbsp_rank(w);
  hgrid g;
  hmat A;
  CU_ASSERT_EQUAL(hgrid_create(w, P, 1, &g), HLA_OK);
  CU_ASSERT_EQUAL(hmat_create(g, 5, 5, 2, 2, &A), HLA_OK);
  CU_ASSERT_EQUAL(hgrid_free(&g), HLA_ERR_STATE);
  CU_ASSERT(g != NULL);
  CU_ASSERT(ht_same_text(hgrid_errmsg(g)));
  hmat_free(&A);
  CU_ASSERT_EQUAL(hgrid_free(&g), HLA_OK);

  /* Two halves, each with its own grid, working at the same time. */
  CU_ASSERT_EQUAL(hbsp_split(w, s < P / 2, s, &half), HLA_OK);
  int H = hbsp_size(half);
  CU_ASSERT_EQUAL(hgrid_create(half, 0, 0, &g), HLA_OK);
  hbsp_env row;
  hgrid_env(g, HGRID_ROW, &row);
  int v = hbsp_rank(half), t = 0;
  CU_ASSERT_EQUAL(hbsp_allreduce(row, &v, &t, 1, HBSP_INT, HBSP_SUM, NULL), HLA_OK);
  int M, N, r;
  hgrid_shape(g, &M, &N, &r, NULL);
  CU_ASSERT_EQUAL(M * N, H);
  CU_ASSERT_EQUAL(t, r * N * N + N * (N - 1) / 2);
  hgrid_free(&g);
  hbsp_free(&half);
  hbsp_free(&w);
}

/* The grid's workspace blocks (hdist_take): lent again to a request that fits, never to two users
 * at once, not much larger than asked for; more users than tracked blocks still get their own. */
static void test_workspace(void) {
  hbsp_env w = ht_world();
  hgrid g;
  CU_ASSERT_EQUAL(hgrid_create(w, 0, 0, &g), HLA_OK);
  double *a = hdist_take(g, 1000), *b = hdist_take(g, 1000);
  CU_ASSERT_FATAL(a != NULL && b != NULL && a != b);
  for (int i = 0; i < 1000; i++) a[i] = 1.0, b[i] = 2.0;
  hdist_give(g, a);
  double *c = hdist_take(g, 900); /* fits a, which nobody uses */
  CU_ASSERT(c == a);
  hdist_give(g, b);
  hdist_give(g, c);
  double *big = hdist_take(g, 1 << 20); /* fits none: a fresh block */
  CU_ASSERT_FATAL(big != NULL);
  CU_ASSERT(big != a && big != b);
  big[(1 << 20) - 1] = 3.0;
  hdist_give(g, big);
  double *small = hdist_take(g, 10); /* not the big block: a later request may need it */
  CU_ASSERT(small != NULL && small != big);
  enum { K = HDIST_BLOCKS + 4 };
  double *many[K];
  int distinct = 1;
  for (int i = 0; i < K; i++) {
    many[i] = hdist_take(g, 100 + i);
    CU_ASSERT_FATAL(many[i] != NULL);
    many[i][99 + i] = i;
    distinct &= many[i] != small;
    for (int j = 0; j < i; j++) distinct &= many[i] != many[j];
  }
  CU_ASSERT(distinct);
  for (int i = 0; i < K; i++) hdist_give(g, many[i]);
  hdist_give(g, small);
  hdist_give(g, NULL);
  CU_ASSERT(hdist_take(g, 1000) == a); /* still kept after all that */
  hdist_give(g, a);
  CU_ASSERT_EQUAL(hgrid_free(&g), HLA_OK); /* frees them (the leak checker would see) */
  hbsp_free(&w);
}

void hla_test_register(void) {
  HT_SUITE("dist_grid", test_every_shape, test_auto_shape, test_bad_shapes, test_nodes,
           test_lifetime_and_subsets, test_workspace);
}
