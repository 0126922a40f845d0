/* hla — row interchanges of the LU and of the solve, applied together: the interchanges of a block
 * (or of the whole factorisation) are composed into one permutation of the rows they touch, and
 * each row is sent once, straight to the process row that owns its final place, in one superstep
 * of the process column (a subset sync: process columns do not wait for each other).
 *
 * The factorisation moves rows right of the panel at every block step (the trailing matrix needs
 * them), but left of it only once, at the end (hlu_swap_left): the L columns of block k take all
 * later interchanges composed, so each of their rows moves at most once instead of once per later
 * block, about half the words of swapping both sides at every step, and off the critical path.
 *
 * Example (seed 000, L1307): swaps (0,4), (1,3), (2,4), (3,5) on rows i0..i5 leave
 * [i4, i3, i0, i5, i2, i1]: row 0 receives i4, row 2 receives i0, and so on. */
#include <string.h>
#include "dist/lu/lu_impl.h"
#include "kernels/kernels.h"

enum { JB = 16 }; /* columns local_moves gathers at a time */

void hlu_perm_pairs(const int64_t *ipiv, int64_t k0, int64_t k1, int64_t n, int64_t *work,
                    int64_t **dst, int64_t **src, int64_t *npairs) {
  /* perm[i - k0]: the original row now at place i, for places [k0, n). */
  int64_t len = n - k0, *perm = work, *d = work + len, *s = d + len, cnt = 0;
  for (int64_t i = 0; i < len; i++) perm[i] = k0 + i;
  for (int64_t k = k0; k < k1; k++) {
    int64_t x = perm[k - k0];
    perm[k - k0] = perm[ipiv[k] - k0];
    perm[ipiv[k] - k0] = x;
  }
  for (int64_t i = 0; i < len; i++)
    if (perm[i] != k0 + i) d[cnt] = k0 + i, s[cnt] = perm[i], cnt++;
  *dst = d, *src = s, *npairs = cnt;
}

int hlu_swap_left(hlu_ctx *ctx, const int64_t *ipiv) {
  const int64_t n = ctx->n;
  const int nb = ctx->nb, N = ctx->N, me = ctx->mycol;
  /* Block k's columns live on process column k mod N only: the other columns have nothing to do,
   * and every rank of a process column takes the same branches (a subset sync per block). */
  for (int64_t j0 = (int64_t)me * nb, k = me; j0 + nb < n; j0 += (int64_t)N * nb, k += N) {
    int64_t *dst, *src, np;
    hlu_perm_pairs(ipiv, j0 + nb, n, n, ctx->iwork, &dst, &src, &np);
    int64_t jl0 = hmat_numroc(j0, nb, me, N);
    HLA_CALL(hlu_move_rows(ctx, ctx->A, dst, src, np, jl0, jl0 + nb));
  }
  return HLA_OK;
}

/* The pairs whose source and target rows are both mine, over my columns [c0, c0 + ncols): the
 * sources gathered column by column (each column is contiguous; a row walk would touch one cache
 * line per column), a few columns at a time so that they are still in cache for the scatter. */
/* Bytes of a row message of hlu_rows_open: 3 + cw header words, then cw x ncols values and nl. */
static size_t row_msg_bytes(int64_t cw, int64_t ncols, int64_t nl) {
  return (size_t)(3 + cw) * sizeof(int64_t) + (size_t)(cw * ncols + nl) * sizeof(hreal);
}

/* Bytes of a deferred record of recv_rows, [ca][ca local rows][ca x nrest values], rounded to 8 so
 * that the next record's words are aligned. */
static size_t defer_bytes(int64_t ca, int64_t nrest) {
  return ((size_t)(1 + ca) * sizeof(int64_t) + (size_t)(ca * nrest) * sizeof(hreal) + 7) / 8 * 8;
}

/* Bytes of local_moves' buffer for npairs pairs: two index lists and JB columns of values. */
static size_t local_bytes(int64_t npairs) {
  return (size_t)npairs * (2 * sizeof(int64_t) + JB * sizeof(hreal));
}

