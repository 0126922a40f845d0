/* hla — LU factorisation with partial pivoting: argument checks, variant choice, the blocked
 * right-looking driver with look-ahead, and the report.
 *
 * Block step k (columns [j0, j0 + jb), j0 = k nb; pc = k mod N owns them, pr = k mod M owns rows
 * [j0, j0 + jb)):
 *   a. panel: the process column pc factors the panel (lu_panel.c), pivots by max-with-location
 *      over the column (lu_pivot.c); skipped when look-ahead already did it in step k-1;
 *   b. L: the panel (my rows >= j0) with the pivots and the zero-pivot flag goes along every
 *      process row from pc (one- or two-level broadcast, lu_bcast.c);
 *   c. swaps: the jb interchanges, composed into one permutation, move every touched row once to
 *      its final owner right of the panel, in one superstep per process column (lu_swap.c); left
 *      of the panels they wait for the end (f.). On the process column that factored the panel by
 *      look-ahead the rows were packed in step k-1 (e.): only the superstep is left. With
 *      HLA_SWAP_SPREAD the same superstep brings the block row A12 and L11 to every rank of the
 *      column (HPL's "long" swap: hlu_swap_spread);
 *   d. U: U12 := L11^-1 A12 (trsm, lu_ublock.c) on every rank of the column after a spread; else
 *      with row swaps on short one-level columns (M <= HLU_USPLIT_MAX) either pr, where it has
 *      fewer rows to update than another rank (or M = 2), solves all and streams it point to
 *      point, the columns the next panel and the first slice of e. need first and the rest after
 *      the next panel, or pr sends each rank of its column a part of A12 to solve and the solved
 *      parts are exchanged; else pr solves all and sends U12 down its process column;
 *   e. update: A22 -= L21 U12 by dgemm (threaded BLAS of the node), first on the columns of block
 *      k+1 and then on the rest. With look-ahead, process column k+1 mod N factors panel k+1
 *      between the two, so the panel (latency-bound, one process column) runs while the other
 *      columns are still updating, and its broadcast in step k+1 does not wait for the big update
 *      of its owners. The dgemm calls are the same either way, so the bits are too. That process
 *      column then knows the pivots of block k+1 and packs the rows its interchanges send (and
 *      moves those inside its rows) as the update of the rest writes them (HLU_PACK_BLOCKS).
 *   f. after the last block: the interchanges left of every panel, all of a block's later ones
 *      composed, each row of L moved once (hlu_swap_left).
 * No global synchronisation inside the loop: only row and column environments (subset syncs).
 *
 * BSP cost per block step (flat; R = ceil((n - j0)/M) rows, C = ceil((n - j0)/N) columns):
 *   panel  jb (l_c + hlu_maxloc) (M <= HLU_PANEL_FUSE_MAX: jb allgathers of M (2 jb + 2) words)
 *          + log2 jb broadcasts of <= jb^2/4 words + 2 R jb^2 flops on pc;
 *   L      R jb g_r + l_r (pipelined: about once, plus N - 2 segments; a tree: log2 N times);
 *          on the row's board (N > 2 on one node, look-ahead): R jb words written by pc, read in
 *          place by the others, no message and no l;
 *   swaps  2 jb C g_c + l_c (right of the panel);
 *   U      jb^2 C flops on pr + jb C g_c + l_c (pipelined as L); in parts: jb^2 C / M flops each
 *          + 2 l_c + (jb^2 + jb C / M)(M - 1) g_c + jb C (M - 1) / M g_c; streamed: jb^2 C flops
 *          and jb C (M - 1) g_c on pr, three messages to each rank and no superstep; spread:
 *          jb^2 C flops on every rank, and the swaps' h grows by about jb C (M - 1)/M + jb^2;
 *   update 2 R jb C flops.
 * Summed over n / nb steps: 2 n^3 / (3 P) flops + O(n^2 (1/M + 1/N)) words + O(n) l_c + O(n/nb)
 * l_r; f. adds <= n^2 / (2 P) words and n / (nb N) l_c. Two levels replace each broadcast and
 * max-with-location by its two-level form (lu_bcast.c): per step about one message per group (node)
 * crosses the top level instead of log2 of the ranks.
 *
 * Automatic choices (opts NULL, or zero fields), each reported in opts->report->why. With every
 * field automatic and a machine model on the grid (hplan_grid_machine: attached, the machine file,
 * or one probe, as HLA_PLAN says), the planner picks lu_alg (flat, or two levels by node) and the
 * look-ahead by its cost model (src/dist/plan.c) and the report has its predicted time; otherwise
 * these rules:
 *   lu_alg     HLA_LU_HIER with the given groups when opts->groups_row/groups_col (or groups = G,
 *              cut as the most square I x J, I groups of process rows in each process column, J of
 *              process columns in each row) ask for groups; else HLA_LU_HIER on nodes when the
 *              grid spans several nodes and some process row or column spans several nodes with
 *              two or more of its ranks on one node (only then do two levels differ from one);
 *              else HLA_LU_FLAT. A planner with the machine model will refine this.
 *   lookahead  depth 1 (deeper requests run depth 1); -1 turns it off.
 *   panel      HLA_PANEL_RECURSIVE (M = 1: the node kernel's recursive LU; M > 1: distributed
 *              recursive); HLA_PANEL_COLUMNS runs the distributed column-by-column panel.
 *   swap       HLA_SWAP_ROWS (HLA_SWAP_SPREAD may be requested, on any process column).
 *   bcast      opts->bcast for every broadcast and max-with-location (Hasanov groups are used
 *              only where they divide the environment); HBSP_AUTO: with look-ahead on a flat
 *              process row of more than HLU_BOARD_MIN ranks that lies on one node the L panels
 *              are posted on the row's board;
 *              else they leave early by messages on rows of up to HLU_EARLY_MAX ranks (also with
 *              HBSP_NATIVE); the L panels that do not leave early and the U row blocks go by the
 *              BSP layer's pipelined broadcast on more than two ranks (hlu_big_how), the rest by
 *              the BSP layer's choice.
 * Errors: arguments and non-finite entries are checked and agreed before A changes. A failure of
 * one rank inside the loop (an MPI error, memory for a collective's workspace) is returned on that
 * rank only: the factorisation cannot be resumed, as in ScaLAPACK.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist/lu_impl.h"
#include "dist/plan_impl.h"
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
  c->mloc = A->mloc, c->nloc = A->nloc, c->lld = A->lld, c->a = A->data;
  c->all = g->all;
  c->rowlv = (hlu_level){g->row, NULL, NULL, NULL, NULL, 1};
  c->collv = (hlu_level){g->col, NULL, NULL, NULL, NULL, 1};
  c->info = -1;
  c->lookahead = opts && opts->lookahead < 0 ? 0 : 1;
  c->panel = opts && opts->panel ? opts->panel : HLA_PANEL_RECURSIVE;
  if (opts && (opts->bcast.alg != HBSP_AUTO || opts->bcast.groups || opts->bcast.segment))
    c->how = opts->bcast, c->howp = &c->how;
  c->pipe = (hbsp_coll){.alg = HBSP_PIPELINE};
  c->groups_row = c->groups_col = 1;
  const char *la = !opts || opts->lookahead == 0 ? "look-ahead 1 (default)"
                   : opts->lookahead < 0         ? "look-ahead off (requested)"
                   : opts->lookahead == 1        ? "look-ahead 1 (requested)"
                                          : "look-ahead 1 (deeper requested; 1 is implemented)";
  const char *pa = c->panel == HLA_PANEL_COLUMNS ? "column-by-column panel (requested)"
                   : g->M == 1                   ? "recursive node-local panel (one process row)"
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
    HLA_CALL(hplan_grid_machine(g, &mach));
    if (mach != NULL && hplan_lu_fixed(mach, g, c->n, c->nb, &pch) == HLA_OK) {
      planned = 1;
      c->lookahead = pch.lookahead;
      la = pch.lookahead ? "look-ahead 1" : "look-ahead off";
    }
  }
  int want = planned ? pch.alg : opts ? opts->lu_alg : HLA_LU_AUTO, I, J, nnodes = 1;
  explicit_groups(opts, c->M, c->N, &I, &J);
  hgrid_nodes(g, &nnodes, NULL, NULL);
  const char *how;
  int64_t *ckey = malloc((size_t)(c->M + c->N) * sizeof *ckey), *rkey = ckey + c->M;
  code = ckey ? HLA_OK : HBSP_FAIL(g->all, HLA_ERR_NOMEM, "LU: out of memory");
  HLA_CALL(hbsp_agree(g->all, code));
  if (want == HLA_LU_FLAT || (want == HLA_LU_AUTO && I == 0 && nnodes == 1)) {
    c->alg = HLA_LU_FLAT;
    how = want != HLA_LU_FLAT ? "flat: the grid is on one node"
          : planned           ? "flat (the planner's)"
                              : "flat (requested)";
  } else if (I > 0) { /* explicit groups: consecutive blocks of process rows and columns */
    c->alg = HLA_LU_HIER;
    for (int i = 0; i < c->M; i++) ckey[i] = (int64_t)i * I / c->M;
    for (int j = 0; j < c->N; j++) rkey[j] = (int64_t)j * J / c->N;
    c->groups_row = count_groups(ckey, c->M, 1), c->groups_col = count_groups(rkey, c->N, 1);
    how = "hierarchical: groups from the options";
  } else if (nnodes == 1) {
    c->alg = HLA_LU_HIER;
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
      c->alg = HLA_LU_HIER;
      c->groups_row = gr, c->groups_col = gc;
      how = want != HLA_LU_HIER ? "hierarchical: rows or columns of the grid span nodes"
            : planned           ? "hierarchical (the planner's), groups = nodes"
                                : "hierarchical (requested), groups = nodes";
    } else {
      c->alg = HLA_LU_FLAT;
      how = "flat: no process row or column has two ranks on one node and spans nodes";
    }
  }
  code = HLA_OK;
  if (c->alg == HLA_LU_HIER && (I > 0 || nnodes > 1)) {
    code = hlu_level_make(g->col, ckey, &c->collv);
    if (code == HLA_OK) code = hlu_level_make(g->row, rkey, &c->rowlv);
  }
  free(ckey);
  if (code != HLA_OK) {
    hlu_level_free(&c->collv);
    return code;
  }
  const char *sw;
  if (opts && opts->swap != HLA_SWAP_AUTO) {
    c->swap = opts->swap;
    sw = c->swap == HLA_SWAP_SPREAD ? "long swap (requested)" : "row swaps (requested)";
  } else { /* the long swap lost on every grid measured: 2x1, 1x2 (2 cores), 4x4, 2x8, 8x2 (16) */
    c->swap = HLA_SWAP_ROWS;
    sw = "row swaps";
  }
  c->usplit = c->swap == HLA_SWAP_ROWS && c->M > 1 && c->M <= HLU_USPLIT_MAX &&
              c->collv.local == NULL && c->howp == NULL;
  const char *us = !c->usplit  ? ""
                   : c->M == 2 ? ", U12 streamed from its owner"
                               : ", U12 streamed or solved in parts";
  if (planned)
    snprintf(c->why, sizeof c->why, "%.140s; %s; %s; %s%s", pch.why, how, pa, sw, us);
  else
    snprintf(c->why, sizeof c->why, "%s (%d x %d groups); %s; %s; %s%s", how, c->groups_row,
             c->groups_col, la, pa, sw, us);
  c->predicted = planned ? pch.seconds
                 : mach  ? hplan_lu_predict(mach, g, c->n, c->nb, c->alg, c->lookahead)
                         : 0.0;
  return HLA_OK;
}

