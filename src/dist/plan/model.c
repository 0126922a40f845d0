/* hla — the cost model: pure functions that predict the time of the collectives of this library
 * from a machine model (include/hla/plan.h), where its ranks lie and what a node's work costs, on
 * which the multiplies' (model_mm.c) and the LU's (model_lu.c) are built.
 *
 * Collectives (Hockney: a message of m bytes costs alpha + m beta; combining costs m gamma;
 * log2 = ceil(log2); X = ceil(m / segment)), as implemented in src/bsp/coll*.c:
 *   bcast      FLAT (p-1)(a + m b)      PIPELINE (X + p - 2)(a + (m/X) b)
 *              BINOMIAL log2 p (a + m b)   SCATTER_ALLGATHER (log2 p + p - 1) a + 2 (p-1)/p m b
 *   reduce     as bcast with b + gamma, SCATTER_ALLGATHER = Rabenseifner
 *              2 log2 p a + 2 (p-1)/p m b + (p-1)/p m gamma
 *   allreduce  FLAT 2 (p-1)(a + m b) + (p-1) m gamma; PIPELINE reduce + bcast; BINOMIAL recursive
 *              doubling log2 p (a + m (b + gamma)); SCATTER_ALLGATHER Rabenseifner (as reduce)
 *   gather, scatter (m per rank)  FLAT (p-1)(a + m b); BINOMIAL, SCATTER_ALLGATHER
 *              log2 p a + (p-1) m b; PIPELINE ((p-1) X + p - 2)(a + (m/X) b)
 *   allgather  FLAT/ring (p-1)(a + m b); BINOMIAL (Bruck) log2 p a + (p-1) m b
 *   NATIVE     MPI's choice, modelled as the library's algorithm that the probe measured it as,
 *              else the cheapest of binomial, scatter-allgather and a pipeline of 128 KiB
 *              segments (bcast), binomial / Rabenseifner (reductions).
 * Two levels (Hasanov): the outer collective over G groups on the outer link plus the inner one
 * over p/G on the inner link; the outer level of gather, scatter and allgather carries p/G times
 * the bytes (the thesis's eqs. 3.24-3.30 forget this: its "gain" in bandwidth is an erratum). With
 * one link this gives every formula of src/bsp/coll.c; G = 1 and G = p are the base algorithm.
 * The pipelined broadcast's best segment (Legrand): r = sqrt(m (p-2) b / a) segments,
 * T = (sqrt((p-2) a) + sqrt(m b))^2.
 *
 * Where the ranks are (plan_impl.h): P ranks, consecutive per node. An environment that spans
 * several nodes pays the inter-node link on the messages that cross nodes: a binomial tree from
 * consecutive ranks crosses nodes in log2(nodes) of its steps, a flat root sends p - per_node of
 * its messages across, a chain crosses spans - 1 links, a ring runs at the slowest link.
 * Every measured world broadcast calibrates its algorithm by kappa = measured / modelled (median
 * of the three sizes, clamped to [0.3, 5]; the chain's as the probe times them, back to back).
 * MPI's non-blocking broadcast, which the multiply overlaps, is modelled apart: its algorithm need
 * not be the blocking one's (SimGrid's MPI_Ibcast is a flat tree whatever MPI_Bcast is; Open MPI's
 * libnbc has its own trees). Of the shapes native, flat, pipeline, binomial and scatter-allgather,
 * the one whose modelled times are proportional to the measured ones on the world, all rows at once
 * and all columns at once (the least spread of log(measured / modelled)) is its shape, and the
 * geometric mean of the ratios (clamped to [0.1, 5]) its level; a shape that misses one of them by
 * more than 1.5 x is no fit, and with none the blocking native broadcast's model stands in. (Under
 * SimGrid on a torus none fits: the flat tree's cost there depends on how many of the root node's
 * links its messages spread over, which grows with the partition.)
 *
 * On a torus (hplan_machine.torus, hplan_target.torus), or else on the ports of a non-blocking
 * network (hplan_machine.port_beta), a broadcast over an environment whose ranks are known is
 * routed instead (torus.c), for the environment and its translates at once: each step costs
 * a_inter + (hops - 1) hop + m beta_link x the messages on its busiest link, and the multiply's
 * non-blocking broadcasts add, after the first panel, half the busiest link's volume of a panel's
 * broadcasts and the next panel's (one is in flight ahead), where that is less than their sum. The
 * LU's pivot search, row interchanges, U blocks and node leaders' broadcasts are routed there too.
 * On ports in leaves (hplan_machine.leaf_nodes, hplan_target.leaf_nodes) a message between two
 * leaves takes spine_alpha more than one inside a leaf, whose latency is the probe's less
 * spine_alpha where most of the probe's node pairs lay in two leaves.
 * Calibration: in the probe's own placement every LU (multiply) prediction is multiplied by lu_cal
 * (mm_cal), the ratio of a measured to a modelled run of the planner's best plan of order 2048
 * done by the probe: what the model misses on a machine (oversubscribed cores, MPI's
 * progress, the kernel's time) is mostly proportional to the run. Not where the model routes on a
 * network: the ratio is against the model without one, and routing already moves the prediction
 * (the BG/P-like torus's probe, re-run under other collectives, measured mm_cal 0.85, then 1.46,
 * for the same network; bench/results/sim/probe_bgp_P64_trees.txt).
 * Waiting: every panel of a multiply and every block step of the LU (two with M > 1) waits once for
 * ranks that were computing: sync_load, measured (skew; on oversubscribed cores the time a rank is
 * off its core).
 * Local work: a dgemm of m x n x k takes 2 m n k / rate(m, n, k) with
 * rate = gemm_rate / ((1 + khalf / k)(1 + mhalf / min(m, n))); a pack of B bytes B / copy.
 * BSP: a sync of p ranks of one node moving h words costs h g + l0 + l1 (p - 1), l fitted to the
 * measured world, node, row and column environments, g the mean of those inside one node; across
 * nodes g is the mean of all, at least the inter-node link's; a small allreduce ar0 + ar1 log2 p.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dist/plan/plan_impl.h"

/* ---------------------------------------------------------------- collectives */

static double seg_default(double seg) {
  return seg > 0 ? seg : 65536.0;
}