static int local_moves(hlu_ctx *ctx, hmat X, const int64_t *dst, const int64_t *src, int64_t npairs,
                       int64_t c0, int64_t ncols) {
  const int nb = ctx->nb, M = ctx->M, me = ctx->myrow;
  const int64_t lld = X->lld;
  ctx->msg.n = 0;
  if (hla_buf_reserve(&ctx->msg, local_bytes(npairs)) != HLA_OK)
    return HBSP_FAIL(ctx->collv.env, HLA_ERR_NOMEM, "LU row move: out of memory");
  int64_t *ls = (int64_t *)ctx->msg.p, *ld = ls + npairs, cnt = 0;
  hreal *tmp = (hreal *)(ld + npairs);
  for (int64_t t = 0; t < npairs; t++) /* local row indices first: no division inside */
    if (hmat_idx_owner(src[t], nb, M) == me && hmat_idx_owner(dst[t], nb, M) == me)
      ls[cnt] = hmat_idx_g2l(src[t], nb, M), ld[cnt] = hmat_idx_g2l(dst[t], nb, M), cnt++;
  for (int64_t j0 = 0; cnt > 0 && j0 < ncols; j0 += JB) {
    int64_t jn = ncols - j0 < JB ? ncols - j0 : JB;
    for (int64_t j = 0; j < jn; j++) {
      const hreal *cj = HDATA(X) + (c0 + j0 + j) * lld;
      if (j0 + j + 4 < ncols) /* as in hlu_rows_pack */
        for (int64_t t = 0; t < cnt; t++) __builtin_prefetch(cj + 4 * lld + ls[t]);
      for (int64_t t = 0; t < cnt; t++) tmp[t + j * cnt] = cj[ls[t]];
    }
    for (int64_t j = 0; j < jn; j++) {
      hreal *cj = HDATA(X) + (c0 + j0 + j) * lld;
      for (int64_t t = 0; t < cnt; t++) cj[ld[t]] = tmp[t + j * cnt];
    }
  }
  return HLA_OK;
}

/* The row messages of a row move (hlu_rows_open), one per other process row d:
 *   [ca][cu][nl][ca target rows (global)][cu rows of u][(ca + cu) x ncols values, column-major]
 *   [nl words of L11]
 * ca rows of X move to d (the pairs (dst, src) from my rows to d's), cu rows of the spread's block
 * row u (mine, rows ut[] of u; leading dimension jb) and, from the diagonal owner, L11. The header
 * and L11 are written when the message opens, the values column by column as hlu_rows_pack
 * reaches them, straight into the BSP queue (one message per destination, so its space stays put
 * until the sync). */
typedef struct {
  hreal *val;   /* the values (NULL: no message to this process row) */
  int64_t ca;   /* rows of X in it; its local source rows follow the hlu_out array in rows.out */
  int64_t cw;   /* ca + the rows of u */
  int64_t from; /* index of its first source row in that list */
} hlu_out;

int hlu_rows_open(hlu_ctx *ctx, hmat X, const int64_t *dst, const int64_t *src, int64_t npairs,
                  int64_t c0, int64_t c1, int64_t cmove, const hlu_spread_part *sp) {
  hbsp_env col = ctx->collv.env;
  const int nb = ctx->nb, M = ctx->M, me = ctx->myrow;
  const int64_t ncols = c1 - c0;
  hlu_rows *r = &ctx->rows;
  const hlu_spread_part none = {NULL, 0, -1, NULL, NULL, 0, NULL};
  *r = (hlu_rows){X, dst, src, npairs, c0, ncols, cmove, sp ? *sp : none, r->out, 1};
  const int64_t cu = r->sp.cu, *ut = r->sp.ut,
                nl = me == r->sp.pr ? (int64_t)r->sp.jb * r->sp.jb : 0;
  if (M == 1) return HLA_OK;
  r->out.n = 0;
  if (hla_buf_reserve(&r->out, (size_t)M * sizeof(hlu_out) + (size_t)npairs * sizeof(int64_t)) !=
      HLA_OK)
    return HBSP_FAIL(col, HLA_ERR_NOMEM, "LU row move: out of memory");
  hlu_out *o = (hlu_out *)r->out.p;
  int64_t *lr = (int64_t *)(o + M), used = 0;
  for (int d = 0; d < M; d++) {
    o[d] = (hlu_out){NULL, 0, 0, used};
    if (d == me) continue;
    int64_t ca = 0;
    for (int64_t t = 0; t < npairs; t++)
      if (hmat_idx_owner(src[t], nb, M) == me && hmat_idx_owner(dst[t], nb, M) == d)
        lr[used + ca++] = hmat_idx_g2l(src[t], nb, M);
    const int64_t cw = ca + cu;
    if (cw == 0 && nl == 0) continue;
    void *space;
    HLA_CALL(hbsp_send_buf(col, d, NULL, row_msg_bytes(cw, ncols, nl), &space));
    int64_t *hdr = space, *rows = hdr + 3, q = 0;
    hdr[0] = ca, hdr[1] = cu, hdr[2] = nl;
    for (int64_t t = 0; t < npairs; t++)
      if (hmat_idx_owner(src[t], nb, M) == me && hmat_idx_owner(dst[t], nb, M) == d)
        rows[q++] = dst[t];
    for (q = 0; q < cu; q++) rows[ca + q] = ut[q];
    o[d] = (hlu_out){(hreal *)(rows + cw), ca, cw, used};
    if (nl) memcpy(o[d].val + cw * ncols, r->sp.l11, (size_t)nl * sizeof(hreal));
    used += ca;
  }
  return HLA_OK;
}

