/* Tests of the BSP profiler (src/bsp/prof.c): exact byte and message counts per superstep and the
 * traffic matrices, read back from the JSON file; timing consistency; children (alive and freed);
 * HLA_PROFILE; the profiler off.
 *
 * Counting convention. The sync reports what it puts on the wire (src/bsp/sync.c): per superstep
 * one MPI message per peer with a non-empty stream (a 24-byte record per request, payloads padded
 * to 8 bytes), one per get reply; traffic to itself is a memcpy and is not counted. WIRE below
 * selects that convention; WIRE 0 would be "payload bytes and requests as the user issued them".
 * A collective's point-to-point messages are counted as they are, in both conventions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "bsp/bsp_impl.h"
#include "json_read.h"

#define WIRE 1
#define REC  24 /* bytes of one request record in a stream (sizeof(hbsp_rec) in sync.h) */

/* The environment of the file with this name, world ranks and occurrence (NULL if none). */
static jv *find_env(const jv *root, const char *name, const int *world, int P, int occ) {
  jv *envs = jget(root, "envs");
  for (int e = 0; e < jlen(envs); e++) {
    jv *env = jat(envs, e), *w = jget(env, "world_ranks");
    if (strcmp(jstr(jget(env, "name")), name) || jnum(jget(env, "P")) != P || jlen(w) != P ||
        jnum(jget(env, "occurrence")) != occ)
      continue;
    int same = 1;
    for (int i = 0; i < P; i++) same &= jnum(jat(w, i)) == world[i];
    if (same) return env;
  }
  return NULL;
}

/* ---------------------------------------------------------------- expected traffic */

/* One superstep's expected traffic per (sender, receiver): stream bytes (records and small
 * payloads), bytes that travel as messages of their own (get replies, collectives), and payload
 * bytes and requests as the user issued them. */
typedef struct {
  int P;
  long long *stream, *reply, *payload, *requests; /* reply: messages of their own */
} expect;

static expect ex_new(int P) {
  expect e = {P, calloc((size_t)(P * P), 8), calloc((size_t)(P * P), 8), calloc((size_t)(P * P), 8),
              calloc((size_t)(P * P), 8)};
  return e;
}

static void ex_free(expect *e) {
  free(e->stream);
  free(e->reply);
  free(e->payload);
  free(e->requests);
}

static long long pad8(long long n) {
  return (n + 7) / 8 * 8;
}

static void ex_put(expect *e, int s, int d, long long b) {
  e->stream[s * e->P + d] += REC + pad8(b);
  e->payload[s * e->P + d] += b;
  e->requests[s * e->P + d]++;
}

static void ex_send(expect *e, int s, int d, long long tag, long long b) {
  e->stream[s * e->P + d] += REC + pad8(tag + b);
  e->payload[s * e->P + d] += b;
  e->requests[s * e->P + d]++;
}

/* A message of b bytes from s to d on its own, without a stream record (a collective's). */
static void ex_direct(expect *e, int s, int d, long long b) {
  e->reply[s * e->P + d] += b;
  e->payload[s * e->P + d] += b;
  e->requests[s * e->P + d]++;
}

/* Rank s gets b bytes from rank d: data flows from d to s. */
static void ex_get(expect *e, int s, int d, long long b) {
  e->stream[s * e->P + d] += REC;
  e->reply[d * e->P + s] += b;
  e->payload[d * e->P + s] += b;
  e->requests[d * e->P + s]++;
}

/* Bytes and messages from s to d as the profiler reports them. */
static long long ex_bytes(const expect *e, int s, int d) {
  int k = s * e->P + d;
  if (WIRE) return s == d ? 0 : e->stream[k] + e->reply[k];
  return e->payload[k];
}

static long long ex_msgs(const expect *e, int s, int d) {
  int k = s * e->P + d;
  if (WIRE) return s == d ? 0 : (e->stream[k] > 0) + (e->reply[k] > 0);
  return e->requests[k];
}

/* Check superstep `step` of environment env (JSON) against e; kind and label as given. Returns the
 * number of mismatches (also asserted). Rank 0 only. */
