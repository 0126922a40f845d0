/* Tests of the BSP collectives (src/bsp/coll*.c) against MPI's own collectives on the same ranks:
 * every algorithm, every group count G dividing P, every root, sizes around the edge cases, all
 * types and operators, in place, sub-environments, and errors agreed on every rank.
 * @procs 1 2 3 4 6 8
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "bsp/coll_impl.h"

enum { BCAST, REDUCE, ALLREDUCE, GATHER, SCATTER, ALLGATHER };
static const char *const kind_name[] = {"bcast",  "reduce",  "allreduce",
                                        "gather", "scatter", "allgather"};
static const hbsp_alg ALGS[] = {HBSP_AUTO,     HBSP_NATIVE,   HBSP_FLAT,
                                HBSP_BINOMIAL, HBSP_PIPELINE, HBSP_SCATTER_ALLGATHER};
#define NALGS   ((int)(sizeof ALGS / sizeof ALGS[0]))
#define SEGMENT 4096 /* small, so that the big sizes below span many segments */

/* One collective call to run through hla and MPI and compare. */
typedef struct {
  hbsp_env env;
  MPI_Comm comm; /* the same ranks in the same order, for MPI's reference */
  int kind;
  hbsp_alg alg;
  int G, root;
  size_t n; /* bytes per rank, or elements for the reductions */
  hbsp_type type;
  hbsp_op op;
  int inplace;
  uint64_t seed;
} tcase;

typedef struct {
  double v;
  int i;
} dint; /* MPI_DOUBLE_INT */

static size_t esize(const tcase *c) {
  return c->kind == REDUCE || c->kind == ALLREDUCE ? hbsp_coll_type_size(c->type) : 1;
}

/* Value of a MAXLOC element with index idx: small integers, so ties are common. */
static double loc_value(uint64_t seed, int64_t idx) {
  uint64_t s = seed ^ (uint64_t)idx * 0x9E3779B97F4A7C15ull;
  return (double)(int)(ht_rand_u64(&s) % 7) - 3.0;
}

/* Element i of this rank's input; exact under every summation order. */
static void fill(const tcase *c, int P, int rank, char *buf, size_t count) {
  uint64_t s = c->seed * 1000003u + (uint64_t)rank;
  for (size_t i = 0; i < count; i++) {
    uint64_t r = ht_rand_u64(&s);
    if (c->kind != REDUCE && c->kind != ALLREDUCE) {
      buf[i] = (char)r;
      continue;
    }
    switch (c->type) {
    case HBSP_BYTE:
      ((uint8_t *)buf)[i] = (uint8_t)(r % 16);
      break;
    case HBSP_INT:
      ((int *)buf)[i] = (int)(r % 2001) - 1000;
      break;
    case HBSP_INT64:
      ((int64_t *)buf)[i] = (int64_t)(r % (1ull << 41)) - ((int64_t)1 << 40);
      break;
    case HBSP_DOUBLE:
      ((double *)buf)[i] = (double)(int)(r % 2001) - 1000.0;
      break;
    case HBSP_FLOAT:
      ((float *)buf)[i] = (float)((int)(r % 2001) - 1000);
      break;
    case HBSP_DOUBLE_INDEX: {
      /* Indices run against the ranks, so "lowest index" is not "lowest rank". */
      int64_t idx = (int64_t)i * P + (P - 1 - rank);
      ((hbsp_dloc *)buf)[i] = (hbsp_dloc){loc_value(c->seed, idx), idx};
      break;
    }
    }
  }
}