int hlu_rows_pack(hlu_ctx *ctx, int64_t j0, int64_t j1) {
  hlu_rows *r = &ctx->rows;
  const hmat X = r->X;
  const int64_t lld = X->lld, jb = r->sp.jb, cu = r->sp.cu;
  if (ctx->M > 1) {
    const hlu_out *o = (const hlu_out *)r->out.p;
    const int64_t *lr = (const int64_t *)(o + ctx->M);
    for (int d = 0; d < ctx->M; d++) {
      if (o[d].val == NULL) continue;
      const int64_t ca = o[d].ca, cw = o[d].cw, *rows = lr + o[d].from;
      /* Column by column (each column is contiguous; a row walk would touch a cache line per
       * column), prefetching the same rows 4 columns on: scattered lines, no hardware prefetch. */
      for (int64_t j = j0; j < j1; j++) {
        const hreal *cj = HDATA(X) + (r->c0 + j) * lld, *uj = cu ? r->sp.u + j * jb : NULL;
        hreal *v = o[d].val + j * cw;
        if (j + 4 < r->ncols)
          for (int64_t q = 0; q < ca; q++) __builtin_prefetch(cj + 4 * lld + rows[q]);
        for (int64_t q = 0; q < ca; q++) v[q] = cj[rows[q]];
        for (int64_t q = 0; q < cu; q++) v[ca + q] = uj[r->sp.ut[q]];
      }
    }
  }
  /* The moves inside my rows after the sends of the same columns (a row I send may be the target
   * of one). */
  const int64_t m1 = j1 < r->cmove ? j1 : r->cmove;
  if (j0 < m1) HLA_CALL(local_moves(ctx, X, r->dst, r->src, r->npairs, r->c0 + j0, m1 - j0));
  return HLA_OK;
}

/* The stream bytes every process row s sends me in the open move, into in[s] (what hlu_rows_open
 * queues on s, derived from the same pairs and spread part); cu holds M entries. */
static void expected_in(const hlu_ctx *ctx, uint64_t *in, int64_t *cu) {
  const hlu_rows *r = &ctx->rows;
  const int nb = ctx->nb, M = ctx->M, me = ctx->myrow;
  for (int s = 0; s < M; s++) in[s] = 0, cu[s] = 0;
  for (int64_t t = 0; t < r->npairs; t++)
    if (hmat_idx_owner(r->dst[t], nb, M) == me) in[hmat_idx_owner(r->src[t], nb, M)]++;
  for (int t = 0; r->sp.perm && t < r->sp.jb; t++) cu[hmat_idx_owner(r->sp.perm[t], nb, M)]++;
  for (int s = 0; s < M; s++) {
    const int64_t cw = (int64_t)in[s] + cu[s],
                  nl = s == r->sp.pr ? (int64_t)r->sp.jb * r->sp.jb : 0;
    in[s] = s == me || (cw == 0 && nl == 0)
                ? 0
                : hbsp_sync_msg_bytes(ctx->collv.env, row_msg_bytes(cw, r->ncols, nl));
  }
}

/* End the superstep of the column and take the messages of hlu_rows_open in place (the queue lives
 * until the next sync): rows of X land in the first cnow of the ncols columns, the rest of them in
 * ctx->defer for hlu_swap_spread_rest; rows of the block row land in u (leading dimension jb;
 * none expected when jb = 0), L11 in l11. ar holds maxa entries, the most rows of X a message
 * may carry, then 2 M words of scratch. */
