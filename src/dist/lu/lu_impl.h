/* hla — private interface of the distributed LU and solves (src/dist/lu*.c, trsolve.c).
 *
 * Notation used in the cost comments of these files: the matrix is n x n in nb x nb blocks on an
 * M x N grid; P = M N; per block step the panel has jb <= nb columns; g_r, l_r are the BSP
 * parameters of a process row environment, g_c, l_c of a process column, and in the hierarchical
 * variant g_in, l_in inside a group (node) and g_out, l_out across groups.
 *
 * Two levels: a process row or column environment is cut into groups (by default the ranks that
 * share a node; or consecutive blocks of process rows/columns when opts->groups_row/col ask for
 * them). A two-level broadcast sends once to each group across groups and then inside each group;
 * a two-level record exchange (the pivot search) runs inside the groups first, then across them.
 * With one group, or with groups of one rank each, the level is flat and the plain collective runs.
 */
#ifndef HLA_DIST_LU_IMPL_H
#define HLA_DIST_LU_IMPL_H

#include <stdint.h>
#include "dist/prec_dist.h"
#include "bsp/coll_impl.h"
#include "dist/layout/layout_impl.h"
#include "dist/plan/thresholds.h"
#include "hla/ops.h"

/* Phases timed for hla_report, in its order. */
enum { HLU_T_PANEL, HLU_T_LWAIT, HLU_T_SWAP, HLU_T_U, HLU_T_UPDATE, HLU_T_SOLVE, HLU_NPHASES };

/* A process row or column seen as one or two levels. */
typedef struct {
  hbsp_env env;     /* the grid's row or column environment (borrowed) */
  hbsp_env local;   /* my group (NULL: flat) */
  hbsp_env leaders; /* the first rank of every group, ranked by group (NULL off leaders / flat) */
  int *group;       /* group of each member of env (NULL: flat) */
  int *lrank;       /* rank of each member inside its group (NULL: flat) */
  int ngroups;      /* groups the members span (1 when flat) */
} hlu_level;

/* The spread's part of a row move (hlu_swap_spread): every rank sends its cu rows ut[] of the
 * block row u (jb x ncols, leading dimension jb) to every other process row, and process row pr
 * L11 (jb x jb, in l11). perm[0..jb) are the block row's source rows, the same on every rank of
 * the column: from them each rank knows what every other sends it. */
typedef struct {
  hreal *u;
  int jb, pr;
  const int64_t *perm, *ut;
  int64_t cu;
  hreal *l11;
} hlu_spread_part;

/* A row move under way (swap.c): opened by hlu_rows_open, packed by hlu_rows_pack, ended by
 * hlu_rows_close; the arguments of hlu_rows_open (sp.jb = 0, sp.pr = -1: no spread part). */
typedef struct {
  hmat X;
  const int64_t *dst, *src;
  int64_t npairs, c0, ncols, cmove;
  hlu_spread_part sp;
  hla_buf out; /* a message per other process row, and its source rows */
  int open;
} hlu_rows;

/* How the L panels go along the process rows (hlu_plan.lpanels). */
enum { HLU_L_BCAST = 0, HLU_L_EARLY, HLU_L_BOARD, HLU_L_RING };

/* The concrete LU a call runs: every choice made once, at the entry (hlu_setup resolves the options
 * and the planner's choice, hlu_workspace the boards), then only read: by the driver and the other
 * files of lu/, none of which sees the options or calls the planner, and by the report (hlu_report
 * copies it), so that what ran and what was reported cannot differ. */
typedef struct {
  int alg;       /* HLA_LU_FLAT or HLA_LU_HIER */
  int lookahead; /* 0 off, 1 on */
  int panel;     /* hla_panel_alg */
  int swap;      /* HLA_SWAP_ROWS or HLA_SWAP_SPREAD */
  int usplit;    /* U12 streamed or solved in parts over the process column (ublock.c) */
  int lpanels;   /* HLU_L_*: how the L panels go (factorisation) */
  int groups_row, groups_col; /* groups across a process column / across a process row */
  double predicted;           /* the model's seconds for what runs (0 without a machine model) */
  char why[256];              /* the report's reason */
} hlu_plan;

