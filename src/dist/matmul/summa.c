/* hla — SUMMA (van de Geijn and Watts; ../reference/001_hsumma_hasanov.md §3.1) on an M x N grid
 * with block-cyclic operands, and the panel machinery HSUMMA shares (pieces, packing, broadcasts,
 * the local update).
 *
 * For each panel [k0, k0 + b) of the k dimension, the process columns that own op(A)(:, panel)
 * broadcast their mloc x b piece along their process row, the process rows that own
 * op(B)(panel, :) broadcast their b x nloc piece (transposed, see matmul_impl.h) along their
 * process column, and every process adds alpha Apanel Bpanel to its part of C with one dgemm.
 * Panels need not align with the blocks: a panel that crosses block boundaries is broadcast
 * piece by piece from each owner into its place in the panel buffer.
 *
 * Overlap: the broadcasts of panel s + 1 are started (MPI_Ibcast) before the update of panel s,
 * into the second of two panel buffers, and are tested between slices of that update so that
 * they progress without an asynchronous progress thread. With an explicit broadcast algorithm
 * (hla_opts.bcast.alg other than AUTO/NATIVE) the broadcasts are the BSP layer's blocking ones,
 * issued in the same look-ahead order (no overlap then, but the counted traffic of the profiler).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "bsp/coll_impl.h"
#include "dist/matmul/matmul_impl.h"
#include "kernels/kernels.h"

/* Largest element count of one MPI_Ibcast (MPI counts are int). */
#define MM_CHUNK ((int64_t)1 << 30)

static int64_t max1(int64_t v) {
  return v > 1 ? v : 1;
}

/* ---------------------------------------------------------------- pieces */

int64_t mm_max_pieces(int64_t w, int kb) {
  if (w <= 0) return 0;
  return (w + kb - 1) / kb + 1;
}

int mm_pieces(int64_t lo, int64_t hi, int kb, int nprocs, mm_piece *out) {
  int n = 0;
  for (int64_t j = lo; j < hi; n++) {
    int64_t blk = j / kb, end = (blk + 1) * kb;
    if (end > hi) end = hi;
    out[n].g0 = j;
    out[n].w = end - j;
    out[n].off = j - lo;
    out[n].owner = (int)(blk % nprocs);
    out[n].loc = hmat_idx_g2l(j, kb, nprocs);
    j = end;
  }
  return n;
}

/* ---------------------------------------------------------------- broadcasts */

int mm_reqs_init(mm_reqs *q, int64_t pieces, int64_t count) {
  int64_t per = count / MM_CHUNK + 1;
  int64_t cap = pieces * per + 1;
  q->n = 0;
  q->cap = cap > INT_MAX ? INT_MAX : (int)cap;
  q->r = malloc((size_t)q->cap * sizeof *q->r);
  return q->r != NULL;
}

void mm_reqs_free(mm_reqs *q) {
  free(q->r);
  q->r = NULL;
  q->n = q->cap = 0;
}

static int native(const hbsp_coll *how) {
  return how == NULL || how->alg == HBSP_AUTO || how->alg == HBSP_NATIVE;
}

int mm_bcast(hbsp_env env, hreal *buf, int64_t count, int root, const hbsp_coll *how, mm_reqs *q) {
  if (count <= 0 || hbsp_size(env) <= 1) return HLA_OK;
  if (!native(how)) return hbsp_coll_bcast(env, buf, (size_t)count * sizeof(hreal), root, how);
  for (int64_t off = 0; off < count; off += MM_CHUNK) {
    int64_t n = count - off < MM_CHUNK ? count - off : MM_CHUNK;
    if (q->n >= q->cap)
      return HBSP_FAIL(env, HLA_ERR_INTERNAL, "hmatmul: too many broadcasts in flight");
    HBSP_MPI(env, MPI_Ibcast(buf + off, (int)n, HREAL_MPI, root, hbsp_comm(env), &q->r[q->n]));
    q->n++;
  }
  return HLA_OK;
}