/* One-level broadcast on one link. */
double hp_bcast1(int alg, double p, double m, double seg, hplan_link lk) {
  if (p <= 1) return 0.0;
  double a = lk.alpha, b = lk.beta, L = hp_lg2c(p), X;
  switch (alg) {
  case HBSP_FLAT:
    return (p - 1) * (a + m * b);
  case HBSP_PIPELINE:
    X = fmax(1.0, ceil(m / seg_default(seg)));
    return (X + p - 2) * (a + m / X * b);
  case HBSP_BINOMIAL:
    return L * (a + m * b);
  case HBSP_SCATTER_ALLGATHER:
    return (L + p - 1) * a + 2.0 * (p - 1) / p * m * b;
  default: { /* NATIVE / AUTO */
    double t = hp_bcast1(HBSP_BINOMIAL, p, m, seg, lk);
    t = fmin(t, hp_bcast1(HBSP_SCATTER_ALLGATHER, p, m, seg, lk));
    return fmin(t, hp_bcast1(HBSP_PIPELINE, p, m, 131072.0, lk));
  }
  }
}

static double reduce1(int alg, double p, double m, double seg, double gamma, hplan_link lk) {
  if (p <= 1) return 0.0;
  double a = lk.alpha, c = lk.beta + gamma, L = hp_lg2c(p), X;
  switch (alg) {
  case HBSP_FLAT:
    return (p - 1) * (a + m * c);
  case HBSP_PIPELINE:
    X = fmax(1.0, ceil(m / seg_default(seg)));
    return (X + p - 2) * (a + m / X * c);
  case HBSP_BINOMIAL:
    return L * (a + m * c);
  case HBSP_SCATTER_ALLGATHER:
    return 2 * L * a + 2.0 * (p - 1) / p * m * lk.beta + (p - 1) / p * m * gamma;
  default:
    return fmin(reduce1(HBSP_BINOMIAL, p, m, seg, gamma, lk),
                reduce1(HBSP_SCATTER_ALLGATHER, p, m, seg, gamma, lk));
  }
}

static double allreduce1(int alg, double p, double m, double seg, double gamma, hplan_link lk) {
  if (p <= 1) return 0.0;
  double a = lk.alpha, b = lk.beta, X;
  switch (alg) {
  case HBSP_FLAT:
    return 2 * (p - 1) * (a + m * b) + (p - 1) * m * gamma;
  case HBSP_PIPELINE:
    X = fmax(1.0, ceil(m / seg_default(seg)));
    return 2 * (X + p - 2) * (a + m / X * b) + (X + p - 2) * (m / X) * gamma;
  case HBSP_BINOMIAL:
  case HBSP_SCATTER_ALLGATHER:
    return reduce1(alg, p, m, seg, gamma, lk);
  default:
    return fmin(allreduce1(HBSP_BINOMIAL, p, m, seg, gamma, lk),
                allreduce1(HBSP_SCATTER_ALLGATHER, p, m, seg, gamma, lk));
  }
}

/* Gather and scatter: m bytes per rank. */
static double gather1(int alg, double p, double m, double seg, hplan_link lk) {
  if (p <= 1) return 0.0;
  double a = lk.alpha, b = lk.beta, X;
  switch (alg) {
  case HBSP_FLAT:
    return (p - 1) * (a + m * b);
  case HBSP_PIPELINE:
    X = fmax(1.0, ceil(m / seg_default(seg)));
    return ((p - 1) * X + p - 2) * (a + m / X * b);
  default: /* BINOMIAL, SCATTER_ALLGATHER, NATIVE */
    return hp_lg2c(p) * a + (p - 1) * m * b;
  }
}

static double allgather1(int alg, double p, double m, hplan_link lk) {
  if (p <= 1) return 0.0;
  double ring = (p - 1) * (lk.alpha + m * lk.beta),
         bruck = hp_lg2c(p) * lk.alpha + (p - 1) * m * lk.beta;
  if (alg == HBSP_BINOMIAL) return bruck;
  if (alg == HBSP_NATIVE || alg == HBSP_AUTO) return fmin(ring, bruck);
  return ring;
}

static double coll1(int kind, int alg, double p, double m, double seg, double gamma,
                    hplan_link lk) {
  switch (kind) {
  case HPLAN_BCAST:
    return hp_bcast1(alg, p, m, seg, lk);
  case HPLAN_REDUCE:
    return reduce1(alg, p, m, seg, gamma, lk);
  case HPLAN_ALLREDUCE:
    return allreduce1(alg, p, m, seg, gamma, lk);
  case HPLAN_GATHER:
  case HPLAN_SCATTER:
    return gather1(alg, p, m, seg, lk);
  default:
    return allgather1(alg, p, m, lk);
  }
}

double hplan_coll_time(int kind, int alg, int p, int G, double bytes, double seg, double gamma,
                       hplan_link out, hplan_link in) {
  if (p <= 1) return 0.0;
  if (G <= 1) return coll1(kind, alg, p, bytes, seg, gamma, in);
  if (G >= p) return coll1(kind, alg, p, bytes, seg, gamma, out);
  double Q = (double)p / G;
  int chunky = kind == HPLAN_GATHER || kind == HPLAN_SCATTER || kind == HPLAN_ALLGATHER;
  return coll1(kind, alg, G, chunky ? Q * bytes : bytes, seg, gamma, out) +
         coll1(kind, alg, Q, bytes, seg, gamma, in);
}

double hplan_bcast_time(int alg, int p, double bytes, double seg, hplan_link lk) {
  return hp_bcast1(alg, p, bytes, seg, lk);
}

double hplan_bcast2_time(int alg, int p, int G, double bytes, double seg, hplan_link out,
                         hplan_link in) {
  return hplan_coll_time(HPLAN_BCAST, alg, p, G, bytes, seg, 0.0, out, in);
}

double hplan_pipeline_segment(int p, double bytes, hplan_link lk) {
  if (p <= 2 || bytes <= 0 || lk.alpha <= 0 || lk.beta <= 0) return bytes > 0 ? bytes : 1.0;
  double r = sqrt(bytes * lk.beta * (p - 2) / lk.alpha);
  if (r < 1) r = 1;
  return bytes / r;
}

/* ---------------------------------------------------------------- the placement */

/* dgemm flop/s of one rank with t threads alone on its node. */
static double base_rate(const hplan_machine *m, int t) {
  if (m->nthreads <= 0) return m->gemm_rate * t / (m->threads > 0 ? m->threads : 1);
  if (t <= m->nthreads) return m->gemm_threads[t - 1];
  return m->gemm_threads[m->nthreads - 1] * t / m->nthreads;
}

/* Share of its threads' time a rank gets when r ranks of t threads share cores. */
static double share(int cores, int r, int t) {
  double busy = (double)r * t;
  return busy <= cores ? 1.0 : cores / busy;
}

/* Model of the world broadcast at the probe's placement, without calibration. */
static double bcast_raw(const hp_ctx *x, hp_env e, int alg, double bytes);

/* Whether most of the probe's node pairs lay in two leaves (its inter-node latency, their median,
 * then includes the spine's). */
