/* hla — node-local kernels: thin wrappers over OpenBLAS (cblas) and LAPACKE, packing of strided
 * blocks, row interchanges, a recursive panel LU, and the thread policy. Private header.
 *
 * No MPI here: every function is local to the calling rank. Matrices are column-major with a
 * leading dimension ld >= max(1, rows). Sizes are int64_t (hla's convention); the BLAS/LAPACK
 * wrappers return HLA_ERR_ARG when a size does not fit the 32-bit integers of the BLAS underneath,
 * and otherwise do no argument checking (the callers in src/dist validate). Row indices and pivots
 * are 0-based. Costs are in flops (one multiply-add = 2 flops) or in words moved for copies.
 */
#ifndef HLA_KERNELS_H
#define HLA_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include "hla_private.h"
#include "prec.h"

/* ---------------------------------------------------------------- thread policy */

/** Number of cores of this node as the OS reports them (sysconf), at least 1. */
int hkern_node_cores(void);

/** Number of cores this process may run on (its affinity mask), at least 1. */
int hkern_affinity_cores(void);

/** The policy as a pure function. requested (HLA_NUM_THREADS as checked by src/settings.c; 0
 *  when unset) wins when positive; otherwise threads = cores_on_node / ranks_on_node (at least 1),
 *  never more than affinity_cores, so that the ranks of a node never oversubscribe its cores. */
int hkern_threads_choose(int requested, int ranks_on_node, int cores_on_node, int affinity_cores);

/** Apply the policy for this process: requested threads (0: none asked for), the node's cores and
 *  this process's affinity, and set both OpenBLAS (openblas_set_num_threads) and OpenMP
 * (omp_set_num_threads) to the result, which is returned in *nthreads (may be NULL). ranks_on_node:
 * MPI ranks sharing this node (the caller in src/dist measures it). OpenBLAS's and OpenMP's thread
 * counts are process-wide settings, so the last call wins. */
int hkern_threads_apply(int requested, int ranks_on_node, int *nthreads);

/** Words of a CPU mask (hkern_affinity_masks): CPU i is bit i % 64 of word i / 64. */
#define HKERN_CPU_WORDS 16

/** This process's affinity mask (own) and its launcher's (launcher: the parent process's, which
 *  the MPI launcher's binding of this rank leaves as it was: the cores the launch could give it,
 *  cgroup limits included). Returns 1, or 0 when the launcher's could not be read (it is then a
 *  copy of own, so that nothing looks idle). CPUs past 64 HKERN_CPU_WORDS are left out. */
int hkern_affinity_masks(uint64_t own[HKERN_CPU_WORDS], uint64_t launcher[HKERN_CPU_WORDS]);

/** Threads the policy would give a rank bound to launcher_cores instead of the affinity_cores it
 *  got threads for, when that is more; 0 otherwise, and when threads were requested (the user's
 *  count is not the policy's). Pure. */
int hkern_threads_unbound(int requested, int ranks_on_node, int cores_on_node, int launcher_cores,
                          int threads);

/** Current BLAS thread count (openblas_get_num_threads). */
int hkern_threads_get(void);

/* ---------------------------------------------------------------- simulation (sim.c) */

/** HLA_SIM=model: every element kernel below charges its work to the simulated clock
 *  (hkern_sim_charge) and returns without computing (sim.c says what that keeps and how the work
 *  is priced). Process-wide; set once (layout/grid.c). Without the SimGrid build the charge is a
 *  no-op and the switch stays off (src/settings.c refuses HLA_SIM=model there). */
void hkern_sim_set(int model);
int hkern_sim_model(void);

/** What a kernel's charge is priced as where the platform gives kernel rates (sim.c): ops is its
 *  operation count (the price without rates); a and b its shape: GEMM k and min(m, n), PANEL and
 *  GETRF min(m, n), MEM the bytes it moves. */
typedef enum { HKERN_SIM_GEMM, HKERN_SIM_PANEL, HKERN_SIM_GETRF, HKERN_SIM_MEM } hkern_sim_kind;
void hkern_sim_charge(hkern_sim_kind kind, double ops, double a, double b);

