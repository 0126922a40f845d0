/* hla — BSP machine probe: r by DAXPY pairs, g and l by full h-relations fitted by least squares,
 * and the MPI floor (Alltoall of counts plus Barrier; Alltoallv bandwidth). See probe.h.
 *
 * Timing protocol: every repetition starts with an MPI_Barrier on the parent communicator, so that
 * all ranks start together; each rank times its own part; the repetition's time is the maximum
 * over ranks (one allreduce for all repetitions at the end, so that no reduction lands between
 * timed regions); the median over repetitions is fitted. The first repetition of each h is a
 * warm-up and is dropped (buffers grow there).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bsp_impl.h"
#include "probe.h"
#include "sync.h"
#ifdef HLA_SMPI
#include <smpi/smpi.h>
#endif

/* Bytes per peer that hbsp_sync exchanges in its count exchange, for the floor. */
#define PROBE_SYNC_COUNT_BYTES sizeof(hbsp_xcount)

/* ---------------------------------------------------------------- least squares */

/* See probe.h. Local, pure, O(n). */
int hbsp_ols(const double *h, const double *t, int n, double *g, double *l) {
  if (!h || !t || !g || !l || n < 2) return HLA_ERR_ARG;
  /* centre first: the textbook N Σht − Σh Σt loses digits when h is large */
  double hb = 0, tb = 0;
  for (int i = 0; i < n; i++) hb += h[i], tb += t[i];
  hb /= n, tb /= n;
  double sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    sxx += (h[i] - hb) * (h[i] - hb);
    sxy += (h[i] - hb) * (t[i] - tb);
  }
  if (!(sxx > 0)) return HLA_ERR_ARG;
  *g = sxy / sxx;
  *l = tb - hb * *g;
  return HLA_OK;
}

/* ---------------------------------------------------------------- helpers */

/* Median of v[0..n) (sorts v). Local. */
static double median(double *v, int n) {
  for (int i = 1; i < n; i++) { /* insertion sort: n is a handful of repetitions */
    double x = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > x) v[j + 1] = v[j], j--;
    v[j + 1] = x;
  }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Fill in the defaults and check the options. Local. */
static int probe_opts(const hbsp_hrel_opts *in, hbsp_hrel_opts *o) {
  *o = in ? *in : (hbsp_hrel_opts){0};
  if (o->h0 < 0 || o->h1 < 0 || o->reps < 0 || o->inner < 0 || o->npoints < 0) return HLA_ERR_ARG;
  if (o->h1 == 0) o->h1 = 64;
  if (o->h1 <= o->h0) return HLA_ERR_ARG;
  int range = o->h1 - o->h0 + 1;
  if (o->npoints == 0) o->npoints = range < 16 ? range : 16;
  if (o->npoints > range) o->npoints = range;
  if (o->npoints > HBSP_PROBE_MAXPTS) o->npoints = HBSP_PROBE_MAXPTS;
  if (o->npoints < 2) return HLA_ERR_ARG;
  if (o->reps == 0) o->reps = 5;
  if (o->inner == 0) o->inner = 2;
  if (o->mode < HBSP_HREL_WORDS || o->mode > HBSP_HREL_BULK_HP) return HLA_ERR_ARG;
  return HLA_OK;
}

/* The k-th of n h values spread evenly over [h0, h1] (distinct because n <= h1 − h0 + 1). */
static int probe_h(const hbsp_hrel_opts *o, int k) {
  return o->h0 + (int)((int64_t)k * (o->h1 - o->h0) / (o->npoints - 1));
}

/* Words rank s sends to its j-th destination (s+1+j) mod P in a full h-relation. */
static int hrel_count(int h, int P, int j) {
  if (P == 1) return h;
  return h / (P - 1) + (j < h % (P - 1));
}

/* ---------------------------------------------------------------- the h-relations */

/* State of one probe: buffers sized for h1 and how to run one relation. */
typedef struct {
  hbsp_env env; /* where the relation runs (the subset) */
  hbsp_hrel_mode mode;
  int use_mpi;                          /* 1: MPI_Alltoallv on env's communicator instead of puts */
  int P, s, slot;                       /* slot: words reserved per sender in dest */
  double *src, *dest;                   /* h1 words; P·slot words (registered) */
  int *dp;                              /* HBSP_HREL_WORDS: destination of word i */
  size_t *doff;                         /* ... and its byte offset there */
  int *scount, *sdisp, *rcount, *rdisp; /* Alltoallv */
  int registered;
} probe_ctx;

