/* hla — distributed triangular solves with the LU factors, blocked, many right-hand sides.
 *
 * B := L^-1 B (forward, lower) or U^-1 B (backward, upper), B n x nrhs on the factors' grid with
 * the same row blocks; either triangle with a unit diagonal or its own (the LU's factors: L unit,
 * U not; their transposes, which hlu_solve_trans solves with: the other way round). Right-looking
 * by block rows k (rows [j0, j0 + jb), process row pr, process column pc of the factors' column
 * block k):
 *   1. the triangle's column block k (my rows below j0 for L, above j0 + jb for U, with the
 *      diagonal block on pr) goes along my process row from pc, to the process columns that hold
 *      columns of B (all of them when nrhs is large: a broadcast);
 *   2. pr solves its block of B with the diagonal block (trsm, BLAS-3 over my columns of B);
 *   3. that solved block goes down my process column from pr;
 *   4. every rank updates the rest of its rows of B by dgemm with the column block.
 * Steps 1 and 3 are one- or two-level broadcasts in row and column environments only.
 * BSP cost per block: (row broadcast) R jb g_r + l_r, (column broadcast) jb C_B g_c + l_c, with
 * R <= ceil(n / M) and C_B = local columns of B; 2 R jb C_B flops of dgemm and jb^2 C_B of trsm on
 * pr. Over all n / nb blocks: n^2 / M words along rows, n nrhs / N along columns, 2 n^2 nrhs / P
 * flops, 2 (n / nb) (l_r + l_c). */
#include <stddef.h>
#include <string.h>
#include "dist/lu/lu_impl.h"
#include "kernels/kernels.h"

/* Send lbuf[0..count) from process column pc to the process columns that hold columns of B: a
 * broadcast along the row when all do; otherwise (few right-hand sides) straight to those that
 * do, in one superstep of the row, so that the triangle does not travel to ranks with nothing to
 * solve. Collective over my process row. */
static int to_holders(hlu_ctx *c, hmat B, int64_t count, int pc) {
  int N = c->N, all = 1;
  size_t bytes = (size_t)count * sizeof(hreal);
  for (int t = 0; t < N; t++) all &= hmat_numroc(B->n, B->nb, t, N) > 0;
  if (all) return hlu_bcast(&c->rowlv, c->lbuf, bytes, pc, c->howp);
  if (count == 0) return HLA_OK;
  hbsp_env row = c->rowlv.env;
  if (c->mycol == pc)
    for (int t = 0; t < N; t++)
      if (t != pc && hmat_numroc(B->n, B->nb, t, N) > 0)
        HLA_CALL(hbsp_send(row, t, NULL, c->lbuf, bytes));
  size_t nmsg, got;
  HLA_CALL(hdist_sync_count(row, &nmsg));
  for (size_t q = 0; q < nmsg; q++) HLA_CALL(hbsp_move(row, NULL, c->lbuf, bytes, &got));
  return HLA_OK;
}

