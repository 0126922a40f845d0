/* hla — libhla_scalapack's private interface: ScaLAPACK's Fortran entries pdgemm_, pdgesv_,
 * pdgetrf_ and pdgetrs_ computed by hla.
 *
 * The files, one concept each:
 *   context.c   a BLACS context -> an hla grid over its processes (cached on the context's
 *               communicator in an MPI attribute)
 *   desc.c      descriptors (ScaLAPACK's 9 entries and PBLAS's 11) and their index maps
 *   check.c     ScaLAPACK's argument checks (CHK1MAT, PCHK1MAT/PCHK2MAT, PBLAS's PB_Cchkmat) and
 *               the agreement that makes INFO the same on every process
 *   matrix.c    a descriptor's submatrix -> the hla matrix an operation computes on: the caller's
 *               array wrapped in place, or a copy in hla's layout (and back)
 *   ipiv.c      ScaLAPACK's distributed IPIV <-> hla's replicated pivots
 *   xerbla.c    illegal arguments reported as ScaLAPACK's routines report them (PXERBLA, PBLAS's
 *               PB_Cabort), and hla's own failures
 *   report.c    HLA_SCALAPACK_REPORT: the calls, how many ran in place, printed at MPI_Finalize
 *   pdgemm.c, pdgetrf.c, pdgetrs.c, pdgesv.c: the routines.
 *
 * Conventions: ScaLAPACK's INTEGER is a 32-bit int (LP64 builds, as Debian's); every argument comes
 * by reference; global indices IA, JA are 1-based in the arguments and 0-based inside.
 * Positions and INFO: ScaLAPACK numbers an argument by its place in the call (1-based); a
 * descriptor entry e of the argument at place p is 100 p + e (e counted in the descriptor's own
 * numbering: 1..9, or PBLAS's 1..11 for pdgemm). While checks run, errors are kept in CHK1MAT's
 * encoding (SL_BIGNUM: none; 100 p for a scalar, 100 p + e for an entry), so that the smallest
 * wins; sl_info turns it into INFO (0, -p or -(100 p + e)).
 * Never included by hla's own files (scripts/check_layers.sh: nothing uses this layer).
 */
#ifndef HLA_SCALAPACK_IMPL_H
#define HLA_SCALAPACK_IMPL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "hla.h"
#include "hla_private.h"

/* The exported entries (Fortran names, every argument by reference; character arguments' hidden
 * lengths are not read). */
#define SL_EXPORT __attribute__((visibility("default")))

/* ---------------------------------------------------------------- ScaLAPACK's own symbols */

/* BLACS (the program's ScaLAPACK provides them; resolved when the library is loaded). */
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_abort(int ctxt, int code);
void blacs_get_(const int *ctxt, const int *what, int *val);
/* PXERBLA (Fortran: the name's length is passed after the arguments). */
void pxerbla_(const int *ctxt, const char *name, const int *info, size_t name_len);

/* ---------------------------------------------------------------- report.c */

enum { SL_PDGEMM = 0, SL_PDGESV, SL_PDGETRF, SL_PDGETRS, SL_NROUTINES };
/* How a call went: computed on the caller's arrays, on copies in hla's layout on the caller's grid
 * or on its transpose (sl_lu_grid), nothing to do (a quick return, or only a scaling of C), an
 * illegal argument. */
enum { SL_IN_PLACE = 0, SL_COPIED, SL_TRANSPOSED, SL_TRIVIAL, SL_ILLEGAL, SL_NKINDS };

/* Count a call of routine that went as kind. Local; makes the counters (an attribute of
 * MPI_COMM_SELF, printed and freed at MPI_Finalize) on first use. */
void sl_count(int routine, int kind);
/* Turn the report on (HLA_SCALAPACK_REPORT, read by the settings of a grid's environment). Local.
 */
void sl_report_enable(int on);

/* ---------------------------------------------------------------- context.c */

/* The hla side of a BLACS context: an environment over exactly its processes, ranked row-major by
 * (myrow, mycol), and the nprow x npcol grid on it, in which every process has its BLACS
 * coordinates. */
typedef struct {
  hbsp_env env;
  hgrid g;
  hgrid lu; /* the grid the LU runs on when g is taller than wide (sl_lu_grid), or NULL */
  int ctxt;
  int nprow, npcol, myrow, mycol;
  MPI_Comm all, col; /* the grid's ALL and column communicators, for this layer's own collectives */
} sl_grid;