static int probe_across_leaves(const hplan_machine *m) {
  long long nodes = m->nodes > 0 ? m->nodes : 1, L = m->leaf_nodes, across = 0;
  if (L <= 0 || nodes <= L) return 0;
  for (long long a = 0; a < nodes; a++)
    across += nodes - (a / L + 1) * L > 0 ? nodes - (a / L + 1) * L : 0;
  return 2 * across > nodes * (nodes - 1) / 2;
}

/* The median hops between the probe's nodes on m's torus (the first m->nodes of it), whose
 * ping-pongs' median is the inter-node latency: on a torus every node sees the same distances, and
 * the probe's first pairs are its first node's with the others. */
static double probe_hops(const hplan_machine *m) {
  int count[64] = {0}, n = m->nodes;
  for (int b = 1; b < n; b++) {
    int h = 0, r = b;
    for (int d = 0; d < HPLAN_TORUS_DIMS && m->torus[d] > 0; d++) {
      const int D = m->torus[d], x = r % D;
      h += x < D - x ? x : D - x;
      r /= D;
    }
    count[h < 63 ? h : 63]++;
  }
  for (int h = 0, seen = 0; h < 64; h++)
    if (2 * (seen += count[h]) >= n - 1) return h > 0 ? h : 1;
  return 1;
}

/* The network of a placement on `nodes` nodes: the torus dims with m's links (the first nodes of
 * it) where it holds them and its link's rate is known; else the ports of m's non-blocking
 * network, in leaves of `leaf` nodes (0: m's), where their rate is known; else none. */
static hp_torus torus_dims(const hplan_machine *m, const int *dims, int nodes, int leaf) {
  const double a = (m->have_inter ? m->link[HPLAN_INTER] : m->link[HPLAN_INTRA]).alpha;
  hp_torus t = {0, {0}, 1, 0, 0, 0, 0, a, 0, 1};
  for (int d = 0; d < HPLAN_TORUS_DIMS && dims[d] > 0; d++)
    t.dim[t.nd++] = dims[d], t.nodes *= dims[d];
  if (t.nd > 0 && nodes <= t.nodes && m->torus_link[1] > 0) {
    t.hop = m->torus_link[0], t.beta = m->torus_link[1], t.hop_alpha = m->torus_hop_alpha;
    t.at_hops = m->nodes > 1 ? probe_hops(m) : 1;
    return t;
  }
  if (m->port_beta > 0 && nodes > 0) {
    const int lf = leaf > 0 ? leaf : m->leaf_nodes;
    t = (hp_torus){1, {nodes}, nodes, m->spine_alpha, m->port_beta, 1, lf, a, 0, 1};
    if (probe_across_leaves(m)) t.alpha = fmax(a - m->spine_alpha, 0.0);
    return t;
  }
  return (hp_torus){0, {0}, 0, 0, 0, 0, 0, 0, 0, 0};
}

static hp_torus torus_of(const hplan_machine *m, int nodes) {
  return torus_dims(m, m->torus, nodes, 0);
}

/* The link inside a node and its memory, once x's network is set. Where the model routes messages
 * on a known network and the probe measured the node's memory, a message inside a node goes at
 * the rate of one pair alone and the node's memory is shared by all (tstep_t); elsewhere at the
 * rate of the ping-pong of every pair at once, which holds the memory's share. */
static void node_links(hp_ctx *x, const hplan_machine *m) {
  int routed = x->net.nd > 0 && m->node_bw > 0 && m->intra_alone.beta > 0;
  x->intra = routed ? m->intra_alone : m->link[HPLAN_INTRA];
  x->mem_bw = routed ? m->node_bw : 0.0;
}

void hp_ctx_torus(hp_ctx *x, const hplan_machine *m, const int dims[HPLAN_TORUS_DIMS], int leaf) {
  if (dims[0] > 0 || (leaf > 0 && x->net.ports)) x->net = torus_dims(m, dims, x->nodes, leaf);
  node_links(x, m);
  if (x->net.nd > 0) x->lu_cal = x->mm_cal = 1.0; /* as hp_ctx_make's */
}

/* Largest relative difference between MPI_Bcast and one of the library's broadcasts, measured at
 * every size, for MPI's to be modelled as that one. */
#define NATIVE_SAME 0.05

/* Largest factor between a measured MPI_Ibcast and its fitted model for the fit to be used. */
#define IB_FIT 1.5

/* MPI_Ibcast's shape and level from m->ibcast (model.c's header); ib_alg 0 (the calibrated
 * blocking native broadcast stands in) when nothing was measured or no shape fits. Needs x's
 * links. */
static void ibcast_fit(hp_ctx *x, const hplan_machine *m) {
  x->ib_alg = 0, x->ib_kappa = 1.0;
  if (m->P < 2) return;
  hp_ctx y = *x; /* the probe's placement */
  y.memo = NULL; /* another placement: nothing of x's memo holds */
  y.P = m->P, y.nodes = m->nodes > 0 ? m->nodes : 1;
  y.rpn = (y.P + y.nodes - 1) / y.nodes;
  y.net = torus_of(m, y.nodes);
  node_links(&y, m);
  int Mg = m->probe_M > 0 ? m->probe_M : 1, Ng = m->probe_N > 0 ? m->probe_N : m->P;
  /* every row at once, every column at once */
  const hp_env envs[HPLAN_NIBCAST] = {hp_env_of(&y, 0, 1, y.P),
                                      hp_env_family(hp_env_of(&y, 0, 1, Ng), Ng, Mg, 0, 1),
                                      hp_env_family(hp_env_of(&y, 0, Ng, Mg), 1, Ng, 0, 1)};
  static const int shapes[] = {
      HBSP_NATIVE, HBSP_FLAT, HBSP_PIPELINE, HBSP_BINOMIAL, HBSP_SCATTER_ALLGATHER, HP_FLAT_ALL};
  double best = INFINITY;
  for (size_t a = 0; a < sizeof shapes / sizeof shapes[0]; a++) {
    double lr[HPLAN_NIBCAST], mean = 0;
    int n = 0;
    for (int i = 0; i < HPLAN_NIBCAST; i++) {
      double mod = envs[i].p > 1 ? bcast_raw(&y, envs[i], shapes[a], HPLAN_IBCAST_BYTES) : 0;
      if (m->ibcast[i] > 0 && mod > 0) lr[n++] = log(m->ibcast[i] / mod), mean += lr[n - 1];
    }
    if (n == 0) return;
    mean /= n;
    double spread = 0, worst = 0;
    for (int i = 0; i < n; i++)
      spread += (lr[i] - mean) * (lr[i] - mean), worst = fmax(worst, fabs(lr[i] - mean));
    /* a shape that misses a measurement by more than IB_FIT is no fit; ties (one size measured):
     * the first, native */
    if (worst <= log(IB_FIT) && spread < best - 1e-3) {
      best = spread;
      x->ib_alg = shapes[a];
      x->ib_kappa = hp_clamp(exp(mean), 0.1, 5.0);
    }
  }
}