/* Free the buffers of a probe. Local. */
static void ctx_free(probe_ctx *c) {
  free(c->src);
  free(c->dest);
  free(c->dp);
  free(c->doff);
  free(c->scount);
  free(c->sdisp);
  free(c->rcount);
  free(c->rdisp);
}

/* Allocate the buffers for h up to h1 and precompute the word destinations. Local. */
static int ctx_init(probe_ctx *c, hbsp_env env, int h1, hbsp_hrel_mode mode, int use_mpi) {
  memset(c, 0, sizeof *c);
  c->env = env;
  c->mode = mode;
  c->use_mpi = use_mpi;
  c->P = hbsp_size(env);
  c->s = hbsp_rank(env);
  int P = c->P;
  c->slot = P == 1 ? h1 : (h1 + P - 2) / (P - 1);
  if (c->slot < 1) c->slot = 1;
  c->src = malloc(sizeof(double) * (size_t)(h1 ? h1 : 1));
  c->dest = calloc((size_t)P * (size_t)c->slot, sizeof(double));
  if (!c->src || !c->dest) return HLA_ERR_NOMEM;
  for (int i = 0; i < h1; i++) c->src[i] = c->s + 1e-3 * i;
  if (mode == HBSP_HREL_WORDS && !use_mpi) {
    c->dp = malloc(sizeof(int) * (size_t)(h1 ? h1 : 1));
    c->doff = malloc(sizeof(size_t) * (size_t)(h1 ? h1 : 1));
    if (!c->dp || !c->doff) return HLA_ERR_NOMEM;
    for (int i = 0; i < h1; i++) {
      /* bspbench: word i to (s+1+i mod (P−1)) mod P, the k-th word for one peer to slot k */
      c->dp[i] = P == 1 ? 0 : (c->s + 1 + i % (P - 1)) % P;
      int k = P == 1 ? i : i / (P - 1);
      c->doff[i] = sizeof(double) * ((size_t)(P == 1 ? 0 : c->s) * (size_t)c->slot + (size_t)k);
    }
  }
  if (use_mpi) {
    c->scount = calloc((size_t)P, sizeof(int));
    c->sdisp = calloc((size_t)P, sizeof(int));
    c->rcount = calloc((size_t)P, sizeof(int));
    c->rdisp = calloc((size_t)P, sizeof(int));
    if (!c->scount || !c->sdisp || !c->rcount || !c->rdisp) return HLA_ERR_NOMEM;
  }
  return HLA_OK;
}

/* One full h-relation: the puts and the sync (or one MPI_Alltoallv). Collective over c->env. A
 * put error is remembered in *puterr and the sync still runs, so that no peer is left waiting. */
static int ctx_relation(probe_ctx *c, int h, int *puterr) {
  int P = c->P, s = c->s;
  if (c->use_mpi) {
    int off = 0;
    for (int q = 0; q < P; q++) c->scount[q] = c->rcount[q] = 0;
    for (int j = 0; j < (P == 1 ? 1 : P - 1); j++) {
      int d = P == 1 ? s : (s + 1 + j) % P, n = hrel_count(h, P, j);
      c->scount[d] = n;
      c->sdisp[d] = off;
      off += n;
    }
    for (int q = 0; q < P; q++) {
      if (q == s && P > 1) continue;
      int j = P == 1 ? 0 : (s - q - 1 + 2 * P) % P; /* I am q's j-th destination */
      c->rcount[q] = hrel_count(h, P, j);
      c->rdisp[q] = q * c->slot;
    }
    if (MPI_Alltoallv(c->src, c->scount, c->sdisp, MPI_DOUBLE, c->dest, c->rcount, c->rdisp,
                      MPI_DOUBLE, hbsp_comm(c->env)) != MPI_SUCCESS)
      return HBSP_FAIL(c->env, HLA_ERR_MPI, "probe: MPI_Alltoallv failed");
    return HLA_OK;
  }
  int e = HLA_OK;
  if (c->mode == HBSP_HREL_WORDS) {
    for (int i = 0; i < h && e == HLA_OK; i++)
      e = hbsp_put(c->env, c->dp[i], &c->src[i], c->dest, c->doff[i], sizeof(double));
  } else {
    int off = 0;
    for (int j = 0; j < (P == 1 ? 1 : P - 1) && e == HLA_OK; j++) {
      int d = P == 1 ? s : (s + 1 + j) % P, n = hrel_count(h, P, j);
      size_t at = sizeof(double) * (size_t)(P == 1 ? 0 : s) * (size_t)c->slot;
      if (n == 0) continue;
      if (c->mode == HBSP_HREL_BULK)
        e = hbsp_put(c->env, d, c->src + off, c->dest, at, sizeof(double) * (size_t)n);
      else
        e = hbsp_hpput(c->env, d, c->src + off, c->dest, at, sizeof(double) * (size_t)n);
      off += n;
    }
  }
  if (e != HLA_OK && *puterr == HLA_OK) *puterr = e;
  return hbsp_sync(c->env);
}