/* MPI's answer for a reduction into ref (count elements of the case's type). */
static void mpi_reduce(const tcase *c, const void *send, void *ref, int all) {
  int cnt = (int)c->n;
  if (c->type == HBSP_DOUBLE_INDEX) {
    const hbsp_dloc *x = send;
    dint *in = malloc(sizeof(dint) * c->n + 1), *out = malloc(sizeof(dint) * c->n + 1);
    for (size_t i = 0; i < c->n; i++)
      in[i] = (dint){c->op == HBSP_MAXABSLOC ? fabs(x[i].value) : x[i].value, (int)x[i].index};
    if (all)
      MPI_Allreduce(in, out, cnt, MPI_DOUBLE_INT, MPI_MAXLOC, c->comm);
    else
      MPI_Reduce(in, out, cnt, MPI_DOUBLE_INT, MPI_MAXLOC, c->root, c->comm);
    int me;
    MPI_Comm_rank(c->comm, &me);
    if (all || me == c->root)
      for (size_t i = 0; i < c->n; i++) /* MPI ties go to the lowest index too */
        ((hbsp_dloc *)ref)[i] = (hbsp_dloc){loc_value(c->seed, out[i].i), out[i].i};
    free(in);
    free(out);
    return;
  }
  MPI_Datatype dt = c->type == HBSP_BYTE    ? MPI_UINT8_T
                    : c->type == HBSP_INT   ? MPI_INT
                    : c->type == HBSP_INT64 ? MPI_INT64_T
                    : c->type == HBSP_FLOAT ? MPI_FLOAT
                                            : MPI_DOUBLE;
  MPI_Op op = c->op == HBSP_SUM ? MPI_SUM : c->op == HBSP_MAX ? MPI_MAX : MPI_MIN;
  if (all)
    MPI_Allreduce(send, ref, cnt, dt, op, c->comm);
  else
    MPI_Reduce(send, ref, cnt, dt, op, c->root, c->comm);
}

/* Run case c through hla and MPI; 1 if this rank's results agree. On a mismatch, why says what. */
static int run_case(const tcase *c, char *why, size_t whylen) {
  int P, rank;
  MPI_Comm_size(c->comm, &P);
  MPI_Comm_rank(c->comm, &rank);
  int is_root = rank == c->root, k = c->kind;
  size_t es = esize(c), m = c->n * es, all = (size_t)P * m;
  /* send: this rank's input (scatter: P blocks on the root); recv: output, pre-filled with a
   * sentinel; ref: MPI's output. */
  size_t sbytes = k == SCATTER ? all : m;
  size_t rbytes = k == GATHER || k == ALLGATHER ? all : m;
  char *send = malloc(sbytes + 1), *keep = malloc(sbytes + 1), *recv = malloc(rbytes + 1);
  char *ref = malloc(rbytes + 1), *sentinel = malloc(rbytes + 1);
  fill(c, P, rank, send, k == SCATTER ? c->n * (size_t)P : c->n);
  memcpy(keep, send, sbytes);
  memset(sentinel, 0xA5, rbytes);
  memcpy(recv, sentinel, rbytes);
  memcpy(ref, sentinel, rbytes);

  hbsp_coll how = {c->alg, SEGMENT, c->G};
  const void *s = send;
  void *r = recv;
  int rc = HLA_OK;
  switch (k) {
  case BCAST:
    memcpy(recv, is_root ? send : sentinel, m);
    memcpy(ref, recv, m);
    MPI_Bcast(ref, (int)m, MPI_BYTE, c->root, c->comm);
    rc = hbsp_bcast(c->env, recv, m, c->root, &how);
    break;
  case REDUCE:
  case ALLREDUCE:
    mpi_reduce(c, send, ref, k == ALLREDUCE);
    if (c->inplace) { /* on every rank: non-roots of reduce must leave it as it is */
      memcpy(recv, send, m);
      s = r;
    }
    rc = k == REDUCE ? hbsp_reduce(c->env, s, r, c->n, c->type, c->op, c->root, &how)
                     : hbsp_allreduce(c->env, s, r, c->n, c->type, c->op, &how);
    if (c->inplace && !(is_root || k == ALLREDUCE)) memcpy(ref, send, m);
    break;
  case GATHER:
    MPI_Gather(send, (int)m, MPI_BYTE, ref, (int)m, MPI_BYTE, c->root, c->comm);
    if (c->inplace && is_root) { /* own block already in place */
      memcpy(recv + (size_t)rank * m, send, m);
      s = r;
    }
    rc = hbsp_gather(c->env, s, r, m, c->root, &how);
    break;
  case SCATTER:
    MPI_Scatter(send, (int)m, MPI_BYTE, ref, (int)m, MPI_BYTE, c->root, c->comm);
    if (c->inplace && is_root) { /* the root's block stays where it is in send */
      r = send;
      memcpy(recv, send + (size_t)rank * m, m);
    }
    rc = hbsp_scatter(c->env, is_root ? s : NULL, r, m, c->root, &how);
    break;
  case ALLGATHER:
    MPI_Allgather(send, (int)m, MPI_BYTE, ref, (int)m, MPI_BYTE, c->comm);
    if (c->inplace) {
      memcpy(recv + (size_t)rank * m, send, m);
      s = r;
    }
    rc = hbsp_allgather(c->env, s, r, m, &how);
    break;
  }
  /* Where the result is not defined (reduce and gather off the root) recv must be untouched. */
  int ok = rc == HLA_OK;
  if (!ok) snprintf(why, whylen, "returned %d: %s", rc, hbsp_errmsg(c->env));
  if (ok && memcmp(recv, ref, rbytes) != 0) {
    size_t i = 0;
    while (i < rbytes && recv[i] == ref[i]) i++;
    snprintf(why, whylen, "result differs from MPI's at byte %zu of %zu", i, rbytes);
    ok = 0;
  }
  if (ok && memcmp(send, keep, sbytes) != 0) { /* in place, recv was passed, or nothing moved */
    snprintf(why, whylen, "the send buffer changed");
    ok = 0;
  }
  free(send);
  free(keep);
  free(recv);
  free(ref);
  free(sentinel);
  return ok;
}