/* Everything one factorisation or solve needs; made by hlu_setup, freed by hlu_teardown. */
typedef struct {
  hmat A; /* the matrix factored, or the factors solved with */
  hgrid g;
  int64_t n; /* order of the matrix */
  int nb;    /* square block size */
  int M, N, myrow, mycol;
  int64_t mloc, nloc, lld; /* my part of the matrix */
  hreal *a;                /* its data */
  hbsp_env all;
  hlu_plan plan;          /* what runs: resolved at the entry (hlu_setup, hlu_workspace) */
  hlu_level rowlv, collv; /* L panel along rows; pivots and U along columns */
  hbsp_coll how;          /* algorithm of each level's collectives (resolved with the plan) */
  const hbsp_coll *howp;  /* &how, or NULL for the library's choice */
  hbsp_coll pipe;         /* a pipelined broadcast, its segments set per message (big_how) */
  hbsp_coll tree;         /* a binomial tree, for big_how's short messages */
  /* workspaces, carved by hlu_workspace from work (the entries) and ctl (control data) */
  hreal *work, *ctl;
  hreal *lbuf;  /* received L (or U) column panel: header + rows x nb */
  hreal *lbuf2; /* the second L buffer of the early broadcast (factorisation only) */
  hbsp_board
      board; /* the grid's board of my process row for the L panels (factorisation), or NULL */
  hbsp_board pboard; /* the grid's board of my process column for the panel's pivot records
                        (factorisation, flat column), or NULL */
  int64_t pex;       /* pivot records posted on pboard since the factorisation began */
  hreal *ubuf;       /* U row block (or solved right-hand-side block): nb x columns */
  hreal *pbuf;       /* panel: pivot row, diagonal rows (U12), pivot records (HLU_PBUF_WORDS) */
  hreal *l11;        /* L11 of the block step, nb x nb, packed (factorisation only) */
  int64_t *swork;    /* row lists of hlu_swap_spread (2 nb entries; factorisation only) */
  int64_t *iwork;    /* composed interchanges: 3 n entries (hlu_perm_pairs) */
  hreal *fan;        /* the fan-in solve's (hlu_trsolve_fanin), zeroed, or NULL; freed here */
  hla_buf msg;       /* packing for row moves */
  hlu_rows rows;     /* the row move under way */
  /* U12 streamed from pr in this block step (ublock.c): the requests of its messages still
   * open (pr: its sends; the others: their receives), in column order, request i for the message
   * that starts at local column ufrom[i] */
  int ustream;
  int ulate; /* broadcast: pr + 1 while U12's columns right of block k+1 wait (hlu_u_late) */
  int nureq;
  MPI_Request ureq[3 * HLU_USPLIT_MAX];
  int64_t ufrom[3 * HLU_USPLIT_MAX];
  /* the part of a spread left for hlu_swap_spread_rest: local columns [defer_c0, + defer_n), the
   * pairs (into iwork) and the rows that arrived for those columns */
  hla_buf defer;
  const int64_t *defer_dst, *defer_src;
  int64_t defer_na, defer_c0, defer_n;
  int64_t info;          /* first zero pivot (global column), -1 if none */
  double t[HLU_NPHASES]; /* seconds per phase (hla_report's t_panel ... t_solve) */
  double tmark;          /* end of the last phase timed (hlu_phase) */
} hlu_ctx;

/* A pivot record of the distributed panel (panel.c): the candidate's value and global row,
 * whether it carries the old diagonal row (one 8-byte word each), the candidate row and the old
 * diagonal row (jb entries each). */
#define HLU_REC_HDR       (3 * HREAL_WORD)
#define HLU_REC_WORDS(jb) (HLU_REC_HDR + 2 * (int64_t)(jb))

/* Entries of ctx->pbuf for a factorisation with nb x nb blocks (panel.c: the pivot row, the
 * panel's diagonal rows, two pivot records from the next 8-byte word). */