int mm_wait(hbsp_env env, mm_reqs *q) {
  if (q->n == 0) return HLA_OK;
  int e = MPI_Waitall(q->n, q->r, MPI_STATUSES_IGNORE);
  q->n = 0;
  if (e != MPI_SUCCESS)
    return HBSP_FAIL(env, HLA_ERR_MPI, "hmatmul: MPI_Waitall failed (MPI error %d)", e);
  return HLA_OK;
}

/* ---------------------------------------------------------------- local work */

void mm_pack_a(const mm_ctx *x, const mm_piece *p, hreal *dst) {
  if (x->mloc == 0) return;
  hkern_dlacpy('A', x->mloc, p->w, x->a + p->loc * x->lda, x->lda, dst, x->mloc);
}

void mm_pack_bt(const mm_ctx *x, const mm_piece *p, hreal *dst) {
  hkern_transpose(p->w, x->nloc, x->b + p->loc, x->ldb, dst, x->nloc);
}

void mm_scale(const mm_ctx *x) {
  if (x->beta == 1.0 || x->mloc == 0 || x->nloc == 0) return;
  if (x->beta == 0.0)
    hkern_dlaset(x->mloc, x->nloc, 0.0, 0.0, x->c, x->ldc); /* never reads C: NaN goes away */
  else
    for (int64_t j = 0; j < x->nloc; j++) hkern_dscal(x->mloc, x->beta, x->c + j * x->ldc, 1);
}

/* Drive the progress engine on q; completion is collected by mm_wait. */
static void progress(mm_reqs *q) {
  if (q == NULL || q->n == 0) return;
  int flag;
  MPI_Testall(q->n, q->r, &flag, MPI_STATUSES_IGNORE);
  if (flag) q->n = 0; /* all complete and freed */
}

int mm_update(const mm_ctx *x, const hreal *ap, const hreal *bt, int64_t w, mm_reqs *const *qs,
              int nq) {
  if (x->mloc == 0 || x->nloc == 0 || w == 0) return HLA_OK;
  /* Slices: a rule on the sizes only, so that SUMMA and HSUMMA make the same dgemm calls. */
  int64_t slices = x->nloc >= 1024 ? 4 : 1;
  int64_t width = (x->nloc + slices - 1) / slices;
  for (int64_t j0 = 0; j0 < x->nloc; j0 += width) {
    int64_t nc = x->nloc - j0 < width ? x->nloc - j0 : width;
    HLA_CALL(hkern_dgemm('N', 'T', x->mloc, nc, w, x->alpha, ap, x->mloc, bt + j0, x->nloc, 1.0,
                         x->c + j0 * x->ldc, x->ldc));
    for (int i = 0; i < nq; i++) progress(qs[i]);
  }
  return HLA_OK;
}

/* ---------------------------------------------------------------- SUMMA */

typedef struct {
  hreal *a[2], *bt[2];
  mm_piece *pa, *pb;
  mm_reqs q[2];
} summa_ws;

static void summa_ws_free(hgrid g, summa_ws *w) {
  for (int i = 0; i < 2; i++) {
    hdist_give(g, w->a[i]);
    hdist_give(g, w->bt[i]);
    mm_reqs_free(&w->q[i]);
  }
  free(w->pa);
  free(w->pb);
}

/* Start the broadcasts of panel s into buffer s % 2. */
static int summa_post(const mm_ctx *x, summa_ws *w, int64_t s) {
  int64_t lo = s * x->panel, hi = lo + x->panel < x->k ? lo + x->panel : x->k;
  int i = (int)(s % 2);
  int na = mm_pieces(lo, hi, x->kba, x->N, w->pa);
  for (int p = 0; p < na; p++) {
    hreal *dst = w->a[i] + w->pa[p].off * x->mloc;
    if (w->pa[p].owner == x->mycol) mm_pack_a(x, &w->pa[p], dst);
    HLA_CALL(mm_bcast(x->row, dst, x->mloc * w->pa[p].w, w->pa[p].owner, x->how, &w->q[i]));
  }
  int nb = mm_pieces(lo, hi, x->kbb, x->M, w->pb);
  for (int p = 0; p < nb; p++) {
    hreal *dst = w->bt[i] + w->pb[p].off * x->nloc;
    if (w->pb[p].owner == x->myrow) mm_pack_bt(x, &w->pb[p], dst);
    HLA_CALL(mm_bcast(x->col, dst, x->nloc * w->pb[p].w, w->pb[p].owner, x->how, &w->q[i]));
  }
  return HLA_OK;
}

