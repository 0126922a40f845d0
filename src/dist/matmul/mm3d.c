/* hla — 3D / 2.5D matrix multiply (../reference/000_synclib_vanduijn.md §5.1-5.2: Alg. 3.1 and
 * its subset-environment form 7.2; Solomonik and Demmel's 2.5D with c layers).
 *
 * The M x N grid is cut into c layers: c groups of M/c consecutive process rows (each layer an
 * M/c x N grid) or of N/c consecutive process columns (M x N/c), whichever is squarer. This is the
 * processor cube q0 x q1 x q2 = (M/c) x N x c (or M x (N/c) x c) of Alg. 3.1 with P(s,t,u) =
 * process (s, t) of layer u. The k dimension is cut into c shares of whole panels; layer u
 * computes the partial product C_u = alpha op(A)(:, K_u) op(B)(K_u, :) of its share:
 *   (0) op(A)(:, K_u) and op(B)(K_u, :) are remapped onto layer u (one BSMP superstep on the
 *       grid's ALL environment; the operands are not copied c times: each rank ends up with about
 *       m k / P and k n / P words, as before);
 *   (1) SUMMA inside the layer: A's share is replicated along the layer's process rows (the
 *       environment E_su of Alg. 7.2) and B's along its columns (E_ut), panel by panel, and every
 *       process multiplies locally; with b = k/c (one panel) this is exactly superstep (0)+(1) of
 *       Alg. 3.1;
 *   (2) C = beta C + sum_u C_u: a reduction along the fibre (E_st: the c processes at the same
 *       place in every layer), done as c reductions whose roots are the c fibre members, each
 *       receiving the rows (or columns) of C it owns in C's layout. C's own layout is kept: a
 *       process of layer u at layer row s owns C's block rows = s (mod M/c), and the fibre member
 *       of layer u' owns those of them = u' M/c + s (mod M), i.e. the local blocks t of the layer
 *       part with t = u' (mod c), in order — a reduce-scatter with no further redistribution.
 * The replication is of C: each layer holds a full partial C, c m n / P words per rank.
 *
 * BSP cost (cube q0 x q1 x c, P = q0 q1 c, square-ish layers, n = m = k):
 *   (0) h ~ (m k + k n) / P words, one superstep (plus agreements);
 *   (1) SUMMA on k/c: 2 m n k / P flops, h = 2 (k/c)(m/q0 + n/q1) words over 2 ceil(k/(c b))
 *       supersteps of the layer's row and column environments;
 *   (2) c reductions of m n / P words each over c processes: h ~ c m n / P, (c - 1) m n / P flops.
 * For q0 = q1 = c = P^(1/3) this is Alg. 3.1's (m k + k n + m n) g / P^(2/3) + 2 m n k / P
 * (+ O(log c) l per reduction and the panel supersteps), against SUMMA's 2 k (m/q + n/q) g with
 * q = sqrt P: the layers trade c times C's memory for a P^(1/6)-fold smaller volume.
 */
#include <stdlib.h>
#include <string.h>
#include "bsp/coll_impl.h"
#include "dist/matmul/matmul_impl.h"
#include "kernels/kernels.h"

static int64_t max1(int64_t v) {
  return v > 1 ? v : 1;
}

/* Layer geometry of a rank. */
typedef struct {
  int ML, NL;    /* layer grid */
  int l, pr, pc; /* my layer and place in it */
  int64_t stride, kshare;
} layers;

static void layers_of(int M, int N, int myrow, int mycol, int c, int split_rows, int64_t k, int b,
                      layers *L) {
  if (split_rows) {
    L->ML = M / c, L->NL = N;
    L->l = myrow / L->ML, L->pr = myrow % L->ML, L->pc = mycol;
    L->stride = (int64_t)L->ML * N;
  } else {
    L->ML = M, L->NL = N / c;
    L->l = mycol / L->NL, L->pr = myrow, L->pc = mycol % L->NL;
    L->stride = L->NL;
  }
  int64_t panels = (k + b - 1) / b;
  L->kshare = ((panels + c - 1) / c) * b; /* whole panels per layer */
  if (L->kshare < 1) L->kshare = 1;
}