#define HLU_PBUF_WORDS(nb)                                                                         \
  ((int64_t)(nb) + (int64_t)(nb) * (nb) + HREAL_WORD + 2 * HLU_REC_WORDS(nb))

/* Number of option fields (lu_alg ... swap) compared across ranks by hlu_opts_check. */
#define HLU_NOPTS 9

/* ---- lu.c (the entry: setup, workspaces, report) and factor.c (the driver) ---- */

/* Local checks of opts (NULL allowed): the values as int64s for hdist_check_same in v[HLU_NOPTS],
 * and an error recorded on env (HLA_ERR_ARG) for a bad value. Local. */
int hlu_opts_check(hbsp_env env, const char *fn, const hla_opts *opts, int64_t *v);

/* Fill ctx for matrix A (n x n, square blocks, checked by the caller) and resolve ctx->plan from
 * opts and, with every field automatic, the planner: algorithm, look-ahead, panel, swaps, U12
 * split, groups, predicted time and reason; then make the levels. The one function of lu/ that
 * reads opts (with hlu_opts_check). Collective over HGRID_ALL of A's grid; errors agreed. BSP cost:
 * flat on one node, nothing; otherwise a broadcast in the node environment, an allgather of P words
 * over ALL and two splits of every row and column environment, O(log P) l. */
int hlu_setup(hlu_ctx *ctx, hmat A, const hla_opts *opts);

/* Free the levels and workspaces. Collective over HGRID_ALL (frees sub-environments). */
int hlu_teardown(hlu_ctx *ctx);

/* The workspaces of a factorisation (factor != 0: both L buffers, the panel's, U for my columns of
 * the matrix) and/or of the solves with B (B != NULL: U for my columns of B, the fan-in's), carved
 * from the grid's workspaces (hdist_take; given back by hlu_teardown), and the row moves' buffers:
 * everything the loops need, so that they allocate nothing; for a factorisation the grid's boards
 * where they serve and the rest of the plan (ctx->plan.lpanels, the reason's last part).
 * Collective over my process row and column (the boards); HLA_ERR_NOMEM recorded on ctx->all
 * (the caller agrees). */
int hlu_workspace(hlu_ctx *ctx, int factor, hmat B);

/* Local checks of a matrix argument (name for messages): square when square is set (HLA_ERR_DIM),
 * square blocks (HLA_ERR_DIST), sizes in range. Error recorded on its grid's ALL environment; the
 * caller agrees. */
int hlu_check_matrix(const char *fn, hmat A, const char *name, int square);

/* HLA_ERR_NONFINITE (recorded, not agreed) if my part of A holds Inf or NaN. Local, mloc nloc. */
int hlu_check_finite(const char *fn, hmat A, const char *name);

/* The checks of hlu_solve, hlu_solve_trans, hla_gesv and hla_gesv_mixed (solve.c), agreed: the
 * handles (of this copy's element type), opts, trans ('N' where there is none), LU square and B
 * conforming, ipiv (its entries when ipiv_in: the factors' pivots), and LU's entries finite when
 * finite is set. Collective over LU's ALL (or B's, when LU is NULL). */
int hlu_check_solve(const char *fn, hmat LU, const int64_t *ipiv, int ipiv_in, hmat B,
                    const hla_opts *opts, int finite, char trans);

/* End of a factorisation: *opts->info_out, the report, and HLA_ERR_SINGULAR (same text on every
 * rank) when a pivot was zero. Local (every rank knows ctx->info). */
int hlu_finish(hlu_ctx *ctx, const char *fn, const hla_opts *opts, double t0);

/* The factorisation proper on a validated matrix (ctx from hlu_setup): A := L\U, ipiv[0..n)
 * replicated, ctx->info the first zero pivot. Collective over HGRID_ALL. */
int hlu_factor_run(hlu_ctx *ctx, int64_t *ipiv);

/* Charge the time since the last mark to phase ph and mark now. Local. */
static inline void hlu_phase(hlu_ctx *ctx, int ph) {
  double t = hbsp_time();
  ctx->t[ph] += t - ctx->tmark;
  ctx->tmark = t;
}

