/* Allocation faults: for every public operation, the k-th allocation the library makes on one rank
 * fails (tests/fault.c, linked with --wrap), for every k up to the number the operation makes there
 * and for every rank. Then every rank must return the same code: HLA_ERR_NOMEM, or HLA_OK where a
 * fallback absorbs the failure (the result must then be the unarmed run's, bit for bit); the
 * inputs the header promises to keep on error are unchanged; and the same objects work afterwards
 * (a clean call gives the unarmed run's result) and are freed. LeakSanitizer (ASan's, or the
 * standalone -fsanitize=leak of a build without sanitizers) checks at exit that nothing leaked. A
 * hang trips a watchdog that names the case and ends the program (the ctest TIMEOUT backs it up).
 * Every case starts from a fresh world environment and grid: the library keeps buffers between
 * calls (workspaces, queues), so only a fresh start repeats the same allocations in the same
 * order. The LU family runs on a grid warmed up first (see cool()).
 * The fallbacks that absorb a failure: hdist_take drops the workspaces the grid keeps and tries
 * again (layout/workspace.c), and hbsp_board_create makes no board, the LU then sending messages
 * (bsp/board.c). The summary counts the distinct call sites (return addresses) of the failed
 * allocations, alone and with their callers.
 * To chase a case: FAULT_ONLY=text (the operations whose name holds it), FAULT_K=k (that case
 * only), FAULT_WATCHDOG=seconds, FAULT_VERBOSE=1 (each failure's site, for addr2line) or 2 (also
 * every allocation of the unarmed runs, with three callers); HLA_TRACE=1 for the error's path.
 * @procs 2 3
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dist/layout/layout_impl.h" /* cool(): the grid's kept workspaces and boards */
#include "fault.h"
#include "harness.h"

#define NMAX     128
#define WATCHDOG 30 /* seconds one case may take before it counts as a hang (or FAULT_WATCHDOG) */

/* What an operation reads and writes: bits of obj's parts. */
enum { PA = 1, PB = 2, PC = 4, PD = 8, PPIV = 16, POUT = 32, PNONE = 0 };

/* The objects of one case. */
typedef struct {
  hbsp_env w;
  hgrid g, g2; /* M x N, and (redistribution) N x M over the same ranks */
  int M, N;
  hmat A, B, C, D;
  hbsp_env e;    /* made by the call (hbsp_init, hbsp_split, ...) */
  hbsp_env twin; /* w's ranks in reverse order, for g2 */
  int64_t ipiv[NMAX];
  double in[NMAX], out[NMAX]; /* collectives: this rank's input, the output buffer */
} obj;

typedef struct fop fop;
struct fop {
  const char *name;
  int shape; /* the grid: 0: 1 x P, 1: P x 1, 2: automatic (0 x 0), 3: 2 x P/2 */
  int grid;  /* make the grid before the call */
  void (*make)(obj *, const fop *);      /* the inputs (unarmed) */
  int (*call)(obj *, const fop *);       /* the operation under test */
  void (*again)(obj *, const fop *);     /* the inputs back, for a clean call after the error */
  int (*made)(const obj *, const fop *); /* creations: 1 iff the output exists (else NULL) */
  int warm;                              /* run the call once unarmed first (see cool) */
  unsigned keep;                         /* parts the header promises to leave on error */
  unsigned out;                          /* parts compared with the unarmed run's */
  hla_opts opts;
  char ta, tb;
};

/* ---------------------------------------------------------------- snapshots of local parts */

typedef struct {
  unsigned char *p;
  size_t n;
} snap_t;

static void snap_add(snap_t *s, const void *p, size_t bytes) {
  s->p = realloc(s->p, s->n + bytes + 1);
  memcpy(s->p + s->n, p, bytes);
  s->n += bytes;
}

static void snap_mat(snap_t *s, hmat X) {
  double *a;
  int64_t lld, ml, nl;
  if (X == NULL) return;
  hmat_local(X, &a, &lld, &ml, &nl);
  for (int64_t j = 0; j < nl; j++) snap_add(s, a + j * lld, (size_t)ml * sizeof *a);
}

