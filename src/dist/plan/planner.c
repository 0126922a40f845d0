/* hla — the planner: enumerate the plans of a multiply or an LU, predict each with the cost model
 * (model.c, model_mm.c, model_lu.c), rank them; and the choices the entries ask for (hgrid_create,
 * hmat_create, hmatmul, hlu_factor) on a fixed grid. Pure: no communication, the same result on
 * every rank.
 *
 * Multiply: for every placement (ranks per node x threads per rank, when the target leaves it
 * free), every grid M x N = P (or the fixed one), every layout block in {64, 128, 256} (or the
 * fixed one), panel widths b0 and 2 b0 (b0: hmatmul's rule, the block widened to >= 256), it
 * predicts SUMMA; HSUMMA for every I | M, J | N other than 1 x 1 and M x N, with outer blocks
 * b, 2b and 4b; 3D/2.5D for every c > 1 dividing M or N whose memory (hp_mm3d_bytes) fits the bound
 * (opts->mem_bound, or 40 % of the node's memory share of a rank).
 * LU: every grid, block sizes 32 ... 384 (at most n), flat, and hierarchical when the grid's rows
 * or columns span nodes, each with look-ahead on and off.
 * Ranking: by predicted time; plans within 0.5 % of each other (the model's resolution) by the
 * memory they allocate, the smaller first. All of it is pure arithmetic on the machine model: the
 * same on every rank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist/plan/plan_impl.h"

/* ---------------------------------------------------------------- ranking */

/* a goes before b: faster by more than the model's resolution (0.5 %), or as fast and with less
 * memory (smaller panels and blocks: on shared or oversubscribed cores they wait less), or as
 * fast, as large and with a quarter less communication or more: where the model has it hidden
 * behind the computation, what it cannot see (broadcasts drifting into each other) has less to
 * uncover (bench/results/sim/plan_check_free_picks.txt: the same groups in blocks of 256 and of
 * 64, 2.39 and 0.90 s of communication, tie at 2.601 s and simulate at 2.95 and 2.58 s). */
static int before(const hplan_cand *a, const hplan_cand *b) {
  double tol = 0.005 * (a->seconds < b->seconds ? a->seconds : b->seconds);
  if (a->seconds < b->seconds - tol) return 1;
  if (a->seconds > b->seconds + tol) return 0;
  if (a->bytes != b->bytes) return a->bytes < b->bytes;
  if (a->comm < 0.75 * b->comm || b->comm < 0.75 * a->comm) return a->comm < b->comm;
  return a->seconds < b->seconds;
}

static void keep(hplan_ranking *r, const hplan_cand *c) {
  r->nconsidered++;
  if (!isfinite(c->seconds)) return; /* never ranked: a prediction past the model's range */
  int n = r->ncand, at = n;
  while (at > 0 && before(c, &r->cand[at - 1])) at--;
  if (at >= HPLAN_MAX_CAND) return;
  if (n == HPLAN_MAX_CAND) n--; /* the last falls off */
  memmove(&r->cand[at + 1], &r->cand[at], (size_t)(n - at) * sizeof *c);
  r->cand[at] = *c;
  r->ncand = n + 1;
}

/* A memo for x's placement where its model routes (a network known); NULL elsewhere, or without
 * the memory for it (the model then routes every step anew). The caller frees it. */
static hp_memo *memo_new(const hp_ctx *x) {
  return x->net.nd > 0 ? calloc(1, sizeof(hp_memo)) : NULL;
}

static int alg_ok(const hplan_target *t, int alg) {
  return t->algs == 0 || (t->algs & (1 << alg));
}

