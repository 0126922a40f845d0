/* hla — hla_gesv_mixed: Ax = b to double accuracy from a single-precision factorisation, refined
 * in double (LAPACK dsgesv's method, Langou et al. 2006, distributed as SLATE's gesv_mixed).
 *
 * Why it pays: the O(n^3) factorisation runs in float, at about twice double's flop rate and half
 * its memory traffic; each refinement step costs O(n^2 nrhs) (a residual by hmatmul in double with
 * the original A, and a solve with the float factors). Each step shrinks the error by about
 * kappa(A) eps_float, so it converges for kappa(A) well below 1 / eps_float ~ 1.7e7 and fails to
 * (slowly, or not at all) beyond; then the double factorisation runs instead, as dsgesv does.
 *
 * The stopping test is HPL's scaled residual of every column j (right-hand side) of X:
 *   |b_j - A x_j|_inf / (eps (|A|_inf |x_j|_inf + |b_j|_inf) n) < 16,   eps = DBL_EPSILON / 2,
 * the largest of them reported. A step that does not halve the largest |b_j - A x_j|_inf counts as
 * stagnation (NaN included); so does reaching opts->refine_max steps. Every decision is taken on
 * values every rank has (allreduced), so the ranks agree without a word.
 *
 * Memory beyond A and B: a float copy of A (n^2 / 2 words), X and R (double, n x nrhs each) and a
 * float R. No double copy of A: the fallback factors A in place.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist/lu/lu_impl.h"

#define MIXED_BAR       16.0 /* HPL's threshold on the scaled residual */
#define MIXED_ITERS_MAX 30   /* opts->refine_max = 0: LAPACK dsgesv's ITERMAX */

/* The workspaces: A's float copy, the iterate X, the residual R in double and in float; column
 * norms (3 per local column of B). */
typedef struct {
  hmat As, X, R, Rs;
  double *cn;
} mixed_ws;

static void ws_free(mixed_ws *w) {
  hmat_free(&w->As), hmat_free(&w->X), hmat_free(&w->R), hmat_free(&w->Rs);
  free(w->cn);
}

/* X += R, both of B's layout. Local. */
static void add_local(hmat X, hmat R) {
  double *x = X->data;
  const double *r = R->data;
  for (int64_t j = 0; j < X->nloc; j++)
    for (int64_t i = 0; i < X->mloc; i++) x[i + j * X->lld] += r[i + j * R->lld];
}

/* |x_j|_inf of my local columns j of X into v[0..nloc), on every rank of my process column; a NaN
 * counts as Inf (it fails every test below). Collective over X's grid column. */
static int col_norms(hmat X, double *v) {
  for (int64_t j = 0; j < X->nloc; j++) {
    const double *x = (const double *)X->data + j * X->lld;
    double m = 0.0;
    for (int64_t i = 0; i < X->mloc; i++) m = isnan(x[i]) ? INFINITY : fmax(m, fabs(x[i]));
    v[j] = m;
  }
  if (X->nloc == 0) return HLA_OK; /* the same on every rank of the column */
  return hbsp_allreduce(X->g->col, v, v, (size_t)X->nloc, HBSP_DOUBLE, HBSP_MAX, NULL);
}

/* R := B - A X, and its scaled residual (the formula above: the largest over the columns) and
 * largest |b_j - A x_j|_inf, on every rank. w: 3 nloc doubles. Collective over A's grid. */
