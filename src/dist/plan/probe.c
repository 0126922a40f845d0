/* hla — the machine probe (hplan_measure: all of hplan_probe but its end-to-end calibration, which
 * src/dist/calibrate.c adds) and the automatic paths' model (hplan_obtain: the machine file, or a
 * probe saved to it).
 *
 * What the probe measures, in this order, on a split of env (its own traffic):
 *   board        whether a node's ranks get a board (hbsp_board_create; none under SimGrid);
 *   r            DAXPY pairs (hbsp_probe_rate, bspbench's r);
 *   dgemm        every rank at once with the thread policy's threads: m = n = 768 and
 *                k = 32 ... 768, then m = 16, 48, 768 with k = 256; 1/rate is fitted linear in 1/k
 *                and in 1/m (least squares), which gives khalf and mhalf; the level (gemm_rate)
 *                is the rate of m = n = k = 1536 (matrices beyond the caches);
 *   threads      one rank per node (the others sleep in the barriers) with 1, 2, ... cores threads
 *                (at most 12 counts: 1, 2, 4, ... and the core count above 8), m = n = k = 768;
 *   panel LU     hkern_panel_lu of 8192 x 32 and 8192 x 128, every rank at once (fit in 1/jb);
 *   dgetrf       LAPACK's LU of order 1920, every rank at once: its loss against the dgemm level;
 *   fresh memory 40 MiB allocated, zeroed and freed (page faults), every rank at once;
 *   copy         hkern_pack of a 2048 x 1024 block with leading dimension 4096, every rank at once;
 *   links        ping-pong in rounds of the XOR partner function (hplan_pairwise, at most 64
 *                rounds): the median latency and inverse bandwidth of the pairs inside a node and
 *                of those across nodes;
 *   node memory  every rank trades 4 MiB with a partner on its node (local ranks 2i and 2i + 1),
 *                all at once: the bytes a node's messages move a second (node_bw); then the first
 *                two ranks of every node ping-pong 8 B and 256 KiB while the others wait (the link
 *                inside a node alone, intra_alone: the pairwise rounds above load it with all the
 *                node's pairs);
 *   BSP          g (bulk puts, h up to 16384 words) and l (h up to 32 words) of hbsp_sync, and one
 *                small max-with-location allreduce, for the world, the node environments and the
 *                rows and columns of the most square grid (all subsets at once);
 *   broadcasts   world broadcast per algorithm at 8 B, 64 KiB, 1 MiB; MPI_Ibcast + wait of 1 MiB
 *                on the world, on every row of that grid at once and on every column at once;
 *   sync load    8 times a dgemm of order 256 then an allreduce, against the dgemms alone: the
 *                cost of a collective right after computing beyond its latency;
 *   overlap      an MPI_Ibcast of 1 MiB against a dgemm of about the same time that tests it
 *                between four slices: overlap = (t_bcast + t_gemm - t_both) / min(both);
 * Every timing: a barrier, each rank times its part (short kernels repeated to about 2.5e8 flops),
 * the maximum over ranks is one repetition; at
 * least 3 and at most 9 repetitions (after a warm-up), until the last three are within 5 % of
 * their median (or half a second was spent); the median is kept. All ranks see the same maxima, so
 * they take the same decisions and end with the same model.
 */
#define _GNU_SOURCE /* gethostname, nanosleep, mkdir */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <cblas.h>
#include <omp.h>
#include "bsp/coll_impl.h"
#include "bsp/probe.h"
#include "dist/plan/probe.h"
#include "kernels/kernels.h"

/* ---------------------------------------------------------------- timing */

/* Wait for a request without spinning (so that a computing rank on the same core runs). */
static int sleepy_wait(MPI_Request *r) {
  int done = 0;
  while (!done) {
    if (MPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return HLA_ERR_MPI;
    if (!done) {
      struct timespec ts = {0, 50000};
      nanosleep(&ts, NULL);
    }
  }
  return HLA_OK;
}

static int barrier(MPI_Comm comm, int sleepy) {
  if (!sleepy) return MPI_Barrier(comm) == MPI_SUCCESS ? HLA_OK : HLA_ERR_MPI;
  MPI_Request r;
  if (MPI_Ibarrier(comm, &r) != MPI_SUCCESS) return HLA_ERR_MPI;
  return sleepy_wait(&r);
}

static double median_of(const double *v, int n) {
  double s[64];
  if (n > 64) n = 64;
  memcpy(s, v, (size_t)n * sizeof *s);
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
      double t = s[j];
      s[j] = s[j - 1], s[j - 1] = t;
    }
  return n == 0 ? 0.0 : n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* Rows of the panel LU measured (tall: the panels of large matrices). */
#define PANEL_M 8192

/* Runs of a kernel of `flops` in one timed repetition: about 2.5e8 flops, so that a repetition
 * lasts milliseconds even on a fast core, and time-sharing of oversubscribed cores averages out. */
static int reps_for(double flops) {
  double r = ceil(2.5e8 / (flops > 1 ? flops : 1));
  return r < 1 ? 1 : r > 256 ? 256 : (int)r;
}

#define REPS_MIN 3
#define REPS_MAX 9
#define REPS_TOL 0.05
/* Seconds of repetitions after which a measurement stops at its minimum count. */
#define REPS_BUDGET 0.5

/* Time fn (on the active ranks; prep before each repetition, untimed) as described at the top;
 * *med = the median of the per-repetition maxima over ranks divided by inner. Collective over
 * comm. An error of fn on any rank makes every rank return it (HLA_ERR_INTERNAL if codes differ).
 */
int hplan_timed(MPI_Comm comm, int active, int sleepy, hplan_probe_fn fn, hplan_probe_fn prep,
                void *arg, int inner, double *med) {
  double t[REPS_MAX];
  int n = 0, err = HLA_OK;
  *med = 0;
#ifdef HLA_SMPI
  sleepy = 0; /* SMPI's ranks never spin, and its MPI_Ibarrier is no barrier (bsp/sync.c) */
#endif
  if (inner < 1) inner = 1;
  for (int rep = -1; rep < REPS_MAX; rep++) {
    if (active && prep && err == HLA_OK) err = prep(arg);
    int e = barrier(comm, sleepy);
    if (e != HLA_OK) return e;
    double t0 = MPI_Wtime();
    for (int i = 0; i < inner && active && err == HLA_OK; i++) err = fn(arg);
    double v[2] = {active ? MPI_Wtime() - t0 : 0.0, (double)err};
    if (sleepy) {
      MPI_Request r;
      if (MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm, &r) != MPI_SUCCESS)
        return HLA_ERR_MPI;
      if ((e = sleepy_wait(&r)) != HLA_OK) return e;
    } else if (MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS) {
      return HLA_ERR_MPI;
    }
    if (v[1] != 0) return (int)v[1];
    if (rep < 0) continue;
    t[n++] = v[0] / inner;
    if (n >= REPS_MIN) {
      double md = median_of(t + n - REPS_MIN, REPS_MIN), lo = md, hi = md, sum = 0;
      for (int i = n - REPS_MIN; i < n; i++) lo = fmin(lo, t[i]), hi = fmax(hi, t[i]);
      for (int i = 0; i < n; i++) sum += t[i] * inner;
      if (md > 0 && (hi - lo) / md < REPS_TOL) break;
      if (sum > REPS_BUDGET) break; /* long kernels: three repetitions are enough */
    }
  }
  *med = median_of(t, n);
  return HLA_OK;
}

