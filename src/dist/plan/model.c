/* hla — the cost model: pure functions that predict the time of the collectives, the multiplies
 * and the LU of this library from a machine model (include/hla/plan.h).
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
 *
 * SUMMA (summa.c), M x N grid, S = ceil(k / b) panels, mloc x nloc local C (the largest):
 *   per panel  gemm = dgemm(mloc, nloc, b); pack = (mloc b / N + nloc b / M) 8 / copy (owners
 *              pack); comm = pieces_a bcast(row, mloc b 8 / pieces_a) + pieces_b bcast(col, ...)
 *   overlapped (MPI_Ibcast of panel s + 1 posted before the dgemm of s, tested between slices):
 *   T = comm + S (gemm + pack) + (S - 1)(comm - ovl min(gemm, comm)) + beta scaling; with a
 *   blocking broadcast algorithm (opts.bcast) ovl = 0. Operands not in C's layout are first
 *   remapped: 2 h 8 / copy + sync(world, h) + 2 agreements, h = their local size.
 * HSUMMA (hsumma.c), I x J groups, qI = M/I, qJ = N/J, outer panels of Mo (per = Mo / b inner):
 *   comm per inner panel = bcast(row_in over qJ, mloc b) + bcast(col_in over qI, nloc b)
 *     + (bcast(row_out over J, mloc Mo) + bcast(col_out over I, nloc Mo)) / per,
 *   with the same overlap rule; compute as SUMMA. With uniform links and a square grid this is
 *   Hasanov's (4.3)-(4.4); I = J = 1 and I = M, J = N give SUMMA.
 * 3D (mm3d.c), c layers (M/c x N or M x N/c): two remaps of the operands onto the layers, SUMMA on
 *   the layers with k_l = ceil(S / c) b (all c at once, sharing the network's links), packing of
 *   C_l, c reductions over the fibre of mL nL / c words each (on a network the model knows,
 *   routed, every fibre at once), and the local sum into C.
 * LU (lu/factor.c), n / nb block steps k, j0 = k nb, R = local rows >= j0, C = local columns >= j0
 * + nb: panel   M = 1: node-local recursive LU of R x jb at panel_rate jb / (jb + panel_half); M >
 * 1: per column on a flat column HPL's binary exchange (an allreduce of 2 jb + 3 words; on a
 * network the model knows, routed: a message's latency a step and the link's own rate, as the
 * panel's column alone sends; on one
 * node, up to HLU_PANEL_FUSE_MAX process rows with the library's collectives, the records on the
 * column's board: no latency), on a two-level column a max-with-location (allreduce) and a
 * pivot-row superstep of the column, jb / 8 - 1 broadcasts of the
 * recursion's U12 blocks, and the flops; L       bcast(row, (jb + 1 + R jb) 8) (two levels by node
 * in the hierarchical variant); swaps   right of the panel: M = 1 local copies of 2 jb rows; M > 1
 * one superstep of the column, h = 2 jb (M - 1)/M (local columns right of the panel; on a torus or
 * ports the diagonal owners' trades routed, of the columns that hold blocks right of the panel,
 * hp_torus_trade); left of it
 * once at the end: the rows below the panel, one pass per column (M > 1: one superstep); U (the
 * automatic HLA_SWAP_ROWS; the long swap is not modelled) flat with 1 < M <= HLU_USPLIT_MAX: where
 * M = 2 or pr has jb/2 rows less than another rank below the block, streamed (the trsm of block k+1
 * and the first slice, a message of them (routed: a node's columns' at once, out of step, as the
 * chains below), and what pr's whole trsm and update take beyond the
 * others' update); else two supersteps of the column, h = (jb^2 + jb C / M)(M - 1) from the
 * diagonal owner and jb C (M - 1) / M (routed so too: u_superstep), and a trsm of jb^2 C / M
 * flops; otherwise a trsm (jb^2 C
 * flops) on one process row and bcast(col, jb C 8), with the columns of one node at once (on a
 * torus or ports; as pipelined chains, which drift out of step, one chain and part of the rest's
 * excess; round the L panels' ring only the columns it reaches within the time a chain holds a
 * rank of each other, a node's an in-node hop apart: ring_overlap); update  dgemm(R', C, jb), R' =
 * local rows >= j0
 * + jb. Without look-ahead (or N = 1) a step is the sum. With look-ahead and N > 1 the owner of
 * block k + 1 updates that block, factors panel k + 1 and (flat rows) posts its L panel on the
 * row's board (N > 2 on one node, the library's broadcasts: the others read it in place, L = 0) or
 *   sends it at once (MPI's broadcast or the library's, up to HLU_EARLY_MAX process columns), so a
 *   step costs L (1 - ovl) + swaps + U + max(update of everything, update of block k + 1 + panel
 *   k + 1); on wider flat rows (the library's broadcasts) round a ring: one hop of the whole
 *   panel (the row's hops' average, ring_hop) before both. With another broadcast on wider flat
 *   rows the next owner is the first rank of the segmented chain: a step waits only for its X
 *   segments over one link, and the rest of the chain once, at the end, but the rank with the
 *   largest update also for its time in the chain (bcast_busy). One process (1 x 1):
 *   LAPACK's dgetrf, 2/3 n^3 (1 + getrf_half / n) / getrf_rate.
 *   Where the machine gives no boards (hplan_machine.no_board), neither board: the records go by
 *   the exchange, the L panels early or round the ring, as the library then sends them.
 * Solve (trsolve.c, solve.c): the permutation superstep and, per block and triangle, a row
 *   broadcast of the triangle's block column to the process columns holding B, a column broadcast
 *   of the solved block, a trsm and a dgemm; up to HLU_FANIN_MAX_NRHS right-hand sides the fan-in
 *   instead: per block and triangle a reduce and a broadcast of the thin block, a trsm and one
 *   process column's dgemm, then one superstep per process row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dist/plan/plan_impl.h"

/* ---------------------------------------------------------------- collectives */

static double lg2c(double p) {
  return p <= 1 ? 0.0 : ceil(log2(p) - 1e-12);
}

static double seg_default(double seg) {
  return seg > 0 ? seg : 65536.0;
}

/* One-level broadcast on one link. */
static double bcast1(int alg, double p, double m, double seg, hplan_link lk) {
  if (p <= 1) return 0.0;
  double a = lk.alpha, b = lk.beta, L = lg2c(p), X;
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
    double t = bcast1(HBSP_BINOMIAL, p, m, seg, lk);
    t = fmin(t, bcast1(HBSP_SCATTER_ALLGATHER, p, m, seg, lk));
    return fmin(t, bcast1(HBSP_PIPELINE, p, m, 131072.0, lk));
  }
  }
}

static double reduce1(int alg, double p, double m, double seg, double gamma, hplan_link lk) {
  if (p <= 1) return 0.0;
  double a = lk.alpha, c = lk.beta + gamma, L = lg2c(p), X;
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
    return lg2c(p) * a + (p - 1) * m * b;
  }
}

static double allgather1(int alg, double p, double m, hplan_link lk) {
  if (p <= 1) return 0.0;
  double ring = (p - 1) * (lk.alpha + m * lk.beta),
         bruck = lg2c(p) * lk.alpha + (p - 1) * m * lk.beta;
  if (alg == HBSP_BINOMIAL) return bruck;
  if (alg == HBSP_NATIVE || alg == HBSP_AUTO) return fmin(ring, bruck);
  return ring;
}

