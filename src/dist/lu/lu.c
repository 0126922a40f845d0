/* hla — hlu_factor, the LU's entry: argument checks, the variant's choice, setup of the levels and
 * workspaces, the report. The driver is factor.c; hlu_solve and hla_gesv are solve.c.
 *
 * Automatic choices (opts NULL, or zero fields), each reported in opts->report->why. With every
 * field automatic and a machine model on the grid (hplan_grid_machine: attached, the machine file,
 * or one probe, as HLA_PLAN says), the planner picks lu_alg (flat, or two levels by node) and the
 * look-ahead by its cost model (src/dist/plan/planner.c) and the report has its predicted time;
 * otherwise these rules: lu_alg     HLA_LU_HIER with the given groups when
 * opts->groups_row/groups_col (or groups = G, cut as the most square I x J, I groups of process
 * rows in each process column, J of process columns in each row) ask for groups; else HLA_LU_HIER
 * on nodes when the grid spans several nodes and some process row or column spans several nodes
 * with two or more of its ranks on one node (only then do two levels differ from one); else
 * HLA_LU_FLAT. A planner with the machine model will refine this. lookahead  depth 1 (deeper
 * requests run depth 1); -1 turns it off. panel      HLA_PANEL_RECURSIVE (M = 1: the node kernel's
 * recursive LU; M > 1: distributed recursive); HLA_PANEL_COLUMNS runs the distributed
 * column-by-column panel. swap       HLA_SWAP_ROWS (HLA_SWAP_SPREAD may be requested, on any
 * process column). bcast      opts->bcast for every broadcast (Hasanov groups
 * are used only where they divide the environment); HBSP_AUTO: with look-ahead on a flat process
 * row of more than HLU_BOARD_MIN ranks that lies on one node the L panels are posted on the row's
 * board; else they leave early by messages, from the root to each on rows of up to
 *              HLU_EARLY_MAX ranks (also with HBSP_NATIVE), round a ring on longer rows; the L
 *              panels that do not leave early and the U row blocks go by the BSP layer's
 *              pipelined broadcast on more than two ranks (hlu_big_how; shorter than
 *              HLU_CHAIN_MIN bytes, its binomial tree), the rest by the BSP layer's choice.
 * Errors: arguments and non-finite entries are checked and agreed before A changes, and so is every
 * allocation of the call's own (hlu_setup, hlu_workspace): the loops allocate nothing of theirs.
 * What they may still allocate is the message queues of the grid's row and column environments,
 * which grow on the first factorisation (or solve) of a size on the grid and are kept: a failure
 * there, or an MPI error, is returned on that rank only (its peers are left waiting in a subset
 * superstep), and the factorisation cannot be resumed, as in ScaLAPACK.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist/lu/lu_impl.h"
#include "dist/plan/plan_impl.h"
#include "kernels/kernels.h"

/* ---------------------------------------------------------------- options and setup */

int hlu_opts_check(hbsp_env env, const char *fn, const hla_opts *o, int64_t *v) {
  hla_opts z = HLA_OPTS_INIT;
  if (o == NULL) o = &z;
  int64_t w[HLU_NOPTS] = {o->lu_alg, o->lookahead,  o->panel,      o->bcast.alg, o->bcast.groups,
                          o->groups, o->groups_row, o->groups_col, o->swap};
  memcpy(v, w, sizeof w);
  if (o->lu_alg < HLA_LU_AUTO || o->lu_alg > HLA_LU_HIER)
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: unknown lu_alg %d", fn, o->lu_alg);
  if (o->lookahead < -1)
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: lookahead %d (use -1 for none, 0 automatic)", fn,
                     o->lookahead);
  if (o->panel < HLA_PANEL_AUTO || o->panel > HLA_PANEL_COLUMNS)
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: unknown panel algorithm %d", fn, o->panel);
  if (o->swap < HLA_SWAP_AUTO || o->swap > HLA_SWAP_SPREAD)
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: unknown swap variant %d", fn, o->swap);
  if ((unsigned)o->bcast.alg > (unsigned)HBSP_SCATTER_ALLGATHER)
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: unknown broadcast algorithm %d", fn, (int)o->bcast.alg);
  if (o->bcast.groups < 0 || o->groups < 0 || o->groups_row < 0 || o->groups_col < 0)
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: negative group count", fn);
  return HLA_OK;
}

