/* hla — distributed panel factorisation of the LU (the critical path on few ranks).
 *
 * The panel is the n - j0 by jb block column [j0, j0 + jb) below the diagonal, on one process
 * column of M ranks; its top jb x jb block lives on one process row pr (j0 is block-aligned).
 *
 * M = 1: the whole panel is local, and the node kernel's recursive LU (BLAS-3, threaded) runs.
 * M > 1: a distributed recursive panel (Toledo / LAPACK dgetrf2, as HPL's recursive RFACT): split
 * the columns in halves; factor the left half; U12 := L11^-1 A12 on pr (trsm), broadcast U12 down
 * the column, A22 -= L21 U12 by dgemm on every rank; factor the right half. Below PANEL_LEAF
 * columns (or with HLA_PANEL_COLUMNS, for the whole panel) one column at a time:
 *   1. pivot: one max-with-location over the column (hlu_pivot);
 *   2. one superstep of the column: the pivot row's owner sends it (panel width) to every rank,
 *      pr sends the old diagonal row to the pivot row's owner; the two rows trade places over the
 *      whole panel width, so no interchange is left to apply inside the panel afterwards;
 *   3. scale the column below the diagonal by 1/pivot (divide when 1/pivot would overflow, as
 *      LAPACK); rank-1 update of the rest of the leaf with the pivot row.
 * Up to HLU_PANEL_FUSE_MAX process rows (flat column), 1 and 2 are one collective, as HPL's
 * binary-exchange pivoting: every rank contributes its candidate (value, row, the row's jb
 * entries) and pr the old diagonal row to one allgather (or, where the column lies on one node,
 * posts them on the column's board and reads the others' in place); every rank then picks the same
 * winner (hbsp_dloc_wins, the max-with-location's own rule), so the pivots and the bits do not
 * change. The arithmetic does not depend on how the collectives run (flat or two levels), so both
 * give the same bits; look-ahead only changes when the panel is factored. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "bsp/coll_impl.h"
#include "dist/lu/lu_impl.h"
#include "kernels/kernels.h"

/* Leaves narrower than this are factored column by column. */
#define PANEL_LEAF 8

typedef struct {
  hlu_ctx *c;
  int64_t j0, jl0; /* first global column; its local column */
  int jb;          /* panel width */
  int pr;          /* process row of the diagonal block */
  hreal *p0;       /* local column jl0 (row 0) */
  hreal *prow;     /* pivot row (jb) */
  hreal *msg;      /* a row with a header word: HREAL_WORD + jb */
  hreal *u12;      /* U12 of a recursion step */
  hreal *rec;      /* fused pivot records: (M + 1) x (2 HREAL_WORD + 2 jb), or NULL: not fused */
  int64_t *ipiv, *info;
} panel_t;

/* Steps 1 and 2 above in one allgather (fused form), or on the column's board (ctx->pboard): each
 * rank posts its record in one of its two slots, alternating, and reads the others' in place; a
 * slot is written again two exchanges later, by when every reader has long said it is done, so
 * the claim does not wait. Collective over the column. */