/* Whether the probe's environment i (HPLAN_WORLD ..) lay inside one node: its ranks are
 * consecutive on the nodes, its grid's rows runs of probe_N ranks, its columns strided by it. */
static int probe_env_in_node(const hplan_machine *m, int i) {
  int P = m->P > 0 ? m->P : 1, nodes = m->nodes > 0 ? m->nodes : 1;
  int rpn = (P + nodes - 1) / nodes, last;
  if (i == HPLAN_NODE || nodes == 1) return 1;
  if (i == HPLAN_ROW && m->probe_N > 0)
    last = m->probe_N - 1;
  else if (i == HPLAN_COL && m->probe_M > 0 && m->probe_N > 0)
    last = (m->probe_M - 1) * m->probe_N;
  else
    return 0; /* the world, or a grid not recorded */
  return last / rpn == 0;
}

void hp_ctx_make(hp_ctx *x, const hplan_machine *m, int P, int nodes, int rpn, int threads) {
  memset(x, 0, sizeof *x);
  x->m = m;
  int cores = m->cores_per_node > 0 ? m->cores_per_node : 1;
  if (P <= 0) P = m->P > 0 ? m->P : 1;
  int same = P == m->P;
  if (nodes <= 0) nodes = same ? (m->nodes > 0 ? m->nodes : 1) : (P + cores - 1) / cores;
  if (nodes > P) nodes = P;
  if (rpn <= 0) rpn = (P + nodes - 1) / nodes;
  int real_rpn = same && nodes == m->nodes ? m->ranks_per_node : rpn; /* sharing the cores */
  if (real_rpn <= 0) real_rpn = rpn;
  if (threads <= 0) {
    threads = same && nodes == m->nodes ? m->threads : cores / real_rpn;
    if (threads < 1) threads = 1;
  }
  x->P = P, x->nodes = nodes, x->rpn = rpn, x->threads = threads;

  /* dgemm: the measured rate when this is the probe's configuration, else the thread table with
   * the probe's contention factor. */
  int r0 = m->ranks_per_node > 0 ? m->ranks_per_node : 1, t0 = m->threads > 0 ? m->threads : 1;
  if (real_rpn == r0 && threads == t0) {
    x->rate = m->gemm_rate;
  } else {
    double contention = m->gemm_rate / (base_rate(m, t0) * share(cores, r0, t0));
    contention = hp_clamp(contention, 0.25, 1.5);
    x->rate = base_rate(m, threads) * share(cores, real_rpn, threads) * contention;
  }
  if (!(x->rate > 0)) x->rate = 1e9;
  double scale = x->rate / (m->gemm_rate > 0 ? m->gemm_rate : x->rate);
  x->khalf = m->gemm_khalf > 0 ? m->gemm_khalf : 0;
  x->mhalf = m->gemm_mhalf > 0 ? m->gemm_mhalf : 0;
  x->panel_rate = (m->panel_rate > 0 ? m->panel_rate : 0.5 * m->gemm_rate) * scale;
  if (!(x->panel_rate > 0)) x->panel_rate = 0.5 * x->rate;
  x->panel_half = m->panel_half > 0 ? m->panel_half : 0;
  x->getrf_rate = (m->getrf_rate > 0 ? m->getrf_rate : 0.8 * m->gemm_rate) * scale;
  if (!(x->getrf_rate > 0)) x->getrf_rate = 0.8 * x->rate;
  x->getrf_half = m->getrf_half > 0 ? m->getrf_half : 0;
  x->copy = (m->copy_rate > 0 ? m->copy_rate : 2e9) * hp_clamp((double)r0 / real_rpn, 0.125, 8);
  x->alloc = (m->alloc_rate > 0 ? m->alloc_rate : 1e9) * hp_clamp((double)r0 / real_rpn, 0.125, 8);
  x->inter = m->have_inter ? m->link[HPLAN_INTER] : m->link[HPLAN_INTRA];
  x->net = torus_of(m, nodes);
  node_links(x, m);
  x->ovl = hp_clamp(m->overlap, 0, 1);
  /* waiting for ranks that computed: as measured when the cores are shared as in the probe;
   * otherwise about a scheduler quantum times the share of time a rank is off its core */
  double busy = (double)real_rpn * threads, busy0 = (double)r0 * t0;
  if ((busy > cores) == (busy0 > cores))
    x->sync_load =
        m->sync_load > 0
            ? m->sync_load * (busy > cores ? (1 - cores / busy) / (1 - cores / busy0) : 1.0)
            : 0.0;
  else
    x->sync_load = busy > cores ? 1.5e-3 * (1 - cores / busy) : 0.0;
  /* the end-to-end calibration holds for the probe's own placement, and for the model it was
   * measured against: the probe's, which routes nothing (calibrate.c) */
  int probe_place = P == m->P && nodes == (m->nodes > 0 ? m->nodes : 1) && threads == t0;
  x->lu_cal = probe_place && m->lu_cal > 0 && x->net.nd == 0 ? m->lu_cal : 1.0;
  x->mm_cal = probe_place && m->mm_cal > 0 && x->net.nd == 0 ? m->mm_cal : 1.0;

  /* BSP sync and small allreduce of p ranks on one node, fitted to the measured environments. */
  double sp = 0, sl = 0, spp = 0, spl = 0, sa = 0, spa = 0, sq = 0, sqq = 0, sg = 0, sgn = 0;
  int np = 0, ng = 0, ngn = 0;
  for (int i = 0; i < HPLAN_NENV; i++) {
    if (m->env_p[i] < 2) continue;
    double p1 = m->env_p[i] - 1, q = hp_lg2c(m->env_p[i]);
    sp += p1, spp += p1 * p1, sl += m->l[i], spl += p1 * m->l[i];
    sq += q, sqq += q * q, sa += m->ar[i], spa += q * m->ar[i];
    np++;
    if (m->g[i] > 0) sg += m->g[i], ng++;
    if (m->g[i] > 0 && probe_env_in_node(m, i)) sgn += m->g[i], ngn++;
  }
  if (np > 0) {
    double dp = np * spp - sp * sp, dq = np * sqq - sq * sq;
    if (dp > 1e-9 * spp) { /* two or more sizes: least squares */
      x->l1 = (np * spl - sp * sl) / dp;
      x->l0 = (sl - x->l1 * sp) / np;
    }
    if (!(dp > 1e-9 * spp) || x->l1 < 0 || x->l0 < 0) { /* one size (or a noisy fit): l ~ p */
      x->l1 = sl / sp * 0.5;
      x->l0 = sl / np * 0.5;
    }
    if (dq > 1e-9 * sqq) {
      x->ar1 = (np * spa - sq * sa) / dq;
      x->ar0 = (sa - x->ar1 * sq) / np;
    }
    if (!(dq > 1e-9 * sqq) || x->ar1 < 0 || x->ar0 < 0) {
      x->ar1 = sa / sq * 0.5;
      x->ar0 = sa / np * 0.5;
    }
  } else { /* nothing measured: from the link */
    x->l0 = 2 * x->intra.alpha, x->l1 = 2 * x->intra.alpha;
    x->ar0 = x->intra.alpha, x->ar1 = 2 * x->intra.alpha;
  }
  x->gw = ng > 0 ? sg / ng : 8 * x->intra.beta;
  /* a node's memory, not the network: where the probe spanned nodes its world and column (and
   * row) environments moved their words over links, 36-73 x slower per word on the simulated
   * machines (bench/results/sim/machine_*.json) */
  x->gw_node = ngn > 0 ? sgn / ngn : x->gw;

  ibcast_fit(x, m);

  /* Calibration of each broadcast algorithm against the measured world broadcasts. */
  for (int a = 0; a < 6; a++) x->kappa[a] = 1.0;
  x->native_alg = 0;
  if (m->P > 1) {
    hp_ctx y = *x; /* the probe's placement */
    y.memo = NULL; /* another placement: nothing of x's memo holds */
    y.P = m->P, y.nodes = m->nodes > 0 ? m->nodes : 1;
    y.rpn = (y.P + y.nodes - 1) / y.nodes;
    y.net = torus_of(m, y.nodes);
    node_links(&y, m);
    hp_env w = hp_env_of(&y, 0, 1, y.P);
    const double sizes[HPLAN_NBCAST] = HPLAN_BCAST_SIZES;
    const int inner[HPLAN_NBCAST] = HPLAN_BCAST_INNER;
    for (int a = HBSP_NATIVE; a <= HBSP_SCATTER_ALLGATHER; a++) {
      double r[HPLAN_NBCAST];
      int nr = 0;
      for (int s = 0; s < HPLAN_NBCAST; s++) {
        /* Timed back to back, the chain's broadcasts follow each other's segments down it: one
         * chain of all their segments. (Modelled one at a time they calibrated the torus's chain
         * at 0.32, its throughput; its one broadcast timed alone gives 1.09.) The trees' roots
         * send each broadcast's messages before the next one's: one at a time. */
        const double X = ceil(sizes[s] / 65536.0);
        double mod = a == HBSP_PIPELINE
                         ? hp_bcast_seg(&y, w, a, inner[s] * sizes[s], sizes[s] / X) / inner[s]
                         : bcast_raw(&y, w, a, sizes[s]);
        if (m->bcast[a][s] > 0 && mod > 0) r[nr++] = m->bcast[a][s] / mod;
      }
      if (nr == 0) continue;
      for (int i = 1; i < nr; i++) /* median of at most three */
        for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
          double t = r[j];
          r[j] = r[j - 1], r[j - 1] = t;
        }
      x->kappa[a] = hp_clamp(nr % 2 ? r[nr / 2] : 0.5 * (r[nr / 2 - 1] + r[nr / 2]), 0.3, 5.0);
    }
    x->kappa[HBSP_AUTO] = x->kappa[HBSP_NATIVE];
    /* MPI's broadcast is the library's algorithm a where the probe measured the two within
     * NATIVE_SAME at every size (SimGrid's MPI_Bcast and the binomial tree: the same times to the
     * digit); the cheapest of three shapes priced it at 0.87 x the simulated LU on 16 x 16. */
    for (int a = HBSP_FLAT; a <= HBSP_SCATTER_ALLGATHER && x->native_alg == 0; a++) {
      int same = 1;
      for (int s = 0; s < HPLAN_NBCAST; s++)
        same = same && m->bcast[a][s] > 0 &&
               fabs(m->bcast[HBSP_NATIVE][s] / m->bcast[a][s] - 1) <= NATIVE_SAME;
      if (same) x->native_alg = a;
    }
  }
}

