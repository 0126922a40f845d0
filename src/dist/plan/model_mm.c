/* hla — the cost model of the multiplies (matmul/summa.c, hsumma.c, mm3d.c): their predicted time
 * from a machine model, on the collectives and the network of model.c. Local, pure.
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
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dist/plan/plan_impl.h"

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
 * broadcasts before and after it: the volume of the busiest link over its rate, or of the busiest
 * node's memory over its rate where that is known and slower. -1 where it cannot tell. */
static double torus_stream_t(const hp_ctx *x, const hp_env *e, const double *bytes, int n) {
  int shape = x->ib_alg;
  if (x->net.nd == 0 || (shape != HP_FLAT_ALL && shape != HBSP_BINOMIAL)) return -1.0;
  const int kind = shape == HBSP_BINOMIAL ? HP_STEP_TREE : HP_STEP_FLAT_ALL;
  hp_stream_memo *k = x->memo && n <= HP_STREAM_MAX ? &x->memo->stream : NULL;
  double most, mem;
  int rc;
  if (k && k->n == n && k->kind == kind && !memcmp(k->e, e, (size_t)n * sizeof *e) &&
      !memcmp(k->bytes, bytes, (size_t)n * sizeof *bytes)) {
    rc = k->rc, most = k->most, mem = k->mem;
  } else {
    double *work = calloc(hp_torus_work(&x->net), sizeof *work);
    if (work == NULL) return -1.0;
    rc = hp_torus_volume(&x->net, x->rpn, e, bytes, n, kind, work, &most, &mem);
    free(work);
    if (k) {
      k->n = n, k->kind = kind, k->rc = rc, k->most = most, k->mem = mem;
      memcpy(k->e, e, (size_t)n * sizeof *e);
      memcpy(k->bytes, bytes, (size_t)n * sizeof *bytes);
    }
  }
  double t = most * x->net.beta;
  if (x->mem_bw > 0) t = fmax(t, mem / x->mem_bw);
  return rc == HLA_OK ? x->ib_kappa * t : -1.0;
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

/* How many panels deep SUMMA's (and the 3D layers') broadcast e streams on a network of ports
 * (fitted, bench/results/sim/stream_ports_2026-12-01.txt): the q panels whose roots a node holds
 * leave through its port one after the other, and the stream reaches about max(2, q / 2) panels
 * into the next node's, one less under `few` ranks; at most `cap`, what the stream holds. Runs at
 * 256-4,096 ranks with q = 1, 2, 4, 8 and 16 imply 2.45-3.6, 2.2-3.9, 4.8-6, 12 and 22 panels; 4
 * everywhere, as HSUMMA streams there, put them at 0.61-1.66 x. */
static int ports_depth(hp_env e, int few, int cap) {
  const int q = e.per_node, d = q + (q / 2 > 2 ? q / 2 : 2) - (e.p < few);
  return d < cap ? d : cap;
}

/* Panel buffers per operand: SUMMA's s and s + 1 (summa.c), HSUMMA's outer level's O to O + 2
 * (hsumma.c: HS_OUTER). */
enum { SUMMA_BUFS = 2, HS_OUTER_BUFS = 3 };

/* Of np processes, how many hold blocks of a dimension n in blocks of nb (block-cyclic from 0). */
static int holding(int64_t n, int64_t nb, int np) {
  const int64_t blocks = nb > 0 ? (n + nb - 1) / nb : n;
  return blocks < np ? (int)blocks : np;
}

/* SUMMA or HSUMMA on a (layer) grid: row environments are runs of consecutive ranks from 0
 * (rs = 1), column ones have stride cs; nl grids (3D's layers, SUMMA only) run at once, each
 * lstep ranks after the one before. Only the first Mh process rows and Nh columns hold blocks of
 * C: the others' broadcasts carry nothing. Adds to the parts; returns seconds. */
static double layer_mm(const hp_ctx *x, int M, int N, int Mh, int Nh, int cs, int nl, int lstep,
                       int64_t mloc, int64_t nloc, int64_t k, int b, int64_t Mo, int gi, int gj,
                       int kba, int kbb, int alg, double *compute, double *comm) {
  if (k <= 0 || b <= 0) return 0.0;
  double S = ceil((double)k / b), w = (double)k / S; /* average panel width */
  double gemm = hp_gemm(x, (double)mloc, (double)nloc, w);
  double pack = hp_pack_t(x, 8.0 * w * ((double)mloc / N + (double)nloc / M));
  double pa = pieces(b, kba), pb = pieces(b, kbb);
  double cstep;
  hp_env envs[4];  /* the panel's broadcasts */
  double alone[4]; /* each one's time a panel, not streamed */
  int nenv;
  int hier = (gi > 1 || gj > 1) && !(gi == M && gj == N);
  if (!hier) {
    hp_env row = hp_env_family(hp_env_of(x, 0, 1, N), cs, Mh, lstep, nl),
           col = hp_env_family(hp_env_of(x, 0, cs, M), 1, Nh, lstep, nl);
    alone[0] = pa * mm_bcast_t(x, row, alg, 8.0 * mloc * w / pa);
    alone[1] = pb * mm_bcast_t(x, col, alg, 8.0 * nloc * w / pb);
    cstep = alone[0] + alone[1];
    envs[0] = row, envs[1] = col, nenv = 2;
  } else {
    int qI = M / gi, qJ = N / gj;
    double per = (double)Mo / b;
    if (per < 1) per = 1;
    /* every group of every row (column) at once inside; across, the owners' column (row) of the
     * groups in every row (column) */
    hp_env rin = hp_env_family(hp_env_of(x, 0, 1, qJ), qJ, gj, cs, Mh),
           rout = hp_env_family(hp_env_of(x, 0, qJ, gj), cs, Mh, 0, 1);
    hp_env cin = hp_env_family(hp_env_of(x, 0, cs, qI), qI * cs, gi, 1, Nh),
           cout = hp_env_family(hp_env_of(x, 0, qI * cs, gi), 1, Nh, 0, 1);
    alone[0] = pa * mm_bcast_t(x, rin, alg, 8.0 * mloc * w / pa);
    alone[1] = pb * mm_bcast_t(x, cin, alg, 8.0 * nloc * w / pb);
    alone[2] = pieces((int)Mo, kba) *
               mm_bcast_t(x, rout, alg, 8.0 * mloc * w * per / pieces((int)Mo, kba)) / per;
    alone[3] = pieces((int)Mo, kbb) *
               mm_bcast_t(x, cout, alg, 8.0 * nloc * w * per / pieces((int)Mo, kbb)) / per;
    cstep = alone[0] + alone[1] + alone[2] + alone[3];
    envs[0] = rin, envs[1] = cin, envs[2] = rout, envs[3] = cout, nenv = 4;
  }
  double ovl = (alg == HBSP_AUTO || alg == HBSP_NATIVE) ? x->ovl : 0.0;
  /* the steps after the first: on a network the model knows, the non-blocking broadcasts stream,
   * consecutive panels' at once (whether or not they also overlap the dgemm), each environment's
   * over d panels (the runs, and the depths tried and not kept, are in bench/results/sim:
   * stream_depth_2026-11-28.txt and stream_depth_hsumma_2026-11-28.txt):
   *   a network of ports (fat tree, star): HSUMMA 4 for every broadcast (fitted); SUMMA and the
   *     3D layers by how many of the broadcast's ranks a node holds (ports_depth);
   *   a torus: 2 over fewer than 32 ranks (fitted: alone, broadcasts gain the less from streaming
   *     the fewer ranks they span), 3 over 16 to 31 where the update takes under 1 / QUICK of the
   *     broadcast alone: a member that got its panel early and updates quickly posts the next
   *     receive while its group still receives this one (columns of 16 at 4,096 ranks, an update of
   *     0.12 of theirs, stream 2.6 deep; at 16,384 ranks (0.23) and 1,024 (0.47) 2; QUICK lies
   *     between, fitted: stream_depth_hsumma_2026-11-28.txt, part 9); HSUMMA's outer level under 32
   *     groups 3, half again the 2 for its third buffer, where the update takes at least 1 / AHEAD
   *     of its broadcast alone, so the outer panels posted ahead move during it (8 groups down a
   *     column at 1,024 ranks, 0.94: 2.5 deep; 16 at 4,096, 0.23: 2; part 10) or where members of
   *     it hold no blocks of C (part 11); over 32 or more 4 (fitted), and on HSUMMA's outer level 2
   *     for each outer panel a rank keeps in flight, 6 for its 3: the runs with two outer buffers
   *     (before 8e143e2) fit 4, and a build with four ran within 1 % of the model at 8 (32 x 32 and
   *     64 x 8 groups at 4,096 ranks). SUMMA does not follow that rule: with a third buffer it ran
   *     2 % faster, where 6 deep would be 1.47 x. */
  double cnext = cstep;
  if (alg == HBSP_AUTO || alg == HBSP_NATIVE) {
    /* A panel in blocks narrower than itself comes in pieces, one from each of as many
     * consecutive owners, posted together (summa.c): on a network with ports they leave through
     * as many nodes. Up to PIECES of them are routed, each with its share. */
    enum { PIECES = 8, DEEP = 4, MAX_DEPTH = 2 * HS_OUTER_BUFS, FEW = 32, SUMMA_DEEPEST = 24 };
    enum { QUICK = 6, AHEAD = 3 };
    /* HSUMMA's four broadcasts MAX_DEPTH deep, or SUMMA's two SUMMA_DEEPEST (ports_depth) */
    _Static_assert(MAX_DEPTH * 4 <= SUMMA_DEEPEST * 2, "HSUMMA's stream fits SUMMA's");
    _Static_assert(SUMMA_DEEPEST * 2 * PIECES == HP_STREAM_MAX, "the memo holds a whole stream");
    hp_env stream[HP_STREAM_MAX];
    double vol[HP_STREAM_MAX];
    int n = 0;
    for (int i = 0; i < nenv; i++) {
      const int np = (int)fmin(i % 2 ? pb : pa, PIECES);
      /* d of its panels in the stream, each counted MAX_DEPTH / d times; envs[2..3] are HSUMMA's
       * outer level */
      /* one panel more on a torus under FEW ranks: inside, a quick update; outside, a long one or
       * members without blocks of C, which never hold the outer panels back */
      const int idle = i % 2 ? Mh < M : Nh < N;
      const int more = i < 2 ? envs[i].p >= FEW / 2 && QUICK * (gemm + pack) < alone[i]
                             : idle || AHEAD * (gemm + pack) >= alone[i];
      const int d = x->net.ports && hier ? DEEP
                    : x->net.ports       ? ports_depth(envs[i], FEW, SUMMA_DEEPEST)
                    : envs[i].p < FEW    ? 2 + more
                    : i >= 2             ? MAX_DEPTH
                                         : DEEP;
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
  double bufs = hp_ws_t(x, nbuf * (mloc + nloc) * wide);
  double t = bufs + cstep + S * work + (S - 1) * (cnext - ovl * fmin(work, cnext));
  *compute += S * work + bufs;
  *comm += cstep + (S - 1) * cnext;
  return t;
}

/* Remap of an operand with h local words into the computing layout (mm_remap): the target, the
 * send and the receive buffers taken, the data packed and unpacked. */
static double remap_t(const hp_ctx *x, double h) {
  hp_env w = hp_env_of(x, 0, 1, x->P);
  return hp_ws_t(x, 3 * h) + hp_pack_t(x, 16.0 * h) + hp_sync(x, w, h) +
         2 * hp_allreduce_small(x, w, 0);
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
    t = cp = hp_pack_t(x, 8.0 * numroc0(m, c->mb, M) * numroc0(n, c->nb, N));
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
    t += layer_mm(x, ML, NL, holding(m, c->mb, ML), holding(n, c->nb, NL), N, c->c,
                  split ? ML * N : NL, mL, nL, kl, c->b, c->b, 1, 1, c->b, c->b, c->bcast_alg, &cp,
                  &cm);
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
    double routed =
        x->net.nd > 0 ? hp_torus_bcast(x, fibs, HBSP_BINOMIAL, 8.0 * words / c->c, 0) : -1;
    if (routed >= 0) red = c->c * (routed + hp_lg2c(c->c) * 8.0 * words / c->c * gamma);
    double loc =
        hp_ws_t(x, 2 * words) + hp_pack_t(x, 8.0 * words) + hp_pack_t(x, 16.0 * words / c->c);
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
    t += layer_mm(x, M, N, holding(m, c->mb, M), holding(n, c->nb, N), N, 1, 0, mloc, nloc, k, c->b,
                  c->Mo > 0 ? c->Mo : c->b, gi, gj, kba, kbb, c->bcast_alg, &cp, &cm);
    double sc = hp_pack_t(x, 8.0 * mloc * nloc); /* C := beta C */
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
        (k / b) * (hp_bcast1(alg, qJ, 8 * mloc * b, 0, l) + hp_bcast1(alg, qI, 8 * nloc * b, 0, l));
    double outer = (k / Mo) * (hp_bcast1(alg, gj, 8 * mloc * Mo, 0, l) +
                               hp_bcast1(alg, gi, 8 * nloc * Mo, 0, l));
    *(pass ? bw : lat) = inner + outer;
  }
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