static int recv_rows(hlu_ctx *ctx, hmat X, int64_t c0, int64_t ncols, int64_t cnow, hreal *u,
                     int jb, hreal *l11, int64_t *ar, int64_t maxa) {
  hbsp_env col = ctx->collv.env;
  const int nb = ctx->nb, M = ctx->M, me = ctx->myrow;
  const int64_t lld = X->lld, jb2 = (int64_t)jb * jb, nrest = ncols - cnow;
  size_t nmsg;
  uint64_t *in = (uint64_t *)(ar + maxa);
  expected_in(ctx, in, ar + maxa + M);
  HLA_CALL(hbsp_sync_known(col, in));
  HLA_CALL(hbsp_qsize(col, &nmsg, NULL));
  for (size_t m = 0; m < nmsg; m++) {
    size_t got;
    const void *space;
    HLA_CALL(hbsp_hpmove(col, NULL, &space, &got));
    const int64_t *hdr = space;
    const int64_t ca = got >= 3 * sizeof(int64_t) ? hdr[0] : -1, cu = ca >= 0 ? hdr[1] : -1,
                  nl = ca >= 0 ? hdr[2] : -1, cw = ca + cu;
    if (ca < 0 || ca > maxa || cu < 0 || cu > jb || (nl != 0 && nl != jb2) ||
        got != row_msg_bytes(cw, ncols, nl))
      return HBSP_FAIL(col, HLA_ERR_INTERNAL, "LU row move: malformed message of %zu bytes", got);
    for (int64_t q = 0; q < cw; q++) {
      int64_t r = hdr[3 + q];
      if (q < ca ? hmat_idx_owner(r, nb, M) != me : r < 0 || r >= jb)
        return HBSP_FAIL(col, HLA_ERR_INTERNAL, "LU row move: row %lld is not mine", (long long)r);
      if (q < ca) ar[q] = hmat_idx_g2l(r, nb, M);
    }
    const int64_t *tu = hdr + 3 + ca;
    const hreal *val = (const hreal *)(hdr + 3 + cw);
    for (int64_t j = 0; cu > 0 && j < ncols; j++) {
      hreal *uj = u + j * jb;
      const hreal *v = val + j * cw;
      for (int64_t q = 0; q < cu; q++) uj[tu[q]] = v[ca + q];
    }
    for (int64_t j = 0; j < cnow; j++) {
      hreal *cj = HDATA(X) + (c0 + j) * lld;
      for (int64_t q = 0; q < ca; q++) cj[ar[q]] = val[q + j * cw];
    }
    if (ca > 0 &&
        nrest > 0) { /* [ca][ca local rows][ca x nrest]: the queue goes at the next sync */
      size_t at = ctx->defer.n, bytes = defer_bytes(ca, nrest);
      if (hla_buf_reserve(&ctx->defer, bytes) != HLA_OK)
        return HBSP_FAIL(col, HLA_ERR_NOMEM, "LU row move: out of memory");
      int64_t *rec = (int64_t *)(ctx->defer.p + at);
      hreal *dv = (hreal *)(rec + 1 + ca);
      rec[0] = ca;
      memcpy(rec + 1, ar, (size_t)ca * sizeof *ar);
      for (int64_t j = 0; j < nrest; j++)
        memcpy(dv + j * ca, val + (cnow + j) * cw, (size_t)ca * sizeof *dv);
      ctx->defer.n = at + bytes;
    }
    if (nl) memcpy(l11, val + cw * ncols, (size_t)nl * sizeof(hreal));
  }
  return HLA_OK;
}

int hlu_rows_reserve(hlu_ctx *ctx, int64_t npairs, int64_t nrest) {
  const int M = ctx->M, nb = ctx->nb;
  /* A spread's moves land at most 2 nb rows, in at most M - 1 messages. */
  size_t defer = nrest > 0 ? (size_t)M * defer_bytes(0, 0) + defer_bytes(2 * nb, nrest) : 0;
  const size_t close = (size_t)(npairs + 2 * M) * sizeof(int64_t), local = local_bytes(npairs);
  if (hla_buf_reserve(&ctx->msg, close > local ? close : local) != HLA_OK ||
      hla_buf_reserve(&ctx->rows.out,
                      (size_t)M * sizeof(hlu_out) + (size_t)npairs * sizeof(int64_t)) != HLA_OK ||
      hbsp_sync_known_prepare(ctx->collv.env) != HLA_OK ||
      hla_buf_reserve(&ctx->defer, defer) != HLA_OK)
    return HBSP_FAIL(ctx->all, HLA_ERR_NOMEM, "LU row move: out of memory for %lld pairs",
                     (long long)npairs);
  return HLA_OK;
}

int hlu_rows_close(hlu_ctx *ctx) {
  hlu_rows *r = &ctx->rows;
  if (!r->open) return HLA_OK;
  r->open = 0;
  if (ctx->M == 1) return HLA_OK;
  /* The rows that arrive are written after the sync, when every source here has been read. */
  ctx->msg.n = 0; /* the local target rows of a message, <= npairs, and recv_rows' scratch */
  if (hla_buf_reserve(&ctx->msg, (size_t)(r->npairs + 2 * ctx->M) * sizeof(int64_t)) != HLA_OK)
    return HBSP_FAIL(ctx->collv.env, HLA_ERR_NOMEM, "LU row move: out of memory");
  return recv_rows(ctx, r->X, r->c0, r->ncols, r->cmove, r->sp.u, r->sp.jb, r->sp.l11,
                   (int64_t *)ctx->msg.p, r->npairs);
}