hp_env hp_env_family(hp_env e, int f1, int n1, int f2, int n2) {
  e.f1 = f1, e.n1 = n1 > 0 ? n1 : 1, e.f2 = f2, e.n2 = n2 > 0 ? n2 : 1;
  return e;
}

hp_env hp_env_of(const hp_ctx *x, int start, int stride, int count) {
  hp_env e = {count, 1, count, start, stride, 0, 1, 0, 1, 0};
  if (count <= 1 || x->rpn <= 0) return e;
  int spans = 0, run = 0, best = 0, last = -1;
  for (int i = 0; i < count; i++) {
    int node = (start + i * stride) / x->rpn;
    if (node != last) spans++, run = 0, last = node;
    run++;
    if (run > best) best = run;
  }
  e.spans = spans, e.per_node = best;
  return e;
}

double hp_gemm(const hp_ctx *x, double m, double n, double k) {
  if (m <= 0 || n <= 0 || k <= 0) return 0.0;
  double mm = m < n ? m : n;
  return 2.0 * m * n * k * (1 + x->khalf / k) * (1 + x->mhalf / mm) / x->rate;
}

/* One step of a broadcast routed on the torus, messages of m bytes: its slowest message. */
static double tstep_t(const hp_ctx *x, const hp_tstep *s, double m) {
  double t = s->intra ? x->intra.alpha + m * x->intra.beta : 0.0;
  if (s->inter) t = fmax(t, x->net.alpha + (s->hops - 1) * x->net.hop + m * x->net.beta * s->load);
  if (x->mem_bw > 0) t = fmax(t, m * s->mem / x->mem_bw);
  return t;
}

/* hp_torus_step through the planner's memo (x->memo) where there is one. *work: the routing's
 * work space, allocated at the first step routed (the caller frees it). */
static int tstep(const hp_ctx *x, hp_env e, int kind, int dist, double **work, hp_tstep *out) {
  hp_step_memo *k = NULL;
  if (x->memo) {
    const int key[] = {e.p,  e.spans, e.per_node, e.start, e.stride, e.f1,
                       e.n1, e.f2,    e.n2,       e.root,  kind,     dist};
    unsigned h = 2166136261u; /* FNV-1a over the key's ints */
    for (size_t i = 0; i < sizeof key / sizeof *key; i++) h = (h ^ (unsigned)key[i]) * 16777619u;
    k = &x->memo->step[h % HP_STEP_MEMO];
    if (k->used && k->kind == kind && k->dist == dist && !memcmp(&k->e, &e, sizeof e)) {
      *out = k->s;
      return k->rc;
    }
  }
  if (*work == NULL && (*work = calloc(hp_torus_work(&x->net), sizeof **work)) == NULL)
    return HLA_ERR_NOMEM;
  int rc = hp_torus_step(&x->net, x->rpn, e, kind, dist, *work, out);
  if (k) k->e = e, k->kind = kind, k->dist = dist, k->used = 1, k->rc = rc, k->s = *out;
  return rc;
}

