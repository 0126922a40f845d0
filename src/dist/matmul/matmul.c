/* hla — hmatmul: argument checks (agreed over the grid), the choice of algorithm and its
 * parameters, the remapping of operands into the computing layout, and the report.
 *
 * Computing layout and cost of the operands (see matmul_impl.h): C is never moved. op(A) is used
 * where it is when transa = 'N' and A's row block equals C's (mb), op(B) when transb = 'N' and B's
 * column block equals C's (nb); their k-blocks are free. Any other operand — a transposed one, or
 * one with other blocks — is remapped first into that layout with k-blocks of the panel width b:
 * one BSMP superstep on the grid's ALL environment, h <= mloc kloc words (its local size) plus
 * the row and column indices of each message, 2 mloc kloc packing work, and mloc kloc extra words
 * of memory for the copy. A transposed operand costs the same as a re-blocked one: the transpose
 * is done while packing. The report says when this happened (redistributed = 1).
 *
 * Automatic choices. With opts NULL (or every algorithm field zero) and a machine model on the grid
 * (hplan_grid_machine: attached, loaded from the machine file, or probed once, as HLA_PLAN says),
 * the planner chooses the algorithm, b, the HSUMMA groups and outer block and the 3D layers for
 * this grid and layout by its cost model (src/dist/plan/planner.c), and says why in the report,
 * with the predicted time. Otherwise (no model, HLA_PLAN=off, or some fields given) these rules
 * fill the zero fields: algorithm: P = 1 -> SUMMA (a local dgemm); k >= 4 max(m, n) and a
 * replication c >= 2 that divides M or N and fits opts->mem_bound -> 3D (c layers); the grid spans
 * several nodes and the default groups are neither 1 x 1 nor M x N -> HSUMMA; else SUMMA. b: the
 * k-block of the operands used in place (the larger one), else max(mb, nb) of C, widened to a
 * multiple of itself of at least HMM_MIN_PANEL (dgemm needs a wide k to run near its peak); never
 * more than k. HSUMMA:    I = the divisor of M closest to sqrt M, J = likewise for N (G ~ sqrt P
 * groups); opts->groups = G: I x J = G as square as the grid allows; outer block Mo = b. 3D: c =
 * the divisor of M or N closest to P^(1/3) (the layers M/c x N or M x N/c, as square as possible),
 * reduced until the memory bound holds.
 * Before all of these (and before the planner, whose model does not price it): a thin C, n <= C's
 * column block, with op(A) = A in C's row blocks, on a grid of several process columns -> the
 * row-reduce multiply (reduce.c): SUMMA would send all of A to C's one process column and compute
 * there alone.
 *
 * An element file (src/prec.h): float operands run the same code in single precision (hmatmul_s,
 * reached from hmatmul by C's type). The planner's model knows double's rates and 8-byte words,
 * so for float it predicts double's time and sizes the 3D memory bound conservatively.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist/matmul/matmul_impl.h"
#include "dist/plan/plan_impl.h"
#include "kernels/kernels.h"

static int64_t max1(int64_t v) {
  return v > 1 ? v : 1;
}

/* ---------------------------------------------------------------- resolving the options */

/* The concrete multiply this call runs: every automatic choice resolved (resolve). The algorithms
 * get its values (mm_ctx, mm_hsumma's groups, mm3d_args) and never see the options; the report is
 * filled from it. */
typedef struct {
  int alg; /* HLA_MM_SUMMA, HLA_MM_HSUMMA, HLA_MM_3D or HLA_MM_REDUCE */
  int b;
  int64_t Mo;
  int I, J;
  int c, split_rows;
  int a_here, b_here; /* operand used where it is */
  hbsp_coll bcast;    /* the panel broadcasts' algorithm (HBSP_AUTO: MPI_Ibcast, overlapped) */
  double predicted;   /* the model's seconds (0 without a machine model) */
  char why[256];
} mm_plan;

static int trans_ok(char t) {
  return t == 'N' || t == 'n' || t == 'T' || t == 't' || t == 'C' || t == 'c';
}
static char trans_norm(char t) {
  return (t == 'N' || t == 'n') ? 'N' : 'T';
}