/* ---------------------------------------------------------------- local kernels to time */

/* A node's memory (hplan_machine.node_bw, intra_alone): messages between two ranks of a node. */
enum { NODE_BYTES = 4 << 20, ALONE_BYTES = 1 << 18, NODE_TAG = 19 };
typedef struct {
  MPI_Comm comm; /* the node's */
  int peer;      /* the partner on the node; -1: none */
  int first;     /* ping-pong: this rank sends first */
  int bytes;
  char *out, *in;
} node_arg;

static int run_trade(void *p) {
  node_arg *a = p;
  if (a->peer < 0) return HLA_OK;
  return MPI_Sendrecv(a->out, a->bytes, MPI_BYTE, a->peer, NODE_TAG, a->in, a->bytes, MPI_BYTE,
                      a->peer, NODE_TAG, a->comm, MPI_STATUS_IGNORE) == MPI_SUCCESS
             ? HLA_OK
             : HLA_ERR_MPI;
}

static int run_round_trip(void *p) {
  node_arg *a = p;
  int e[2];
  for (int i = 0; i < 2; i++)
    e[i] = i == !a->first
               ? MPI_Send(a->out, a->bytes, MPI_BYTE, a->peer, NODE_TAG, a->comm)
               : MPI_Recv(a->in, a->bytes, MPI_BYTE, a->peer, NODE_TAG, a->comm, MPI_STATUS_IGNORE);
  return e[0] == MPI_SUCCESS && e[1] == MPI_SUCCESS ? HLA_OK : HLA_ERR_MPI;
}

typedef struct {
  int64_t m, n, k, ld;
  double *a, *b, *c;
  int slices;       /* > 0: cut into column slices, testing req in between */
  MPI_Request *req; /* may be NULL */
} gemm_arg;

static int run_gemm(void *p) {
  gemm_arg *g = p;
  if (g->slices <= 1)
    return hkern_dgemm('N', 'N', g->m, g->n, g->k, 1.0, g->a, g->ld, g->b, g->ld, 0.0, g->c, g->ld);
  int64_t w = (g->n + g->slices - 1) / g->slices;
  for (int64_t j = 0; j < g->n; j += w) {
    int64_t nc = g->n - j < w ? g->n - j : w;
    HLA_CALL(hkern_dgemm('N', 'N', g->m, nc, g->k, 1.0, g->a, g->ld, g->b + j * g->ld, g->ld, 0.0,
                         g->c + j * g->ld, g->ld));
    if (g->req && *g->req != MPI_REQUEST_NULL) {
      int done;
      MPI_Test(g->req, &done, MPI_STATUS_IGNORE);
    }
  }
  return HLA_OK;
}

/* An m x n LU timed on a fresh copy of orig: the node kernel's recursive panel or LAPACK's dgetrf.
 */
typedef struct {
  int64_t m, n;
  double *a, *orig;
  int64_t *ipiv;
  int getrf;
} lu_arg;

static int prep_lu(void *p) {
  lu_arg *q = p;
  memcpy(q->a, q->orig, (size_t)(q->m * q->n) * sizeof(double));
  return HLA_OK;
}

static int run_lu(void *p) {
  lu_arg *q = p;
  int64_t info;
  return q->getrf ? hkern_dgetrf(q->m, q->n, q->a, q->m, q->ipiv, &info)
                  : hkern_panel_lu(q->m, q->n, q->a, q->m, q->ipiv, &info);
}

#define ALLOC_PROBE ((size_t)40 << 20)

static int run_alloc(void *p) {
  (void)p;
  double *b = hla_alloc(ALLOC_PROBE); /* as the library allocates a matrix (hdist_alloc) */
  if (b == NULL) return HLA_ERR_NOMEM;
  memset(b, 0, ALLOC_PROBE);
  free(b);
  return HLA_OK;
}

typedef struct {
  int64_t m, n, lda;
  double *a, *buf;
} copy_arg;