int hlu_trsolve(hlu_ctx *c, hmat B, char uplo, char diag) {
  const int64_t n = c->n, lld = c->lld, ldb = B->lld, nr = B->nloc;
  const int nb = c->nb, M = c->M, N = c->N, me_r = c->myrow, me_c = c->mycol;
  const int lower = uplo == 'L';
  const int64_t nblk = (n + nb - 1) / nb;
  for (int64_t s = 0; s < nblk; s++) {
    const int64_t k = lower ? s : nblk - 1 - s, j0 = k * nb;
    const int jb = (int)(n - j0 < nb ? n - j0 : nb);
    const int pc = (int)(k % N), pr = (int)(k % M);
    const int64_t il0 = hmat_numroc(j0, nb, me_r, M), il1 = hmat_numroc(j0 + jb, nb, me_r, M);
    /* rows of the column block that take part: [r0, r1) of my local rows */
    const int64_t r0 = lower ? il0 : 0, r1 = lower ? c->mloc : il1, nl = r1 - r0;
    const int64_t ldl = nl > 1 ? nl : 1;

    /* 1. the triangle's column block along my process row */
    if (me_c == pc) hkern_pack(nl, jb, c->a + r0 + hmat_idx_g2l(j0, nb, N) * lld, lld, c->lbuf);
    HLA_CALL(to_holders(c, B, nl * jb, pc));

    /* 2. the diagonal block of B */
    if (me_r == pr && nr > 0) {
      hreal *Bk = HDATA(B) + il0;
      const hreal *T = c->lbuf + (il0 - r0);
      HLA_CALL(hkern_dtrsm('L', lower ? 'L' : 'U', 'N', diag, jb, nr, 1.0, T, ldl, Bk, ldb));
      hkern_pack(jb, nr, Bk, ldb, c->ubuf);
    }
    /* 3. down my process column (every rank of it has the same nr) */
    HLA_CALL(hlu_bcast(&c->collv, c->ubuf, (size_t)(jb * nr) * sizeof(hreal), pr, c->howp));

    /* 4. the rest of my rows: below the block (L) or above it (U) */
    const int64_t u0 = lower ? il1 : 0, u1 = lower ? c->mloc : il0;
    if (u1 > u0 && nr > 0)
      HLA_CALL(hkern_dgemm('N', 'N', u1 - u0, nr, jb, -1.0, c->lbuf + (u0 - r0), ldl, c->ubuf, jb,
                           1.0, HDATA(B) + u0, ldb));
  }
  return HLA_OK;
}

/* ---------------------------------------------------------------- few right-hand sides */

/* B -> (holders of B's columns) is the wrong direction when B is thin: moving the triangle costs
 * n^2 / M words for a handful of columns. Fan-in instead (Heath and Romine): block k of the
 * solution x_k lives on the rank that owns the diagonal block (pr, pc); every rank keeps the sum
 * W of T(i, j) x_j over its own column blocks j for its own rows i, and step k reduces the rows of
 * block k of those sums over process row pr onto pc:
 *   1. s_k = b_k - sum over process columns of W(block k)   (reduce over row pr, jb nrhs words);
 *   2. x_k = T_kk^-1 s_k on (pr, pc);                          (trsm)
 *   3. x_k down process column pc;                             (broadcast, jb nrhs words)
 *   4. W(rest) += T(rest, k) x_k on process column pc.          (dgemm)
 * The forward solve leaves y = L^-1 b where the backward one needs it (block k on (pr, pc)), so
 * the two run back to back and B gets x once, at the end, in one superstep of every process row.
 * Only the thin vectors move: about 2 n nrhs (log2 N + log2 M) words in all, against n^2 / M.
 * Step 4 keeps one process column busy per block (its M ranks) while the others wait for the next
 * reduce. Where the process rows are wider than the columns (N > M) the sums are formed left-
 * looking instead: every rank keeps the x of its own solved column blocks (Xm) and, when block k
 * comes up, the ranks of process row pr compute W(block k) = T(block k, my solved blocks) Xm
 * (4'.), all N of them at once, before the reduce. Same words moved, same flops; the work of a
 * block is spread over N ranks instead of M (1 x 2, n = 6000: the solve 0.024 -> 0.011 s). */

/* One triangle by fan-in; Y (mloc x nrhs, ld mloc) holds b (U) or receives the solution blocks of
 * my diagonal blocks; for L, b comes from B's holders. */