static int check_step(const jv *env, int step, const expect *e, const char *kind,
                      const char *label) {
  int bad = 0, P = e->P;
  jv *ranks = jget(env, "ranks"), *ss = jat(jget(env, "supersteps"), step);
  CU_ASSERT_EQUAL(jlen(ranks), P);
  CU_ASSERT_PTR_NOT_NULL(ss);
  if (jlen(ranks) != P || !ss) return 1;
  bad += strcmp(jstr(jget(ss, "kind")), kind) != 0;
  bad += strcmp(jstr(jget(ss, "label")), label) != 0;
  jv *traffic = jget(ss, "traffic");
  bad += jlen(traffic) != P;
  long long h = 0;
  for (int s = 0; s < P; s++) {
    jv *rk = jat(ranks, s), *rec = jat(jget(rk, "supersteps"), step), *row = jget(rec, "row");
    bad += jnum(jget(rk, "rank")) != s;
    bad += strcmp(jstr(jget(rec, "kind")), kind) != 0;
    bad += strcmp(jstr(jget(rec, "label")), label) != 0;
    long long bs = 0, br = 0, ms = 0, mr = 0;
    for (int d = 0; d < P; d++) {
      bs += ex_bytes(e, s, d), br += ex_bytes(e, d, s);
      ms += ex_msgs(e, s, d), mr += ex_msgs(e, d, s);
      bad += jnum(jat(row, d)) != ex_bytes(e, s, d);
      bad += jnum(jat(jat(traffic, s), d)) != ex_bytes(e, s, d);
    }
    bad += jnum(jget(rec, "bytes_sent")) != bs;
    bad += jnum(jget(rec, "bytes_recv")) != br;
    bad += jnum(jget(rec, "msgs_sent")) != ms;
    bad += jnum(jget(rec, "msgs_recv")) != mr;
    bad += jnum(jget(rec, "compute")) < 0 || jnum(jget(rec, "comm")) < 0;
    if (bs > h) h = bs;
    if (br > h) h = br;
  }
  bad += jnum(jget(ss, "h_bytes")) != h;
  CU_ASSERT_EQUAL(bad, 0);
  if (bad)
    fprintf(stderr, "superstep %d (%s) of %s: %d mismatches\n", step, kind, jstr(jget(env, "name")),
            bad);
  return bad;
}

/* World ranks of env's members, in env order. */
static void world_of(hbsp_env env, int *out) {
  int P = hbsp_size(env), me = ht_rank();
  MPI_Allgather(&me, 1, MPI_INT, out, 1, MPI_INT, hbsp_comm(env));
  (void)P;
}

/* A file name unique to this run (rank 0 picks it). */
static void profile_path(char *path, size_t n, const char *what) {
  int pid = (int)getpid();
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  snprintf(path, n, "hla_prof_%s_%d_np%d.json", what, pid, ht_size());
}

/* ---------------------------------------------------------------- tests */

/* Near-square grid M x N with M <= N. */
static void grid(int P, int *M, int *N) {
  *M = 1;
  for (int m = 1; m * m <= P; m++)
    if (P % m == 0) *M = m;
  *N = P / *M;
}