/* In an element kernel: charge and return (ret...) in model mode. */
#define HKERN_SIM(kind, ops, a, b, ...)                                                            \
  do {                                                                                             \
    if (hkern_sim_model()) {                                                                       \
      hkern_sim_charge(kind, ops, a, b);                                                           \
      return __VA_ARGS__;                                                                          \
    }                                                                                              \
  } while (0)
/* A memory-bound kernel that moves w words: w operations, or their bytes at the copy rate. */
#define HKERN_SIM_WORDS(w, ...) HKERN_SIM(HKERN_SIM_MEM, (w), (w) * sizeof(hreal), 0, __VA_ARGS__)

/* ---------------------------------------------------------------- element kernels
 * Declared for hreal (src/prec.h): double as written, and their float twins (hkern_sgemm, ...)
 * where an element file is compiled with HLA_SINGLE. */

/* ---------------------------------------------------------------- BLAS 1-3 */

/** C := alpha op(A) op(B) + beta C, op(X) = X or X^T (trans 'N' or 'T'; 'C' = 'T'); op(A) is m x k,
 *  op(B) k x n. Cost 2mnk flops. */
int hkern_dgemm(char transa, char transb, int64_t m, int64_t n, int64_t k, hreal alpha,
                const hreal *A, int64_t lda, const hreal *B, int64_t ldb, hreal beta, hreal *C,
                int64_t ldc);

/** B := alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 (side 'R'); A triangular (uplo 'U'/'L',
 *  diag 'U' unit or 'N'); B is m x n. Cost m^2 n flops (side L) or m n^2 (side R). */
int hkern_dtrsm(char side, char uplo, char transa, char diag, int64_t m, int64_t n, hreal alpha,
                const hreal *A, int64_t lda, hreal *B, int64_t ldb);

/** A := alpha x y^T + A, A m x n. Cost 2mn flops. */
int hkern_dger(int64_t m, int64_t n, hreal alpha, const hreal *x, int64_t incx, const hreal *y,
               int64_t incy, hreal *A, int64_t lda);

/** y := alpha op(A) x + beta y. Cost 2mn flops. */
int hkern_dgemv(char trans, int64_t m, int64_t n, hreal alpha, const hreal *A, int64_t lda,
                const hreal *x, int64_t incx, hreal beta, hreal *y, int64_t incy);

/** Index (0-based) of the first entry of largest |x_i| among n; -1 if n <= 0. Ties go to the lowest
 *  index; a NaN counts as larger than any number (the first NaN wins), as LAPACK's pivoting needs
 *  to see it. Cost n. */
int64_t hkern_idamax(int64_t n, const hreal *x, int64_t incx);

/** x := alpha x. Cost n flops. */
void hkern_dscal(int64_t n, hreal alpha, hreal *x, int64_t incx);

/** Swap x and y. Cost 2n words. */
void hkern_dswap(int64_t n, hreal *x, int64_t incx, hreal *y, int64_t incy);

/* ---------------------------------------------------------------- LAPACK-like */

/** LU with partial pivoting of the m x n matrix A in place (LAPACKE dgetrf): P A = L U. ipiv[0..
 *  min(m,n)) gets 0-based row interchanges (row i was swapped with row ipiv[i] >= i). *info = -1
 *  when every pivot is nonzero, else the 0-based index of the first exactly zero pivot (the
 *  factorisation is completed anyway, as dgetrf). HLA_ERR_NOMEM if the pivot buffer cannot be
 *  allocated. Cost 2/3 n^3 flops for m = n (m n^2 - n^3/3 in general). */
int hkern_dgetrf(int64_t m, int64_t n, hreal *A, int64_t lda, int64_t *ipiv, int64_t *info);

/** Recursive panel LU with partial pivoting (Toledo / LAPACK dgetrf2 style) of the m x n matrix A
 *  in place, with the same outputs as hkern_dgetrf: 0-based LAPACK-style pivots, ties in |value|
 *  going to the lowest row, *info = first zero pivot or -1. Allocates nothing; parallel through
 *  the threaded BLAS of its dtrsm/dgemm calls. Meant for tall panels (m >> n). Cost as dgetrf. */
int hkern_panel_lu(int64_t m, int64_t n, hreal *A, int64_t lda, int64_t *ipiv, int64_t *info);