/* Groups of a process column (I) and row (J) asked for explicitly; 0 x 0 if none. */
static void explicit_groups(const hla_opts *o, int M, int N, int *I, int *J) {
  *I = *J = 0;
  if (o == NULL) return;
  if (o->groups_row > 0 || o->groups_col > 0) {
    *I = o->groups_row > 0 ? o->groups_row : 1;
    *J = o->groups_col > 0 ? o->groups_col : 1;
  } else if (o->groups > 1) { /* the most square I x J = G with I <= J */
    int G = o->groups, i = 1;
    for (int d = 1; d * d <= G; d++)
      if (G % d == 0) i = d;
    *I = i, *J = G / i;
  } else {
    return;
  }
  if (*I > M) *I = M;
  if (*J > N) *J = N;
}

/* Groups a set of keys forms (keys of one row or column); 1 when trivial. */
static int count_groups(const int64_t *key, int n, int stride) {
  int ng = 0;
  for (int i = 0; i < n; i++) {
    int seen = 0;
    for (int q = 0; q < i && !seen; q++) seen = key[q * stride] == key[i * stride];
    ng += !seen;
  }
  return ng <= 1 || ng >= n ? 1 : ng;
}

/* The node of every rank of ALL, as the ALL rank of its node's first rank. Collective over ALL. */
static int node_keys(hlu_ctx *c, int64_t **keys) {
  hgrid g = c->g;
  int P = c->M * c->N, code = HLA_OK;
  int64_t mine = hbsp_rank(g->all);
  int64_t *k = malloc((size_t)P * sizeof *k);
  if (k == NULL) code = HBSP_FAIL(g->all, HLA_ERR_NOMEM, "LU: out of memory for %d node keys", P);
  HLA_CALL(hbsp_agree(g->all, code));
  code = hbsp_coll_bcast(g->node, &mine, sizeof mine, 0, NULL);
  if (code == HLA_OK) code = hbsp_coll_allgather(g->all, &mine, k, sizeof mine, NULL);
  if (code != HLA_OK) {
    free(k);
    return code;
  }
  *keys = k;
  return HLA_OK;
}