/* A chain's step of X segments over p ranks: of its p - 1 hops at most X carry a segment at once,
 * so a node's memory has that share of its hops busy (the links, one hop each, are busy or not). */
static void chain_busy(hp_tstep *s, double X, int p) {
  if (X < p - 1) s->mem = (int)fmax(1.0, ceil(s->mem * X / (p - 1)));
}

/* The segmented chain of X = ceil(m / seg) segments on the torus: the slowest link paces it. */
static int torus_chain(const hp_ctx *x, hp_env e, double m, double seg, double **work, double *t) {
  hp_tstep s;
  int rc = tstep(x, e, HP_STEP_CHAIN, 0, work, &s);
  double X = fmax(1.0, ceil(m / seg)), fam = (double)e.n1 * e.n2;
  chain_busy(&s, X, e.p);
  hp_tstep in = s, out = s;
  in.inter = 0, out.intra = 0;
  double si = s.intra ? tstep_t(x, &in, m / X) : 0, so = s.inter ? tstep_t(x, &out, m / X) : 0;
  *t = (X - 1) * fmax(si, so) + ceil(s.inter / fam) * so + ceil(s.intra / fam) * si;
  return rc;
}

/* Broadcast over e's family routed on the torus (uncalibrated), the chain in segments of seg;
 * -1 where the torus cannot tell (e's ranks unknown, no memory). */
double hp_torus_bcast(const hp_ctx *x, hp_env e, int alg, double m, double seg) {
  if (alg != HBSP_FLAT && alg != HP_FLAT_ALL && alg != HBSP_PIPELINE && alg != HBSP_BINOMIAL &&
      alg != HBSP_SCATTER_ALLGATHER) { /* NATIVE: as bcast_raw's */
    double t = hp_torus_bcast(x, e, HBSP_BINOMIAL, m, seg),
           u = hp_torus_bcast(x, e, HBSP_SCATTER_ALLGATHER, m, seg),
           v = hp_torus_bcast(x, e, HBSP_PIPELINE, m, 131072.0);
    return t < 0 || u < 0 || v < 0 ? -1.0 : fmin(t, fmin(u, v));
  }
  double *work = NULL;
  int p = e.p, top = 1, rc = HLA_OK;
  while (top < p) top <<= 1;
  double t = 0;
  hp_tstep s;
  if (alg == HBSP_FLAT) { /* one message after the other */
    for (int d = 1; d < p && rc == HLA_OK; d++) {
      rc = tstep(x, e, HP_STEP_FLAT_ONE, d, &work, &s);
      t += tstep_t(x, &s, m);
    }
  } else if (alg == HP_FLAT_ALL) {
    rc = tstep(x, e, HP_STEP_FLAT_ALL, 0, &work, &s);
    t = tstep_t(x, &s, m);
  } else if (alg == HBSP_PIPELINE) {
    rc = torus_chain(x, e, m, seg, &work, &t);
  } else { /* the tree; the scatter's messages hold d of the p blocks */
    for (int d = top / 2; d > 0 && rc == HLA_OK; d /= 2) {
      rc = tstep(x, e, HP_STEP_TREE, d, &work, &s);
      t += tstep_t(x, &s, alg == HBSP_BINOMIAL ? m : m * d / p);
    }
    if (alg == HBSP_SCATTER_ALLGATHER && rc == HLA_OK) {
      rc = tstep(x, e, HP_STEP_RING, 0, &work, &s);
      t += (p - 1) * tstep_t(x, &s, m / p);
    }
  }
  free(work);
  return rc == HLA_OK ? t : -1.0;
}

/* What a message of `bytes` pays against a long message's rate and a short one's latency
 * (hplan_machine.size_factor). */
static void size_factor(const hplan_machine *m, double bytes, double *rate, double *lat) {
  *rate = *lat = 1.0;
  for (int i = 0; i < HPLAN_NSIZE && m->size_factor[3 * i + 1] > 0; i++)
    if (bytes >= m->size_factor[3 * i])
      *rate = m->size_factor[3 * i + 1], *lat = m->size_factor[3 * i + 2];
}

/* HPL's binary exchange of m bytes over e alone (recursive doubling, coll_reduce.c's
 * allreduce_rec), routed on the network (torus, ports): at distance 1, 2, 4, ... every rank sends
 * one message, a step taking the latency of one message inside or across nodes and its bytes at
 * the link's rate divided among the messages on the step's busiest link, both as a message of m
 * bytes gets them (size_factor); off a power of two, the fold of the odd ranks below 2r into their
 * left neighbours before and back after (the same messages the other way). Across nodes the
 * probe's latency is that of its pairs' median distance (at_hops; on a torus of its 16 nodes, 2
 * hops) and torus_hop_alpha a hop more or less, spine_alpha between leaves. The LU's records of
 * 0.5-2 KB get 0.36-0.65 of SMPI's long messages' rate and 0.8-0.97 of its short ones' latency:
 * without them, and with the probe's latency for one hop, the simulated pivot search took 1.11 x
 * the model's on the torus (65.3 against 58.9 us a column of 16 x 16 at 256 ranks) and 0.94 x on
 * the fat tree (9.1 against 9.7 us, 32 x 8; bench/results/sim/lu_gaps_2026-11-30.txt), and the
 * fitted small allreduce before that twice the simulated one on the fat tree. -1 where the network
 * cannot tell. */
double hp_torus_exchange(const hp_ctx *x, hp_env e, double m) {
  if (x->net.nd == 0 || e.n1 <= 0 || e.spans <= 1) return -1.0;
  double *work = NULL;
  int top = 1, rc = HLA_OK;
  while (2 * top <= e.p) top <<= 1;
  double t = 0;
  double rate, lat;
  size_factor(x->m, m, &rate, &lat);
  hp_tstep s;
  for (int d = top < e.p ? 0 : 1; d < top && rc == HLA_OK; d = d ? 2 * d : 1) {
    rc = tstep(x, e, HP_STEP_EXCHANGE, d, &work, &s);
    const double a = x->net.ports ? x->net.alpha + (s.hops - 1) * x->net.hop
                                  : x->net.alpha + (s.hops - x->net.at_hops) * x->net.hop_alpha;
    double step = s.inter ? lat * fmax(a, 0.0) + m * x->net.beta / rate * s.load
                          : lat * x->intra.alpha + m * x->intra.beta / rate;
    if (x->mem_bw > 0) step = fmax(step, m * s.mem / x->mem_bw);
    t += (d ? 1 : 2) * step;
  }
  free(work);
  return rc == HLA_OK ? t : -1.0;
}