int hlu_workspace(hlu_ctx *c, int factor, hmat B) {
  const int64_t nb = c->nb, lw = nb + 1 + c->mloc * nb, iw = 3 * c->n > 1 ? 3 * c->n : 1;
  int64_t cols = factor ? c->nloc : 0;
  /* The factorisation posts its L panels on the row's board (the grid's, kept between calls)
   * where it can (hlu_factor_run); the second L buffer is then not needed. Not on rows of 2,
   * where the early messages need little progress and the board measured 2 % slower (2-core
   * 1x2 and 16-core 8x2, 7 of 8 alternating pairs; bench/results/device_16core.md). */
  c->board = NULL;
  if (factor && c->lookahead && c->N > HLU_BOARD_MIN && c->rowlv.local == NULL &&
      (c->howp == NULL || c->howp->alg == HBSP_AUTO))
    HLA_CALL(hdist_row_board(c->g, (size_t)lw * sizeof(double), &c->board));
  /* The distributed panel's pivot records (lu_panel.c) go on the column's board where the column
   * lies on one node: one post and M - 1 reads in place per panel column instead of an allgather
   * through MPI. */
  c->pboard = NULL;
  if (factor && c->M > 1 && c->M <= HLU_PANEL_FUSE_MAX && c->collv.local == NULL &&
      (c->howp == NULL || c->howp->alg == HBSP_AUTO))
    HLA_CALL(hdist_col_board(c->g, (size_t)(2 + 2 * nb) * sizeof(double), &c->pboard));
  if (B != NULL && B->nloc > cols) cols = B->nloc;
  /* The buffers carved from the grid's workspace (kept between calls), each rounded to 8 words
   * so that every one starts 64-byte aligned; the index lists take words of 8 bytes too. */
  const int64_t len[7] = {lw,
                          factor && c->board == NULL ? lw : 0,
                          nb * cols > 1 ? nb * cols : 1,
                          factor ? HLU_PBUF_WORDS(nb, c->M) : 1,
                          factor ? nb * nb : 0,
                          factor ? 2 * nb : 0,
                          iw};
  int64_t total = 0;
  for (int i = 0; i < 7; i++) total += (len[i] + 7) / 8 * 8;
  double *w = c->work = hdist_take(c->g, total), *p[7];
  if (w == NULL) return HBSP_FAIL(c->all, HLA_ERR_NOMEM, "LU: cannot allocate the workspaces");
  for (int i = 0; i < 7; i++) p[i] = len[i] > 0 ? w : NULL, w += (len[i] + 7) / 8 * 8;
  c->lbuf = p[0], c->lbuf2 = p[1], c->ubuf = p[2], c->pbuf = p[3], c->l11 = p[4];
  c->swork = (int64_t *)p[5], c->iwork = (int64_t *)p[6];
  return HLA_OK;
}