static snap_t snap(const obj *o, unsigned parts) {
  snap_t s = {NULL, 0};
  snap_add(&s, "", 0);
  if (parts & PA) snap_mat(&s, o->A);
  if (parts & PB) snap_mat(&s, o->B);
  if (parts & PC) snap_mat(&s, o->C);
  if (parts & PD) snap_mat(&s, o->D);
  if (parts & PPIV) snap_add(&s, o->ipiv, sizeof o->ipiv);
  if (parts & POUT) snap_add(&s, o->out, sizeof o->out);
  return s;
}

/* 1 iff equal here (bits, so a NaN written over a NaN still counts as unchanged). */
static int snap_same(snap_t a, snap_t b) {
  return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

/* ---------------------------------------------------------------- watchdog */

/* The offset of code address p in this program, for addr2line -e test_fault_alloc. */
static long offset_of(void *p) {
  Dl_info d;
  return p && dladdr(p, &d) && d.dli_fbase ? (long)((char *)p - (char *)d.dli_fbase) : 0;
}

static char case_name[160];
static int armed_here; /* this rank is the one whose allocation fails in the current case */

static void on_alarm(int sig) {
  (void)sig;
  /* Not async-signal-safe, but the program ends here anyway. */
  fprintf(stderr, "\ntest_fault_alloc: HANG on rank %d in %s", ht_rank(), case_name);
  if (armed_here && fault_fired())
    fprintf(stderr, "; the allocation failed at 0x%lx from 0x%lx (addr2line -e test_fault_alloc)",
            offset_of(fault_site(0)), offset_of(fault_site(1)));
  fprintf(stderr, "\n");
  _exit(3);
}

static void watch(const char *op, int rank, long k, const char *what) {
  snprintf(case_name, sizeof case_name, "%s, allocation %ld of rank %d failing (%s)", op, k, rank,
           what);
  const char *v = getenv("FAULT_WATCHDOG");
  signal(SIGALRM, on_alarm);
  alarm(v ? (unsigned)atoi(v) : WATCHDOG);
}

/* ---------------------------------------------------------------- the operations */

static uint64_t seed[5] = {11, 12, 13, 14, 15};

static void fill(hmat X, int s) {
  if (X != NULL) hmat_fill(X, ht_entry, &seed[s]);
}

static hmat mat(hgrid g, int64_t m, int64_t n, int mb, int nb) {
  hmat X = NULL;
  CU_ASSERT_EQUAL(hmat_create(g, m, n, mb, nb, &X), HLA_OK);
  return X;
}

enum { MM_M = 41, MM_N = 37, MM_K = 53, LU_N = 45, LU_NB = 7, NRHS = 3, NRHS_BIG = 70 };

/* hgrid_create */
static void make_none(obj *o, const fop *f) {}
static int call_grid(obj *o, const fop *f) {
  return f->shape == 2 ? hgrid_create(o->w, 0, 0, &o->g) : hgrid_create(o->w, o->M, o->N, &o->g);
}
static void again_grid(obj *o, const fop *f) {
  if (o->g) CU_ASSERT_EQUAL(hgrid_free(&o->g), HLA_OK);
}
static int made_grid(const obj *o, const fop *f) {
  return o->g != NULL;
}

/* hmat_create */
static int call_create(obj *o, const fop *f) {
  return hmat_create(o->g, MM_M, MM_N, 5, 7, &o->A);
}
static void again_create(obj *o, const fop *f) {
  hmat_free(&o->A);
}
static int made_create(const obj *o, const fop *f) {
  return o->A != NULL;
}

/* hmatmul: C := op(A) op(B) + C / 2, A and B in blocks that C's layout does not always match */
static void make_mm(obj *o, const fop *f) {
  int ta = f->ta == 'T', tb = f->tb == 'T';
  o->A = ta ? mat(o->g, MM_K, MM_M, 7, 5) : mat(o->g, MM_M, MM_K, 5, 7);
  o->B = tb ? mat(o->g, MM_N, MM_K, 3, 9) : mat(o->g, MM_K, MM_N, 9, 3);
  o->C = mat(o->g, MM_M, MM_N, 5, 3);
  fill(o->A, 0), fill(o->B, 1), fill(o->C, 2);
}
static int call_mm(obj *o, const fop *f) {
  hla_opts opts = f->opts;
  if (opts.mm_alg == HLA_MM_3D) opts.replication = o->M > o->N ? o->M : o->N; /* divides one */
  return hmatmul(f->ta, f->tb, 1.0, o->A, o->B, 0.5, o->C, &opts);
}
static void again_mm(obj *o, const fop *f) {
  fill(o->C, 2);
}

/* hlu_factor, hla_gesv */
static void make_lu(obj *o, const fop *f) {
  o->A = mat(o->g, LU_N, LU_N, LU_NB, LU_NB);
  o->B = mat(o->g, LU_N, NRHS, LU_NB, 2);
  fill(o->A, 3); /* random: rows move at every step (the pivots are not on the diagonal) */
  fill(o->B, 4);
  memset(o->ipiv, 0, sizeof o->ipiv);
}
static int call_factor(obj *o, const fop *f) {
  return hlu_factor(o->A, o->ipiv, &f->opts);
}
static int call_gesv(obj *o, const fop *f) {
  return hla_gesv(o->A, o->ipiv, o->B, &f->opts);
}
static void again_lu(obj *o, const fop *f) {
  fill(o->A, 3);
  fill(o->B, 4);
  memset(o->ipiv, 0, sizeof o->ipiv);
}

/* hlu_solve with the factors of an unarmed hlu_factor; nrhs in f->opts.inner_block (not an LU
 * option) */
static void make_solve(obj *o, const fop *f) {
  o->A = mat(o->g, LU_N, LU_N, LU_NB, LU_NB);
  o->B = mat(o->g, LU_N, f->opts.inner_block, LU_NB, 2);
  fill(o->A, 3);
  fill(o->B, 4);
  CU_ASSERT_EQUAL(hlu_factor(o->A, o->ipiv, NULL), HLA_OK);
}
static int call_solve(obj *o, const fop *f) {
  return hlu_solve(o->A, o->ipiv, o->B, NULL);
}
static void again_solve(obj *o, const fop *f) {
  fill(o->B, 4);
}

/* hmat_redistribute: from A (M x N grid) into D: on g (opts.groups = 0), or on g2, an N x M grid
 * over the same ranks in the same order (1) or reversed (2). */
static void make_redist(obj *o, const fop *f) {
  hbsp_env on = o->w;
  if (f->opts.groups == 2) {
    CU_ASSERT_EQUAL(hbsp_reorder(o->w, -hbsp_rank(o->w), &o->twin), HLA_OK);
    on = o->twin;
  }
  if (f->opts.groups) CU_ASSERT_EQUAL(hgrid_create(on, o->N, o->M, &o->g2), HLA_OK);
  o->A = mat(o->g, MM_M, MM_N, 5, 7);
  o->D = mat(f->opts.groups ? o->g2 : o->g, MM_M, MM_N, 3, 4);
  fill(o->A, 0), fill(o->D, 1);
}
static int call_redist(obj *o, const fop *f) {
  return hmat_redistribute(o->A, o->D);
}
static void again_redist(obj *o, const fop *f) {
  fill(o->D, 1);
}

/* hmat_scatter and hmat_gather from and to rank 1 (G: the global matrix in out[], 9 x 7); hmat_dup
 * of A into D; hmat_norm of A into out[0]. The kind in opts.groups. */
enum { SG_M = 9, SG_N = 7 };
static void make_small(obj *o, const fop *f) {
  o->A = mat(o->g, SG_M, SG_N, 2, 3);
  fill(o->A, 0);
  for (int i = 0; i < NMAX; i++) o->out[i] = i % 5 - 2.0;
}
static int call_small(obj *o, const fop *f) {
  switch (f->opts.groups) {
  case 0:
    return hmat_scatter(o->A, 1, o->out, SG_M);
  case 1:
    return hmat_gather(o->A, 1, o->out, SG_M);
  case 2:
    return hmat_dup(o->A, &o->D);
  default:
    return hmat_norm(o->A, f->opts.groups == 3 ? '1' : f->opts.groups == 4 ? 'I' : 'F', o->out);
  }
}
static void again_small(obj *o, const fop *f) {
  hmat_free(&o->D);
  fill(o->A, 0);
  for (int i = 0; i < NMAX; i++) o->out[i] = i % 5 - 2.0;
}
static int made_dup(const obj *o, const fop *f) {
  return o->D != NULL;
}

/* The BSP layer's environments: hbsp_init, hbsp_split, hbsp_reorder, hbsp_node into o->e; the kind
 * in opts.groups. */
static int call_env(obj *o, const fop *f) {
  int r = hbsp_rank(o->w);
  switch (f->opts.groups) {
  case 0:
    return hbsp_init(MPI_COMM_WORLD, &o->e);
  case 1:
    return hbsp_split(o->w, r % 2, -r, &o->e);
  case 2:
    return hbsp_reorder(o->w, -r, &o->e);
  default:
    return hbsp_node(o->w, &o->e);
  }
}
static void again_env(obj *o, const fop *f) {
  if (o->e) CU_ASSERT_EQUAL(hbsp_free(&o->e), HLA_OK);
}
static int made_env(const obj *o, const fop *f) {
  return o->e != NULL;
}

/* The BSP collectives (public: agreed) on the world environment; the kind in opts.groups. */
static void make_coll(obj *o, const fop *f) {
  int r = hbsp_rank(o->w);
  for (int i = 0; i < NMAX; i++) o->in[i] = r * 1000 + i, o->out[i] = f->opts.groups ? -7.0 : r;
}
static int call_coll(obj *o, const fop *f) {
  const hbsp_coll *how = &f->opts.bcast;
  int P = hbsp_size(o->w), n = NMAX / P;
  switch (f->opts.groups) {
  case 0:
    return hbsp_bcast(o->w, o->out, sizeof o->out, 1, how);
  case 1:
    return hbsp_allreduce(o->w, o->in, o->out, NMAX, HBSP_DOUBLE, HBSP_SUM, how);
  case 2:
    return hbsp_reduce(o->w, o->in, o->out, NMAX, HBSP_DOUBLE, HBSP_MAX, P - 1, how);
  case 3:
    return hbsp_allgather(o->w, o->in, o->out, (size_t)n * sizeof(double), how);
  case 4:
    return hbsp_gather(o->w, o->in, o->out, (size_t)n * sizeof(double), 0, how);
  default:
    return hbsp_scatter(o->w, o->in, o->out, (size_t)n * sizeof(double), 0, how);
  }
}
static void again_coll(obj *o, const fop *f) {
  make_coll(o, f);
}

/* hbsp_sync with puts, gets and messages (the layer under the distributed operations), then a
 * barrier. A sync that cannot allocate its receive buffers fails at once on its rank alone, which
 * drops that superstep's data, and on every rank at the next sync, barrier or free of the
 * environment (bsp.h): the barrier is where all agree. */
static void make_sync(obj *o, const fop *f) {
  make_coll(o, f);
  CU_ASSERT_EQUAL(hbsp_push_reg(o->w, o->out, sizeof o->out), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(o->w), HLA_OK);
}
static int call_sync(obj *o, const fop *f) {
  int P = hbsp_size(o->w), r = hbsp_rank(o->w), to = (r + 1) % P, code = HLA_OK;
  if (code == HLA_OK) code = hbsp_put(o->w, to, o->in, o->out, 0, 8 * sizeof(double));
  if (code == HLA_OK)
    code = hbsp_hpput(o->w, to, o->in + 8, o->out, 8 * sizeof(double), 40 * sizeof(double));
  if (code == HLA_OK) code = hbsp_get(o->w, to, o->out, 100 * sizeof(double), o->in + 100, 8);
  if (code == HLA_OK) code = hbsp_send(o->w, to, NULL, o->in, 16 * sizeof(double));
  /* Local calls fail on their rank alone: the caller agrees before the sync. What was queued
   * stays for the next sync (the clean call's: the same values land again). */
  int e = hbsp_allreduce(o->w, &code, &code, 1, HBSP_INT, HBSP_MAX, NULL);
  if (e != HLA_OK || code != HLA_OK) return e != HLA_OK ? e : code;
  e = hbsp_sync(o->w);
  int b = hbsp_barrier(o->w);
  return e != HLA_OK ? e : b;
}

/* ---------------------------------------------------------------- the driver */

/* What was covered on this rank: cases, failures, fallbacks, and the distinct call sites of the
 * failed allocations as offsets in the program (the same on every rank), with their callers. */
typedef struct {
  double t_open, t_close, t_case; /* seconds in obj_open, obj_close and whole cases */
  long cases, fired, tolerated;
  int nsites;
  long sites[1024][2];
} tally;

static tally T;

static void site_add(void *s0, void *s1) {
  long a = offset_of(s0), b = offset_of(s1);
  for (int i = 0; i < T.nsites; i++)
    if (T.sites[i][0] == a && T.sites[i][1] == b) return;
  if (T.nsites < 1024) T.sites[T.nsites][0] = a, T.sites[T.nsites][1] = b, T.nsites++;
}

/* Distinct entries of s[0..n): call sites alone (up = 0) or with their callers (up = 1). */
static int distinct(long (*s)[2], int n, int up) {
  int d = 0;
  for (int i = 0; i < n; i++) {
    int seen = 0;
    for (int j = 0; j < i && !seen; j++) seen = s[j][0] == s[i][0] && (!up || s[j][1] == s[i][1]);
    d += !seen;
  }
  return d;
}

/* The LU, its solves and hla_gesv allocate inside their loops the first time they run on a grid:
 * the message queues of its row and column environments grow to their size, and such a failure
 * inside a loop of subset supersteps is returned on the rank that saw it (lu.c). They are tested
 * on a grid that has run the same call once (warm), when the loops allocate nothing, after cool()
 * has dropped the workspaces and boards the grid keeps, so that the call allocates those again. */
static void cool(hgrid g) {
  for (int i = 0; i < HDIST_BLOCKS; i++) {
    free(g->cache[i].p);
    g->cache[i] = (hdist_block){NULL, 0, 0};
  }
  CU_ASSERT_EQUAL(hbsp_board_free(&g->rowb.b), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_board_free(&g->colb.b), HLA_OK);
  g->rowb.none = g->colb.none = 0;
}

static void obj_open(obj *o, const fop *f) {
  memset(o, 0, sizeof *o);
  int P = ht_size();
  o->M = f->shape == 1 ? P : f->shape == 3 ? 2 : 1;
  o->N = P / o->M;
  CU_ASSERT_EQUAL(hbsp_init(MPI_COMM_WORLD, &o->w), HLA_OK);
  if (f->grid) CU_ASSERT_EQUAL(hgrid_create(o->w, o->M, o->N, &o->g), HLA_OK);
  f->make(o, f);
  if (f->warm) {
    CU_ASSERT_EQUAL(f->call(o, f), HLA_OK);
    f->again(o, f);
    cool(o->g);
  }
}

static void obj_close(obj *o) {
  hmat_free(&o->A), hmat_free(&o->B), hmat_free(&o->C), hmat_free(&o->D);
  if (o->e) CU_ASSERT_EQUAL(hbsp_free(&o->e), HLA_OK);
  if (o->g) CU_ASSERT_EQUAL(hgrid_free(&o->g), HLA_OK);
  if (o->g2) CU_ASSERT_EQUAL(hgrid_free(&o->g2), HLA_OK);
  if (o->twin) CU_ASSERT_EQUAL(hbsp_free(&o->twin), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_free(&o->w), HLA_OK);
}

/* Reports a failed check once per case, with what it was, on the rank that saw it. */
static int expect(int ok, const fop *f, int rank, long k, const char *what, int code) {
  CU_ASSERT(ok);
  if (!ok)
    fprintf(stderr, "rank %d: %s, allocation %ld of rank %d failing: %s (code %d: %s)\n", ht_rank(),
            f->name, k, rank, what, code, hla_strerror(code));
  return ok;
}

/* The k-th allocation of rank `rank` fails during f; ref: the unarmed run's outputs. */
static void one_case(const fop *f, int rank, long k, snap_t ref) {
  int me = ht_rank();
  double t0 = MPI_Wtime();
  obj o;
  obj_open(&o, f);
  T.t_open += MPI_Wtime() - t0;
  snap_t before = snap(&o, f->keep);
  watch(f->name, rank, k, "the call");
  armed_here = me == rank;
  if (me == rank) fault_arm(k);
  int code = f->call(&o, f), fired = 0;
  if (me == rank) {
    fault_disarm();
    fired = fault_fired();
    if (fired) site_add(fault_site(0), fault_site(1));
    if (fired && getenv("FAULT_VERBOSE"))
      fprintf(stderr, "%s: allocation %ld of rank %d failed at 0x%lx from 0x%lx: code %d\n",
              f->name, k, rank, offset_of(fault_site(0)), offset_of(fault_site(1)), code);
  }
  watch(f->name, rank, k, "the checks and the clean call after it");
  /* One reduction for all the verdicts: max of code, of -code, of fired, and of the local
   * failures of "right result" and "inputs kept". */
  snap_t now = snap(&o, f->out), after = snap(&o, f->keep);
  int v[5] = {code, -code, fired, !(f->made ? f->made(&o, f) : snap_same(now, ref)),
              !(f->made ? !f->made(&o, f) : snap_same(before, after))},
      w[5];
  free(now.p), free(after.p);
  MPI_Allreduce(v, w, 5, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int right = !w[3];
  fired = w[2];
  expect(w[0] == -w[1], f, rank, k, "the ranks returned different codes", code);
  if (!fired) {
    expect(code == HLA_OK && right, f, rank, k, "not reached, yet no clean result", code);
  } else {
    expect(code == HLA_ERR_NOMEM || (code == HLA_OK && right), f, rank, k,
           "neither HLA_ERR_NOMEM nor a fallback with the right result", code);
    T.fired += me == rank;
    T.tolerated += me == rank && code == HLA_OK;
  }
  if (code != HLA_OK) expect(!w[4], f, rank, k, "inputs changed by the failed call", code);
  free(before.p);
  /* The same objects still work. */
  f->again(&o, f);
  code = f->call(&o, f);
  now = snap(&o, f->out);
  right = f->made ? f->made(&o, f) : snap_same(now, ref);
  free(now.p);
  expect(ht_all(MPI_COMM_WORLD, code == HLA_OK && right), f, rank, k,
         "the clean call after the failure did not give the right result", code);
  if (f->made) f->again(&o, f);
  double t1 = MPI_Wtime();
  obj_close(&o);
  T.t_close += MPI_Wtime() - t1;
  T.t_case += MPI_Wtime() - t0;
  alarm(0);
  T.cases += me == rank;
}

/* FAULT_ONLY=text runs only the operations whose name contains it (to chase one). */
static void run_op(const fop *f) {
  int P = ht_size(), me = ht_rank();
  const char *only = getenv("FAULT_ONLY");
  if (only && !strstr(f->name, only)) return;
  for (int rank = 0; rank < P; rank++) {
    obj o;
    obj_open(&o, f);
    watch(f->name, rank, 0, "the unarmed run");
    const char *verbose = getenv("FAULT_VERBOSE");
    void *(*trail)[4] = fault_trail(verbose && atoi(verbose) >= 2);
    if (me == rank) fault_arm(0);
    int code = f->call(&o, f);
    long n = me == rank ? fault_disarm() : 0;
    for (long k = 0; k < n && k < 4096 && verbose && atoi(verbose) >= 2; k++)
      printf("\n  %s: rank %d allocation %ld at 0x%lx 0x%lx 0x%lx 0x%lx", f->name, rank, k + 1,
             offset_of(trail[k][0]), offset_of(trail[k][1]), offset_of(trail[k][2]),
             offset_of(trail[k][3]));
    fault_trail(0);
    alarm(0);
    CU_ASSERT(ht_all(MPI_COMM_WORLD, code == HLA_OK));
    snap_t ref = snap(&o, f->out);
    if (f->made) f->again(&o, f);
    obj_close(&o);
    MPI_Bcast(&n, 1, MPI_LONG, rank, MPI_COMM_WORLD);
    if (getenv("FAULT_VERBOSE") && me == 0)
      printf("\n  %s: %ld allocations on rank %d", f->name, n, rank);
    const char *only_k = getenv("FAULT_K"); /* FAULT_K=k: only that case, to chase it */
    for (long k = 1; k <= n; k++)
      if (!only_k || atol(only_k) == k) one_case(f, rank, k, ref);
    free(ref.p);
  }
}

/* Each operation on a 1 x P and on a P x 1 grid; also on a 2 x P/2 grid where P >= 4 is even (by
 * hand, mpiexec -n 4: process rows and columns that are proper subsets of the grid). */
static void run_both(fop f) {
  f.shape = 0;
  run_op(&f);
  f.shape = 1;
  run_op(&f);
  if (ht_size() >= 4 && ht_size() % 2 == 0) {
    f.shape = 3;
    run_op(&f);
  }
}

#define GRID_OP(nm) .name = nm, .grid = 1

static void test_hgrid_create(void) {
  fop f = {.name = "hgrid_create",
           .make = make_none,
           .call = call_grid,
           .again = again_grid,
           .made = made_grid};
  run_both(f);
  f.name = "hgrid_create (automatic shape)", f.shape = 2;
  run_op(&f);
}

static void test_hmat_create(void) {
  fop f = {GRID_OP("hmat_create"), .make = make_none, .call = call_create, .again = again_create,
           .made = made_create};
  run_both(f);
}

static fop mm_op(const char *name, int alg, char ta, char tb) {
  fop f = {GRID_OP(name),        .make = make_mm,     .call = call_mm, .again = again_mm,
           .keep = PA | PB | PC, .out = PA | PB | PC, .ta = ta,        .tb = tb};
  f.opts.mm_alg = alg;
  return f;
}

static void test_hmatmul_summa(void) {
  run_both(mm_op("hmatmul SUMMA A^T B", HLA_MM_SUMMA, 'T', 'N'));
}

/* HSUMMA and 3D with the BSP layer's broadcasts (SUMMA above has MPI's). */
static void test_hmatmul_hsumma(void) {
  fop f = mm_op("hmatmul HSUMMA A B^T", HLA_MM_HSUMMA, 'N', 'T');
  f.opts.inner_block = 4, f.opts.outer_block = 8, f.opts.bcast.alg = HBSP_PIPELINE;
  run_both(f);
}

static void test_hmatmul_3d(void) {
  fop f = mm_op("hmatmul 3D A B", HLA_MM_3D, 'N', 'N');
  f.opts.bcast.alg = HBSP_BINOMIAL;
  run_both(f);
}

static fop lu_op(const char *name, int (*call)(obj *, const fop *), unsigned out) {
  fop f = {GRID_OP(name), .make = make_lu,        .call = call, .again = again_lu,
           .warm = 1,     .keep = PA | PB | PPIV, .out = out};
  return f;
}

static void test_hlu_factor(void) {
  fop f = lu_op("hlu_factor", call_factor, PA | PPIV);
  run_both(f);
  f.name = "hlu_factor (long swap, no look-ahead, column panel)";
  f.opts.swap = HLA_SWAP_SPREAD, f.opts.lookahead = -1, f.opts.panel = HLA_PANEL_COLUMNS;
  run_both(f);
  f.name = "hlu_factor (two levels, binomial broadcasts)";
  memset(&f.opts, 0, sizeof f.opts);
  f.opts.lu_alg = HLA_LU_HIER, f.opts.groups_row = f.opts.groups_col = 2;
  f.opts.bcast.alg = HBSP_BINOMIAL;
  run_both(f);
}

static void test_hla_gesv(void) {
  run_both(lu_op("hla_gesv", call_gesv, PA | PB | PPIV));
}

static void test_hlu_solve(void) {
  fop f = {GRID_OP("hlu_solve"), .make = make_solve, .call = call_solve,
           .again = again_solve, .warm = 1,          .keep = PA | PB | PPIV,
           .out = PA | PB | PPIV};
  f.opts.inner_block = NRHS;
  run_both(f);
  f.name = "hlu_solve (many right-hand sides)", f.opts.inner_block = NRHS_BIG;
  run_both(f);
}

static void test_hmat_redistribute(void) {
  fop f = {GRID_OP("hmat_redistribute (other blocks)"),
           .make = make_redist,
           .call = call_redist,
           .again = again_redist,
           .keep = PA | PD,
           .out = PA | PD};
  run_both(f);
  f.name = "hmat_redistribute (transposed grid)", f.opts.groups = 1;
  run_both(f);
  f.name = "hmat_redistribute (transposed grid, ranks reversed)", f.opts.groups = 2;
  run_both(f);
}

static void test_hmat_small(void) {
  static const char *const names[] = {"hmat_scatter", "hmat_gather", "hmat_dup",
                                      "hmat_norm 1",  "hmat_norm I", "hmat_norm F"};
  for (int kind = 0; kind < 6; kind++) {
    fop f = {GRID_OP(names[kind]), .make = make_small, .call = call_small,
             .again = again_small, .keep = PA | POUT,  .out = PA | PD | POUT};
    f.opts.groups = kind;
    if (kind == 2) f.made = made_dup;
    run_both(f);
  }
}

static void test_hbsp_envs(void) {
  static const char *const names[] = {"hbsp_init", "hbsp_split", "hbsp_reorder", "hbsp_node"};
  for (int kind = 0; kind < 4; kind++) {
    fop f = {.name = names[kind],
             .make = make_none,
             .call = call_env,
             .again = again_env,
             .made = made_env};
    f.opts.groups = kind;
    run_op(&f);
  }
}

static void test_hbsp_collectives(void) {
  static const char *const names[] = {"hbsp_bcast",     "hbsp_allreduce", "hbsp_reduce",
                                      "hbsp_allgather", "hbsp_gather",    "hbsp_scatter"};
  static const hbsp_alg algs[] = {HBSP_PIPELINE, HBSP_SCATTER_ALLGATHER, HBSP_BINOMIAL, HBSP_AUTO,
                                  HBSP_FLAT,     HBSP_BINOMIAL};
  for (int kind = 0; kind < 6; kind++) {
    fop f = {.name = names[kind],
             .make = make_coll,
             .call = call_coll,
             .again = again_coll,
             .keep = POUT,
             .out = POUT};
    f.opts.groups = kind, f.opts.bcast.alg = algs[kind], f.opts.bcast.segment = 64;
    run_op(&f);
  }
}

static void test_hbsp_sync(void) {
  fop f = {.name = "hbsp_sync",
           .make = make_sync,
           .call = call_sync,
           .again = again_coll,
           .keep = PNONE,
           .out = POUT};
  run_op(&f);
}

/* Last: what was covered, summed over the ranks on rank 0. */
static void test_summary(void) {
  int P = ht_size(), me = ht_rank(), n = 2 * T.nsites, *counts = calloc((size_t)P, sizeof(int)),
      *displs = calloc((size_t)P, sizeof(int));
  long v[3] = {T.cases, T.fired, T.tolerated}, s[3],
       (*all)[2] = calloc(1024 * (size_t)P, 2 * sizeof(long));
  MPI_Reduce(v, s, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < P; r++) displs[r] = displs[r - 1] + counts[r - 1];
  MPI_Gatherv(T.sites, n, MPI_LONG, all, counts, displs, MPI_LONG, 0, MPI_COMM_WORLD);
  int ns = (displs[P - 1] + counts[P - 1]) / 2;
  if (me == 0) {
    printf("\n  %ld cases, %ld failed an allocation (%ld absorbed by a fallback); distinct call "
           "sites of the failed allocations: %d (with their callers: %d) ",
           s[0], s[1], s[2], distinct(all, ns, 0), distinct(all, ns, 1));
    if (getenv("FAULT_VERBOSE"))
      printf("\n  rank 0: %.1f s in cases, %.1f s of it making and %.1f s freeing the objects",
             T.t_case, T.t_open, T.t_close);
    if (getenv("FAULT_VERBOSE")) /* for addr2line -e test_fault_alloc */
      for (int i = 0; i < ns; i++) printf("\n  site 0x%lx 0x%lx", all[i][0], all[i][1]);
  }
  free(counts), free(displs), free(all);
}

void hla_test_register(void) {
  HT_SUITE("fault_alloc", test_hgrid_create, test_hmat_create, test_hmatmul_summa,
           test_hmatmul_hsumma, test_hmatmul_3d, test_hlu_factor, test_hla_gesv, test_hlu_solve,
           test_hmat_redistribute, test_hmat_small, test_hbsp_envs, test_hbsp_collectives,
           test_hbsp_sync, test_summary);
}
