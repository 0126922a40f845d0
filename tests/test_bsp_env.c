/* Tests of environments: split, reorder, node, subset syncs, consistency errors.
 * @procs 1 2 3 4 6 8 9
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "harness.h"

/* Near-square grid c = number of columns, used to split the world into rows and columns. */
static int grid_cols(int P) {
  int c = 1;
  for (int d = 1; d * d <= P; d++)
    if (P % d == 0) c = P / d;
  return c;
}

/* Rows and columns of a grid: members, order, and puts in a child reaching the right world ranks.
 * At P = 9 this is the seed's example: rows {0,1,2},{3,4,5},{6,7,8}, columns
 * {0,3,6},{1,4,7},{2,5,8}. */
static void test_split_rows_cols(void) {
  hbsp_env w = ht_world(), row, col;
  int P = hbsp_size(w), s = hbsp_rank(w), C = grid_cols(P), R = P / C;
  CU_ASSERT_EQUAL(hbsp_split(w, s / C, s % C, &row), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_split(w, s % C, s / C, &col), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_size(row), C);
  CU_ASSERT_EQUAL(hbsp_rank(row), s % C);
  CU_ASSERT_EQUAL(hbsp_size(col), R);
  CU_ASSERT_EQUAL(hbsp_rank(col), s / C);
  if (P == 9) {
    CU_ASSERT_EQUAL(C, 3);
    CU_ASSERT_EQUAL(s / 3 * 3 + hbsp_rank(row), s); /* row r holds world ranks 3r, 3r+1, 3r+2 */
  }
  /* Each rank puts its world rank to every member of its row and of its column. */
  int *inrow = calloc((size_t)C, sizeof(int)), *incol = calloc((size_t)R, sizeof(int));
  hbsp_push_reg(row, inrow, (size_t)C * sizeof(int));
  hbsp_push_reg(col, incol, (size_t)R * sizeof(int));
  hbsp_sync(row);
  hbsp_sync(col);
  for (int t = 0; t < C; t++)
    hbsp_put(row, t, &s, inrow, (size_t)hbsp_rank(row) * sizeof(int), sizeof(int));
  for (int t = 0; t < R; t++)
    hbsp_put(col, t, &s, incol, (size_t)hbsp_rank(col) * sizeof(int), sizeof(int));
  CU_ASSERT_EQUAL(hbsp_sync(row), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(col), HLA_OK);
  int bad = 0;
  for (int t = 0; t < C; t++) bad += inrow[t] != s / C * C + t;
  for (int t = 0; t < R; t++) bad += incol[t] != t * C + s % C;
  CU_ASSERT_EQUAL(bad, 0);
  free(inrow), free(incol);
  hbsp_free(&row), hbsp_free(&col);
  /* Undefined colour: no child; key reverses the order. */
  hbsp_env odd, rev;
  CU_ASSERT_EQUAL(hbsp_split(w, s % 2 ? 0 : HBSP_UNDEFINED, 0, &odd), HLA_OK);
  CU_ASSERT(s % 2 ? odd != NULL && hbsp_size(odd) == P / 2 : odd == NULL);
  if (odd) hbsp_free(&odd);
  CU_ASSERT_EQUAL(hbsp_reorder(w, P - s, &rev), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_rank(rev), P - 1 - s);
  hbsp_free(&rev);
  /* Keys in irregular steps, with ties (broken by rank), over one colour and over two: the SMPI
   * build's split (one run, runs after the members, the ranks alone) sees them all. */
  for (int colours = 1; colours <= 2; colours++) {
    hbsp_env mixed;
    const int key = s * 7 % 5, colour = s % colours;
    int size = 0, rank = 0;
    for (int t = 0; t < P; t++) {
      const int kt = t * 7 % 5;
      size += t % colours == colour;
      rank += t % colours == colour && (kt < key || (kt == key && t < s));
    }
    CU_ASSERT_EQUAL_FATAL(hbsp_split(w, colour, key, &mixed), HLA_OK);
    CU_ASSERT_EQUAL(hbsp_size(mixed), size);
    CU_ASSERT_EQUAL(hbsp_rank(mixed), rank);
    CU_ASSERT_EQUAL(hbsp_sync(mixed), HLA_OK);
    hbsp_free(&mixed);
  }
  hbsp_free(&w);
}

/* A put issued in a child is not completed by a parent sync, only by the child's; and a put in
 * the parent is not completed by the child's sync. */