int hlu_setup(hlu_ctx *c, hmat A, const hla_opts *opts) {
  memset(c, 0, sizeof *c);
  hgrid g = A->g;
  c->A = A, c->g = g, c->n = A->n, c->nb = A->nb;
  c->M = g->M, c->N = g->N, c->myrow = g->myrow, c->mycol = g->mycol;
  c->mloc = A->mloc, c->nloc = A->nloc, c->lld = A->lld, c->a = HDATA(A);
  c->all = g->all;
  c->rowlv = (hlu_level){g->row, NULL, NULL, NULL, NULL, 1};
  c->collv = (hlu_level){g->col, NULL, NULL, NULL, NULL, 1};
  c->info = -1;
  c->plan.lookahead = opts && opts->lookahead < 0 ? 0 : 1;
  c->plan.panel = opts && opts->panel ? opts->panel : HLA_PANEL_RECURSIVE;
  if (opts && (opts->bcast.alg != HBSP_AUTO || opts->bcast.groups || opts->bcast.segment))
    c->how = opts->bcast, c->howp = &c->how;
  c->pipe = (hbsp_coll){.alg = HBSP_PIPELINE};
  c->tree = (hbsp_coll){.alg = HBSP_BINOMIAL};
  c->plan.groups_row = c->plan.groups_col = 1;
  const char *la = !opts || opts->lookahead == 0 ? "look-ahead 1 (default)"
                   : opts->lookahead < 0         ? "look-ahead off (requested)"
                   : opts->lookahead == 1        ? "look-ahead 1 (requested)"
                                          : "look-ahead 1 (deeper requested; 1 is implemented)";
  const char *pa = c->plan.panel == HLA_PANEL_COLUMNS ? "column-by-column panel (requested)"
                   : g->M == 1 ? "recursive node-local panel (one process row)"
                               : "distributed recursive panel";

  /* The sends of the row moves, the panel and the solve assume the grid's row and column
   * environments carry no tags (nobody else sets one on the grid's environments). */
  int code = HLA_OK;
  if (g->col->tagsize || g->col->tagsize_next || g->row->tagsize || g->row->tagsize_next)
    code =
        HBSP_FAIL(g->all, HLA_ERR_STATE, "LU: a tag size is set on the grid's row or column env");
  HLA_CALL(hbsp_agree(g->all, code));

  /* The planner decides the variant and the look-ahead when opts leave everything automatic and
   * the grid has (or gets) a machine model. */
  const hplan_machine *mach = g->plan_state == 1 ? g->machine : NULL;
  hplan_lu_choice pch;
  int planned = 0;
  if (hplan_lu_automatic(opts)) {
    HLA_CALL(hdist_grid_machine(g, &mach));
    if (mach != NULL && hplan_lu_fixed(mach, g->nnodes, c->n, c->M, c->N, c->nb, &pch) == HLA_OK) {
      planned = 1;
      c->plan.lookahead = pch.lookahead;
      la = pch.lookahead ? "look-ahead 1" : "look-ahead off";
    }
  }
  int want = planned ? pch.alg : opts ? opts->lu_alg : HLA_LU_AUTO, I, J, nnodes = 1;
  explicit_groups(opts, c->M, c->N, &I, &J);
  hgrid_nodes(g, &nnodes, NULL, NULL);
  const char *how;
  int64_t *ckey = malloc((size_t)(c->M + c->N) * sizeof *ckey), *rkey = ckey + c->M;
  code = ckey ? HLA_OK : HBSP_FAIL(g->all, HLA_ERR_NOMEM, "LU: out of memory");
  code = hbsp_agree(g->all, code);
  if (code != HLA_OK) {
    free(ckey);
    return code;
  }
  if (want == HLA_LU_FLAT || (want == HLA_LU_AUTO && I == 0 && nnodes == 1)) {
    c->plan.alg = HLA_LU_FLAT;
    how = want != HLA_LU_FLAT ? "flat: the grid is on one node"
          : planned           ? "flat (the planner's)"
                              : "flat (requested)";
  } else if (I > 0) { /* explicit groups: consecutive blocks of process rows and columns */
    c->plan.alg = HLA_LU_HIER;
    for (int i = 0; i < c->M; i++) ckey[i] = (int64_t)i * I / c->M;
    for (int j = 0; j < c->N; j++) rkey[j] = (int64_t)j * J / c->N;
    c->plan.groups_row = count_groups(ckey, c->M, 1),
    c->plan.groups_col = count_groups(rkey, c->N, 1);
    how = "hierarchical: groups from the options";
  } else if (nnodes == 1) {
    c->plan.alg = HLA_LU_HIER;
    how = planned ? "hierarchical (the planner's), on one node: both levels are one"
                  : "hierarchical (requested), but the grid is on one node: both levels are one";
  } else {
    int64_t *k;
    int rc = node_keys(c, &k);
    if (rc != HLA_OK) {
      free(ckey);
      return rc;
    }
    /* Two levels pay off where a process row or column spans several nodes with several of its
     * ranks on one node; elsewhere the two-level collectives are the flat ones. */
    int M = c->M, N = c->N, gr = 1, gc = 1;
    for (int j = 0; j < N; j++) {
      int x = count_groups(k + j, M, N);
      gr = x > gr ? x : gr;
    }
    for (int i = 0; i < M; i++) {
      int x = count_groups(k + (int64_t)i * N, N, 1);
      gc = x > gc ? x : gc;
    }
    for (int i = 0; i < M; i++) ckey[i] = k[(int64_t)i * N + c->mycol];
    for (int j = 0; j < N; j++) rkey[j] = k[(int64_t)c->myrow * N + j];
    free(k);
    if (want == HLA_LU_HIER || gr > 1 || gc > 1) {
      c->plan.alg = HLA_LU_HIER;
      c->plan.groups_row = gr, c->plan.groups_col = gc;
      how = want != HLA_LU_HIER ? "hierarchical: rows or columns of the grid span nodes"
            : planned           ? "hierarchical (the planner's), groups = nodes"
                                : "hierarchical (requested), groups = nodes";
    } else {
      c->plan.alg = HLA_LU_FLAT;
      how = "flat: no process row or column has two ranks on one node and spans nodes";
    }
  }
  code = HLA_OK;
  hbsp_env at = NULL;
  if (c->plan.alg == HLA_LU_HIER && (I > 0 || nnodes > 1)) {
    /* Both made (each is agreed in its column or row only), then agreed over ALL. */
    code = hlu_level_make(g->col, ckey, &c->collv);
    int e = hlu_level_make(g->row, rkey, &c->rowlv);
    at = code != HLA_OK ? g->col : g->row;
    if (code == HLA_OK) code = e;
  }
  free(ckey);
  code = hbsp_agree_sub(g->all, at, code);
  if (code != HLA_OK) {
    hlu_level_free(&c->rowlv);
    hlu_level_free(&c->collv);
    return code;
  }
  const char *sw;
  if (opts && opts->swap != HLA_SWAP_AUTO) {
    c->plan.swap = opts->swap;
    sw = c->plan.swap == HLA_SWAP_SPREAD ? "long swap (requested)" : "row swaps (requested)";
  } else { /* the long swap lost on every grid measured: 2x1, 1x2 (2 cores), 4x4, 2x8, 8x2 (16),
            * and simulated 4x256 and 8x512 in panels of 32 (bench/results/sim/README.md) */
    c->plan.swap = HLA_SWAP_ROWS;
    sw = "row swaps";
  }
  c->plan.usplit = c->plan.swap == HLA_SWAP_ROWS && c->M > 1 && c->M <= HLU_USPLIT_MAX &&
                   c->collv.local == NULL && c->howp == NULL;
  const char *us = !c->plan.usplit ? ""
                   : c->M == 2     ? ", U12 streamed from its owner"
                                   : ", U12 streamed or solved in parts";
  if (planned)
    snprintf(c->plan.why, sizeof c->plan.why, "%.140s; %s; %s; %s%s", pch.why, how, pa, sw, us);
  else
    snprintf(c->plan.why, sizeof c->plan.why, "%s (%d x %d groups); %s; %s; %s%s", how,
             c->plan.groups_row, c->plan.groups_col, la, pa, sw, us);
  hp_lu cfg = {c->n, c->M, c->N, c->nb, c->plan.alg, c->plan.lookahead, HBSP_AUTO, 0};
  c->plan.predicted = planned ? pch.seconds : mach ? hplan_lu_predict(mach, g->nnodes, &cfg) : 0.0;
  return HLA_OK;
}