static int run_copy(void *p) {
  copy_arg *c = p;
  hkern_pack(c->m, c->n, c->a, c->lda, c->buf);
  return HLA_OK;
}

typedef struct {
  hbsp_env env;
  void *buf;
  size_t bytes;
  hbsp_coll how;
  int native; /* 1: MPI_Ibcast + wait (for the overlap) */
  MPI_Request *req;
} bcast_arg;

static int run_bcast(void *p) {
  bcast_arg *b = p;
  if (b->native) {
    MPI_Request r;
    if (MPI_Ibcast(b->buf, (int)b->bytes, MPI_BYTE, 0, hbsp_comm(b->env), &r) != MPI_SUCCESS)
      return HLA_ERR_MPI;
    return MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS ? HLA_OK : HLA_ERR_MPI;
  }
  return hbsp_coll_bcast(b->env, b->buf, b->bytes, 0, &b->how);
}

/* LOAD_EVENTS times: a dgemm, then (sync) an allreduce of one int. */
#define LOAD_EVENTS 8
typedef struct {
  gemm_arg *g;
  MPI_Comm comm;
  int sync;
} load_arg;

static int run_load(void *p) {
  load_arg *l = p;
  for (int i = 0; i < LOAD_EVENTS; i++) {
    HLA_CALL(run_gemm(l->g));
    int v = i;
    if (l->sync && MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, l->comm) != MPI_SUCCESS)
      return HLA_ERR_MPI;
  }
  return HLA_OK;
}

typedef struct {
  bcast_arg *b;
  gemm_arg *g;
} both_arg;

static int run_both(void *p) {
  both_arg *x = p;
  MPI_Request r;
  if (MPI_Ibcast(x->b->buf, (int)x->b->bytes, MPI_BYTE, 0, hbsp_comm(x->b->env), &r) != MPI_SUCCESS)
    return HLA_ERR_MPI;
  x->g->req = &r;
  int e = run_gemm(x->g);
  x->g->req = NULL;
  if (MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS) return HLA_ERR_MPI;
  return e;
}

typedef struct {
  hbsp_env env;
} ar_arg;

static int run_ar(void *p) {
  ar_arg *a = p;
  hbsp_dloc in = {(double)hbsp_rank(a->env), hbsp_rank(a->env)}, out;
  return hbsp_coll_allreduce(a->env, &in, &out, 1, HBSP_DOUBLE_INDEX, HBSP_MAXABSLOC, NULL);
}

/* ---------------------------------------------------------------- fits */

/* 1/rate = a + c / x  ->  asymptotic rate 1/a and half length c/a. */
static void fit_half(const double *x, const double *rate, int n, double *rinf, double *half) {
  double xi[16], yi[16], s, i0;
  for (int i = 0; i < n; i++) xi[i] = 1.0 / x[i], yi[i] = 1.0 / rate[i];
  if (hbsp_ols(xi, yi, n, &s, &i0) != HLA_OK || !(i0 > 0) || s < 0) {
    double best = 0;
    for (int i = 0; i < n; i++) best = fmax(best, rate[i]);
    *rinf = best, *half = 0;
    return;
  }
  *rinf = 1.0 / i0;
  *half = s / i0;
}

/* ---------------------------------------------------------------- the probe */

typedef struct {
  hbsp_env penv, node, row, col;
  double *a, *b, *c, *pa, *po;
  int64_t *ipiv, *ipiv2;
  char *bb;
} probe_ws;

static void ws_free(probe_ws *w) {
  free(w->a), free(w->b), free(w->c), free(w->pa), free(w->po), free(w->ipiv), free(w->ipiv2);
  free(w->bb);
}

static void fill(double *v, int64_t n, uint64_t seed) {
  uint64_t s = seed;
  for (int64_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = (double)(s >> 11) * 0x1.0p-53 - 0.5;
  }
}

/* BSP g, l and the small allreduce of sub (one of the subsets of penv, all measured at once). */
static int probe_env(probe_ws *w, hbsp_env sub, hplan_machine *m, int idx) {
  int p = hbsp_size(sub), pmax = p;
  MPI_Allreduce(MPI_IN_PLACE, &pmax, 1, MPI_INT, MPI_MAX, hbsp_comm(w->penv));
  m->env_p[idx] = pmax;
  if (pmax < 2) return HLA_OK;
  hbsp_hrel_opts small = {0, 32, 4, 5, 2, HBSP_HREL_BULK};
  hbsp_hrel_opts big = {0, 16384, 4, 3, 1, HBSP_HREL_BULK};
  hbsp_gl gs, gb;
  HLA_CALL(hbsp_probe_gl_sub(w->penv, sub, 1, &small, 0, &gs));
  HLA_CALL(hbsp_probe_gl_sub(w->penv, sub, 1, &big, 0, &gb));
  m->l[idx] = gs.l > 0 ? gs.l : gs.t[0];
  m->g[idx] = gb.g > 0 ? gb.g : 0;
  ar_arg a = {sub};
  return hplan_timed(hbsp_comm(w->penv), 1, 0, run_ar, NULL, &a, 10, &m->ar[idx]);
}