/* SUMMA. Collective over x->all (its rows x->row and columns x->col).
 *
 * Cost, M x N grid, S = ceil(k / b) panels, broadcast of m words over p processes costing
 * L(p) alpha + m W(p) beta in the Hockney model (reference 001 eq. 4.1), mloc ~ m/M, nloc ~ n/N:
 *   T = S (L(N) + L(M)) alpha + k (m/M W(N) + n/N W(M)) beta + 2 m n k / P gamma
 * (one more start-up per extra piece when panels cross block boundaries). For a sqrt P x sqrt P
 * grid and n = m = k this is (n/b) 2 L(sqrt P) alpha + (2 n^2 / sqrt P) W(sqrt P) beta; with the
 * scatter-allgather broadcast (L = log2 p + p - 1, W = 2 (p - 1)/p) it is reference 001's L1865,
 * (log2 P + 2 (sqrt P - 1)) alpha n/b + 4 (1 - 1/sqrt P) beta n^2 / sqrt P. In BSP terms, with a
 * two-phase broadcast (one superstep each for scatter and allgather): 2 m n k / P flops,
 * H = 2 k (m/M + n/N) words, 2 S supersteps (row and column broadcasts run in the same ones).
 * The broadcasts of a panel overlap the dgemm of the previous one, so with enough bandwidth the
 * time tends to max(compute, communication) rather than their sum.
 * Memory: 2 (mloc + nloc) b doubles of panel buffers. */
int mm_summa(const mm_ctx *x) {
  summa_ws w;
  memset(&w, 0, sizeof w);
  int64_t b = x->panel, S = x->k > 0 ? (x->k + b - 1) / b : 0;
  int64_t npa = mm_max_pieces(b, x->kba), npb = mm_max_pieces(b, x->kbb);
  int ok = 1;
  for (int i = 0; i < 2 && S > 0; i++) {
    ok = ok && (w.a[i] = HREAL_TAKE(x->g, x->mloc * b)) != NULL;
    ok = ok && (w.bt[i] = HREAL_TAKE(x->g, x->nloc * b)) != NULL;
    ok = ok && mm_reqs_init(&w.q[i], npa + npb, max1(x->mloc > x->nloc ? x->mloc : x->nloc) * b);
  }
  if (ok && S > 0) {
    w.pa = malloc((size_t)npa * sizeof *w.pa);
    w.pb = malloc((size_t)npb * sizeof *w.pb);
    ok = w.pa != NULL && w.pb != NULL;
  }
  int code = ok ? HLA_OK : HBSP_FAIL(x->all, HLA_ERR_NOMEM, "hmatmul: no memory for SUMMA panels");
  code = hbsp_agree(x->all, code);
  if (code != HLA_OK) {
    summa_ws_free(x->g, &w);
    HLA_CALL(code);
  }
  mm_scale(x);
  if (S > 0) code = summa_post(x, &w, 0);
  for (int64_t s = 0; s < S && code == HLA_OK; s++) {
    int i = (int)(s % 2);
    if (s + 1 < S) code = summa_post(x, &w, s + 1);
    if (code == HLA_OK) code = mm_wait(x->row, &w.q[i]);
    int64_t width = x->k - s * b < b ? x->k - s * b : b;
    mm_reqs *next = &w.q[1 - i]; /* in flight behind this update */
    if (code == HLA_OK) code = mm_update(x, w.a[i], w.bt[i], width, &next, 1);
  }
  for (int i = 0; i < 2; i++)
    if (w.q[i].n) mm_wait(x->row, &w.q[i]); /* never leave a request behind */
  summa_ws_free(x->g, &w);
  HLA_CALL(code);
  return HLA_OK;
}