/* Record a local failure on env (with the message of where it happened, if another env) so that
 * hbsp_agree spreads the text. Local. */
static int probe_fail(hbsp_env env, hbsp_env where, int code, const char *what) {
  if (code == HLA_OK) return HLA_OK;
  return HBSP_FAIL(env, code, "probe: %s: %s", what,
                   where && where != env ? hbsp_errmsg(where) : hla_strerror(code));
}

/* Run the timed relations of ctx (on the active ranks) and fit. Collective over parent. */
static int probe_fit(hbsp_env parent, probe_ctx *c, int active, const hbsp_hrel_opts *o, double r,
                     hbsp_gl *out) {
  MPI_Comm pc = hbsp_comm(parent);
  int R = o->reps, N = o->npoints, code = HLA_OK, syncerr = HLA_OK, puterr = HLA_OK;
  double *t = malloc(sizeof(double) * (size_t)R * (size_t)N);
  code = hbsp_agree(parent, probe_fail(parent, NULL, t ? HLA_OK : HLA_ERR_NOMEM, "timings"));
  if (code != HLA_OK) {
    free(t);
    return code;
  }
  for (int k = 0; k < N && code == HLA_OK; k++) {
    int h = probe_h(o, k);
    for (int rep = -1; rep < R; rep++) { /* rep −1: warm-up */
      MPI_Barrier(pc);
      double t0 = MPI_Wtime();
      for (int it = 0; active && syncerr == HLA_OK && it < o->inner; it++)
        syncerr = ctx_relation(c, h, &puterr);
      if (rep >= 0) t[k * R + rep] = active ? (MPI_Wtime() - t0) / o->inner : -1.0;
    }
    code = hbsp_agree(
        parent, probe_fail(parent, c->env, syncerr != HLA_OK ? syncerr : puterr, "h-relation"));
  }
  if (code != HLA_OK) {
    free(t);
    return code;
  }
  if (MPI_Allreduce(MPI_IN_PLACE, t, R * N, MPI_DOUBLE, MPI_MAX, pc) != MPI_SUCCESS)
    code = HLA_ERR_MPI;
  if (code == HLA_OK) {
    memset(out, 0, sizeof *out);
    out->npoints = N;
    for (int k = 0; k < N; k++) {
      out->h[k] = probe_h(o, k);
      out->t[k] = median(t + k * R, R);
    }
    code = hbsp_ols(out->h, out->t, N, &out->g, &out->l);
    out->g_flops = out->g * (r > 0 ? r : 0);
    out->l_flops = out->l * (r > 0 ? r : 0);
  }
  free(t);
  /* the same times on every rank, so the same outcome: no agreement needed */
  if (code != HLA_OK) return HBSP_FAIL(parent, code, "probe: fit of the h-relation times failed");
  return HLA_OK;
}

