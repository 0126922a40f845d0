/* hla — distributed panel factorisation of the LU (the critical path on few ranks).
 *
 * The panel is the n - j0 by jb block column [j0, j0 + jb) below the diagonal, on one process
 * column of M ranks; its top jb x jb block lives on one process row pr (j0 is block-aligned).
 *
 * M = 1: the whole panel is local, and the node kernel's recursive LU (BLAS-3, threaded) runs.
 * M > 1: a distributed recursive panel (Toledo / LAPACK dgetrf2, as HPL's recursive RFACT): split
 * the columns in halves; factor the left half; U12 := L11^-1 A12 (trsm) and A22 -= L21 U12 (dgemm)
 * on every rank; factor the right half. Every rank has L11 and A12: they are pivot rows, and every
 * rank gets each pivot row whole (panel width) in step 1 below, so it keeps them (as HPL keeps the
 * panel's top rows on every rank of the column) and solves U12 itself instead of waiting for pr's
 * broadcast. A step's pivot rows are not written between their exchange and this trsm (the leaf
 * updates only its own columns, and only rows below the diagonal); pr writes the solved U12 into
 * its rows. On 8 x 128 of the simulated torus in panels of 32 the broadcasts, 3 a panel, took
 * 5.5 % of the time (0.246 -> 0.233 s, bench/results/sim/README.md). Below PANEL_LEAF
 * columns (or with HLA_PANEL_COLUMNS, for the whole panel) one column at a time:
 *   1. pivot and row trade in one collective, as HPL's pivoting (HPL_pdmxswp): every rank
 *      contributes a record of its candidate (value, row, the row's jb entries; hlu_pivot_local)
 *      and pr's also the old diagonal row, and every rank ends with the winner's (hbsp_dloc_wins,
 *      the max-with-location's own rule) and the old diagonal row. The two rows trade places over
 *      the whole panel width, so no interchange is left to apply inside the panel afterwards;
 *   2. scale the column below the diagonal by 1/pivot (divide when 1/pivot would overflow, as
 *      LAPACK); rank-1 update of the rest of the leaf with the pivot row.
 * The records travel
 *   where the column lies on one node (up to HLU_PANEL_FUSE_MAX process rows), on the column's
 *     board, each read in place by the others;
 *   elsewhere by HPL's binary exchange, an allreduce of one record whose combine keeps the
 *     winner's row and carries the diagonal row along (hbsp_coll_allreduce_rec): log2 M messages
 *     of 2 jb + 3 words. It replaced an allgather of all M records (up to 8 rows) and a
 *     max-with-location followed by a superstep (longer columns), and took the simulated LU on a
 *     torus from 0.80 x HPL's speed to 1.26-1.34 x (bench/results/sim/README.md);
 *   on a two-level column, node first, then across nodes (hlu_allreduce_rec): the exchange in the
 *     node, among the nodes' leaders, then the leader's record broadcast in the node. It replaced
 *     a two-level max-with-location followed by a round of messages from the pivot row's owner,
 *     and took the hierarchical LU on 32 x 32 by node of the simulated fat tree from 0.254 to
 *     0.134 s, now faster than the flat LU there (bench/results/sim/README.md).
 * The combine is associative and commutative, so every form gives the same pivots and bits;
 * look-ahead only changes when the panel is factored. */
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
  hreal *top;      /* the panel's diagonal rows, jb x jb: row cc is column cc's pivot row */
  hreal *rec;      /* two pivot records (HLU_REC_WORDS): mine, and the exchange's workspace */
  int64_t *ipiv, *info;
} panel_t;

static hbsp_dloc rec_dloc(const hreal *r) {
  hbsp_dloc d;
  memcpy(&d.value, r, sizeof(double));
  memcpy(&d.index, r + HREAL_WORD, sizeof(int64_t));
  return d;
}

/* The binary exchange's combine: the winner's candidate, and the diagonal row from whichever
 * record has it (only one can: it starts on pr alone). The same bits either way round, as the
 * winner rule is a strict order on distinct rows. */
static void rec_combine(void *inout, const void *in, void *arg) {
  const int64_t jb = *(const int64_t *)arg;
  hreal *a = inout;
  const hreal *b = in;
  const hbsp_dloc x = rec_dloc(a), y = rec_dloc(b);
  if (hbsp_dloc_wins(&y, &x, 1)) {
    memcpy(a, b, 2 * HREAL_WORD * sizeof(hreal));
    memcpy(a + HLU_REC_HDR, b + HLU_REC_HDR, (size_t)jb * sizeof(hreal));
  }
  int64_t has;
  memcpy(&has, b + 2 * HREAL_WORD, sizeof has);
  if (has) {
    memcpy(a + 2 * HREAL_WORD, b + 2 * HREAL_WORD, HREAL_WORD * sizeof(hreal));
    memcpy(a + HLU_REC_HDR + jb, b + HLU_REC_HDR + jb, (size_t)jb * sizeof(hreal));
  }
}

/* Step 1 above: on the column's board (ctx->pboard) each rank posts its record in one of its two
 * slots, alternating, and reads the others' in place (a slot is written again two exchanges later,
 * by when every reader has long said it is done, so the claim does not wait); else the binary
 * exchange, on one level or two. Collective over the column. */
