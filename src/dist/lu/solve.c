/* hla — solving with the LU factors (hlu_solve) and factor + solve (hla_gesv).
 *
 * B := U^-1 L^-1 P B: the n interchanges of ipiv are composed into one permutation and every row
 * of B that moves is sent once to its final owner (one superstep per process column, swap.c);
 * then the blocked forward and backward solves of trsolve.c.
 * BSP cost (flat; R = ceil(n/M) rows, C_B local columns of B): the permutation 2 w + (moved rows
 * x C_B) g_c + l_c; each triangle about n R / 2 words along rows (only to the process columns that
 * hold B), n C_B along columns, n^2 nrhs / P flops, and 2 (n / nb) (l_r + l_c) of latency.
 * Errors: bad arguments are agreed before anything changes (nothing is modified); HLA_ERR_SINGULAR
 * from hla_gesv leaves B as it was, as LAPACK's dgesv.
 */
#include <string.h>
#include "dist/lu/lu_impl.h"
#include "dist/plan/plan_impl.h"

/* Local checks of the right-hand side against the factors. */
static int check_rhs(const char *fn, hmat LU, hmat B) {
  hbsp_env all = LU->g->all;
  if (B == LU) /* the solve would overwrite the factors it reads */
    return HBSP_FAIL(all, HLA_ERR_ARG, "%s: B must not be the matrix itself", fn);
  if (B->g != LU->g)
    return HBSP_FAIL(all, HLA_ERR_DIST, "%s: B is not on the grid of the matrix", fn);
  if (B->m != LU->n)
    return HBSP_FAIL(all, HLA_ERR_DIM, "%s: B has %lld rows, the matrix is %lld x %lld", fn,
                     (long long)B->m, (long long)LU->n, (long long)LU->n);
  if (B->mb != LU->mb)
    return HBSP_FAIL(all, HLA_ERR_DIST,
                     "%s: B's row block %d differs from the matrix's %d (use hmat_redistribute)",
                     fn, B->mb, LU->mb);
  return HLA_OK;
}

/* Checks shared by hlu_solve and hla_gesv; returns the agreed code. Collective over LU's ALL. */
static int check_all(const char *fn, hmat LU, const int64_t *ipiv, int ipiv_in, hmat B,
                     const hla_opts *opts, int finite) {
  const char *const names[2] = {ipiv_in ? "LU" : "A", "B"};
  const hmat x[2] = {LU, B};
  int64_t v[HLU_NOPTS];
  hbsp_env all = LU ? LU->g->all : B ? B->g->all : NULL;
  if (all == NULL) return HLA_ERR_ARG; /* no handle: nothing to talk through */
  int code = hlu_opts_check(all, fn, opts, v);
  HLA_CALL(hdist_agree_args(fn, x, names, 2, v, HLU_NOPTS, &all));
  if (code == HLA_OK) code = hlu_check_matrix(fn, LU, names[0]);
  if (code == HLA_OK) code = check_rhs(fn, LU, B);
  if (code == HLA_OK && ipiv == NULL && LU->n > 0)
    code = HBSP_FAIL(all, HLA_ERR_ARG, "%s: ipiv is NULL", fn);
  for (int64_t i = 0; code == HLA_OK && ipiv_in && i < LU->n; i++)
    if (ipiv[i] < i || ipiv[i] >= LU->n)
      code = HBSP_FAIL(all, HLA_ERR_ARG, "%s: ipiv[%lld] = %lld is not in [%lld, %lld)", fn,
                       (long long)i, (long long)ipiv[i], (long long)i, (long long)LU->n);
  if (code == HLA_OK && finite) code = hlu_check_finite(fn, LU);
  return hbsp_agree(all, code);
}

