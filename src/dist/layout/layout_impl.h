/* hla — private definitions of grids and distributed matrices (src/dist only). */
#ifndef HLA_DIST_IMPL_H
#define HLA_DIST_IMPL_H

#include <stdint.h>
#include "hla/dist.h"
#include "hla/plan.h"
#include "dist/plan/thresholds.h"
#include "bsp/bsp_impl.h"

/* A workspace block of a grid's cache (hdist_take): p == NULL for an empty slot. */
typedef struct {
  void *p;
  int64_t words;
  int lent; /* taken and not given back yet */
} hdist_block;

/* Workspace blocks a grid keeps track of; the slack above twice the request up to which a free
 * block is lent (a larger one stays for a larger request). The most words it keeps while none is
 * lent, HDIST_KEEP_WORDS, is in plan/thresholds.h (the model prices what is not kept). */
#define HDIST_BLOCKS 16
#define HDIST_SLACK  ((int64_t)1 << 18) /* 2 MiB */

/* A board kept by the grid for one of its environments (hdist_row_board). */
typedef struct {
  int on_node;  /* the environment lies on one node (virtual nodes count) */
  hbsp_board b; /* made on first use, or NULL */
  size_t none;  /* MPI could not map a board of this many bytes (0: not tried) */
} hdist_board;

struct hgrid_s {
  hbsp_env parent; /* the caller's environment (borrowed, not freed) */
  hbsp_env all;    /* own twin of parent, same rank order: rank = myrow N + mycol */
  hbsp_env row, col, node, cross;
  int M, N, myrow, mycol;
  int nnodes, node_size, node_rank;
  int threads;            /* BLAS/OpenMP threads per rank set by the policy */
  char cores_note[96];    /* "; 1 of 2 cores per rank: ..." when binding left cores idle, or "" */
  int nmat;               /* live matrices on this grid (hgrid_free refuses while > 0) */
  hplan_machine *machine; /* the planner's machine model (src/dist/plan/), owned; or NULL */
  int plan_state;         /* 0: not looked for yet, 1: machine set, -1: none (rules apply) */
  hdist_block cache[HDIST_BLOCKS]; /* workspaces kept between operations (hdist_take) */
  /* The LU's boards on my process row (L panels) and column (pivot records): hdist_row_board,
   * hdist_col_board. */
  hdist_board rowb, colb;
};

struct hmat_s {
  hgrid g;
  int64_t m, n;
  int mb, nb;
  int rsrc, csrc; /* process row / column of the first block (ScaLAPACK's RSRC, CSRC): 0 unless
                     wrapped (hmat_wrap); the algorithms take only 0 (hdist_unshift) */
  int64_t mloc, nloc, lld;
  void *data; /* lld x nloc entries of type elem, column-major; never NULL (one spare word when
                 empty); element files read it as HDATA(X) (src/dist/prec_dist.h) */
  hla_elem elem;
  int owned; /* data is the library's to free (0: the caller's, wrapped; 2: a workspace of the
              * grid's, hdist_create) */
};

/* My process row (column) counted from the one that holds A's first block row (column): the
 * coordinate the block-cyclic index maps take (dist/cyclic.h). Local. */
static inline int hdist_prow(hmat A) {
  return (A->g->myrow - A->rsrc + A->g->M) % A->g->M;
}
static inline int hdist_pcol(hmat A) {
  return (A->g->mycol - A->csrc + A->g->N) % A->g->N;
}

/* Collective over env: *same = 1 on every rank iff v[0..k) is equal on every rank (k <= 16).
 * One allreduce. */
int hdist_check_same(hbsp_env env, const int64_t *v, int k, int *same);

/* The agreement rule of the collective entries that take several matrices (docs/ARCHITECTURE.md):
 * *env is the grid's ALL environment of the first non-NULL handle of x[0..n) (names[i] names x[i]
 * in messages); one allreduce over it compares which handles are NULL and the k global words v
 * (sizes, options; n + k <= 16) across ranks. A NULL handle anywhere or differing words fail the
 * call on every rank with the same message (HLA_ERR_ARG), before anything could block. A rank
 * whose handles are all NULL has nothing to talk through: it returns HLA_ERR_ARG at once and
 * *env = NULL (every rank must pass at least one handle). Collective over *env; one allreduce,
 * two more per handle on a disagreement. */
int hdist_agree_args(const char *fn, const hmat *x, const char *const *names, int n,
                     const int64_t *v, int k, hbsp_env *env);

/* HLA_ERR_ARG (agreed: element types are the same on every rank) unless every non-NULL x[i] holds
 * entries of type elem, x[0] among them (the operations compute in one type). Call after
 * hdist_agree_args. Local verdict, no communication. */
int hdist_check_elem(hbsp_env env, const char *fn, const hmat *x, const char *const *names, int n,
                     hla_elem elem);

/* Append g's note on cores that the ranks' binding left idle (grid_build; none: nothing) to the
 * reason why[0..size), cutting why's own text where both do not fit. Local. */