int hlu_teardown(hlu_ctx *c) {
  int rc = hlu_level_free(&c->rowlv), e = hlu_level_free(&c->collv);
  hla_buf_free(&c->msg);
  hla_buf_free(&c->rows.out);
  hla_buf_free(&c->defer);
  hdist_give(c->g, c->work);
  c->work = c->lbuf = c->lbuf2 = c->ubuf = c->pbuf = c->l11 = NULL;
  c->iwork = c->swork = NULL;
  c->board = c->pboard = NULL; /* the grid's */
  return rc != HLA_OK ? rc : e;
}

void hlu_report(const hlu_ctx *c, const hla_opts *opts, double seconds) {
  if (opts == NULL || opts->report == NULL) return;
  hla_report *r = opts->report;
  memset(r, 0, sizeof *r);
  r->lu_alg = c->alg;
  r->M = c->M, r->N = c->N, r->mb = r->nb = c->nb;
  r->groups_row = c->groups_row, r->groups_col = c->groups_col;
  r->lookahead = c->lookahead;
  r->panel = c->panel;
  r->swap = c->swap;
  r->threads = hgrid_threads(c->g);
  r->predicted_seconds = c->predicted;
  r->seconds = seconds;
  memcpy(r->why, c->why, sizeof r->why);
  r->t_panel = c->t[HLU_T_PANEL], r->t_lwait = c->t[HLU_T_LWAIT], r->t_swap = c->t[HLU_T_SWAP];
  r->t_u = c->t[HLU_T_U], r->t_update = c->t[HLU_T_UPDATE], r->t_solve = c->t[HLU_T_SOLVE];
}