/* Placements to try: (P, nodes, rpn, threads). Returns their number (at most 16). */
static int placements(const hplan_machine *m, const hplan_target *t, int pl[16][4]) {
  int cores = m->cores_per_node > 0 ? m->cores_per_node : 1, n = 0;
  if (t->P == 0 && t->ranks_per_node == 0 && t->nodes > 0) {
    for (int r = 1; r <= cores && n < 16; r++)
      if (cores % r == 0) {
        pl[n][0] = t->nodes * r, pl[n][1] = t->nodes, pl[n][2] = r;
        pl[n][3] = t->threads > 0 ? t->threads : cores / r;
        n++;
      }
    return n;
  }
  int P = t->P > 0 ? t->P
                   : (t->nodes > 0 && t->ranks_per_node > 0 ? t->nodes * t->ranks_per_node : m->P);
  pl[0][0] = P, pl[0][1] = t->nodes, pl[0][2] = t->ranks_per_node, pl[0][3] = t->threads;
  return 1;
}

static void cand_base(hplan_cand *c, const hp_ctx *x, int op) {
  memset(c, 0, sizeof *c);
  c->op = op;
  c->P = x->P, c->nodes = x->nodes, c->ranks_per_node = x->rpn, c->threads = x->threads;
}

/* ---------------------------------------------------------------- multiply */

static int64_t imax(int64_t a, int64_t b) {
  return a > b ? a : b;
}

static double mem_bound_of(const hp_ctx *x, double given) {
  if (given > 0) return given;
  const hplan_machine *m = x->m;
  if (m->mem_per_node > 0) return 0.4 * m->mem_per_node / (x->rpn > 0 ? x->rpn : 1);
  return 0; /* unknown: no bound */
}

static void mm_eval(const hp_ctx *x, hp_mm *c, hplan_cand *out) {
  cand_base(out, x, HPLAN_OP_MATMUL);
  out->M = c->M, out->N = c->N, out->mb = c->mb, out->nb = c->nb;
  out->alg = c->alg, out->b = c->b, out->Mo = (int)c->Mo;
  out->gi = c->alg == HLA_MM_HSUMMA ? c->gi : 1, out->gj = c->alg == HLA_MM_HSUMMA ? c->gj : 1;
  out->c = c->alg == HLA_MM_3D ? c->c : 1;
  out->bcast_alg = c->bcast_alg;
  out->seconds = hp_mm_time(x, c, &out->compute, &out->comm, &out->exposed);
  int64_t mloc = hcyc_numroc(c->m, c->mb, 0, c->M), nloc = hcyc_numroc(c->n, c->nb, 0, c->N);
  if (c->alg == HLA_MM_3D)
    out->bytes =
        hp_mm3d_bytes(c->m, c->n, c->k, c->M, c->N, c->mb, c->nb, c->b, c->c, c->split_rows);
  else
    out->bytes = 16.0 * (double)(mloc + nloc) * (double)(c->alg == HLA_MM_HSUMMA ? c->Mo : c->b);
  if (c->M * c->N == 1)
    snprintf(out->why, sizeof out->why, "one rank: a local dgemm (%d threads)", x->threads);
  else if (c->alg == HLA_MM_SUMMA)
    snprintf(out->why, sizeof out->why, "SUMMA %dx%d blocks %d b=%d", c->M, c->N, c->mb, c->b);
  else if (c->alg == HLA_MM_HSUMMA)
    snprintf(out->why, sizeof out->why, "HSUMMA %dx%d groups %dx%d Mo=%lld b=%d blocks %d", c->M,
             c->N, c->gi, c->gj, (long long)c->Mo, c->b, c->mb);
  else
    snprintf(out->why, sizeof out->why, "3D %dx%d c=%d (%s) b=%d blocks %d", c->M, c->N, c->c,
             c->split_rows ? "rows" : "cols", c->b, c->mb);
}