int hlu_workspace(hlu_ctx *c, int factor, hmat B) {
  /* lw: an L panel with its header of nb + 1 words; iw: index words (8 bytes) */
  const int64_t nb = c->nb, lw = HREAL_WORD * (nb + 1) + c->mloc * nb,
                iw = 3 * c->n > 1 ? 3 * c->n : 1;
  int64_t cols = factor ? c->nloc : 0;
  /* The factorisation posts its L panels on the row's board (the grid's, kept between calls)
   * where it can (hlu_factor_run); the second L buffer is then not needed. Not on rows of 2,
   * where the early messages need little progress and the board measured 2 % slower (2-core
   * 1x2 and 16-core 8x2, 7 of 8 alternating pairs; bench/results/history_16core.md). */
  c->board = NULL;
  int erow = HLA_OK, ecol = HLA_OK; /* both tried: a row's failure is agreed in that row only */
  if (factor && c->plan.lookahead && c->N > HLU_BOARD_MIN && c->rowlv.local == NULL &&
      (c->howp == NULL || c->howp->alg == HBSP_AUTO))
    erow = hdist_row_board(c->g, (size_t)lw * sizeof(hreal), &c->board);
  /* The distributed panel's pivot records (panel.c) go on the column's board where the column
   * lies on one node: one post and M - 1 reads in place per panel column instead of the binary
   * exchange's messages. */
  c->pboard = NULL;
  if (factor && c->M > 1 && c->M <= HLU_PANEL_FUSE_MAX && c->collv.local == NULL &&
      (c->howp == NULL || c->howp->alg == HBSP_AUTO))
    ecol = hdist_col_board(c->g, (size_t)HLU_REC_WORDS(nb) * sizeof(hreal), &c->pboard);
  HLA_CALL(erow);
  HLA_CALL(ecol);
  if (B != NULL && B->nloc > cols) cols = B->nloc;
  /* The buffers carved from the grid's workspaces (kept between calls), in entries, each rounded
   * to 64 bytes so that every one starts 64-byte aligned; the index lists take HREAL_WORD
   * entries per 8-byte word. Two blocks: the entries (L panels, U block, L11) and the control
   * data (the panel's pivot row, records and U12, the index lists), which the simulation's model
   * mode keeps each rank's own (hdist_take_part) where it shares the entries' pages among all
   * ranks; so are the L panels' headers (their pivots), or the ranks would read each other's. */
  const int64_t len[7] = {lw,
                          factor && c->board == NULL ? lw : 0,
                          nb * cols > 1 ? nb * cols : 1,
                          factor ? nb * nb : 0,
                          factor ? HLU_PBUF_WORDS(nb) : 1,
                          factor ? 2 * nb * HREAL_WORD : 0,
                          iw * HREAL_WORD};
  const int64_t line = 64 / (int64_t)sizeof(hreal), hdr = (nb + 1) * HREAL_WORD;
  int64_t size[2] = {0, 0}, off[7];
  for (int i = 0; i < 7; i++)
    off[i] = size[i > 3], size[i > 3] += (len[i] + line - 1) / line * line;
  /* The shared word ranges of the first block: every private part (a header) starts a buffer, as
   * SimGrid 3.32 copies the private part of a message only where the buffer starts at or before
   * it (smpi/shared.cpp, shift_and_frame_private_blocks). */
  int64_t sh[4], nsh = 0;
  sh[nsh++] = hdr / HREAL_WORD;
  if (len[1] > 0) sh[nsh++] = off[1] / HREAL_WORD, sh[nsh++] = (off[1] + hdr) / HREAL_WORD;
  sh[nsh++] = size[0] / HREAL_WORD;
  hreal *w = c->work = hdist_take_part(c->g, hdist_words(size[0], sizeof(hreal)), sh, nsh / 2),
        *x = c->ctl = hdist_take_part(c->g, hdist_words(size[1], sizeof(hreal)), NULL, 0), *p[7];
  if (w == NULL || x == NULL)
    return HBSP_FAIL(c->all, HLA_ERR_NOMEM, "LU: cannot allocate the workspaces");
  for (int i = 0; i < 7; i++) p[i] = len[i] > 0 ? (i > 3 ? x : w) + off[i] : NULL;
  c->lbuf = p[0], c->lbuf2 = p[1], c->ubuf = p[2], c->l11 = p[3], c->pbuf = p[4];
  c->swork = (int64_t *)p[5], c->iwork = (int64_t *)p[6];
  /* All interchanges composed (hlu_swap_left, the solve) move at most n rows. */
  HLA_CALL(hlu_rows_reserve(c, c->n, factor && c->plan.swap == HLA_SWAP_SPREAD ? c->nloc : 0));
  if (B != NULL && B->n <= HLU_FANIN_MAX_NRHS &&
      (c->fan = HREAL_ALLOC(hlu_fanin_words(c, B->n))) == NULL)
    return HBSP_FAIL(c->all, HLA_ERR_NOMEM, "LU solve: cannot allocate the fan-in's workspace");
  if (!factor) return HLA_OK;

  /* The rest of the plan, now that the boards exist or not. The L panels leave early (factor.c)
   * with look-ahead on a flat process row: on the row's board where there is one, else by
   * messages (a message's count must fit an int), from the root to each on rows of up to
   * HLU_EARLY_MAX ranks (the library's or MPI's own broadcast asked for), round a ring on longer
   * ones (the library's). A longer row by node goes round the ring too where each node's ranks
   * follow one another along it (as they do on hgrid's placements when MPI fills a node's ranks
   * first): the ring then crosses to the next node once, as the two-level broadcast does, and it
   * does not hold the ranks while they update. The two-level broadcast is blocking: the next
   * panel's owner had the whole panel only after its own node's chain, and on 8 x 128 ranks of
   * the simulated fat tree (rows over two nodes of 64) the LU took 0.157 s that way, 0.124 s
   * round the ring (bench/results/sim/README.md). */
  const int how_auto = c->howp == NULL || c->howp->alg == HBSP_AUTO;
  const int msgs = c->plan.lookahead && c->N > 1 && lw <= INT_MAX;
  const int ring = msgs && c->N > HLU_EARLY_MAX && how_auto &&
                   hlu_groups_in_runs(c->rowlv.group, c->N, c->rowlv.ngroups);
  if (c->board != NULL)
    c->plan.lpanels = HLU_L_BOARD;
  else if (msgs && c->rowlv.local == NULL && c->N <= HLU_EARLY_MAX &&
           (how_auto || c->howp->alg == HBSP_NATIVE))
    c->plan.lpanels = HLU_L_EARLY;
  else if (ring)
    c->plan.lpanels = HLU_L_RING;
  else
    c->plan.lpanels = HLU_L_BCAST;
  size_t at = strlen(c->plan.why);
  if (c->M * c->N == 1)
    snprintf(c->plan.why, sizeof c->plan.why, "one process: LAPACK " HREAL_P "getrf on %d threads",
             c->g->threads);
  else
    snprintf(c->plan.why + at, sizeof c->plan.why - at, "%s%s",
             c->plan.lpanels == HLU_L_BOARD   ? ", L panels on the row's board"
             : c->plan.lpanels == HLU_L_EARLY ? ", L panels sent early"
             : c->plan.lpanels == HLU_L_RING  ? ", L panels sent early round a ring"
                                              : "",
             c->pboard != NULL                    ? ", pivots on the column's board"
             : c->M > 1 && c->collv.local == NULL ? ", pivots by binary exchange"
                                                  : "");
  return HLA_OK;
}