/* A superstep in which relative rank 0 of every environment of e's family trades m bytes with each
 * of the others, routed on the network (torus, ports): the LU's row interchanges, where the owner
 * of the diagonal block sends its rows to the owners of the pivot rows and gets those back. All
 * the process columns' owners sit on one process row, on one node or a few, so their ports (links)
 * carry the trade; the probe's g, measured with every rank of a node sending, charged every rank
 * the owners' load and put the LU's interchanges at 6 x the simulated ones on the fat tree. The
 * latency of one message, as tstep_t's; -1 where the network cannot tell. */
double hp_torus_trade(const hp_ctx *x, hp_env e, double m) {
  if (x->net.nd == 0 || e.n1 <= 0 || e.spans <= 1) return -1.0;
  double *work = NULL;
  hp_tstep s;
  int rc = tstep(x, e, HP_STEP_FLAT_ALL, 0, &work, &s);
  free(work);
  return rc == HLA_OK ? tstep_t(x, &s, m) : -1.0;
}

/* Broadcast over e with the inter-node link on the messages that cross nodes (uncalibrated); on a
 * torus, routed (torus.c); the chain in segments of seg. */
double hp_bcast_seg(const hp_ctx *x, hp_env e, int alg, double m, double seg) {
  if (e.p <= 1) return 0.0;
  /* routed where the network is known; inside one node too where the node's memory is known */
  if (x->net.nd > 0 && e.n1 > 0 && (e.spans > 1 || x->mem_bw > 0)) {
    double t = hp_torus_bcast(x, e, alg, m, seg);
    if (t >= 0) return t;
  }
  /* all at once inside a node: the network model's messages there do not share (without the
   * node's memory, one transfer's rate: SimGrid's loopback is a fat pipe), as tstep_t has them;
   * without a network model FLAT_ALL is FLAT, the root's link carrying them one after the other */
  if (alg == HP_FLAT_ALL && e.spans <= 1 && x->net.nd > 0)
    return x->intra.alpha + m * x->intra.beta;
  if (alg == HP_FLAT_ALL) alg = HBSP_FLAT;
  if (e.spans <= 1) return hp_bcast1(alg, e.p, m, 0, x->intra);
  hplan_link ia = x->intra, ie = x->inter;
  double p = e.p, q = e.per_node, X;
  switch (alg) {
  case HBSP_FLAT:
    return (p - q) * (ie.alpha + m * ie.beta) + (q - 1) * (ia.alpha + m * ia.beta);
  case HBSP_PIPELINE:
    X = fmax(1.0, ceil(m / seg));
    return (X - 1) * (ie.alpha + m / X * ie.beta) + (e.spans - 1) * (ie.alpha + m / X * ie.beta) +
           (p - e.spans) * (ia.alpha + m / X * ia.beta);
  case HBSP_BINOMIAL:
    return (hp_lg2c(p) - hp_lg2c(q)) * (ie.alpha + m * ie.beta) +
           hp_lg2c(q) * (ia.alpha + m * ia.beta);
  case HBSP_SCATTER_ALLGATHER:
    return hp_bcast1(alg, p, m, 0, ie);
  default: {
    double t = bcast_raw(x, e, HBSP_BINOMIAL, m);
    t = fmin(t, bcast_raw(x, e, HBSP_SCATTER_ALLGATHER, m));
    return fmin(t, hp_bcast1(HBSP_PIPELINE, p, m, 131072.0, ie));
  }
  }
}

/* ... in the library's segments (coll.c) */
static double bcast_raw(const hp_ctx *x, hp_env e, int alg, double m) {
  return hp_bcast_seg(x, e, alg, m, 65536.0);
}

double hp_ibcast(const hp_ctx *x, hp_env e, double bytes) {
  if (x->ib_alg == 0) return hp_bcast(x, e, HBSP_NATIVE, bytes);
  if (e.p <= 1 || bytes <= 0) return 0.0;
  return x->ib_kappa * bcast_raw(x, e, x->ib_alg, bytes);
}

double hp_bcast(const hp_ctx *x, hp_env e, int alg, double bytes) {
  if (e.p <= 1 || bytes <= 0) return 0.0;
  if (alg == HBSP_AUTO) alg = HBSP_NATIVE;
  if (alg == HBSP_NATIVE && x->native_alg) alg = x->native_alg;
  return x->kappa[alg] * bcast_raw(x, e, alg, bytes);
}

double hp_bcast_lu(const hp_ctx *x, hp_env e, int alg, double bytes) {
  if (alg != HBSP_PIPELINE || e.p <= 2 || bytes <= 0) return hp_bcast(x, e, alg, bytes);
  return x->kappa[alg] *
         hp_bcast_seg(x, e, alg, bytes, (double)hlu_chain_segment((size_t)bytes, e.p));
}

/* The time until relative rank 1 of e has the whole message: the library's segmented chain hands
 * each of its X segments to it first (over a link inside a node where the ranks of e share nodes),
 * while a tree reaches it only at the end. */
double hp_bcast_first(const hp_ctx *x, hp_env e, int alg, double bytes) {
  if (alg != HBSP_PIPELINE || e.p <= 2 || bytes <= 0) return hp_bcast_lu(x, e, alg, bytes);
  const hplan_link lk = e.spans <= 1 || e.per_node > 1 ? x->intra : x->inter;
  const double X = fmax(1.0, ceil(bytes / (double)hlu_chain_segment((size_t)bytes, e.p)));
  return x->kappa[alg] * X * (lk.alpha + bytes / X * lk.beta);
}

/* The time the library's segmented chain holds a rank of e that it has reached: its X segments in
 * and out, each at the pace of the chain's slowest link (routed where the network is known). 0 for
 * the other broadcasts (the LU prices them whole on its critical path). */
double hp_bcast_busy(const hp_ctx *x, hp_env e, int alg, double bytes) {
  if (alg != HBSP_PIPELINE || e.p <= 2 || bytes <= 0) return 0.0;
  const double X = fmax(1.0, ceil(bytes / (double)hlu_chain_segment((size_t)bytes, e.p))),
               m = bytes / X;
  if (x->net.nd > 0 && e.n1 > 0 && e.spans > 1) {
    double *work = NULL;
    hp_tstep s;
    int rc = tstep(x, e, HP_STEP_CHAIN, 0, &work, &s);
    free(work);
    if (rc == HLA_OK) {
      chain_busy(&s, X, e.p);
      return X * tstep_t(x, &s, m);
    }
  }
  const hplan_link lk = e.spans > 1 ? x->inter : x->intra;
  return x->kappa[alg] * X * (lk.alpha + m * lk.beta);
}

