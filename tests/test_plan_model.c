/* Unit tests of the cost model, the relabelling and the planner's decisions (src/dist/plan/),
 * against the seeds' own numbers (../shared/reference/001 §2-3 and §6, 000 §3.5-3.6, 004 §4) and
 * synthetic machines (no timing anywhere). Pure functions: built from the planner's sources alone
 * and linked without MPI (CMakeLists.txt), so a call into MPI or the BSP layer from the model, the
 * planner, the relabelling or the machine file fails to link; run without mpiexec.
 * @nompi
 */
#include <cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "dist/plan/plan_impl.h"

static const hplan_link unit = {1.0, 1.0};

/* ---------------------------------------------------------------- collectives */

static void test_two_level_ends_are_base(void) {
  const int algs[] = {HBSP_FLAT, HBSP_PIPELINE, HBSP_BINOMIAL, HBSP_SCATTER_ALLGATHER, HBSP_NATIVE};
  hplan_link lk = {3e-6, 2e-10};
  for (int kind = HPLAN_BCAST; kind <= HPLAN_ALLGATHER; kind++)
    for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++)
      for (int p = 2; p <= 64; p *= 2) {
        double base = hplan_coll_time(kind, algs[a], p, 1, 1e5, 8192, 1e-10, lk, lk);
        double at_p = hplan_coll_time(kind, algs[a], p, p, 1e5, 8192, 1e-10, lk, lk);
        CU_ASSERT(base > 0);
        CU_ASSERT_DOUBLE_EQUAL(at_p, base, 1e-15 * base);
      }
  /* flat bcast with two levels: (G + p/G - 2)(alpha + m beta), Hasanov (3.1) */
  for (int G = 1; G <= 64; G *= 2) {
    double f = hplan_bcast2_time(HBSP_FLAT, 64, G, 1000, 0, unit, unit);
    CU_ASSERT_DOUBLE_EQUAL(f, (G + 64.0 / G - 2) * 1001, 1e-9);
  }
  /* binomial: log2 G + log2 (p/G) = log2 p, no gain for any G */
  for (int G = 1; G <= 64; G *= 2)
    CU_ASSERT_DOUBLE_EQUAL(hplan_bcast2_time(HBSP_BINOMIAL, 64, G, 1000, 0, unit, unit), 6 * 1001,
                           1e-9);
}

/* argmin over the divisors of p of a two-level bcast. */
static int best_G(int alg, int p, double m, double seg, hplan_link lk, double *fbest) {
  int best = 1;
  double f = HUGE_VAL;
  for (int G = 1; G <= p; G++) {
    if (p % G) continue;
    double v = hplan_bcast2_time(alg, p, G, m, seg, lk, lk);
    if (v < f - 1e-15 * v) f = v, best = G;
  }
  if (fbest) *fbest = f;
  return best;
}

static void test_optimum_sqrt_p(void) {
  double f;
  /* flat: G = sqrt(p), F(sqrt p) = 2 (sqrt p - 1)(alpha + m beta); speed-ups 2.5x (16), 4.5x (64)
   */
  CU_ASSERT_EQUAL(best_G(HBSP_FLAT, 16, 100, 0, unit, &f), 4);
  CU_ASSERT_DOUBLE_EQUAL(15 * 101 / f, 2.5, 1e-12);
  CU_ASSERT_EQUAL(best_G(HBSP_FLAT, 64, 100, 0, unit, &f), 8);
  CU_ASSERT_DOUBLE_EQUAL(63 * 101 / f, 4.5, 1e-12);
  /* scatter-allgather with alpha/beta > 2m/p: the minimum is at sqrt p */
  hplan_link lat = {1e-4, 1e-9}; /* alpha/beta = 1e5 bytes */
  CU_ASSERT_EQUAL(best_G(HBSP_SCATTER_ALLGATHER, 64, 1e5, 0, lat, NULL), 8);
  /* ... below it, sqrt p is the maximum and G = 1 (or p) is best */
  hplan_link bw = {1e-6, 1e-9}; /* alpha/beta = 1e3 < 2m/p = 3125 */
  int g = best_G(HBSP_SCATTER_ALLGATHER, 64, 1e5, 0, bw, NULL);
  CU_ASSERT(g == 1 || g == 64);
  double f1 = hplan_bcast2_time(HBSP_SCATTER_ALLGATHER, 64, 1, 1e5, 0, bw, bw);
  for (int G = 2; G < 64; G *= 2)
    CU_ASSERT(hplan_bcast2_time(HBSP_SCATTER_ALLGATHER, 64, G, 1e5, 0, bw, bw) > f1);
  /* the pipelined chain: optimum sqrt p as well (3.3) */
  CU_ASSERT_EQUAL(best_G(HBSP_PIPELINE, 64, 8192.0 * 4, 8192, unit, NULL), 8);
}

static void test_crossovers(void) {
  /* SRGA (3.6): F(sqrt p) < F(1) iff alpha/beta > 2 m / p */
  int p = 256;
  double m = 1 << 20, beta = 1e-9, thr = 2 * m / p * beta;
  for (int s = -1; s <= 1; s += 2) {
    hplan_link lk = {thr * (1 + 0.02 * s), beta};
    double h = hplan_bcast2_time(HBSP_SCATTER_ALLGATHER, p, 16, m, 0, lk, lk);
    double f = hplan_bcast2_time(HBSP_SCATTER_ALLGATHER, p, 1, m, 0, lk, lk);
    CU_ASSERT(s > 0 ? h < f : h > f);
  }
  /* pipelined chain: hierarchical better iff X < (sqrt p - 1)^2 + 1 (p = 64: X < 50) */
  for (int X = 48; X <= 52; X++) {
    double seg = 1000, mm = X * seg;
    double h = hplan_bcast2_time(HBSP_PIPELINE, 64, 8, mm, seg, unit, unit);
    double f = hplan_bcast2_time(HBSP_PIPELINE, 64, 1, mm, seg, unit, unit);
    if (X < 50) CU_ASSERT(h < f);
    if (X > 50) CU_ASSERT(h > f);
    if (X == 50) CU_ASSERT_DOUBLE_EQUAL(h, f, 1e-9 * f);
  }
  /* gather with two levels: only the latency shrinks, (G + Q - 2) alpha + (p - 1) m beta (the
   * erratum of Hasanov 3.24-3.30) */
  for (int G = 1; G <= 64; G *= 2) {
    double v = hplan_coll_time(HPLAN_GATHER, HBSP_FLAT, 64, G, 10, 0, 0, unit, unit);
    CU_ASSERT_DOUBLE_EQUAL(v, (G + 64.0 / G - 2) + 63 * 10, 1e-9);
  }
}