int hlu_teardown(hlu_ctx *c) {
  int rc = hlu_level_free(&c->rowlv), e = hlu_level_free(&c->collv);
  hla_buf_free(&c->msg);
  hla_buf_free(&c->rows.out);
  hla_buf_free(&c->defer);
  hdist_give(c->g, c->work);
  hdist_give(c->g, c->ctl);
  free(c->fan);
  c->fan = NULL;
  c->work = c->ctl = c->lbuf = c->lbuf2 = c->ubuf = c->pbuf = c->l11 = NULL;
  c->iwork = c->swork = NULL;
  c->board = c->pboard = NULL; /* the grid's */
  return rc != HLA_OK ? rc : e;
}

void hlu_report(const hlu_ctx *c, const hla_opts *opts, double seconds) {
  if (opts == NULL || opts->report == NULL) return;
  hla_report *r = opts->report;
  memset(r, 0, sizeof *r);
  r->lu_alg = c->plan.alg;
  r->M = c->M, r->N = c->N, r->mb = r->nb = c->nb;
  r->groups_row = c->plan.groups_row, r->groups_col = c->plan.groups_col;
  r->lookahead = c->plan.lookahead;
  r->panel = c->plan.panel;
  r->swap = c->plan.swap;
  r->threads = hgrid_threads(c->g);
  r->predicted_seconds = c->plan.predicted;
  r->seconds = seconds;
  memcpy(r->why, c->plan.why, sizeof r->why);
  hdist_why_note(c->g, r->why, sizeof r->why);
  r->t_panel = c->t[HLU_T_PANEL], r->t_lwait = c->t[HLU_T_LWAIT], r->t_swap = c->t[HLU_T_SWAP];
  r->t_u = c->t[HLU_T_U], r->t_update = c->t[HLU_T_UPDATE], r->t_solve = c->t[HLU_T_SOLVE];
}