static int probe_body(hbsp_env env, probe_ws *w, hplan_machine *m) {
  MPI_Comm pc;
  int P = hbsp_size(env), me = hbsp_rank(env);
  HLA_CALL(hbsp_split(env, 0, me, &w->penv));
  pc = hbsp_comm(w->penv);
  double t0 = MPI_Wtime();
  HLA_CALL(hbsp_node(w->penv, &w->node));

  /* who and where */
  memset(m, 0, sizeof *m);
  m->version = HPLAN_VERSION;
  m->P = P;
  if (me == 0 && gethostname(m->host, sizeof m->host - 1) != 0) strcpy(m->host, "unknown");
  MPI_Bcast(m->host, sizeof m->host, MPI_CHAR, 0, pc);
  int leader = hbsp_rank(w->node) == 0;
  MPI_Allreduce(&leader, &m->nodes, 1, MPI_INT, MPI_SUM, pc);
  MPI_Comm shm;
  if (MPI_Comm_split_type(pc, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shm) != MPI_SUCCESS)
    return HBSP_FAIL(env, HLA_ERR_MPI, "hplan_probe: MPI_Comm_split_type failed");
  int shm_size, shm_rank;
  MPI_Comm_size(shm, &shm_size);
  MPI_Comm_rank(shm, &shm_rank);
  MPI_Comm_free(&shm);
  MPI_Allreduce(&shm_size, &m->ranks_per_node, 1, MPI_INT, MPI_MAX, pc);
  m->cores_per_node = hkern_node_cores();
  MPI_Allreduce(MPI_IN_PLACE, &m->cores_per_node, 1, MPI_INT, MPI_MIN, pc);
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  m->mem_per_node = pages > 0 && psz > 0 ? (double)pages * (double)psz : 0;
  MPI_Allreduce(MPI_IN_PLACE, &m->mem_per_node, 1, MPI_DOUBLE, MPI_MIN, pc);
  int threads = hkern_threads_choose(hbsp_settings(env)->num_threads, shm_size, m->cores_per_node,
                                     hkern_affinity_cores());
  openblas_set_num_threads(threads);
  omp_set_num_threads(threads);
  MPI_Allreduce(&threads, &m->threads, 1, MPI_INT, MPI_MAX, pc);
  { /* whether a node's ranks can share a board, which the LU uses on one node (model.c) */
    hbsp_board bd = NULL;
    int e = hbsp_size(w->node) > 1 ? hbsp_board_create(w->node, 64, 1, &bd) : HLA_OK;
    int none = e == HLA_OK && hbsp_size(w->node) > 1 && bd == NULL;
    if (e == HLA_OK) e = hbsp_board_free(&bd);
    HLA_CALL(hbsp_agree(w->penv, e));
    MPI_Allreduce(&none, &m->no_board, 1, MPI_INT, MPI_MAX, pc);
  }

  /* r */
  hbsp_rate rr;
  HLA_CALL(hbsp_probe_rate(w->penv, 1 << 12, 1e-3, NULL, &rr));
  m->r = rr.ravg;

  /* dgemm: k and m sweeps with every rank computing */
  const int64_t NR = 768;
  int ok = (w->a = malloc(sizeof(double) * NR * NR)) && (w->b = malloc(sizeof(double) * NR * NR)) &&
           (w->c = malloc(sizeof(double) * NR * NR * 2)) &&
           (w->pa = malloc(sizeof(double) * PANEL_M * 128)) &&
           (w->po = malloc(sizeof(double) * PANEL_M * 128)) &&
           (w->ipiv = malloc(sizeof(int64_t) * 128)) && (w->ipiv2 = malloc(sizeof(int64_t) * NR)) &&
           (w->bb = malloc((size_t)1 << 20));
  HLA_CALL(hbsp_agree(
      w->penv, ok ? HLA_OK : HBSP_FAIL(w->penv, HLA_ERR_NOMEM, "hplan_probe: out of memory")));
  fill(w->a, NR * NR, 1 + me), fill(w->b, NR * NR, 2 + me), fill(w->c, NR * NR * 2, 3);
  fill(w->po, PANEL_M * 128, 4 + me);
  memset(w->bb, 1, (size_t)1 << 20);
  {
    const double ks[5] = {32, 64, 128, 256, 768}, ms[3] = {16, 48, 768};
    double rk[5], rm[3], t, rinf_k, rinf_m;
    for (int i = 0; i < 5; i++) {
      gemm_arg g = {NR, NR, (int64_t)ks[i], NR, w->a, w->b, w->c, 0, NULL};
      HLA_CALL(hplan_timed(pc, 1, 0, run_gemm, NULL, &g, reps_for(2.0 * NR * NR * ks[i]), &t));
      rk[i] = 2.0 * NR * NR * ks[i] / t;
    }
    for (int i = 0; i < 3; i++) {
      gemm_arg g = {(int64_t)ms[i], NR, 256, NR, w->a, w->b, w->c, 0, NULL};
      HLA_CALL(hplan_timed(pc, 1, 0, run_gemm, NULL, &g, reps_for(2.0 * ms[i] * NR * 256), &t));
      rm[i] = 2.0 * ms[i] * NR * 256 / t;
    }
    fit_half(ks, rk, 5, &rinf_k, &m->gemm_khalf);
    fit_half(ms, rm, 3, &rinf_m, &m->gemm_mhalf);
    m->gemm_rate = rinf_k * (1 + m->gemm_mhalf / NR);
    /* the level at a size beyond the caches (matrices of 18 MiB): the sweeps above give the
     * shape, this one the rate large multiplies really get */
    const int64_t NB = 1536;
    double *ba = malloc(sizeof(double) * NB * NB * 3);
    int e = ba ? HLA_OK : HBSP_FAIL(w->penv, HLA_ERR_NOMEM, "hplan_probe: out of memory");
    e = hbsp_agree(w->penv, e);
    if (e == HLA_OK) {
      fill(ba, NB * NB * 3, 7 + me);
      gemm_arg g = {NB, NB, NB, NB, ba, ba + NB * NB, ba + 2 * NB * NB, 0, NULL};
      e = hplan_timed(pc, 1, 0, run_gemm, NULL, &g, 1, &t);
    }
    free(ba);
    HLA_CALL(e);
    /* large multiplies run at about this rate, not faster (memory): it is the level, and the
     * half lengths only penalise thin shapes */
    m->gemm_rate = 2.0 * NB * NB * NB / t;
  }

  /* dgemm per thread count: one rank per node, the others asleep */
  {
    int cores = m->cores_per_node, counts[16], nc = 0;
    for (int t = 1; t <= cores && nc < 12; t = t < 8 ? t + 1 : t * 2) counts[nc++] = t;
    if (counts[nc - 1] != cores && nc < 16 && cores <= HPLAN_MAX_THREADS) counts[nc++] = cores;
    m->nthreads = cores < HPLAN_MAX_THREADS ? cores : HPLAN_MAX_THREADS;
    double meas[16];
    for (int i = 0; i < nc; i++) {
      int t = counts[i];
      int64_t s = NR; /* more threads, the same size: enough work up to a few threads */
      if (leader) openblas_set_num_threads(t), omp_set_num_threads(t);
      gemm_arg g = {s, s, s, NR, w->a, w->b, w->c, 0, NULL};
      double tt;
      HLA_CALL(hplan_timed(pc, leader, 1, run_gemm, NULL, &g, 1, &tt));
      meas[i] = 2.0 * s * s * s / tt; /* at 768: the ratios between thread counts matter */
    }
    openblas_set_num_threads(threads);
    omp_set_num_threads(threads);
    for (int t = 1; t <= m->nthreads; t++) { /* interpolate between the measured counts */
      int i = 0;
      while (i + 1 < nc && counts[i + 1] < t) i++;
      if (counts[i] == t || i + 1 >= nc)
        m->gemm_threads[t - 1] = meas[i] * (counts[i] == t ? 1.0 : (double)t / counts[i]);
      else
        m->gemm_threads[t - 1] = meas[i] + (meas[i + 1] - meas[i]) * (t - counts[i]) /
                                               (double)(counts[i + 1] - counts[i]);
    }
  }

  /* node-local panel LU */
  {
    const double jbs[2] = {32, 128};
    double rp[2], t;
    for (int i = 0; i < 2; i++) {
      lu_arg q = {PANEL_M, (int64_t)jbs[i], w->pa, w->po, w->ipiv, 0};
      HLA_CALL(hplan_timed(pc, 1, 0, run_lu, prep_lu, &q, 1, &t));
      rp[i] = ((double)PANEL_M * jbs[i] * jbs[i] - jbs[i] * jbs[i] * jbs[i] / 3) / t;
    }
    fit_half(jbs, rp, 2, &m->panel_rate, &m->panel_half);
  }

  /* LAPACK dgetrf (the one-process LU) of order 1920: its loss against the dgemm level, as a
   * half order (the n^2 terms of its panels) */
  {
    const int64_t ng = 1920;
    double t = 0;
    double *ga = malloc(sizeof(double) * ng * ng * 2);
    int64_t *gp = malloc(sizeof(int64_t) * ng);
    int e = ga && gp ? HLA_OK : HBSP_FAIL(w->penv, HLA_ERR_NOMEM, "hplan_probe: out of memory");
    e = hbsp_agree(w->penv, e);
    if (e == HLA_OK) {
      lu_arg q = {ng, ng, ga + ng * ng, ga, gp, 1};
      fill(ga, ng * ng, 9 + me);
      e = hplan_timed(pc, 1, 0, run_lu, prep_lu, &q, 1, &t);
    }
    free(ga), free(gp);
    HLA_CALL(e);
    double rg = 2.0 / 3 * (double)ng * ng * ng / t;
    m->getrf_rate = m->gemm_rate;
    m->getrf_half = rg < m->gemm_rate ? (m->gemm_rate / rg - 1) * (double)ng : 0.0;
  }

  /* fresh memory: larger than glibc's largest heap block, so mapped (and faulted) every time */
  {
    double t;
    HLA_CALL(hplan_timed(pc, 1, 0, run_alloc, NULL, NULL, 1, &t));
    m->alloc_rate = t > 0 ? (double)ALLOC_PROBE / t : 0;
  }

  /* copy: 16 MiB out of a 32 MiB matrix, beyond the caches */
  {
    double *src = malloc(sizeof(double) * 4096 * 1024), *dst = malloc(sizeof(double) * 2048 * 1024);
    int e = src && dst ? HLA_OK : HBSP_FAIL(w->penv, HLA_ERR_NOMEM, "hplan_probe: out of memory");
    e = hbsp_agree(w->penv, e);
    double t = 0;
    if (e == HLA_OK) {
      fill(src, 4096 * 1024, 5 + me), fill(dst, 2048 * 1024, 6);
      copy_arg c = {2048, 1024, 4096, src, dst};
      e = hplan_timed(pc, 1, 0, run_copy, NULL, &c, 8, &t);
    }
    free(src), free(dst);
    HLA_CALL(e);
    m->copy_rate = 8.0 * 2048 * 1024 / t;
  }

  /* links */
  m->link[HPLAN_INTRA] = m->link[HPLAN_INTER] = (hplan_link){0, 0};
  if (P > 1) {
    double *lat = malloc(sizeof(double) * (size_t)P * P),
           *ib = malloc(sizeof(double) * (size_t)P * P);
    int *node_of = malloc(sizeof(int) * (size_t)P);
    int e = lat && ib && node_of ? HLA_OK : HLA_ERR_NOMEM;
    e = hbsp_agree(w->penv, e != HLA_OK ? HBSP_FAIL(w->penv, e, "hplan_probe: out of memory") : e);
    if (e == HLA_OK) e = hplan_pairwise_rounds(w->penv, 0, 1, 1 << 18, 5, 64, lat, ib);
    if (e == HLA_OK) {
      int key = me; /* the node of every rank: the rank of its node's first member */
      MPI_Bcast(&key, 1, MPI_INT, 0, hbsp_comm(w->node));
      MPI_Allgather(&key, 1, MPI_INT, node_of, 1, MPI_INT, pc);
      double *v[4];
      int nv[2] = {0, 0};
      v[0] = malloc(sizeof(double) * (size_t)P * P), v[1] = malloc(sizeof(double) * (size_t)P * P);
      v[2] = malloc(sizeof(double) * (size_t)P * P), v[3] = malloc(sizeof(double) * (size_t)P * P);
      if (v[0] && v[1] && v[2] && v[3]) {
        for (int s = 0; s < P; s++)
          for (int t = s + 1; t < P; t++) {
            if (!(lat[s * P + t] > 0)) continue;
            int lv = node_of[s] != node_of[t];
            v[2 * lv][nv[lv]] = lat[s * P + t], v[2 * lv + 1][nv[lv]] = ib[s * P + t];
            nv[lv]++;
          }
        /* median over at most 64 pairs of each level (median_of keeps 64) */
        for (int lv = 0; lv < 2; lv++)
          if (nv[lv] > 0)
            m->link[lv] =
                (hplan_link){median_of(v[2 * lv], nv[lv]), median_of(v[2 * lv + 1], nv[lv])};
        m->have_inter = nv[1] > 0;
        if (nv[0] == 0) m->link[0] = m->link[1];
        if (!m->have_inter) m->link[1] = m->link[0];
      }
      for (int i = 0; i < 4; i++) free(v[i]);
    }
    free(lat), free(ib), free(node_of);
    HLA_CALL(e);
  }

  /* a node's memory for messages, and the link inside a node alone */
  m->node_bw = 0, m->intra_alone = (hplan_link){0, 0};
  {
    int q = hbsp_rank(w->node), s = hbsp_size(w->node), most[2] = {-s, s};
    MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_INT, MPI_MAX, pc); /* fewest and most ranks a node */
    char *buf = -most[0] > 1 ? malloc(2 * (size_t)NODE_BYTES) : NULL;
    int e = -most[0] > 1 && buf == NULL
                ? HBSP_FAIL(w->penv, HLA_ERR_NOMEM, "hplan_probe: out of memory")
                : HLA_OK;
    HLA_CALL(hbsp_agree(w->penv, e));
    if (buf != NULL) {
      memset(buf, 1, 2 * (size_t)NODE_BYTES);
      node_arg a = {hbsp_comm(w->node), (q ^ 1) < s ? q ^ 1 : -1, 0, NODE_BYTES, buf,
                    buf + NODE_BYTES};
      double t = 0, t8 = 0, tb = 0;
      e = hplan_timed(pc, 1, 0, run_trade, NULL, &a, 1, &t);
      /* one pair a node: ranks 0 and 1 of each, round trips */
      a.peer = q < 2 ? 1 - q : -1, a.first = q == 0, a.bytes = 8;
      if (e == HLA_OK) e = hplan_timed(pc, q < 2, 0, run_round_trip, NULL, &a, 20, &t8);
      a.bytes = ALONE_BYTES;
      if (e == HLA_OK) e = hplan_timed(pc, q < 2, 0, run_round_trip, NULL, &a, 4, &tb);
      free(buf);
      HLA_CALL(e);
      m->node_bw = t > 0 ? (double)(most[1] / 2 * 2) * NODE_BYTES / t : 0;
      double alpha = t8 / 2, beta = (tb / 2 - alpha) / ALONE_BYTES;
      if (!(beta > 0)) beta = tb / 2 / ALONE_BYTES;
      if (alpha > 0 && beta > 0) m->intra_alone = (hplan_link){alpha, beta};
    }
  }

  /* BSP per environment: world, nodes, rows and columns of the most square grid */
  {
    int Mg = 1;
    for (int d = 1; d * d <= P; d++)
      if (P % d == 0) Mg = d;
    int Ng = P / Mg;
    m->probe_M = Mg, m->probe_N = Ng;
    HLA_CALL(hbsp_split(w->penv, me / Ng, me % Ng, &w->row));
    HLA_CALL(hbsp_split(w->penv, me % Ng, me / Ng, &w->col));
    HLA_CALL(probe_env(w, w->penv, m, HPLAN_WORLD));
    HLA_CALL(probe_env(w, w->node, m, HPLAN_NODE));
    HLA_CALL(probe_env(w, w->row, m, HPLAN_ROW));
    HLA_CALL(probe_env(w, w->col, m, HPLAN_COL));
  }

  /* world broadcasts per algorithm */
  if (P > 1) {
    const double sizes[HPLAN_NBCAST] = HPLAN_BCAST_SIZES;
    const int inner[HPLAN_NBCAST] = HPLAN_BCAST_INNER;
    for (int a = HBSP_NATIVE; a <= HBSP_SCATTER_ALLGATHER; a++)
      for (int s = 0; s < HPLAN_NBCAST; s++) {
        bcast_arg b = {w->penv, w->bb, (size_t)sizes[s], {(hbsp_alg)a, 0, 0}, 0, NULL};
        HLA_CALL(hplan_timed(pc, 1, 0, run_bcast, NULL, &b, inner[s], &m->bcast[a][s]));
      }
  }

  /* MPI's non-blocking broadcast, as the multiply uses it, on environments of two or three sizes
   * (every row, every column at once: their contention too), so that the model can tell its shape
   * from its level */
  memset(m->ibcast, 0, sizeof m->ibcast);
  {
    const hbsp_env envs[HPLAN_NIBCAST] = {w->penv, w->row, w->col};
    for (int i = 0; i < HPLAN_NIBCAST; i++) {
      if (hbsp_size(envs[i]) < 2) continue; /* the same on every rank: rows, columns are alike */
      bcast_arg b = {envs[i], w->bb, (size_t)HPLAN_IBCAST_BYTES, {HBSP_NATIVE, 0, 0}, 1, NULL};
      HLA_CALL(hplan_timed(pc, 1, 0, run_bcast, NULL, &b, 1, &m->ibcast[i]));
    }
  }

  /* a collective right after computing, against computing alone: the skew, and on oversubscribed
   * cores the wait for a rank that is off its core */
  m->sync_load = 0;
  if (P > 1) {
    gemm_arg g = {256, 256, 256, NR, w->a, w->b, w->c, 0, NULL};
    load_arg la = {&g, pc, 0};
    double t0, t1;
    HLA_CALL(hplan_timed(pc, 1, 0, run_load, NULL, &la, 1, &t0));
    la.sync = 1;
    HLA_CALL(hplan_timed(pc, 1, 0, run_load, NULL, &la, 1, &t1));
    double per = (t1 - t0) / LOAD_EVENTS - m->ar[HPLAN_WORLD];
    m->sync_load = per > 0 ? per : 0;
  }

  /* overlap of a non-blocking broadcast with a dgemm that tests it */
  m->overlap = 0;
  if (P > 1) {
    bcast_arg b = {w->penv, w->bb, (size_t)1 << 20, {HBSP_NATIVE, 0, 0}, 1, NULL};
    double tb, tg, tboth;
    HLA_CALL(hplan_timed(pc, 1, 0, run_bcast, NULL, &b, 1, &tb));
    double s = cbrt(tb * m->gemm_rate / 2);
    int64_t ns = (int64_t)(s < 64 ? 64 : s > NR ? NR : s);
    gemm_arg g = {ns, ns, ns, NR, w->a, w->b, w->c, 4, NULL};
    HLA_CALL(hplan_timed(pc, 1, 0, run_gemm, NULL, &g, 1, &tg));
    both_arg x = {&b, &g};
    HLA_CALL(hplan_timed(pc, 1, 0, run_both, NULL, &x, 1, &tboth));
    double mn = fmin(tb, tg);
    m->overlap = mn > 0 ? fmax(0.0, fmin(1.0, (tb + tg - tboth) / mn)) : 0.0;
  }

  double el = MPI_Wtime() - t0;
  MPI_Allreduce(&el, &m->seconds, 1, MPI_DOUBLE, MPI_MAX, pc);
  return HLA_OK;
}

