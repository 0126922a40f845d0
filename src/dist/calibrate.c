/* hla — hplan_probe: the machine model measured by the probe (plan/probe.c: hplan_measure), then
 * calibrated end to end: the planner's best LU and multiply of order 2048 on these ranks run as a
 * user would run them (grid, layout, options), and measured / predicted (clamped to [0.5, 3])
 * multiplies the predictions in this placement (lu_cal, mm_cal).
 *
 * This file sits above every room of src/dist: it is the one place that runs the algorithms (lu/,
 * matmul/) for the planner (plan/), which sits below them and never calls them. The automatic paths
 * (hgrid_create, hmat_create, hmatmul, hlu_factor with nothing asked for) obtain their model from
 * the machine file or hplan_measure, without this calibration: it changes no choice on a fixed
 * placement (every candidate of one placement is scaled alike), only the predicted seconds and the
 * ranking across ranks-per-node placements of hla-plan.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <omp.h>
#include "bsp/bsp_impl.h"
#include "dist/plan/probe.h"
#include "hla/dist.h"
#include "hla/ops.h"
#include "kernels/kernels.h"

static double cal_entry(int64_t i, int64_t j, void *ctx) {
  uint64_t s = (uint64_t)(uintptr_t)ctx ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^
               ((uint64_t)j * 0xC2B2AE3D27D4EB4Full);
  s ^= s >> 31, s *= 0xBF58476D1CE4E5B9ull, s ^= s >> 29;
  return (double)(s >> 11) * 0x1.0p-53 - 0.5;
}

typedef struct {
  hmat A, B, C;
  int64_t *ipiv;
  hla_opts o;
} cal_arg;

static int prep_cal_lu(void *p) {
  cal_arg *c = p;
  return hmat_fill(c->A, cal_entry, (void *)3);
}

static int run_cal_lu(void *p) {
  cal_arg *c = p;
  int e = hlu_factor(c->A, c->ipiv, &c->o);
  return e == HLA_ERR_SINGULAR ? HLA_OK : e;
}

static int run_cal_mm(void *p) {
  cal_arg *c = p;
  return hmatmul('N', 'N', 1.0, c->A, c->B, 0.0, c->C, &c->o);
}

#define CAL_LU 2048
#define CAL_MM 2048

/* Run the planner's best LU of order CAL_LU and multiply of order CAL_MM on penv as a user would
 * (grid, layout, options), and keep measured / predicted. Collective over penv. */
static int calibrate(hbsp_env penv, hplan_machine *m) {
  MPI_Comm pc = hbsp_comm(penv);
  hplan_target t;
  memset(&t, 0, sizeof t);
  t.P = m->P, t.nodes = m->nodes;
  hplan_ranking *r = malloc(sizeof *r);
  int code = r ? HLA_OK : HBSP_FAIL(penv, HLA_ERR_NOMEM, "hplan_probe: out of memory");
  HLA_CALL(hbsp_agree(penv, code));
  m->lu_cal = m->mm_cal = 0; /* predictions without calibration */
  for (int op = 0; op < 2 && code == HLA_OK; op++) {
    int64_t n = op == 0 ? CAL_LU : CAL_MM;
    code = op == 0 ? hplan_lu_rank(m, n, &t, r) : hplan_matmul_rank(m, n, n, n, &t, r);
    if (code != HLA_OK) break; /* pure arithmetic: the same on every rank */
    hplan_cand c = r->cand[0];
    hgrid g = NULL;
    cal_arg a;
    memset(&a, 0, sizeof a);
    code = hgrid_create(penv, c.M, c.N, &g);
    if (code != HLA_OK) break;
    code = hmat_create(g, n, n, c.mb, c.nb, &a.A);
    if (code == HLA_OK && op == 1) code = hmat_create(g, n, n, c.mb, c.nb, &a.B);
    if (code == HLA_OK && op == 1) code = hmat_create(g, n, n, c.mb, c.nb, &a.C);
    a.ipiv = op == 0 ? malloc(sizeof(int64_t) * (size_t)n) : NULL;
    code = hbsp_agree(penv, code == HLA_OK && op == 0 && !a.ipiv
                                ? HBSP_FAIL(penv, HLA_ERR_NOMEM, "hplan_probe: out of memory")
                                : code);
    double tm = 0;
    if (code == HLA_OK && op == 0) {
      a.o.lu_alg = c.alg, a.o.lookahead = c.lookahead;
      code = hplan_timed(pc, 1, 0, run_cal_lu, prep_cal_lu, &a, 1, &tm);
    } else if (code == HLA_OK) {
      hmat_fill(a.A, cal_entry, (void *)1), hmat_fill(a.B, cal_entry, (void *)2);
      a.o.mm_alg = c.alg, a.o.inner_block = c.b;
      if (c.alg == HLA_MM_HSUMMA)
        a.o.outer_block = c.Mo, a.o.groups_row = c.gi, a.o.groups_col = c.gj;
      if (c.alg == HLA_MM_3D) a.o.replication = c.c;
      code = hplan_timed(pc, 1, 0, run_cal_mm, NULL, &a, 1, &tm);
    }
    hmat_free(&a.A), hmat_free(&a.B), hmat_free(&a.C);
    free(a.ipiv);
    int e = hgrid_free(&g);
    if (code == HLA_OK) code = e;
    if (code == HLA_OK && c.seconds > 0) {
      double f = tm / c.seconds;
      f = f < 0.5 ? 0.5 : f > 3 ? 3 : f;
      if (op == 0)
        m->lu_cal = f;
      else
        m->mm_cal = f;
    }
  }
  free(r);
  return code;
}

int hplan_probe(hbsp_env env, hplan_machine *m) {
  int old = hkern_threads_get(), old_omp = omp_get_max_threads();
  HLA_CALL(hplan_measure(env, m)); /* agreed; checks env and m */
  hbsp_env penv = NULL;            /* its own traffic: env's pending requests stay untouched */
  double t0 = MPI_Wtime();
  int code = hbsp_split(env, 0, hbsp_rank(env), &penv);
  if (code == HLA_OK) code = calibrate(penv, m);
  if (penv != NULL) hbsp_free(&penv);
  openblas_set_num_threads(old);
  omp_set_num_threads(old_omp);
  if (code != HLA_OK && !hbsp_errmsg(env)[0])
    HBSP_FAIL(env, code, "hplan_probe: calibration failed (%s)", hla_strerror(code));
  code = hbsp_agree(env, code);
  double el = MPI_Wtime() - t0, most = el;
  if (code == HLA_OK) code = hbsp_allreduce(env, &el, &most, 1, HBSP_DOUBLE, HBSP_MAX, NULL);
  if (code == HLA_OK) m->seconds += most;
  return code;
}