static double coll1(int kind, int alg, double p, double m, double seg, double gamma,
                    hplan_link lk) {
  switch (kind) {
  case HPLAN_BCAST:
    return bcast1(alg, p, m, seg, lk);
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
  return bcast1(alg, p, bytes, seg, lk);
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

static double clampd(double v, double lo, double hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

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
static double bcast_seg(const hp_ctx *x, hp_env e, int alg, double m, double seg);

/* Whether most of the probe's node pairs lay in two leaves (its inter-node latency, their median,
 * then includes the spine's). */
static int probe_across_leaves(const hplan_machine *m) {
  long long nodes = m->nodes > 0 ? m->nodes : 1, L = m->leaf_nodes, across = 0;
  if (L <= 0 || nodes <= L) return 0;
  for (long long a = 0; a < nodes; a++)
    across += nodes - (a / L + 1) * L > 0 ? nodes - (a / L + 1) * L : 0;
  return 2 * across > nodes * (nodes - 1) / 2;
}

/* The network of a placement on `nodes` nodes: the torus dims with m's links (the first nodes of
 * it) where it holds them and its link's rate is known; else the ports of m's non-blocking
 * network, in leaves of `leaf` nodes (0: m's), where their rate is known; else none. */
static hp_torus torus_dims(const hplan_machine *m, const int *dims, int nodes, int leaf) {
  const double a = (m->have_inter ? m->link[HPLAN_INTER] : m->link[HPLAN_INTRA]).alpha;
  hp_torus t = {0, {0}, 1, 0, 0, 0, 0, a};
  for (int d = 0; d < HPLAN_TORUS_DIMS && dims[d] > 0; d++)
    t.dim[t.nd++] = dims[d], t.nodes *= dims[d];
  if (t.nd > 0 && nodes <= t.nodes && m->torus_link[1] > 0) {
    t.hop = m->torus_link[0], t.beta = m->torus_link[1];
    return t;
  }
  if (m->port_beta > 0 && nodes > 0) {
    t = (hp_torus){
        1, {nodes}, nodes, m->spine_alpha, m->port_beta, 1, leaf > 0 ? leaf : m->leaf_nodes, a};
    if (probe_across_leaves(m)) t.alpha = fmax(a - m->spine_alpha, 0.0);
    return t;
  }
  return (hp_torus){0, {0}, 0, 0, 0, 0, 0, 0};
}

static hp_torus torus_of(const hplan_machine *m, int nodes) {
  return torus_dims(m, m->torus, nodes, 0);
}

void hp_ctx_torus(hp_ctx *x, const hplan_machine *m, const int dims[HPLAN_TORUS_DIMS], int leaf) {
  if (dims[0] > 0 || (leaf > 0 && x->net.ports)) x->net = torus_dims(m, dims, x->nodes, leaf);
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
  y.P = m->P, y.nodes = m->nodes > 0 ? m->nodes : 1;
  y.rpn = (y.P + y.nodes - 1) / y.nodes;
  y.net = torus_of(m, y.nodes);
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
      x->ib_kappa = clampd(exp(mean), 0.1, 5.0);
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
    contention = clampd(contention, 0.25, 1.5);
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
  x->copy = (m->copy_rate > 0 ? m->copy_rate : 2e9) * clampd((double)r0 / real_rpn, 0.125, 8);
  x->alloc = (m->alloc_rate > 0 ? m->alloc_rate : 1e9) * clampd((double)r0 / real_rpn, 0.125, 8);
  x->intra = m->link[HPLAN_INTRA];
  x->inter = m->have_inter ? m->link[HPLAN_INTER] : m->link[HPLAN_INTRA];
  x->net = torus_of(m, nodes);
  x->ovl = clampd(m->overlap, 0, 1);
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
    double p1 = m->env_p[i] - 1, q = lg2c(m->env_p[i]);
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
    y.P = m->P, y.nodes = m->nodes > 0 ? m->nodes : 1;
    y.rpn = (y.P + y.nodes - 1) / y.nodes;
    y.net = torus_of(m, y.nodes);
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
                         ? bcast_seg(&y, w, a, inner[s] * sizes[s], sizes[s] / X) / inner[s]
                         : bcast_raw(&y, w, a, sizes[s]);
        if (m->bcast[a][s] > 0 && mod > 0) r[nr++] = m->bcast[a][s] / mod;
      }
      if (nr == 0) continue;
      for (int i = 1; i < nr; i++) /* median of at most three */
        for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
          double t = r[j];
          r[j] = r[j - 1], r[j - 1] = t;
        }
      x->kappa[a] = clampd(nr % 2 ? r[nr / 2] : 0.5 * (r[nr / 2 - 1] + r[nr / 2]), 0.3, 5.0);
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

static double pack_t(const hp_ctx *x, double bytes) {
  return bytes > 0 ? bytes / x->copy : 0.0;
}

/* Workspaces of `words` doubles in all, taken from the grid (hdist_take): a repeated call, which is
 * what is predicted, finds them there and pays nothing, unless they are more than the grid keeps
 * (HDIST_KEEP_WORDS), when they are mapped and faulted afresh at every call. */
static double ws_t(const hp_ctx *x, double words) {
  return words > (double)HDIST_KEEP_WORDS ? 8.0 * words / x->alloc : 0.0;
}

/* One step of a broadcast routed on the torus, messages of m bytes: its slowest message. */
static double tstep_t(const hp_ctx *x, const hp_tstep *s, double m) {
  double t = s->intra ? x->intra.alpha + m * x->intra.beta : 0.0;
  if (s->inter) t = fmax(t, x->net.alpha + (s->hops - 1) * x->net.hop + m * x->net.beta * s->load);
  return t;
}

/* The segmented chain of X = ceil(m / seg) segments on the torus: the slowest link paces it. */
static int torus_chain(const hp_ctx *x, hp_env e, double m, double seg, double *work, double *t) {
  hp_tstep s;
  int rc = hp_torus_step(&x->net, x->rpn, e, HP_STEP_CHAIN, 0, work, &s);
  double X = fmax(1.0, ceil(m / seg)), fam = (double)e.n1 * e.n2;
  hp_tstep in = s, out = s;
  in.inter = 0, out.intra = 0;
  double si = s.intra ? tstep_t(x, &in, m / X) : 0, so = s.inter ? tstep_t(x, &out, m / X) : 0;
  *t = (X - 1) * fmax(si, so) + ceil(s.inter / fam) * so + ceil(s.intra / fam) * si;
  return rc;
}

/* Broadcast over e's family routed on the torus (uncalibrated), the chain in segments of seg;
 * -1 where the torus cannot tell (e's ranks unknown, no memory). */
static double torus_bcast(const hp_ctx *x, hp_env e, int alg, double m, double seg) {
  if (alg != HBSP_FLAT && alg != HP_FLAT_ALL && alg != HBSP_PIPELINE && alg != HBSP_BINOMIAL &&
      alg != HBSP_SCATTER_ALLGATHER) { /* NATIVE: as bcast_raw's */
    double t = torus_bcast(x, e, HBSP_BINOMIAL, m, seg),
           u = torus_bcast(x, e, HBSP_SCATTER_ALLGATHER, m, seg),
           v = torus_bcast(x, e, HBSP_PIPELINE, m, 131072.0);
    return t < 0 || u < 0 || v < 0 ? -1.0 : fmin(t, fmin(u, v));
  }
  const hp_torus *net = &x->net;
  double *work = calloc((size_t)net->nodes * 2 * (size_t)net->nd, sizeof *work);
  if (work == NULL) return -1.0;
  int p = e.p, top = 1, rc = HLA_OK;
  while (top < p) top <<= 1;
  double t = 0;
  hp_tstep s;
  if (alg == HBSP_FLAT) { /* one message after the other */
    for (int d = 1; d < p && rc == HLA_OK; d++) {
      rc = hp_torus_step(net, x->rpn, e, HP_STEP_FLAT_ONE, d, work, &s);
      t += tstep_t(x, &s, m);
    }
  } else if (alg == HP_FLAT_ALL) {
    rc = hp_torus_step(net, x->rpn, e, HP_STEP_FLAT_ALL, 0, work, &s);
    t = tstep_t(x, &s, m);
  } else if (alg == HBSP_PIPELINE) {
    rc = torus_chain(x, e, m, seg, work, &t);
  } else { /* the tree; the scatter's messages hold d of the p blocks */
    for (int d = top / 2; d > 0 && rc == HLA_OK; d /= 2) {
      rc = hp_torus_step(net, x->rpn, e, HP_STEP_TREE, d, work, &s);
      t += tstep_t(x, &s, alg == HBSP_BINOMIAL ? m : m * d / p);
    }
    if (alg == HBSP_SCATTER_ALLGATHER && rc == HLA_OK) {
      rc = hp_torus_step(net, x->rpn, e, HP_STEP_RING, 0, work, &s);
      t += (p - 1) * tstep_t(x, &s, m / p);
    }
  }
  free(work);
  return rc == HLA_OK ? t : -1.0;
}

/* HPL's binary exchange of m bytes over e alone (recursive doubling, coll_reduce.c's
 * allreduce_rec), routed on the network (torus, ports): at distance 1, 2, 4, ... every rank sends
 * one message, a step taking the latency of one message inside or across nodes (the probe's: a
 * torus's further hops are left out, its hop time being that of long messages) and the bytes at
 * the link's rate divided among the messages on the step's busiest link; off a power of two, the
 * fold in and out at distance 1. The fitted small allreduce stood in for the latency before and
 * put the LU's pivot search at twice the simulated one on the fat tree. -1 where the network
 * cannot tell. */
static double torus_exchange(const hp_ctx *x, hp_env e, double m) {
  if (x->net.nd == 0 || e.n1 <= 0 || e.spans <= 1) return -1.0;
  double *work = calloc((size_t)x->net.nodes * 2 * (size_t)x->net.nd, sizeof *work);
  if (work == NULL) return -1.0;
  int top = 1, rc = HLA_OK;
  while (2 * top <= e.p) top <<= 1;
  double t = 0;
  hp_tstep s;
  for (int d = top < e.p ? 0 : 1; d < top && rc == HLA_OK; d = d ? 2 * d : 1) {
    rc = hp_torus_step(&x->net, x->rpn, e, HP_STEP_EXCHANGE, d ? d : 1, work, &s);
    const double a = x->net.alpha + (x->net.ports ? (s.hops - 1) * x->net.hop : 0.0);
    t +=
        (d ? 1 : 2) * (s.inter ? a + m * x->net.beta * s.load : x->intra.alpha + m * x->intra.beta);
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
  double *work = calloc((size_t)x->net.nodes * 2 * (size_t)x->net.nd, sizeof *work);
  if (work == NULL) return -1.0;
  hp_tstep s;
  int rc = hp_torus_step(&x->net, x->rpn, e, HP_STEP_FLAT_ALL, 0, work, &s);
  free(work);
  return rc == HLA_OK ? tstep_t(x, &s, m) : -1.0;
}

/* Broadcast over e with the inter-node link on the messages that cross nodes (uncalibrated); on a
 * torus, routed (torus.c); the chain in segments of seg. */
static double bcast_seg(const hp_ctx *x, hp_env e, int alg, double m, double seg) {
  if (e.p <= 1) return 0.0;
  if (x->net.nd > 0 && e.n1 > 0 && e.spans > 1) {
    double t = torus_bcast(x, e, alg, m, seg);
    if (t >= 0) return t;
  }
  /* all at once inside a node: the network model's messages there do not share (a node's memory
   * is far faster than one transfer: SimGrid's loopback is a fat pipe), as tstep_t has them;
   * without a network model FLAT_ALL is FLAT, the root's link carrying them one after the other */
  if (alg == HP_FLAT_ALL && e.spans <= 1 && x->net.nd > 0)
    return x->intra.alpha + m * x->intra.beta;
  if (alg == HP_FLAT_ALL) alg = HBSP_FLAT;
  if (e.spans <= 1) return bcast1(alg, e.p, m, 0, x->intra);
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
    return (lg2c(p) - lg2c(q)) * (ie.alpha + m * ie.beta) + lg2c(q) * (ia.alpha + m * ia.beta);
  case HBSP_SCATTER_ALLGATHER:
    return bcast1(alg, p, m, 0, ie);
  default: {
    double t = bcast_raw(x, e, HBSP_BINOMIAL, m);
    t = fmin(t, bcast_raw(x, e, HBSP_SCATTER_ALLGATHER, m));
    return fmin(t, bcast1(HBSP_PIPELINE, p, m, 131072.0, ie));
  }
  }
}

/* ... in the library's segments (coll.c) */
static double bcast_raw(const hp_ctx *x, hp_env e, int alg, double m) {
  return bcast_seg(x, e, alg, m, 65536.0);
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

/* The time until relative rank 1 of e has the whole message: the library's segmented chain hands
 * each of its X segments to it first (over a link inside a node where the ranks of e share nodes),
 * while a tree reaches it only at the end. */
static double bcast_first(const hp_ctx *x, hp_env e, int alg, double bytes) {
  if (alg != HBSP_PIPELINE || e.p <= 2 || bytes <= 0) return hp_bcast(x, e, alg, bytes);
  const hplan_link lk = e.spans <= 1 || e.per_node > 1 ? x->intra : x->inter;
  const double X = fmax(1.0, ceil(bytes / 65536.0));
  return x->kappa[alg] * X * (lk.alpha + bytes / X * lk.beta);
}

/* The time the library's segmented chain holds a rank of e that it has reached: its X segments in
 * and out, each at the pace of the chain's slowest link (routed where the network is known). 0 for
 * the other broadcasts (the LU prices them whole on its critical path). */
static double bcast_busy(const hp_ctx *x, hp_env e, int alg, double bytes) {
  if (alg != HBSP_PIPELINE || e.p <= 2 || bytes <= 0) return 0.0;
  const double X = fmax(1.0, ceil(bytes / 65536.0)), m = bytes / X;
  if (x->net.nd > 0 && e.n1 > 0 && e.spans > 1) {
    double *work = calloc((size_t)x->net.nodes * 2 * (size_t)x->net.nd, sizeof *work);
    hp_tstep s;
    int rc = work ? hp_torus_step(&x->net, x->rpn, e, HP_STEP_CHAIN, 0, work, &s) : HLA_ERR_NOMEM;
    free(work);
    if (rc == HLA_OK) return X * tstep_t(x, &s, m);
  }
  const hplan_link lk = e.spans > 1 ? x->inter : x->intra;
  return x->kappa[alg] * X * (lk.alpha + m * lk.beta);
}

/* One hop of the L panels' ring (factor.c), on average: the whole message over each of the row's
 * N - 1 hops (a chain of one segment, routed where the network is known), over N - 1. */
static double ring_hop(const hp_ctx *x, hp_env e, double bytes) {
  if (e.p <= 1 || bytes <= 0) return 0.0;
  return x->kappa[HBSP_PIPELINE] * bcast_seg(x, e, HBSP_PIPELINE, bytes, bytes) / (e.p - 1);
}

/* The L panels' ring as the process columns see it: a hop inside a node (in), the hop to the next
 * node (cross), per_node columns to a node. */
typedef struct {
  double in, cross;
  int per_node;
} ring_hops;

static ring_hops ring_hops_of(const hp_ctx *x, hp_env row, double bytes) {
  ring_hops r = {0.0, 0.0, row.per_node > 1 ? row.per_node : 1};
  if (r.per_node > 1) r.in = ring_hop(x, hp_env_of(x, 0, 1, r.per_node), bytes);
  /* the hop from a node's last rank to the next node's first */
  r.cross = row.spans > 1 ? ring_hop(x, hp_env_of(x, x->rpn - 1, 1, 2), bytes) : r.in;
  return r;
}

/* Of k process columns whose messages would go at once, how many do round the ring: the panel
 * reaches them a hop apart (a node's one after the other, then the next node's), so only those
 * it reaches within t (what one of them holds a link) of the first overlap. */
static int64_t ring_overlap(int64_t k, double t, ring_hops h) {
  const double node = (h.per_node - 1) * h.in + h.cross; /* from a node's first to the next's */
  if (t <= 0 || node <= 0) return k;
  const double whole = floor(t / node), rest = t - whole * node;
  const double part = h.in > 0 ? fmin(h.per_node, ceil(rest / h.in)) : (rest > 0);
  const double q = fmax(1.0, whole * h.per_node + part);
  return q < (double)k ? (int64_t)q : k;
}

/* e's two levels by node (hlu_bcast): a node's ranks and the nodes' leaders; 0 where e has one. */
static int node_levels(const hp_ctx *x, hp_env e, hp_env *in, hp_env *lead) {
  if (e.spans <= 1 || e.per_node <= 1 || e.spans >= e.p) return 0;
  *in = (hp_env){.p = e.per_node, .spans = 1, .per_node = e.per_node};
  *lead = (hp_env){.p = e.spans, .spans = e.spans, .per_node = 1};
  if (e.n1 > 0 && e.stride > 0 && x->rpn % e.stride == 0 && e.per_node == x->rpn / e.stride)
    *lead = e, lead->p = e.spans, lead->stride = x->rpn, lead->per_node = 1; /* nodes in a run */
  return 1;
}

double hp_bcast_nodes(const hp_ctx *x, hp_env e, int alg, double bytes) {
  hp_env in, lead;
  if (!node_levels(x, e, &in, &lead)) return hp_bcast(x, e, alg, bytes);
  return 2 * hp_bcast(x, in, alg, bytes) + hp_bcast(x, lead, alg, bytes);
}

/* ... and what it holds a rank (bcast_busy): a node's chain and the leaders' */
static double bcast_nodes_busy(const hp_ctx *x, hp_env e, int alg, double bytes) {
  hp_env in, lead;
  if (!node_levels(x, e, &in, &lead)) return bcast_busy(x, e, alg, bytes);
  return bcast_busy(x, in, alg, bytes) + bcast_busy(x, lead, alg, bytes);
}

/* ... and until relative rank 1 has it: in the root's node but where the root is its node's last
 * rank (1 in per_node), after the leaders' broadcast. */
static double bcast_nodes_first(const hp_ctx *x, hp_env e, int alg, double bytes) {
  hp_env in, lead;
  if (!node_levels(x, e, &in, &lead)) return bcast_first(x, e, alg, bytes);
  return bcast_first(x, in, alg, bytes) + hp_bcast(x, lead, alg, bytes) / e.per_node;
}

double hp_sync(const hp_ctx *x, hp_env e, double h) {
  if (e.p <= 1) return 0.0;
  double l = x->l0 + x->l1 * (e.p - 1), g = x->gw_node;
  if (e.spans > 1) {
    l += 2 * lg2c(e.spans) * fmax(0.0, x->inter.alpha - x->intra.alpha);
    g = fmax(x->gw, 8 * x->inter.beta);
  }
  return h * g + l;
}

double hp_allreduce_small(const hp_ctx *x, hp_env e, int nodes) {
  if (e.p <= 1) return 0.0;
  double extra = fmax(0.0, x->inter.alpha - x->intra.alpha);
  if (nodes && e.spans > 1 && e.per_node > 1 && e.spans < e.p) {
    /* in the group, among leaders, back in the group */
    double in = x->ar0 + x->ar1 * lg2c(e.per_node);
    return 2 * in + x->ar0 + x->ar1 * lg2c(e.spans) + 2 * lg2c(e.spans) * extra;
  }
  return x->ar0 + x->ar1 * lg2c(e.p) + (e.spans > 1 ? 2 * lg2c(e.spans) * extra : 0.0);
}

/* ---------------------------------------------------------------- multiply */

static int64_t numroc0(int64_t n, int64_t nb, int np) {
  return hcyc_numroc(n, nb > 0 ? nb : 1, 0, np > 0 ? np : 1); /* process 0 has the most */
}

/* Broadcasts per panel of width b whose k-blocks are kb (pieces). */
static double pieces(int b, int kb) {
  if (kb <= 0 || kb % b == 0) return 1.0;
  if (b % kb == 0) return (double)(b / kb);
  return (double)(b / kb) + 1.0;
}

/* A panel broadcast of the multiply: MPI_Ibcast for AUTO and NATIVE (summa.c: mm_bcast), else the
 * BSP layer's blocking algorithm. */
static double mm_bcast_t(const hp_ctx *x, hp_env e, int alg, double bytes) {
  return alg == HBSP_AUTO || alg == HBSP_NATIVE ? hp_ibcast(x, e, bytes)
                                                : hp_bcast(x, e, alg, bytes);
}

/* On the network the model knows (a torus, ports), what the non-blocking panel broadcasts
 * (MPI_Ibcast, of the shape fitted) of n environments add once they stream, each beside the
 * broadcasts before and after it: the volume of the busiest link over its rate. -1 where it cannot
 * tell. */
static double torus_stream_t(const hp_ctx *x, const hp_env *e, const double *bytes, int n) {
  int shape = x->ib_alg;
  if (x->net.nd == 0 || (shape != HP_FLAT_ALL && shape != HBSP_BINOMIAL)) return -1.0;
  double *work = calloc((size_t)x->net.nodes * 2 * (size_t)x->net.nd, sizeof *work), most;
  if (work == NULL) return -1.0;
  int rc = hp_torus_volume(&x->net, x->rpn, e, bytes, n,
                           shape == HBSP_BINOMIAL ? HP_STEP_TREE : HP_STEP_FLAT_ALL, work, &most);
  free(work);
  return rc == HLA_OK ? x->ib_kappa * most * x->net.beta : -1.0;
}

/* e's broadcast j owners later, when the j-th next process column (row: steps of 1, cs) owns the
 * panel or its piece: a run of consecutive ranks has its j-th member as the root, ranks strided
 * across groups (the outer level) are those of the j-th next position in the groups, whose root
 * moves on a group each time the positions wrap. */
static hp_env next_panel(hp_env e, int step, int j) {
  if (e.stride == step) {
    e.root = j % e.p;
  } else { /* past the last position of the groups: the first one, the next group's owner */
    const int per = step > 0 && e.stride > step ? e.stride / step : 1;
    e.start += (j % per) * step;
    e.root = (e.root + j / per) % e.p;
  }
  return e;
}

/* Panel buffers per operand: SUMMA's s and s + 1 (summa.c), HSUMMA's outer level's O to O + 2
 * (hsumma.c: HS_OUTER). */
enum { SUMMA_BUFS = 2, HS_OUTER_BUFS = 3 };

/* SUMMA or HSUMMA on a (layer) grid: row environments are runs of consecutive ranks from 0
 * (rs = 1), column ones have stride cs; nl grids (3D's layers, SUMMA only) run at once, each
 * lstep ranks after the one before. Adds to the parts; returns seconds. */
static double layer_mm(const hp_ctx *x, int M, int N, int cs, int nl, int lstep, int64_t mloc,
                       int64_t nloc, int64_t k, int b, int64_t Mo, int gi, int gj, int kba, int kbb,
                       int alg, double *compute, double *comm) {
  if (k <= 0 || b <= 0) return 0.0;
  double S = ceil((double)k / b), w = (double)k / S; /* average panel width */
  double gemm = hp_gemm(x, (double)mloc, (double)nloc, w);
  double pack = pack_t(x, 8.0 * w * ((double)mloc / N + (double)nloc / M));
  double pa = pieces(b, kba), pb = pieces(b, kbb);
  double cstep;
  hp_env envs[4]; /* the panel's broadcasts */
  int nenv;
  int hier = (gi > 1 || gj > 1) && !(gi == M && gj == N);
  if (!hier) {
    hp_env row = hp_env_family(hp_env_of(x, 0, 1, N), cs, M, lstep, nl),
           col = hp_env_family(hp_env_of(x, 0, cs, M), 1, N, lstep, nl);
    cstep = pa * mm_bcast_t(x, row, alg, 8.0 * mloc * w / pa) +
            pb * mm_bcast_t(x, col, alg, 8.0 * nloc * w / pb);
    envs[0] = row, envs[1] = col, nenv = 2;
  } else {
    int qI = M / gi, qJ = N / gj;
    double per = (double)Mo / b;
    if (per < 1) per = 1;
    /* every group of every row (column) at once inside; across, the owners' column (row) of the
     * groups in every row (column) */
    hp_env rin = hp_env_family(hp_env_of(x, 0, 1, qJ), qJ, gj, cs, M),
           rout = hp_env_family(hp_env_of(x, 0, qJ, gj), cs, M, 0, 1);
    hp_env cin = hp_env_family(hp_env_of(x, 0, cs, qI), qI * cs, gi, 1, N),
           cout = hp_env_family(hp_env_of(x, 0, qI * cs, gi), 1, N, 0, 1);
    double inner = pa * mm_bcast_t(x, rin, alg, 8.0 * mloc * w / pa) +
                   pb * mm_bcast_t(x, cin, alg, 8.0 * nloc * w / pb);
    double outer = pieces((int)Mo, kba) *
                       mm_bcast_t(x, rout, alg, 8.0 * mloc * w * per / pieces((int)Mo, kba)) +
                   pieces((int)Mo, kbb) *
                       mm_bcast_t(x, cout, alg, 8.0 * nloc * w * per / pieces((int)Mo, kbb));
    cstep = inner + outer / per;
    envs[0] = rin, envs[1] = cin, envs[2] = rout, envs[3] = cout, nenv = 4;
  }
  double ovl = (alg == HBSP_AUTO || alg == HBSP_NATIVE) ? x->ovl : 0.0;
  /* the steps after the first: on a network the model knows, the non-blocking broadcasts stream,
   * consecutive panels' at once (whether or not they also overlap the dgemm), each environment's
   * over d panels (the runs, and the depths tried and not kept, are in bench/results/sim:
   * stream_depth_2026-11-28.txt and stream_depth_hsumma_2026-11-28.txt):
   *   a network of ports (fat tree, star): 4 for every broadcast (fitted);
   *   a torus: 2 over fewer than 32 ranks (fitted: alone, broadcasts gain the less from streaming
   *     the fewer ranks they span); over 32 or more 4 (fitted), and on HSUMMA's outer level 2 for
   *     each outer panel a rank keeps in flight, 6 for its 3: the runs with two outer buffers
   *     (before 8e143e2) fit 4, and a build with four ran within 1 % of the model at 8 (32 x 32
   *     and 64 x 8 groups at 4,096 ranks). SUMMA does not follow that rule: with a third buffer
   *     it ran 2 % faster, where 6 deep would be 1.47 x. */
  double cnext = cstep;
  if (alg == HBSP_AUTO || alg == HBSP_NATIVE) {
    /* A panel in blocks narrower than itself comes in pieces, one from each of as many
     * consecutive owners, posted together (summa.c): on a network with ports they leave through
     * as many nodes. Up to PIECES of them are routed, each with its share. */
    enum { PIECES = 8, DEEP = 4, MAX_DEPTH = 2 * HS_OUTER_BUFS, FEW = 32 };
    hp_env stream[MAX_DEPTH * 4 * PIECES];
    double vol[MAX_DEPTH * 4 * PIECES];
    int n = 0;
    for (int i = 0; i < nenv; i++) {
      const int np = (int)fmin(i % 2 ? pb : pa, PIECES);
      /* d of its panels in the stream, each counted MAX_DEPTH / d times; envs[2..3] are HSUMMA's
       * outer level */
      const int d = x->net.ports ? DEEP : envs[i].p < FEW ? 2 : i >= 2 ? MAX_DEPTH : DEEP;
      for (int j = 0; j < d * np; j++) { /* this panel's pieces, then the next ones' */
        stream[n] = next_panel(envs[i], i % 2 ? cs : 1, j);
        vol[n++] = 8.0 * (i % 2 ? nloc : mloc) * w / np * MAX_DEPTH / d;
      }
    }
    double v = torus_stream_t(x, stream, vol, n);
    if (v >= 0) v /= MAX_DEPTH;
    if (v >= 0 && v < cstep) cnext = v;
  }
  if (M * N > 1) { /* the panel comes from ranks that were computing */
    cstep += x->sync_load;
    cnext += x->sync_load;
  }
  double work = gemm + pack;
  double wide = hier ? (double)Mo : (double)b;
  double nbuf = hier ? HS_OUTER_BUFS : SUMMA_BUFS;
  double bufs = ws_t(x, nbuf * (mloc + nloc) * wide);
  double t = bufs + cstep + S * work + (S - 1) * (cnext - ovl * fmin(work, cnext));
  *compute += S * work + bufs;
  *comm += cstep + (S - 1) * cnext;
  return t;
}

/* Remap of an operand with h local words into the computing layout (mm_remap): the target, the
 * send and the receive buffers taken, the data packed and unpacked. */
static double remap_t(const hp_ctx *x, double h) {
  hp_env w = hp_env_of(x, 0, 1, x->P);
  return ws_t(x, 3 * h) + pack_t(x, 16.0 * h) + hp_sync(x, w, h) + 2 * hp_allreduce_small(x, w, 0);
}

int hp_layer_split(int c, int M, int N) {
  int r = M % c == 0, cl = N % c == 0;
  if (r && cl) return fabs(log((double)M / c) - log(N)) <= fabs(log(M) - log((double)N / c));
  return r ? 1 : cl ? 0 : -1;
}

double hp_mm_time(const hp_ctx *x, const hp_mm *c, double *compute, double *comm, double *exposed) {
  double cp = 0, cm = 0, t = 0;
  int M = c->M, N = c->N;
  int64_t m = c->m, n = c->n, k = c->k;
  if (m <= 0 || n <= 0) {
    t = 0;
  } else if (k <= 0) {
    t = cp = pack_t(x, 8.0 * numroc0(m, c->mb, M) * numroc0(n, c->nb, N));
  } else if (M * N == 1) {
    t = cp = hp_gemm(x, (double)m, (double)n, (double)k);
  } else if (c->alg == HLA_MM_3D && c->c > 1) {
    int split = c->split_rows, ML = split ? M / c->c : M, NL = split ? N : N / c->c;
    int64_t panels = (k + c->b - 1) / c->b, kshare = ((panels + c->c - 1) / c->c) * c->b;
    int64_t kl = kshare < k ? kshare : k;
    int64_t mL = numroc0(m, c->mb, ML), nL = numroc0(n, c->nb, NL);
    double ha = (double)mL * numroc0(kshare, c->b, NL), hb = (double)numroc0(kshare, c->b, ML) * nL;
    double rm = remap_t(x, ha) + remap_t(x, hb);
    cm += rm;
    t += rm;
    /* the c layers broadcast at once: where their rows or columns share links (layers cut across
     * the grid's rows on a torus whose rings hold more than a layer's row) they slow each other */
    t += layer_mm(x, ML, NL, N, c->c, split ? ML * N : NL, mL, nL, kl, c->b, c->b, 1, 1, c->b, c->b,
                  c->bcast_alg, &cp, &cm);
    /* pack C_l, reduce over the fibre, add into C */
    hp_env fib = hp_env_of(x, 0, split ? ML * N : NL, c->c);
    double words = (double)mL * nL, gamma = 1.0 / x->copy;
    hplan_link lk = fib.spans > 1 ? x->inter : x->intra;
    double red = c->c * hplan_coll_time(HPLAN_REDUCE, HBSP_NATIVE, c->c, 1, 8.0 * words / c->c, 0,
                                        gamma, lk, lk);
    /* on a network the model knows, every fibre reduces at once: a binomial tree routed (the
     * broadcast's steps reversed), the adds beside (the probe's links alone put the 4,096-rank
     * runs with 8 and 16 layers at 0.75 and 0.69 x: a fibre runs down one ring of the torus) */
    hp_env fibs = split ? hp_env_family(fib, 1, ML * N, 0, 1) : hp_env_family(fib, 1, NL, N, M);
    double routed = x->net.nd > 0 ? torus_bcast(x, fibs, HBSP_BINOMIAL, 8.0 * words / c->c, 0) : -1;
    if (routed >= 0) red = c->c * (routed + lg2c(c->c) * 8.0 * words / c->c * gamma);
    double loc = ws_t(x, 2 * words) + pack_t(x, 8.0 * words) + pack_t(x, 16.0 * words / c->c);
    t += red + loc;
    cm += red;
    cp += loc;
  } else {
    int64_t mloc = numroc0(m, c->mb, M), nloc = numroc0(n, c->nb, N);
    if (!c->a_here) {
      double r = remap_t(x, (double)mloc * numroc0(k, c->b, N));
      t += r, cm += r;
    }
    if (!c->b_here) {
      double r = remap_t(x, (double)numroc0(k, c->b, M) * nloc);
      t += r, cm += r;
    }
    int kba = c->a_here ? c->kba : c->b, kbb = c->b_here ? c->kbb : c->b;
    int gi = c->alg == HLA_MM_HSUMMA ? c->gi : 1, gj = c->alg == HLA_MM_HSUMMA ? c->gj : 1;
    t += layer_mm(x, M, N, N, 1, 0, mloc, nloc, k, c->b, c->Mo > 0 ? c->Mo : c->b, gi, gj, kba, kbb,
                  c->bcast_alg, &cp, &cm);
    double sc = pack_t(x, 8.0 * mloc * nloc); /* C := beta C */
    t += sc, cp += sc;
  }
  t *= x->mm_cal, cp *= x->mm_cal, cm *= x->mm_cal;
  if (compute) *compute = cp;
  if (comm) *comm = cm;
  if (exposed) *exposed = t - cp > 0 ? t - cp : 0;
  return t;
}

void hp_hsumma_comm(int alg, double m, double n, double k, int M, int N, int gi, int gj, double Mo,
                    double b, hplan_link lk, double *lat, double *bw) {
  hplan_link la = {lk.alpha, 0}, lb = {0, lk.beta};
  double mloc = m / M, nloc = n / N;
  int qI = M / gi, qJ = N / gj;
  for (int pass = 0; pass < 2; pass++) {
    hplan_link l = pass ? lb : la;
    double inner =
        (k / b) * (bcast1(alg, qJ, 8 * mloc * b, 0, l) + bcast1(alg, qI, 8 * nloc * b, 0, l));
    double outer =
        (k / Mo) * (bcast1(alg, gj, 8 * mloc * Mo, 0, l) + bcast1(alg, gi, 8 * nloc * Mo, 0, l));
    *(pass ? bw : lat) = inner + outer;
  }
}

/* ---------------------------------------------------------------- LU and solve */

/* Largest number of local indices >= j over the np processes (blocks of nb). */
static double local_from(int64_t n, int64_t j, int nb, int np) {
  int64_t best = 0;
  for (int p = 0; p < np; p++) {
    int64_t v = hcyc_numroc(n, nb, p, np) - hcyc_numroc(j, nb, p, np);
    if (v > best) best = v;
  }
  return (double)best;
}

/* The panel of block step k (columns j0 .. j0 + jb, rows R local). */
static double lu_panel(const hp_ctx *x, const hp_lu *c, hp_env col, double R, double jb,
                       double *comm) {
  double fl = R * jb * jb - jb * jb * jb / 3.0;
  if (fl < R * jb) fl = R * jb;
  double rate = x->panel_rate * jb / (jb + x->panel_half);
  double t = fl / rate;
  if (c->M > 1) {
    int hier = c->alg == HLA_LU_HIER;
    /* per column on a flat column: every rank's record (candidate and diagonal row, 2 jb + 3
     * words) on the column's board where the column lies on one node (up to HLU_PANEL_FUSE_MAX
     * process rows, the library's collectives; no message), else the binary exchange (latency
     * as a small allreduce, log2 M records each way); on a two-level column a max-with-location
     * and a superstep trading the rows */
    const double recw = 2 * jb + 3;
    const int flat = !hier || col.spans <= 1 || col.per_node <= 1;
    const int pboard = flat && c->M <= HLU_PANEL_FUSE_MAX && col.spans <= 1 &&
                       c->bcast_alg == HBSP_AUTO && !x->m->no_board;
    const double beta = col.spans > 1 ? x->inter.beta : x->intra.beta;
    const hp_env one = hp_env_family(col, 0, 1, 0, 1); /* the panel's column alone */
    /* on a network the model knows, the column's records go over links that nobody else uses
     * meanwhile (the probe's beta has every rank of a node sending), a message's latency a step */
    const double tx = flat && !pboard ? torus_exchange(x, one, 8 * recw) : -1.0;
    /* two levels: the winner's row to the column's others, routed where the network is known */
    const double tr = flat ? -1.0 : hp_torus_trade(x, one, 8 * (jb + 1));
    /* ... and its max-with-location: in the node, among the nodes' leaders (routed, as the flat
     * column's exchange; the fitted small allreduce put 32 x 32 by node at 1.30 x on the fat
     * tree), back in the node */
    hp_env in, lead;
    const double lx =
        !flat && node_levels(x, one, &in, &lead) ? torus_exchange(x, lead, 16.0) : -1.0;
    const double mx =
        lx >= 0 ? lx + 2 * lg2c(in.p) * x->intra.alpha : hp_allreduce_small(x, col, hier);
    double percol =
        pboard    ? c->M * recw * x->gw_node
        : tx >= 0 ? tx
        : flat    ? hp_allreduce_small(x, col, 0) + lg2c(c->M) * 8 * recw * beta
                  : mx + (tr >= 0 ? hp_sync(x, col, 0) + tr : hp_sync(x, col, c->M * (jb + 1)));
    double leafmem = pack_t(x, 8.0 * R * 8); /* the BLAS-2 leaf updates, memory bound */
    /* the recursion's U12 blocks go down the panel's column alone (routed as every column's at
     * once, their messages shared ports with columns that send nothing meanwhile) */
    double nrec = jb / 8 - 1 > 0 ? jb / 8 - 1 : 0, wrec = jb * (jb - 8) / 2;
    double rec = nrec > 0 ? nrec * (hier ? hp_bcast_nodes(x, one, c->bcast_alg, 8 * wrec / nrec)
                                         : hp_bcast(x, one, c->bcast_alg, 8 * wrec / nrec))
                          : 0.0;
    double cm = jb * percol + rec;
    *comm += cm;
    t += cm + jb * leafmem;
  }
  return t;
}

/* A node's k process columns sending their U blocks at once, priced tk routed together and t1 one
 * alone: they do not stay in step (bench/results/sim/lu_u_chains_2026-11-28.txt). Out of step, the
 * critical one (the next panel's column) finds another's bytes on its link the fraction d of the
 * time that one alone spends moving bytes, d = (tk/t1 - 1) / (k - 1); and one a hop ahead keeps
 * the next link to itself and stays ahead, so of the others about half still meet it. (Torus
 * chains: d 0.74-0.87; fat tree chains 0.3-0.4, their hops mostly latency.) */
static double out_of_step(double t1, double tk, int64_t k) {
  if (k < 2 || t1 <= 0 || tk <= t1) return tk;
  const double d = clampd((tk / t1 - 1) / (double)(k - 1), 0.0, 1.0);
  return t1 + 0.5 * d * (tk - t1);
}

/* A superstep of U's process columns (the kk of them whose messages share links: the ring's
 * overlap, as in the step below) in which relative rank 0 of each sends `bytes` to every other
 * rank of its column, or every rank to every other (an exchange loads each port as much): routed
 * where the network is known, out of step as the U chains; else at the probe's g for `words`. */
static double u_superstep(const hp_ctx *x, hp_env col, hp_env ucol0, int64_t ucols, int ring,
                          ring_hops hop, double bytes, double words) {
  const double t1 = hp_torus_trade(x, hp_env_family(ucol0, 1, 1, 0, 1), bytes);
  if (t1 < 0) return hp_sync(x, col, words);
  const int64_t kk = ring ? ring_overlap(ucols, t1, hop) : ucols;
  const double tk = hp_torus_trade(x, hp_env_family(ucol0, 1, (int)kk, 0, 1), bytes);
  return hp_sync(x, col, 0) + out_of_step(t1, tk, kk);
}

double hp_lu_time(const hp_ctx *x, const hp_lu *c, double *compute, double *comm, double *exposed) {
  int64_t n = c->n;
  int nb = c->nb, M = c->M, N = c->N;
  double cp = 0, cm = 0, t = 0;
  if (n <= 0 || nb <= 0) goto done;
  if (M * N == 1) { /* one process: LAPACK's dgetrf on all its threads */
    double nn = (double)n;
    t = cp = 2.0 / 3 * nn * nn * nn * (1 + x->getrf_half / nn) / x->getrf_rate;
    if (c->nrhs > 0) t += hp_solve_time(x, n, M, N, nb, c->nrhs);
    goto done;
  }
  /* the L panel goes along every process row at once, U down every process column */
  hp_env row = hp_env_family(hp_env_of(x, 0, 1, N), N, M, 0, 1),
         col = hp_env_family(hp_env_of(x, 0, N, M), 1, N, 0, 1);
  int hier = c->alg == HLA_LU_HIER;
  /* The U blocks go down every process column once it has the L panel, which reaches the columns
   * of one node together but the next node's a link's message later: the columns whose U
   * broadcasts share links are a node's, and of those only the ones that hold blocks right of the
   * panel (fewer than a node's on grids with more process columns than block columns). (Counting
   * all of them on a torus took the predicted LU to 1.45 x the simulated one at 4,096 ranks on
   * 32 x 128.) */
  const hp_env ucol0 = hp_env_of(x, 0, N, M);
  int la = c->lookahead > 0 && N > 1;
  int flat_row = la && (!hier || row.spans <= 1 || row.per_node <= 1);
  /* the L panel posted on the row's board (one node, the library's broadcasts) or sent early */
  int board = flat_row && N > HLU_BOARD_MIN && row.spans <= 1 && c->bcast_alg == HBSP_AUTO &&
              !x->m->no_board;
  int ring = flat_row && !board && N > HLU_EARLY_MAX && c->bcast_alg == HBSP_AUTO;
  int early = board || ring ||
              (flat_row && N <= HLU_EARLY_MAX &&
               (c->bcast_alg == HBSP_AUTO || c->bcast_alg == HBSP_NATIVE));
  /* the L and U broadcasts: pipelined on more than two ranks unless asked otherwise (lu_impl.h) */
  int auto_alg = c->bcast_alg == HBSP_AUTO;
  int lalg = auto_alg && row.p > 2 ? HBSP_PIPELINE : c->bcast_alg;
  int ualg = auto_alg && col.p > 2 ? HBSP_PIPELINE : c->bcast_alg;
  /* U12 streamed or solved in parts over the column (ublock.c: one level, the library's
   * collectives) */
  int usplit = auto_alg && M > 1 && M <= HLU_USPLIT_MAX &&
               (!hier || col.spans <= 1 || col.per_node <= 1 || col.spans >= col.p);
  /* The workspaces (two L buffers and the U buffer) stay with the grid between calls (hdist_take):
   * a repeated call, which is what is predicted, pays nothing for them; the first one on a grid
   * pays for mapping them once. */
  int64_t steps = (n + nb - 1) / nb;
  double lag = 0, round_end = 0;
  for (int64_t k = 0; k < steps; k++) {
    int64_t j0 = k * nb, j1 = j0 + nb < n ? j0 + nb : n;
    double jb = (double)(j1 - j0);
    double R0 = local_from(n, j0, nb, M), R1 = local_from(n, j1, nb, M);
    double Cn = local_from(n, j1, nb, N);
    /* the process columns that hold blocks right of the panel: they alone swap rows and take U */
    int64_t cols = (n - j1 + nb - 1) / nb;
    if (cols > N) cols = N;
    if (cols < 1) cols = 1;
    /* ... and of those a node's send their U blocks at once (round the ring, fewer:
     * ring_overlap) */
    const int64_t ucols = cols < x->rpn ? cols : x->rpn;
    const hp_env one = hp_env_family(ucol0, 1, 1, 0, 1);
    double cmp = 0; /* communication of this step */
    double panel;
    if (la && k > 0)
      panel = 0; /* factored in step k - 1 */
    else
      panel = lu_panel(x, c, col, R0, jb, &cmp);
    cp += panel;
    double Lb = 8.0 * (jb + 1 + R0 * jb);
    double L = ring   ? ring_hop(x, row, Lb)
               : hier ? hp_bcast_nodes(x, row, lalg, Lb)
                      : hp_bcast(x, row, lalg, Lb);
    cmp += L;
    /* With look-ahead only the next panel's owner, the chain's first rank, waits for the L panel
     * on the critical path; the others, further down the chain, lag behind by the rest of it, the
     * same each step, which shows once, at the end (lag). By node, the first rank of the root's
     * node's chain (the whole broadcast put 8 x 128 at 1.61 x on the fat tree). */
    double Lcrit = !la    ? L
                   : hier ? bcast_nodes_first(x, row, lalg, Lb)
                          : bcast_first(x, row, lalg, Lb);
    if (k == 0) lag = L - Lcrit;
    const ring_hops hops = ring ? ring_hops_of(x, row, Lb) : (ring_hops){0.0, 0.0, 1};
    /* the ring: panel k reaches the last rank that holds columns right of it (factor.c's
     * early_full) `full` hops after it leaves, and the row's last rank its header a hop each after
     * that; where that is past the steps left, the run's end waits for it */
    if (ring && la) {
      const int64_t full = steps - 1 - k < N - 1 ? steps - 1 - k : N - 1;
      const double head = full < N - 1 ? ring_hop(x, row, 8.0 * (jb + 1)) : 0;
      round_end = fmax(round_end, t + (double)full * L + (double)(N - 1 - full) * head);
    }
    /* right of the panel only (the left waits for the end, below) */
    double swap;
    if (M == 1) {
      /* per local column, jb block rows (contiguous) and up to jb pivot rows (a cache line
       * each), read and written */
      swap = pack_t(x, 2.0 * jb * (8 + 48) * Cn);
      cp += swap;
    } else {
      /* one superstep of each column right of the panel, all in step (routed: 0.5-2.3 x the
       * simulated ranks' most time in them on the fat tree, where the whole row's columns took
       * up to 4 x); round the ring a column swaps once the L panel reaches it, a hop after the
       * one before, so only those within one trade's time of each other share the links, as the
       * U blocks (ring_overlap) */
      const double bytes = 8.0 * jb * Cn / M, t1 = ring ? hp_torus_trade(x, one, bytes) : -1.0;
      const int64_t ks = t1 >= 0 ? ring_overlap(cols, t1, hops) : cols;
      double h = 2.0 * jb * (M - 1) / M * Cn,
             tr = hp_torus_trade(x, hp_env_family(ucol0, 1, (int)ks, 0, 1), bytes);
      double s = tr >= 0 ? hp_sync(x, col, 0) + tr : hp_sync(x, col, h);
      swap = pack_t(x, 2.0 * (8 + 48) * h) + s;
      cmp += s;
      cp += swap - s;
    }
    /* the interchanges left of this panel, at the end: about every row below it moves once, in
     * a pass down each of its columns, on one process column of N */
    if (j1 < n) {
      double h = R1 * jb, left = pack_t(x, 16.0 * h) / N;
      if (M > 1) {
        double s = hp_sync(x, col, h * (M - 1) / M) / N;
        cmp += s, left += s;
      }
      cp += left;
      t += left;
    }
    double trsm, Ub;
    const int pr = (int)(k % M);
    const double R1pr = (double)(hcyc_numroc(n, nb, pr, M) - hcyc_numroc(j1, nb, pr, M));
    if (usplit && Cn > 0 && (M == 2 || R1 - R1pr >= jb / 2)) {
      /* streamed: the others wait for block k+1's columns and the first slice only; pr solves
       * all, in its slack unless its update and solve outlast the others' update */
      double first = fmin(Cn, nb + (N > 1 ? (Cn > 4 * HLU_SLICE_BLOCKS * nb ? Cn / 4 : Cn)
                                          : (double)HLU_FIRST_BLOCKS * nb));
      double all = 0.6 * hp_gemm(x, jb, Cn, jb) + pack_t(x, 8.0 * jb * Cn);
      trsm = 0.6 * hp_gemm(x, jb, first, jb) + pack_t(x, 8.0 * jb * first);
      /* point to point from pr (at the probe's g, every rank of a node sending, 4 x 64 came out
       * 1.30 x on the fat tree) */
      Ub = u_superstep(x, col, ucol0, ucols, ring, hops, 8.0 * jb * first, jb * first);
      double late = all + (R1pr > 0 ? hp_gemm(x, R1pr, Cn, jb) : 0.0) - hp_gemm(x, R1, Cn, jb);
      if (late > trsm + Ub) trsm = late - Ub;
    } else if (usplit) { /* pr scatters L11 and the parts, all solve theirs, one exchange */
      trsm = Cn > 0 ? 0.6 * hp_gemm(x, jb, ceil(Cn / M / nb) * nb, jb) + pack_t(x, 16.0 * jb * Cn)
                    : 0.0;
      /* (at the probe's g 4 x 64 came out 1.26 x on the fat tree: every M-th step 1.46 ms, where
       * the simulated ones took 0.1 ms) */
      const double part = jb * jb + jb * Cn / M;
      Ub = Cn > 0 ? u_superstep(x, col, ucol0, ucols, ring, hops, 8.0 * part, part * (M - 1)) +
                        u_superstep(x, col, ucol0, ucols, ring, hops, 8.0 * jb * Cn / M,
                                    jb * Cn * (M - 1) / M)
                  : 0.0;
    } else {
      trsm = Cn > 0 ? 0.6 * hp_gemm(x, jb, Cn, jb) + pack_t(x, 8.0 * jb * Cn) : 0.0;
      const double ub = 8.0 * jb * Cn,
                   t1 = hier ? hp_bcast_nodes(x, one, ualg, ub) : hp_bcast(x, one, ualg, ub);
      /* Round the ring the chains go down the same nodes at the same pace, one started a hop
       * after the other: one that is more than a rank's hold on its segments behind another
       * never shares a link with it. (Counting all whose whole chain overlapped, by the row's
       * average hop, put 64 x 64 at 1.47 x on the fat tree: its 62 columns' chains down 64 nodes
       * all at once, where they start 5.6 us apart and each holds a rank 22 us.) */
      const double held = hier ? bcast_nodes_busy(x, one, ualg, ub) : bcast_busy(x, one, ualg, ub);
      const int64_t kk =
          ring ? ring_overlap(ucols, held > 0 ? x->kappa[ualg] * held : t1, hops) : ucols;
      const hp_env uk = hp_env_family(ucol0, 1, (int)kk, 0, 1);
      Ub = hier ? hp_bcast_nodes(x, uk, ualg, ub) : hp_bcast(x, uk, ualg, ub);
      if (ualg == HBSP_PIPELINE) /* the chains; the trees' few long steps stay in step */
        Ub = out_of_step(t1, Ub, kk);
    }
    cmp += Ub;
    double upd = hp_gemm(x, R1, Cn, jb);
    cp += trsm + upd;
    /* the L panel and (M > 1) the U block come from ranks that were computing */
    double wait = x->sync_load * ((N > 1) + (M > 1));
    cmp += wait;
    double step;
    if (!la) {
      step = panel + L + swap + trsm + Ub + upd + wait;
    } else {
      double nj = (double)(n - j1 < nb ? n - j1 : nb);
      double upd_next = nj > 0 ? hp_gemm(x, R1, nj, jb) : 0.0;
      double pn = 0;
      if (nj > 0) {
        double pc = 0;
        pn = lu_panel(x, c, col, R1, nj, &pc);
        cmp += pc;
        cp += pn;
      }
      /* the early broadcast is point-to-point from the owner; the board moves nothing (the
       * others read the panel in place) */
      double Le = board ? 0.0 : ring ? L : hp_bcast(x, row, HBSP_FLAT, Lb);
      /* The L panel's chain (not early) blocks: a rank forwards panel k + 1 only after its update
       * of step k, and every rank, wherever it is in the chain, spends Lbusy in it each step. So
       * beside the next panel's owner (Lcrit, the rest of the chain lagging behind it the same
       * each step), the rank with the largest update bounds the step: its update plus its time
       * in the chain. It decides on long rows in narrow panels once the updates are long
       * (bench/results/sim/README.md: "The LU at n = 32768, against HPL"). The ring does not
       * block, but a rank that has just handed its panel on waits for the next one to come round
       * the other N - 1 hops, once every N steps, and makes it up over the other N - 1 steps: on
       * average one hop a step beside its update, and the next owner waits for one hop. */
      double Lbusy = ring    ? Le
                     : early ? 0.0
                     : hier  ? bcast_nodes_busy(x, row, lalg, Lb)
                             : bcast_busy(x, row, lalg, Lb);
      double Lfirst = ring ? Le : early ? (1 - x->ovl) * Le : Lcrit;
      step = panel + swap + trsm + Ub + wait + fmax(Lfirst + fmax(upd, upd_next + pn), Lbusy + upd);
    }
    cm += cmp;
    t += step;
  }
  if (la && !early) t += lag;
  if (round_end > t) t = round_end;
  if (c->nrhs > 0) {
    double s = hp_solve_time(x, n, M, N, nb, c->nrhs);
    t += s;
  }
done:
  t *= x->lu_cal, cp *= x->lu_cal, cm *= x->lu_cal;
  if (compute) *compute = cp;
  if (comm) *comm = cm;
  if (exposed) *exposed = t - cp > 0 ? t - cp : 0;
  return t;
}

double hp_solve_time(const hp_ctx *x, int64_t n, int M, int N, int nb, int nrhs) {
  if (n <= 0 || nrhs <= 0 || nb <= 0) return 0.0;
  hp_env col = hp_env_of(x, 0, N, M);
  int holders = (int)((nrhs + nb - 1) / nb);
  if (holders > N) holders = N;
  hp_env row = hp_env_of(x, 0, 1, holders > 1 ? holders : (N > 1 ? 2 : 1));
  double Cb = local_from(nrhs, 0, nb, N), t = 0;
  /* the permutation: every moved row once, one superstep of the column */
  double h = (double)n / M * Cb;
  t += pack_t(x, 16.0 * h) + hp_sync(x, col, M > 1 ? h : 0);
  int64_t steps = (n + nb - 1) / nb;
  if (nrhs <= HLU_FANIN_MAX_NRHS) {
    /* fan-in: per block a reduce over a process row and a broadcast down a process column of
     * the thin block, the diagonal trsm and the block's sums (reading a part of the triangle),
     * all on the critical path: one process column's rows below the block (N <= M) or, left-
     * looking (N > M), one process row's solved columns, R or C of them per rank; then one
     * superstep per row hands x to B's holders */
    hp_env rowall = hp_env_of(x, 0, 1, N);
    for (int64_t k = 0; k < steps; k++) {
      int64_t j0 = k * nb, j1 = j0 + nb < n ? j0 + nb : n;
      double jb = (double)(j1 - j0), m = 8.0 * jb * nrhs;
      /* the forward and backward solves see R rows below and C columns solved: the mean of both */
      double R = N > M ? 0.5 * (double)n / N : local_from(n, j1, nb, M);
      double one = hp_bcast(x, rowall, HBSP_NATIVE, m) + hp_bcast(x, col, HBSP_NATIVE, m) +
                   0.6 * hp_gemm(x, jb, nrhs, jb) + hp_gemm(x, R, nrhs, jb) +
                   pack_t(x, 8.0 * R * jb);
      t += 2 * one;
    }
    return t + hp_sync(x, rowall, (double)n * nrhs / M);
  }
  for (int64_t k = 0; k < steps; k++) {
    int64_t j0 = k * nb, j1 = j0 + nb < n ? j0 + nb : n;
    double jb = (double)(j1 - j0), R = local_from(n, j1, nb, M);
    double one = hp_bcast(x, row, HBSP_NATIVE, 8.0 * R * jb) +
                 hp_bcast(x, col, HBSP_NATIVE, 8.0 * jb * Cb) + 0.6 * hp_gemm(x, jb, Cb, jb) +
                 hp_gemm(x, R, Cb, jb);
    t += 2 * (one + x->sync_load * ((M > 1) + (N > 1))); /* forward and backward */
  }
  return t;
}

/* ---------------------------------------------------------------- 3D memory, default panel */

double hp_mm3d_bytes(int64_t m, int64_t n, int64_t k, int M, int N, int mb, int nb, int panel,
                     int c, int split_rows) {
  /* the layers of mm3d.c: M/c x N or M x N/c, k cut into c shares of whole panels */
  int ML = split_rows ? M / c : M, NL = split_rows ? N : N / c;
  int64_t panels = (k + panel - 1) / panel, kshare = ((panels + c - 1) / c) * panel;
  if (kshare < 1) kshare = 1;
  /* Process (0, 0) of a layer has the largest part of every block-cyclic matrix. */
  double mL = (double)hcyc_numroc(m, mb, 0, ML), nL = (double)hcyc_numroc(n, nb, 0, NL);
  double ka = (double)hcyc_numroc(kshare, panel, 0, NL);
  double kb = (double)hcyc_numroc(kshare, panel, 0, ML);
  /* layer operands (and their remap messages), partial C and its packed copy, panels */
  double words = 2 * (mL * ka + kb * nL) + 2 * mL * nL + 2 * (mL + nL) * panel;
  return 8 * words;
}

int hp_mm_default_panel(int a_here, int b_here, int kba, int kbb, int mb, int nb) {
  int b;
  if (a_here && b_here)
    b = kba > kbb ? kba : kbb;
  else if (a_here)
    b = kba;
  else if (b_here)
    b = kbb;
  else
    b = mb > nb ? mb : nb;
  if (b < 1) b = 1;
  /* dgemm runs near its peak only from k-panels of a few hundred: widen the panel to a multiple
   * of the block (panels may span blocks). Not wider: panels are copied into buffers. */
  if (b < HMM_MIN_PANEL) b *= (HMM_MIN_PANEL + b - 1) / b;
  return b;
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