/* The end of the slice of the trailing update's rest (its first rest columns; factor.c, e.) that
 * starts at s0. Every variant updates in the same slices, and U12 is solved in pieces that start at
 * the first slice's end (ublock.c), since OpenBLAS rounds a dgemm or trsm cut in two differently
 * from the whole: the variants agree bit for bit only because they make the same calls. Local. */
static inline int64_t hlu_slice_end(const hlu_ctx *c, int64_t rest, int64_t s0) {
  int64_t e = c->N > 1   ? s0 + (rest > 4 * HLU_SLICE_BLOCKS * c->nb ? (rest + 3) / 4 : rest)
              : c->M > 1 ? s0 + (int64_t)(s0 == 0 ? HLU_FIRST_BLOCKS : HLU_PACK_BLOCKS) * c->nb
                         : rest;
  return e < rest ? e : rest;
}

/* MPI tags of the factorisation's own point-to-point messages: the early L panels on the grid's row
 * communicator (factor.c), U12 streamed on its column communicator (ublock.c). */
#define HLU_TAG_L (HBSP_TAG_RESERVED + 100)
#define HLU_TAG_U (HBSP_TAG_RESERVED + 101)

/* How the L panels and U row blocks of bytes go along level lv: the user's algorithm, else on more
 * than two ranks a segmented chain, which moves these large messages (up to n/M x nb words) in
 * about one message time where a tree takes log2 P of them. Measured on 16 cores at n = 16384
 * (bench/results/history_16core.md, run 10): 1x16 370 -> 432 GF/s, 2x8 396 -> 482 against MPI's
 * broadcast. Shorter than HLU_CHAIN_MIN bytes, a binomial tree. The chain's segments shrink where
 * a message is short for its chain (thresholds.h: hlu_chain_segment). */
static inline const hbsp_coll *hlu_big_how(hlu_ctx *c, const hlu_level *lv, size_t bytes) {
  if (c->howp) return c->howp;
  if (hbsp_size(lv->env) <= 2) return NULL;
  if (bytes < HLU_CHAIN_MIN) return &c->tree;
  c->pipe.segment = hlu_chain_segment(bytes, hbsp_size(lv->env));
  return &c->pipe;
}

/* Fill opts->report (if any) from ctx; seconds is the wall time of the call. Local. */
void hlu_report(const hlu_ctx *ctx, const hla_opts *opts, double seconds);

/* ---- bcast.c ---- */

/* Make lv over env: members with equal key[i] (i = rank in env) form a group. When the groups are
 * trivial (one group, or one rank each) lv is flat and nothing is split. Collective over env;
 * BSP cost: two hbsp_split of env when not flat. */
int hlu_level_make(hbsp_env env, const int64_t *key, hlu_level *lv);
/* Free lv's sub-environments (collective over lv->env). */
int hlu_level_free(hlu_level *lv);
/* 1 when each of the P groups' members follow one another round the ranks 0 .. P - 1 of an
 * environment (group[i] of rank i; a flat level, group NULL, too): a ring in rank order then
 * crosses from group to group once a group, as a two-level broadcast does. Local, pure. */
int hlu_groups_in_runs(const int *group, int P, int ngroups);

/* Broadcast bytes from rank root of lv->env to every rank of it: flat, the collective of how;
 * two levels, inside the root's group, then among the group leaders, then inside the other groups.
 * Collective over lv->env. BSP cost: flat one broadcast of m = bytes/8 words, m g + l (binomial:
 * log2 of the size times that); two levels: three, the middle one over the groups only. */
int hlu_bcast(const hlu_level *lv, void *buf, size_t bytes, int root, const hbsp_coll *how);