static int pivot_exchange(panel_t *p, int64_t gcol, int64_t cc, hbsp_dloc *piv) {
  hlu_ctx *c = p->c;
  const int M = c->M, me = c->myrow, nb = c->nb;
  const int64_t lld = c->lld, jb = p->jb;
  const int64_t lr = hlu_pivot_local(c, gcol, p->jl0 + cc, piv);
  const int64_t lg = me == p->pr ? hmat_idx_g2l(gcol, nb, M) : -1, has = lg >= 0;
  hbsp_board bd = c->pboard;
  const int s = (int)(c->pex % 2);
  hreal *mine = p->rec;
  if (bd != NULL) {
    HLA_CALL(hbsp_board_claim(bd, s));
    mine = hbsp_board_slot(bd, me, s);
  }
  memcpy(mine, &piv->value, sizeof(double));
  memcpy(mine + HREAL_WORD, &piv->index, sizeof(int64_t));
  memcpy(mine + 2 * HREAL_WORD, &has, sizeof has);
  for (int64_t j = 0; j < jb; j++) {
    mine[HLU_REC_HDR + j] = lr >= 0 ? p->p0[lr + j * lld] : 0.0;
    mine[HLU_REC_HDR + jb + j] = has ? p->p0[lg + j * lld] : 0.0;
  }
  const hreal *win = mine, *old = mine; /* the winner's record, the one with the diagonal row */
  if (bd != NULL) {
    HLA_CALL(hbsp_board_post(bd, s));
    for (int q = 0; q < M; q++) {
      const void *d = mine;
      if (q != me) HLA_CALL(hbsp_board_wait(bd, q, s, &d));
      hbsp_dloc a = rec_dloc(d), b = rec_dloc(win);
      if (hbsp_dloc_wins(&a, &b, 1)) win = d;
      if (q == p->pr) old = d;
    }
  } else {
    HLA_CALL(hlu_allreduce_rec(&c->collv, mine, p->rec + HLU_REC_WORDS(jb),
                               (size_t)HLU_REC_WORDS(jb) * sizeof(hreal), rec_combine, (void *)&jb,
                               c->howp));
  }
  *piv = rec_dloc(win);
  memcpy(p->prow, win + HLU_REC_HDR, (size_t)jb * sizeof(hreal));
  const int64_t r = piv->index;
  if (r != gcol && hmat_idx_owner(r, nb, M) == me) { /* the old diagonal row to the pivot's place */
    const int64_t lp = hmat_idx_g2l(r, nb, M);
    for (int64_t j = 0; j < jb; j++) p->p0[lp + j * lld] = old[HLU_REC_HDR + jb + j];
  }
  if (bd != NULL) { /* the others' records are read */
    for (int q = 0; q < M; q++)
      if (q != me) HLA_CALL(hbsp_board_done(bd, q, s));
    c->pex++;
  }
  if (has)
    for (int64_t j = 0; j < jb; j++) p->p0[lg + j * lld] = p->prow[j];
  return HLA_OK;
}

/* Columns [c0, c0 + w) of the panel (relative), one at a time. */
static int leaf(panel_t *p, int64_t c0, int64_t w) {
  hlu_ctx *c = p->c;
  int64_t lld = c->lld;
  for (int64_t cc = c0; cc < c0 + w; cc++) {
    int64_t gcol = p->j0 + cc;
    hbsp_dloc piv;
    HLA_CALL(pivot_exchange(p, gcol, cc, &piv));
    p->ipiv[gcol] = piv.index;
    for (int64_t j = 0; j < p->jb; j++) p->top[cc + j * p->jb] = p->prow[j];
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
  int64_t n1 = w / 2, n2 = w - n1, lld = c->lld, jb = p->jb;
  HLA_CALL(rec(p, c0, n1, leafw));
  /* U12 := L11^-1 A12 on every rank, from the pivot rows each has (no message): the same call on
   * the same values everywhere, so every rank has the bits that pr writes into its rows. */
  hreal *L11 = p->top + c0 + c0 * jb, *U12 = L11 + n1 * jb;
  HLA_CALL(hkern_dtrsm('L', 'L', 'N', 'U', n1, n2, 1.0, L11, jb, U12, jb));
  if (c->myrow == p->pr)
    hkern_dlacpy('A', n1, n2, U12, jb,
                 p->p0 + hmat_idx_g2l(p->j0 + c0, c->nb, c->M) + (c0 + n1) * lld, lld);
  int64_t lr = hmat_numroc(p->j0 + c0 + n1, c->nb, c->myrow, c->M), m = c->mloc - lr;
  if (m > 0)
    HLA_CALL(hkern_dgemm('N', 'N', m, n2, n1, -1.0, p->p0 + lr + c0 * lld, lld, U12, jb, 1.0,
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
  /* ctx->pbuf (HLU_PBUF_WORDS): the pivot row, the diagonal rows, then the records on a word */
  const int64_t nb = c->nb, at = (nb + nb * nb + HREAL_WORD - 1) / HREAL_WORD * HREAL_WORD;
  panel_t p = {.c = c,
               .j0 = j0,
               .jl0 = jl0,
               .jb = jb,
               .pr = hmat_idx_owner(j0, nb, c->M),
               .p0 = p0,
               .prow = c->pbuf,
               .top = c->pbuf + nb,
               .rec = c->pbuf + at,
               .ipiv = ipiv,
               .info = info};
  return rec(&p, 0, jb, c->plan.panel == HLA_PANEL_COLUMNS ? jb : PANEL_LEAF);
}