int hplan_measure(hbsp_env env, hplan_machine *m) {
  if (env == NULL) return HLA_ERR_ARG;
  HLA_CALL(hbsp_agree(env, m ? HLA_OK : HBSP_FAIL(env, HLA_ERR_ARG, "hplan_probe: m is NULL")));
  /* As a grid would (layout/grid.c): in the simulation's model mode the kernels timed here charge
   * the platform's speed; running them for real would not advance the simulated clock. */
  hkern_sim_set(hbsp_settings(env)->sim_model);
  int old = hkern_threads_get(), old_omp = omp_get_max_threads();
  probe_ws w;
  memset(&w, 0, sizeof w);
  hplan_machine tmp;
  int code = probe_body(env, &w, &tmp);
  hbsp_env *envs[4] = {&w.col, &w.row, &w.node, &w.penv};
  for (int i = 0; i < 4; i++)
    if (*envs[i]) hbsp_free(envs[i]);
  ws_free(&w);
  openblas_set_num_threads(old);
  omp_set_num_threads(old_omp);
  if (code != HLA_OK && !hbsp_errmsg(env)[0])
    HBSP_FAIL(env, code, "hplan_probe: failed (%s)", hla_strerror(code));
  code = hbsp_agree(env, code);
  if (code == HLA_OK) *m = tmp;
  return code;
}