/* ---------------------------------------------------------------- the factorisation */

/* Pack the L panel of columns [j0, j0 + jb) (my rows from il0, local column jl0) with its pivots
 * and zero-pivot flag into lb: [jb pivots][flag][rows x jb]. */
static void pack_l(const hlu_ctx *c, double *lb, const int64_t *ipiv, int64_t j0, int jb,
                   int64_t pinfo, int64_t il0, int64_t jl0) {
  int64_t *hdr = (int64_t *)lb;
  memcpy(hdr, ipiv + j0, (size_t)jb * sizeof *hdr);
  hdr[jb] = pinfo;
  hkern_pack(c->mloc - il0, jb, c->a + il0 + jl0 * c->lld, c->lld, lb + jb + 1);
}

/* The early broadcast of an L panel by messages, along a process row of at most HLU_EARLY_MAX
 * ranks that does not lie on one node (there the board serves): the root sends to each with
 * MPI_Isend and the others MPI_Irecv. Where MPI moves a large message in one piece (shared memory
 * with single-copy: the receiver copies it itself) it needs little help from the busy sender.
 * Where it cannot (no single-copy, as in many containers; across a network without progress
 * threads) the message only moves while both sides are inside MPI, here between the update's
 * slices: on 16 cores without single-copy, process rows of 8 ranks lost 30 % and rows of 16
 * (MPI_Ibcast) more against the blocking broadcast (bench/results/device_16core.md), while rows
 * of 2 and 4 were within a few percent. Wider rows therefore broadcast in step. */