static int residual(hmat A, hmat B, hmat X, hmat R, double anrm, double *w, double *rnrm,
                    double *scaled) {
  HLA_CALL(hmat_convert(B, R));
  HLA_CALL(hmatmul('N', 'N', -1.0, A, X, 1.0, R, NULL));
  const int64_t nl = X->nloc;
  double *rn = w, *xn = w + nl, *bn = w + 2 * nl, mine[2] = {0.0, 0.0}, all[2];
  HLA_CALL(col_norms(R, rn));
  HLA_CALL(col_norms(X, xn));
  HLA_CALL(col_norms(B, bn));
  for (int64_t j = 0; j < nl; j++) {
    const double den = DBL_EPSILON / 2 * (anrm * xn[j] + bn[j]) * (double)A->n;
    const double s = den > 0.0 && isfinite(den) ? rn[j] / den : rn[j] == 0.0 ? 0.0 : INFINITY;
    mine[0] = fmax(mine[0], s), mine[1] = fmax(mine[1], rn[j]);
  }
  HLA_CALL(hbsp_allreduce(A->g->all, mine, all, 2, HBSP_DOUBLE, HBSP_MAX, NULL));
  *scaled = all[0], *rnrm = all[1];
  return HLA_OK;
}

/* The float path: factor A's float copy, solve, refine. *fallback = 0 when X meets the bar, else
 * why not (and X is not an answer). Collective over A's grid; errors agreed. */
static int refine(hmat A, int64_t *ipiv, hmat B, mixed_ws *w, const hla_opts *opts, int iters_max,
                  double anrm, hla_report *rep, int *fallback) {
  hla_opts o = HLA_OPTS_INIT;
  if (opts) o = *opts; /* the user's LU options apply to the float factorisation too */
  int64_t info = -1;
  o.info_out = &info;
  o.report = rep;
  HLA_CALL(hmat_convert(A, w->As));
  int code = hlu_factor(w->As, ipiv, &o);
  if (code == HLA_ERR_SINGULAR) {
    *fallback = HLA_MIXED_SINGULAR;
    return HLA_OK;
  }
  HLA_CALL(code);
  double rnrm, prev = INFINITY;
  HLA_CALL(hmat_convert(B, w->Rs));
  HLA_CALL(hlu_solve(w->As, ipiv, w->Rs, NULL));
  HLA_CALL(hmat_convert(w->Rs, w->X));
  for (int it = 0;; it++) {
    HLA_CALL(residual(A, B, w->X, w->R, anrm, w->cn, &rnrm, &rep->residual));
    if (rep->residual < MIXED_BAR) break;
    if (it >= iters_max || !(rnrm <= 0.5 * prev)) {
      *fallback = HLA_MIXED_STAGNATED;
      return HLA_OK;
    }
    prev = rnrm;
    HLA_CALL(hmat_convert(w->R, w->Rs));
    HLA_CALL(hlu_solve(w->As, ipiv, w->Rs, NULL));
    HLA_CALL(hmat_convert(w->Rs, w->R));
    add_local(w->X, w->R);
    rep->iterations++;
  }
  *fallback = HLA_MIXED_REFINED;
  return HLA_OK;
}