/* See probe.h. Collective over parent. */
int hbsp_probe_gl_sub(hbsp_env parent, hbsp_env sub, int active, const hbsp_hrel_opts *opts,
                      double r, hbsp_gl *out) {
  if (!parent) return HLA_ERR_ARG;
  hbsp_hrel_opts o;
  int code = probe_opts(opts, &o);
  if (code == HLA_OK && (!out || (active && !sub))) code = HLA_ERR_ARG;
  int nactive = active ? 1 : 0;
  if (MPI_Allreduce(MPI_IN_PLACE, &nactive, 1, MPI_INT, MPI_SUM, hbsp_comm(parent)) != MPI_SUCCESS)
    return HBSP_FAIL(parent, HLA_ERR_MPI, "probe: MPI_Allreduce failed");
  if (code == HLA_OK && nactive == 0) code = HLA_ERR_ARG;
  code = hbsp_agree(parent, probe_fail(parent, NULL, code, "invalid options or no active rank"));
  if (code != HLA_OK) return code;

  probe_ctx c;
  memset(&c, 0, sizeof c);
  if (active) {
    code = ctx_init(&c, sub, o.h1, o.mode, 0);
    if (code == HLA_OK) {
      /* register the target; a failure shows at the sync, which every member runs */
      int e = hbsp_push_reg(sub, c.dest, sizeof(double) * (size_t)c.P * (size_t)c.slot);
      int e2 = hbsp_sync(sub);
      code = e != HLA_OK ? e : e2;
      c.registered = code == HLA_OK;
    }
    code = probe_fail(parent, sub, code, "setup");
  }
  code = hbsp_agree(parent, code);
  if (code == HLA_OK) code = probe_fit(parent, &c, active, &o, r, out);
  int popped = HLA_OK;
  if (c.registered) { /* pop even after a failed fit: sub stays usable */
    int e = hbsp_pop_reg(sub, c.dest), e2 = hbsp_sync(sub);
    popped = probe_fail(parent, sub, e != HLA_OK ? e : e2, "deregistration");
  }
  ctx_free(&c);
  popped = hbsp_agree(parent, popped);
  return code != HLA_OK ? code : popped;
}

/* The whole environment alone: see probe.h. Collective over env. */
int hbsp_probe_gl(hbsp_env env, const hbsp_hrel_opts *o, double r, hbsp_gl *out) {
  return hbsp_probe_gl_sub(env, env, 1, o, r, out);
}

/* See probe.h. Collective over env. */
int hbsp_probe_alltoallv(hbsp_env env, const hbsp_hrel_opts *opts, double r, hbsp_gl *out) {
  if (!env) return HLA_ERR_ARG;
  hbsp_hrel_opts o;
  int code = probe_opts(opts, &o);
  if (code == HLA_OK && !out) code = HLA_ERR_ARG;
  probe_ctx c;
  memset(&c, 0, sizeof c);
  if (code == HLA_OK) code = ctx_init(&c, env, o.h1, HBSP_HREL_BULK, 1);
  code = hbsp_agree(env, probe_fail(env, NULL, code, "Alltoallv setup"));
  if (code == HLA_OK) code = probe_fit(env, &c, 1, &o, r, out);
  ctx_free(&c);
  return code;
}

/* ---------------------------------------------------------------- floor */