/* ---------------------------------------------------------------- checks and entry point */

/* Sizes are at most this, so that index arithmetic in int64 never overflows. */
#define HLU_MAX_N ((int64_t)1 << 40)

int hlu_check_matrix(const char *fn, hmat A, const char *name, int square) {
  hbsp_env all = A->g->all;
  if (square && A->m != A->n)
    return HBSP_FAIL(all, HLA_ERR_DIM, "%s: %s is %lld x %lld, not square", fn, name,
                     (long long)A->m, (long long)A->n);
  if (A->mb != A->nb)
    return HBSP_FAIL(all, HLA_ERR_DIST,
                     "%s: %s has %d x %d blocks; LU needs square blocks (mb = nb)", fn, name, A->mb,
                     A->nb);
  if (A->m > HLU_MAX_N || A->n > HLU_MAX_N)
    return HBSP_FAIL(all, HLA_ERR_DIM, "%s: %lld x %lld is too large", fn, (long long)A->m,
                     (long long)A->n);
  return HLA_OK;
}

int hlu_check_finite(const char *fn, hmat A, const char *name) {
  if (hkern_sim_model()) return HLA_OK; /* the entries are meaningless there (kernels/sim.c) */
  for (int64_t j = 0; j < A->nloc; j++)
    for (int64_t i = 0; i < A->mloc; i++)
      if (!isfinite(HDATA(A)[i + j * A->lld]))
        return HBSP_FAIL(A->g->all, HLA_ERR_NONFINITE, "%s: %s(%lld,%lld) = %g is not finite", fn,
                         name, (long long)hmat_l2g_row(A, i), (long long)hmat_l2g_col(A, j),
                         (double)HDATA(A)[i + j * A->lld]);
  return HLA_OK;
}

