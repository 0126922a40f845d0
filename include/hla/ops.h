/* hla — the operations users call: distributed matrix multiply and LU solve.
 *
 * All take an optional `const hla_opts *opts`: NULL, or a zero-initialised struct (HLA_OPTS_INIT),
 * means "choose automatically". Every automatic choice is written to opts->report when that pointer
 * is set, with a one-line reason, so users can see what ran and why.
 */
#ifndef HLA_OPS_H
#define HLA_OPS_H

#include <stdint.h>
#include "hla/bsp.h"
#include "hla/dist.h"
#include "hla/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Multiply algorithms. REDUCE is for a thin C (few columns: a residual, a block of vectors): A
 *  stays where it is, op(B) is gathered on every rank and the partial products are summed along
 *  the process rows; it needs op(A) = A in C's row blocks (src/dist/matmul/reduce.c). */
typedef enum { HLA_MM_AUTO = 0, HLA_MM_SUMMA, HLA_MM_HSUMMA, HLA_MM_3D, HLA_MM_REDUCE } hla_mm_alg;
typedef enum { HLA_LU_AUTO = 0, HLA_LU_FLAT, HLA_LU_HIER } hla_lu_alg;
typedef enum { HLA_PANEL_AUTO = 0, HLA_PANEL_RECURSIVE, HLA_PANEL_COLUMNS } hla_panel_alg;
/** How LU brings the U row block of a block step to its process column (HPL's swap variants).
 *  ROWS: the interchanges move rows to their owners, the process row of the diagonal block solves
 *  U12 = L11^-1 A12 and broadcasts it down the column. SPREAD (HPL's "long" swap): the interchanges
 *  carry the block row and L11 to every rank of the column, which each solve their own copy: one
 *  superstep less per block, at M - 1 copies of the block row where one process row holds all the
 *  pivots; it measured slower than ROWS on every grid tried (2 and 16 cores), so AUTO is ROWS.
 *  The bits of the factors are the same either way. */
typedef enum { HLA_SWAP_AUTO = 0, HLA_SWAP_ROWS, HLA_SWAP_SPREAD } hla_swap_alg;

/** What an operation did (filled when opts->report is set). */
typedef struct {
  int mm_alg;                 /* hla_mm_alg that ran */
  int lu_alg;                 /* hla_lu_alg that ran */
  int M, N;                   /* process grid */
  int mb, nb;                 /* block sizes of the layout computed on */
  int inner_block;            /* SUMMA/HSUMMA panel width b */
  int outer_block;            /* HSUMMA outer block */
  int groups_row, groups_col; /* HSUMMA / hierarchical LU groups I x J */
  int replication;            /* 3D/2.5D: layers c */
  int lookahead;              /* LU look-ahead depth */
  int panel;                  /* hla_panel_alg */
  int swap;                   /* hla_swap_alg that ran (LU) */
  int threads;                /* BLAS/OpenMP threads per rank */
  int redistributed;          /* operands were redistributed to a common layout first */
  double predicted_seconds;   /* model prediction, 0 if none */
  double seconds;             /* measured wall time of the call */
  char why[256]; /* the reason for the automatic choices, one line; the LU's last part (how the L
                  * panels went) is my process row's and may differ between rows; ends with
                  * "; T of K cores per rank: ..." where the ranks' binding left cores idle that
                  * the thread policy would use (hgrid_create) */
  /* Where this rank's time went in hlu_factor / hlu_solve / hla_gesv (seconds, local values:
   * compare ranks to see the imbalance; they do not add up to `seconds`, which also has the
   * checks and the setup): */
  double t_panel;  /* factoring panels, pivot searches included */
  double t_lwait;  /* getting the L panels along the process row (waiting for them included) */
  double t_swap;   /* row interchanges */
  double t_u;      /* U row blocks: triangular solve and broadcast down the process column */
  double t_update; /* trailing-matrix dgemm (one process: all of LAPACK's dgetrf) */
  double t_solve;  /* the two triangular solves with the right-hand sides */
  /* hla_gesv_mixed: */
  int iterations;  /* refinement steps with the float factors (each: a residual in double and a
                    * correction solve); those before a fallback included */
  int fallback;    /* 0: the float factors and refinement gave the answer; else why the double
                    * factorisation ran: an hla_mixed_fallback */
  double residual; /* the answer's scaled residual max|B - A X| / (eps (|A|_inf max|X| + max|B|)
                    * n), eps = DBL_EPSILON / 2 (HPL's test for one right-hand side); -1 after
                    * a fallback (A then holds the double factors, not A) */
} hla_report;