static int fanin(hlu_ctx *c, hmat B, char uplo, char diag, hreal *Y, hreal *W, hreal *s, hreal *x) {
  const int64_t n = c->n, lld = c->lld, ld = c->mloc > 1 ? c->mloc : 1, nrhs = B->n;
  const int nb = c->nb, M = c->M, N = c->N, me_r = c->myrow, me_c = c->mycol;
  const int lower = uplo == 'L', left = N > M;
  const int64_t nblk = (n + nb - 1) / nb, ldx = c->nloc > 1 ? c->nloc : 1;
  hreal *Xm = W; /* left-looking: W holds my solved x by local column (nloc x nrhs) instead */
  if (!left) memset(W, 0, (size_t)(ld * nrhs) * sizeof *W);
  for (int64_t t = 0; t < nblk; t++) {
    const int64_t k = lower ? t : nblk - 1 - t, j0 = k * nb;
    const int jb = (int)(n - j0 < nb ? n - j0 : nb);
    const int pc = (int)(k % N), pr = (int)(k % M);
    const int64_t il0 = hmat_numroc(j0, nb, me_r, M), il1 = hmat_numroc(j0 + jb, nb, me_r, M);
    const hreal *Tk = me_c == pc ? c->a + hmat_idx_g2l(j0, nb, N) * lld : NULL; /* block k */
    if (me_r == pr) {
      /* 1. (4'. first: my solved column blocks are my local columns left of block k (L) or right
       * of it (U)) */
      if (left) {
        const int64_t jl0 = hmat_numroc(j0, nb, me_c, N), jl1 = hmat_numroc(j0 + jb, nb, me_c, N);
        const int64_t c0 = lower ? 0 : jl1, c1 = lower ? jl0 : c->nloc;
        if (c1 > c0)
          HLA_CALL(hkern_dgemm('N', 'N', jb, nrhs, c1 - c0, -1.0, c->a + il0 + c0 * lld, lld,
                               Xm + c0, ldx, 0.0, s, jb));
        else
          memset(s, 0, (size_t)(jb * nrhs) * sizeof *s);
      } else {
        for (int64_t j = 0; j < nrhs; j++)
          for (int i = 0; i < jb; i++) s[i + j * jb] = -W[il0 + i + j * ld];
      }
      if (lower) {
        for (int64_t jj = 0; jj < B->nloc; jj++) {
          const hreal *b = HDATA(B) + il0 + jj * B->lld;
          hreal *sj = s + hmat_l2g_col(B, jj) * jb;
          for (int i = 0; i < jb; i++) sj[i] += b[i];
        }
      } else if (me_c == pc) {
        for (int64_t j = 0; j < nrhs; j++)
          for (int i = 0; i < jb; i++) s[i + j * jb] += Y[il0 + i + j * ld];
      }
      if (N > 1)
        HLA_CALL(hbsp_coll_reduce(c->rowlv.env, s, x, (size_t)(jb * nrhs), HREAL_HBSP, HBSP_SUM, pc,
                                  c->howp));
      else
        memcpy(x, s, (size_t)(jb * nrhs) * sizeof *x);
      /* 2. */
      if (me_c == pc) {
        HLA_CALL(hkern_dtrsm('L', uplo, 'N', diag, jb, nrhs, 1.0, Tk + il0, lld, x, jb));
        for (int64_t j = 0; j < nrhs; j++) memcpy(Y + il0 + j * ld, x + j * jb, jb * sizeof *x);
      }
    }
    if (me_c != pc) continue;
    /* 3. */
    HLA_CALL(hlu_bcast(&c->collv, x, (size_t)(jb * nrhs) * sizeof *x, pr, c->howp));
    if (left) { /* x_k joins my solved blocks */
      const int64_t jl0 = hmat_idx_g2l(j0, nb, N);
      for (int64_t j = 0; j < nrhs; j++) memcpy(Xm + jl0 + j * ldx, x + j * jb, jb * sizeof *x);
      continue;
    }
    /* 4. */
    const int64_t u0 = lower ? il1 : 0, u1 = lower ? c->mloc : il0;
    if (u1 > u0)
      HLA_CALL(hkern_dgemm('N', 'N', u1 - u0, nrhs, jb, 1.0, Tk + u0, lld, x, jb, 1.0, W + u0, ld));
  }
  return HLA_OK;
}

/* x (block k on its diagonal owner, in Y) into B's layout: each rank sends, for every process
 * column holding columns of B, the rows of its diagonal blocks in those columns, in block order;
 * one superstep of my process row. The receiver knows the order: [source column][values]. */
