/* hla — process grids and block-cyclic distributed matrices.
 *
 * A grid (hgrid) arranges the P ranks of an environment as an M x N process grid. Rank r of the
 * environment sits at process row r / N and process column r % N (row-major, as BLACS's 'Row'
 * order): the ranks of one process row are consecutive. The grid owns environments of its own
 * (see hgrid_env) so that its supersteps never complete requests the caller has pending on env.
 *
 * A matrix (hmat) is m x n, cut into mb x nb blocks dealt block-cyclically over the grid as in
 * ScaLAPACK with the first block on process (0, 0): global row i (0-based) lives on process row
 * (i / mb) mod M at local row (i / (mb M)) mb + i mod mb, and likewise for columns with nb and N.
 * Every rank stores its part column-major in one array with leading dimension
 * lld = max(1, mloc), mloc x nloc being its local size.
 *
 * Conventions (as in hla/bsp.h):
 *   Collective over E: every rank of environment E calls it, with the same (global) arguments;
 *                      it returns the same code on every rank, and on error writes nothing.
 *                      The message of an error is hgrid_errmsg(g) (the grid's ALL environment),
 *                      for hgrid_create hbsp_errmsg(env).
 *   Local:             no communication.
 *   (global) / (local): argument equal on every rank / may differ per rank.
 *   BSP cost:          w + h g + l of the environment named; P = M N, g and l of the grid's ALL
 *                      environment unless said otherwise; sizes in words of 8 bytes.
 * Bad arguments (docs/ARCHITECTURE.md, "The agreement rule"): before anything that could block,
 * the ranks of a collective call agree on their arguments, so that one rank's bad value (a size,
 * root, leading dimension, out-pointer, or a NULL handle) fails the call on every rank with the
 * same code and message. A rank with a NULL handle takes part through the grid of another handle
 * it has (hmat_redistribute, hmatmul, hlu_solve, hla_gesv). A rank with no valid handle at all has
 * no environment to agree in: it returns HLA_ERR_ARG at once, and the ranks that did pass one wait
 * for it in their first collective step, as in MPI; every call below that takes a single handle
 * (hgrid_free, hmat_create, hmat_scatter, hmat_gather, hmat_dup, hmat_norm, hlu_factor) needs it on
 * every rank, and hgrid_create its env.
 */
#ifndef HLA_DIST_H
#define HLA_DIST_H

#include <stdint.h>
#include "hla/bsp.h"
#include "hla/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- grids */

typedef struct hgrid_s *hgrid;

/** The environments of a grid (hgrid_env). */
typedef enum {
  HGRID_ALL = 0, /* all P ranks, rank = prow N + pcol (same order as the env given to create) */
  HGRID_ROW,     /* the N ranks of my process row, ranked by process column */
  HGRID_COL,     /* the M ranks of my process column, ranked by process row */
  HGRID_NODE,    /* the ranks of ALL on my node (hbsp_node: shared memory, or HLA_VIRTUAL_NODES) */
  HGRID_CROSS    /* one rank per node: those with my rank inside their node, ranked by node */
} hgrid_level;

/** Make an M x N process grid over env, with its row, column, node and cross-node environments.
 *  M = N = 0 chooses the shape: with a machine model (include/hla/plan.h: the machine file, or a
 *  probe of a few seconds, as HLA_PLAN says) the planner's best grid for an LU of order HLA_PLAN_N
 *  (default 4096 sqrt(P)), kept on the grid for later automatic calls; without one (HLA_PLAN=off,
 *  HLA_MACHINE_FILE=none) the most square factorisation M x N = P with M <= N (P = 8 gives 2 x 4;
 *  a prime P gives 1 x P). Also applies the thread policy to this process (src/kernels): BLAS and
 *  OpenMP threads = cores of the node / ranks of env on the node (at most the rank's affinity),
 *  or HLA_NUM_THREADS if set. Where the MPI launcher bound the ranks to fewer cores than that and
 *  left cores of the node idle, rank 0 says so on stderr with the fix (once per hbsp_init; not
 *  with HLA_QUIET=1) and the reports of the grid's operations note it (hla_report.why).
 *  @param env (global) environment whose ranks form the grid; it stays the caller's.
 *  @param M, N (global) grid shape; M N must equal hbsp_size(env), or both 0.
 *  @param g (local, out) the grid.
 *  @return HLA_ERR_ARG for a NULL env or g, negative M or N, M N != P, or M, N differing between
 *  ranks; HLA_ERR_NOMEM.
 *  @par Collective over env. BSP cost: O(log P) l (a few splits and two allreduces, and one of 32
 *  words over each node). */
HLA_API int hgrid_create(hbsp_env env, int M, int N, hgrid *g);