/* Is operand X (op t) used where it is: 'N', C's row block (a: A) or column block (B), and its
 * first block on process (0, 0) as C's? */
static int here(char t, hmat X, hmat C, int a) {
  return t == 'N' && (a ? X->mb == C->mb : X->nb == C->nb) && X->rsrc == 0 && X->csrc == 0;
}

/* The divisor of n closest to x (the smaller on a tie). */
static int divisor_near(int n, double x) {
  int best = 1;
  for (int d = 1; d <= n; d++)
    if (n % d == 0 && fabs(d - x) < fabs(best - x)) best = d;
  return best;
}

/* I x J = G with I | M, J | N, as square as possible; 0 if there is none. */
static int groups_of(int G, int M, int N, int *I, int *J) {
  int found = 0;
  for (int i = 1; i <= M; i++) {
    if (M % i || G % i || N % (G / i)) continue;
    int j = G / i;
    if (!found || abs(i - j) < abs(*I - *J)) *I = i, *J = j, found = 1;
  }
  return found;
}

/* Default replication: the divisor of M or N closest to P^(1/3) whose memory fits. */
static int default_c(int64_t m, int64_t n, int64_t k, int M, int N, int mb, int nb, int b,
                     double bound) {
  double target = cbrt((double)M * N);
  int best = 1;
  for (int c = 2; c <= (M > N ? M : N); c++) {
    int split = hp_layer_split(c, M, N);
    if (split < 0) continue;
    if (bound > 0 && hp_mm3d_bytes(m, n, k, M, N, mb, nb, b, c, split) > bound) continue;
    if (fabs(c - target) < fabs(best - target)) best = c;
  }
  return best;
}

/* Choose everything from global arguments: the same on every rank. HLA_ERR_ARG / NOMEM with a
 * message in why. */