static void test_sync_scoping(void) {
  hbsp_env w = ht_world(), half;
  int P = hbsp_size(w), s = hbsp_rank(w);
  hbsp_split(w, s < (P + 1) / 2 ? 0 : 1, s, &half);
  int64_t a = -1, b = -1, v = 10 + s;
  hbsp_push_reg(w, &a, sizeof a);
  hbsp_push_reg(half, &b, sizeof b);
  hbsp_sync(w);
  hbsp_sync(half);
  int hp = hbsp_size(half), hs = hbsp_rank(half);
  hbsp_put(half, (hs + 1) % hp, &v, &b, 0, sizeof v);
  hbsp_put(w, (s + 1) % P, &v, &a, 0, sizeof v);
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);
  CU_ASSERT_EQUAL(b, -1); /* the child's put is still pending */
  CU_ASSERT_NOT_EQUAL(a, -1);
  a = -1;
  hbsp_put(w, (s + 1) % P, &v, &a, 0, sizeof v);
  CU_ASSERT_EQUAL(hbsp_sync(half), HLA_OK);
  CU_ASSERT_NOT_EQUAL(b, -1); /* now it landed */
  CU_ASSERT_EQUAL(a, -1);     /* the parent's is pending */
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);
  CU_ASSERT_EQUAL(a, 10 + (s + P - 1) % P);
  CU_ASSERT_EQUAL(hbsp_superstep(w), 3);
  CU_ASSERT_EQUAL(hbsp_superstep(half), 2);
  hbsp_free(&half);
  hbsp_free(&w);
}

/* Disjoint children sync independently: child i syncs i+1 times, concurrently. */
static void test_concurrent_subsets(void) {
  hbsp_env w = ht_world(), grp;
  int P = hbsp_size(w), s = hbsp_rank(w), G = P >= 3 ? 3 : P;
  int color = s % G;
  hbsp_split(w, color, s, &grp);
  int n = hbsp_size(grp), r = hbsp_rank(grp);
  int64_t acc = 0, v;
  hbsp_push_reg(grp, &acc, sizeof acc);
  hbsp_sync(grp);
  for (int k = 0; k <= color; k++) {
    v = acc + 1;
    hbsp_put(grp, (r + 1) % n, &v, &acc, 0, sizeof v);
    CU_ASSERT_EQUAL(hbsp_sync(grp), HLA_OK);
  }
  CU_ASSERT_EQUAL(acc, color + 1);
  CU_ASSERT_EQUAL(hbsp_barrier(w), HLA_OK);
  hbsp_free(&grp);
  hbsp_free(&w);
}

/* A reordered twin has its own registrations, queues and syncs. */
static void test_reorder_twin(void) {
  hbsp_env w = ht_world(), t;
  int P = hbsp_size(w), s = hbsp_rank(w);
  hbsp_reorder(w, P - s, &t); /* reversed */
  int64_t x = -1, y = -1, v = s;
  hbsp_push_reg(w, &x, sizeof x); /* registered on w only */
  hbsp_sync(w);
  CU_ASSERT_EQUAL(hbsp_put(t, 0, &v, &x, 0, sizeof v), HLA_ERR_ARG); /* not registered on t */
  hbsp_push_reg(t, &y, sizeof y);
  hbsp_sync(t);
  /* Rank 0 of t is world rank P-1. */
  hbsp_put(t, 0, &v, &y, 0, sizeof v);
  hbsp_put(w, 0, &v, &x, 0, sizeof v);
  hbsp_sync(t);
  CU_ASSERT_EQUAL(x, -1); /* w's put pending */
  if (s == P - 1) CU_ASSERT(y >= 0 && y < P);
  hbsp_sync(w);
  if (s == 0) CU_ASSERT(x >= 0 && x < P);
  hbsp_free(&w); /* the twin outlives its origin */
  CU_ASSERT_EQUAL(hbsp_sync(t), HLA_OK);
  hbsp_free(&t);
}

/* The ranks whose processor name is this rank's (MPI_Get_processor_name: the host). Collective. */
static int ranks_on_my_host(MPI_Comm comm) {
  int P, len, same = 0;
  MPI_Comm_size(comm, &P);
  char me[MPI_MAX_PROCESSOR_NAME] = {0}, *all = calloc((size_t)P, sizeof me);
  MPI_Get_processor_name(me, &len);
  MPI_Allgather(me, sizeof me, MPI_CHAR, all, sizeof me, MPI_CHAR, comm);
  for (int r = 0; r < P; r++) same += strcmp(all + (size_t)r * sizeof me, me) == 0;
  free(all);
  return same;
}