/** Why hla_gesv_mixed fell back to the double factorisation (hla_report.fallback). */
typedef enum {
  HLA_MIXED_REFINED = 0,  /* no fallback */
  HLA_MIXED_RANGE = 1,    /* A has entries beyond float's range */
  HLA_MIXED_SINGULAR = 2, /* the float factorisation met an exactly zero pivot */
  HLA_MIXED_STAGNATED = 3 /* a step did not halve the residual (stagnation or divergence, NaN
                           * included), or opts->refine_max steps did not reach the bar */
} hla_mixed_fallback;

/** Options. Zero means automatic for every field. */
typedef struct {
  int mm_alg;      /* hla_mm_alg */
  int inner_block; /* panel width b (SUMMA, HSUMMA inner) */
  int outer_block; /* HSUMMA outer block (multiple of inner_block) */
  int groups;      /* HSUMMA / hierarchical LU: G groups (laid out as close to sqrt G x sqrt G) */
  int groups_row, groups_col; /* or explicitly I x J groups (override groups) */
  int replication;            /* 3D / 2.5D: replication factor c */
  double mem_bound;           /* bytes per rank that replication may use; 0 = no bound */
  int lu_alg;                 /* hla_lu_alg */
  int lookahead;              /* LU look-ahead depth; 0 = automatic (>= 1), -1 = off */
  int panel;                  /* hla_panel_alg */
  int swap;                   /* hla_swap_alg */
  hbsp_coll bcast;    /* broadcast algorithm for panels; alg = HBSP_AUTO: library's choice */
  hla_report *report; /* out: what ran and why (may be NULL) */
  int64_t *info_out;  /* out (hlu_factor, hla_gesv): first zero pivot (0-based), -1 if none */
  int refine_max;     /* hla_gesv_mixed: most refinement steps before the fallback; 0 = 30
                       * (LAPACK dsgesv's ITERMAX), -1 = always fall back (for tests) */
} hla_opts;

#define HLA_OPTS_INIT                                                                              \
  { 0 }

/** C := alpha op(A) op(B) + beta C with op(X) = X ('N') or X^T ('T'). op(A) is m x k, op(B) k x n,
 *  C m x n; any sizes >= 0 (k = 0 gives C := beta C). beta = 0 never reads C (NaN in C is
 *  overwritten). A, B, C on the same grid (same ranks), any block sizes: operands in other layouts
 *  are redistributed internally to C's (reported). C must not share storage with A or B.
 *  @return HLA_ERR_DIM (sizes do not conform), HLA_ERR_DIST (different grids), HLA_ERR_ARG (NULL
 *  handle, bad trans or options), HLA_ERR_NOMEM (including a replication over opts->mem_bound);
 *  C is untouched on error.
 *  @par Collective over HGRID_ALL of C's grid. BSP cost: see the algorithm's file in src/dist. */
HLA_API int hmatmul(char transa, char transb, double alpha, hmat A, hmat B, double beta, hmat C,
                    const hla_opts *opts);

/** P A = L U in place, by right-looking blocked LU with partial pivoting, as LAPACK's dgetrf: A is
 *  m x n (any m, n >= 0), L m x min(m, n) unit lower trapezoidal, U min(m, n) x n upper
 *  trapezoidal (square blocks nb = mb required: HLA_ERR_DIST otherwise). ipiv[0..min(m, n))
 *  (local, out, replicated on every rank; nothing past it is written): 0-based global row
 *  interchanges in LAPACK order (row i was swapped with row ipiv[i] >= i). A rectangular A is
 *  factored as the square max(m, n) matrix padded with zeros, which gives dgetrf's pivots and
 *  factors (src/dist/lu/lu.c: factor_padded), at that square matrix's cost.
 *  @return HLA_ERR_SINGULAR (every rank) when a pivot U(k, k), k < min(m, n), is exactly zero;
 *  the factorisation is still completed as dgetrf does, and the first zero pivot is in
 *  *opts->info_out. HLA_ERR_NONFINITE (every rank, A untouched) when A holds Inf or NaN.
 *  HLA_ERR_NOMEM (every rank, A and ipiv untouched) when the workspaces cannot be allocated; the
 *  first factorisation of a size on a grid also grows the grid's message queues inside its loop,
 *  where a failure is one rank's alone (src/dist/lu/lu.c).
 *  @par Collective over HGRID_ALL of A's grid (inside, only process rows and columns synchronise).
 *  BSP cost (M x N grid, P = M N, square n x n): 2 n^3 / (3 P) flops + O(n^2 (1/M + 1/N)) words
 *  + O(n) l_col + O(n / nb) l_row; per block step in src/dist/lu/factor.c. m x n: that of
 *  n = max(m, n), plus two copies of A (hmat_redistribute_part). */
