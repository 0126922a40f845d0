/* hla — distributed triangular solves with the LU factors, blocked, many right-hand sides.
 *
 * B := L^-1 B (forward, unit lower) or U^-1 B (backward, upper), B n x nrhs on the factors' grid
 * with the same row blocks. Right-looking by block rows k (rows [j0, j0 + jb), process row pr,
 * process column pc of the factors' column block k):
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
#include "dist/lu_impl.h"
#include "kernels/kernels.h"

/* Send lbuf[0..count) from process column pc to the process columns that hold columns of B: a
 * broadcast along the row when all do; otherwise (few right-hand sides) straight to those that
 * do, in one superstep of the row, so that the triangle does not travel to ranks with nothing to
 * solve. Collective over my process row. */
static int to_holders(hlu_ctx *c, hmat B, int64_t count, int pc) {
  int N = c->N, all = 1;
  size_t bytes = (size_t)count * sizeof(double);
  for (int t = 0; t < N; t++) all &= hmat_numroc(B->n, B->nb, t, N) > 0;
  if (all) return hlu_bcast(&c->rowlv, c->lbuf, bytes, pc, c->howp);
  if (count == 0) return HLA_OK;
  hbsp_env row = c->rowlv.env;
  if (c->mycol == pc)
    for (int t = 0; t < N; t++)
      if (t != pc && hmat_numroc(B->n, B->nb, t, N) > 0)
        HLA_CALL(hbsp_send(row, t, NULL, c->lbuf, bytes));
  HLA_CALL(hbsp_sync(row));
  size_t nmsg, got;
  HLA_CALL(hbsp_qsize(row, &nmsg, NULL));
  for (size_t q = 0; q < nmsg; q++) HLA_CALL(hbsp_move(row, NULL, c->lbuf, bytes, &got));
  return HLA_OK;
}

int hlu_trsolve(hlu_ctx *c, hmat B, char uplo) {
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
      double *Bk = B->data + il0;
      const double *T = c->lbuf + (il0 - r0);
      HLA_CALL(hkern_dtrsm('L', lower ? 'L' : 'U', 'N', lower ? 'U' : 'N', jb, nr, 1.0, T, ldl, Bk,
                           ldb));
      hkern_pack(jb, nr, Bk, ldb, c->ubuf);
    }
    /* 3. down my process column (every rank of it has the same nr) */
    HLA_CALL(hlu_bcast(&c->collv, c->ubuf, (size_t)(jb * nr) * sizeof(double), pr, c->howp));

    /* 4. the rest of my rows: below the block (L) or above it (U) */
    const int64_t u0 = lower ? il1 : 0, u1 = lower ? c->mloc : il0;
    if (u1 > u0 && nr > 0)
      HLA_CALL(hkern_dgemm('N', 'N', u1 - u0, nr, jb, -1.0, c->lbuf + (u0 - r0), ldl, c->ubuf, jb,
                           1.0, B->data + u0, ldb));
  }
  return HLA_OK;
}