/* HLA_VIRTUAL_NODES=k cuts the ranks into k consecutive nodes whose sizes differ by at most one;
 * without it, a node is a shared-memory domain: the ranks of one host (this whole machine, or one
 * simulated host under SMPI). */
static void test_node(void) {
  unsetenv("HLA_VIRTUAL_NODES");
  hbsp_env w = ht_world(), node;
  int P = hbsp_size(w), s = hbsp_rank(w);
  CU_ASSERT_EQUAL(hbsp_node(w, &node), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_size(node), ranks_on_my_host(hbsp_comm(w)));
  hbsp_free(&node);
  hbsp_free(&w);
  for (int k = 1; k <= 4; k++) { /* read by hbsp_init */
    char v[8];
    snprintf(v, sizeof v, "%d", k);
    setenv("HLA_VIRTUAL_NODES", v, 1);
    w = ht_world();
    unsetenv("HLA_VIRTUAL_NODES"); /* the environment keeps what it read */
    CU_ASSERT_EQUAL(hbsp_node(w, &node), HLA_OK);
    int kk = k < P ? k : P, id = 0;
    while (id + 1 < kk && (id + 1) * P / kk <= s) id++;
    int first = id * P / kk, size = (id + 1) * P / kk - first;
    CU_ASSERT_EQUAL(hbsp_size(node), size);
    CU_ASSERT_EQUAL(hbsp_rank(node), s - first);
    CU_ASSERT(size == P / kk || size == P / kk + 1);
    hbsp_free(&node);
    hbsp_free(&w);
  }
  /* a bad value fails hbsp_init on every rank (rank 0 prints the reason) */
  setenv("HLA_VIRTUAL_NODES", "zero", 1);
  w = NULL;
  CU_ASSERT_EQUAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_ERR_ARG);
  CU_ASSERT_PTR_NULL(w);
  unsetenv("HLA_VIRTUAL_NODES");
}

/* The HLA_* variables are rank 0's on every rank: ranks that see different values agree. */
static void test_settings_agree(void) {
  char v[8];
#ifdef HLA_SMPI
  /* SMPI's ranks are threads of one process, with one environment: which rank set it last before
   * rank 0 reads it depends on the simulator's scheduling, so here every rank sets 1 */
  snprintf(v, sizeof v, "1");
#else
  snprintf(v, sizeof v, "%d", ht_rank() % 2 + 1); /* 1 on even ranks, 2 on odd ones */
#endif
  setenv("HLA_VIRTUAL_NODES", v, 1);
  hbsp_env w = ht_world(), node;
  unsetenv("HLA_VIRTUAL_NODES");
  CU_ASSERT_EQUAL(hbsp_node(w, &node), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_size(node), hbsp_size(w)); /* rank 0's: one node */
  hbsp_free(&node);
  /* splits inherit them */
  hbsp_env half;
  CU_ASSERT_EQUAL(hbsp_split(w, hbsp_rank(w) % 2, 0, &half), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_node(half, &node), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_size(node), hbsp_size(half));
  hbsp_free(&node);
  hbsp_free(&half);
  hbsp_free(&w);
}

/* Ranks that disagree get HLA_ERR_STATE on every rank, with the same message, and no hang. */
static void test_consistency_errors(void) {
  hbsp_env w = ht_world();
  int P = hbsp_size(w), s = hbsp_rank(w);
  if (P == 1) {
    hbsp_free(&w);
    return;
  }
  /* Different numbers of registrations. */
  int64_t a, b;
  hbsp_push_reg(w, &a, sizeof a);
  if (s == 1) hbsp_push_reg(w, &b, sizeof b);
  int rc = hbsp_sync(w);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_STATE));
  CU_ASSERT_PTR_NOT_NULL(strstr(hbsp_errmsg(w), "registrations differ"));
  /* Messages identical on every rank. */
  char msg[512], m0[512];
  snprintf(msg, sizeof msg, "%s", hbsp_errmsg(w));
  memcpy(m0, msg, sizeof m0);
  MPI_Bcast(m0, sizeof m0, MPI_CHAR, 0, MPI_COMM_WORLD);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, strcmp(msg, m0) == 0));
  /* The failed superstep was dropped everywhere: the environment is usable again. */
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hbsp_sync(w) == HLA_OK));
  /* Different tag sizes. */
  size_t ts = s == 0 ? 4 : 8;
  hbsp_set_tagsize(w, &ts);
  rc = hbsp_sync(w);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_STATE));
  /* the first rank that differs from rank 0, named on every rank */
  CU_ASSERT(ht_all(MPI_COMM_WORLD, strstr(hbsp_errmsg(w), "rank 0 set 4, rank 1 set 8") != NULL));
  ts = 0;
  hbsp_set_tagsize(w, &ts);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hbsp_sync(w) == HLA_OK));
  /* One rank frees while the others sync: everyone fails, nothing is freed. */
  hbsp_env keep = w;
  rc = s == 0 ? hbsp_free(&w) : hbsp_sync(w);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_STATE));
  CU_ASSERT(w == keep);
  CU_ASSERT_PTR_NOT_NULL(strstr(hbsp_errmsg(w), "hbsp_free"));
  /* A barrier against a sync. */
  rc = s == P - 1 ? hbsp_barrier(w) : hbsp_sync(w);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_STATE));
  snprintf(msg, sizeof msg, "rank 0 called hbsp_sync while rank %d called hbsp_barrier", P - 1);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, strstr(hbsp_errmsg(w), msg) != NULL));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hbsp_free(&w) == HLA_OK));
}