/* Run a case and count a failure (with a line on stderr for the first few). */
static void check(const tcase *c, int *fails) {
  char why[256] = "";
  if (run_case(c, why, sizeof why)) return;
  if ((*fails)++ < 5) {
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    fprintf(stderr,
            "rank %d: %s alg %d G %d root %d n %zu type %d op %d inplace %d seed %llu: %s\n", me,
            kind_name[c->kind], (int)c->alg, c->G, c->root, c->n, (int)c->type, (int)c->op,
            c->inplace, (unsigned long long)c->seed, why);
  }
}

/* Every algorithm x every G dividing P x roots x sizes, for one collective kind on bytes (the
 * reductions on HBSP_INT with SUM; the big size is 70001 bytes, or 9001 per rank for the gathers).
 * Every root for sizes 0, 1 and 1000; the first, middle and last root for the others and for the
 * in-place forms (to keep the run short at P = 8). */
static void sweep(int kind) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), fails = 0;
  static const size_t sizes[] = {0, 1, 7, 1000, 70001};
  int red = kind == REDUCE || kind == ALLREDUCE, rootless = kind == ALLREDUCE || kind == ALLGATHER;
  uint64_t seed = 1;
  for (int a = 0; a < NALGS; a++)
    for (int G = 1; G <= P; G++) {
      if (P % G) continue;
      for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = red ? (sizes[si] + 3) / 4 : sizes[si]; /* ints: about the same bytes */
        if (n > 1000 && (kind == GATHER || kind == SCATTER || kind == ALLGATHER))
          n = 9001; /* per rank, P of them move: still three segments, prime to P and G */
        for (int root = 0; root < (rootless ? 1 : P); root++) {
          int few = root != 0 && root != P / 2 && root != P - 1;
          for (int inplace = 0; inplace <= (kind != BCAST); inplace++) {
            if (few && (inplace || sizes[si] == 7 || sizes[si] > 1000)) continue;
            tcase c = {e, MPI_COMM_WORLD, kind,     ALGS[a], G,     root,
                       n, HBSP_INT,       HBSP_SUM, inplace, seed++};
            check(&c, &fails);
          }
        }
      }
    }
  CU_ASSERT(ht_all(MPI_COMM_WORLD, fails == 0));
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

static void test_bcast(void) {
  sweep(BCAST);
}
static void test_reduce(void) {
  sweep(REDUCE);
}
static void test_allreduce(void) {
  sweep(ALLREDUCE);
}
static void test_gather(void) {
  sweep(GATHER);
}
static void test_scatter(void) {
  sweep(SCATTER);
}
static void test_allgather(void) {
  sweep(ALLGATHER);
}