int hlu_finish(hlu_ctx *c, const char *fn, const hla_opts *opts, double t0) {
  if (opts && opts->info_out) *opts->info_out = c->info;
  hlu_report(c, opts, hbsp_time() - t0);
  if (c->info >= 0)
    return HBSP_FAIL_ALL(c->all, HLA_ERR_SINGULAR,
                         "%s: U(%lld,%lld) is exactly zero: the matrix is singular", fn,
                         (long long)c->info, (long long)c->info);
  return HLA_OK;
}

/* An m x n matrix, m != n: factored as the square s x s matrix, s = max(m, n), that has A in its
 * top left corner and zeros elsewhere, on A's grid and square blocks. With zero padding the first
 * k = min(m, n) steps choose dgetrf's pivots (a padded row or column is zero, so it never wins a
 * pivot search over a real entry, and a tie goes to the lowest row, a real one) and produce its L
 * and U; the padded rows and columns stay zero, so the later steps find zero pivots and swap
 * nothing. Those zero pivots are the padding's, not A's: only one before k is reported. Costs
 * the square factorisation's 2 s^3 / (3 P) flops, plus two copies (hmat_redistribute_part). */
static int factor_padded(hmat A, int64_t *ipiv, const hla_opts *opts) {
  const int64_t m = A->m, n = A->n, k = m < n ? m : n, s = m > n ? m : n;
  hbsp_env all = A->g->all;
  if (opts && opts->info_out) *opts->info_out = -1;
  if (k == 0) return HLA_OK; /* no step, no pivot */
  hmat T;
  HLA_CALL(hmat_create_typed(A->g, s, s, A->nb, A->nb, A->elem, &T)); /* zero-filled */
  int64_t *piv = malloc((size_t)s * sizeof *piv), info = -1;
  int code =
      piv ? HLA_OK
          : HBSP_FAIL(all, HLA_ERR_NOMEM, "hlu_factor: no memory for %lld pivots", (long long)s);
  code = hbsp_agree(all, code);
  if (code == HLA_OK) code = hmat_redistribute_part(A, 0, 0, T, 0, 0, m, n);
  hla_opts o = HLA_OPTS_INIT;
  if (opts) o = *opts;
  o.info_out = &info;
  if (code == HLA_OK) code = hlu_factor(T, piv, &o);
  if (code == HLA_ERR_SINGULAR && info >= k) code = HLA_OK, info = -1; /* the padding's */
  if (code == HLA_OK || code == HLA_ERR_SINGULAR) {
    int e = hmat_redistribute_part(T, 0, 0, A, 0, 0, m, n);
    if (e != HLA_OK) code = e;
    memcpy(ipiv, piv, (size_t)k * sizeof *ipiv);
    if (opts && opts->info_out) *opts->info_out = info;
  }
  if (code == HLA_ERR_SINGULAR) /* the inner call's message, with the agreed code */
    code = HBSP_FAIL_ALL(all, HLA_ERR_SINGULAR,
                         "hlu_factor: U(%lld,%lld) is exactly zero: the matrix is singular",
                         (long long)info, (long long)info);
  free(piv);
  hmat_free(&T);
  return code;
}

