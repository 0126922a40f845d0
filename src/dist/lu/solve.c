/* hla — solving with the LU factors (hlu_solve, hlu_solve_trans) and factor + solve (hla_gesv).
 *
 * B := U^-1 L^-1 P B: the n interchanges of ipiv are composed into one permutation and every row
 * of B that moves is sent once to its final owner (one superstep per process column, swap.c);
 * then the blocked forward and backward solves of trsolve.c. Transposed, B := P^T L^-T U^-T B: the
 * factors are first copied transposed (hdist_transpose: one superstep, n^2 / P words per rank and
 * as much memory), so that U^T is the lower triangle and L^T the upper one of a matrix in the same
 * layout, solved by the same code with the unit diagonal on the other side; then the permutation
 * backwards.
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

int hlu_check_solve(const char *fn, hmat LU, const int64_t *ipiv, int ipiv_in, hmat B,
                    const hla_opts *opts, int finite, char trans) {
  const char *const names[2] = {ipiv_in ? "LU" : "A", "B"};
  const hmat x[2] = {LU, B};
  int64_t v[HLU_NOPTS + 1];
  hbsp_env all = LU ? LU->g->all : B ? B->g->all : NULL;
  if (all == NULL) return HLA_ERR_ARG; /* no handle: nothing to talk through */
  int code = hlu_opts_check(all, fn, opts, v);
  v[HLU_NOPTS] = (unsigned char)trans;
  HLA_CALL(hdist_agree_args(fn, x, names, 2, v, HLU_NOPTS + 1, &all));
  HLA_CALL(hdist_check_elem(all, fn, x, names, 2, HREAL_ELEM));
  if (code == HLA_OK && !strchr("NnTtCc", trans))
    code = trans >= 32 && trans < 127
               ? HBSP_FAIL(all, HLA_ERR_ARG, "%s: trans '%c' is not N, T or C", fn, trans)
               : HBSP_FAIL(all, HLA_ERR_ARG, "%s: trans (code %d) is not N, T or C", fn,
                           (int)(unsigned char)trans);
  if (code == HLA_OK) code = hlu_check_matrix(fn, LU, names[0], 1);
  if (code == HLA_OK) code = check_rhs(fn, LU, B);
  if (code == HLA_OK && ipiv == NULL && LU->n > 0)
    code = HBSP_FAIL(all, HLA_ERR_ARG, "%s: ipiv is NULL", fn);
  for (int64_t i = 0; code == HLA_OK && ipiv_in && i < LU->n; i++)
    if (ipiv[i] < i || ipiv[i] >= LU->n)
      code = HBSP_FAIL(all, HLA_ERR_ARG, "%s: ipiv[%lld] = %lld is not in [%lld, %lld)", fn,
                       (long long)i, (long long)ipiv[i], (long long)i, (long long)LU->n);
  if (code == HLA_OK && finite) code = hlu_check_finite(fn, LU, names[0]);
  return hbsp_agree(all, code);
}

/* The interchanges, then the two triangles of c's matrix; transposed (c's matrix holds the
 * factors' transpose: U^T below, L^T above with a unit diagonal), the triangles first and then the
 * interchanges backwards: A^T = U^T L^T P, so x = P^T L^-T U^-T b. */
