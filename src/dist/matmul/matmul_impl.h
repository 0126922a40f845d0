/* hla — private interface of the distributed matrix multiply: matmul.c (entry point,
 * checks, planning, operand remapping), summa.c (SUMMA and the panel machinery shared with HSUMMA),
 * hsumma.c (hierarchical SUMMA) and mm3d.c (3D / 2.5D).
 *
 * Computing layout. Every algorithm computes C in C's own layout (M x N grid, mb x nb blocks). It
 * needs op(A) as an m x k matrix whose rows are dealt like C's (blocks of mb over the M process
 * rows) and op(B) as a k x n matrix whose columns are dealt like C's; the k dimension may be cut in
 * any blocks (kba for op(A) over the N process columns, kbb for op(B) over the M process rows).
 * An operand given as 'N' with the matching block size is used where it is; any other one is
 * remapped (transposed if need be) into that layout with k-blocks of the panel width b
 * (mm_remap, one BSMP superstep). A panel [k0, k0 + w) of the k dimension is gathered from its
 * pieces (maximal runs inside one k-block, each owned by one process column of op(A) and one
 * process row of op(B)), so panels need not align with blocks.
 *
 * Panel buffers. An A panel is mloc x w, column-major with leading dimension mloc; a B panel is
 * kept transposed, nloc x w with leading dimension nloc, so that a piece (a run of k indices) is a
 * contiguous run of memory in both and is broadcast in place. The update is
 * C += alpha Apanel Bpanel^T (dgemm 'N','T'), the same call in SUMMA and HSUMMA for the same panel.
 */
#ifndef HLA_MATMUL_IMPL_H
#define HLA_MATMUL_IMPL_H

#include <stdint.h>
#include "dist/prec_dist.h"
#include "dist/layout/layout_impl.h"
#include "hla/ops.h"

/* The local view of one multiply C := alpha op(A) op(B) + beta C in the computing layout, on a
 * (layer) grid. The algorithms scale C by beta only once nothing can fail any more, so that C is
 * untouched on error. */
typedef struct {
  hgrid g;                /* the grid whose workspaces it takes (hdist_take) */
  hbsp_env all;           /* every rank taking part (for agreeing on allocation failures) */
  hbsp_env row, col;      /* my process row (ranked by process column) and column (by row) */
  int M, N, myrow, mycol; /* the grid the three matrices are dealt on */
  int64_t m, n, k;
  const hreal *a; /* op(A): mloc x kloca local, leading dimension lda, k in blocks kba over N */
  int64_t lda;
  int kba;
  const hreal *b; /* op(B): klocb x nloc local, leading dimension ldb, k in blocks kbb over M */
  int64_t ldb;
  int kbb;
  hreal *c; /* C: mloc x nloc local, leading dimension ldc */
  int64_t ldc, mloc, nloc;
  double alpha, beta;
  int panel;            /* panel width b >= 1 */
  const hbsp_coll *how; /* panel broadcasts: HBSP_AUTO / HBSP_NATIVE = MPI_Ibcast, overlapped */
} mm_ctx;

/* ---------------------------------------------------------------- panels (summa.c) */

/* A run [g0, g0 + w) of the k dimension inside one k-block: owned by process `owner` (column for
 * op(A), row for op(B)) at local index loc there; off = g0 - start of the panel. */
typedef struct {
  int64_t g0, w, loc, off;
  int owner;
} mm_piece;

/* Most pieces a range of w indices in blocks of kb can have. */
int64_t mm_max_pieces(int64_t w, int kb);

/* The pieces of [lo, hi) in blocks of kb dealt over nprocs; returns their number. Local. */
int mm_pieces(int64_t lo, int64_t hi, int kb, int nprocs, mm_piece *out);

/* Pending non-blocking broadcasts. */
typedef struct {
  MPI_Request *r;
  int n, cap;
} mm_reqs;

/* Room for the requests that broadcasting `pieces` pieces of at most `count` entries each takes
 * (messages are cut below INT_MAX elements). 0 on allocation failure. Local. */
int mm_reqs_init(mm_reqs *q, int64_t pieces, int64_t count);
void mm_reqs_free(mm_reqs *q);