/* Every type and operator with every algorithm, one and two levels. */
static void test_types_ops(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), fails = 0;
  static const struct {
    hbsp_type t;
    hbsp_op op;
  } combos[] = {{HBSP_BYTE, HBSP_SUM},
                {HBSP_BYTE, HBSP_MAX},
                {HBSP_BYTE, HBSP_MIN},
                {HBSP_INT, HBSP_MAX},
                {HBSP_INT, HBSP_MIN},
                {HBSP_INT64, HBSP_SUM},
                {HBSP_INT64, HBSP_MAX},
                {HBSP_INT64, HBSP_MIN},
                {HBSP_DOUBLE, HBSP_SUM},
                {HBSP_DOUBLE, HBSP_MAX},
                {HBSP_DOUBLE, HBSP_MIN},
                {HBSP_FLOAT, HBSP_SUM},
                {HBSP_FLOAT, HBSP_MAX},
                {HBSP_FLOAT, HBSP_MIN},
                {HBSP_DOUBLE_INDEX, HBSP_MAXLOC},
                {HBSP_DOUBLE_INDEX, HBSP_MAXABSLOC}};
  static const size_t counts[] = {1, 7, 1001};
  int Gs[2] = {1, P % 2 == 0 && P > 2 ? 2 : 1};
  uint64_t seed = 100;
  for (size_t ci = 0; ci < sizeof combos / sizeof combos[0]; ci++)
    for (int a = 0; a < NALGS; a++)
      for (int gi = 0; gi < 2; gi++)
        for (size_t ni = 0; ni < sizeof counts / sizeof counts[0]; ni++)
          for (int kind = REDUCE; kind <= ALLREDUCE; kind++) {
            tcase c = {e,          MPI_COMM_WORLD, kind,          ALGS[a], Gs[gi], P - 1,
                       counts[ni], combos[ci].t,   combos[ci].op, 0,       seed++};
            check(&c, &fails);
          }
  CU_ASSERT(ht_all(MPI_COMM_WORLD, fails == 0));
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

/* Ties: every rank offers the same |value| at different indices; the lowest index must win with
 * its own sign, whatever P, G and the algorithm. */
static void test_loc_ties(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), rank = hbsp_rank(e), bad = 0;
  enum { N = 5 };
  hbsp_dloc in[N], out[N];
  for (int i = 0; i < N; i++) {
    /* index 1000 i + 10 (P-1-rank) + 3: the highest rank holds the lowest index */
    int64_t idx = 1000 * i + 10 * (P - 1 - rank) + 3;
    double mag = i == 4 ? 0.0 : 2.5;
    in[i] = (hbsp_dloc){(rank + i) % 2 ? -mag : mag, idx};
  }
  for (int a = 0; a < NALGS; a++)
    for (int G = 1; G <= P; G++) {
      if (P % G) continue;
      hbsp_coll how = {ALGS[a], 0, G};
      for (int absval = 0; absval < 2; absval++) {
        hbsp_op op = absval ? HBSP_MAXABSLOC : HBSP_MAXLOC;
        memset(out, 0, sizeof out);
        if (hbsp_allreduce(e, in, out, N, HBSP_DOUBLE_INDEX, op, &how) != HLA_OK) bad++;
        for (int i = 0; i < N; i++) {
          /* MAXABSLOC: all tie, the lowest index (rank P-1) wins; MAXLOC: the lowest index
           * among the ranks holding +mag (or 0 for i = 4, where all tie). */
          int win = P - 1;
          if (!absval && i != 4)
            while (win >= 0 && (win + i) % 2) win--;
          if (win < 0) win = P - 1; /* P = 1 and the one value is negative */
          int64_t idx = 1000 * i + 10 * (P - 1 - win) + 3;
          double val = i == 4 ? 0.0 : ((win + i) % 2 ? -2.5 : 2.5);
          if (out[i].index != idx || out[i].value != val) bad++;
        }
      }
    }
  CU_ASSERT(ht_all(MPI_COMM_WORLD, bad == 0));
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

/* Collectives on the rows and columns of an R x C grid, all rows (columns) at the same time,
 * against MPI on communicators split the same way. */
static void test_subenvs(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), rank = hbsp_rank(e), fails = 0;
  int R = P % 2 == 0 && P > 2 ? 2 : 1, C = P / R;
  for (int dim = 0; dim < 2; dim++) {
    int color = dim == 0 ? rank / C : rank % C;
    hbsp_env sub = NULL;
    MPI_Comm comm;
    CU_ASSERT_EQUAL(hbsp_split(e, color, rank, &sub), HLA_OK);
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &comm);
    int Ps = hbsp_size(sub);
    uint64_t seed = 5000 + (uint64_t)dim * 100;
    for (int kind = BCAST; kind <= ALLGATHER; kind++)
      for (int a = 0; a < NALGS; a++)
        for (int G = 1; G <= Ps; G++) {
          if (Ps % G) continue;
          /* different roots in different rows: the rows really run different calls */
          tcase c = {sub, comm, kind, ALGS[a], G, color % Ps, 1001, HBSP_INT, HBSP_SUM, 0, seed++};
          check(&c, &fails);
        }
    MPI_Comm_free(&comm);
    CU_ASSERT_EQUAL(hbsp_free(&sub), HLA_OK);
  }
  CU_ASSERT(ht_all(MPI_COMM_WORLD, fails == 0));
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