/* Every algorithm on one grid and layout (template c: sizes, grid, blocks, here-flags). */
static void mm_grid(const hp_ctx *x, const hplan_target *t, hp_mm c, double bound,
                    hplan_ranking *r) {
  int b0 = hp_mm_default_panel(c.a_here, c.b_here, c.kba, c.kbb, c.mb, c.nb);
  int64_t kk = imax(c.k, 1);
  int bs[2] = {b0, 2 * b0}, nbs = 2;
  if (b0 >= kk)
    bs[0] = (int)kk, nbs = 1;
  else if (2 * b0 > kk)
    nbs = 1;
  c.bcast_alg = t->bcast;
  hplan_cand out;
  if (c.M * c.N == 1) {
    c.alg = HLA_MM_SUMMA, c.b = bs[0], c.Mo = bs[0];
    if (alg_ok(t, HLA_MM_SUMMA) || t->algs == 0) mm_eval(x, &c, &out), keep(r, &out);
    return;
  }
  for (int ib = 0; ib < nbs; ib++) {
    c.b = bs[ib], c.Mo = c.b, c.gi = c.gj = 1, c.c = 1;
    if (alg_ok(t, HLA_MM_SUMMA)) {
      c.alg = HLA_MM_SUMMA;
      mm_eval(x, &c, &out);
      keep(r, &out);
    }
    if (alg_ok(t, HLA_MM_HSUMMA))
      for (int gi = 1; gi <= c.M; gi++)
        for (int gj = 1; gj <= c.N; gj++) {
          if (c.M % gi || c.N % gj || (gi == 1 && gj == 1) || (gi == c.M && gj == c.N)) continue;
          if (t->groups[0] > 0 && (gi != t->groups[0] || gj != t->groups[1])) continue;
          for (int f = 1; f <= 4; f *= 2) {
            if (f > 1 && (int64_t)c.b * f > kk) break;
            c.alg = HLA_MM_HSUMMA, c.gi = gi, c.gj = gj, c.Mo = (int64_t)c.b * f;
            mm_eval(x, &c, &out);
            keep(r, &out);
          }
        }
    c.gi = c.gj = 1, c.Mo = c.b;
    if (alg_ok(t, HLA_MM_3D) && ib == 0)
      for (int cc = 2; cc <= (c.M > c.N ? c.M : c.N); cc++) {
        int split = hp_layer_split(cc, c.M, c.N);
        if (split < 0) continue;
        double bytes = hp_mm3d_bytes(c.m, c.n, c.k, c.M, c.N, c.mb, c.nb, c.b, cc, split);
        if (bound > 0 && bytes > bound) continue;
        c.alg = HLA_MM_3D, c.c = cc, c.split_rows = split;
        mm_eval(x, &c, &out);
        keep(r, &out);
      }
    c.c = 1;
  }
}

/* The target asked for (NULL: everything automatic, *t then points at the zeroed *buf), checked:
 * a grid is given whole or not at all, block sizes are not negative. */
static int check_target(const hplan_target *tin, hplan_target *buf, const hplan_target **t) {
  memset(buf, 0, sizeof *buf);
  *t = tin ? tin : buf;
  const hplan_target *x = *t;
  const int gi = x->groups[0], gj = x->groups[1];
  return (x->M > 0) != (x->N > 0) || x->mb < 0 || x->nb < 0 || gi < 0 || gj < 0 ||
                 x->leaf_nodes < 0 || (gi > 0) != (gj > 0) ||
                 (gi > 0 && x->M > 0 && (x->M % gi || x->N % gj))
             ? HLA_ERR_ARG
             : HLA_OK;
}