static int solve_run(hlu_ctx *c, const int64_t *ipiv, hmat B, int trans) {
  c->tmark = hbsp_time();
  int64_t *dst, *src, cnt;
  if (!trans) {
    hlu_perm_pairs(ipiv, 0, c->n, c->n, c->iwork, &dst, &src, &cnt);
    HLA_CALL(hlu_move_rows(c, B, dst, src, cnt, 0, B->nloc));
    hlu_phase(c, HLU_T_SWAP);
  }
  if (B->n <= HLU_FANIN_MAX_NRHS) {
    HLA_CALL(hlu_trsolve_fanin(c, B, trans));
  } else {
    HLA_CALL(hlu_trsolve(c, B, 'L', trans ? 'N' : 'U'));
    HLA_CALL(hlu_trsolve(c, B, 'U', trans ? 'U' : 'N'));
  }
  hlu_phase(c, HLU_T_SOLVE);
  if (trans) { /* P^T: row src[t] gets row dst[t], the composed interchanges undone */
    hlu_perm_pairs(ipiv, 0, c->n, c->n, c->iwork, &dst, &src, &cnt);
    HLA_CALL(hlu_move_rows(c, B, src, dst, cnt, 0, B->nloc));
    hlu_phase(c, HLU_T_SWAP);
  }
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

/* What on_copies runs. */
enum { RUN_SOLVE, RUN_GESV, RUN_SOLVE_T };

/* The solve (trans: transposed) on checked operands in the algorithms' layout. */
static int solve_checked(hmat LU, const int64_t *ipiv, hmat B, const hla_opts *opts, int trans,
                         double t0);

/* hlu_solve, hlu_solve_trans or hla_gesv on copies of A and B in the algorithms' layout (their
 * first block on process (0, 0)), for matrices wrapped with it elsewhere; the results copied back.
 */
static int on_copies(int run, hmat A, int64_t *ipiv, hmat B, const hla_opts *opts, double t0) {
  hmat TA, TB = NULL;
  HLA_CALL(hdist_unshift(A, 1, &TA));
  int code = hdist_unshift(B, 1, &TB);
  if (code == HLA_OK)
    code = run == RUN_GESV ? hla_gesv(TA, ipiv, TB, opts)
                           : solve_checked(TA, ipiv, TB, opts, run == RUN_SOLVE_T, t0);
  int ok = code == HLA_OK || code == HLA_ERR_SINGULAR;
  int e = TB ? hdist_reshift(B, &TB, ok) : HLA_OK;
  int e2 = hdist_reshift(A, &TA, run == RUN_GESV && ok);
  return code != HLA_OK ? code : e != HLA_OK ? e : e2;
}

static int shifted(hmat X) {
  return X->rsrc != 0 || X->csrc != 0;
}

static int solve_checked(hmat LU, const int64_t *ipiv, hmat B, const hla_opts *opts, int trans,
                         double t0) {
  if (shifted(LU) || shifted(B))
    return on_copies(trans ? RUN_SOLVE_T : RUN_SOLVE, LU, (int64_t *)ipiv, B, opts, t0);
  hmat F = LU;
  if (trans) { /* the factors' transpose, on LU's grid and blocks */
    HLA_CALL(hmat_create_typed(LU->g, LU->n, LU->n, LU->nb, LU->nb, LU->elem, &F));
    int e = hdist_transpose(LU, F);
    if (e != HLA_OK) hmat_free(&F);
    HLA_CALL(e);
  }
  hlu_ctx c;
  int code = prepare(&c, F, B, opts, 0);
  if (code == HLA_OK) {
    code = solve_run(&c, ipiv, B, trans);
    int e = hlu_teardown(&c);
    if (code == HLA_OK) code = e;
  }
  if (F != LU) hmat_free(&F);
  HLA_CALL(code);
  hlu_report(&c, opts, hbsp_time() - t0);
  return HLA_OK;
}

/* hlu_solve: see include/hla/ops.h. Collective over HGRID_ALL of LU's grid; cost above. */
int hlu_solve(hmat LU, const int64_t *ipiv, hmat B, const hla_opts *opts) {
  HREAL_DISPATCH(LU ? LU : B, hlu_solve_s(LU, ipiv, B, opts));
  double t0 = hbsp_time();
  HLA_CALL(hlu_check_solve("hlu_solve", LU, ipiv, 1, B, opts, 0, 'N'));
  return solve_checked(LU, ipiv, B, opts, 0, t0);
}

/* hlu_solve_trans: see include/hla/ops.h. Collective over HGRID_ALL of LU's grid; cost above, and
 * for 'T' the transposed copy of the factors (hdist_transpose). */
int hlu_solve_trans(char trans, hmat LU, const int64_t *ipiv, hmat B, const hla_opts *opts) {
  HREAL_DISPATCH(LU ? LU : B, hlu_solve_trans_s(trans, LU, ipiv, B, opts));
  double t0 = hbsp_time();
  HLA_CALL(hlu_check_solve("hlu_solve_trans", LU, ipiv, 1, B, opts, 0, trans));
  return solve_checked(LU, ipiv, B, opts, trans != 'N' && trans != 'n', t0);
}

/* hla_gesv: see include/hla/ops.h. Collective over HGRID_ALL of A's grid; cost of hlu_factor plus
 * hlu_solve (one setup of the levels and workspaces for both). */
int hla_gesv(hmat A, int64_t *ipiv, hmat B, const hla_opts *opts) {
  static const char fn[] = "hla_gesv";
  HREAL_DISPATCH(A ? A : B, hla_gesv_s(A, ipiv, B, opts));
  double t0 = hbsp_time();
  HLA_CALL(hlu_check_solve(fn, A, ipiv, 0, B, opts, 1, 'N'));
  if (shifted(A) || shifted(B)) return on_copies(RUN_GESV, A, ipiv, B, opts, t0);
  hlu_ctx c;
  HLA_CALL(prepare(&c, A, B, opts, 1));
  int code = hlu_factor_run(&c, ipiv);
  /* As LAPACK dgesv: no solution from a singular factorisation (B stays as it was). */
  if (code == HLA_OK && c.info < 0) code = solve_run(&c, ipiv, B, 0);
  int e = hlu_teardown(&c);
  HLA_CALL(code);
  HLA_CALL(e);
  return hlu_finish(&c, fn, opts, t0);
}