static void test_pipeline_segment(void) {
  /* Legrand L2597-2620: p = 10, L = 1, m b = 8: r_opt = 8, T = 32 (against 81 unpipelined) */
  hplan_link lk = {1, 1};
  double seg = hplan_pipeline_segment(10, 8, lk);
  CU_ASSERT_DOUBLE_EQUAL(8 / seg, 8, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(hplan_bcast_time(HBSP_PIPELINE, 10, 8, seg, lk), 32, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(hplan_bcast_time(HBSP_PIPELINE, 10, 8, 8, lk), 81, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(hplan_bcast_time(HBSP_FLAT, 10, 8, 0, lk), 81, 1e-12);
}

/* ---------------------------------------------------------------- HSUMMA */

static void test_hsumma_ends_are_summa(void) {
  hplan_link lk = {2e-6, 1e-10};
  double l1, b1, lp, bp, ls, bs;
  hp_hsumma_comm(HBSP_SCATTER_ALLGATHER, 4096, 4096, 4096, 8, 8, 1, 1, 256, 256, lk, &l1, &b1);
  hp_hsumma_comm(HBSP_SCATTER_ALLGATHER, 4096, 4096, 4096, 8, 8, 8, 8, 256, 256, lk, &lp, &bp);
  /* SUMMA, reference 001 L1865: (log2 p + 2 (sqrt p - 1)) alpha n/b + 4 (1 - 1/sqrt p) beta n^2/
   * sqrt p, with 8-byte words */
  ls = (6 + 2 * 7) * lk.alpha * 4096 / 256;
  bs = 4 * (1 - 1 / 8.0) * 8 * lk.beta * 4096.0 * 4096 / 8;
  CU_ASSERT_DOUBLE_EQUAL(l1, ls, 1e-12 * ls);
  CU_ASSERT_DOUBLE_EQUAL(b1, bs, 1e-12 * bs);
  CU_ASSERT_DOUBLE_EQUAL(lp, ls, 1e-12 * ls);
  CU_ASSERT_DOUBLE_EQUAL(bp, bs, 1e-12 * bs);
}

static void test_hsumma_crossover(void) {
  /* (4.10): with b = M, HSUMMA at G = sqrt p beats SUMMA iff alpha/beta > 2 n b / p (words);
   * the difference is 2 (p^(1/4) - 1)^2 ((n/b) alpha - 2 (n^2/p) beta) */
  const int p = 256, q = 16; /* 16 x 16 grid, G = 16 as 4 x 4 groups */
  double n = 4096, b = 256, bw = 1e-9, thr = 2 * n * b / p * 8 * bw;
  for (int s = -1; s <= 1; s += 2) {
    hplan_link lk = {thr * (1 + 0.05 * s), bw};
    double lh, bh, ls, bs;
    hp_hsumma_comm(HBSP_SCATTER_ALLGATHER, n, n, n, q, q, 4, 4, b, b, lk, &lh, &bh);
    hp_hsumma_comm(HBSP_SCATTER_ALLGATHER, n, n, n, q, q, 1, 1, b, b, lk, &ls, &bs);
    CU_ASSERT(s > 0 ? lh + bh < ls + bs : lh + bh > ls + bs);
    double diff = 2 * pow(pow(p, 0.25) - 1, 2) * (n / b * lk.alpha - 2 * n * n / p * 8 * bw);
    CU_ASSERT_DOUBLE_EQUAL(ls + bs - (lh + bh), diff, 1e-9 * fabs(diff));
  }
  /* the optimum over G = 4^j is sqrt p above the threshold */
  hplan_link lk = {thr * 4, bw};
  int best = 1;
  double f = HUGE_VAL;
  for (int g = 1; g <= q; g *= 2) {
    double l, bb;
    hp_hsumma_comm(HBSP_SCATTER_ALLGATHER, n, n, n, q, q, g, g, b, b, lk, &l, &bb);
    if (l + bb < f) f = l + bb, best = g * g;
  }
  CU_ASSERT_EQUAL(best, 16);
}

/* Reference 001 §6: p = 2^20, n = 2^22, b = M = 256, alpha = 500 ns, 100 GB/s, 8-byte elements,
 * scatter-allgather broadcasts: latency, bandwidth and total communication per G. */
static void test_exascale_table(void) {
  static const int G[9] = {1, 4, 16, 64, 256, 1024, 4096, 65536, 1 << 20};
  static const double lat[9] = {16.93, 8.55, 4.39, 2.36, 1.44, 1.18, 1.44, 4.39, 16.93};
  static const double bw[9] = {5.49, 8.24, 9.60, 10.27, 10.57, 10.65, 10.57, 9.60, 5.49};
  static const double tot[9] = {22.42, 16.79, 13.99, 12.62, 12.01, 11.83, 12.01, 13.99, 22.42};
  hplan_link lk = {500e-9, 1.0 / 100e9};
  double n = 4194304.0;
  for (int i = 0; i < 9; i++) {
    int g = (int)lround(sqrt(G[i]));
    double l, b;
    hp_hsumma_comm(HBSP_SCATTER_ALLGATHER, n, n, n, 1024, 1024, g, g, 256, 256, lk, &l, &b);
    /* three significant digits (plus the table's own rounding to two decimals) */
    double vals[3] = {l, b, l + b}, refs[3] = {lat[i], bw[i], tot[i]};
    for (int j = 0; j < 3; j++) {
      double tol = 0.5 * pow(10, floor(log10(refs[j])) - 2) + 0.005;
      if (fabs(vals[j] - refs[j]) > tol)
        printf("exascale G=%d part %d: %.4f vs %.2f\n", G[i], j, vals[j], refs[j]);
      CU_ASSERT(fabs(vals[j] - refs[j]) <= tol);
    }
  }
}

/* ---------------------------------------------------------------- partner functions */

static void check_partner(int P, int rnd, unsigned a, unsigned b) {
  int q = 1;
  while (q < P) q <<= 1;
  int bad = 0;
  char *met = calloc((size_t)P * P, 1);
  for (int i = 0; i < q; i++) {
    char *hit = calloc((size_t)P, 1);
    for (int s = 0; s < P; s++) {
      int t = rnd ? hplan_partner_random(i, s, P, a, b) : hplan_partner_xor(i, s, P);
      if (t < 0 || t >= P) {
        bad++;
        continue;
      }
      int back = rnd ? hplan_partner_random(i, t, P, a, b) : hplan_partner_xor(i, t, P);
      if (back != s) bad++; /* (i) pairwise */
      if (hit[t]++) bad++;  /* (ii) a permutation */
      met[s * P + t] = 1;
    }
    free(hit);
  }
  for (int s = 0; s < P * P; s++) bad += !met[s]; /* (iii) everyone meets everyone */
  free(met);
  CU_ASSERT_EQUAL(bad, 0);
}

static void test_partners(void) {
  for (int P = 1; P <= 129; P++) {
    check_partner(P, 0, 0, 0);
    for (unsigned r = 0; r < 3; r++) check_partner(P, 1, 7 * r + 3, 13 * r + 5);
  }
  /* the seed's example, p = 5, q = 8: round 5 = [0, 4, 2, 3, 1] */
  int want[5] = {0, 4, 2, 3, 1};
  for (int s = 0; s < 5; s++) CU_ASSERT_EQUAL(hplan_partner_xor(5, s, 5), want[s]);
}

/* ---------------------------------------------------------------- relabelling */

/* Planted groups {g, g + ng, g + 2 ng, ...} (interleaved, so the identity order is the worst):
 * cheap inside (1 + noise), expensive across (10 + noise). */
static double *planted(int P, int ng) {
  double *D = calloc((size_t)P * P, sizeof *D);
  uint64_t st = 42;
  for (int s = 0; s < P; s++)
    for (int t = s + 1; t < P; t++) {
      double v = (s % ng == t % ng ? 1.0 : 10.0) + 0.1 * (ht_rand_uniform(&st) + 0.5);
      D[s * P + t] = D[t * P + s] = v;
    }
  return D;
}

/* Every subset of q consecutive positions holds one planted group. */
static int recovered(const int *order, int P, int q, int ng) {
  for (int s = 0; s < P; s += q)
    for (int x = s; x < s + q; x++)
      if (order[x] % ng != order[s] % ng) return 0;
  return 1;
}

static void test_relabel_kl(void) {
  int P = 16, ng = 4, order[16];
  double *D = planted(P, ng);
  CU_ASSERT_FALSE(
      recovered((int[16]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, P, 4, ng));
  CU_ASSERT_EQUAL(hplan_relabel_kl(P, D, 4, 0, order), HLA_OK);
  CU_ASSERT(recovered(order, P, 4, ng));
  int key[16];
  hplan_order_keys(P, order, key);
  for (int i = 0; i < P; i++) CU_ASSERT_EQUAL(order[key[i]], i);
  free(D);
  /* 24 ranks in 3 planted groups of 8, from a scrambled start */
  P = 24, ng = 3;
  D = planted(P, ng);
  int o2[24];
  for (int i = 0; i < P; i++) o2[i] = (i * 7) % P;
  CU_ASSERT_EQUAL(hplan_relabel_kl(P, D, 3, 1, o2), HLA_OK);
  CU_ASSERT(recovered(o2, P, 8, ng));
  free(D);
  /* the erratum: one improving swap (k* = 0) must be applied; the listing's "l < k*" does not */
  double D4[16] = {0, 9, 1, 9, 9, 0, 9, 1, 1, 9, 0, 9, 9, 1, 9, 0};
  int o4[4];
  CU_ASSERT_EQUAL(hplan_relabel_kl(4, D4, 2, 0, o4), HLA_OK);
  CU_ASSERT((o4[0] % 2) == (o4[1] % 2) && (o4[2] % 2) == (o4[3] % 2));
  CU_ASSERT_EQUAL(hplan_relabel_kl(4, D4, 3, 0, o4), HLA_ERR_ARG);
}

static void test_relabel_climb(void) {
  int P = 16, ng = 4, order[16];
  double *D = planted(P, ng), cost = 0;
  CU_ASSERT_EQUAL(hplan_relabel_climb(4, 4, D, 1, 7, 0, order, &cost), HLA_OK);
  CU_ASSERT(recovered(order, P, 4, ng));
  CU_ASSERT(cost < 6 * 1.1 + 1e-9); /* a pure row: 6 pairs of about 1 */
  /* columns instead of rows: the groups end up down the columns */
  CU_ASSERT_EQUAL(hplan_relabel_climb(4, 4, D, 2, 9, 0, order, &cost), HLA_OK);
  int ok = 1;
  for (int c = 0; c < 4; c++)
    for (int r = 1; r < 4; r++) ok &= order[r * 4 + c] % ng == order[c] % ng;
  CU_ASSERT(ok);
  free(D);
}

/* A superstep inside one node moves its words at the g of the probe's environments inside one node,
 * not at the mean with those that spanned nodes (model.c: gw_node): 4 nodes of 16 ranks probed on
 * an 8 x 8 grid, whose rows lie in a node and whose columns and world span nodes. */
static void test_sync_node_g(void) {
  hplan_machine m;
  const hplan_link in = {1e-6, 1e-10}, out = {5e-6, 1e-9};
  hplan_machine_synthetic(&m, 64, 4, 16, 1e10, in, out);
  m.g[HPLAN_WORLD] = 1e-8, m.g[HPLAN_NODE] = 1e-10, m.g[HPLAN_ROW] = 2e-10, m.g[HPLAN_COL] = 3e-8;
  hp_ctx x;
  hp_ctx_make(&x, &m, 64, 4, 16, 1);
  const double h = 1e6;
  hp_env row = hp_env_of(&x, 0, 1, 8), col = hp_env_of(&x, 0, 8, 8);
  CU_ASSERT(row.spans == 1 && col.spans == 4);
  CU_ASSERT_DOUBLE_EQUAL(hp_sync(&x, row, h) - hp_sync(&x, row, 0), h * 1.5e-10, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(hp_sync(&x, col, h) - hp_sync(&x, col, 0), h * (4.03e-8 / 4), 1e-12);
}

/* ---------------------------------------------------------------- planner decisions */

static void test_planner_hsumma_vs_summa(void) {
  /* 64 ranks on 16 nodes of 4: 8 x 8 grid. High latency across nodes: alpha/beta (words) well
   * above 2 n b / p, HSUMMA wins; tiny latency: SUMMA wins. */
  hplan_machine m;
  hplan_link in = {1e-7, 1e-10};
  hplan_target t;
  memset(&t, 0, sizeof t);
  t.P = 64, t.nodes = 16, t.M = 8, t.N = 8, t.mb = t.nb = 256;
  t.algs = (1 << HLA_MM_SUMMA) | (1 << HLA_MM_HSUMMA);
  hplan_ranking *r = malloc(sizeof *r);
  hplan_machine_synthetic(&m, 64, 16, 4, 1e10, in, (hplan_link){1e-3, 1e-10});
  CU_ASSERT_EQUAL(hplan_matmul_rank(&m, 4096, 4096, 4096, &t, r), HLA_OK);
  CU_ASSERT_EQUAL(r->cand[0].alg, HLA_MM_HSUMMA);
  hplan_machine_synthetic(&m, 64, 16, 4, 1e10, in, (hplan_link){1e-8, 1e-10});
  CU_ASSERT_EQUAL(hplan_matmul_rank(&m, 4096, 4096, 4096, &t, r), HLA_OK);
  CU_ASSERT_EQUAL(r->cand[0].alg, HLA_MM_SUMMA);
  /* the model of HSUMMA with 1 x 1 groups is SUMMA's */
  hp_ctx x;
  hp_ctx_make(&x, &m, 64, 16, 4, 1);
  hp_mm c = {4096, 4096,         4096, 8,   8, 256, 256, 256, 256,      1,
             1,    HLA_MM_SUMMA, 256,  256, 1, 1,   1,   0,   HBSP_AUTO};
  double ts = hp_mm_time(&x, &c, NULL, NULL, NULL);
  c.alg = HLA_MM_HSUMMA;
  CU_ASSERT_DOUBLE_EQUAL(hp_mm_time(&x, &c, NULL, NULL, NULL), ts, 1e-12 * ts);
  c.gi = 8, c.gj = 8;
  CU_ASSERT_DOUBLE_EQUAL(hp_mm_time(&x, &c, NULL, NULL, NULL), ts, 1e-12 * ts);
  /* fixed groups (not the free ranking's first): every HSUMMA candidate has them, SUMMA is still
   * ranked; groups that do not divide the fixed grid, or half given, are refused */
  hplan_machine_synthetic(&m, 64, 16, 4, 1e10, in, (hplan_link){1e-3, 1e-10});
  t.groups[0] = 8, t.groups[1] = 1;
  CU_ASSERT_EQUAL(hplan_matmul_rank(&m, 4096, 4096, 4096, &t, r), HLA_OK);
  int hs = 0, su = 0;
  for (int i = 0; i < r->ncand; i++) {
    if (r->cand[i].alg == HLA_MM_HSUMMA) {
      hs++;
      CU_ASSERT(r->cand[i].gi == 8 && r->cand[i].gj == 1);
    }
    su += r->cand[i].alg == HLA_MM_SUMMA;
  }
  CU_ASSERT(hs > 0 && su > 0);
  t.groups[0] = 3;
  CU_ASSERT_EQUAL(hplan_matmul_rank(&m, 4096, 4096, 4096, &t, r), HLA_ERR_ARG);
  t.groups[0] = 8, t.groups[1] = 0;
  CU_ASSERT_EQUAL(hplan_matmul_rank(&m, 4096, 4096, 4096, &t, r), HLA_ERR_ARG);
  t.groups[0] = -1, t.groups[1] = 2;
  CU_ASSERT_EQUAL(hplan_matmul_rank(&m, 4096, 4096, 4096, &t, r), HLA_ERR_ARG);
  free(r);
}

/* The probe times its small world broadcasts back to back (HPLAN_BCAST_INNER); the segmented
 * chain's calibration models them so: a chain whose measured times are c x those of the model's
 * back-to-back chains calibrates at c. Modelled one at a time, the same times gave 0.32 on the
 * BG/P-like torus, where its 1 MiB broadcast, timed alone, gives 1.09. */
static void test_bcast_calibration_back_to_back(void) {
  const hplan_link ia = {1e-6, 1e-10}, ie = {3e-6, 1e-8};
  hplan_machine m;
  hplan_machine_synthetic(&m, 64, 16, 4, 1e10, ia, ie);
  const double sizes[HPLAN_NBCAST] = HPLAN_BCAST_SIZES, c = 1.7;
  const int inner[HPLAN_NBCAST] = HPLAN_BCAST_INNER;
  for (int s = 0; s < HPLAN_NBCAST; s++) {
    /* inner broadcasts of X segments down a chain over 16 nodes of 4: inner X segments, the
     * first through every hop (15 across nodes, 48 inside), the others one inter-node hop each */
    const double X = ceil(sizes[s] / 65536.0), seg = sizes[s] / X, Xi = inner[s] * X;
    const double chain = (Xi - 1) * (ie.alpha + seg * ie.beta) + 15 * (ie.alpha + seg * ie.beta) +
                         48 * (ia.alpha + seg * ia.beta);
    m.bcast[HBSP_PIPELINE][s] = c * chain / inner[s];
  }
  hp_ctx x;
  hp_ctx_make(&x, &m, 0, 0, 0, 0);
  CU_ASSERT_DOUBLE_EQUAL(x.kappa[HBSP_PIPELINE], c, 1e-9);
  /* the 1 MiB broadcast, timed alone, is c x the model's one broadcast */
  const hp_env w = hp_env_of(&x, 0, 1, 64);
  CU_ASSERT_DOUBLE_EQUAL(hp_bcast(&x, w, HBSP_PIPELINE, sizes[2]), m.bcast[HBSP_PIPELINE][2],
                         1e-9 * m.bcast[HBSP_PIPELINE][2]);
}

/* MPI's blocking broadcast measured as one of the library's at every size (SimGrid's MPI_Bcast and
 * the binomial tree) is modelled as that one; one size apart by a tenth, as the cheapest of three
 * shapes, calibrated. */
static void test_native_bcast_shape(void) {
  hplan_machine m;
  hplan_machine_synthetic(&m, 64, 16, 4, 1e10, (hplan_link){1e-6, 1e-10}, (hplan_link){3e-6, 1e-8});
  const double t[HPLAN_NBCAST] = {2e-5, 4e-4, 6e-3};
  for (int s = 0; s < HPLAN_NBCAST; s++)
    m.bcast[HBSP_BINOMIAL][s] = m.bcast[HBSP_NATIVE][s] = t[s], m.bcast[HBSP_FLAT][s] = 3 * t[s];
  hp_ctx x;
  hp_ctx_make(&x, &m, 1024, 256, 4, 1);
  const hp_env col = hp_env_of(&x, 0, 32, 32);
  CU_ASSERT_EQUAL(x.native_alg, HBSP_BINOMIAL);
  double kappa[6];
  int as = 0;
  hplan_bcast_calibration(&m, kappa, &as);
  CU_ASSERT_EQUAL(as, HBSP_BINOMIAL);
  CU_ASSERT_DOUBLE_EQUAL(kappa[HBSP_FLAT], x.kappa[HBSP_FLAT], 0);
  CU_ASSERT_DOUBLE_EQUAL(hp_bcast(&x, col, HBSP_NATIVE, 1e5), hp_bcast(&x, col, HBSP_BINOMIAL, 1e5),
                         0);
  CU_ASSERT_DOUBLE_EQUAL(hp_bcast(&x, col, HBSP_AUTO, 1e5), hp_bcast(&x, col, HBSP_BINOMIAL, 1e5),
                         0);
  m.bcast[HBSP_NATIVE][1] *= 1.1;
  hp_ctx_make(&x, &m, 1024, 256, 4, 1);
  CU_ASSERT_EQUAL(x.native_alg, 0);
  CU_ASSERT(hp_bcast(&x, col, HBSP_NATIVE, 1e5) != hp_bcast(&x, col, HBSP_BINOMIAL, 1e5));
}

/* MPI_Ibcast modelled by the shape its measurements fit (model.c: ibcast_fit), carried to other
 * environments and placements; the planner sees the difference. */
static void test_ibcast_shape(void) {
  hplan_machine m;
  hplan_machine_synthetic(&m, 64, 16, 4, 1e10, (hplan_link){1e-6, 1e-10}, (hplan_link){3e-6, 1e-8});
  const double B = HPLAN_IBCAST_BYTES;
  hp_ctx x;
  hp_ctx_make(&x, &m, 0, 0, 0, 0);
  const hp_env envs[HPLAN_NIBCAST] = {hp_env_of(&x, 0, 1, 64), hp_env_of(&x, 0, 1, 8),
                                      hp_env_of(&x, 0, 8, 8)};
  /* nothing measured: the (calibrated) blocking native broadcast stands in */
  CU_ASSERT_EQUAL(x.ib_alg, 0);
  CU_ASSERT_DOUBLE_EQUAL(hp_ibcast(&x, envs[1], B), hp_bcast(&x, envs[1], HBSP_NATIVE, B), 0);
  static const int shapes[] = {HBSP_FLAT, HBSP_BINOMIAL, HBSP_SCATTER_ALLGATHER};
  static const double levels[] = {0.5, 2.0, 1.3};
  for (int s = 0; s < 3; s++) {
    for (int i = 0; i < HPLAN_NIBCAST; i++)
      m.ibcast[i] = levels[s] * hp_bcast(&x, envs[i], shapes[s], B); /* kappa 1: no bcast[] */
    hp_ctx y;
    hp_ctx_make(&y, &m, 0, 0, 0, 0);
    CU_ASSERT_EQUAL(y.ib_alg, shapes[s]);
    CU_ASSERT_DOUBLE_EQUAL(y.ib_kappa, levels[s], 1e-9);
    /* 1,024 ranks: a row of 32 over 8 nodes, a column of 32 over 32 */
    hp_ctx z;
    hp_ctx_make(&z, &m, 1024, 256, 4, 1);
    hp_env row = hp_env_of(&z, 0, 1, 32), col = hp_env_of(&z, 0, 32, 32);
    CU_ASSERT_DOUBLE_EQUAL(hp_ibcast(&z, row, B), levels[s] * hp_bcast(&z, row, shapes[s], B),
                           1e-9 * hp_ibcast(&z, row, B));
    CU_ASSERT_DOUBLE_EQUAL(hp_ibcast(&z, col, B), levels[s] * hp_bcast(&z, col, shapes[s], B),
                           1e-9 * hp_ibcast(&z, col, B));
  }
  /* measurements that no shape fits within 1.5 x: the blocking native model stands in */
  m.ibcast[HPLAN_IB_WORLD] = 100 * hp_bcast(&x, envs[0], HBSP_FLAT, B);
  m.ibcast[HPLAN_IB_ROWS] = 0.01 * hp_bcast(&x, envs[1], HBSP_FLAT, B);
  m.ibcast[HPLAN_IB_COLS] = hp_bcast(&x, envs[2], HBSP_FLAT, B);
  hp_ctx u;
  hp_ctx_make(&u, &m, 0, 0, 0, 0);
  CU_ASSERT_EQUAL(u.ib_alg, 0);
  /* A flat MPI_Ibcast of 1 MiB panels over rows and columns of 32: SUMMA's 64 panels pay for it,
   * HSUMMA's shorter broadcasts much less; with a scatter-allgather one the gap is small */
  hplan_target t;
  memset(&t, 0, sizeof t);
  t.P = 1024, t.nodes = 256, t.M = 32, t.N = 32, t.mb = t.nb = 256;
  t.algs = (1 << HLA_MM_SUMMA) | (1 << HLA_MM_HSUMMA);
  hplan_ranking *r = malloc(sizeof *r);
  double gain[2];
  for (int s = 0; s < 2; s++) {
    for (int i = 0; i < HPLAN_NIBCAST; i++)
      m.ibcast[i] = hp_bcast(&x, envs[i], s ? HBSP_SCATTER_ALLGATHER : HBSP_FLAT, B);
    CU_ASSERT_EQUAL(hplan_matmul_rank(&m, 16384, 16384, 16384, &t, r), HLA_OK);
    if (s == 0) CU_ASSERT_EQUAL(r->cand[0].alg, HLA_MM_HSUMMA);
    hp_ctx z;
    hp_ctx_make(&z, &m, 1024, 256, 4, 1);
    hp_mm c = {16384, 16384,        16384, 32,  32, 256, 256, 256, 256,      1,
               1,     HLA_MM_SUMMA, 256,   256, 1,  1,   1,   0,   HBSP_AUTO};
    double ts = hp_mm_time(&z, &c, NULL, NULL, NULL);
    c.alg = HLA_MM_HSUMMA, c.gi = 4, c.gj = 8;
    gain[s] = ts / hp_mm_time(&z, &c, NULL, NULL, NULL);
  }
  printf("\n    SUMMA / HSUMMA (4 x 8 groups) predicted: flat MPI_Ibcast %.2f, scatter-allgather "
         "%.2f ",
         gain[0], gain[1]);
  CU_ASSERT(gain[0] > 1.5);
  CU_ASSERT(gain[0] > 1.3 * gain[1]);
  free(r);
}

static void test_planner_3d_memory(void) {
  hplan_machine m;
  hplan_link in = {1e-3, 1e-9}; /* latency-bound panels: cutting k pays */
  hplan_machine_synthetic(&m, 8, 8, 1, 1e10, in, in);
  hplan_target t;
  memset(&t, 0, sizeof t);
  t.P = 8;
  hplan_ranking *r = malloc(sizeof *r);
  /* k >> m, n: cutting k pays */
  t.mem_bound = 1e12;
  CU_ASSERT_EQUAL(hplan_matmul_rank(&m, 512, 512, 1 << 17, &t, r), HLA_OK);
  CU_ASSERT_EQUAL(r->cand[0].alg, HLA_MM_3D);
  CU_ASSERT(r->cand[0].c > 1);
  /* ... unless the memory bound forbids the replication */
  t.mem_bound = 1e5;
  CU_ASSERT_EQUAL(hplan_matmul_rank(&m, 512, 512, 1 << 17, &t, r), HLA_OK);
  for (int i = 0; i < r->ncand; i++) CU_ASSERT(r->cand[i].alg != HLA_MM_3D);
  free(r);
}

static void test_planner_lu(void) {
  hplan_machine m;
  hplan_link in = {1e-6, 1e-10};
  hplan_ranking *r = malloc(sizeof *r);
  hplan_target t;
  memset(&t, 0, sizeof t);
  /* one node of 4 cores, 4 ranks */
  hplan_machine_synthetic(&m, 4, 1, 4, 1e10, in, in);
  t.P = 4;
  CU_ASSERT_EQUAL(hplan_lu_rank(&m, 4096, &t, r), HLA_OK);
  CU_ASSERT(r->ncand > 10);
  CU_ASSERT_EQUAL(r->cand[0].lookahead, 1);
  CU_ASSERT_EQUAL(r->cand[0].alg, HLA_LU_FLAT); /* one node: two levels cannot differ */
  /* ranked by time; within the model's resolution (0.5 %) the smaller memory first */
  for (int i = 1; i < r->ncand; i++)
    CU_ASSERT(r->cand[i].seconds >= r->cand[i - 1].seconds * (1 - 0.0101) &&
              (r->cand[i].seconds > r->cand[i - 1].seconds * 1.005 ||
               r->cand[i].bytes >= r->cand[i - 1].bytes ||
               r->cand[i].seconds > r->cand[i - 1].seconds));
  /* look-ahead never loses in the model when N > 1 */
  hp_ctx x;
  hp_ctx_make(&x, &m, 4, 1, 4, 1);
  hp_lu on = {4096, 2, 2, 128, HLA_LU_FLAT, 1, HBSP_AUTO, 0}, off = on;
  off.lookahead = 0;
  CU_ASSERT(hp_lu_time(&x, &on, NULL, NULL, NULL) < hp_lu_time(&x, &off, NULL, NULL, NULL));
  /* flop-bound sanity: the time is at least 2/3 n^3 / (P rate) */
  CU_ASSERT(r->cand[0].seconds > 2.0 / 3 * pow(4096, 3) / (4 * 1e10));
  /* two nodes with slow links between them: the hierarchical variant is considered */
  hplan_machine_synthetic(&m, 8, 2, 4, 1e10, in, (hplan_link){1e-4, 1e-9});
  t.P = 8;
  CU_ASSERT_EQUAL(hplan_lu_rank(&m, 4096, &t, r), HLA_OK);
  int seen = 0;
  for (int i = 0; i < r->ncand; i++) seen |= r->cand[i].alg == HLA_LU_HIER;
  CU_ASSERT(seen || r->nconsidered > r->ncand);
  /* the contract functions */
  hla_report rep;
  hla_opts o = HLA_OPTS_INIT;
  o.report = &rep;
  double pred = 0;
  CU_ASSERT_EQUAL(hplan_lu(&m, 4096, 8, &o, &pred), HLA_OK);
  CU_ASSERT(pred > 0);
  CU_ASSERT(o.report == &rep);
  CU_ASSERT_DOUBLE_EQUAL(rep.predicted_seconds, pred, 0);
  CU_ASSERT_EQUAL(rep.M * rep.N, 8);
  CU_ASSERT(rep.nb > 0 && strncmp(rep.why, "planner:", 8) == 0);
  CU_ASSERT(o.lu_alg == HLA_LU_FLAT || o.lu_alg == HLA_LU_HIER);
  o = (hla_opts)HLA_OPTS_INIT;
  CU_ASSERT_EQUAL(hplan_matmul(&m, 2048, 2048, 2048, 8, &o, &pred), HLA_OK);
  CU_ASSERT(o.mm_alg >= HLA_MM_SUMMA && o.mm_alg <= HLA_MM_3D && o.inner_block > 0 && pred > 0);
  /* fixed grid that does not fit */
  t.M = 3, t.N = 3;
  CU_ASSERT_EQUAL(hplan_lu_rank(&m, 4096, &t, r), HLA_ERR_DIM);
  free(r);
}

static void test_planner_placements(void) {
  /* nodes given, P free: every ranks-per-node split of the cores is tried */
  hplan_machine m;
  hplan_link in = {1e-6, 1e-10};
  hplan_machine_synthetic(&m, 2, 1, 4, 1e10, in, in);
  hplan_target t;
  memset(&t, 0, sizeof t);
  t.nodes = 2;
  hplan_ranking *r = malloc(sizeof *r);
  CU_ASSERT_EQUAL(hplan_lu_rank(&m, 8192, &t, r), HLA_OK);
  int seen[5] = {0};
  for (int i = 0; i < r->ncand; i++) {
    CU_ASSERT_EQUAL(r->cand[i].P, 2 * r->cand[i].ranks_per_node);
    CU_ASSERT_EQUAL(r->cand[i].ranks_per_node * r->cand[i].threads, 4);
    if (r->cand[i].ranks_per_node <= 4) seen[r->cand[i].ranks_per_node] = 1;
  }
  CU_ASSERT(r->nconsidered > r->ncand || seen[1] + seen[2] + seen[4] >= 2);
  free(r);
}

/* ---------------------------------------------------------------- the machine file's schema */

static hplan_machine good_model(void) {
  hplan_machine m;
  hplan_machine_synthetic(&m, 8, 2, 4, 1e10, (hplan_link){1e-6, 1e-10}, (hplan_link){1e-5, 1e-9});
  return m;
}

/* hplan_check refuses each bad value and names its field first. */
static void test_check_fields(void) {
  const hplan_machine ok = good_model();
  hplan_machine m;
  char why[200];
  CU_ASSERT_EQUAL(hplan_check(&ok, why, sizeof why), HLA_OK);
  CU_ASSERT_EQUAL(why[0], '\0');
#define BAD(stmt, name)                                                                            \
  do {                                                                                             \
    m = ok;                                                                                        \
    stmt;                                                                                          \
    CU_ASSERT_EQUAL(hplan_check(&m, why, sizeof why), HLA_ERR_ARG);                                \
    CU_ASSERT_EQUAL(strncmp(why, name, strlen(name)), 0);                                          \
    if (strncmp(why, name, strlen(name)) != 0) printf("\n  %s: '%s'", #stmt, why);                 \
  } while (0)
  BAD(m.gemm_rate = NAN, "gemm_rate:");
  BAD(m.gemm_rate = INFINITY, "gemm_rate:");
  BAD(m.gemm_rate = -1e10, "gemm_rate:");
  BAD(m.gemm_rate = 0, "gemm_rate:");
  BAD(m.gemm_rate = 1e-300, "gemm_rate:"); /* positive, but every prediction would overflow */
  BAD(m.gemm_rate = 1e300, "gemm_rate:");
  BAD(m.copy_rate = -4e9, "copy_rate:");
  BAD(m.panel_rate = NAN, "panel_rate:");
  BAD(m.gemm_khalf = INFINITY, "gemm_khalf:");
  BAD(m.link[HPLAN_INTRA].alpha = 0, "link[0].alpha:");
  BAD(m.link[HPLAN_INTRA].beta = INFINITY, "link[0].beta:");
  BAD(m.link[HPLAN_INTER].beta = -1e-9, "link[1].beta:");
  BAD(m.threads = 1000000, "threads:");
  BAD(m.P = 0, "P:");
  BAD(m.nodes = 9, "nodes:");
  BAD(m.ranks_per_node = 0, "ranks_per_node:");
  BAD(m.cores_per_node = (1 << 20) + 1, "cores_per_node:");
  BAD(m.nthreads = HPLAN_MAX_THREADS + 1, "nthreads:");
  BAD(m.gemm_threads[1] = 0, "gemm_threads[1]:");
  BAD(m.gemm_threads[40] = NAN, "gemm_threads[40]:"); /* unused, but not a number */
  BAD(m.env_p[HPLAN_ROW] = 9, "env_p[2]:");
  BAD(m.g[HPLAN_NODE] = NAN, "g[1]:");
  BAD(m.l[HPLAN_WORLD] = -1, "l[0]:");
  BAD(m.bcast[HBSP_NATIVE][2] = INFINITY, "bcast[");
  BAD(m.overlap = 1.5, "overlap:");
  BAD(m.overlap = NAN, "overlap:");
  BAD(m.sync_load = -1e-3, "sync_load:");
  BAD(m.lu_cal = -1, "lu_cal:");
  BAD(m.mem_per_node = -1, "mem_per_node:");
  BAD(m.seconds = NAN, "seconds:");
  BAD(m.version = HPLAN_VERSION - 1, "version:");
  BAD(m.host[0] = '\0', "host:");
  BAD(memset(m.host, 'a', sizeof m.host), "host:");
  BAD(m.host[2] = '\n', "host:");
  BAD(m.have_inter = 2, "have_inter:");
  BAD(m.no_board = -1, "no_board:");
  BAD(m.probe_M = -1, "probe_M:");
#undef BAD
  CU_ASSERT_EQUAL(hplan_check(NULL, why, sizeof why), HLA_ERR_ARG);
  /* 0 is "not measured" where model.c says so; links are 0 on one rank; more threads than
   * HPLAN_MAX_THREADS on a node with more cores */
  m = ok;
  m.copy_rate = m.alloc_rate = m.panel_rate = m.getrf_rate = m.lu_cal = m.mm_cal = 0;
  memset(m.bcast, 0, sizeof m.bcast);
  CU_ASSERT_EQUAL(hplan_check(&m, why, sizeof why), HLA_OK);
  hplan_machine_synthetic(&m, 1, 1, 128, 1e10, (hplan_link){0, 0}, (hplan_link){0, 0});
  CU_ASSERT(m.threads == 128 && hplan_check(&m, why, sizeof why) == HLA_OK);
}

/* A model that fails the check is never ranked; one at the edges of the check ranks finite plans.
 */
static void test_check_before_ranking(void) {
  hplan_machine m = good_model();
  hplan_ranking *r = malloc(sizeof *r);
  hla_opts o = HLA_OPTS_INIT;
  double t = -1;
  m.gemm_rate = NAN;
  CU_ASSERT_EQUAL(hplan_matmul_rank(&m, 1000, 1000, 1000, NULL, r), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hplan_lu_rank(&m, 1000, NULL, r), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hplan_matmul(&m, 1000, 1000, 1000, 8, &o, &t), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hplan_lu(&m, 1000, 8, &o, &t), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(t, -1);
  m = good_model();
  m.gemm_rate = m.gemm_threads[0] = m.gemm_threads[1] = 1; /* 1 flop/s, slowest links allowed */
  m.link[0] = m.link[1] = (hplan_link){1e6, 1};
  CU_ASSERT_EQUAL(hplan_check(&m, NULL, 0), HLA_OK);
  CU_ASSERT_EQUAL(hplan_lu_rank(&m, 1 << 20, NULL, r), HLA_OK);
  for (int i = 0; i < r->ncand; i++) CU_ASSERT(isfinite(r->cand[i].seconds));
  free(r);
}

/* ---------------------------------------------------------------- the machine file */

static char dir_[256];

/* A path under this test's own folder. */
static const char *tpath(const char *name) {
  static char buf[320];
  if (!dir_[0]) {
    snprintf(dir_, sizeof dir_, "/tmp/hla_plan_model_%d", (int)getpid());
    mkdir(dir_, 0755);
  }
  snprintf(buf, sizeof buf, "%s/%s", dir_, name);
  return buf;
}

static void put_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT_EQUAL(fwrite(data, 1, n, f), n);
  fclose(f);
}

/* The file's bytes (malloc'ed, NUL-terminated; *n its size). */
static char *get_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  char *b = malloc(1 << 20);
  *n = fread(b, 1, (1 << 20) - 1, f);
  b[*n] = '\0';
  fclose(f);
  return b;
}

/* The machine file of m alone. */
static char *file_of(const hplan_machine *m) {
  char *out = NULL;
  CU_ASSERT_EQUAL(hplan_merge(NULL, 0, m, &out, NULL, 0), HLA_OK);
  return out;
}

/* text with field `field` of its first entry set to the raw JSON `raw` (NULL: removed). */
static char *with_value(const char *text, const char *field, const char *raw) {
  cJSON *root = cJSON_Parse(text);
  cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "machines"), 0);
  if (raw)
    cJSON_ReplaceItemInObjectCaseSensitive(e, field, cJSON_CreateRaw(raw));
  else
    cJSON_DeleteItemFromObjectCaseSensitive(e, field);
  char *out = cJSON_Print(root);
  cJSON_Delete(root);
  return out;
}

static void test_save_load(void) {
  hplan_machine a, b;
  hplan_machine_synthetic(&a, 6, 2, 3, 1.2345678901234567e10, (hplan_link){1.1e-6, 2.2e-10},
                          (hplan_link){3.3e-5, 4.4e-9});
  a.bcast[HBSP_PIPELINE][2] = 1.0 / 3;
  a.torus[0] = 2, a.torus[1] = 3, a.torus_link[0] = 1.7e-5, a.torus_link[1] = 2.5e-9;
  a.port_beta = 4.25e-11;
  const char *path = tpath("m.json");
  CU_ASSERT_EQUAL(hplan_save(&a, path), HLA_OK);
  memset(&b, 0, sizeof b);
  CU_ASSERT_EQUAL(hplan_load(&b, path, "synthetic", 6, 2), HLA_OK);
  CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof a), 0);
  CU_ASSERT_EQUAL(hplan_load(&b, path, "synthetic", 7, 0), HLA_ERR_STATE);
  CU_ASSERT_EQUAL(hplan_load(&b, "/nonexistent/x.json", NULL, 0, 0), HLA_ERR_STATE);
  /* a model that fails the check is not written */
  a.overlap = NAN;
  CU_ASSERT_EQUAL(hplan_save(&a, path), HLA_ERR_ARG);
  remove(path);
}

/* Bad values in the file: the entry counts as absent, and the reason names the field. */
static void test_file_values_rejected(void) {
  const hplan_machine ok = good_model();
  char *text = file_of(&ok);
  const char *path = tpath("values.json");
  static const struct {
    const char *field, *raw, *named;
  } cases[] = {{"gemm_rate", "1e999", "gemm_rate: not finite"},
               {"gemm_rate", "-5", "gemm_rate:"},
               {"gemm_rate", "0", "gemm_rate:"},
               {"threads", "1000000", "threads:"},
               {"P", "8.5", "P: 8.5 is not an integer"},
               {"nodes", "1e12", "nodes:"},
               {"link", "[1e-6, 1e-10, 0, 1e-9]", "link[1].alpha:"},
               {"link", "[1e-6, 1e-10, 1e-5]", "link[1].beta:"},
               {"overlap", "7", "overlap:"},
               {"host", "12", "host: not a string"},
               {"env_p", "\"four\"", "env_p: not a number"},
               {"bcast", "[1, 2, {}]", "bcast: not a number"},
               {"gemm_threads", "[1e10, 2e10, 3e10]", "gemm_threads[3]:"}, /* nthreads 4 */
               {"overlap", "nan", "not valid JSON at line"}, /* how older writers wrote a NaN */
               {"overlap", "Infinity", "not valid JSON at line"},
               {"version", NULL, NULL}}; /* an entry without a version: silently not ours */
  hplan_machine m;
  char why[200];
  int kind;
  CU_ASSERT_EQUAL(hplan_parse(text, strlen(text), "synthetic", 8, 2, &m, &kind, why, sizeof why),
                  HLA_OK);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *bad = with_value(text, cases[i].field, cases[i].raw);
    /* the key no longer matches where P, nodes or host are bad: ask for any */
    int P = strcmp(cases[i].field, "P") == 0 ? 0 : 8,
        nodes = strcmp(cases[i].field, "nodes") == 0 ? 0 : 2;
    const char *host = strcmp(cases[i].field, "host") == 0 ? NULL : "synthetic";
    put_file(path, bad, strlen(bad));
    CU_ASSERT_EQUAL(hplan_load(&m, path, host, P, nodes), HLA_ERR_STATE);
    CU_ASSERT_EQUAL(hplan_load_why(&m, path, host, P, nodes, &kind, why, sizeof why),
                    HLA_ERR_STATE);
    CU_ASSERT_EQUAL(kind, HP_FILE_OURS);
    if (cases[i].named) {
      CU_ASSERT(strstr(why, cases[i].named) != NULL);
      CU_ASSERT(strstr(why, cases[i].field) != NULL);
      if (!strstr(why, cases[i].named))
        printf("\n  %s = %s: '%s'", cases[i].field, cases[i].raw, why);
    } else {
      CU_ASSERT_EQUAL(why[0], '\0');
    }
    CU_ASSERT(strchr(why, '\n') == NULL);
    /* an hla file: the writer replaces the bad entry */
    CU_ASSERT_EQUAL(hplan_save(&ok, path), HLA_OK);
    CU_ASSERT_EQUAL(hplan_load(&m, path, "synthetic", 8, 2), HLA_OK);
    CU_ASSERT_EQUAL(memcmp(&m, &ok, sizeof m), 0);
    free(bad);
  }
  free(text);
  remove(path);
}