/* hbsp_coll_allreduce_rec of one record of bytes (ws: as many bytes of workspace) over lv->env,
 * with f associative and commutative: flat, one binary exchange; two levels, one in my group, one
 * among the leaders, then the leader's record broadcast in the group (the collective of how).
 * Collective over lv->env. BSP cost (m = bytes / 8 words): flat log2 P (l + m g); two levels
 * 2 log2 P_in (l_in + m g_in) + log2 P_out (l_out + m g_out), P_in the group's size, P_out the
 * groups'. */
int hlu_allreduce_rec(const hlu_level *lv, void *rec, void *ws, size_t bytes, hbsp_rec_combine f,
                      void *arg, const hbsp_coll *how);

/* ---- ublock.c ---- */

/* Step d. of block step k (columns [j0, j0 + jb), diagonal block on process row pr): U12 :=
 * L11^-1 A12 over my nu local columns right of the panel, into ctx->ubuf (jb x nu, leading
 * dimension jb) on every rank of my process column and into the block row A12 of the matrix
 * (leading dimension lld) on pr. L is my part of the L panel (leading dimension ldl; pr's starts
 * with L11); nxt are the columns of block k+1 among mine. After the row swaps, pr's A12 holds the
 * block row; after the spread (HLA_SWAP_SPREAD) every rank's ubuf and l11 do, and only the first
 * nxt columns are solved here (hlu_u_rest does the others). Streamed (ublock.c) the columns
 * arrive later: hlu_u_wait before reading them, and pr calls hlu_u_late. Broadcast, the process
 * column of block k+1 gets only those nxt columns here, the rest in hlu_u_late. Collective over
 * ctx->collv.env. BSP cost (C = nu): split (flat, 1 < M <= 4) 2 l_c + (jb^2 + jb C / M)(M - 1) g_c
 * on pr then jb C (M - 1) / M g_c, jb^2 C / M flops each; stream jb^2 C flops on pr and
 * jb C (M - 1) g_c from pr, three messages to each rank, no superstep; else jb^2 C flops on pr and
 * hlu_bcast of jb C words (of jb nxt words on the column of block k+1); spread: jb^2 nxt. */
int hlu_u_block(hlu_ctx *ctx, int64_t j0, int jb, int64_t nxt, int64_t nu, int pr, const hreal *L,
                int64_t ldl, hreal *A12);

/* After the next panel: the columns of U12 that hlu_u_block left for it. Streamed, pr solves and
 * sends those after the first slice (local); the bcast way, on the process column of block k+1,
 * pr solves those right of it and broadcasts them (collective over ctx->collv.env: jb^2 (nu - nxt)
 * flops on pr and hlu_bcast of jb (nu - nxt) words); else nothing. */
int hlu_u_late(hlu_ctx *ctx, int jb, int64_t nxt, int64_t nu, hreal *A12);

/* Streamed U12 (else nothing): the messages of the columns of ubuf before local column upto are
 * complete, on pr sent (ubuf is free to change there), on the others arrived. pr waits for its
 * sends from the update's second slice on, after its first (factor.c): then the others are inside
 * MPI too, as an MPI that moves large messages only with both sides inside it needs. Local (point
 * to point with pr). */
int hlu_u_wait(hlu_ctx *ctx, int64_t upto);

/* The spread's columns [nxt, nu) of U12, in ubuf and (on pr) in A12. Local; jb^2 (nu - nxt) flops.
 */
int hlu_u_rest(hlu_ctx *ctx, int jb, int64_t nxt, int64_t nu, int pr, hreal *A12);

/* ---- pivot.c ---- */

/* My candidate for that pivot: value and global row in *piv (0 at INT64_MAX when I have no rows
 * >= j); returns its local row, or -1. Local; cost (local rows below j). */
int64_t hlu_pivot_local(const hlu_ctx *ctx, int64_t j, int64_t jl, hbsp_dloc *piv);

/* ---- swap.c ---- */

/* Row moves inside every process column of X (grid of ctx): row dst[t] receives the old content
 * of row src[t], over my local columns [c0, c1) of X. The sources must be a permutation of the
 * destinations. Each row travels once, straight to its final owner, in one superstep of the
 * column environment (none when there is nothing to move). Collective over ctx->collv.env (the
 * same pairs and the same column count on every rank of it). BSP cost: 2 w + h g_c + a message's
 * latency (hbsp_sync_known: no l_c) with h = (rows I send or receive) x (c1 - c0). */
