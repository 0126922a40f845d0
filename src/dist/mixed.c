/* hla — hla_gesv_mixed: Ax = b to double accuracy from a single-precision factorisation, refined
 * in double (LAPACK dsgesv's method, Langou et al. 2006, distributed as SLATE's gesv_mixed).
 *
 * Why it pays: the O(n^3) factorisation runs in float, at about twice double's flop rate and half
 * its memory traffic; each refinement step costs O(n^2 nrhs) (a residual by hmatmul in double with
 * the original A, and a solve with the float factors). Each step shrinks the error by about
 * kappa(A) eps_float, so it converges for kappa(A) well below 1 / eps_float ~ 1.7e7 and fails to
 * (slowly, or not at all) beyond; then the double factorisation runs instead, as dsgesv does.
 *
 * The stopping test is HPL's scaled residual, per call (every column at once: the 'M' norms of the
 * n x nrhs blocks, which is HPL's for one right-hand side and a little looser for several):
 *   max|B - A X| / (eps (|A|_inf max|X| + max|B|) n) < 16,   eps = DBL_EPSILON / 2.
 * A step that does not halve max|B - A X| counts as stagnation (NaN included); so does reaching
 * opts->refine_max steps. Every decision is taken on norms that every rank has (hmat_norm), so
 * the ranks agree without a word.
 *
 * Memory beyond A and B: a float copy of A (n^2 / 2 words), X and R (double, n x nrhs each) and a
 * float R. No double copy of A: the fallback factors A in place.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "dist/lu/lu_impl.h"

#define MIXED_BAR       16.0 /* HPL's threshold on the scaled residual */
#define MIXED_ITERS_MAX 30   /* opts->refine_max = 0: LAPACK dsgesv's ITERMAX */

/* The workspaces: A's float copy, the iterate X, the residual R in double and in float. */
typedef struct {
  hmat As, X, R, Rs;
} mixed_ws;

static void ws_free(mixed_ws *w) {
  hmat_free(&w->As), hmat_free(&w->X), hmat_free(&w->R), hmat_free(&w->Rs);
}

/* X += R, both of B's layout. Local. */
static void add_local(hmat X, hmat R) {
  double *x = X->data;
  const double *r = R->data;
  for (int64_t j = 0; j < X->nloc; j++)
    for (int64_t i = 0; i < X->mloc; i++) x[i + j * X->lld] += r[i + j * R->lld];
}

/* The scaled residual of X (R := B - A X, then the formula above). Collective over A's grid. */
static int residual(hmat A, hmat B, hmat X, hmat R, double anrm, double bnrm, double *rnrm,
                    double *scaled) {
  HLA_CALL(hmat_convert(B, R));
  HLA_CALL(hmatmul('N', 'N', -1.0, A, X, 1.0, R, NULL));
  double xnrm;
  HLA_CALL(hmat_norm(R, 'M', rnrm));
  HLA_CALL(hmat_norm(X, 'M', &xnrm));
  const double den = DBL_EPSILON / 2 * (anrm * xnrm + bnrm) * (double)A->n;
  *scaled = den > 0.0 ? *rnrm / den : *rnrm == 0.0 ? 0.0 : INFINITY;
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
  double bnrm, rnrm, prev = INFINITY;
  HLA_CALL(hmat_norm(B, 'M', &bnrm));
  HLA_CALL(hmat_convert(B, w->Rs));
  HLA_CALL(hlu_solve(w->As, ipiv, w->Rs, NULL));
  HLA_CALL(hmat_convert(w->Rs, w->X));
  for (int it = 0;; it++) {
    HLA_CALL(residual(A, B, w->X, w->R, anrm, bnrm, &rnrm, &rep->residual));
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
  HLA_CALL(hbsp_agree(all, code));
  const int iters_max = rmax == 0 ? MIXED_ITERS_MAX : (int)rmax;

  hla_report rep;
  memset(&rep, 0, sizeof rep);
  double amax, anrm;
  HLA_CALL(hmat_norm(A, 'M', &amax));
  HLA_CALL(hmat_norm(A, 'I', &anrm));
  int fallback = HLA_MIXED_STAGNATED;
  if (amax > FLT_MAX) {
    fallback = HLA_MIXED_RANGE;
  } else if (iters_max >= 0) {
    mixed_ws w = {NULL, NULL, NULL, NULL};
    code = hmat_create_typed(A->g, A->n, A->n, A->mb, A->nb, HLA_FLOAT, &w.As);
    if (code == HLA_OK) code = hmat_create_typed(B->g, B->m, B->n, B->mb, B->nb, HLA_DOUBLE, &w.X);
    if (code == HLA_OK) code = hmat_create_typed(B->g, B->m, B->n, B->mb, B->nb, HLA_DOUBLE, &w.R);
    if (code == HLA_OK) code = hmat_create_typed(B->g, B->m, B->n, B->mb, B->nb, HLA_FLOAT, &w.Rs);
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