typedef struct {
  hbsp_env fibre, lrow, lcol; /* lrow / lcol: split here, or the grid's own (not freed) */
  int own_row, own_col;
  hreal *a, *b, *c, *pack;
  int64_t *idx;
} mm3d_ws;

static void ws_free(hgrid g, mm3d_ws *w) {
  if (w->fibre) hbsp_free(&w->fibre);
  if (w->own_row && w->lrow) hbsp_free(&w->lrow);
  if (w->own_col && w->lcol) hbsp_free(&w->lcol);
  hdist_give(g, w->a), hdist_give(g, w->b), hdist_give(g, w->c), hdist_give(g, w->pack);
  free(w->idx);
}

int mm_3d(const mm3d_args *x) {
  hgrid g = x->g;
  hbsp_env all = g->all;
  hmat C = x->C;
  int c = x->c, b = x->panel, split = x->split_rows;
  int64_t m = C->m, n = C->n, k = x->ta == 'N' ? x->A->n : x->A->m;
  layers L;
  layers_of(g->M, g->N, g->myrow, g->mycol, c, split, k, b, &L);
  mm3d_ws w;
  memset(&w, 0, sizeof w);

  /* Environments: the fibre, and the layer's rows and columns. */
  int code = hbsp_split_named(all, L.pr * L.NL + L.pc, L.l, "fibre", &w.fibre), e;
  if (split) {
    w.lrow = g->row;
    e = hbsp_split_named(g->col, L.l, g->myrow, "layer", &w.lcol);
    w.own_col = e == HLA_OK;
  } else {
    w.lcol = g->col;
    e = hbsp_split_named(g->row, L.l, g->mycol, "layer", &w.lrow);
    w.own_row = e == HLA_OK;
  }
  if (code == HLA_OK) code = e;

  /* Layer operands: op(A)(:, K_l) is m x k_l in (mb, b) blocks, op(B)(K_l, :) k_l x n in
   * (b, nb) blocks, C_l m x n in (mb, nb) blocks, all on the layer grid. */
  mm_target ta = {.row = {m, 1, m, C->mb, L.ML},
                  .col = {k, c, L.kshare, b, L.NL},
                  .layer_stride = L.stride,
                  .N = g->N};
  mm_target tb = {.row = {k, c, L.kshare, b, L.ML},
                  .col = {n, 1, n, C->nb, L.NL},
                  .layer_stride = L.stride,
                  .N = g->N};
  ta.mloc = mm_dim_local(&ta.row, 0, L.pr), ta.nloc = mm_dim_local(&ta.col, L.l, L.pc);
  tb.mloc = mm_dim_local(&tb.row, L.l, L.pr), tb.nloc = mm_dim_local(&tb.col, 0, L.pc);
  ta.ld = max1(ta.mloc), tb.ld = max1(tb.mloc);
  int64_t mL = ta.mloc, nL = tb.nloc;
  int64_t nidx = split ? mL : nL;
  int ok = (w.a = ta.data = HREAL_TAKE(g, ta.mloc * ta.nloc)) != NULL &&
           (w.b = tb.data = HREAL_TAKE(g, tb.mloc * tb.nloc)) != NULL &&
           (w.c = HREAL_TAKE(g, mL * nL)) != NULL && (w.pack = HREAL_TAKE(g, mL * nL)) != NULL &&
           (w.idx = malloc((size_t)max1(nidx) * sizeof(int64_t))) != NULL;
  if (code == HLA_OK && !ok)
    code = HBSP_FAIL(all, HLA_ERR_NOMEM, "hmatmul: no memory for the 3D layers");
  else if (code != HLA_OK)
    HBSP_FAIL(all, code, "hmatmul: cannot split the 3D layers");
  code = hbsp_agree(all, code);
  if (code == HLA_OK) code = mm_remap(all, x->ta, x->A, &ta);
  if (code == HLA_OK) code = mm_remap(all, x->tb, x->B, &tb);

  /* (1) C_l = alpha op(A)(:, K_l) op(B)(K_l, :) by SUMMA in the layer. */
  int64_t kl = k - (int64_t)L.l * L.kshare;
  kl = kl < 0 ? 0 : kl > L.kshare ? L.kshare : kl;
  hbsp_coll how = {0};
  if (x->how != NULL) how = *x->how;
  how.groups = 0; /* the layer's rows and columns are not the grid's */
  mm_ctx lx = {.g = g,
               .all = all,
               .row = w.lrow,
               .col = w.lcol,
               .M = L.ML,
               .N = L.NL,
               .myrow = L.pr,
               .mycol = L.pc,
               .m = m,
               .n = n,
               .k = kl,
               .a = w.a,
               .lda = ta.ld,
               .kba = b,
               .b = w.b,
               .ldb = tb.ld,
               .kbb = b,
               .c = w.c,
               .ldc = max1(mL),
               .mloc = mL,
               .nloc = nL,
               .alpha = x->alpha,
               .beta = 0.0,
               .panel = b,
               .how = &how};
  if (code == HLA_OK) code = mm_summa(&lx);

  /* (2) Pack C_l by destination fibre member d (its local blocks t = d mod c), reduce each part
   * to its member, and add mine into C. */
  int64_t cnt[64], *counts = cnt;
  if (code == HLA_OK && c > 64 && (counts = malloc((size_t)c * sizeof *counts)) == NULL)
    code = HBSP_FAIL(all, HLA_ERR_NOMEM, "hmatmul: out of memory");
  code = hbsp_agree(all, code);
  if (code == HLA_OK) {
    int64_t blk = split ? C->mb : C->nb, off = 0;
    for (int d = 0; d < c; d++) {
      int64_t nd = 0;
      for (int64_t t = 0; t < nidx; t++)
        if ((t / blk) % c == d) w.idx[nd++] = t;
      counts[d] = nd;
      hreal *dst = w.pack + off;
      if (split) /* rows idx of every column: nd x nL */
        for (int64_t j = 0; j < nL; j++)
          for (int64_t r = 0; r < nd; r++) dst[r + j * nd] = w.c[w.idx[r] + j * lx.ldc];
      else /* columns idx: mL x nd */
        for (int64_t j = 0; j < nd; j++)
          memcpy(dst + j * mL, w.c + w.idx[j] * lx.ldc, (size_t)mL * sizeof(hreal));
      off += nd * (split ? nL : mL);
    }
    off = 0;
    hreal *mine = NULL;
    /* An explicit broadcast algorithm is used for the reduction too (the profiler counts it). */
    const hbsp_coll *rhow =
        x->how && x->how->alg != HBSP_AUTO && x->how->alg != HBSP_NATIVE ? &how : NULL;
    /* The public reduction: its workspace is allocated and agreed over the fibre before it
     * communicates (the internal one fails on its rank alone, its peers waiting). */
    for (int d = 0; d < c && code == HLA_OK; d++) {
      int64_t cntd = counts[d] * (split ? nL : mL);
      if (cntd > 0)
        code = hbsp_reduce(w.fibre, w.pack + off, w.pack + off, (size_t)cntd, HREAL_HBSP, HBSP_SUM,
                           d, rhow);
      if (d == L.l) mine = w.pack + off;
      off += cntd;
    }
    code = hbsp_agree(all, code);
    if (code == HLA_OK) {
      /* My part is C's local part in order: C = beta C + sum. */
      mm_ctx cx = {.c = HDATA(C), .ldc = C->lld, .mloc = C->mloc, .nloc = C->nloc, .beta = x->beta};
      mm_scale(&cx);
      for (int64_t j = 0; j < C->nloc; j++)
        for (int64_t i = 0; i < C->mloc; i++) HDATA(C)[i + j * C->lld] += mine[i + j * C->mloc];
    }
  }
  if (counts != cnt) free(counts);
  ws_free(g, &w);
  HLA_CALL(code);
  return HLA_OK;
}