/* Bad arguments: every rank returns HLA_ERR_ARG with the same message, nothing is written, and
 * nobody is left waiting. */
static void test_errors(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), rank = hbsp_rank(e), last = rank == P - 1;
  enum { N = 16 };
  int buf[N], out[8 * N], keep[N];
  for (int i = 0; i < N; i++) buf[i] = keep[i] = 7 * rank + i;
  memset(out, 0x5A, sizeof out);
  int out0 = out[0];
  hbsp_coll bad_alg = {(hbsp_alg)99, 0, 1}, too_many = {HBSP_FLAT, 0, P + 1};
  struct {
    const char *what;
    int rc;
  } r[16];
  int k = 0;
  r[k].what = "root -1";
  r[k++].rc = hbsp_bcast(e, buf, sizeof buf, -1, NULL);
  r[k].what = "root P";
  r[k++].rc = hbsp_reduce(e, buf, out, N, HBSP_INT, HBSP_SUM, P, NULL);
  r[k].what = "G > P";
  r[k++].rc = hbsp_allreduce(e, buf, out, N, HBSP_INT, HBSP_SUM, &too_many);
  r[k].what = "unknown alg";
  r[k++].rc = hbsp_gather(e, buf, out, sizeof buf, 0, &bad_alg);
  r[k].what = "unknown type";
  r[k++].rc = hbsp_allreduce(e, buf, out, N, (hbsp_type)42, HBSP_SUM, NULL);
  r[k].what = "type/op mismatch";
  r[k++].rc = hbsp_allreduce(e, buf, out, N / 4, HBSP_DOUBLE_INDEX, HBSP_SUM, NULL);
  r[k].what = "MAXLOC on int";
  r[k++].rc = hbsp_reduce(e, buf, out, N, HBSP_INT, HBSP_MAXLOC, 0, NULL);
  r[k].what = "NULL buffer on the last rank only (bcast)";
  r[k++].rc = hbsp_bcast(e, last ? NULL : buf, sizeof buf, 0, NULL);
  r[k].what = "NULL recv on the last rank only (allgather)";
  r[k++].rc = hbsp_allgather(e, buf, last ? NULL : out, sizeof buf, NULL);
  r[k].what = "NULL send on the last rank only (reduce, two-level)";
  hbsp_coll two = {HBSP_BINOMIAL, 0, P % 2 == 0 ? 2 : 1};
  r[k++].rc = hbsp_reduce(e, last ? NULL : buf, out, N, HBSP_INT, HBSP_SUM, 0, &two);
  r[k].what = "size overflow";
  r[k++].rc = hbsp_allgather(e, buf, out, SIZE_MAX, NULL);
  for (int i = 0; i < k; i++) {
    int ok = ht_all(MPI_COMM_WORLD, r[i].rc == HLA_ERR_ARG);
    CU_ASSERT(ok);
    if (!ok) fprintf(stderr, "rank %d: %s returned %d\n", rank, r[i].what, r[i].rc);
  }
  /* The last call's message, the same text on every rank. */
  CU_ASSERT(ht_same_text(hbsp_errmsg(e)));
  /* G not dividing P (e.g. 3 at P = 4) when such a G exists. */
  for (int G = 2; G < P; G++) {
    if (P % G == 0) continue;
    hbsp_coll how = {HBSP_NATIVE, 0, G};
    CU_ASSERT(ht_all(MPI_COMM_WORLD, hbsp_bcast(e, buf, sizeof buf, 0, &how) == HLA_ERR_ARG));
    CU_ASSERT(ht_same_text(hbsp_errmsg(e)));
  }
  /* Nothing was written. */
  int untouched = memcmp(buf, keep, sizeof buf) == 0 && out[0] == out0;
  for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) untouched &= out[i] == out0;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, untouched));
  CU_ASSERT_EQUAL(hbsp_bcast(NULL, buf, sizeof buf, 0, NULL), HLA_ERR_ARG);
  /* Still usable afterwards. */
  int sum = 0, one = 1;
  CU_ASSERT_EQUAL(hbsp_allreduce(e, &one, &sum, 1, HBSP_INT, HBSP_SUM, NULL), HLA_OK);
  CU_ASSERT_EQUAL(sum, P);
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