int hplan_matmul_rank(const hplan_machine *mach, int64_t m, int64_t n, int64_t k,
                      const hplan_target *tin, hplan_ranking *r) {
  hplan_target t0;
  const hplan_target *t;
  if (mach == NULL || r == NULL || m < 0 || n < 0 || k < 0 || check_target(tin, &t0, &t) ||
      hplan_check(mach, NULL, 0) != HLA_OK)
    return HLA_ERR_ARG;
  memset(r, 0, sizeof *r);
  int pl[16][4], npl = placements(mach, t, pl);
  for (int ip = 0; ip < npl; ip++) {
    hp_ctx x;
    hp_ctx_make(&x, mach, pl[ip][0], pl[ip][1], pl[ip][2], pl[ip][3]);
    hp_ctx_torus(&x, mach, t->torus, t->leaf_nodes);
    x.memo = memo_new(&x);
    int P = x.P;
    double bound = mem_bound_of(&x, t->mem_bound);
    for (int M = 1; M <= P; M++) {
      if (P % M) continue;
      int N = P / M;
      if (t->M > 0 && (t->M != M || t->N != N)) continue;
      int blocks[3] = {64, 128, 256}, nblk = 3;
      if (t->mb > 0 || t->nb > 0) blocks[0] = t->mb > 0 ? t->mb : t->nb, nblk = 1;
      if (M * N == 1) nblk = 1;
      for (int ib = 0; ib < nblk; ib++) {
        int blk = blocks[ib];
        int64_t big = imax(imax(m, n), 1);
        if (blk > big && ib > 0) break;
        if (blk > big) blk = (int)big;
        hp_mm c;
        memset(&c, 0, sizeof c);
        c.m = m, c.n = n, c.k = k, c.M = M, c.N = N;
        c.mb = t->mb > 0 ? t->mb : blk, c.nb = t->nb > 0 ? t->nb : blk;
        if (t->a_block_m > 0) { /* fixed operands */
          int ta = t->transa == 'T' || t->transa == 't', tb = t->transb == 'T' || t->transb == 't';
          c.a_here = !ta && t->a_block_m == c.mb;
          c.b_here = !tb && t->b_block_n == c.nb;
          c.kba = t->a_block_n, c.kbb = t->b_block_m;
        } else {
          c.a_here = c.b_here = 1, c.kba = c.nb, c.kbb = c.mb;
        }
        mm_grid(&x, t, c, bound, r);
      }
    }
    free(x.memo);
  }
  return r->ncand > 0 ? HLA_OK : HLA_ERR_DIM;
}

/* ---------------------------------------------------------------- LU */

static void lu_eval(const hp_ctx *x, const hp_lu *c, hplan_cand *out) {
  cand_base(out, x, HPLAN_OP_LU);
  out->M = c->M, out->N = c->N, out->mb = out->nb = c->nb;
  out->alg = c->alg, out->lookahead = c->lookahead > 0 ? 1 : -1;
  out->bcast_alg = c->bcast_alg;
  out->seconds = hp_lu_time(x, c, &out->compute, &out->comm, &out->exposed);
  out->bytes = 8.0 * 3 *
               (double)(hcyc_numroc(c->n, c->nb, 0, c->M) + hcyc_numroc(c->n, c->nb, 0, c->N)) *
               c->nb;
  snprintf(out->why, sizeof out->why, "LU %s %dx%d nb=%d look-ahead %s%s",
           c->alg == HLA_LU_HIER ? "hierarchical" : "flat", c->M, c->N, c->nb,
           c->lookahead > 0 ? "on" : "off", c->nrhs > 0 ? " + solve" : "");
}

/* Does a grid row or column span nodes with two ranks on one node (two levels differ)? */
static int hier_differs(const hp_ctx *x, int M, int N) {
  hp_env row = hp_env_of(x, 0, 1, N), col = hp_env_of(x, 0, N, M);
  return (row.spans > 1 && row.per_node > 1 && row.spans < row.p) ||
         (col.spans > 1 && col.per_node > 1 && col.spans < col.p);
}

int hplan_lu_rank(const hplan_machine *mach, int64_t n, const hplan_target *tin, hplan_ranking *r) {
  hplan_target t0;
  const hplan_target *t;
  if (mach == NULL || r == NULL || n < 0 || check_target(tin, &t0, &t) ||
      hplan_check(mach, NULL, 0) != HLA_OK)
    return HLA_ERR_ARG;
  memset(r, 0, sizeof *r);
  int pl[16][4], npl = placements(mach, t, pl);
  static const int nbs[] = {32, 48, 64, 96, 128, 160, 192, 256, 320, 384};
  for (int ip = 0; ip < npl; ip++) {
    hp_ctx x;
    hp_ctx_make(&x, mach, pl[ip][0], pl[ip][1], pl[ip][2], pl[ip][3]);
    hp_ctx_torus(&x, mach, t->torus, t->leaf_nodes);
    x.memo = memo_new(&x);
    int P = x.P;
    for (int M = 1; M <= P; M++) {
      if (P % M) continue;
      int N = P / M;
      if (t->M > 0 && (t->M != M || t->N != N)) continue;
      int fixed = t->nb > 0 ? t->nb : t->mb;
      int nnb = fixed > 0 ? 1 : (int)(sizeof nbs / sizeof nbs[0]);
      for (int ib = 0; ib < nnb; ib++) {
        int nb = fixed > 0 ? fixed : nbs[ib];
        if (fixed <= 0 && nb > n && ib > 0) break;
        if (nb > n) nb = (int)(n > 0 ? n : 1);
        for (int a = HLA_LU_FLAT; a <= HLA_LU_HIER; a++) {
          if (!alg_ok(t, a)) continue;
          if (a == HLA_LU_HIER && !hier_differs(&x, M, N)) continue;
          for (int la = 1; la >= 0; la--) {
            hp_lu c = {n, M, N, nb, a, la, t->bcast, t->nrhs};
            hplan_cand out;
            lu_eval(&x, &c, &out);
            keep(r, &out);
          }
        }
      }
    }
    free(x.memo);
  }
  return r->ncand > 0 ? HLA_OK : HLA_ERR_DIM;
}