static int resolve(hgrid g, char ta, char tb, hmat A, hmat B, hmat C, int64_t k, const hla_opts *o,
                   const hplan_machine *mach, mm_plan *p) {
  static const hla_opts none = HLA_OPTS_INIT;
  int autoplan = mach != NULL && hplan_mm_automatic(o);
  if (o == NULL) o = &none;
  int M = g->M, N = g->N, P = M * N;
  int64_t m = C->m, n = C->n;
  memset(p, 0, sizeof *p);
  p->I = p->J = p->c = 1;
  if (o->mm_alg < HLA_MM_AUTO || o->mm_alg > HLA_MM_REDUCE || o->inner_block < 0 ||
      o->outer_block < 0 || o->groups < 0 || o->groups_row < 0 || o->groups_col < 0 ||
      o->replication < 0 || !(o->mem_bound >= 0) || o->bcast.alg < HBSP_AUTO ||
      o->bcast.alg > HBSP_SCATTER_ALLGATHER || o->bcast.groups < 0) {
    snprintf(p->why, sizeof p->why, "hmatmul: invalid options");
    return HLA_ERR_ARG;
  }
  if (o->bcast.groups > 1 && (M % o->bcast.groups || N % o->bcast.groups)) {
    snprintf(p->why, sizeof p->why,
             "hmatmul: bcast.groups = %d must divide both grid dimensions %d x %d", o->bcast.groups,
             M, N);
    return HLA_ERR_ARG;
  }

  /* Panel width. */
  p->a_here = here(ta, A, C, 1);
  p->b_here = here(tb, B, C, 0);
  int b = o->inner_block;
  if (b == 0) {
    b = hp_mm_default_panel(p->a_here, p->b_here, A->nb, B->mb, C->mb, C->nb);
  }
  int64_t Mo = o->outer_block ? o->outer_block : b;
  if (Mo % b) {
    snprintf(p->why, sizeof p->why, "hmatmul: outer block %lld is not a multiple of b = %d",
             (long long)Mo, b);
    return HLA_ERR_ARG;
  }
  if (b > max1(k)) b = (int)max1(k);            /* one panel: no wider buffers than needed */
  if (Mo > k) Mo = ((max1(k) + b - 1) / b) * b; /* one outer panel */
  p->b = b, p->Mo = Mo;

  /* HSUMMA groups (also needed by the automatic choice). */
  int I = 1, J = 1, have_groups = 1;
  if (o->groups_row || o->groups_col) {
    I = o->groups_row ? o->groups_row : 1, J = o->groups_col ? o->groups_col : 1;
    have_groups = M % I == 0 && N % J == 0;
  } else if (o->groups) {
    have_groups = groups_of(o->groups, M, N, &I, &J);
  } else {
    I = divisor_near(M, sqrt(M)), J = divisor_near(N, sqrt(N));
  }

  int nnodes = g->nnodes;
  int alg = o->mm_alg;
  const char *why = "";
  if (alg == HLA_MM_AUTO) {
    int c0 = default_c(m, n, k, M, N, C->mb, C->nb, b, o->mem_bound);
    if (P == 1)
      alg = HLA_MM_SUMMA, why = "auto: one process, a local " HREAL_P "gemm";
    else if (k >= 4 * (m > n ? m : n) && (o->replication > 1 || c0 > 1))
      alg = HLA_MM_3D, why = "auto: k >= 4 max(m, n), 3D layers cut the k dimension";
    else if (nnodes > 1 && have_groups && !(I == 1 && J == 1) && !(I == M && J == N))
      alg = HLA_MM_HSUMMA, why = "auto: grid spans several nodes, two-level broadcasts";
    else
      alg = HLA_MM_SUMMA, why = "auto: SUMMA (one node, small k or no useful groups)";
  } else {
    why = alg == HLA_MM_SUMMA    ? "SUMMA as asked"
          : alg == HLA_MM_HSUMMA ? "HSUMMA as asked"
          : alg == HLA_MM_3D     ? "3D as asked"
                                 : "row-reduce as asked";
  }
  /* A thin C (in one process column) on several process columns: SUMMA would move all of A to
   * that column and leave the others idle; the row-reduce multiply moves op(B) instead. The
   * planner's model does not price it, so this rule comes first. */
  const int reduce_ok = ta == 'N' && p->a_here;
  if (o->mm_alg == HLA_MM_AUTO && P > 1 && N > 1 && reduce_ok && n <= C->nb) {
    alg = HLA_MM_REDUCE, autoplan = 0;
    why = "auto: C has no more columns than its block, on one process column: A stays, op(B) is "
          "gathered, partial products summed along process rows";
  }
  if (alg == HLA_MM_REDUCE && !reduce_ok) {
    snprintf(p->why, sizeof p->why,
             "hmatmul: the row-reduce multiply needs op(A) = A in C's row blocks (transa 'N', "
             "A's mb = C's mb)");
    return HLA_ERR_ARG;
  }
  p->alg = alg;
  p->bcast = o->bcast;

  if (alg == HLA_MM_HSUMMA) {
    if (!have_groups) {
      snprintf(p->why, sizeof p->why,
               "hmatmul: HSUMMA groups (%d, %d x %d) do not divide the %d x %d grid", o->groups,
               o->groups_row, o->groups_col, M, N);
      return HLA_ERR_ARG;
    }
    p->I = I, p->J = J;
  }
  if (alg == HLA_MM_3D) {
    int c = o->replication;
    if (c == 0) c = default_c(m, n, k, M, N, C->mb, C->nb, b, o->mem_bound);
    int split = hp_layer_split(c, M, N);
    if (split < 0) {
      snprintf(p->why, sizeof p->why,
               "hmatmul: replication c = %d divides neither grid dimension of %d x %d", c, M, N);
      return HLA_ERR_ARG;
    }
    double bytes = hp_mm3d_bytes(m, n, k, M, N, C->mb, C->nb, b, c, split);
    if (c > 1 && o->mem_bound > 0 && bytes > o->mem_bound) {
      snprintf(p->why, sizeof p->why,
               "hmatmul: 3D with c = %d needs %.0f bytes per rank, over mem_bound = %.0f", c, bytes,
               o->mem_bound);
      return HLA_ERR_NOMEM;
    }
    p->c = c, p->split_rows = split;
    if (c > 1) p->a_here = p->b_here = 0; /* the layers have their own layouts */
  }
  snprintf(p->why, sizeof p->why, "%s", why);
  /* The planner fills the template (sizes, grid, layout); without it the model prices the rules'
   * choice. */
  hp_mm tmpl = {.m = m,
                .n = n,
                .k = k,
                .M = M,
                .N = N,
                .mb = C->mb,
                .nb = C->nb,
                .kba = A->nb,
                .kbb = B->mb,
                .a_here = here(ta, A, C, 1),
                .b_here = here(tb, B, C, 0)};
  hp_mm cfg = tmpl;
  cfg.a_here = p->a_here, cfg.b_here = p->b_here, cfg.alg = p->alg, cfg.b = p->b, cfg.Mo = p->Mo;
  cfg.gi = p->I, cfg.gj = p->J, cfg.c = p->c, cfg.split_rows = p->split_rows;
  cfg.bcast_alg = o->bcast.alg;
  hplan_mm_choice pc;
  if (autoplan && hplan_mm_fixed(mach, g->nnodes, &tmpl, o->mem_bound, &pc) == HLA_OK) {
    p->alg = pc.alg, p->b = pc.b, p->Mo = pc.Mo, p->I = pc.gi, p->J = pc.gj;
    p->c = pc.alg == HLA_MM_3D ? pc.c : 1, p->split_rows = pc.split_rows;
    p->a_here = here(ta, A, C, 1), p->b_here = here(tb, B, C, 0);
    if (p->c > 1) p->a_here = p->b_here = 0;
    p->predicted = pc.seconds;
    snprintf(p->why, sizeof p->why, "%s", pc.why);
  } else if (mach != NULL && p->alg != HLA_MM_REDUCE) {
    p->predicted = hplan_mm_predict(mach, g->nnodes, &cfg);
  }
  return HLA_OK;
}

