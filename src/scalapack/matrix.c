/* hla — libhla_scalapack: a descriptor's submatrix -> the hla matrix an operation computes on.
 *
 * The caller's local array, in the descriptor's layout, is wrapped in place (hmat_wrap): one piece
 * when the layout is plain block-cyclic (first block MB x NB, as every type-1 descriptor); a
 * PBLAS first block of its own size (IMB != MB) splits the rows in two plain pieces, the first
 * block alone on RSRC and the rest dealt from RSRC + 1 on (on RSRC its local rows start after the
 * first block's), and likewise the columns: up to four pieces over the same array. A replicated
 * dimension (RSRC or CSRC -1: every process row or column holds all of it) is one piece per
 * replica, each held by one process row or column: one of them is read, all are written.
 *
 * The whole matrix in one piece is handed to hla as it is (in place when its first block is on
 * process (0, 0); hla copies it itself otherwise, hdist_unshift). Anything else (a part of the
 * matrix, offsets, a first block of its own size, replication, blocks the operation cannot take)
 * is copied into a new hla matrix (hmat_redistribute_part from each piece) and back.
 */
#include <math.h>
#include <stdlib.h>
#include "scalapack/scalapack_impl.h"

/* A range of rows (or columns) of the descriptor's matrix in a plain layout: global [r0, r0 +
 * len) in blocks of blk dealt from process src; on this process its local rows start at off. */
typedef struct {
  int64_t r0, len, off;
  int blk, src, replica;
} range;

/* The ranges of one dimension (n entries, first block ib, then nb; from src over nprocs, me
 * mine); replicas: all of a replicated dimension's, else its first. Returns the count (<= max(2,
 * nprocs)). */
static int ranges(int64_t n, int ib, int nb, int src, int nprocs, int me, int replicas, range *r) {
  if (src < 0) { /* replicated: every process holds all n, one replica per process */
    int k = replicas ? nprocs : 1;
    for (int p = 0; p < k; p++) r[p] = (range){0, n, 0, (int)(n > 1 ? n : 1), p, p};
    return k;
  }
  if (ib == nb || n <= ib) {
    r[0] = (range){0, n, 0, n <= ib ? ib : nb, src, 0};
    return 1;
  }
  r[0] = (range){0, ib, 0, ib, src, 0};
  r[1] = (range){ib, n - ib, me == src ? ib : 0, nb, (src + 1) % nprocs, 0};
  return 2;
}

int64_t sl_local_words(sl_grid *G, const sl_desc *d) {
  int64_t mp = sl_numroc(d->m, d->imb, d->mb, G->myrow, d->rsrc, G->nprow);
  int64_t nq = sl_numroc(d->n, d->inb, d->nb, G->mycol, d->csrc, G->npcol);
  return nq > 0 && mp > 0 ? (int64_t)d->lld * (nq - 1) + mp : 0;
}

/* Wrap the pieces of d over a into x (all replicas when write). Collective over G's ALL. */
static int wrap_pieces(sl_grid *G, double *a, const sl_desc *d, int write, sl_mat *x) {
  int nr_max = G->nprow > 2 ? G->nprow : 2, nc_max = G->npcol > 2 ? G->npcol : 2, code = HLA_OK;
  range *rr = sl_malloc("hla_scalapack", (size_t)(nr_max + nc_max) * sizeof *rr), *cr = rr + nr_max;
  x->p = sl_malloc("hla_scalapack", (size_t)(nr_max * nc_max) * sizeof *x->p);
  int nr = ranges(d->m, d->imb, d->mb, d->rsrc, G->nprow, G->myrow, write, rr);
  int nc = ranges(d->n, d->inb, d->nb, d->csrc, G->npcol, G->mycol, write, cr);
  x->np = 0;
  for (int i = 0; i < nr && code == HLA_OK; i++)
    for (int j = 0; j < nc && code == HLA_OK; j++) {
      const range *r = &rr[i], *c = &cr[j];
      int64_t ml = hmat_numroc(r->len, r->blk, (G->myrow - r->src + G->nprow) % G->nprow, G->nprow);
      int64_t nl = hmat_numroc(c->len, c->blk, (G->mycol - c->src + G->npcol) % G->npcol, G->npcol);
      /* LLD need not hold the local rows where there is no local column (PBLAS, CHK1MAT) */
      int64_t lld = nl > 0 ? d->lld : d->lld > ml ? d->lld : ml > 1 ? ml : 1;
      double *data = ml * nl > 0 ? a + r->off + c->off * (int64_t)d->lld : NULL;
      sl_piece *p = &x->p[x->np];
      code = hmat_wrap(G->g, r->len, c->len, r->blk, c->blk, r->src, c->src, data, lld, &p->h);
      if (code == HLA_OK) {
        p->r0 = r->r0, p->c0 = c->r0;
        p->replica = r->replica || c->replica;
        x->np++;
      }
    }
  free(rr);
  return code;
}

/* The part of piece p inside x's submatrix: its rows [pi, pi + pm) and columns [pj, pj + pn),
 * which are the submatrix's [pi + p->r0 - x->i0, ...). 0 if empty. Local, pure. */