/* hla_gesv_mixed: see include/hla/ops.h. Collective over HGRID_ALL of A's grid; cost above. */
int hla_gesv_mixed(hmat A, int64_t *ipiv, hmat B, const hla_opts *opts) {
  static const char fn[] = "hla_gesv_mixed";
  double t0 = hbsp_time();
  HLA_CALL(hlu_check_solve(fn, A, ipiv, 0, B, opts, 1, 'N')); /* as hla_gesv's, doubles only */
  hbsp_env all = A->g->all;
  int64_t rmax = opts ? opts->refine_max : 0;
  int same, code = rmax < -1 ? HBSP_FAIL(all, HLA_ERR_ARG, "%s: refine_max %lld < -1", fn,
                                         (long long)rmax)
                             : HLA_OK;
  HLA_CALL(hdist_check_same(all, &rmax, 1, &same));
  if (!same) code = HBSP_FAIL(all, HLA_ERR_ARG, "%s: refine_max differs between ranks", fn);
  /* B too (hla_gesv does not look): with Inf or NaN in it the bar can never be met */
  if (code == HLA_OK) code = hlu_check_finite(fn, B, "B");
  HLA_CALL(hbsp_agree(all, code));
  const int iters_max = rmax == 0 ? MIXED_ITERS_MAX : (int)rmax;
  if (A->rsrc || A->csrc || B->rsrc || B->csrc) { /* wrapped with the first block elsewhere */
    hmat TA, TB = NULL;
    hla_report r;
    hla_opts o = HLA_OPTS_INIT;
    if (opts) o = *opts;
    o.report = &r;
    HLA_CALL(hdist_unshift(A, 1, &TA));
    code = hdist_unshift(B, 1, &TB);
    if (code == HLA_OK) code = hla_gesv_mixed(TA, ipiv, TB, &o);
    const int ok = code == HLA_OK || code == HLA_ERR_SINGULAR;
    int e = TB ? hdist_reshift(B, &TB, code == HLA_OK) : HLA_OK;
    int e2 = hdist_reshift(A, &TA, ok && r.fallback != HLA_MIXED_REFINED); /* A changed */
    if (ok && opts && opts->report) *opts->report = r, opts->report->redistributed = 1;
    return code != HLA_OK ? code : e != HLA_OK ? e : e2;
  }

  hla_report rep;
  memset(&rep, 0, sizeof rep);
  double amax, anrm;
  HLA_CALL(hmat_norm(A, 'M', &amax));
  HLA_CALL(hmat_norm(A, 'I', &anrm));
  int fallback = HLA_MIXED_STAGNATED;
  if (amax > FLT_MAX) {
    fallback = HLA_MIXED_RANGE;
  } else if (iters_max >= 0) {
    mixed_ws w = {NULL, NULL, NULL, NULL, hdist_alloc(3 * B->nloc)};
    code = hbsp_agree(all, w.cn ? HLA_OK : HBSP_FAIL(all, HLA_ERR_NOMEM, "%s: out of memory", fn));
    if (code == HLA_OK) code = hdist_create(A->g, A->n, A->n, A->mb, A->nb, HLA_FLOAT, 1, &w.As);
    if (code == HLA_OK) code = hdist_create(B->g, B->m, B->n, B->mb, B->nb, HLA_DOUBLE, 1, &w.X);
    if (code == HLA_OK) code = hdist_create(B->g, B->m, B->n, B->mb, B->nb, HLA_DOUBLE, 1, &w.R);
    if (code == HLA_OK) code = hdist_create(B->g, B->m, B->n, B->mb, B->nb, HLA_FLOAT, 1, &w.Rs);
    if (code == HLA_OK) code = refine(A, ipiv, B, &w, opts, iters_max, anrm, &rep, &fallback);
    if (code == HLA_OK && fallback == HLA_MIXED_REFINED) code = hmat_convert(w.X, B);
    ws_free(&w);
    HLA_CALL(code);
  }
  hla_opts o = HLA_OPTS_INIT;
  if (opts) o = *opts;
  o.report = &rep;
  if (fallback != HLA_MIXED_REFINED) { /* the double factorisation, as hla_gesv */
    const int iterations = rep.iterations;
    code = hla_gesv(A, ipiv, B, &o);
    rep.iterations = iterations;
    rep.residual = -1.0; /* A holds its factors now: nothing to measure with */
  } else if (opts && opts->info_out) {
    *opts->info_out = -1;
  }
  rep.fallback = fallback;
  rep.seconds = hbsp_time() - t0;
  size_t at = strlen(rep.why);
  snprintf(rep.why + at, sizeof rep.why - at, "%s%s", at ? "; " : "",
           fallback == HLA_MIXED_REFINED    ? "float LU refined in double"
           : fallback == HLA_MIXED_RANGE    ? "double LU: A exceeds float's range"
           : fallback == HLA_MIXED_SINGULAR ? "double LU: the float factors are singular"
                                            : "double LU: refinement stagnated");
  if (opts && opts->report) *opts->report = rep;
  return code;
}