static void test_counts(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int P = hbsp_size(w), r = hbsp_rank(w), M, N;
  grid(P, &M, &N);
  char path[256];
  profile_path(path, sizeof path, "counts");

  /* Set up before profiling: a registered area and the tag size (both take effect at a sync). */
  size_t area = 8 * (size_t)P * (size_t)(P + 1) / 2 + 8;
  char *buf = calloc(area, 1), *src = calloc(area + 64, 1); /* src also feeds the bcast */
  CU_ASSERT_EQUAL(hbsp_push_reg(w, buf, area), HLA_OK);
  size_t ts = 4;
  CU_ASSERT_EQUAL(hbsp_set_tagsize(w, &ts), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);

  double t_start = MPI_Wtime();
  CU_ASSERT_EQUAL(hbsp_profile_start(w, path), HLA_OK);
  CU_ASSERT_PTR_NOT_NULL(w->prof);

  /* SS0: rank s puts 8(s+1) bytes to s+1 and s+2, at its own place there. */
  expect e0 = ex_new(P), e1 = ex_new(P), e2 = ex_new(P), e3 = ex_new(P), e4 = ex_new(P),
         e5 = ex_new(P);
  hbsp_profile_label(w, "puts");
  for (int s = 0; s < P; s++)
    for (int k = 1; k <= 2; k++) ex_put(&e0, s, (s + k) % P, 8 * (s + 1));
  for (int k = 1; k <= 2; k++)
    CU_ASSERT_EQUAL(hbsp_put(w, (r + k) % P, src, buf, 8 * (size_t)r * (size_t)(r + 1) / 2,
                             8 * (size_t)(r + 1)),
                    HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);

  /* SS1: rank s sends s+1 messages of 16 bytes with a 4-byte tag to s+1. */
  hbsp_profile_label(w, "sends");
  for (int s = 0; s < P; s++)
    for (int k = 0; k <= s; k++) ex_send(&e1, s, (s + 1) % P, 4, 16);
  for (int k = 0; k <= r; k++) CU_ASSERT_EQUAL(hbsp_send(w, (r + 1) % P, &k, src, 16), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);

  /* SS2: nothing (a little computation, so that compute time is visible). */
  hbsp_profile_label(w, NULL);
  volatile double x = 0;
  for (int i = 0; i < 100000; i++) x += 1e-9 * i;
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);

  /* SS3: rank s gets 8 bytes from s+1. */
  hbsp_profile_label(w, "gets");
  for (int s = 0; s < P; s++) ex_get(&e3, s, (s + 1) % P, 8);
  double got;
  CU_ASSERT_EQUAL(hbsp_get(w, (r + 1) % P, buf, 0, &got, 8), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);

  /* SS4: a barrier. */
  CU_ASSERT_EQUAL(hbsp_barrier(w), HLA_OK);

  /* SS5: a flat broadcast of 40 bytes from the last rank: one message to every other rank. */
  hbsp_profile_label(w, "bcast");
  for (int d = 0; d < P; d++)
    if (d != P - 1) ex_direct(&e5, P - 1, d, 40);
  hbsp_coll flat = {HBSP_FLAT, 0, 0};
  CU_ASSERT_EQUAL(hbsp_bcast(w, src, 40, P - 1, &flat), HLA_OK);

  /* A row environment (alive at the write) and a column environment (freed before it). */
  hbsp_env row, col;
  CU_ASSERT_EQUAL_FATAL(hbsp_split(w, r / N, r % N, &row), HLA_OK);
  CU_ASSERT_EQUAL_FATAL(hbsp_split(w, r % N, r / N, &col), HLA_OK);
  CU_ASSERT_PTR_NOT_NULL(row->prof);
  CU_ASSERT_PTR_NOT_NULL(col->prof);
  CU_ASSERT_STRING_EQUAL(row->name, "world/split");
  int *wrow = malloc(sizeof(int) * (size_t)N), *wcol = malloc(sizeof(int) * (size_t)M);
  world_of(row, wrow);
  world_of(col, wcol);
  double rowbuf[2] = {0, 0};
  CU_ASSERT_EQUAL(hbsp_push_reg(row, rowbuf, sizeof rowbuf), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(row), HLA_OK); /* row SS0: registration only */
  hbsp_profile_label(row, "row-put");
  CU_ASSERT_EQUAL(hbsp_put(row, (hbsp_rank(row) + 1) % N, src, rowbuf, 0, 8), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(row), HLA_OK); /* row SS1 */
  CU_ASSERT_EQUAL(hbsp_sync(col), HLA_OK); /* col SS0 */
  CU_ASSERT_EQUAL(hbsp_free(&col), HLA_OK);

  /* Each rank's own wall time: a rank that started its profile earlier (the others were slow to
   * arrive) has phases longer than rank 0's wall. */
  double wall = MPI_Wtime() - t_start, *walls = malloc(sizeof(double) * (size_t)P);
  MPI_Gather(&wall, 1, MPI_DOUBLE, walls, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  CU_ASSERT_EQUAL(hbsp_profile_write(w), HLA_OK);
  /* a child did not start the profile: it cannot write it (on every rank of the child) */
  CU_ASSERT_EQUAL(hbsp_profile_write(row), HLA_ERR_ARG);

  if (r == 0) {
    jv *root = jload(path);
    CU_ASSERT_PTR_NOT_NULL(root);
    CU_ASSERT_STRING_EQUAL(jstr(jget(root, "format")), "hla-profile");
    CU_ASSERT_EQUAL(jnum(jget(root, "P")), P);
    int *wall_w = malloc(sizeof(int) * (size_t)P);
    for (int i = 0; i < P; i++) wall_w[i] = i;
    jv *we = find_env(root, "world", wall_w, P, 0);
    CU_ASSERT_PTR_NOT_NULL(we);
    CU_ASSERT_EQUAL(jlen(jget(we, "supersteps")), 6);
    check_step(we, 0, &e0, "sync", "puts");
    check_step(we, 1, &e1, "sync", "sends");
    check_step(we, 2, &e2, "sync", "");
    check_step(we, 3, &e3, "sync", "gets");
    check_step(we, 4, &e4, "barrier", "gets");
    check_step(we, 5, &e5, "bcast", "bcast");

    /* Times: non-negative, and per rank the phases fit in the wall time between start and write. */
    jv *ranks = jget(we, "ranks");
    for (int s = 0; s < jlen(ranks); s++) {
      jv *steps = jget(jat(ranks, s), "supersteps");
      double sum = 0, tprev = -1;
      for (int k = 0; k < jlen(steps); k++) {
        jv *rec = jat(steps, k);
        double c = jnum(jget(rec, "compute")), m = jnum(jget(rec, "comm")),
               t = jnum(jget(rec, "t"));
        CU_ASSERT(c >= 0 && m >= 0 && t >= tprev);
        sum += c + m;
        tprev = t;
      }
      CU_ASSERT(sum <= walls[s] * 1.05 + 1e-3);
    }

    /* Row 0 of the grid and its put superstep; column 0 (freed) and its one sync. */
    jv *re = find_env(root, "world/split", wrow, N, 0);
    CU_ASSERT_PTR_NOT_NULL(re);
    CU_ASSERT_EQUAL(jlen(jget(re, "supersteps")), 2);
    expect er0 = ex_new(N), er1 = ex_new(N);
    for (int c = 0; c < N; c++) ex_put(&er1, c, (c + 1) % N, 8);
    check_step(re, 0, &er0, "sync", "");
    check_step(re, 1, &er1, "sync", "row-put");
    ex_free(&er0);
    ex_free(&er1);
    /* at P = 1 the row and the column have the same member: the column is the second */
    jv *ce = find_env(root, "world/split", wcol, M, P == 1);
    CU_ASSERT_PTR_NOT_NULL(ce);
    CU_ASSERT_EQUAL(jlen(jget(ce, "supersteps")), 1);
    /* one world, M rows and N columns (the same env when M = 1 or N = 1 twice: counted apart) */
    CU_ASSERT_EQUAL(jlen(jget(root, "envs")), 1 + M + N);
    free(wall_w);
    jfree(root);
    remove(path);
  }
  ex_free(&e0), ex_free(&e1), ex_free(&e2), ex_free(&e3), ex_free(&e4), ex_free(&e5);
  CU_ASSERT_EQUAL(hbsp_pop_reg(row, rowbuf), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(row), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_free(&row), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_pop_reg(w, buf), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_free(&w), HLA_OK); /* writes again (recording went on) */
  if (r == 0) {
    jv *root = jload(path);
    CU_ASSERT_PTR_NOT_NULL(root);
    jfree(root);
    remove(path);
  }
  free(walls);
  free(wrow);
  free(wcol);
  free(buf);
  free(src);
}