int hlu_move_rows(hlu_ctx *ctx, hmat X, const int64_t *dst, const int64_t *src, int64_t npairs,
                  int64_t c0, int64_t c1);

/* hlu_move_rows in three parts, so that the sources can be packed while they are still in cache
 * from the update that wrote them (factor.c, the look-ahead). hlu_rows_open: the messages of the
 * move (and, for hlu_swap_spread, its part sp; else sp = NULL), headers only; dst, src and sp's
 * arrays are read until the close. Local.
 * hlu_rows_pack: local columns [c0 + j0, c0 + j1) of the sources into the messages, and the moves
 * inside my rows for those of them before c0 + cmove; X must not change in those columns until
 * the close. Local. hlu_rows_close: the superstep of the process column that moves the rows (none
 * when M = 1; nothing when no move is open); collective over ctx->collv.env, after every column was
 * packed. Every rank derives what each other sends it from the pairs and sp, so the superstep
 * is hbsp_sync_known's: one round of messages, no count exchange. Between open and close nothing
 * else may be queued on the column environment. */
int hlu_rows_open(hlu_ctx *ctx, hmat X, const int64_t *dst, const int64_t *src, int64_t npairs,
                  int64_t c0, int64_t c1, int64_t cmove, const hlu_spread_part *sp);
int hlu_rows_pack(hlu_ctx *ctx, int64_t j0, int64_t j1);
int hlu_rows_close(hlu_ctx *ctx);

/* Room in ctx's packing buffers for row moves of up to npairs pairs, and for the spread's deferred
 * rows of up to nrest columns (0: no spread), so that no move allocates inside the loops, where a
 * failure would be one rank's alone. Local; HLA_ERR_NOMEM recorded on ctx->all. */
int hlu_rows_reserve(hlu_ctx *ctx, int64_t npairs, int64_t nrest);

/* Compose the interchanges ipiv[k0..k1) (row k with row ipiv[k], in order; all in [k0, n)) into
 * one permutation of rows [k0, n): on return row (*dst)[t] := old row (*src)[t] for t < *npairs,
 * only rows that change, *dst ascending. work holds 3 (n - k0) entries; *dst and *src point into
 * it, and work[i] is the old row now at place k0 + i. Local; cost O(n - k0). */
void hlu_perm_pairs(const int64_t *ipiv, int64_t k0, int64_t k1, int64_t n, int64_t *work,
                    int64_t **dst, int64_t **src, int64_t *npairs);

/* Step c. and the start of d. of a block step together (HLA_SWAP_SPREAD): the interchanges of block
 * [j0, j0 + jb) over my columns [c0, c1) (pairs from hlu_perm_pairs, perm its permutation) move
 * every row that lands at or below j0 + jb to its owner, and every rank of the process column
 * receives the block row [j0, j0 + jb) as it is after the interchanges into ctx->ubuf (jb x (c1 -
 * c0), leading dimension jb) and L11 into ctx->l11 (jb x jb), which process row pr takes from L
 * (the L panel, leading dimension ldl). The block row of the matrix on pr is left as it was: the
 * caller writes the solved U12 there. Every rank then solves its own copy, so no rank waits for
 * another's solve and no U broadcast follows. The rows that move inside the matrix land now only in
 * the first cnow columns (those the next panel needs); for the others hlu_swap_spread_rest, called
 * before anything else reads them, lands them, so that this scattered work runs after the next
 * panel instead of before it. Collective over ctx->collv.env (one level, also in the hierarchical
 * variant). BSP cost: h = (rows moved) x (c1 - c0) + jb (c1 - c0) + jb^2 words, one round of
 * messages (hbsp_sync_known; none when M = 1). */
int hlu_swap_spread(hlu_ctx *ctx, int64_t j0, int jb, const int64_t *perm, const int64_t *dst,
                    const int64_t *src, int64_t npairs, int64_t c0, int64_t c1, int64_t cnow,
                    int pr, const hreal *L, int64_t ldl);

