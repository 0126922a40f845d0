/* hla — the cost model of the LU and the solves (lu/factor.c, trsolve.c, solve.c): their predicted
 * time from a machine model, on the collectives and the network of model.c. Local, pure.
 *
 * LU (lu/factor.c), n / nb block steps k, j0 = k nb, R = local rows >= j0, C = local columns >= j0
 * + nb: panel   M = 1: node-local recursive LU of R x jb at panel_rate jb / (jb + panel_half); M >
 * 1: per column on a flat column HPL's binary exchange (an allreduce of 2 jb + 3 words; on a
 * network the model knows, routed: a message's latency a step and the link's own rate, both at
 * the records' size, as the panel's column alone sends; on one node, up to HLU_PANEL_FUSE_MAX
 * process rows with the library's collectives, the records on the column's board: no latency), on a
 * two-level column the same records node first, then among the nodes' leaders (routed), then back
 * in the node, and the flops (with those of the recursion's U12 blocks, which every rank solves);
 * L       bcast(row, (jb + 1 + R jb) 8) (two levels by node in the hierarchical variant where the
 * row does not go round the ring, below; the L and U broadcasts' algorithm by their size,
 * big_alg); swaps right of the panel: M = 1 local copies of 2 jb rows; M > 1 one round of messages
 * of the column (hbsp_sync_known: no l), h = 2 jb (M - 1)/M (local columns right of the panel; on a
 * torus or ports the diagonal owners' trades routed, of the columns that hold blocks right of the
 * panel, hp_torus_trade); left of it once at the end: the rows below the panel, one pass per column
 * (M > 1: one round); U (the automatic HLA_SWAP_ROWS; the long swap is not modelled) flat with 1 <
 * M <= HLU_USPLIT_MAX: where M = 2 or pr has jb/2 rows less than another rank below the block,
 * streamed (the trsm of block k+1 and the first slice, a message of them (routed: a node's columns'
 * at once, out of step, as the chains below), and what pr's whole trsm and update take beyond the
 * others' update); else two supersteps of the column, h = (jb^2 + jb C / M)(M - 1) from the
 * diagonal owner and jb C (M - 1) / M, rounds of messages without l (routed so too: u_superstep),
 * and a trsm of jb^2 C / M flops; otherwise a trsm (jb^2 C flops) on one process row and bcast(col,
 * jb C 8), with the columns of one node at once (on a torus or ports; as pipelined chains, which
 * drift out of step, one chain and part of the rest's excess; round the L panels' ring only the
 * columns it reaches within the time a chain holds a rank of each other, a node's an in-node hop
 * apart: ring_overlap, and the next panel's owner's alone, as it passes the panel on only after
 * it); update  dgemm(R', C, jb), R' = local rows >= j0
 * + jb. Without look-ahead (or N = 1) a step is the sum. With look-ahead and N > 1 the owner of
 * block k + 1 updates that block, factors panel k + 1 and (flat rows) posts its L panel on the
 * row's board (N > 2 on one node, the library's broadcasts: the others read it in place, L = 0) or
 *   sends it at once (MPI's broadcast or the library's, up to HLU_EARLY_MAX process columns), so a
 *   step costs L (1 - ovl) + max(swaps + U + update of everything, the next panel's column's
 *   own swaps + block k + 1's trsm and U + its update + panel k + 1); on wider rows, flat or by
 *   node (the library's broadcasts), round a ring: one hop of the whole panel (the row's hops'
 *   average, ring_hop) before both, and the run no shorter than the busiest node's memory takes
 *   to carry the ring's hops through it, from when the first panel reaches it (where the machine
 *   knows the memory: ring_memory). With another broadcast on wider flat rows the next owner is
 *   the first rank of the segmented chain: a step waits only for its X segments over one link,
 *   and the rest of the chain once, at the end, but the rank with the largest update also for
 *   its time in the chain (hp_bcast_busy). One process (1 x 1): LAPACK's dgetrf, 2/3 n^3 (1 +
 *   getrf_half / n) / getrf_rate.
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
#include "dist/plan/plan_impl.h"

/* ---------------------------------------------------------------- LU and solve */