/* HLA_PROFILE=path at hbsp_init profiles the environment; hbsp_free writes the file. */
static void test_env_variable(void) {
  char path[256];
  profile_path(path, sizeof path, "env");
  setenv("HLA_PROFILE", path, 1);
  hbsp_env w;
  int rc = hbsp_init(MPI_COMM_WORLD, &w);
  unsetenv("HLA_PROFILE");
  CU_ASSERT_EQUAL_FATAL(rc, HLA_OK);
  CU_ASSERT_PTR_NOT_NULL(w->prof);
  hbsp_profile_label(w, "one");
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_free(&w), HLA_OK);
  if (ht_rank() == 0) {
    jv *root = jload(path);
    CU_ASSERT_PTR_NOT_NULL(root);
    jv *env = jat(jget(root, "envs"), 0);
    CU_ASSERT_STRING_EQUAL(jstr(jget(env, "name")), "world");
    CU_ASSERT_EQUAL(jlen(jget(env, "supersteps")), 2);
    CU_ASSERT_EQUAL(jlen(jget(env, "ranks")), ht_size());
    CU_ASSERT_STRING_EQUAL(jstr(jget(jat(jget(env, "supersteps"), 1), "label")), "one");
    jfree(root);
    remove(path);
  }
}

/* Off: no recorder anywhere, the hooks do nothing, writing is refused on every rank. */
static void test_off(void) {
  hbsp_env w, c;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  CU_ASSERT_PTR_NULL(w->prof);
  CU_ASSERT_EQUAL_FATAL(hbsp_split(w, 0, 0, &c), HLA_OK);
  CU_ASSERT_PTR_NULL(c->prof);
  hbsp_prof_begin(w);
  hbsp_prof_msg(w, 0, 8, 1);
  hbsp_prof_end(w, "sync");
  CU_ASSERT_PTR_NULL(w->prof);
  CU_ASSERT_EQUAL(hbsp_profile_label(w, "x"), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(c), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_profile_write(w), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_profile_start(w, ""), HLA_ERR_ARG);
  CU_ASSERT_PTR_NULL(w->prof);
  CU_ASSERT_EQUAL(hbsp_free(&c), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_free(&w), HLA_OK);
}

/* A profile written to a path that cannot be opened: the same error on every rank, and the
 * environment can still be freed. */
static void test_bad_path(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_profile_start(w, "/nonexistent-dir/hla/profile.json"), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_profile_write(w), HLA_ERR_ARG);
  int rc = hbsp_free(&w); /* the write at free fails once; the free then goes through */
  if (rc != HLA_OK) rc = hbsp_free(&w);
  CU_ASSERT_EQUAL(rc, HLA_OK);
  CU_ASSERT_PTR_NULL(w);
}

void hla_test_register(void) {
  HT_SUITE("bsp_prof", test_off, test_counts, test_env_variable, test_bad_path);
}