/* The interchanges, then the two triangles. */
static int solve_run(hlu_ctx *c, const int64_t *ipiv, hmat B) {
  c->tmark = hbsp_time();
  int64_t *dst, *src, cnt;
  hlu_perm_pairs(ipiv, 0, c->n, c->n, c->iwork, &dst, &src, &cnt);
  HLA_CALL(hlu_move_rows(c, B, dst, src, cnt, 0, B->nloc));
  hlu_phase(c, HLU_T_SWAP);
  if (B->n <= HLU_FANIN_MAX_NRHS) {
    HLA_CALL(hlu_trsolve_fanin(c, B));
  } else {
    HLA_CALL(hlu_trsolve(c, B, 'L'));
    HLA_CALL(hlu_trsolve(c, B, 'U'));
  }
  hlu_phase(c, HLU_T_SOLVE);
  return HLA_OK;
}

/* Setup, workspaces for what runs (factor and/or solve), agreed. */
static int prepare(hlu_ctx *c, hmat A, hmat B, const hla_opts *opts, int factor) {
  HLA_CALL(hlu_setup(c, A, opts));
  hgrid g = A->g; /* the model already on the grid, if any (0 s without one) */
  double solve = hplan_solve_predict(g->plan_state == 1 ? g->machine : NULL, g->nnodes, A->n, g->M,
                                     g->N, A->nb, B->n);
  c->plan.predicted = factor ? c->plan.predicted + solve : solve;
  int code = hbsp_agree(A->g->all, hlu_workspace(c, factor, B));
  if (code != HLA_OK) hlu_teardown(c);
  return code;
}

/* hlu_solve (gesv = 0) or hla_gesv on copies of A and B in the algorithms' layout (their first
 * block on process (0, 0)), for matrices wrapped with it elsewhere; the results copied back. */
static int on_copies(int gesv, hmat A, int64_t *ipiv, hmat B, const hla_opts *opts) {
  hmat TA, TB = NULL;
  HLA_CALL(hdist_unshift(A, 1, &TA));
  int code = hdist_unshift(B, 1, &TB);
  if (code == HLA_OK) code = gesv ? hla_gesv(TA, ipiv, TB, opts) : hlu_solve(TA, ipiv, TB, opts);
  int ok = code == HLA_OK || code == HLA_ERR_SINGULAR;
  int e = TB ? hdist_reshift(B, &TB, ok) : HLA_OK;
  int e2 = hdist_reshift(A, &TA, gesv && ok);
  return code != HLA_OK ? code : e != HLA_OK ? e : e2;
}

static int shifted(hmat X) {
  return X->rsrc != 0 || X->csrc != 0;
}

/* hlu_solve: see include/hla/ops.h. Collective over HGRID_ALL of LU's grid; cost above. */
int hlu_solve(hmat LU, const int64_t *ipiv, hmat B, const hla_opts *opts) {
  static const char fn[] = "hlu_solve";
  double t0 = hbsp_time();
  HLA_CALL(check_all(fn, LU, ipiv, 1, B, opts, 0));
  if (shifted(LU) || shifted(B)) return on_copies(0, LU, (int64_t *)ipiv, B, opts);
  hlu_ctx c;
  HLA_CALL(prepare(&c, LU, B, opts, 0));
  int code = solve_run(&c, ipiv, B);
  int e = hlu_teardown(&c);
  HLA_CALL(code);
  HLA_CALL(e);
  hlu_report(&c, opts, hbsp_time() - t0);
  return HLA_OK;
}

/* hla_gesv: see include/hla/ops.h. Collective over HGRID_ALL of A's grid; cost of hlu_factor plus
 * hlu_solve (one setup of the levels and workspaces for both). */
int hla_gesv(hmat A, int64_t *ipiv, hmat B, const hla_opts *opts) {
  static const char fn[] = "hla_gesv";
  double t0 = hbsp_time();
  HLA_CALL(check_all(fn, A, ipiv, 0, B, opts, 1));
  if (shifted(A) || shifted(B)) return on_copies(1, A, ipiv, B, opts);
  hlu_ctx c;
  HLA_CALL(prepare(&c, A, B, opts, 1));
  int code = hlu_factor_run(&c, ipiv);
  /* As LAPACK dgesv: no solution from a singular factorisation (B stays as it was). */
  if (code == HLA_OK && c.info < 0) code = solve_run(&c, ipiv, B);
  int e = hlu_teardown(&c);
  HLA_CALL(code);
  HLA_CALL(e);
  return hlu_finish(&c, fn, opts, t0);
}