/* One hop of the L panels' ring (factor.c), on average: the whole message over each of the row's
 * N - 1 hops (a chain of one segment, routed where the network is known), over N - 1. Not
 * calibrated as the library's chain (kappa): a hop is one message, stored and forwarded, not a
 * chain of segments handed on. (With the chain's kappa, 1.5 on the simulated fat tree, its LUs in
 * panels of 32 on rows of 256-4,096 ranks came out at 1.10-1.14 x, and the planner's pick at 4,096
 * ranks at 1.11 x the fastest simulated.) */
static double ring_hop(const hp_ctx *x, hp_env e, double bytes) {
  if (e.p <= 1 || bytes <= 0) return 0.0;
  return hp_bcast_seg(x, e, HBSP_PIPELINE, bytes, bytes) / (e.p - 1);
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

/* Round the ring, the bytes each node's memory carries for panel k (where the model knows the
 * nodes' memory): the whole panel, Lb bytes, reaches the `full` process columns after its root
 * rc, each through its node's memory, and a hop between nodes through the sender's too (as
 * torus.c counts a message). Added into load[node] for the row's nodes of per_node columns each
 * (a row over more than one node has a node's ranks to itself). */
static void ring_memory(double *load, int N, int per_node, int64_t rc, int64_t full, double Lb) {
  const int nodes = (N + per_node - 1) / per_node;
  for (int part = 0; part < 2; part++) { /* the receivers, rc + 1 .. rc + full, as two runs */
    const int64_t a = part ? 0 : rc + 1, b = part ? rc + 1 + full - N : rc + 1 + full;
    const int64_t lo = a, hi = b < N ? b : N; /* columns [lo, hi) */
    for (int j = (int)(lo / per_node); lo < hi && j < nodes && (int64_t)j * per_node < hi; j++) {
      const int64_t c0 = (int64_t)j * per_node, c1 = c0 + per_node < N ? c0 + per_node : N;
      const int64_t in = (c1 < hi ? c1 : hi) - (c0 > lo ? c0 : lo);
      load[j] += (double)in * Lb;
      if (c0 >= lo && nodes > 1) /* its first column's panel came from the node before */
        load[(j + nodes - 1) % nodes] += Lb;
    }
  }
}

double hp_local_from(int64_t n, int64_t j, int nb, int np) {
  /* numroc(n) is constant in p before the owner of n's partial block, at it, and after it; so is
   * the difference between the owners of n's and of j's, and the largest value is at the first
   * process of one of those runs (a loop over all of them was most of the planner's time at 4,096
   * process columns) */
  if (nb <= 0 || np <= 0) return 0.0;
  const int64_t rn = n > 0 ? (n / nb) % np : 0, rj = j > 0 ? (j / nb) % np : 0;
  const int64_t first[] = {0, rn, rn + 1, rj, rj + 1};
  int64_t best = 0;
  for (int i = 0; i < 5; i++) {
    if (first[i] >= np) continue;
    const int p = (int)first[i];
    int64_t v = hcyc_numroc(n, nb, p, np) - hcyc_numroc(j, nb, p, np);
    if (v > best) best = v;
  }
  return (double)best;
}

/* How an L panel or U block of bytes is broadcast over p ranks (lu_impl.h: hlu_big_how). */
static int big_alg(const hp_lu *c, int p, double bytes) {
  if (c->bcast_alg != HBSP_AUTO || p <= 2) return c->bcast_alg;
  return bytes >= (double)HLU_CHAIN_MIN ? HBSP_PIPELINE : HBSP_BINOMIAL;
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
    /* per column every rank's record (candidate and diagonal row, 2 jb + 3 words): on a flat
     * column on the column's board where the column lies on one node (up to HLU_PANEL_FUSE_MAX
     * process rows, the library's collectives; no message), else the binary exchange (latency as
     * a small allreduce, log2 M records each way); on a two-level column the exchange in the node,
     * among the nodes' leaders and the leader's broadcast in the node (hlu_allreduce_rec) */
    const double rb = 8 * (2 * jb + 3);
    const hp_env one = hp_env_family(col, 0, 1, 0, 1); /* the panel's column alone */
    hp_env in, lead;
    const int two = hier && hp_node_levels(x, one, &in, &lead);
    const int pboard = !two && c->M <= HLU_PANEL_FUSE_MAX && col.spans <= 1 &&
                       c->bcast_alg == HBSP_AUTO && !x->m->no_board;
    const double beta = col.spans > 1 ? x->inter.beta : x->intra.beta;
    /* on a network the model knows, the column's records go over links that nobody else uses
     * meanwhile (the probe's beta has every rank of a node sending), a message's latency a step */
    const double tx = pboard ? -1.0 : hp_torus_exchange(x, two ? lead : one, rb);
    const double node = hp_lg2c(two ? in.p : 1) * (x->intra.alpha + rb * x->intra.beta);
    double percol;
    if (pboard)
      percol = c->M * rb / 8 * x->gw_node;
    else if (tx >= 0)
      percol = tx + 2 * node;
    else if (two) /* the fitted small allreduce on two levels, and the records' bytes */
      percol = hp_allreduce_small(x, col, 1) +
               (2 * hp_lg2c(in.p) * x->intra.beta + hp_lg2c(lead.p) * beta) * rb;
    else
      percol = hp_allreduce_small(x, col, 0) + hp_lg2c(c->M) * rb * beta;
    double leafmem = hp_pack_t(x, 8.0 * R * 8); /* the BLAS-2 leaf updates, memory bound */
    /* the recursion's U12 blocks, about jb^3 / 6 flops: every rank solves them from the pivot
     * rows it has (panel.c) */
    const double rec = hp_gemm(x, jb, jb, jb) / 12;
    double cm = jb * percol;
    *comm += cm;
    t += cm + jb * leafmem + rec;
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
  const double d = hp_clamp((tk / t1 - 1) / (double)(k - 1), 0.0, 1.0);
  return t1 + 0.5 * d * (tk - t1);
}

/* A superstep of U's process columns (the kk of them whose messages share links: the ring's
 * overlap, as in the step below) in which relative rank 0 of each sends `bytes` to every other
 * rank of its column, or every rank to every other (an exchange loads each port as much): routed
 * where the network is known, out of step as the U chains; else at the probe's g for `words`.
 * known: one round of messages (hbsp_sync_known, the split's), else with the sync's l. */
static double u_superstep(const hp_ctx *x, hp_env col, hp_env ucol0, int64_t cols, int64_t ucols,
                          int ring, ring_hops hop, double bytes, double words, int known) {
  const double t1 = hp_torus_trade(x, hp_env_family(ucol0, 1, 1, 0, 1), bytes);
  if (t1 < 0) return known ? hp_sync_known(x, col, words) : hp_sync(x, col, words);
  const int64_t kk = ring ? ring_overlap(cols, t1, hop) : ucols;
  const double tk = hp_torus_trade(x, hp_env_family(ucol0, 1, (int)kk, 0, 1), bytes);
  return (known ? 0.0 : hp_sync(x, col, 0)) + out_of_step(t1, tk, kk);
}

/* The split way's two supersteps of U (ublock.c: L11 and the parts from pr, then the solved parts
 * to all), of the kc process columns whose messages share links (u_superstep). */
static double u_split_time(const hp_ctx *x, hp_env col, hp_env ucol0, int64_t kc, int64_t ku,
                           int ring, ring_hops hops, double jb, double Cn, int M) {
  if (Cn <= 0) return 0.0;
  const double part = jb * jb + jb * Cn / M;
  return u_superstep(x, col, ucol0, kc, ku, ring, hops, 8.0 * part, part * (M - 1), 1) +
         u_superstep(x, col, ucol0, kc, ku, ring, hops, 8.0 * jb * Cn / M, jb * Cn * (M - 1) / M,
                     1);
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
  /* By node, a longer row goes round the ring too (lu.c): hp_env_of places ranks on nodes in
   * order, so each node's ranks of a row follow one another */
  int flat_row = la && (!hier || row.spans <= 1 || row.per_node <= 1 ||
                        (N > HLU_EARLY_MAX && c->bcast_alg == HBSP_AUTO));
  /* the L panel posted on the row's board (one node, the library's broadcasts) or sent early */
  int board = flat_row && N > HLU_BOARD_MIN && row.spans <= 1 && c->bcast_alg == HBSP_AUTO &&
              !x->m->no_board;
  int ring = flat_row && !board && N > HLU_EARLY_MAX && c->bcast_alg == HBSP_AUTO;
  int early = board || ring ||
              (flat_row && N <= HLU_EARLY_MAX &&
               (c->bcast_alg == HBSP_AUTO || c->bcast_alg == HBSP_NATIVE));
  int auto_alg = c->bcast_alg == HBSP_AUTO;
  int row_nodes = hier && !flat_row; /* the L panels by the two-level broadcast */
  /* U12 streamed or solved in parts over the column (ublock.c: one level, the library's
   * collectives) */
  int usplit = auto_alg && M > 1 && M <= HLU_USPLIT_MAX &&
               (!hier || col.spans <= 1 || col.per_node <= 1 || col.spans >= col.p);
  /* The workspaces (two L buffers and the U buffer) stay with the grid between calls (hdist_take):
   * a repeated call, which is what is predicted, pays nothing for them; the first one on a grid
   * pays for mapping them once. */
  int64_t steps = (n + nb - 1) / nb;
  double lag = 0, round_end = 0;
  /* Round the ring the panels also cross each node's memory, which the model knows on some
   * machines (mem_bw): a node whose ranks all pass on whole panels carries them one after the
   * other, so the run ends no sooner than the first panel reaches that node and its memory has
   * carried its share of every panel (mem_node). On one process row of 4,096 ranks of the
   * simulated fat tree, n = 8192 in panels of 32, the fourth node carries 64 hops of each of the
   * first 192 panels (bench/results/sim/README.md: "The L ring's hop is one message"). */
  const int mem_per = row.per_node > 0 ? row.per_node : 1;
  const int mem_nodes = ring && x->mem_bw > 0 && row.spans > 1 ? (N + mem_per - 1) / mem_per : 0;
  double *mem_node = mem_nodes ? calloc((size_t)mem_nodes, sizeof *mem_node) : NULL;
  double mem_t0 = 0, mem_hop0 = 0;
  for (int64_t k = 0; k < steps; k++) {
    int64_t j0 = k * nb, j1 = j0 + nb < n ? j0 + nb : n;
    double jb = (double)(j1 - j0);
    double R0 = hp_local_from(n, j0, nb, M), R1 = hp_local_from(n, j1, nb, M);
    double Cn = hp_local_from(n, j1, nb, N);
    /* the process columns that hold blocks right of the panel: they alone swap rows and take U */
    int64_t cols = (n - j1 + nb - 1) / nb;
    if (cols > N) cols = N;
    if (cols < 1) cols = 1;
    /* ... and of those a node's send their U blocks at once (round the ring, those it reaches
     * within a message's hold of each other, of any node: ring_overlap) */
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
    const int lalg = big_alg(c, row.p, Lb);
    double L = ring        ? ring_hop(x, row, Lb)
               : row_nodes ? hp_bcast_nodes(x, row, lalg, Lb)
                           : hp_bcast_lu(x, row, lalg, Lb);
    cmp += L;
    /* With look-ahead only the next panel's owner, the chain's first rank, waits for the L panel
     * on the critical path; the others, further down the chain, lag behind by the rest of it, the
     * same each step, which shows once, at the end (lag). By node, the first rank of the root's
     * node's chain (the whole broadcast put 8 x 128 at 1.61 x on the fat tree). */
    double Lcrit = !la         ? L
                   : row_nodes ? hp_bcast_nodes_first(x, row, lalg, Lb)
                               : hp_bcast_first(x, row, lalg, Lb);
    if (k == 0) lag = L - Lcrit;
    const ring_hops hops = ring ? ring_hops_of(x, row, Lb) : (ring_hops){0.0, 0.0, 1};
    /* the ring: panel k reaches the last rank that holds columns right of it (factor.c's
     * early_full) `full` hops after it leaves, and the row's last rank its header a hop each after
     * that; where that is past the steps left, the run's end waits for it */
    if (ring && la) {
      const int64_t full = steps - 1 - k < N - 1 ? steps - 1 - k : N - 1;
      const double head = full < N - 1 ? ring_hop(x, row, 8.0 * (jb + 1)) : 0;
      round_end = fmax(round_end, t + (double)full * L + (double)(N - 1 - full) * head);
      if (mem_node) {
        ring_memory(mem_node, N, mem_per, k % N, full, Lb);
        if (k == 0) mem_t0 = t + panel, mem_hop0 = L;
      }
    }
    /* right of the panel only (the left waits for the end, below) */
    double swap, swap1; /* swap1: the next panel's column's own, which it swaps first */
    if (M == 1) {
      /* per local column, jb block rows (contiguous) and up to jb pivot rows (a cache line
       * each), read and written */
      swap = swap1 = hp_pack_t(x, 2.0 * jb * (8 + 48) * Cn);
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
      double s = tr >= 0 ? tr : hp_sync_known(x, col, h);
      swap = hp_pack_t(x, 2.0 * (8 + 48) * h) + s;
      swap1 = tr >= 0 ? swap - s + hp_torus_trade(x, one, bytes) : swap;
      cmp += s;
      cp += swap - s;
    }
    /* the interchanges left of this panel, at the end: about every row below it moves once, in
     * a pass down each of its columns, on one process column of N */
    if (j1 < n) {
      double h = R1 * jb, left = hp_pack_t(x, 16.0 * h) / N;
      if (M > 1) {
        double s = hp_sync_known(x, col, h * (M - 1) / M) / N;
        cmp += s, left += s;
      }
      cp += left;
      t += left;
    }
    /* Unext: the U block before the next panel, where less; round the ring it comes down the
     * next owner's column before the panel goes on to the columns further round (factor.c:
     * early_take), so alone (Ucrit) */
    const int alone = ring && la && M > 1;
    double trsm, Ub, Unext = -1, Ucrit = -1, trsm_next = -1;
    const int pr = (int)(k % M);
    const double R1pr = (double)(hcyc_numroc(n, nb, pr, M) - hcyc_numroc(j1, nb, pr, M));
    if (usplit && Cn > 0 && (M == 2 || R1 - R1pr >= jb / 2)) {
      /* streamed: the others wait for block k+1's columns and the first slice only; pr solves
       * all, in its slack unless its update and solve outlast the others' update */
      double first = fmin(Cn, nb + (N > 1 ? (Cn > 4 * HLU_SLICE_BLOCKS * nb ? Cn / 4 : Cn)
                                          : (double)HLU_FIRST_BLOCKS * nb));
      double all = 0.6 * hp_gemm(x, jb, Cn, jb) + hp_pack_t(x, 8.0 * jb * Cn);
      trsm = 0.6 * hp_gemm(x, jb, first, jb) + hp_pack_t(x, 8.0 * jb * first);
      /* point to point from pr (at the probe's g, every rank of a node sending, 4 x 64 came out
       * 1.30 x on the fat tree) */
      Ub = u_superstep(x, col, ucol0, cols, ucols, ring, hops, 8.0 * jb * first, jb * first, 0);
      if (alone)
        Ucrit = u_superstep(x, col, ucol0, 1, 1, ring, hops, 8.0 * jb * first, jb * first, 0);
      double late = all + (R1pr > 0 ? hp_gemm(x, R1pr, Cn, jb) : 0.0) - hp_gemm(x, R1, Cn, jb);
      if (late > trsm + Ub) trsm = late - Ub;
    } else if (usplit) { /* pr scatters L11 and the parts, all solve theirs, one exchange */
      trsm = Cn > 0
                 ? 0.6 * hp_gemm(x, jb, ceil(Cn / M / nb) * nb, jb) + hp_pack_t(x, 16.0 * jb * Cn)
                 : 0.0;
      /* (at the probe's g 4 x 64 came out 1.26 x on the fat tree: every M-th step 1.46 ms, where
       * the simulated ones took 0.1 ms) */
      Ub = u_split_time(x, col, ucol0, cols, ucols, ring, hops, jb, Cn, M);
      if (alone) Ucrit = u_split_time(x, col, ucol0, 1, 1, ring, hops, jb, Cn, M);
    } else {
      trsm = Cn > 0 ? 0.6 * hp_gemm(x, jb, Cn, jb) + hp_pack_t(x, 8.0 * jb * Cn) : 0.0;
      const double ub = 8.0 * jb * Cn;
      const int ualg = big_alg(c, col.p, ub);
      const double t1 = hier ? hp_bcast_nodes(x, one, ualg, ub) : hp_bcast_lu(x, one, ualg, ub);
      /* Round the ring the chains go down the same nodes at the same pace, one started a hop
       * after the other: one that is more than a rank's hold on its segments behind another
       * never shares a link with it, and those within it do, of whatever node (on a torus the
       * next nodes' columns' routes cross theirs). (Counting all of a node's columns whose whole
       * chain overlapped, by the row's average hop, put 64 x 64 at 1.47 x on the fat tree: its
       * 62 columns' chains down 64 nodes all at once, where they start 5.6 us apart and each
       * holds a rank 22 us; counting a node's columns only, 64 x 16 at 0.66 x on the torus, whose
       * 4 nodes' 16 columns' chains share links.) */
      const double held =
          hier ? hp_bcast_nodes_busy(x, one, ualg, ub) : hp_bcast_busy(x, one, ualg, ub);
      const int64_t kk =
          ring ? ring_overlap(cols, held > 0 ? x->kappa[ualg] * held : t1, hops) : ucols;
      const hp_env uk = hp_env_family(ucol0, 1, (int)kk, 0, 1);
      Ub = hier ? hp_bcast_nodes(x, uk, ualg, ub) : hp_bcast_lu(x, uk, ualg, ub);
      if (ualg == HBSP_PIPELINE) /* the chains; the trees' few long steps stay in step */
        Ub = out_of_step(t1, Ub, kk);
      /* the process column of block k+1 broadcasts that block's columns first (ublock.c), the
       * rest after the next panel: only those stand before it */
      const double nx = fmin(Cn, (double)(n - j1 < nb ? n - j1 : nb)), ubn = 8.0 * jb * nx;
      if (la && nx > 0 && nx < Cn && t1 > 0) {
        const int nalg = big_alg(c, col.p, ubn);
        const double tn = hier ? hp_bcast_nodes(x, one, nalg, ubn) : hp_bcast_lu(x, one, nalg, ubn);
        Unext = Ub * tn / t1;
        Ucrit = tn;
        trsm_next = 0.6 * hp_gemm(x, jb, nx, jb) + hp_pack_t(x, 8.0 * jb * nx);
      } else if (alone) {
        Ucrit = t1;
      }
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
       * others read the panel in place); priced only where sent early (p - 1 routed steps) */
      double Le = board ? 0.0 : ring ? L : early ? hp_bcast(x, row, HBSP_FLAT, Lb) : 0.0;
      /* The L panel's chain (not early) blocks: a rank forwards panel k + 1 only after its update
       * of step k, and every rank, wherever it is in the chain, spends Lbusy in it each step. So
       * beside the next panel's owner (Lcrit, the rest of the chain lagging behind it the same
       * each step), the rank with the largest update bounds the step: its update plus its time
       * in the chain. It decides on long rows in narrow panels once the updates are long
       * (bench/results/sim/README.md: "The LU at n = 32768, against HPL"). The ring does not
       * block, but a rank that has just handed its panel on waits for the next one to come round
       * the other N - 1 hops, once every N steps, and makes it up over the other N - 1 steps: on
       * average one hop a step beside its update, and the next owner waits for one hop. */
      double Lbusy = ring        ? Le
                     : early     ? 0.0
                     : row_nodes ? hp_bcast_nodes_busy(x, row, lalg, Lb)
                                 : hp_bcast_busy(x, row, lalg, Lb);
      double Lfirst = ring ? Le : early ? (1 - x->ovl) * Le : Lcrit;
      const double Un = alone && Ucrit >= 0 ? Ucrit : Unext >= 0 ? Unext : Ub;
      /* the next panel's process column swaps its rows with its trades alone on the links (the
       * others get the L panel later) and has block k + 1 solved first (ublock.c); the fat tree's
       * LU of 32 x 8 at 256 ranks spent 296 us between two panels, where the model had 498 us with
       * all the columns' swaps and the whole trsm on that path
       * (bench/results/sim/lu_gaps_2026-11-30.txt) */
      const double rest = swap + trsm + Ub + upd,
                   next = swap1 + (trsm_next >= 0 ? trsm_next : trsm) + Un + upd_next + pn;
      step = panel + wait + fmax(Lfirst + fmax(rest, next), Lbusy + rest);
    }
    cm += cmp;
    t += step;
  }
  if (la && !early) t += lag;
  for (int j = 0; mem_node && j < mem_nodes; j++) /* node j has panel 0 j * mem_per hops on */
    if (mem_node[j] > 0)
      round_end =
          fmax(round_end, mem_t0 + (double)j * mem_per * mem_hop0 + mem_node[j] / x->mem_bw);
  free(mem_node);
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
  double Cb = hp_local_from(nrhs, 0, nb, N), t = 0;
  /* the permutation: every moved row once, one superstep of the column */
  double h = (double)n / M * Cb;
  t += hp_pack_t(x, 16.0 * h) + hp_sync_known(x, col, h);
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
      double R = N > M ? 0.5 * (double)n / N : hp_local_from(n, j1, nb, M);
      double one = hp_bcast(x, rowall, HBSP_NATIVE, m) + hp_bcast(x, col, HBSP_NATIVE, m) +
                   0.6 * hp_gemm(x, jb, nrhs, jb) + hp_gemm(x, R, nrhs, jb) +
                   hp_pack_t(x, 8.0 * R * jb);
      t += 2 * one;
    }
    return t + hp_sync(x, rowall, (double)n * nrhs / M);
  }
  for (int64_t k = 0; k < steps; k++) {
    int64_t j0 = k * nb, j1 = j0 + nb < n ? j0 + nb : n;
    double jb = (double)(j1 - j0), R = hp_local_from(n, j1, nb, M);
    double one = hp_bcast(x, row, HBSP_NATIVE, 8.0 * R * jb) +
                 hp_bcast(x, col, HBSP_NATIVE, 8.0 * jb * Cb) + 0.6 * hp_gemm(x, jb, Cb, jb) +
                 hp_gemm(x, R, Cb, jb);
    t += 2 * (one + x->sync_load * ((M > 1) + (N > 1))); /* forward and backward */
  }
  return t;
}