/** hgrid_create with the ranks of env laid on the grid in the given order: 'R' (row-major, as
 *  hgrid_create: rank r at (r / N, r % N)) or 'C' (column-major, BLACS's default for
 *  Cblacs_gridinit: rank r at (r % M, r / M)). The grid's ALL environment is always ranked
 *  row-major (prow N + pcol), whatever the order. M = N = 0 is not allowed here.
 *  @return as hgrid_create, and HLA_ERR_ARG for another order.
 *  @par Collective over env. BSP cost: as hgrid_create. */
HLA_API int hgrid_create_order(hbsp_env env, int M, int N, char order, hgrid *g);

/** Free the grid, its environments and the workspaces its operations keep between calls (the
 *  panel buffers of hmatmul, the LU and the solves, and operands hmatmul remapped: up to 256 MiB
 *  per rank, so that repeated calls do not map and fault fresh memory every time; and the LU's
 *  boards in node shared memory: of each process row, two L panels per rank, 2 (n/M) nb 8 bytes
 *  for the largest n factored; of each process column, two pivot records per rank, a page
 *  each); *g = NULL.
 * HLA_ERR_STATE (on every rank, nothing freed) while some rank still has a matrix on the grid.
 *  @par Collective over the grid's ALL environment. BSP cost: O(1) l. */
HLA_API int hgrid_free(hgrid *g);

/** Grid shape and my position in it; any out-pointer may be NULL. Local. */
HLA_API int hgrid_shape(hgrid g, int *M, int *N, int *myrow, int *mycol);

/** One of the grid's environments (see hgrid_level). They belong to the grid: do not free them;
 *  calls on them are collective over that environment. Local. */
HLA_API int hgrid_env(hgrid g, hgrid_level level, hbsp_env *env);

/** Rank in HGRID_ALL of process (prow, pcol), or -1 if out of range. Local, pure query. */
HLA_API int hgrid_rank(hgrid g, int prow, int pcol);

/** Position of rank (of HGRID_ALL) in the grid. HLA_ERR_ARG if out of range. Local. */
HLA_API int hgrid_coords(hgrid g, int rank, int *prow, int *pcol);

/** The node level: number of nodes, ranks on my node and my rank inside it (NULL allowed).
 *  nnodes = 1 means there is no level below the grid. Local. */
HLA_API int hgrid_nodes(hgrid g, int *nnodes, int *node_size, int *node_rank);

/** BLAS/OpenMP threads per rank chosen by the thread policy when the grid was made. Local. */
HLA_API int hgrid_threads(hgrid g);

/** Text of the last error recorded on the grid (its ALL environment). Local. */
HLA_API const char *hgrid_errmsg(hgrid g);

/* ---------------------------------------------------------------- block-cyclic index maps */
/* Pure local functions for a dimension of n entries in blocks of nb over nprocs processes, the
 * first block on process 0 (ScaLAPACK's NUMROC, INDXL2G, INDXG2L, INDXG2P with 0-based indices). */

/** Number of entries process iproc owns. */
HLA_API int64_t hmat_numroc(int64_t n, int64_t nb, int iproc, int nprocs);
/** Global index of local index iloc on process iproc. */
HLA_API int64_t hmat_idx_l2g(int64_t iloc, int64_t nb, int iproc, int nprocs);
/** Local index of global index i on its owner. */
HLA_API int64_t hmat_idx_g2l(int64_t i, int64_t nb, int nprocs);
/** Owner of global index i. */
HLA_API int hmat_idx_owner(int64_t i, int64_t nb, int nprocs);

/* ---------------------------------------------------------------- matrices */

typedef struct hmat_s *hmat;

/** Default block size when hmat_create gets mb = nb = 0. */
#define HMAT_DEFAULT_BLOCK 64

/** Make an m x n matrix in mb x nb blocks over g, zero-filled. mb = nb = 0 picks square blocks
 *  b x b: with a machine model on g (hplan_grid_machine) the planner's best LU block for order
 *  max(m, n) on this grid, else b = min(HMAT_DEFAULT_BLOCK, max(1, m, n)); one of them 0 takes the
 *  other's value.
 *  @param g (global) the grid.  @param m, n, mb, nb (global) sizes, m, n >= 0, mb, nb >= 0.
 *  @param A (local, out) the matrix, NULL on error.
 *  @return HLA_ERR_ARG for negative sizes, arguments differing between ranks or a NULL A;
 *  HLA_ERR_NOMEM (agreed) if some rank cannot allocate its part.
 *  @par Collective over HGRID_ALL of g. BSP cost: 2 allreduces, O(log P) l; w = mloc nloc. */
HLA_API int hmat_create(hgrid g, int64_t m, int64_t n, int mb, int nb, hmat *A);