static int overlap(const sl_mat *x, const sl_piece *p, int64_t *pi, int64_t *pj, int64_t *pm,
                   int64_t *pn) {
  int64_t rows, cols;
  hmat_size(p->h, &rows, &cols);
  int64_t a0 = x->i0 > p->r0 ? x->i0 : p->r0,
          a1 = x->i0 + x->m < p->r0 + rows ? x->i0 + x->m : p->r0 + rows;
  int64_t b0 = x->j0 > p->c0 ? x->j0 : p->c0,
          b1 = x->j0 + x->n < p->c0 + cols ? x->j0 + x->n : p->c0 + cols;
  if (a1 <= a0 || b1 <= b0) return 0;
  *pi = a0 - p->r0, *pj = b0 - p->c0, *pm = a1 - a0, *pn = b1 - b0;
  return 1;
}

/* Copy between the pieces and the copy work: in (pieces -> work; the first replica only) or out
 * (work -> every piece). Collective over G's ALL. */
static int copy_pieces(sl_mat *x, int in) {
  for (int k = 0; k < x->np; k++) {
    const sl_piece *p = &x->p[k];
    int64_t pi, pj, pm, pn;
    if ((in && p->replica) || !overlap(x, p, &pi, &pj, &pm, &pn)) continue;
    int64_t wi = pi + p->r0 - x->i0, wj = pj + p->c0 - x->j0;
    int code = in ? hmat_redistribute_part(p->h, pi, pj, x->work, wi, wj, pm, pn)
                  : hmat_redistribute_part(x->work, wi, wj, p->h, pi, pj, pm, pn);
    if (code != HLA_OK) return code;
  }
  return HLA_OK;
}

static void free_pieces(sl_mat *x) {
  for (int k = 0; k < x->np; k++) hmat_free(&x->p[k].h);
  free(x->p);
  x->p = NULL, x->np = 0;
}

int sl_mat_wrap(sl_grid *G, double *a, const sl_desc *d, int64_t i0, int64_t j0, int64_t m,
                int64_t n, int write, sl_mat *x) {
  *x = (sl_mat){.G = G, .i0 = i0, .j0 = j0, .m = m, .n = n};
  return wrap_pieces(G, a, d, write, x);
}

int sl_mat_open(sl_grid *G, double *a, const sl_desc *d, int64_t i0, int64_t j0, int64_t m,
                int64_t n, const sl_use *u, sl_mat *x) {
  HLA_CALL(sl_mat_wrap(G, a, d, i0, j0, m, n, u->write, x));
  const int whole = i0 == 0 && j0 == 0 && m == d->m && n == d->n;
  const int plain = x->np == 1 && d->imb == d->mb && d->inb == d->nb && d->rsrc >= 0 &&
                    d->csrc >= 0 && (u->mb == 0 || u->mb == d->mb) &&
                    (u->nb == 0 || u->nb == d->nb);
  if (u->direct && whole && plain) {
    x->work = x->p[0].h;
    x->in_place = d->rsrc == 0 && d->csrc == 0;
    return HLA_OK;
  }
  x->copy = 1;
  int code = hmat_create(u->grid != NULL ? u->grid : G->g, m, n, u->cmb, u->cnb, &x->work);
  if (code == HLA_OK && u->read) code = copy_pieces(x, 1);
  if (code != HLA_OK) {
    hmat_free(&x->work);
    free_pieces(x);
  }
  return code;
}

int sl_mat_close(sl_mat *x, int write) {
  int code = x->copy && write ? copy_pieces(x, 0) : HLA_OK;
  if (x->copy) hmat_free(&x->work);
  x->work = NULL;
  free_pieces(x);
  return code;
}

/* := beta x (set = 0) or := value (set = 1) on my entries of sub(X) in every piece. */
static void local_apply(sl_mat *x, double v, int set) {
  for (int k = 0; k < x->np; k++) {
    const sl_piece *p = &x->p[k];
    double *a;
    int64_t lld, ml, nl;
    hmat_local(p->h, &a, &lld, &ml, &nl);
    for (int64_t jl = 0; jl < nl; jl++) {
      int64_t j = p->c0 + hmat_l2g_col(p->h, jl);
      if (j < x->j0 || j >= x->j0 + x->n) continue;
      for (int64_t il = 0; il < ml; il++) {
        int64_t i = p->r0 + hmat_l2g_row(p->h, il);
        double *e = a + il + jl * lld;
        if (i >= x->i0 && i < x->i0 + x->m) *e = set || v == 0.0 ? v : v * *e;
      }
    }
  }
}

void sl_mat_scale(sl_mat *x, double beta) {
  local_apply(x, beta, 0);
}

void sl_mat_fill(sl_mat *x, double value) {
  local_apply(x, value, 1);
}

int sl_lu_block(const sl_desc *d, int64_t m, int64_t n) {
  int64_t order = m > n ? m : n;
  return d->mb == d->nb && (d->mb >= SL_LU_MIN_BLOCK || order < SL_LU_SMALL) ? d->mb : 0;
}