/* ---------------------------------------------------------------- entry point */

/* FNV-1a over bytes, to compare many global arguments in one check. */
static int64_t hash_bytes(int64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t x = (uint64_t)h;
  for (size_t i = 0; i < n; i++) x = (x ^ s[i]) * 0x100000001b3ull;
  return (int64_t)(x >> 1);
}

static int64_t hash_mat(hmat X) {
  if (X == NULL) return -1;
  int64_t v[4] = {X->m, X->n, X->mb, X->nb};
  return hash_bytes(1469598103934665603ll, v, sizeof v);
}

static int64_t hash_opts(const hla_opts *o) {
  if (o == NULL) return -1;
  int64_t h = 1469598103934665603ll;
  int iv[8] = {o->mm_alg,     o->inner_block, o->outer_block, o->groups,
               o->groups_row, o->groups_col,  o->replication, o->bcast.alg};
  h = hash_bytes(h, iv, sizeof iv);
  h = hash_bytes(h, &o->mem_bound, sizeof o->mem_bound);
  int64_t sv[2] = {(int64_t)o->bcast.segment, o->bcast.groups};
  return hash_bytes(h, sv, sizeof sv);
}

/* The checks every rank makes on the same (agreed-equal) data. */
static int check_args(hbsp_env all, char transa, char transb, hmat A, hmat B, hmat C, int64_t *k) {
  if (A->g != C->g || B->g != C->g)
    return HBSP_FAIL_ALL(all, HLA_ERR_DIST, "hmatmul: %s is on another grid than C",
                         A->g != C->g ? "A" : "B");
  if (A == C || B == C)
    return HBSP_FAIL_ALL(all, HLA_ERR_ARG, "hmatmul: C must not be the same matrix as A or B");
  if (!trans_ok(transa) || !trans_ok(transb)) {
    unsigned char t = (unsigned char)(trans_ok(transa) ? transb : transa);
    return HBSP_FAIL_ALL(all, HLA_ERR_ARG, "hmatmul: bad trans%s '%c' (code %d; use 'N' or 'T')",
                         trans_ok(transa) ? "b" : "a", t >= 32 && t < 127 ? t : '?', t);
  }
  char ta = trans_norm(transa), tb = trans_norm(transb);
  int64_t ma = ta == 'N' ? A->m : A->n, ka = ta == 'N' ? A->n : A->m;
  int64_t kb = tb == 'N' ? B->m : B->n, nb = tb == 'N' ? B->n : B->m;
  if (ma != C->m || nb != C->n || ka != kb)
    return HBSP_FAIL_ALL(all, HLA_ERR_DIM,
                         "hmatmul: op(A) is %lld x %lld, op(B) %lld x %lld, C %lld x %lld",
                         (long long)ma, (long long)ka, (long long)kb, (long long)nb,
                         (long long)C->m, (long long)C->n);
  *k = ka;
  return HLA_OK;
}