/** An m x n matrix over the caller's own local array, without copying (ScaLAPACK's descriptor: mb x
 *  nb blocks, the first block on process (rsrc, csrc), the local part column-major with leading
 *  dimension lld). hla reads and writes data in place and never frees it; hmat_free frees only
 *  the handle. Redistribution, scatter/gather, fill, norms and the operations take such matrices;
 *  the operations compute in place where the first block is on process (0, 0) and on a copy in
 *  that layout otherwise (hmatmul's C, the LU's matrix and right-hand sides).
 *  @param g (global)  @param m, n, mb, nb, rsrc, csrc (global) m, n >= 0, mb, nb >= 1,
 *  0 <= rsrc < M, 0 <= csrc < N.  @param data, lld (local) lld >= max(1, local rows); data may
 *  be NULL only where the local part is empty.  @param A (local, out).
 *  @return HLA_ERR_ARG (bad or differing arguments, lld too small, NULL data or A), agreed.
 *  @par Collective over HGRID_ALL of g. BSP cost: one allreduce and an agreement. */
HLA_API int hmat_wrap(hgrid g, int64_t m, int64_t n, int mb, int nb, int rsrc, int csrc,
                      double *data, int64_t lld, hmat *A);

/** Element types of a matrix: hmat_create makes HLA_DOUBLE; HLA_FLOAT (IEEE single) halves the
 *  memory and doubles the node's multiply rate, for hla_gesv_mixed's factors and users who need
 *  no more. */
typedef enum { HLA_DOUBLE = 0, HLA_FLOAT = 1 } hla_elem;

/** hmat_create with the element type given. Every call below takes either type unless it says
 *  otherwise: values cross the API as double (hmat_fill, hmat_set, hmat_scatter, hmat_gather,
 *  hmat_norm convert, rounding to nearest), the operations (hmatmul, hlu_factor, hlu_solve,
 *  hmat_redistribute) compute in the operands' own type and want them all of one type
 *  (HLA_ERR_ARG otherwise); hmat_local and hmat_wrap are for double, hmat_local_float for float.
 *  @param type (global) HLA_DOUBLE or HLA_FLOAT (HLA_ERR_ARG otherwise).
 *  @par Collective over HGRID_ALL of g. Arguments, errors and cost as hmat_create. */
HLA_API int hmat_create_typed(hgrid g, int64_t m, int64_t n, int mb, int nb, hla_elem type,
                              hmat *A);

/** A's element type (HLA_DOUBLE for a NULL handle). Local. */
HLA_API hla_elem hmat_elem(hmat A);

/** dst := src converted to dst's element type (double to float rounds to nearest, and a value
 *  beyond float's range becomes +-Inf; float to double is exact). Same sizes, blocks, grid and
 *  process of the first block (HLA_ERR_DIM / HLA_ERR_DIST otherwise; hmat_redistribute moves
 *  between layouts), either type each; src == dst is a no-op.
 *  @par Collective over HGRID_ALL of src's grid: an agreement only, no data moves between ranks.
 *  BSP cost: w = mloc nloc, plus one allreduce (l). */
HLA_API int hmat_convert(hmat src, hmat dst);

/** Free the matrix; *A = NULL. NULL or *A = NULL is a no-op. Local. */
HLA_API int hmat_free(hmat *A);

/** My part: data (column-major, leading dimension *lld = max(1, mloc)) and its size; any
 *  out-pointer may be NULL. Local. */
HLA_API int hmat_local(hmat A, double **data, int64_t *lld, int64_t *mloc, int64_t *nloc);

/** hmat_local for a float matrix (HLA_ERR_ARG for a double one, as hmat_local for a float one).
 *  Local. */
HLA_API int hmat_local_float(hmat A, float **data, int64_t *lld, int64_t *mloc, int64_t *nloc);

/** Global size / block size / grid of the matrix (out-pointers may be NULL). Local queries. */
HLA_API int hmat_size(hmat A, int64_t *m, int64_t *n);
HLA_API int hmat_blocks(hmat A, int *mb, int *nb);
HLA_API hgrid hmat_grid(hmat A);

/** Local size of process (prow, pcol)'s part. HLA_ERR_ARG if out of the grid. Local. */
HLA_API int hmat_local_size(hmat A, int prow, int pcol, int64_t *mloc, int64_t *nloc);

/** Global row / column of my local row iloc / column jloc; -1 if out of [0, mloc) / [0, nloc).
 *  Local, pure queries. */
HLA_API int64_t hmat_l2g_row(hmat A, int64_t iloc);
HLA_API int64_t hmat_l2g_col(hmat A, int64_t jloc);

/** Local row / column index of global row i / column j on the process row / column that owns it
 *  (whether or not that is mine); -1 if out of [0, m) / [0, n). Local, pure queries. */
