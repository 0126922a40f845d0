/* Tests of the BSP probe (src/bsp/probe.c): the least-squares fit against known lines and against
 * the printed (wrong) formulas of the seeds, and a smoke run of every measurement.
 * @procs 1 3
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "harness.h"
#include "bsp/probe.h"

/* ---------------------------------------------------------------- least squares */

/* Seed 002, Algorithm 5.1, as printed: denominator (h1−h0)(h1−h0+1)(h1−h0−2). sign = −2 gives the
 * printed formula, +2 the corrected one. */
static double printed_g(int h0, int h1, const double *t, int sign) {
  double tb = 0, hb = 0.5 * (h1 + h0), num = 0;
  for (int h = h0; h <= h1; h++) tb += t[h - h0];
  tb /= h1 - h0 + 1;
  for (int h = h0; h <= h1; h++) num += (h - hb) * (t[h - h0] - tb);
  return num * 12 / ((double)(h1 - h0) * (h1 - h0 + 1) * (h1 - h0 + sign));
}

static void test_ols_exact(void) {
  enum { N = 257 };
  double h[N], t[N], g = 0, l = 0;
  for (int i = 0; i < N; i++) h[i] = i, t[i] = 3.5 * i + 100;
  CU_ASSERT_EQUAL(hbsp_ols(h, t, N, &g, &l), HLA_OK);
  CU_ASSERT_DOUBLE_EQUAL(g, 3.5, 1e-13);
  CU_ASSERT_DOUBLE_EQUAL(l, 100, 1e-11);

  /* the printed denominator is off: 3.5 · 258/254 instead of 3.5 */
  double gp = printed_g(0, N - 1, t, -2), gc = printed_g(0, N - 1, t, +2);
  CU_ASSERT_DOUBLE_EQUAL(gc, 3.5, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(gp, 3.5 * 258 / 254, 1e-12);
  CU_ASSERT(fabs(gp - 3.5) > 0.05);
}

static void test_ols_short_ranges(void) {
  /* h1 − h0 = 2: the printed formula divides by zero, the fit is exact */
  double h[3] = {5, 6, 7}, t[3] = {9, 11, 13}, g, l;
  CU_ASSERT_EQUAL(hbsp_ols(h, t, 3, &g, &l), HLA_OK);
  CU_ASSERT_DOUBLE_EQUAL(g, 2, 1e-14);
  CU_ASSERT_DOUBLE_EQUAL(l, -1, 1e-13);
  CU_ASSERT(isinf(printed_g(5, 7, t, -2)));
  CU_ASSERT_DOUBLE_EQUAL(printed_g(5, 7, t, +2), 2, 1e-14);

  /* h1 − h0 = 1: the printed formula has the wrong sign */
  CU_ASSERT_EQUAL(hbsp_ols(h, t, 2, &g, &l), HLA_OK);
  CU_ASSERT_DOUBLE_EQUAL(g, 2, 1e-14);
  CU_ASSERT(printed_g(5, 6, t, -2) < 0);

  /* van Duijn's Lemma 1 as printed (α = (h1−h0)/Σh) gives (2.125, 13.125) for t = 3h + 7 on
   * h = 1..10; the standard regression recovers (3, 7) */
  double hh[10], tt[10], sh = 0, st = 0, sht = 0, shh = 0;
  for (int i = 0; i < 10; i++) {
    hh[i] = i + 1, tt[i] = 3 * hh[i] + 7;
    sh += hh[i], st += tt[i], sht += hh[i] * tt[i], shh += hh[i] * hh[i];
  }
  double alpha = 9 / sh, gv = (st - alpha * sht) / (sh - alpha * shh), lv = (sht - gv * shh) / sh;
  CU_ASSERT_DOUBLE_EQUAL(gv, 2.125, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(lv, 13.125, 1e-12);
  CU_ASSERT_EQUAL(hbsp_ols(hh, tt, 10, &g, &l), HLA_OK);
  CU_ASSERT_DOUBLE_EQUAL(g, 3, 1e-14);
  CU_ASSERT_DOUBLE_EQUAL(l, 7, 1e-13);
}

static void test_ols_noisy(void) {
  /* against the normal equations in long double, on scattered points */
  enum { N = 40 };
  double h[N], t[N], g, l;
  uint64_t seed = 42;
  long double n = N, sh = 0, st = 0, sht = 0, shh = 0;
  for (int i = 0; i < N; i++) {
    h[i] = 1000 + 37 * i + 10 * ht_rand_uniform(&seed);
    t[i] = 2e-9 * h[i] + 5e-6 + 1e-7 * ht_rand_uniform(&seed);
    sh += h[i], st += t[i], sht += (long double)h[i] * t[i], shh += (long double)h[i] * h[i];
  }
  long double gr = (n * sht - sh * st) / (n * shh - sh * sh), lr = (st - gr * sh) / n;
  CU_ASSERT_EQUAL(hbsp_ols(h, t, N, &g, &l), HLA_OK);
  CU_ASSERT(fabs(g - (double)gr) <= 1e-6 * fabs((double)gr));
  CU_ASSERT(fabs(l - (double)lr) <= 1e-6 * fabs((double)lr) + 1e-12);
}

static void test_ols_errors(void) {
  double h[3] = {4, 4, 4}, t[3] = {1, 2, 3}, g, l;
  CU_ASSERT_EQUAL(hbsp_ols(h, t, 3, &g, &l), HLA_ERR_ARG); /* all h equal */
  CU_ASSERT_EQUAL(hbsp_ols(h, t, 1, &g, &l), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_ols(NULL, t, 3, &g, &l), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_ols(h, t, 3, NULL, &l), HLA_ERR_ARG);
}

/* ---------------------------------------------------------------- measurements (smoke) */

static int sane_fit(const hbsp_gl *f, int npoints) {
  int ok = f->npoints == npoints && isfinite(f->g) && isfinite(f->l);
  for (int k = 0; k < f->npoints; k++) ok &= f->t[k] >= 0 && (k == 0 || f->h[k] > f->h[k - 1]);
  return ok;
}

static void test_probe_smoke(void) {
  hbsp_env w;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  int r = hbsp_rank(w);

  hbsp_rate table[5], rate;
  CU_ASSERT_EQUAL(hbsp_probe_rate(w, 16, 1e-4, table, &rate), HLA_OK);
  CU_ASSERT(rate.n == 16 && rate.rmin > 0 && rate.rmin <= rate.ravg && rate.ravg <= rate.rmax);
  CU_ASSERT(table[0].n == 1 && table[4].n == 16);
  CU_ASSERT_EQUAL(hbsp_probe_rate(w, 12, 1e-4, NULL, &rate), HLA_ERR_ARG); /* not a power of 2 */

  hbsp_hrel_opts o = {.h0 = 0, .h1 = 20, .npoints = 4, .reps = 2, .inner = 1};
  hbsp_gl f;
  for (int mode = HBSP_HREL_WORDS; mode <= HBSP_HREL_BULK_HP; mode++) {
    o.mode = (hbsp_hrel_mode)mode;
    CU_ASSERT_EQUAL(hbsp_probe_gl(w, &o, rate.ravg, &f), HLA_OK);
    CU_ASSERT(sane_fit(&f, 4));
    CU_ASSERT(f.h[0] == 0 && f.h[3] == 20);
    CU_ASSERT_DOUBLE_EQUAL(f.g_flops, f.g * rate.ravg, 1e-9 * fabs(f.g * rate.ravg) + 1e-300);
  }
  CU_ASSERT_EQUAL(hbsp_probe_alltoallv(w, &o, 0, &f), HLA_OK);
  CU_ASSERT(sane_fit(&f, 4) && f.g_flops == 0);

  /* subsets: each rank its own environment; first only rank 0's, then all at once */
  hbsp_env self;
  CU_ASSERT_EQUAL_FATAL(hbsp_split(w, r, 0, &self), HLA_OK);
  o.mode = HBSP_HREL_WORDS;
  CU_ASSERT_EQUAL(hbsp_probe_gl_sub(w, self, r == 0, &o, 0, &f), HLA_OK);
  CU_ASSERT(sane_fit(&f, 4));
  CU_ASSERT_EQUAL(hbsp_probe_gl_sub(w, self, 1, &o, 0, &f), HLA_OK);
  CU_ASSERT(sane_fit(&f, 4));
  CU_ASSERT_EQUAL(hbsp_probe_gl_sub(w, NULL, 0, &o, 0, &f), HLA_ERR_ARG); /* nobody active */
  CU_ASSERT_EQUAL(hbsp_free(&self), HLA_OK);

  /* bad options: the same error everywhere, the environment stays usable */
  hbsp_hrel_opts bad = {.h0 = 5, .h1 = 5};
  CU_ASSERT_EQUAL(hbsp_probe_gl(w, &bad, 0, &f), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_sync(w), HLA_OK);

  hbsp_floor fl;
  CU_ASSERT_EQUAL(hbsp_probe_floor(w, 0, 5, &fl), HLA_OK);
  CU_ASSERT(fl.count_bytes > 0 && fl.alltoall >= 0 && fl.barrier >= 0 && fl.floor >= 0);
  CU_ASSERT_EQUAL(hbsp_free(&w), HLA_OK);
}

void hla_test_register(void) {
  HT_SUITE("bsp_probe", test_ols_exact, test_ols_short_ranges, test_ols_noisy, test_ols_errors,
           test_probe_smoke);
}