typedef struct {
  MPI_Request r[HLU_EARLY_MAX];
  int n;
} hlu_early;

static int early_wait(hbsp_env all, hlu_early *q) {
  if (q->n > 0) HBSP_MPI(all, MPI_Waitall(q->n, q->r, MPI_STATUSES_IGNORE));
  q->n = 0;
  return HLA_OK;
}

static int early_post(hbsp_env all, hbsp_env row, hlu_early *q, double *buf, int count, int root) {
  MPI_Comm comm = hbsp_comm(row);
  int N = hbsp_size(row), me = hbsp_rank(row);
  q->n = 0;
  if (me != root) {
    HBSP_MPI(all, MPI_Irecv(buf, count, MPI_DOUBLE, root, HLU_TAG_L, comm, &q->r[q->n++]));
  } else {
    for (int t = 1; t < N; t++) /* staggered, so that no receiver is everyone's first */
      HBSP_MPI(all,
               MPI_Isend(buf, count, MPI_DOUBLE, (me + t) % N, HLU_TAG_L, comm, &q->r[q->n++]));
  }
  return HLA_OK;
}

static void early_test(hlu_early *q) {
  int done;
  if (q->n > 0) MPI_Testall(q->n, q->r, &done, MPI_STATUSES_IGNORE);
  if (q->n > 0 && done) q->n = 0;
}

/* The board slot of panel k on an N-column process row: each owner alternates its two slots. */
static int board_slot(int64_t k, int N) {
  return (int)(k / N % 2);
}

/* The owner of panel (j0, jb) writes it into its board slot s, once everyone has read what the
 * slot held (2 N panels before), and posts it. */
static int board_post(const hlu_ctx *c, hbsp_board bd, double *slot, int s, const int64_t *ipiv,
                      int64_t j0, int jb, int64_t pinfo, int64_t il0, int64_t jl0) {
  HLA_CALL(hbsp_board_claim(bd, s));
  pack_l(c, slot, ipiv, j0, jb, pinfo, il0, jl0);
  return hbsp_board_post(bd, s);
}