/* See probe.h. Collective over env: 4 barriers and 2 alltoalls per repetition. */
int hbsp_probe_floor(hbsp_env env, int count_bytes, int reps, hbsp_floor *out) {
  if (!env) return HLA_ERR_ARG;
  int code = (count_bytes < 0 || reps < 0 || !out) ? HLA_ERR_ARG : HLA_OK;
  if (count_bytes == 0) count_bytes = PROBE_SYNC_COUNT_BYTES;
  if (reps == 0) reps = 50;
  MPI_Comm comm = hbsp_comm(env);
  int P = hbsp_size(env);
  char *sb = calloc((size_t)P, (size_t)count_bytes), *rb = calloc((size_t)P, (size_t)count_bytes);
  double *t = malloc(sizeof(double) * 3 * (size_t)reps);
  if (code == HLA_OK && (!sb || !rb || !t)) code = HLA_ERR_NOMEM;
  code = hbsp_agree(env, probe_fail(env, NULL, code, "floor setup"));
  for (int rep = -1; code == HLA_OK && rep < reps; rep++) { /* rep −1: warm-up */
    double t0, a, b, ab;
    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    MPI_Alltoall(sb, count_bytes, MPI_BYTE, rb, count_bytes, MPI_BYTE, comm);
    a = MPI_Wtime() - t0;
    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    MPI_Barrier(comm);
    b = MPI_Wtime() - t0;
    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    MPI_Alltoall(sb, count_bytes, MPI_BYTE, rb, count_bytes, MPI_BYTE, comm);
    MPI_Barrier(comm);
    ab = MPI_Wtime() - t0;
    if (rep >= 0) t[rep] = a, t[reps + rep] = b, t[2 * reps + rep] = ab;
  }
  if (code == HLA_OK &&
      MPI_Allreduce(MPI_IN_PLACE, t, 3 * reps, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
    code = HBSP_FAIL(env, HLA_ERR_MPI, "probe: MPI_Allreduce failed");
  if (code == HLA_OK) {
    out->count_bytes = count_bytes;
    out->alltoall = median(t, reps);
    out->barrier = median(t + reps, reps);
    out->floor = median(t + 2 * reps, reps);
  }
  free(sb);
  free(rb);
  free(t);
  return code;
}

/* ---------------------------------------------------------------- rate */

/* iters DAXPY pairs of length n; returns a value that depends on every result, so the compiler
 * cannot drop the loops. Without -ffast-math it cannot merge the iterations either. */
static double daxpy_pairs(double *x, double *y, double *z, int64_t n, int64_t iters) {
  const double alpha = 1.0 / 3.0, beta = 4.0 / 9.0;
  for (int64_t it = 0; it < iters; it++) {
    for (int64_t i = 0; i < n; i++) y[i] += alpha * x[i];
    for (int64_t i = 0; i < n; i++) z[i] -= beta * x[i];
  }
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += y[i] + z[i];
  return s;
}

/* See probe.h. Collective over env. */
int hbsp_probe_rate(hbsp_env env, int64_t nmax, double min_seconds, hbsp_rate *table,
                    hbsp_rate *r) {
  if (!env) return HLA_ERR_ARG;
  int code = HLA_OK, nlen = 0;
  if (nmax < 1 || (nmax & (nmax - 1)) || !r || min_seconds < 0) code = HLA_ERR_ARG;
  for (int64_t n = 1; code == HLA_OK && n <= nmax; n *= 2) nlen++;
  if (min_seconds == 0) min_seconds = 1e-3;
  double *x = NULL, *y = NULL, *z = NULL, *rate = NULL;
  if (code == HLA_OK) {
    x = malloc(sizeof(double) * (size_t)nmax);
    y = malloc(sizeof(double) * (size_t)nmax);
    z = malloc(sizeof(double) * (size_t)nmax);
    rate = malloc(sizeof(double) * 3 * (size_t)nlen);
    if (!x || !y || !z || !rate) code = HLA_ERR_NOMEM;
  }
  code = hbsp_agree(env, probe_fail(env, NULL, code, "rate setup"));
  if (code == HLA_OK) {
    MPI_Barrier(hbsp_comm(env));
    volatile double sink = 0;
    for (int k = 0; k < nlen; k++) {
      int64_t n = (int64_t)1 << k, iters = 1 + (1 << 16) / (4 * n);
      double t;
      for (;;) { /* double the repetitions until the timer sees enough */
        for (int64_t i = 0; i < n; i++) x[i] = y[i] = z[i] = (double)i;
        double t0 = MPI_Wtime();
#ifdef HLA_SMPI
        /* the simulation's model mode: the platform's speed, as the kernels charge it (a real
         * computation would not advance the simulated clock, and the doubling would not end) */
        if (hbsp_settings(env)->sim_model)
          smpi_execute_flops(4.0 * (double)n * (double)iters);
        else
#endif
          sink += daxpy_pairs(x, y, z, n, iters);
        t = MPI_Wtime() - t0;
        if (t >= min_seconds || iters > ((int64_t)1 << 40)) break;
        iters *= 2;
      }
      double f = 4.0 * (double)n * (double)iters / (t > 0 ? t : 1e-9);
      rate[k] = f;             /* summed: average */
      rate[nlen + k] = f;      /* max */
      rate[2 * nlen + k] = -f; /* max of −f: −min */
    }
    (void)sink;
    MPI_Comm comm = hbsp_comm(env);
    if (MPI_Allreduce(MPI_IN_PLACE, rate, nlen, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, rate + nlen, 2 * nlen, MPI_DOUBLE, MPI_MAX, comm) !=
            MPI_SUCCESS)
      code = HBSP_FAIL(env, HLA_ERR_MPI, "probe: MPI_Allreduce failed");
  }
  if (code == HLA_OK) {
    int P = hbsp_size(env);
    for (int k = 0; k < nlen; k++) {
      hbsp_rate e = {(int64_t)1 << k, -rate[2 * nlen + k], rate[k] / P, rate[nlen + k]};
      if (table) table[k] = e;
      if (k == nlen - 1) *r = e;
    }
  }
  free(x);
  free(y);
  free(z);
  free(rate);
  return code;
}