static int pivot_exchange(panel_t *p, int64_t gcol, int64_t cc, hbsp_dloc *piv) {
  hlu_ctx *c = p->c;
  const int M = c->M, me = c->myrow, nb = c->nb;
  /* a record: the pivot's value (a double) and index in two 8-byte words, the candidate row and
   * the old diagonal row */
  const int64_t lld = c->lld, jb = p->jb, h = 2 * HREAL_WORD, w = h + 2 * jb;
  hbsp_board bd = c->pboard;
  const int s = (int)(c->pex % 2);
  hreal *mine = p->rec;
  if (bd != NULL) {
    HLA_CALL(hbsp_board_claim(bd, s));
    mine = hbsp_board_slot(bd, me, s);
  }
  int64_t lr = hlu_pivot_local(c, gcol, p->jl0 + cc, piv);
  memcpy(mine, &piv->value, sizeof(double));
  memcpy(mine + HREAL_WORD, &piv->index, sizeof(int64_t));
  for (int64_t j = 0; j < jb; j++) mine[h + j] = lr >= 0 ? p->p0[lr + j * lld] : 0.0;
  const int64_t lg = me == p->pr ? hmat_idx_g2l(gcol, nb, M) : -1;
  for (int64_t j = 0; j < jb; j++) mine[h + jb + j] = lg >= 0 ? p->p0[lg + j * lld] : 0.0;
  const hreal *rec[HLU_PANEL_FUSE_MAX] = {NULL}; /* the records of the M ranks */
  if (bd != NULL) {
    HLA_CALL(hbsp_board_post(bd, s));
    for (int q = 0; q < M; q++) {
      const void *d = mine;
      if (q != me) HLA_CALL(hbsp_board_wait(bd, q, s, &d));
      rec[q] = d;
    }
  } else {
    hreal *all = p->rec + w;
    HLA_CALL(hbsp_coll_allgather(c->collv.env, mine, all, (size_t)w * sizeof(hreal), NULL));
    for (int q = 0; q < M; q++) rec[q] = all + q * w;
  }
  int best = 0;
  for (int q = 0; q < M; q++) {
    hbsp_dloc a, b;
    memcpy(&a.value, rec[q], sizeof(double)), memcpy(&a.index, rec[q] + HREAL_WORD, 8);
    memcpy(&b.value, rec[best], sizeof(double)), memcpy(&b.index, rec[best] + HREAL_WORD, 8);
    if (q == 0 || hbsp_dloc_wins(&a, &b, 1)) best = q, *piv = a;
  }
  memcpy(p->prow, rec[best] + h, (size_t)jb * sizeof(hreal));
  const int64_t r = piv->index;
  if (r != gcol && hmat_idx_owner(r, nb, M) == me) { /* the old diagonal row to the pivot's place */
    const hreal *old = rec[p->pr] + h + jb;
    int64_t lp = hmat_idx_g2l(r, nb, M);
    for (int64_t j = 0; j < jb; j++) p->p0[lp + j * lld] = old[j];
  }
  if (bd != NULL) {
    for (int q = 0; q < M; q++)
      if (q != me) HLA_CALL(hbsp_board_done(bd, q, s));
    c->pex++;
  }
  if (lg >= 0)
    for (int64_t j = 0; j < jb; j++) p->p0[lg + j * lld] = p->prow[j];
  return HLA_OK;
}

/* Step 2 above for column gcol with pivot row r. Collective over the column. */
static int exchange(panel_t *p, int64_t gcol, int64_t r) {
  hlu_ctx *c = p->c;
  hbsp_env col = c->collv.env;
  int nb = c->nb, M = c->M, me = c->myrow, owner_r = hmat_idx_owner(r, nb, M);
  int64_t lld = c->lld, jb = p->jb;
  size_t bytes = (size_t)(HREAL_WORD + jb) * sizeof(hreal);
  if (me == owner_r) { /* kind 0: the pivot row, to everyone */
    int64_t kind = 0, lr = hmat_idx_g2l(r, nb, M);
    memcpy(p->msg, &kind, sizeof kind);
    for (int64_t j = 0; j < jb; j++) p->msg[HREAL_WORD + j] = p->p0[lr + j * lld];
    for (int q = 0; q < M; q++) HLA_CALL(hbsp_send(col, q, NULL, p->msg, bytes));
  }
  if (me == p->pr && r != gcol) { /* kind 1: the old diagonal row, to the pivot row's place */
    int64_t kind = 1, lg = hmat_idx_g2l(gcol, nb, M);
    memcpy(p->msg, &kind, sizeof kind);
    for (int64_t j = 0; j < jb; j++) p->msg[HREAL_WORD + j] = p->p0[lg + j * lld];
    HLA_CALL(hbsp_send(col, owner_r, NULL, p->msg, bytes));
  }
  size_t nmsg, got;
  HLA_CALL(hdist_sync_count(col, &nmsg));
  for (size_t q = 0; q < nmsg; q++) {
    int64_t kind;
    HLA_CALL(hbsp_move(col, NULL, p->msg, bytes, &got));
    memcpy(&kind, p->msg, sizeof kind);
    if (kind == 0) {
      memcpy(p->prow, p->msg + HREAL_WORD, (size_t)jb * sizeof(hreal));
    } else {
      int64_t lr = hmat_idx_g2l(r, nb, M);
      for (int64_t j = 0; j < jb; j++) p->p0[lr + j * lld] = p->msg[HREAL_WORD + j];
    }
  }
  if (me == p->pr) {
    int64_t lg = hmat_idx_g2l(gcol, nb, M);
    for (int64_t j = 0; j < jb; j++) p->p0[lg + j * lld] = p->prow[j];
  }
  return HLA_OK;
}