/* ---------------------------------------------------------------- the contract (DESIGN §2.4) */

static void fill_report(hla_report *rep, const hplan_cand *c) {
  if (rep == NULL) return;
  memset(rep, 0, sizeof *rep);
  rep->mm_alg = c->op == HPLAN_OP_MATMUL ? c->alg : 0;
  rep->lu_alg = c->op == HPLAN_OP_LU ? c->alg : 0;
  rep->M = c->M, rep->N = c->N, rep->mb = c->mb, rep->nb = c->nb;
  rep->inner_block = c->op == HPLAN_OP_MATMUL ? c->b : 0;
  rep->outer_block = c->op == HPLAN_OP_MATMUL && c->alg == HLA_MM_HSUMMA ? c->Mo : 0;
  rep->groups_row = c->gi, rep->groups_col = c->gj;
  rep->replication = c->c;
  rep->lookahead = c->op == HPLAN_OP_LU ? c->lookahead : 0;
  rep->threads = c->threads;
  rep->predicted_seconds = c->seconds;
  snprintf(rep->why, sizeof rep->why, "planner: %s, predicted %.3g s (compute %.3g, comm %.3g)",
           c->why, c->seconds, c->compute, c->comm);
}

/* The best candidate of a ranking as options: out is cleared except its out-pointers (report,
 * info_out), then the choice is written; the report is filled too. */
static void apply_best(const hplan_cand *c, int lu, hla_opts *out, double *predicted_seconds) {
  hla_report *rep = out->report;
  int64_t *info = out->info_out;
  memset(out, 0, sizeof *out);
  out->report = rep, out->info_out = info;
  if (lu) {
    out->lu_alg = c->alg;
    out->lookahead = c->lookahead;
  } else {
    int hs = c->alg == HLA_MM_HSUMMA;
    out->mm_alg = c->alg;
    out->inner_block = c->b;
    out->outer_block = hs ? c->Mo : 0;
    out->groups_row = hs ? c->gi : 0;
    out->groups_col = hs ? c->gj : 0;
    out->replication = c->alg == HLA_MM_3D ? c->c : 0;
    out->bcast.alg = (hbsp_alg)c->bcast_alg;
  }
  fill_report(rep, c);
  if (predicted_seconds) *predicted_seconds = c->seconds;
}

/* Rank for P ranks (lu: an LU of order n; else a multiply m x n x k) and apply the best. */
static int plan_best(const hplan_machine *mach, int lu, int64_t m, int64_t n, int64_t k, int P,
                     hla_opts *out, double *predicted_seconds) {
  if (mach == NULL || out == NULL || P < 0) return HLA_ERR_ARG;
  hplan_target t;
  memset(&t, 0, sizeof t);
  t.P = P;
  hplan_ranking *r = malloc(sizeof *r);
  if (r == NULL) return HLA_ERR_NOMEM;
  int code = lu ? hplan_lu_rank(mach, n, &t, r) : hplan_matmul_rank(mach, m, n, k, &t, r);
  if (code == HLA_OK) apply_best(&r->cand[0], lu, out, predicted_seconds);
  free(r);
  return code;
}