/* ---------------------------------------------------------------- lazy model */

/* What this process keeps for a key (host, P, nodes, and the file's path: a model kept because one
 * file could not take it says nothing of another) beyond the machine file: a probed model the file
 * could not take (so that the next hgrid_create does not probe again, seconds each), a probe whose
 * model was unusable (no second probe either), and whether the file's entry was reported. A short
 * list attached to MPI_COMM_SELF: MPI deletes that communicator's attributes first thing in
 * MPI_Finalize, which frees it. */
enum { KEPT_NOTHING = 0, KEPT_MODEL, KEPT_UNUSABLE };
typedef struct kept {
  struct kept *next;
  char host[64], path[1024];
  int P, nodes;
  int state;  /* KEPT_* */
  int warned; /* the file's entry for the key was reported bad */
  hplan_machine m;
} kept;

/* The one piece of static state, which MPI forces: an attribute key is a process-wide integer
 * made once by MPI_Comm_create_keyval (the list itself lives on MPI_COMM_SELF). */
static int kept_key = MPI_KEYVAL_INVALID;

static int kept_free(MPI_Comm comm, int key, void *attr, void *extra) {
  kept **head = attr;
  for (kept *k = *head, *next; k; k = next) next = k->next, free(k);
  free(head);
  return MPI_SUCCESS;
}