/* A file that is not an hla machine file is never overwritten: byte for byte the same after. */
static void test_foreign_file_kept(void) {
  const hplan_machine ok = good_model();
  const char *path = tpath("foreign");
  char why[200];
  uint64_t st = 77;
  unsigned char rnd[4096];
  for (size_t i = 0; i < sizeof rnd; i++) rnd[i] = (unsigned char)ht_rand_u64(&st);
  rnd[0] = '{'; /* even one that starts like JSON */
  const char *texts[] = {"{\"name\": \"my notes\", \"n\": 3}\n",
                         "[1, 2, 3]\n",
                         "{\"machines\": [{\"host\": \"x\"}]}",
                         "{\"format\": \"other\"}",
                         "\"hla-machine\"",
                         "{\"format\": \"hla-machine\" oops"};
  for (int t = -1; t < (int)(sizeof texts / sizeof texts[0]); t++) {
    const void *data = t < 0 ? (const void *)rnd : texts[t];
    size_t n = t < 0 ? sizeof rnd : strlen(texts[t]), got = 0;
    put_file(path, data, n);
    int expect = t == 5 ? HLA_OK : HLA_ERR_STATE; /* hla's own start: an older writer's file */
    CU_ASSERT_EQUAL(hplan_save_why(&ok, path, why, sizeof why), expect);
    if (expect != HLA_OK) {
      CU_ASSERT(strstr(why, "not an hla machine file") != NULL);
      char *back = get_file(path, &got);
      CU_ASSERT(back != NULL && got == n && memcmp(back, data, n) == 0);
      free(back);
    }
    hplan_machine m;
    CU_ASSERT_EQUAL(hplan_load(&m, path, NULL, 0, 0), expect);
  }
  /* nothing to lose: an empty file is written */
  put_file(path, "", 0);
  CU_ASSERT_EQUAL(hplan_save(&ok, path), HLA_OK);
  remove(path);
  /* a path that cannot be written: a directory */
  CU_ASSERT_EQUAL(hplan_save_why(&ok, tpath(""), why, sizeof why), HLA_ERR_STATE);
  CU_ASSERT(strstr(why, "directory") != NULL);
}