HLA_API int64_t hmat_g2l_row(hmat A, int64_t i);
HLA_API int64_t hmat_g2l_col(hmat A, int64_t j);

/** Process that owns global entry (i, j) (out-pointers may be NULL). HLA_ERR_ARG if (i, j) is out
 *  of range. Local. */
HLA_API int hmat_owner(hmat A, int64_t i, int64_t j, int *prow, int *pcol);

/** Set every local entry a_ij := f(i, j, ctx) by global indices, so the same function gives the
 *  same matrix on every grid and layout. f runs on my entries only. Local. Cost: mloc nloc calls.
 */
HLA_API int hmat_fill(hmat A, double (*f)(int64_t i, int64_t j, void *ctx), void *ctx);

/** a_ij := offdiag for i != j, diag for i == j (diag = 1, offdiag = 0: identity). Local. */
HLA_API int hmat_set(hmat A, double offdiag, double diag);

/** Distribute the global m x n column-major matrix G (leading dimension ldg) held on rank root
 *  into A.
 *  @param root (global) rank of HGRID_ALL holding G.
 *  @param G, ldg (local) read on root only; ldg >= max(1, m) there.
 *  @return HLA_ERR_ARG for a bad root, or on root a NULL G (m n > 0) or ldg too small.
 *  @par Collective over HGRID_ALL of A's grid. BSP cost: one superstep, the root sends
 *  m n - mloc nloc words: (m n) g + l (plus an agreement, l). */
HLA_API int hmat_scatter(hmat A, int root, const double *G, int64_t ldg);

/** Collect A into the global m x n column-major matrix G (leading dimension ldg) on rank root;
 *  only the m x n entries of G are written, and only on root.
 *  @par Collective over HGRID_ALL of A's grid. Arguments and cost as hmat_scatter. */
HLA_API int hmat_gather(hmat A, int root, double *G, int64_t ldg);

/** Copy src into dst, both m x n, whatever their block sizes and grids, as long as both grids are
 *  over the same ranks (same members, any order: for example a 1 x P and a P x 1 grid made from
 *  one environment, or from a reordered twin of it). Each rank sends each other rank one message
 *  with everything it owns that the other needs; the matrix is never collected on one rank.
 *  src == dst is allowed (nothing to do).
 *  @return HLA_ERR_DIM if the sizes differ, HLA_ERR_DIST if the grids' ranks differ,
 *  HLA_ERR_NOMEM.
 *  @par Collective over HGRID_ALL of src's grid. BSP cost: one communication superstep,
 *  h <= max(mloc nloc of src, of dst) words: 2 mloc nloc (packing) + h g + l, plus an agreement
 *  (l). Same layout on the same ranks: a local copy, no communication beyond the agreement. */
HLA_API int hmat_redistribute(hmat src, hmat dst);

/** Copy the m x n part of src whose first entry is (si, sj) into dst at (di, dj) (0-based global
 *  indices), whatever the two layouts, as hmat_redistribute; the rest of dst is untouched.
 *  src == dst is allowed only for the part onto itself (nothing to do).
 *  @return HLA_ERR_DIM for a part outside either matrix, HLA_ERR_DIST for grids over different
 *  ranks, HLA_ERR_ARG (differing arguments), HLA_ERR_NOMEM.
 *  @par Collective over HGRID_ALL of src's grid. BSP cost: as hmat_redistribute with the part's
 *  local sizes. */
HLA_API int hmat_redistribute_part(hmat src, int64_t si, int64_t sj, hmat dst, int64_t di,
                                   int64_t dj, int64_t m, int64_t n);

/** A new matrix B with A's grid and blocks and a copy of its entries (its first block on process
 *  (0, 0), also when A's is elsewhere).
 *  @par Collective over HGRID_ALL of A's grid. BSP cost: as hmat_create. */
HLA_API int hmat_dup(hmat A, hmat *B);

/** The norm of A, on every rank: '1' or 'O' max column sum, 'I' max row sum, 'F' or 'E' Frobenius
 *  (scaled sums of squares: no overflow), 'M' max |a_ij|, as LAPACK dlange (0 for an empty
 *  matrix; NaN propagates).
 *  @param norm (global)  @param value (local, out).
 *  @par Collective over HGRID_ALL of A's grid. BSP cost: w = mloc nloc; '1': an allreduce of nloc
 *  words over HGRID_COL then of 2 words over HGRID_ROW; 'I' the same with rows and columns
 *  exchanged; 'M' one allreduce of 2 words; 'F' one allgather of 2 words per rank. */
HLA_API int hmat_norm(hmat A, char norm, double *value);

#ifdef __cplusplus
}
#endif
#endif