HLA_API int hlu_factor(hmat A, int64_t *ipiv, const hla_opts *opts);

/** B := A^-1 B from the factors of hlu_factor (LU, ipiv). B is n x nrhs (nrhs >= 0) on the same
 *  grid, with the same row block size as LU (HLA_ERR_DIST otherwise), and not LU itself
 *  (HLA_ERR_ARG). Nothing is modified on any error (HLA_ERR_NOMEM included; but the first solve
 *  of a size on a grid grows the grid's message queues, as hlu_factor's first factorisation).
 *  @par Collective over HGRID_ALL of LU's grid. BSP cost: 2 n^2 nrhs / P flops + O(n^2 / M + n
 *  nrhs_loc) words + O(n / nb) (l_row + l_col); src/dist/lu/solve.c. */
HLA_API int hlu_solve(hmat LU, const int64_t *ipiv, hmat B, const hla_opts *opts);

/** B := A^-T B (trans 'T' or 'C') or A^-1 B ('N', as hlu_solve) from the factors of hlu_factor
 *  (LU, ipiv): A^T = U^T L^T P, solved as B := P^T L^-T U^-T B (LAPACK's dgetrs with trans).
 *  Arguments and errors as hlu_solve, and HLA_ERR_ARG for another trans (global).
 *  @par Collective over HGRID_ALL of LU's grid. BSP cost: hlu_solve's, and for 'T' a transposed
 *  copy of the factors first (one superstep, n^2 / P words per rank, and as much memory while it
 *  runs); src/dist/lu/solve.c. */
HLA_API int hlu_solve_trans(char trans, hmat LU, const int64_t *ipiv, hmat B, const hla_opts *opts);

/** hlu_factor then hlu_solve: A is overwritten by its factors, B by the solution (B unchanged
 *  when A is singular, as LAPACK's dgesv; A, ipiv and B untouched on HLA_ERR_NOMEM from the
 *  workspaces, as hlu_factor's). Collective and cost as the two. */
HLA_API int hla_gesv(hmat A, int64_t *ipiv, hmat B, const hla_opts *opts);

/** Ax = b to double accuracy from a single-precision factorisation (LAPACK dsgesv's method,
 *  distributed): A (n x n) and B (n x nrhs) double, as hla_gesv's. A float copy of A is factored
 *  (hlu_factor on it: half the memory traffic and twice the multiply rate of double), X solved
 *  with it, then refined: R = B - A X in double with the original A (hmatmul), the correction
 *  solved with the float factors, X += correction, until the scaled residual (hla_report.residual)
 *  is below 16. When it is not reached (a step that does not halve the residual, or
 *  opts->refine_max steps), when A has entries beyond float's range, or when the float factors are
 *  singular, A is factored in double instead and solved as hla_gesv (hla_report.fallback says
 *  why).
 *  On return: B holds X. A is unchanged when the float path gave the answer (fallback = 0), and
 *  holds the double factors otherwise (as dsgesv); ipiv (replicated, n entries) the pivots of the
 *  factors that gave the answer. Errors as hla_gesv's: HLA_ERR_NONFINITE (A or B holds Inf or NaN;
 *  nothing touched), HLA_ERR_SINGULAR (A singular in double: B unchanged, A its factors),
 *  HLA_ERR_NOMEM (nothing touched), HLA_ERR_ARG (float operands, or as hla_gesv).
 *  Memory: a float copy of A (half of A), and three n x nrhs copies of B (two double, one float);
 *  no second double copy of A. opts: as hla_gesv's for both factorisations, and refine_max.
 *  @par Collective over HGRID_ALL of A's grid. BSP cost: hlu_factor's in float, then per step an
 *  hmatmul (2 n^2 nrhs / P flops) and hlu_solve's; the fallback adds hla_gesv's. */
HLA_API int hla_gesv_mixed(hmat A, int64_t *ipiv, hmat B, const hla_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