/* The internal entry points (no agreement): same results; global argument errors still caught
 * alike on every rank without communication. */
static void test_internal(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), rank = hbsp_rank(e), ok = 1;
  hbsp_coll how = {HBSP_PIPELINE, 100, P % 2 == 0 && P > 2 ? P / 2 : 1}; /* 100: not whole int64s */
  int64_t x[300], y[300];
  for (int i = 0; i < 300; i++) x[i] = rank == P - 1 ? 3 * i : -1;
  ok &= hbsp_coll_bcast(e, x, sizeof x, P - 1, &how) == HLA_OK;
  for (int i = 0; i < 300; i++) ok &= x[i] == 3 * i;
  ok &= hbsp_coll_allreduce(e, x, y, 300, HBSP_INT64, HBSP_SUM, &how) == HLA_OK;
  for (int i = 0; i < 300; i++) ok &= y[i] == (int64_t)P * 3 * i;
  int64_t *all = malloc(sizeof(int64_t) * (size_t)P);
  int64_t mine = 10 + rank;
  ok &= hbsp_coll_allgather(e, &mine, all, sizeof mine, &how) == HLA_OK;
  for (int r = 0; r < P; r++) ok &= all[r] == 10 + r;
  free(all);
  ok &= hbsp_coll_bcast(e, x, sizeof x, P, &how) == HLA_ERR_ARG;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, ok));
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

/* hbsp_coll_allreduce_rec with a combine in the manner of the LU's pivot search: the record with
 * the largest key (ties to the lower rank) wins with its payload, and one rank's extra payload is
 * carried along. Every rank ends with the same record, on every P (non-powers of two fold). */
typedef struct {
  int64_t key, rank, payload[3], has, extra[2];
} rec_t;

static void rec_max(void *inout, const void *in, void *arg) {
  rec_t *a = inout;
  const rec_t *b = in;
  (*(int *)arg)++;
  if (b->key > a->key || (b->key == a->key && b->rank < a->rank))
    a->key = b->key, a->rank = b->rank, memcpy(a->payload, b->payload, sizeof a->payload);
  if (b->has) a->has = 1, memcpy(a->extra, b->extra, sizeof a->extra);
}

static void test_allreduce_rec(void) {
  hbsp_env e = ht_world();
  const int P = hbsp_size(e), rank = hbsp_rank(e);
  int ok = 1, calls = 0;
  rec_t r = {(rank * 5) % 3, rank, {rank, -rank, 7 * rank}, rank == P / 2, {0, 0}}, ws;
  if (r.has) r.extra[0] = 100 + rank, r.extra[1] = 200 + rank;
  ok &= hbsp_coll_allreduce_rec(e, &r, &ws, sizeof r, rec_max, &calls) == HLA_OK;
  int64_t best = -1, who = -1; /* the expected winner */
  for (int q = 0; q < P; q++)
    if ((q * 5) % 3 > best) best = (q * 5) % 3, who = q;
  ok &= r.key == best && r.rank == who && r.payload[0] == who && r.payload[1] == -who &&
        r.payload[2] == 7 * who;
  ok &= r.has == 1 && r.extra[0] == 100 + P / 2 && r.extra[1] == 200 + P / 2;
  /* log2 of the largest power of two <= P combines at most, plus one for a fold */
  int steps = 0;
  while ((2 << steps) <= P) steps++;
  ok &= calls <= steps + 1;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, ok));
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

/* Many group counts on one environment (each cached), then freed: no leak, no hang. And G = P
 * is the base algorithm. */
static void test_cache(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), ok = 1;
  for (int rep = 0; rep < 2; rep++)
    for (int G = 1; G <= P; G++) {
      if (P % G) continue;
      hbsp_coll how = {HBSP_BINOMIAL, 0, G};
      double v = 1.0, s = 0;
      ok &= hbsp_allreduce(e, &v, &s, 1, HBSP_DOUBLE, HBSP_SUM, &how) == HLA_OK && s == P;
    }
  CU_ASSERT(ht_all(MPI_COMM_WORLD, ok));
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

void hla_test_register(void) {
  HT_SUITE("bsp_coll", test_bcast, test_reduce, test_allreduce, test_gather, test_scatter,
           test_allgather, test_types_ops, test_loc_ties, test_subenvs, test_errors, test_internal,
           test_allreduce_rec, test_cache);
}