/* A file without the marker (older or hand-written) whose entries look like machine entries is
 * read and written; the entries of other keys, old versions and other members stay. */
static void test_old_file_and_other_entries(void) {
  hplan_machine a = good_model(), b, c, m;
  hplan_machine_synthetic(&b, 1, 1, 8, 3e10, (hplan_link){0, 0}, (hplan_link){0, 0});
  b.nthreads = 1; /* older writers wrote a one-rate table as a bare number */
  memset(&b.gemm_threads[1], 0, sizeof(double) * (HPLAN_MAX_THREADS - 1));
  memset(b.host, 0, sizeof b.host); /* what a reader gives: zeros after the name */
  strcpy(b.host, "node-b");
  char *ta = file_of(&a), *tb = file_of(&b);
  cJSON *ra = cJSON_Parse(ta), *rb = cJSON_Parse(tb);
  cJSON_DeleteItemFromObjectCaseSensitive(ra, "format");
  cJSON *eb = cJSON_DetachItemFromArray(cJSON_GetObjectItemCaseSensitive(rb, "machines"), 0);
  cJSON_ReplaceItemInObjectCaseSensitive(eb, "gemm_threads", cJSON_CreateNumber(b.gemm_threads[0]));
  cJSON *ms = cJSON_GetObjectItemCaseSensitive(ra, "machines");
  cJSON_AddItemToArray(ms, eb);
  cJSON_AddItemToArray(ms, cJSON_Parse("{\"version\": 2, \"host\": \"old\", \"P\": 8}"));
  cJSON_AddItemToObject(ra, "note", cJSON_CreateString("kept"));
  char *old = cJSON_Print(ra);
  cJSON_Delete(ra), cJSON_Delete(rb);
  const char *path = tpath("old.json");
  put_file(path, old, strlen(old));
  CU_ASSERT_EQUAL(hplan_load(&m, path, "synthetic", 8, 2), HLA_OK);
  CU_ASSERT_EQUAL(memcmp(&m, &a, sizeof m), 0);
  CU_ASSERT_EQUAL(hplan_load(&m, path, "node-b", 1, 1), HLA_OK);
  CU_ASSERT_EQUAL(memcmp(&m, &b, sizeof m), 0);
  /* replace a's entry: b, the old-version entry and the other member stay */
  c = a;
  c.gemm_rate = 2e10;
  CU_ASSERT_EQUAL(hplan_save(&c, path), HLA_OK);
  CU_ASSERT_EQUAL(hplan_load(&m, path, "synthetic", 8, 2), HLA_OK);
  CU_ASSERT_EQUAL(memcmp(&m, &c, sizeof m), 0);
  CU_ASSERT_EQUAL(hplan_load(&m, path, "node-b", 1, 1), HLA_OK);
  CU_ASSERT_EQUAL(memcmp(&m, &b, sizeof m), 0);
  size_t n;
  char *now = get_file(path, &n);
  cJSON *r = cJSON_Parse(now);
  CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "format")),
                         "hla-machine");
  CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "note")), "kept");
  CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "machines")), 3);
  cJSON_Delete(r);
  free(now), free(old), free(ta), free(tb);
  /* full: the oldest go */
  for (int p = 1; p <= 70; p++) {
    hplan_machine_synthetic(&m, p, 1, 4, 1e10, (hplan_link){1e-6, 1e-10},
                            (hplan_link){1e-6, 1e-10});
    CU_ASSERT_EQUAL(hplan_save(&m, path), HLA_OK);
  }
  CU_ASSERT_EQUAL(hplan_load(&m, path, "synthetic", 7, 1), HLA_OK);
  CU_ASSERT_EQUAL(hplan_load(&m, path, "node-b", 1, 1), HLA_ERR_STATE);
  CU_ASSERT_EQUAL(hplan_load(&m, path, "synthetic", 70, 1), HLA_OK);
  now = get_file(path, &n);
  r = cJSON_Parse(now);
  CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "machines")), 64);
  cJSON_Delete(r);
  free(now);
  remove(path);
}