static int fanin_to_b(hlu_ctx *c, hmat B, const hreal *Y) {
  const int64_t n = c->n, ld = c->mloc > 1 ? c->mloc : 1;
  const int nb = c->nb, M = c->M, N = c->N, me_r = c->myrow, me_c = c->mycol;
  hbsp_env row = c->rowlv.env;
  /* my diagonal blocks: k = k0, k0 + L, ... with k = me_r mod M and k = me_c mod N */
  int64_t rows = 0;
  for (int64_t j0 = 0, k = 0; j0 < n; j0 += nb, k++)
    if (k % M == me_r && k % N == me_c) rows += n - j0 < nb ? n - j0 : nb;
  for (int t = 0; t < N; t++) {
    const int64_t cols = hmat_numroc(B->n, B->nb, t, N);
    if (cols == 0 || rows == 0) continue;
    void *space;
    HLA_CALL(hbsp_send_buf(row, t, NULL, sizeof(int64_t) + (size_t)(rows * cols) * sizeof(hreal),
                           &space));
    int64_t *m = space;
    hreal *v = (hreal *)(m + 1);
    m[0] = me_c;
    for (int64_t jj = 0; jj < cols; jj++) {
      const int64_t j = hmat_idx_l2g(jj, B->nb, t, N);
      for (int64_t j0 = 0, k = 0; j0 < n; j0 += nb, k++) {
        if (k % M != me_r || k % N != me_c) continue;
        const int64_t jb = n - j0 < nb ? n - j0 : nb, il0 = hmat_numroc(j0, nb, me_r, M);
        memcpy(v, Y + il0 + j * ld, (size_t)jb * sizeof *v);
        v += jb;
      }
    }
  }
  size_t nmsg;
  HLA_CALL(hdist_sync_count(row, &nmsg));
  for (size_t q = 0; q < nmsg; q++) { /* read in place: the queue lives until the next sync */
    size_t got;
    const void *space;
    HLA_CALL(hbsp_hpmove(row, NULL, &space, &got));
    const int64_t *m = space;
    const hreal *v = (const hreal *)(m + 1);
    const int src = got >= sizeof(int64_t) && m[0] >= 0 && m[0] < N ? (int)m[0] : -1;
    int64_t rows = 0; /* of the blocks that src solved, mine */
    for (int64_t j0 = 0, k = 0; src >= 0 && j0 < n; j0 += nb, k++)
      if (k % M == me_r && k % N == src) rows += n - j0 < nb ? n - j0 : nb;
    if (src < 0 || got != sizeof(int64_t) + (size_t)(rows * B->nloc) * sizeof(hreal))
      return HBSP_FAIL(row, HLA_ERR_INTERNAL, "LU solve: solution message of %zu bytes", got);
    for (int64_t jj = 0; jj < B->nloc; jj++)
      for (int64_t j0 = 0, k = 0; j0 < n; j0 += nb, k++) {
        if (k % M != me_r || k % N != src) continue;
        const int64_t jb = n - j0 < nb ? n - j0 : nb, il0 = hmat_numroc(j0, nb, me_r, M);
        memcpy(HDATA(B) + il0 + jj * B->lld, v, (size_t)jb * sizeof *v);
        v += jb;
      }
  }
  return HLA_OK;
}

int64_t hlu_fanin_words(const hlu_ctx *c, int64_t nrhs) {
  const int64_t ld = c->mloc > 1 ? c->mloc : 1;
  const int64_t lw = c->N > c->M ? (c->nloc > 1 ? c->nloc : 1) : ld; /* W, or Xm (fanin) */
  return (ld + lw + 2 * (int64_t)c->nb) * nrhs;
}

int hlu_trsolve_fanin(hlu_ctx *c, hmat B, int trans) {
  const int64_t ld = c->mloc > 1 ? c->mloc : 1, nrhs = B->n, nb = c->nb;
  const int64_t lw = c->N > c->M ? (c->nloc > 1 ? c->nloc : 1) : ld; /* W, or Xm (fanin) */
  hreal *Y = c->fan, *W = Y + ld * nrhs, *s = W + lw * nrhs, *x = s + nb * nrhs;
  HLA_CALL(fanin(c, B, 'L', trans ? 'N' : 'U', Y, W, s, x));
  HLA_CALL(fanin(c, B, 'U', trans ? 'U' : 'N', Y, W, s, x));
  return fanin_to_b(c, B, Y);
}