int hplan_matmul(const hplan_machine *mach, int64_t m, int64_t n, int64_t k, int P, hla_opts *out,
                 double *predicted_seconds) {
  return plan_best(mach, 0, m, n, k, P, out, predicted_seconds);
}

int hplan_lu(const hplan_machine *mach, int64_t n, int P, hla_opts *out,
             double *predicted_seconds) {
  return plan_best(mach, 1, n, n, n, P, out, predicted_seconds);
}

void hplan_print(const hplan_ranking *r, int max, void *file) {
  FILE *f = file ? (FILE *)file : stdout;
  if (r == NULL) return;
  int n = max > 0 && max < r->ncand ? max : r->ncand;
  fprintf(f, "%4s %10s %10s %10s %10s  %-5s %-7s %s\n", "rank", "seconds", "compute", "comm",
          "exposed", "grid", "ranks", "plan");
  for (int i = 0; i < n; i++) {
    const hplan_cand *c = &r->cand[i];
    char grid[32], pl[32];
    snprintf(grid, sizeof grid, "%dx%d", c->M, c->N);
    snprintf(pl, sizeof pl, "%dx%dt", c->ranks_per_node, c->threads);
    fprintf(f, "%4d %10.4g %10.4g %10.4g %10.4g  %-5s %-7s %s\n", i + 1, c->seconds, c->compute,
            c->comm, c->exposed, grid, pl, c->why);
  }
  fprintf(f, "(%d of %d candidates shown)\n", n, r->nconsidered);
}

/* ---------------------------------------------------------------- runtime hooks */

int hplan_mm_automatic(const hla_opts *o) {
  return o == NULL ||
         (o->mm_alg == HLA_MM_AUTO && o->inner_block == 0 && o->outer_block == 0 &&
          o->groups == 0 && o->groups_row == 0 && o->groups_col == 0 && o->replication == 0 &&
          o->bcast.alg == HBSP_AUTO && o->bcast.groups == 0 && o->bcast.segment == 0);
}

int hplan_lu_automatic(const hla_opts *o) {
  return o == NULL ||
         (o->lu_alg == HLA_LU_AUTO && o->lookahead == 0 && o->panel == HLA_PANEL_AUTO &&
          o->groups == 0 && o->groups_row == 0 && o->groups_col == 0 && o->bcast.alg == HBSP_AUTO &&
          o->bcast.groups == 0 && o->bcast.segment == 0);
}

/* The placement of an M x N grid spanning `nodes` nodes (ranks_per_node consecutive ranks each). */
static void grid_ctx(hp_ctx *x, const hplan_machine *m, int M, int N, int nodes) {
  int P = M * N;
  if (nodes < 1) nodes = 1;
  hp_ctx_make(x, m, P, nodes, (P + nodes - 1) / nodes, 0);
}

int hplan_mm_fixed(const hplan_machine *m, int nodes, const hp_mm *c, double mem_bound,
                   hplan_mm_choice *out) {
  hp_ctx x;
  grid_ctx(&x, m, c->M, c->N, nodes);
  hplan_target t;
  memset(&t, 0, sizeof t);
  hplan_ranking *r = calloc(1, sizeof *r);
  if (r == NULL) return HLA_ERR_NOMEM;
  x.memo = memo_new(&x);
  mm_grid(&x, &t, *c, mem_bound_of(&x, mem_bound), r);
  free(x.memo);
  int code = r->ncand > 0 ? HLA_OK : HLA_ERR_DIM;
  if (code == HLA_OK) {
    const hplan_cand *b = &r->cand[0];
    memset(out, 0, sizeof *out);
    out->alg = b->alg, out->b = b->b, out->Mo = b->Mo > 0 ? b->Mo : b->b;
    out->gi = b->gi, out->gj = b->gj, out->c = b->c;
    out->split_rows = b->alg == HLA_MM_3D ? hp_layer_split(b->c, c->M, c->N) : 0;
    out->seconds = b->seconds;
    double second = r->ncand > 1 ? r->cand[1].seconds : b->seconds;
    snprintf(out->why, sizeof out->why,
             "planner: %s, predicted %.3g s (compute %.3g, comm %.3g; next best %.3g s of %d)",
             b->why, b->seconds, b->compute, b->comm, second, r->nconsidered);
  }
  free(r);
  return code;
}