/* The grid of context ctxt (a process of it: Cblacs_gridinfo gave myrow >= 0), made on first use
 * and kept on the context's communicator until BLACS frees it. *G = NULL and HLA_ERR_MPI or
 * HLA_ERR_NOMEM if it cannot be made. Collective over the context's processes (the first time:
 * a split, hbsp_init, hgrid_create; then local). */
int sl_grid_get(int ctxt, sl_grid **G);

/* Where an LU of this context computes. On a grid no taller than wide (nprow <= npcol), or with
 * HLA_SCALAPACK_LU_GRID=caller: on the context's own grid (*g = G->g, *direct unchanged). On a
 * taller one, on its transpose, npcol x nprow over the same processes (*g; made on first use, kept
 * with the context): with HLA_SCALAPACK_LU_GRID=auto (the default) what is copied anyway, and
 * every call once nprow >= SL_LU_TALL_MOVE (*direct = 0); with wide, every call. Why: the panel's
 * pivot search and row exchanges run down a process column, a collective at every column of the
 * matrix, while a wide grid's panel lies on fewer processes and the look-ahead hides it behind
 * the others' updates (ScaLAPACK's and HPL's own advice is P <= Q). A matrix moved there costs
 * two redistributions, 2 n^2 / P words a process against the LU's 2 n^3 / 3P flops, and a second
 * copy of sub(A) and sub(B) in memory. The setting is rank 0's on every rank. Collective over G's
 * ALL the first time (hgrid_create), then local; errors agreed. */
int sl_lu_grid(sl_grid *G, int *direct, hgrid *g);
/* From this many process rows (and more rows than columns) auto moves in-place LUs too. On a
 * 16-core node (bench/results/16core/2026-11-27_22_tall_grids.txt, pdgesv_ n = 4096, nb = 64)
 * the transpose took 0.95 against 0.90 s on 2 x 1, and gained from 3 x 1 up: 0.41 against
 * 0.59 s on 3 x 1, 0.15 against 0.26 s on 8 x 2, 0.16 against 0.47 s on 16 x 1. */
#define SL_LU_TALL_MOVE 3

/* ---------------------------------------------------------------- desc.c */

/* Descriptor types: ScaLAPACK's 9 entries (DTYPE 1) and PBLAS's 11 with a first block of its own
 * size (DTYPE 2, BLOCK_CYCLIC_2D_INB). */
enum { SL_BLOCK_CYCLIC_2D = 1, SL_BLOCK_CYCLIC_2D_INB = 2 };

/* A descriptor in PBLAS's 11-entry form (PB_CargFtoC): type 1 gets imb = mb, inb = nb; another
 * type keeps its type and context, the rest as PB_CargFtoC sets it. rsrc / csrc -1: the rows /
 * columns are replicated over the process rows / columns (PBLAS). */
typedef struct {
  int dtype, ctxt, m, n, imb, inb, mb, nb, rsrc, csrc, lld;
} sl_desc;

void sl_desc_read(const int *desc, sl_desc *d);

/* PBLAS's PB_Cnumroc for the whole dimension: entries of n that process proc owns, the first
 * block (ib entries) on src, then blocks of nb from src + 1 on; src -1 or nprocs 1: all. */
int64_t sl_numroc(int64_t n, int64_t ib, int64_t nb, int proc, int src, int nprocs);

/* ---------------------------------------------------------------- check.c */

#define SL_DESCMULT 100
#define SL_BIGNUM   (SL_DESCMULT * SL_DESCMULT)

/* Encoded error (see above) -> INFO. */
int sl_info(int code);
/* INFO -> encoded (CHK1MAT's first step: 0 -> SL_BIGNUM). */
int sl_code(int info);

/* ScaLAPACK's CHK1MAT (TOOLS/chk1mat.f): the local checks of sub(A) = A(ia:ia+ma-1, ja:ja+na-1)
 * (ia, ja 1-based), the argument ma at place mapos, na at napos, desc at descpos (ia, ja at
 * descpos - 2, - 1); 9-entry numbering. *code (encoded) keeps the smallest error. Local. */
void sl_chk1mat(int ma, int mapos, int na, int napos, int ia, int ja, const int *desc, int descpos,
                int *code);