/* The fuzzer's seeds and the inputs that once crashed it (tests/fuzz/corpus_machine_file/): no
 * crash, and a model the reader takes passes the check (the sanitizer build checks the rest). */
static void test_fuzz_corpus(void) {
  const char *dir = HLA_SOURCE_DIR "/tests/fuzz/corpus_machine_file";
  DIR *d = opendir(dir);
  CU_ASSERT_FATAL(d != NULL);
  int files = 0;
  hplan_machine s = good_model();
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t n = 0;
    char *text = get_file(path, &n), *out = NULL, why[200];
    hplan_machine m;
    int kind;
    if (hplan_parse(text, n, NULL, 0, 0, &m, &kind, why, sizeof why) == HLA_OK)
      CU_ASSERT_EQUAL(hplan_check(&m, NULL, 0), HLA_OK);
    int code = hplan_merge(text, n, &s, &out, why, sizeof why);
    CU_ASSERT_EQUAL(code, kind == HP_FILE_FOREIGN ? HLA_ERR_STATE : HLA_OK);
    free(out), free(text);
    files++;
  }
  closedir(d);
  CU_ASSERT(files >= 5);
  if (dir_[0]) rmdir(dir_); /* the last test: the others' files are gone */
}

/* hp_local_from's few processes against every process: the most local indices >= j. */
static void test_local_from(void) {
  int bad = 0;
  for (int np = 1; np <= 9; np++)
    for (int nb = 1; nb <= 5; nb++)
      for (int64_t n = 0; n <= 60; n++)
        for (int64_t j = -1; j <= n + 2; j++) {
          int64_t best = 0;
          for (int p = 0; p < np; p++) {
            int64_t v = hcyc_numroc(n, nb, p, np) - hcyc_numroc(j, nb, p, np);
            if (v > best) best = v;
          }
          if (hp_local_from(n, j, nb, np) != (double)best) bad++;
        }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(hp_local_from(65536, 128 * 37, 128, 4096), 128.0);
  CU_ASSERT_EQUAL(hp_local_from(8192, 0, 32, 2048), 32.0);
}

void hla_test_register(void) {
  HT_SUITE("plan_model", test_sync_node_g, test_two_level_ends_are_base, test_optimum_sqrt_p,
           test_crossovers, test_pipeline_segment, test_hsumma_ends_are_summa,
           test_hsumma_crossover, test_exascale_table, test_partners, test_relabel_kl,
           test_relabel_climb, test_planner_hsumma_vs_summa, test_bcast_calibration_back_to_back,
           test_native_bcast_shape, test_ibcast_shape, test_planner_3d_memory, test_planner_lu,
           test_planner_placements, test_local_from);
  HT_SUITE("machine_file", test_check_fields, test_check_before_ranking, test_save_load,
           test_file_values_rejected, test_foreign_file_kept, test_old_file_and_other_entries,
           test_fuzz_corpus);
}