int hlu_move_rows(hlu_ctx *ctx, hmat X, const int64_t *dst, const int64_t *src, int64_t npairs,
                  int64_t c0, int64_t c1) {
  /* Every rank of the column has the same ncols (same process column), so all skip together. */
  if (npairs == 0 || c1 == c0) return HLA_OK;
  HLA_CALL(hlu_rows_open(ctx, X, dst, src, npairs, c0, c1, c1 - c0, NULL));
  HLA_CALL(hlu_rows_pack(ctx, 0, c1 - c0));
  return hlu_rows_close(ctx);
}

int hlu_swap_spread(hlu_ctx *ctx, int64_t j0, int jb, const int64_t *perm, const int64_t *dst,
                    const int64_t *src, int64_t npairs, int64_t c0, int64_t c1, int64_t cnow,
                    int pr, const hreal *L, int64_t ldl) {
  hmat X = ctx->A;
  const int nb = ctx->nb, M = ctx->M, me = ctx->myrow;
  const int64_t ncols = c1 - c0, lld = X->lld;
  hreal *u = ctx->ubuf, *l11 = ctx->l11;
  ctx->defer.n = 0;
  ctx->defer_na = ctx->defer_n = 0;
  if (ncols == 0) return HLA_OK; /* the same on every rank of the process column */
  /* dst ascends: the pairs that land in the block row come first (u takes them from perm); the
   * rest move inside the matrix. */
  int64_t ntop = 0;
  while (ntop < npairs && dst[ntop] < j0 + jb) ntop++;
  const int64_t *adst = dst + ntop, *asrc = src + ntop, na = npairs - ntop;
  ctx->defer_dst = adst, ctx->defer_src = asrc, ctx->defer_na = na;
  ctx->defer_c0 = c0 + cnow, ctx->defer_n = ncols - cnow;

  /* My rows of the block row into u, before any row is overwritten: ut[q] row of u, ur[q] local
   * row of X (ctx->swork holds 2 nb entries). */
  int64_t *ut = ctx->swork, *ur = ut + jb, nmine = 0;
  for (int t = 0; t < jb; t++)
    if (hmat_idx_owner(perm[t], nb, M) == me)
      ut[nmine] = t, ur[nmine] = hmat_idx_g2l(perm[t], nb, M), nmine++;
  for (int64_t j = 0; j < ncols; j++) {
    const hreal *cj = HDATA(X) + (c0 + j) * lld;
    hreal *uj = u + j * jb;
    for (int64_t q = 0; q < nmine; q++) uj[ut[q]] = cj[ur[q]];
  }
  if (me == pr) hkern_pack(jb, jb, L, ldl, l11);
  /* My rows of the block row go to everyone, the rows moving inside the matrix to their owner;
   * the moves inside my rows land now only in the first cnow columns. */
  const hlu_spread_part sp = {u, jb, pr, perm, ut, nmine, l11};
  HLA_CALL(hlu_rows_open(ctx, X, adst, asrc, na, c0, c1, cnow, &sp));
  HLA_CALL(hlu_rows_pack(ctx, 0, ncols));
  return hlu_rows_close(ctx);
}

int hlu_swap_spread_rest(hlu_ctx *ctx) {
  hmat X = ctx->A;
  const int64_t c0 = ctx->defer_c0, nrest = ctx->defer_n, lld = X->lld;
  if (nrest <= 0) return HLA_OK;
  HLA_CALL(local_moves(ctx, X, ctx->defer_dst, ctx->defer_src, ctx->defer_na, c0, nrest));
  for (size_t at = 0; at < ctx->defer.n;) {
    const int64_t *rec = (const int64_t *)(ctx->defer.p + at), ca = rec[0], *rows = rec + 1;
    const hreal *v = (const hreal *)(rows + ca);
    for (int64_t j = 0; j < nrest; j++) {
      hreal *cj = HDATA(X) + (c0 + j) * lld;
      for (int64_t q = 0; q < ca; q++) cj[rows[q]] = v[q + j * ca];
    }
    at += defer_bytes(ca, nrest);
  }
  ctx->defer.n = 0;
  ctx->defer_n = 0;
  return HLA_OK;
}