/* PBLAS's PB_Cchkmat (PBLAS/SRC/PTOOLS/PB_Cchkmat.c) for pdgemm: the same for an 11-entry
 * descriptor d of an operand (ia, ja 0-based), grid of context ctxt; *info is PBLAS's running
 * INFO (0 or negative; PB_Cchkmat's conversions); warnings through PB_Cwarn. Local. */
void sl_pb_chkmat(int ctxt, const char *rout, const char *name, int m, int mpos, int n, int npos,
                  int ia, int ja, const sl_desc *d, int dpos, int *info);

/* The values ScaLAPACK's PCHK1MAT/PCHK2MAT (GLOBCHK) require to be the same on every process,
 * with their encoded positions. */
#define SL_MAXGLOBALS 48
typedef struct {
  int n;
  int64_t val[SL_MAXGLOBALS];
  int pos[SL_MAXGLOBALS];
} sl_globals;

/* Add the global values of one matrix argument (PCHK1MAT's list: ma, na, ia, ja, desc's DTYPE,
 * M, N, MB, NB, RSRC, CSRC) / one more value. Local. */
void sl_globals_mat(sl_globals *gl, int ma, int mapos, int na, int napos, int ia, int ja,
                    const int *desc, int descpos);
void sl_globals_add(sl_globals *gl, int64_t val, int pos);

/* The agreement over the grid's processes, in one allreduce: the smallest of every process's
 * encoded *code and the positions of the values of gl that differ between processes (GLOBCHK),
 * into *code on every process; flags (bits) are OR-ed into *flags. Collective over G's ALL.
 * HLA_ERR_MPI if the allreduce fails. */
int sl_agree(sl_grid *G, int *code, const sl_globals *gl, int *flags);

/* ---------------------------------------------------------------- xerbla.c */

/* An illegal argument, reported as ScaLAPACK's LAPACK-level routines do: PXERBLA(ctxt, rout,
 * -info). Local. */
void sl_xerbla(int ctxt, const char *rout, int info);
/* As the PBLAS do: PB_Cabort(ctxt, rout, info) (ScaLAPACK's, or the program's own, as its PBLAS
 * tester's, which records INFO and returns). Local. */