/* Bad arguments to the environment calls agree on every rank. */
static void test_env_bad_args(void) {
  hbsp_env w, c = (hbsp_env)0x1;
  CU_ASSERT_EQUAL(hbsp_init(MPI_COMM_WORLD, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_init(MPI_COMM_NULL, &w), HLA_ERR_ARG);
  hbsp_init(MPI_COMM_WORLD, &w);
  int s = hbsp_rank(w);
  int rc = hbsp_split(w, s == 0 ? -5 : 0, 0, &c);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_ARG));
  CU_ASSERT_PTR_NOT_NULL(strstr(hbsp_errmsg(w), "colour -5"));
  rc = hbsp_split(w, 0, 0, s == 0 ? NULL : &c);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_ARG));
  CU_ASSERT_EQUAL(hbsp_size(NULL), -1);
  CU_ASSERT_EQUAL(hbsp_rank(NULL), -1);
  CU_ASSERT(hbsp_comm(NULL) == MPI_COMM_NULL);
  hbsp_free(&w);
}

/* hbsp_idle_barrier waits for the last rank (here the last rank of a subset, late on purpose),
 * leaves pending BSP state alone, and is subset-local. */
static void test_idle_barrier(void) {
  hbsp_env w = ht_world(), grp;
  int s = hbsp_rank(w);
  CU_ASSERT_EQUAL(hbsp_idle_barrier(NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL_FATAL(hbsp_split(w, s % 2, s, &grp), HLA_OK);
  int n = hbsp_size(grp), r = hbsp_rank(grp);
  double t_in, t_out;
  int64_t box = -1, v = s;
  hbsp_push_reg(grp, &box, sizeof box);
  hbsp_sync(grp);
  hbsp_put(grp, (r + 1) % n, &v, &box, 0, sizeof v); /* pending across the idle barrier */
  if (r == n - 1) {
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
  }
  t_in = MPI_Wtime();
  CU_ASSERT_EQUAL(hbsp_idle_barrier(grp), HLA_OK);
  t_out = MPI_Wtime();
  /* the late rank's arrival time, as every member sees it */
  double arrive = r == n - 1 ? t_in : 0, latest;
  MPI_Allreduce(&arrive, &latest, 1, MPI_DOUBLE, MPI_MAX, hbsp_comm(grp));
  CU_ASSERT(t_out >= latest); /* one machine: every rank's MPI_Wtime reads the same clock */
  CU_ASSERT_EQUAL(box, -1);   /* the put is still pending */
  CU_ASSERT_EQUAL(hbsp_sync(grp), HLA_OK);
  int from = (r - 1 + n) % n, src_world;
  MPI_Sendrecv(&s, 1, MPI_INT, (r + 1) % n, 7, &src_world, 1, MPI_INT, from, 7, hbsp_comm(grp),
               MPI_STATUS_IGNORE);
  CU_ASSERT_EQUAL(box, src_world);
  hbsp_pop_reg(grp, &box);
  hbsp_sync(grp);
  hbsp_free(&grp);
  hbsp_free(&w);
}

void hla_test_register(void) {
  HT_SUITE("bsp_env", test_split_rows_cols, test_sync_scoping, test_concurrent_subsets,
           test_reorder_twin, test_node, test_settings_agree, test_consistency_errors,
           test_env_bad_args, test_idle_barrier);
}