/* Columns [c0, c0 + w) of the panel (relative), one at a time. */
static int leaf(panel_t *p, int64_t c0, int64_t w) {
  hlu_ctx *c = p->c;
  int64_t lld = c->lld;
  for (int64_t cc = c0; cc < c0 + w; cc++) {
    int64_t gcol = p->j0 + cc;
    hbsp_dloc piv;
    if (p->rec) {
      HLA_CALL(pivot_exchange(p, gcol, cc, &piv));
      p->ipiv[gcol] = piv.index;
    } else {
      HLA_CALL(hlu_pivot(c, gcol, p->jl0 + cc, &piv));
      p->ipiv[gcol] = piv.index;
      HLA_CALL(exchange(p, gcol, piv.index));
    }
    int64_t lr = hmat_numroc(gcol + 1, c->nb, c->myrow, c->M); /* my rows below the diagonal */
    int64_t m = c->mloc - lr;
    hreal *colc = p->p0 + cc * lld + lr, v = piv.value;
    if (v != 0.0) {
      if (fabs(v) >= DBL_MIN)
        hkern_dscal(m, 1.0 / v, colc, 1);
      else
        for (int64_t i = 0; i < m; i++) colc[i] /= v;
    } else if (*p->info < 0) {
      *p->info = gcol;
    }
    int64_t rest = c0 + w - cc - 1;
    if (m > 0 && rest > 0)
      HLA_CALL(hkern_dger(m, rest, -1.0, colc, 1, p->prow + cc + 1, 1, colc + lld, lld));
  }
  return HLA_OK;
}

static int rec(panel_t *p, int64_t c0, int64_t w, int64_t leafw) {
  if (w <= leafw) return leaf(p, c0, w);
  hlu_ctx *c = p->c;
  int64_t n1 = w / 2, n2 = w - n1, lld = c->lld;
  HLA_CALL(rec(p, c0, n1, leafw));
  /* U12 := L11^-1 A12 on the diagonal process row (its rows j0 + c0 .. are local and consecutive
   * there), then down the column. */
  if (c->myrow == p->pr) {
    int64_t li = hmat_idx_g2l(p->j0 + c0, c->nb, c->M);
    hreal *L11 = p->p0 + li + c0 * lld, *A12 = L11 + n1 * lld;
    HLA_CALL(hkern_dtrsm('L', 'L', 'N', 'U', n1, n2, 1.0, L11, lld, A12, lld));
    hkern_pack(n1, n2, A12, lld, p->u12);
  }
  HLA_CALL(hlu_bcast(&c->collv, p->u12, (size_t)(n1 * n2) * sizeof(hreal), p->pr, c->howp));
  int64_t lr = hmat_numroc(p->j0 + c0 + n1, c->nb, c->myrow, c->M), m = c->mloc - lr;
  if (m > 0)
    HLA_CALL(hkern_dgemm('N', 'N', m, n2, n1, -1.0, p->p0 + lr + c0 * lld, lld, p->u12, n1, 1.0,
                         p->p0 + lr + (c0 + n1) * lld, lld));
  return rec(p, c0 + n1, n2, leafw);
}

int hlu_panel(hlu_ctx *c, int64_t j0, int jb, int64_t *ipiv, int64_t *info) {
  int64_t jl0 = hmat_idx_g2l(j0, c->nb, c->N), lld = c->lld;
  hreal *p0 = c->a + jl0 * lld;
  *info = -1;
  if (c->M == 1 && c->plan.panel != HLA_PANEL_COLUMNS) {
    /* One process row: local rows are global rows. */
    int64_t inf;
    HLA_CALL(hkern_panel_lu(c->mloc - j0, jb, p0 + j0, lld, ipiv + j0, &inf));
    for (int64_t k = j0; k < j0 + jb; k++) ipiv[k] += j0;
    if (inf >= 0) *info = j0 + inf;
    return HLA_OK;
  }
  hreal *pb = c->pbuf;
  const int fused = c->collv.local == NULL && c->M <= HLU_PANEL_FUSE_MAX;
  panel_t p = {c,
               j0,
               jl0,
               jb,
               hmat_idx_owner(j0, c->nb, c->M),
               p0,
               pb,
               pb + jb,
               pb + 2 * jb + HREAL_WORD,
               fused ? pb + 3 * ((int64_t)c->nb + HREAL_WORD) + (int64_t)c->nb * c->nb
                     : NULL, /* after U12 */
               ipiv,
               info};
  return rec(&p, 0, jb, c->plan.panel == HLA_PANEL_COLUMNS ? jb : PANEL_LEAF);
}