/* hlu_factor: see include/hla/ops.h. Collective over HGRID_ALL of A's grid; BSP cost above (plus
 * the checks: two allreduces over ALL, and hlu_setup). */
int hlu_factor(hmat A, int64_t *ipiv, const hla_opts *opts) {
  static const char fn[] = "hlu_factor";
  if (A == NULL) return HLA_ERR_ARG;
  HREAL_DISPATCH(A, hlu_factor_s(A, ipiv, opts));
  double t0 = hbsp_time();
  hbsp_env all = A->g->all;
  int64_t v[HLU_NOPTS];
  int same, code = hlu_opts_check(all, fn, opts, v);
  HLA_CALL(hdist_check_same(all, v, HLU_NOPTS, &same));
  if (!same) code = HBSP_FAIL(all, HLA_ERR_ARG, "%s: the options differ between ranks", fn);
  if (code == HLA_OK) code = hlu_check_matrix(fn, A, "A", 0);
  if (code == HLA_OK && ipiv == NULL && A->m > 0 && A->n > 0)
    code = HBSP_FAIL(all, HLA_ERR_ARG, "%s: ipiv is NULL", fn);
  if (code == HLA_OK) code = hlu_check_finite(fn, A, "A"); /* before anything changes */
  HLA_CALL(hbsp_agree(all, code));
  if (A->rsrc || A->csrc) { /* wrapped with its first block elsewhere: factor a copy */
    hmat T;
    HLA_CALL(hdist_unshift(A, 1, &T));
    code = hlu_factor(T, ipiv, opts);
    int e = hdist_reshift(A, &T, code == HLA_OK || code == HLA_ERR_SINGULAR);
    return code != HLA_OK ? code : e;
  }
  if (A->m != A->n) return factor_padded(A, ipiv, opts);

  hlu_ctx c;
  HLA_CALL(hlu_setup(&c, A, opts));
  code = hbsp_agree(all, hlu_workspace(&c, 1, NULL));
  if (code == HLA_OK) code = hlu_factor_run(&c, ipiv);
  int e = hlu_teardown(&c);
  HLA_CALL(code);
  HLA_CALL(e);
  return hlu_finish(&c, fn, opts, t0);
}