/** Apply row interchanges to the n columns of A: for k = k1, ..., k2-1 (forward, inc > 0) or
 *  k = k2-1, ..., k1 (backward, inc < 0) swap rows k and ipiv[k] (0-based, as dlaswp with 0-based
 *  indices). Blocked by columns for cache. Cost 2 n (k2-k1) words. */
void hkern_dlaswp(int64_t n, hreal *A, int64_t lda, int64_t k1, int64_t k2, const int64_t *ipiv,
                  int inc);

/** Norm of the m x n matrix A (as LAPACK dlange): 'M' max |a_ij|, '1'/'O' max column sum,
 *  'I' max row sum, 'F'/'E' Frobenius (scaled sum of squares, no overflow). work: m doubles for
 *  'I' (unused otherwise). NaN propagates. 0 for an empty matrix. Cost mn. */
double hkern_dlange(char norm, int64_t m, int64_t n, const double *A, int64_t lda, double *work);

/** Scaled sum of squares (LAPACK dlassq, extended to a matrix): on return
 *  scale^2 * sumsq = scale_in^2 * sumsq_in + sum a_ij^2, with scale = max |a_ij| seen so far so
 *  that nothing overflows. Start with scale = 0, sumsq = 1. Cost 2mn. */
void hkern_dlassq(int64_t m, int64_t n, const double *A, int64_t lda, double *scale, double *sumsq);

/** Combine two (scale, sumsq) pairs into the first (the Frobenius merge of two parts). */
void hkern_lassq_merge(double *scale, double *sumsq, double scale2, double sumsq2);

/** s[j] (+)= sum_i |a_ij| for j < n (accumulate = 1 adds to s, 0 overwrites). Cost mn. */
void hkern_colsums_abs(int64_t m, int64_t n, const double *A, int64_t lda, double *s,
                       int accumulate);
/** s[i] (+)= sum_j |a_ij| for i < m. Cost mn. */
void hkern_rowsums_abs(int64_t m, int64_t n, const double *A, int64_t lda, double *s,
                       int accumulate);

/** Copy the m x n matrix A to B (uplo 'U' upper trapezoid, 'L' lower, anything else all), as
 *  LAPACK dlacpy. Cost mn words. */
void hkern_dlacpy(char uplo, int64_t m, int64_t n, const hreal *A, int64_t lda, hreal *B,
                  int64_t ldb);

/** A := offdiag off the diagonal, diag on it (LAPACK dlaset with uplo = all). Cost mn words. */
void hkern_dlaset(int64_t m, int64_t n, hreal offdiag, hreal diag, hreal *A, int64_t lda);

/* ---------------------------------------------------------------- packing */

/** Copy the m x n strided block A (leading dimension lda) into buf contiguously, column-major with
 *  leading dimension m. Cost mn words. */
void hkern_pack(int64_t m, int64_t n, const hreal *A, int64_t lda, hreal *buf);

/** Inverse of hkern_pack: buf (m x n contiguous) into the strided block A. Cost mn words. */
void hkern_unpack(int64_t m, int64_t n, const hreal *buf, hreal *A, int64_t lda);

/** Pack the submatrix A(rows[0..nr), cols[0..nc)) column by column into buf (nr x nc contiguous):
 *  buf[r + c nr] = A[rows[r] + cols[c] lda]. Runs of consecutive row indices are copied with
 *  memcpy. Cost nr nc words. */
void hkern_pack_idx(int64_t nr, const int64_t *rows, int64_t nc, const int64_t *cols,
                    const hreal *A, int64_t lda, hreal *buf);

/** Inverse of hkern_pack_idx: A[rows[r] + cols[c] lda] = buf[r + c nr]. Cost nr nc words. */
void hkern_unpack_idx(int64_t nr, const int64_t *rows, int64_t nc, const int64_t *cols,
                      const hreal *buf, hreal *A, int64_t lda);

/** B := A^T: the m x n strided block A (leading dimension lda) into the n x m block B (leading
 *  dimension ldb), in tiles that keep both the rows read and the columns written in cache.
 *  Cost mn words. */
void hkern_transpose(int64_t m, int64_t n, const hreal *A, int64_t lda, hreal *B, int64_t ldb);

#endif