void sl_pb_abort(int ctxt, const char *rout, int info);
/* A PBLAS warning (PB_Cwarn) about rout. Local. */
void sl_pb_warn(int ctxt, const char *rout, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* hla failed (code: not an argument the caller can fix: memory, MPI): the message on the grid's
 * first process, then the job ends (Cblacs_abort), as ScaLAPACK's own failures do. */
void sl_fail(sl_grid *G, const char *rout, int code) __attribute__((noreturn));
/* malloc(max(bytes, 1)), or the job ends with a message (MPI_Abort): no process waits for one
 * that ran out of memory. Local. */
void *sl_malloc(const char *rout, size_t bytes);

/* ---------------------------------------------------------------- matrix.c */

/* One wrapped piece of a descriptor's matrix: rows [r0, r0 + h's rows), columns [c0, ...) of it,
 * in a plain block-cyclic layout (hmat_wrap) over the caller's array. */
typedef struct {
  hmat h;
  int64_t r0, c0;
  int replica; /* a replicated dimension's other copy: written back, never read */
} sl_piece;

/* An operand: sub(X) (m x n from (i0, j0), 0-based) of the descriptor matrix over the caller's
 * array, as the hla matrix work computes on: the whole matrix wrapped (in place: sub(X) is all of
 * it, in a plain layout), or a copy in hla's layout. */
typedef struct {
  sl_grid *G;
  sl_piece *p; /* the wrapped pieces; a replicated dimension: every replica when written back */
  int np;
  hmat work;
  int copy;     /* work is a copy (hmat_create) */
  int in_place; /* work is the caller's array with its first block on process (0, 0) */
  int64_t i0, j0, m, n;
} sl_mat;

/* How an operation uses an operand. */
typedef struct {
  int direct;   /* may compute on the whole matrix wrapped as it is (when sub(X) is all of it and
                 * its layout plain: imb = mb, inb = nb, no replication), on the caller's grid */
  int mb, nb;   /* ... only if its blocks are these (0: any) */
  int cmb, cnb; /* a copy's blocks (0 x 0: hla's choice, hmat_create) */
  hgrid grid;   /* the grid a copy is made on: NULL or G->g (the caller's), or another over the
                 * same processes (sl_lu_grid); direct applies on the caller's grid only */
  int read;     /* a copy is filled from sub(X) */
  int write;    /* sub(X) is written (sl_mat_close): every replica is wrapped */
} sl_use;

/* Wrap the pieces of sub(X) = X(i0 : i0 + m, j0 : j0 + n) of descriptor d over the caller's local
 * array a (x->work stays NULL). Collective over G's ALL; errors agreed (hmat_wrap). */
int sl_mat_wrap(sl_grid *G, double *a, const sl_desc *d, int64_t i0, int64_t j0, int64_t m,
                int64_t n, int write, sl_mat *x);
/* sl_mat_wrap, then x->work: the whole matrix's piece when u allows it, else a new m x n matrix
 * filled from sub(X) when u->read. Collective over G's ALL; errors agreed (hmat_wrap,
 * hmat_create, hmat_redistribute_part). */
int sl_mat_open(sl_grid *G, double *a, const sl_desc *d, int64_t i0, int64_t j0, int64_t m,
                int64_t n, const sl_use *u, sl_mat *x);
/* Close: a copy's entries back into sub(X) when write is set; everything freed. Collective over
 * G's ALL. */
int sl_mat_close(sl_mat *x, int write);

/* The local extent of descriptor d's array on this process: [a, a + words) (0 words: none).
 * Local. */
int64_t sl_local_words(sl_grid *G, const sl_desc *d);

/* This process's entries of sub(X) in every wrapped piece (the caller's array, not work):
 * sl_mat_scale: := beta x (beta = 0: zeros, whatever was there); sl_mat_fill: := value. Local. */
void sl_mat_scale(sl_mat *x, double beta);
void sl_mat_fill(sl_mat *x, double value);

/* The LU's square block for sub(A) of order max(m, n) in descriptor d's mb x nb blocks: the
 * caller's when mb = nb and it is at least SL_LU_MIN_BLOCK or the matrix is small (under
 * SL_LU_SMALL), else 0 (hla's choice). Local, pure. */
int sl_lu_block(const sl_desc *d, int64_t m, int64_t n);

/* Below this block the LU runs in hla's own block on matrices of order SL_LU_SMALL and more: the
 * panels of a smaller block are too thin for dgemm to run near its peak. */
#define SL_LU_MIN_BLOCK 32
#define SL_LU_SMALL     1024

/* ---------------------------------------------------------------- pdgetrs.c */

/* The solve of pdgetrs_ and pdgesv_ (checked arguments): sub(B) := op(sub(A))^-1 sub(B) with
 * sub(A)'s factors and hla's pivots ipiv (0-based, relative to ia), trans 'N', 'T' or 'C'.
 * ia, ja, ib, jb 0-based. Returns HLA_OK (*in_place: both operands were), HLA_ERR_ARG for pivots
 * out of range (sub(B) untouched), or an hla failure. Collective over G's ALL. */
int sl_getrs(sl_grid *G, char trans, int64_t n, int64_t nrhs, double *A, int64_t ia, int64_t ja,
             const sl_desc *da, const int64_t *ipiv, double *B, int64_t ib, int64_t jb,
             const sl_desc *db, int *in_place);

/* ---------------------------------------------------------------- ipiv.c */

/* hla's pivots of sub(A) (ipiv[0..k), 0-based, relative to row i0) -> ScaLAPACK's IPIV of A
 * (descriptor d, 9 entries): for my local rows of global rows i0 .. i0 + k - 1,
 * IPIV(local row) = the global row (1-based, in A) it was swapped with. Other entries untouched.
 * Local. */
void sl_ipiv_put(sl_grid *G, const sl_desc *d, int64_t i0, int64_t k, const int64_t *ipiv,
                 int *IPIV);
/* ScaLAPACK's IPIV of A for rows i0 .. i0 + n - 1 -> hla's replicated pivots (0-based, relative to
 * i0) on every process. Collective over G's process column (an allreduce of n words).
 * HLA_ERR_MPI. */
int sl_ipiv_get(sl_grid *G, const sl_desc *d, int64_t i0, int64_t n, const int *IPIV,
                int64_t *ipiv);

#endif