/* The list's head; NULL when MPI gives no attribute (then nothing is kept). Local. */
static kept **kept_list(void) {
  if (kept_key == MPI_KEYVAL_INVALID &&
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, kept_free, &kept_key, NULL) != MPI_SUCCESS) {
    kept_key = MPI_KEYVAL_INVALID;
    return NULL;
  }
  void *v = NULL;
  int flag = 0;
  if (MPI_Comm_get_attr(MPI_COMM_SELF, kept_key, &v, &flag) == MPI_SUCCESS && flag) return v;
  kept **head = calloc(1, sizeof *head);
  if (head && MPI_Comm_set_attr(MPI_COMM_SELF, kept_key, head) != MPI_SUCCESS) {
    free(head);
    head = NULL;
  }
  return head;
}

/* The entry of the key; with make, a new one (keeping nothing) if there is none. NULL if none
 * (or no memory). Local. */
static kept *kept_find(const char *host, int P, int nodes, const char *path, int make) {
  kept **head = kept_list();
  if (head == NULL) return NULL;
  for (kept *k = *head; k; k = k->next)
    if (k->P == P && k->nodes == nodes && strcmp(k->host, host) == 0 && strcmp(k->path, path) == 0)
      return k;
  kept *k = make ? calloc(1, sizeof *k) : NULL;
  if (k == NULL) return NULL;
  snprintf(k->host, sizeof k->host, "%s", host);
  snprintf(k->path, sizeof k->path, "%s", path);
  k->P = P, k->nodes = nodes;
  k->next = *head, *head = k;
  return k;
}