/* Broadcast buf[0..count) from root over env: MPI_Ibcast on hbsp_comm(env) (request added to q)
 * when how is NULL, HBSP_AUTO or HBSP_NATIVE, otherwise the blocking hbsp_coll_bcast with how.
 * Nothing for count = 0 or a one-rank env. Collective over env. */
int mm_bcast(hbsp_env env, hreal *buf, int64_t count, int root, const hbsp_coll *how, mm_reqs *q);

/* Complete every request of q (then q is empty). Local (completes collectives already started). */
int mm_wait(hbsp_env env, mm_reqs *q);

/* Copy op(A)'s local columns of piece p into dst (mloc x w, leading dimension mloc). Local. */
void mm_pack_a(const mm_ctx *x, const mm_piece *p, hreal *dst);

/* Copy op(B)'s local rows of piece p, transposed, into dst (nloc x w, leading dimension nloc). */
void mm_pack_bt(const mm_ctx *x, const mm_piece *p, hreal *dst);

/* C := beta C (beta = 0 writes zeros without reading C). Local. */
void mm_scale(const mm_ctx *x);

/* C += alpha ap bt^T with ap mloc x w (ld mloc) and bt nloc x w (ld nloc). The dgemm is cut into
 * column slices of C (a rule that depends on the sizes only) and the requests of the nq queues qs
 * are tested between slices so that the broadcasts in flight progress. Local. */
int mm_update(const mm_ctx *x, const hreal *ap, const hreal *bt, int64_t w, mm_reqs *const *qs,
              int nq);

/* ---------------------------------------------------------------- algorithms */

/** SUMMA (summa.c). Collective over x->all (through x->row and x->col). */
int mm_summa(const mm_ctx *x);

/** HSUMMA with I x J groups and outer block Mo (a multiple of x->panel) (hsumma.c). I divides
 *  x->M, J divides x->N. Collective over x->all. */
int mm_hsumma(const mm_ctx *x, int I, int J, int64_t Mo);

/* ---------------------------------------------------------------- remapping (remap.c) */

/* One dimension of a destination matrix D: n indices cut into c consecutive shares of `share`
 * indices (the last may be shorter or empty; c = 1: no cut); inside a share, blocks of nb dealt
 * over np processes from process 0. */
typedef struct {
  int64_t n;
  int c;
  int64_t share;
  int nb, np;
} mm_dim;

/* A destination D = op(S) dealt over layers of one grid: share l of D (along the one dimension
 * with c > 1) lives on layer l, whose process (pr, pc) is rank l layer_stride + pr N + pc of the
 * environment; this rank's part is data (leading dimension ld), already allocated. */
typedef struct {
  mm_dim row, col;
  int64_t layer_stride;
  int N;
  hreal *data;
  int64_t ld, mloc, nloc; /* this rank's part: mloc x nloc, leading dimension ld */
} mm_target;

/** D := op(S) (trans 'N' or 'T'), S on a grid whose ALL environment is env, in the layout of T.
 *  One superstep of BSMP messages on env; each message carries its destination's local indices.
 *  Collective over env; errors agreed. BSP cost: 2 mloc nloc (packing) + h g + l with
 *  h <= max(local size of S, of D) (+ the indices, mloc + nloc per message), plus 2 agreements. */
int mm_remap(hbsp_env env, char trans, hmat S, const mm_target *T);

/* Local size of this rank's part of a layer matrix with dimension maps r, c (share l). */
int64_t mm_dim_local(const mm_dim *d, int l, int p);

/* ---------------------------------------------------------------- 3D (mm3d.c) */

/* The operands as given, for the 3D algorithm (which remaps them onto its layers). */
typedef struct {
  hgrid g;
  char ta, tb;
  hmat A, B, C;
  double alpha, beta;
  int panel, c, split_rows;
  const hbsp_coll *how;
} mm3d_args;

/** C := alpha op(A) op(B) + beta C with c layers. Collective over the grid's ALL environment. */
int mm_3d(const mm3d_args *x);

/* ---------------------------------------------------------------- row-reduce (reduce.c) */

/** C := alpha A op(B) + beta C, A in C's row blocks with its first block on process (0, 0), B any
 *  layout; for a thin C. Collective over all (the grid's ALL); errors agreed. */
int mm_reduce(hbsp_env all, char tb, double alpha, hmat A, hmat B, double beta, hmat C);

#endif