void hdist_why_note(hgrid g, char *why, size_t size);

/* hplan_grid_machine without the check of its arguments (the entries' automatic paths): the model
 * on g, obtained on first use. Collective over HGRID_ALL of g. */
int hdist_grid_machine(hgrid g, const hplan_machine **m);

/* hmat_create_typed, and with work set a matrix whose storage is a workspace of g's (hdist_take:
 * kept with the grid between calls, its contents undefined, not zeroed), given back by hmat_free:
 * for the copies an operation makes of its operands, so that repeated calls do not fault fresh
 * pages. Collective over HGRID_ALL of g; errors agreed. */
int hdist_create(hgrid g, int64_t m, int64_t n, int mb, int nb, hla_elem type, int work, hmat *A);

/* X itself when its first block is on process (0, 0), the layout every algorithm takes; else a
 * new matrix on X's grid and blocks with it there, holding X's entries when copy is set. Give it
 * back with hdist_reshift. Collective over HGRID_ALL of X's grid; errors agreed. BSP cost: none,
 * or hmat_create and hmat_redistribute. */
int hdist_unshift(hmat X, int copy, hmat *T);

/* End of hdist_unshift: T's entries back into X when copy is set, T freed (nothing when T == X).
 * Collective over HGRID_ALL of X's grid; errors agreed. */
int hdist_reshift(hmat X, hmat *T, int copy);

/* dst := src^T: src m x n, dst n x m (else HLA_ERR_DIM), any layouts over the same ranks (as
 * hmat_redistribute; the caller agrees on the sizes and handles beforehand). One
 * superstep of BSMP messages on src's ALL environment, each transposed while it is unpacked.
 * Collective over HGRID_ALL of src's grid; errors agreed. BSP cost: as hmat_redistribute. */
int hdist_transpose(hmat src, hmat dst);

/* Sizes of hdist_alloc and hdist_take are in 8-byte words: hdist_words(n, size) holds n items of
 * size bytes. */
static inline int64_t hdist_words(int64_t n, size_t size) {
  return (n * (int64_t)size + 7) / 8;
}

/* Allocate max(count, 1) words (8 bytes), zeroed, 64-byte aligned (from 2 MiB: 2 MiB aligned, with
 * transparent huge pages asked for); free() frees it. NULL only on failure. */
void *hdist_alloc(int64_t count);

/* The storage of matrices and of the blocks of hdist_take: hdist_alloc's memory, or in the
 * simulation's model mode SMPI's shared memory (workspace.c). Free it with hdist_unstore. */
void *hdist_store(int64_t count);
void hdist_unstore(void *p);

/* A workspace of at least count words (8 bytes) for an operation on g, given back with hdist_give
 * when it ends. Blocks given back stay with the grid (up to HDIST_KEEP_WORDS in all; freed by
 * hgrid_free) and are lent again to the next operation that fits, so that repeated operations do
 * not map and fault fresh pages every call: on the 2-core VM a fresh megabyte costs 3 ms, which
 * doubled the time of hmatmul at n = 1000 on 2 ranks and was 30 % of an LU at n = 1000. Best fit
 * among the free blocks, else a fresh one (zeroed, so that its pages are faulted here and not in
 * the first computation; with no memory left the free blocks are released and it is tried again).
 * 64-byte aligned (2 MiB from 2 MiB, huge pages asked for); contents undefined: NaN in sanitizer
 * builds (HLA_POISON_WORK), so that the tests catch a read before a write. NULL on failure. Local.
 */
void *hdist_take(hgrid g, int64_t count);

/* hdist_take for a workspace that holds control data (pivots, indices, headers) beside the
 * entries: in the simulation's model mode only the word ranges [shared[2i], shared[2i + 1]),
 * i < nshared <= HDIST_PARTS, in increasing order, go to SMPI's shared memory (where every rank
 * writes the same pages) and the rest is the rank's own, fresh on every call; elsewhere it is
 * hdist_take(g, count). Given back with hdist_give. Local. */
#define HDIST_PARTS 8
void *hdist_take_part(hgrid g, int64_t count, const int64_t *shared, int nshared);

/* The board of g's process row with 2 slots of at least `bytes` bytes on every rank, or NULL where
 * the row does not lie on one node or MPI cannot map shared memory. Made on first use and kept
 * (a larger one replaces it) until hgrid_free, so that the pages are mapped and faulted once.
 * Collective over g's row (bytes global there). hdist_col_board: the same for g's process column
 * (collective over it). */
int hdist_row_board(hgrid g, size_t bytes, hbsp_board *board);
int hdist_col_board(hgrid g, size_t bytes, hbsp_board *board);

/* Give back a block of hdist_take (NULL: nothing). Local. */
void hdist_give(hgrid g, void *p);

/* End env's superstep (hbsp_sync) and count the messages that arrived in *nmsg. Collective over
 * env; cost that of the sync. */
int hdist_sync_count(hbsp_env env, size_t *nmsg);

#endif