/* The rest of the last hlu_swap_spread (columns from c0 + cnow). Local; ctx->iwork must still hold
 * that step's pairs. Cost: the rows moved x (c1 - c0 - cnow) words, scattered. */
int hlu_swap_spread_rest(hlu_ctx *ctx);

/* The interchanges left of the panels, deferred to the end of the factorisation: the columns of
 * every block k take the composed interchanges of blocks k+1, ... (ipiv complete, replicated).
 * ctx->iwork holds 3 n entries. Collective over ctx->collv.env. BSP cost: per block of my process
 * column, hlu_move_rows of its nb columns: in all <= n^2 / (2 P) words sent per rank and
 * n / (nb N) supersteps l_c. */
int hlu_swap_left(hlu_ctx *ctx, const int64_t *ipiv);

/* ---- panel.c ---- */

/* Factor the panel: global columns [j0, j0 + jb) and rows [j0, n) of ctx's matrix, in place on
 * the process column that owns it; ipiv[j0..j0+jb) and *info (first zero pivot, global, or -1) are
 * set on every rank of that column. Called by the ranks of that process column only.
 * Collective over ctx->collv.env. BSP cost: per column, on a flat column one binary exchange of
 * log2 M steps of 2 jb + 3 words (on ctx->pboard: each rank posts its record and reads the others'
 * in place, no message), on a two-level one hlu_pivot + one superstep exchanging the pivot row
 * (h = M jb); about 2 (n - j0) jb^2 / M flops, and jb^3 / 3 flops on every rank for the U12
 * blocks of the recursion (each rank solves them from the pivot rows it has; no message);
 * M = 1: the node-local recursive kernel, no communication. */
int hlu_panel(hlu_ctx *ctx, int64_t j0, int jb, int64_t *ipiv, int64_t *info);

/* ---- trsolve.c ---- */

/* B := op^-1 B with op the lower (uplo 'L') or the upper (uplo 'U') triangle of ctx's matrix
 * (n x n), with a unit diagonal (diag 'U') or its own ('N'), B n x nrhs on the same grid with the
 * same row blocks. Right-looking by block rows:
 * the triangle's column block goes along process rows, the solved block of B along process
 * columns, the rest of B is updated by dgemm. Collective over HGRID_ALL. ctx's workspaces must hold
 * lbuf >= mloc nb and ubuf >= nb x (local columns of B). BSP cost per block: a row broadcast of
 * <= mloc nb words, a column broadcast of nb x (local columns of B) words, jb^2 nrhs/N flops of
 * trsm on one process row and 2 mloc jb (local columns of B) of dgemm. */
int hlu_trsolve(hlu_ctx *ctx, hmat B, char uplo, char diag);

/* B := U^-1 L^-1 B for B with few columns (HLU_FANIN_MAX_NRHS at most; the caller applied the
 * interchanges): fan-in solves in which only thin vectors move (trsolve.c). L is ctx's matrix's
 * lower triangle, U its upper; trans = 0: L has a unit diagonal (the LU factors), 1: U has (the
 * transposed factors of hlu_solve_trans). Collective over HGRID_ALL; works in ctx->fan
 * (hlu_fanin_words, from hlu_workspace).
 * BSP cost per block and triangle: a reduce over one process row and a broadcast down one process
 * column of jb nrhs words, 2 R jb nrhs flops on each rank of one process column (N <= M; R its
 * rows below the block) or 2 C jb nrhs on each rank of one process row (N > M, left-looking; C
 * its solved columns); then one superstep of every process row moving n nrhs / M words. */
int hlu_trsolve_fanin(hlu_ctx *ctx, hmat B, int trans);
/* Words of ctx->fan for nrhs right-hand sides: (mloc + (N > M ? nloc : mloc) + 2 nb) nrhs. */
int64_t hlu_fanin_words(const hlu_ctx *ctx, int64_t nrhs);

#endif