/* e's two levels by node (hlu_bcast): a node's ranks and the nodes' leaders; 0 where e has one. */
int hp_node_levels(const hp_ctx *x, hp_env e, hp_env *in, hp_env *lead) {
  if (e.spans <= 1 || e.per_node <= 1 || e.spans >= e.p) return 0;
  *in = (hp_env){.p = e.per_node, .spans = 1, .per_node = e.per_node};
  *lead = (hp_env){.p = e.spans, .spans = e.spans, .per_node = 1};
  if (e.n1 > 0 && e.stride > 0 && x->rpn % e.stride == 0 && e.per_node == x->rpn / e.stride)
    *lead = e, lead->p = e.spans, lead->stride = x->rpn, lead->per_node = 1; /* nodes in a run */
  return 1;
}

double hp_bcast_nodes(const hp_ctx *x, hp_env e, int alg, double bytes) {
  hp_env in, lead;
  if (!hp_node_levels(x, e, &in, &lead)) return hp_bcast_lu(x, e, alg, bytes);
  return 2 * hp_bcast_lu(x, in, alg, bytes) + hp_bcast_lu(x, lead, alg, bytes);
}

/* ... and what it holds a rank (hp_bcast_busy): a node's chain and the leaders' */
double hp_bcast_nodes_busy(const hp_ctx *x, hp_env e, int alg, double bytes) {
  hp_env in, lead;
  if (!hp_node_levels(x, e, &in, &lead)) return hp_bcast_busy(x, e, alg, bytes);
  return hp_bcast_busy(x, in, alg, bytes) + hp_bcast_busy(x, lead, alg, bytes);
}

/* ... and until relative rank 1 has it: in the root's node but where the root is its node's last
 * rank (1 in per_node), after the leaders' broadcast. */
double hp_bcast_nodes_first(const hp_ctx *x, hp_env e, int alg, double bytes) {
  hp_env in, lead;
  if (!hp_node_levels(x, e, &in, &lead)) return hp_bcast_first(x, e, alg, bytes);
  return hp_bcast_first(x, in, alg, bytes) + hp_bcast_lu(x, lead, alg, bytes) / e.per_node;
}

double hp_sync(const hp_ctx *x, hp_env e, double h) {
  if (e.p <= 1) return 0.0;
  double l = x->l0 + x->l1 * (e.p - 1), g = x->gw_node;
  if (e.spans > 1) {
    l += 2 * hp_lg2c(e.spans) * fmax(0.0, x->inter.alpha - x->intra.alpha);
    g = fmax(x->gw, 8 * x->inter.beta);
  }
  return h * g + l;
}

double hp_sync_known(const hp_ctx *x, hp_env e, double h) {
  if (e.p <= 1) return 0.0;
  return h * (e.spans > 1 ? fmax(x->gw, 8 * x->inter.beta) : x->gw_node) +
         (e.spans > 1 ? x->inter.alpha : x->intra.alpha);
}

double hp_allreduce_small(const hp_ctx *x, hp_env e, int nodes) {
  if (e.p <= 1) return 0.0;
  double extra = fmax(0.0, x->inter.alpha - x->intra.alpha);
  if (nodes && e.spans > 1 && e.per_node > 1 && e.spans < e.p) {
    /* in the group, among leaders, back in the group */
    double in = x->ar0 + x->ar1 * hp_lg2c(e.per_node);
    return 2 * in + x->ar0 + x->ar1 * hp_lg2c(e.spans) + 2 * hp_lg2c(e.spans) * extra;
  }
  return x->ar0 + x->ar1 * hp_lg2c(e.p) + (e.spans > 1 ? 2 * hp_lg2c(e.spans) * extra : 0.0);
}

void hplan_bcast_calibration(const hplan_machine *m, double kappa[6], int *native_as) {
  hp_ctx x;
  hp_ctx_make(&x, m, 0, 0, 0, 0);
  for (int a = 0; a < 6; a++) kappa[a] = x.kappa[a];
  *native_as = x.native_alg;
}

/* ---------------------------------------------------------------- synthetic machines */

void hplan_machine_synthetic(hplan_machine *m, int P, int nodes, int cores, double rate,
                             hplan_link intra, hplan_link inter) {
  memset(m, 0, sizeof *m);
  if (P < 1) P = 1;
  if (nodes < 1) nodes = 1;
  if (nodes > P) nodes = P;
  if (cores < 1) cores = 1;
  m->version = HPLAN_VERSION;
  strcpy(m->host, "synthetic");
  m->P = P, m->nodes = nodes, m->cores_per_node = cores;
  m->ranks_per_node = (P + nodes - 1) / nodes;
  m->threads = cores / m->ranks_per_node > 0 ? cores / m->ranks_per_node : 1;
  double sh = (double)m->ranks_per_node * m->threads <= cores
                  ? 1.0
                  : (double)cores / ((double)m->ranks_per_node * m->threads);
  m->r = rate / 8;
  m->nthreads = cores < HPLAN_MAX_THREADS ? cores : HPLAN_MAX_THREADS;
  for (int t = 1; t <= m->nthreads; t++) m->gemm_threads[t - 1] = rate * t;
  m->gemm_rate = rate * m->threads * sh;
  m->gemm_khalf = 32, m->gemm_mhalf = 16;
  m->panel_rate = 0.5 * m->gemm_rate, m->panel_half = 32;
  m->copy_rate = 4e9;
  m->getrf_rate = 0.8 * m->gemm_rate, m->getrf_half = 64;
  m->alloc_rate = 2e9;
  m->link[HPLAN_INTRA] = intra;
  m->link[HPLAN_INTER] = nodes > 1 ? inter : intra;
  m->have_inter = nodes > 1;
  int Mg = 1;
  for (int d = 1; d * d <= P; d++)
    if (P % d == 0) Mg = d;
  m->probe_M = Mg, m->probe_N = P / Mg;
  int ps[HPLAN_NENV] = {P, m->ranks_per_node, P / Mg, Mg};
  for (int i = 0; i < HPLAN_NENV; i++) {
    int p = ps[i];
    m->env_p[i] = p;
    if (p < 2) continue;
    double lg = ceil(log2((double)p) - 1e-12);
    m->g[i] = 8 * intra.beta;
    m->l[i] = ((p - 1) + 2 * lg) * intra.alpha;
    m->ar[i] = 2 * lg * intra.alpha;
  }
  m->overlap = 0.5;
}