int hmatmul(char transa, char transb, double alpha, hmat A, hmat B, double beta, hmat C,
            const hla_opts *opts) {
  HREAL_DISPATCH(C ? C : A ? A : B, hmatmul_s(transa, transb, alpha, A, B, beta, C, opts));
  double t0 = hbsp_time();
  /* Global arguments must agree before anything else is looked at (hdist_agree_args). */
  static const char *const names[3] = {"C", "A", "B"};
  const hmat args[3] = {C, A, B};
  int64_t v[7] = {(int64_t)(unsigned char)transa << 8 | (unsigned char)transb,
                  hash_bytes(1, &alpha, sizeof alpha),
                  hash_bytes(2, &beta, sizeof beta),
                  hash_opts(opts),
                  hash_mat(A),
                  hash_mat(B),
                  hash_mat(C)};
  hbsp_env all;
  HLA_CALL(hdist_agree_args("hmatmul", args, names, 3, v, 7, &all));
  HLA_CALL(hdist_check_elem(all, "hmatmul", args, names, 3, HREAL_ELEM));
  hgrid g = C->g;
  int64_t k = 0;
  mm_plan p;
  memset(&p, 0, sizeof p);
  int code = check_args(all, transa, transb, A, B, C, &k);
  char ta = trans_norm(transa), tb = trans_norm(transb);
  /* The machine model: looked for (maybe probed, collectively) only when the planner may choose;
   * otherwise the one already on the grid, if any, for the predicted time. */
  const hplan_machine *mach = g->plan_state == 1 ? g->machine : NULL;
  if (code == HLA_OK && hplan_mm_automatic(opts)) code = hdist_grid_machine(g, &mach);
  if (code == HLA_OK) {
    code = resolve(g, ta, tb, A, B, C, k, opts, mach, &p);
    if (code != HLA_OK) HBSP_FAIL_ALL(all, code, "%s", p.why);
  }
  HLA_CALL(hbsp_agree(all, code));
  if (C->rsrc || C->csrc) { /* wrapped with its first block elsewhere: compute on a copy */
    hmat T;
    HLA_CALL(hdist_unshift(C, beta != 0.0, &T));
    code = hmatmul(transa, transb, alpha, A, B, beta, T, opts);
    int e = hdist_reshift(C, &T, code == HLA_OK);
    if (code == HLA_OK && opts && opts->report) opts->report->redistributed = 1;
    return code != HLA_OK ? code : e;
  }

  int64_t m = C->m, n = C->n;
  int redistributed = 0;
  hla_report *rep = opts ? opts->report : NULL;
  mm_ctx x = {.g = g,
              .all = all,
              .row = g->row,
              .col = g->col,
              .M = g->M,
              .N = g->N,
              .myrow = g->myrow,
              .mycol = g->mycol,
              .m = m,
              .n = n,
              .k = k,
              .c = HDATA(C),
              .ldc = C->lld,
              .mloc = C->mloc,
              .nloc = C->nloc,
              .alpha = alpha,
              .beta = beta,
              .panel = p.b,
              .how = opts ? &p.bcast : NULL};
  if (m == 0 || n == 0) {
    /* nothing to compute */
  } else if (k == 0 || alpha == 0.0) {
    mm_scale(&x); /* C := beta C; A and B are not read (as BLAS) */
  } else if (g->M * g->N == 1) {
    /* One process holds every operand whole, in global order: one dgemm, no panels. */
    HLA_CALL(hkern_dgemm(ta, tb, m, n, k, alpha, HDATA(A), A->lld, HDATA(B), B->lld, beta, HDATA(C),
                         C->lld));
    snprintf(p.why, sizeof p.why, "one process: a single local " HREAL_P "gemm");
  } else if (p.alg == HLA_MM_REDUCE) {
    HLA_CALL(mm_reduce(all, tb, alpha, A, B, beta, C));
    redistributed = 1; /* op(B) gathered */
  } else if (p.alg == HLA_MM_3D && p.c > 1) {
    mm3d_args a3 = {.g = g,
                    .ta = ta,
                    .tb = tb,
                    .A = A,
                    .B = B,
                    .C = C,
                    .alpha = alpha,
                    .beta = beta,
                    .panel = p.b,
                    .c = p.c,
                    .split_rows = p.split_rows,
                    .how = x.how};
    HLA_CALL(mm_3d(&a3));
    redistributed = 1;
  } else {
    /* Operands into the computing layout where needed. */
    mm_target ta_t = {.row = {m, 1, m, C->mb, g->M}, .col = {k, 1, k, p.b, g->N}, .N = g->N};
    mm_target tb_t = {.row = {k, 1, k, p.b, g->M}, .col = {n, 1, n, C->nb, g->N}, .N = g->N};
    ta_t.mloc = C->mloc, ta_t.nloc = hmat_numroc(k, p.b, g->mycol, g->N);
    tb_t.mloc = hmat_numroc(k, p.b, g->myrow, g->M), tb_t.nloc = C->nloc;
    ta_t.ld = max1(ta_t.mloc), tb_t.ld = max1(tb_t.mloc);
    hreal *abuf = NULL, *bbuf = NULL;
    int ok = 1;
    if (!p.a_here) ok = ok && (abuf = ta_t.data = HREAL_TAKE(g, ta_t.mloc * ta_t.nloc)) != NULL;
    if (!p.b_here) ok = ok && (bbuf = tb_t.data = HREAL_TAKE(g, tb_t.mloc * tb_t.nloc)) != NULL;
    code = ok ? HLA_OK : HBSP_FAIL(all, HLA_ERR_NOMEM, "hmatmul: no memory for the operands");
    code = hbsp_agree(all, code);
    if (code == HLA_OK && !p.a_here) code = mm_remap(all, ta, A, &ta_t);
    if (code == HLA_OK && !p.b_here) code = mm_remap(all, tb, B, &tb_t);
    if (p.a_here)
      x.a = HDATA(A), x.lda = A->lld, x.kba = A->nb;
    else
      x.a = abuf, x.lda = ta_t.ld, x.kba = p.b;
    if (p.b_here)
      x.b = HDATA(B), x.ldb = B->lld, x.kbb = B->mb;
    else
      x.b = bbuf, x.ldb = tb_t.ld, x.kbb = p.b;
    if (code == HLA_OK)
      code = p.alg == HLA_MM_HSUMMA ? mm_hsumma(&x, p.I, p.J, p.Mo) : mm_summa(&x);
    hdist_give(g, abuf);
    hdist_give(g, bbuf);
    HLA_CALL(code);
    redistributed = !p.a_here || !p.b_here;
  }

  if (rep != NULL) {
    memset(rep, 0, sizeof *rep);
    rep->mm_alg = p.alg;
    rep->M = g->M, rep->N = g->N;
    rep->mb = C->mb, rep->nb = C->nb;
    rep->inner_block = p.b;
    rep->outer_block = p.alg == HLA_MM_HSUMMA ? (int)p.Mo : 0;
    rep->groups_row = p.I, rep->groups_col = p.J;
    rep->replication = p.c;
    rep->threads = g->threads;
    rep->redistributed = redistributed;
    rep->predicted_seconds = p.predicted;
    rep->seconds = hbsp_time() - t0;
    snprintf(rep->why, sizeof rep->why, "%.200s%s", p.why,
             redistributed ? "; operands remapped to C's layout" : "");
    hdist_why_note(g, rep->why, sizeof rep->why);
  }
  return HLA_OK;
}