typedef struct {
  int mode, have_path;
  char path[1024], host[64];
} obtain_cfg;

/* hplan_obtain into m (allocated); *have = 1 when m is the model. Rank 0 decides and tells. */
static int obtain(hbsp_env env, const obtain_cfg *cfg, int nodes, hplan_machine *m, int *have) {
  MPI_Comm comm = hbsp_comm(env);
  int P = hbsp_size(env), me = hbsp_rank(env);
  char why[256] = "";
  /* 1: a model (kept, or the file's); 0: none yet (probe unless HLA_PLAN=load); -1: none, and
   * this process's probe gave an unusable one (no second probe) */
  *have = 0;
  if (me == 0 && cfg->mode != HLA_PLAN_PROBE) {
    kept *k = kept_find(cfg->host, P, nodes, cfg->path, 0);
    int kind = HP_FILE_NONE;
    if (k && k->state == KEPT_MODEL)
      memcpy(m, &k->m, sizeof *m), *have = 1;
    else if (k && k->state == KEPT_UNUSABLE)
      *have = -1;
    else
      *have = hplan_load_why(m, cfg->path, cfg->host, P, nodes, &kind, why, sizeof why) == HLA_OK;
    /* reported once: a bad entry of an hla file, or anything unusable there when nothing will be
     * written (HLA_PLAN=load); a file the save cannot take is reported by the save */
    if (*have == 0 && why[0] && (kind == HP_FILE_OURS || cfg->mode == HLA_PLAN_LOAD)) {
      k = kept_find(cfg->host, P, nodes, cfg->path, 1);
      if (k == NULL || !k->warned)
        fprintf(stderr, "hla: machine file '%s': %s; not used\n", cfg->path, why);
      if (k) k->warned = 1;
    }
  }
  HBSP_MPI(env, MPI_Bcast(have, 1, MPI_INT, 0, comm));
  if (*have == 1) HBSP_MPI(env, MPI_Bcast(m, (int)sizeof *m, MPI_BYTE, 0, comm));
  if (*have != 0 || cfg->mode == HLA_PLAN_LOAD) return HLA_OK;

  HLA_CALL(hplan_measure(env, m));
  /* rank 0 checks and saves; what the file cannot take every rank keeps (any of them may be rank
   * 0 of a later environment) */
  int state = KEPT_NOTHING;
  if (me == 0) {
    if (hplan_check(m, why, sizeof why) != HLA_OK) {
      fprintf(stderr,
              "hla: the machine probe gave an unusable model (%s); planning without one in this "
              "process\n",
              why);
      state = KEPT_UNUSABLE;
    } else if (hplan_save_why(m, cfg->path, why, sizeof why) != HLA_OK) {
      fprintf(stderr,
              "hla: machine file '%s' not written: %s; the probed model is kept for this "
              "process\n",
              cfg->path, why);
      state = KEPT_MODEL;
    }
  }
  HBSP_MPI(env, MPI_Bcast(&state, 1, MPI_INT, 0, comm));
  kept *k = kept_find(cfg->host, P, nodes, cfg->path, state != KEPT_NOTHING);
  if (k) { /* a saved model replaces a kept one: the file is newer */
    k->state = state;
    if (state == KEPT_MODEL) memcpy(&k->m, m, sizeof *m);
  }
  *have = state == KEPT_UNUSABLE ? -1 : 1;
  return HLA_OK;
}

int hplan_obtain(hbsp_env env, int nodes, hplan_machine **out) {
  *out = NULL;
  obtain_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  MPI_Comm comm = hbsp_comm(env);
  const hla_settings *set = hbsp_settings(env); /* HLA_PLAN, HLA_MACHINE_FILE: rank 0's */
  cfg.mode = set->plan;
  if (hbsp_rank(env) == 0) {
    cfg.have_path = hplan_machine_path(set->machine, cfg.path, sizeof cfg.path);
    if (gethostname(cfg.host, sizeof cfg.host - 1) != 0) strcpy(cfg.host, "unknown");
  }
  HBSP_MPI(env, MPI_Bcast(&cfg, (int)sizeof cfg, MPI_BYTE, 0, comm));
  if (cfg.mode == HLA_PLAN_OFF || !cfg.have_path) return hbsp_agree(env, HLA_OK);
  hplan_machine *m = malloc(sizeof *m);
  int code = m ? HLA_OK : HBSP_FAIL(env, HLA_ERR_NOMEM, "planner: out of memory");
  HLA_CALL(hbsp_agree(env, code));
  int have = 0;
  code = obtain(env, &cfg, nodes, m, &have);
  if (code != HLA_OK || have != 1) {
    free(m);
    m = NULL;
  }
  *out = m;
  /* no memory to measure: plan without a model (the rules) */
  return code == HLA_ERR_NOMEM ? HLA_OK : code;
}