int hlu_factor_run(hlu_ctx *c, int64_t *ipiv) {
  const int64_t n = c->n, lld = c->lld;
  const int nb = c->nb, M = c->M, N = c->N, me_r = c->myrow, me_c = c->mycol;
  if (M * N == 1) {
    /* One process holds the whole matrix in global order: LAPACK's blocked LU on all its threads
     * is the best there is (same pivots: both take the first largest entry). */
    int64_t info;
    c->tmark = hbsp_time();
    int e = hkern_dgetrf(n, n, c->a, lld, ipiv, &info);
    hlu_phase(c, HLU_T_UPDATE); /* all of dgetrf */
    if (e != HLA_OK) return HBSP_FAIL(c->all, e, "hlu_factor: dgetrf of order %lld", (long long)n);
    if (info >= 0 && (c->info < 0 || info < c->info)) c->info = info;
    snprintf(c->why, sizeof c->why, "one process: LAPACK dgetrf on %d threads", c->g->threads);
    return HLA_OK;
  }
  int64_t pinfo = -1;
  /* Early L broadcast: with look-ahead on a flat process row and the library's or MPI's own
   * broadcast, panel k+1 leaves as soon as it is factored, while its owners still update the rest
   * of the trailing matrix; the other process columns pick it up in step k+1, so nobody waits for
   * the owners' big update. Where the process row of more than HLU_BOARD_MIN ranks lies on one
   * node (and the broadcast is the library's choice) the owners post it on the row's board and
   * the others read it in place; elsewhere it goes by messages (early_post), on rows of up to
   * HLU_EARLY_MAX ranks. */
  const int how_auto = c->howp == NULL || c->howp->alg == HBSP_AUTO;
  hbsp_board bd = c->board;               /* from hlu_workspace */
  if (bd) HLA_CALL(hbsp_board_reset(bd)); /* nothing left over from a call that failed */
  if (c->pboard) HLA_CALL(hbsp_board_reset(c->pboard));
  c->pex = 0;
  const int la_flat = c->lookahead && N > 1 && c->rowlv.local == NULL && c->lbuf2 != NULL;
  /* Messages: two L buffers alternate, each with its requests (lq[k % 2]): a sender only reads its
   * buffer in step k+1, so it waits for its sends just before it packs panel k+2 into the same
   * buffer, by when every receiver has long had them. On the board each owner alternates two
   * slots (board_slot): it writes slot s again 2 N steps later, after its claim. */
  const int early =
      bd != NULL || (la_flat && N <= HLU_EARLY_MAX && (how_auto || c->howp->alg == HBSP_NATIVE) &&
                     (int64_t)nb + 1 + c->mloc * nb <= INT_MAX);
  if (early) {
    size_t w = strlen(c->why);
    snprintf(c->why + w, sizeof c->why - w, "%s",
             bd ? ", L panels on the row's board" : ", L panels sent early");
  }
  if (c->pboard) {
    size_t w = strlen(c->why);
    snprintf(c->why + w, sizeof c->why - w, ", pivots on the column's board");
  }
  hlu_early lq[2] = {{.n = 0}, {.n = 0}};
  const int spread = c->swap == HLA_SWAP_SPREAD;
  const int pre = c->lookahead && !spread; /* the next block's swaps packed early (e.) */
  c->tmark = hbsp_time();
  for (int64_t j0 = 0, k = 0; j0 < n; j0 += nb, k++) {
    const int jb = (int)(n - j0 < nb ? n - j0 : nb);
    const int pc = (int)(k % N), pr = (int)(k % M);
    const int64_t il0 = hmat_numroc(j0, nb, me_r, M), il1 = hmat_numroc(j0 + jb, nb, me_r, M);
    const int64_t jl0 = hmat_numroc(j0, nb, me_c, N), jl1 = hmat_numroc(j0 + jb, nb, me_c, N);
    const int64_t nl = c->mloc - il0, ldl = nl > 1 ? nl : 1, nu = c->nloc - jl1;

    /* a. panel */
    if (me_c == pc && (!c->lookahead || k == 0)) HLA_CALL(hlu_panel(c, j0, jb, ipiv, &pinfo));
    hlu_phase(c, HLU_T_PANEL);

    /* b. L panel, pivots and the zero-pivot flag along my process row */
    double *lb = early && k % 2 ? c->lbuf2 : c->lbuf;
    const int64_t lwords = jb + 1 + nl * jb;
    if (bd != NULL) { /* posted in step k-1 (see e.), except for the first panel */
      const int s = board_slot(k, N);
      if (me_c == pc) {
        lb = hbsp_board_slot(bd, me_c, s);
        if (k == 0) HLA_CALL(board_post(c, bd, lb, s, ipiv, j0, jb, pinfo, il0, jl0));
      } else {
        const void *p;
        HLA_CALL(hbsp_board_wait(bd, pc, s, &p));
        lb = (double *)p; /* read in place, never written: the owner's until it claims it */
      }
    } else if (!early) {
      if (me_c == pc) pack_l(c, lb, ipiv, j0, jb, pinfo, il0, jl0);
      HLA_CALL(
          hlu_bcast(&c->rowlv, lb, (size_t)lwords * sizeof(double), pc, hlu_big_how(c, &c->rowlv)));
    } else { /* posted in step k-1 (see e.), except for the first panel */
      if (k == 0) {
        if (me_c == pc) pack_l(c, lb, ipiv, j0, jb, pinfo, il0, jl0);
        HLA_CALL(early_post(c->all, c->rowlv.env, &lq[0], lb, (int)lwords, pc));
      }
      if (me_c != pc) HLA_CALL(early_wait(c->all, &lq[k % 2])); /* a sender has its data */
    }
    const int64_t *hdr = (const int64_t *)lb;
    const double *L = lb + jb + 1;
    memcpy(ipiv + j0, hdr, (size_t)jb * sizeof *hdr);
    if (c->info < 0 && hdr[jb] >= 0) c->info = hdr[jb];
    hlu_phase(c, HLU_T_LWAIT);

    /* nxt: my columns of block k+1, which the next panel needs first (e.) */
    const int64_t m2 = c->mloc - il1, next0 = j0 + jb;
    const int next_pc = (int)((k + 1) % N);
    const int64_t nxt = me_c == next_pc && next0 < n ? (n - next0 < nb ? n - next0 : nb) : 0;
    /* c. the block's interchanges right of the panel (with spread: and the block row A12 with
     * L11 onto every rank of my process column) */
    int64_t *dst, *src, np;
    if (c->rows.open) { /* packed in step k-1 (e.) */
      HLA_CALL(hlu_rows_close(c));
    } else {
      hlu_perm_pairs(ipiv, j0, j0 + jb, n, c->iwork, &dst, &src, &np);
      if (spread)
        HLA_CALL(hlu_swap_spread(c, j0, jb, c->iwork, dst, src, np, jl1, c->nloc, nxt, pr, L, ldl));
      else
        HLA_CALL(hlu_move_rows(c, c->A, dst, src, np, jl1, c->nloc));
    }
    hlu_phase(c, HLU_T_SWAP);

    /* d. U12 := L11^-1 A12, into the matrix on process row pr and into ubuf on every rank of my
     * process column (lu_ublock.c); with spread only block k+1's columns now, the rest after the
     * next panel. */
    double *A12 = c->a + il0 + jl1 * lld;
    HLA_CALL(hlu_u_block(c, j0, jb, nxt, nu, pr, L, ldl, A12));
    HLA_CALL(hlu_u_wait(c, nxt)); /* streamed: block k+1's columns */
    hlu_phase(c, HLU_T_U);

    /* e. trailing update: block k+1 first, then (look-ahead) panel k+1, then the rest */
    const double *L21 = L + (il1 - il0);
    double *A22 = c->a + il1 + jl1 * lld;
    if (m2 > 0 && nxt > 0)
      HLA_CALL(hkern_dgemm('N', 'N', m2, nxt, jb, -1.0, L21, ldl, c->ubuf, jb, 1.0, A22, lld));
    hlu_phase(c, HLU_T_UPDATE);
    if (c->lookahead && nxt > 0) {
      pinfo = -1;
      HLA_CALL(hlu_panel(c, next0, (int)nxt, ipiv, &pinfo));
    }
    if (early && next0 < n) {
      /* Panel k+1 leaves now, as soon as it is factored: its owners post it on the board, or
       * send it while the other process columns post their receive before their update, and both
       * sides move the messages along between the slices below. */
      const int jbn = (int)(n - next0 < nb ? n - next0 : nb);
      if (bd != NULL) {
        const int s = board_slot(k + 1, N);
        if (me_c == next_pc)
          HLA_CALL(board_post(c, bd, hbsp_board_slot(bd, me_c, s), s, ipiv, next0, jbn, pinfo, il1,
                              jl1));
      } else {
        double *nb2 = (k + 1) % 2 ? c->lbuf2 : c->lbuf;
        hlu_early *q = &lq[(k + 1) % 2];
        HLA_CALL(early_wait(c->all, q)); /* the sends of panel k-1, from this buffer */
        if (me_c == next_pc) pack_l(c, nb2, ipiv, next0, jbn, pinfo, il1, jl1);
        HLA_CALL(early_post(c->all, c->rowlv.env, q, nb2, (int)(jbn + 1 + (c->mloc - il1) * jbn),
                            next_pc));
      }
    }
    hlu_phase(c, HLU_T_PANEL);
    if (spread) { /* the spread's rest, now that the next panel is on its way */
      HLA_CALL(hlu_swap_spread_rest(c));
      hlu_phase(c, HLU_T_SWAP);
      HLA_CALL(hlu_u_rest(c, jb, nxt, nu, pr, A12));
      hlu_phase(c, HLU_T_U);
    }
    /* Streamed: pr solves the rest of U12 now, after the panel, while the others update the first
     * slice. */
    HLA_CALL(hlu_u_stream_rest(c, jb, nxt, nu, A12));
    hlu_phase(c, HLU_T_U);
    /* The interchanges of block k+1 over the rest of my columns, when this process column has
     * just factored panel k+1 (look-ahead, row swaps): their rows are packed right after the
     * update writes them (below), while still in cache, and move at the start of step k+1. */
    const int64_t rest = nu - nxt;
    if (pre && nxt > 0 && rest > 0) {
      hlu_perm_pairs(ipiv, next0, next0 + nxt, n, c->iwork, &dst, &src, &np);
      if (np > 0)
        HLA_CALL(hlu_rows_open(c, c->A, dst, src, np, jl1 + nxt, c->nloc, rest, NULL, 0, NULL, 0,
                               NULL, 0));
    }
    /* The rest in column slices (the same slices in every variant, so the bits agree), each
     * after its columns of a streamed U12 arrived, testing the early broadcast in between so that
     * it moves while this rank computes (N > 1), or packing the next interchanges' rows (N = 1). */
    for (int64_t s0 = 0, s1; s0 < rest; s0 = s1) {
      s1 = hlu_slice_end(c, rest, s0);
      const int64_t w = s1 - s0;
      HLA_CALL(hlu_u_wait(c, nxt + s1));
      if (m2 > 0)
        HLA_CALL(hkern_dgemm('N', 'N', m2, w, jb, -1.0, L21, ldl, c->ubuf + (nxt + s0) * jb, jb,
                             1.0, A22 + (nxt + s0) * lld, lld));
      if (c->rows.open) HLA_CALL(hlu_rows_pack(c, s0, s0 + w));
      early_test(&lq[0]);
      early_test(&lq[1]);
    }
    HLA_CALL(hlu_u_wait(c, INT64_MAX)); /* nothing left by now; kept safe */
    if (bd != NULL && me_c != pc) HLA_CALL(hbsp_board_done(bd, pc, board_slot(k, N)));
    hlu_phase(c, HLU_T_UPDATE);
  }
  HLA_CALL(early_wait(c->all, &lq[0]));
  HLA_CALL(early_wait(c->all, &lq[1]));
  hlu_phase(c, HLU_T_LWAIT);
  /* f. */
  HLA_CALL(hlu_swap_left(c, ipiv));
  hlu_phase(c, HLU_T_SWAP);
  return HLA_OK;
}