double hplan_mm_predict(const hplan_machine *m, int nodes, const hp_mm *c) {
  hp_ctx x;
  grid_ctx(&x, m, c->M, c->N, nodes);
  return hp_mm_time(&x, c, NULL, NULL, NULL);
}

int hplan_lu_fixed(const hplan_machine *m, int nodes, int64_t n, int M, int N, int nb,
                   hplan_lu_choice *out) {
  hp_ctx x;
  grid_ctx(&x, m, M, N, nodes);
  double best = HUGE_VAL, second = HUGE_VAL;
  int considered = 0;
  memset(out, 0, sizeof *out);
  x.memo = memo_new(&x);
  for (int a = HLA_LU_FLAT; a <= HLA_LU_HIER; a++) {
    if (a == HLA_LU_HIER && !hier_differs(&x, M, N)) continue;
    for (int la = 1; la >= 0; la--) {
      hp_lu c = {n, M, N, nb, a, la, HBSP_AUTO, 0};
      double t = hp_lu_time(&x, &c, NULL, NULL, NULL);
      considered++;
      if (t < best) {
        second = best, best = t;
        out->alg = a, out->lookahead = la;
      } else if (t < second) {
        second = t;
      }
    }
  }
  free(x.memo);
  out->seconds = best;
  snprintf(out->why, sizeof out->why,
           "planner: %s, look-ahead %s, predicted %.3g s (next best %.3g s of %d)",
           out->alg == HLA_LU_HIER ? "hierarchical (groups = nodes)" : "flat",
           out->lookahead ? "on" : "off", best, considered > 1 ? second : best, considered);
  return HLA_OK;
}

double hplan_lu_predict(const hplan_machine *m, int nodes, const hp_lu *c) {
  hp_ctx x;
  grid_ctx(&x, m, c->M, c->N, nodes);
  x.memo = memo_new(&x); /* the block steps route the same steps again */
  double t = hp_lu_time(&x, c, NULL, NULL, NULL);
  free(x.memo);
  return t;
}

double hplan_solve_predict(const hplan_machine *m, int nodes, int64_t n, int M, int N, int nb,
                           int64_t nrhs) {
  if (m == NULL || nrhs <= 0) return 0.0;
  hp_ctx x;
  grid_ctx(&x, m, M, N, nodes);
  return hp_solve_time(&x, n, M, N, nb, nrhs > INT32_MAX ? INT32_MAX : (int)nrhs);
}

/* The best LU of order n on P ranks over `nodes` nodes, on the M x N grid if M > 0. */
static int best_lu(const hplan_machine *m, int P, int nodes, int M, int N, int64_t n,
                   hplan_cand *best) {
  hplan_target t;
  memset(&t, 0, sizeof t);
  t.P = P, t.nodes = nodes, t.M = M, t.N = N;
  hplan_ranking *r = malloc(sizeof *r);
  int code = r ? hplan_lu_rank(m, n, &t, r) : HLA_ERR_NOMEM;
  if (code == HLA_OK) *best = r->cand[0];
  free(r);
  return code;
}

int hplan_shape(const hplan_machine *m, int P, int nodes, int64_t n, int *M, int *N) {
  hplan_cand c;
  int code = best_lu(m, P, nodes, 0, 0, n, &c);
  *M = code == HLA_OK ? c.M : 0, *N = code == HLA_OK ? c.N : 0;
  return code;
}

int hplan_block(const hplan_machine *m, int M, int N, int nodes, int64_t big, int *b) {
  hplan_cand c;
  if (big < 1) big = 1;
  int code = best_lu(m, M * N, nodes, M, N, big, &c);
  *b = code == HLA_OK ? c.nb : 0;
  if (*b > big) *b = (int)big;
  return code;
}