/* ---------------------------------------------------------------- checks and entry point */

/* Sizes are at most this, so that index arithmetic in int64 never overflows. */
#define HLU_MAX_N ((int64_t)1 << 40)

int hlu_check_matrix(const char *fn, hmat A, const char *name) {
  hbsp_env all = A->g->all;
  if (A->m != A->n)
    return HBSP_FAIL(all, HLA_ERR_DIM, "%s: %s is %lld x %lld, not square", fn, name,
                     (long long)A->m, (long long)A->n);
  if (A->mb != A->nb)
    return HBSP_FAIL(all, HLA_ERR_DIST,
                     "%s: %s has %d x %d blocks; LU needs square blocks (mb = nb)", fn, name, A->mb,
                     A->nb);
  if (A->n > HLU_MAX_N)
    return HBSP_FAIL(all, HLA_ERR_DIM, "%s: n = %lld is too large", fn, (long long)A->n);
  return HLA_OK;
}

int hlu_check_finite(const char *fn, hmat A) {
  for (int64_t j = 0; j < A->nloc; j++)
    for (int64_t i = 0; i < A->mloc; i++)
      if (!isfinite(A->data[i + j * A->lld]))
        return HBSP_FAIL(A->g->all, HLA_ERR_NONFINITE, "%s: A(%lld,%lld) = %g is not finite", fn,
                         (long long)hmat_l2g_row(A, i), (long long)hmat_l2g_col(A, j),
                         A->data[i + j * A->lld]);
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

/* hlu_factor: see include/hla/ops.h. Collective over HGRID_ALL of A's grid; BSP cost above (plus
 * the checks: two allreduces over ALL, and hlu_setup). */
int hlu_factor(hmat A, int64_t *ipiv, const hla_opts *opts) {
  static const char fn[] = "hlu_factor";
  if (A == NULL) return HLA_ERR_ARG;
  double t0 = hbsp_time();
  hbsp_env all = A->g->all;
  int64_t v[HLU_NOPTS];
  int same, code = hlu_opts_check(all, fn, opts, v);
  HLA_CALL(hdist_check_same(all, v, HLU_NOPTS, &same));
  if (!same) code = HBSP_FAIL(all, HLA_ERR_ARG, "%s: the options differ between ranks", fn);
  if (code == HLA_OK) code = hlu_check_matrix(fn, A, "A");
  if (code == HLA_OK && ipiv == NULL && A->n > 0)
    code = HBSP_FAIL(all, HLA_ERR_ARG, "%s: ipiv is NULL", fn);
  if (code == HLA_OK) code = hlu_check_finite(fn, A); /* before anything changes */
  HLA_CALL(hbsp_agree(all, code));

  hlu_ctx c;
  HLA_CALL(hlu_setup(&c, A, opts));
  code = hbsp_agree(all, hlu_workspace(&c, 1, NULL));
  if (code == HLA_OK) code = hlu_factor_run(&c, ipiv);
  int e = hlu_teardown(&c);
  HLA_CALL(code);
  HLA_CALL(e);
  return hlu_finish(&c, fn, opts, t0);
}
