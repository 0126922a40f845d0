/* hla — step d. of the LU's block step: the U row block U12 := L11^-1 A12 of block k, solved and
 * handed to every rank of the process column (each needs all of it for its trailing update), and
 * written into the block row of the matrix on process row pr, which owns it.
 *
 * The columns are solved in pieces, by one trsm call each (u_solve_cols): the columns of block k+1
 * (nxt, those the next panel needs first), then the rest in M parts at block boundaries (u_cut),
 * the first part cut again where the trailing update's first slice ends (hlu_slice_end). Every way
 * below solves the same pieces, only on different ranks, so all compute the same bits.
 *   stream  (ctx->plan.usplit, and M = 2 or pr has at least jb/2 rows less below the block than
 * some other rank): pr solves all and sends it point to point in three messages, the columns of
 * block k+1 and of the update's first slice now, the rest after the next panel, while the others
 * update that slice; pr completes its sends after its own first slice, when the others wait for the
 * rest inside MPI too (an MPI without single-copy moves a large message only while both sides are
 * inside it). pr is never the rank with the most rows below the block (the block rows left are
 * dealt from block k+1 on, pr's last), and a block row more is jb rows of update, twice the flops
 * of the solve: the solve fits in pr's slack and the others wait only for the first slice's. On two
 *           process rows the steps where both have as many rows stream as well: there the other
 *           rank owns block k+1, into whose rows about half of step k+1's interchanges move
 *           locally (swap.c), and a split's two supersteps cost more than the solve it
 *           shares. 2x1 at n = 6000 against the split everywhere: 0.7-1.5 % faster (medians of
 *           5 alternating pairs).
 *   split   (ctx->plan.usplit: row swaps, one level, the library's own collectives,
 *           1 < M <= HLU_USPLIT_MAX; the steps that do not stream):
 *           pr sends L11 and part q of A12 to the rank that solves part q, every rank solves
 *           its part, and one exchange of the solved parts gives everyone the whole block. On
 *           2x1 at n = 6000 the solve on pr alone was 4 % of the factorisation with the other
 *           rank idle meanwhile; the words moved are those of a scatter-allgather broadcast.
 *   bcast   (two levels, a broadcast algorithm of the user, or longer columns): pr solves all
 *           and broadcasts it (hlu_bcast); on the process column of block k+1 that block's
 *           columns first, the rest after the next panel (hlu_u_late), so that the panel waits for
 *           the chain of one block only. On 16 x 16 of the simulated torus at n = 4096 this took
 *           the LU from 0.591 to 0.546 s (bench/results/sim/README.md: "The U blocks' chain").
 *   spread  (HLA_SWAP_SPREAD): every rank has A12 and L11 from the swap and solves all of it,
 *           the rest after the next panel (hlu_u_rest).
 */
#include <limits.h>
#include <string.h>
#include "dist/lu/lu_impl.h"
#include "kernels/kernels.h"

/* First local column of part q in [0, M] of the columns [nxt, nu) right of block k+1: whole blocks,
 * the first parts one block larger where they do not divide evenly. */
static int64_t u_cut(int64_t nxt, int64_t nu, int nb, int M, int q) {
  const int64_t rest = nu - nxt, nblk = (rest + nb - 1) / nb, c = nb * ((q * nblk + M - 1) / M);
  return nxt + (c < rest ? c : rest);
}

/* The part solved by process row r: pr takes the last (the smallest), since it also sends. */
static int u_part(int r, int pr, int M) {
  return (r - pr - 1 + M) % M;
}

/* Columns [a, b) of U12 := L11^-1 U12 in ubuf (jb rows; L11 packed in l11), and on the process row
 * of the diagonal block (on_pr) into the matrix's block row A12. */
static int u_solve(hlu_ctx *c, int jb, int64_t a, int64_t b, int on_pr, hreal *A12) {
  if (b <= a) return HLA_OK;
  hreal *U = c->ubuf + a * jb;
  HLA_CALL(hkern_dtrsm('L', 'L', 'N', 'U', jb, b - a, 1.0, c->l11, jb, U, jb));
  if (on_pr) hkern_unpack(jb, b - a, U, A12 + a * c->lld, c->lld);
  return HLA_OK;
}

/* The columns [x0, x1) of U12 right of block k+1 (x0 and x1 ends of pieces: see the header), piece
 * by piece. */
static int u_solve_cols(hlu_ctx *c, int jb, int64_t nxt, int64_t nu, int64_t x0, int64_t x1,
                        int on_pr, hreal *A12) {
  const int64_t f = nxt + hlu_slice_end(c, nu - nxt, 0);
  for (int q = 0; q < c->M; q++) {
    int64_t p0 = u_cut(nxt, nu, c->nb, c->M, q), p1 = u_cut(nxt, nu, c->nb, c->M, q + 1);
    if (q == 0 && f > p0 && f < p1) {
      if (p0 >= x0 && f <= x1) HLA_CALL(u_solve(c, jb, p0, f, on_pr, A12));
      p0 = f;
    }
    if (p0 >= x0 && p1 <= x1) HLA_CALL(u_solve(c, jb, p0, p1, on_pr, A12));
  }
  return HLA_OK;
}

/* The end of the stream's second message: the first end of a piece at or after the first slice's
 * end. */
static int64_t u_first_end(const hlu_ctx *c, int64_t nxt, int64_t nu) {
  const int64_t f = nxt + hlu_slice_end(c, nu - nxt, 0);
  for (int q = 1; q < c->M; q++) {
    const int64_t p = u_cut(nxt, nu, c->nb, c->M, q);
    if (p >= f) return q == 1 ? f : p;
  }
  return c->M == 1 ? f : nu; /* u_cut(M) = nu */
}

/* Bytes of a part of u_send_part: two header words and jb x w values. */
static size_t part_bytes(int jb, int64_t w) {
  return 2 * sizeof(int64_t) + (size_t)(jb * w) * sizeof(hreal);
}

/* Solved columns [a, b) of ubuf to every other rank of the column: [a][b][jb (b - a) values]. */
static int u_send_part(hlu_ctx *c, int jb, int64_t a, int64_t b) {
  hbsp_env col = c->collv.env;
  if (b <= a) return HLA_OK;
  const size_t bytes = part_bytes(jb, b - a);
  for (int d = 0; d < c->M; d++) {
    if (d == c->myrow) continue;
    void *space;
    HLA_CALL(hbsp_send_buf(col, d, NULL, bytes, &space));
    int64_t *hdr = space;
    hdr[0] = a, hdr[1] = b;
    memcpy(hdr + 2, c->ubuf + a * jb, (size_t)(jb * (b - a)) * sizeof(hreal));
  }
  return HLA_OK;
}

/* The stream bytes each rank s of the column sends me in superstep 2 of u_split: its part, and on
 * pr also block k+1's columns (u_send_part's messages). */
static void u_split_in(const hlu_ctx *c, int jb, int64_t nxt, int64_t nu, int pr, uint64_t *in) {
  hbsp_env col = c->collv.env;
  for (int s = 0; s < c->M; s++) {
    const int64_t sa = u_cut(nxt, nu, c->nb, c->M, u_part(s, pr, c->M));
    const int64_t sb = u_cut(nxt, nu, c->nb, c->M, u_part(s, pr, c->M) + 1);
    in[s] = sb > sa ? hbsp_sync_msg_bytes(col, part_bytes(jb, sb - sa)) : 0;
    if (s == pr && nxt > 0) in[s] += hbsp_sync_msg_bytes(col, part_bytes(jb, nxt));
  }
}

/* The split way (header comment): two supersteps of the column, each one round of messages whose
 * sizes every rank knows (hbsp_sync_known). */
static int u_split(hlu_ctx *c, int jb, int64_t nxt, int64_t nu, int pr, const hreal *L, int64_t ldl,
                   hreal *A12) {
  hbsp_env col = c->collv.env;
  const int M = c->M, me = c->myrow, nb = c->nb;
  const int64_t lld = c->lld, jb2 = (int64_t)jb * jb;
  const int64_t a = u_cut(nxt, nu, nb, M, u_part(me, pr, M));
  const int64_t b = u_cut(nxt, nu, nb, M, u_part(me, pr, M) + 1);
  size_t nmsg, got;
  const void *space;
  uint64_t in[HLU_USPLIT_MAX] = {0};

  /* Superstep 1: L11 and the parts of A12, from pr to the ranks that solve them. */
  if (me == pr) {
    for (int d = 0; d < M; d++) {
      const int64_t da = u_cut(nxt, nu, nb, M, u_part(d, pr, M));
      const int64_t db = u_cut(nxt, nu, nb, M, u_part(d, pr, M) + 1);
      if (d == pr || db <= da) continue;
      void *buf;
      HLA_CALL(hbsp_send_buf(col, d, NULL, (size_t)(jb2 + jb * (db - da)) * sizeof(hreal), &buf));
      hkern_pack(jb, jb, L, ldl, buf);
      hkern_pack(jb, db - da, A12 + da * lld, lld, (hreal *)buf + jb2);
    }
    hkern_pack(jb, jb, L, ldl, c->l11);
    hkern_pack(jb, nxt, A12, lld, c->ubuf);
    hkern_pack(jb, b - a, A12 + a * lld, lld, c->ubuf + a * jb);
  }
  if (me != pr && b > a)
    in[pr] = hbsp_sync_msg_bytes(col, (size_t)(jb2 + jb * (b - a)) * sizeof(hreal));
  HLA_CALL(hbsp_sync_known(col, in));
  HLA_CALL(hbsp_qsize(col, &nmsg, NULL));
  if (nmsg != (size_t)(me != pr && b > a))
    return HBSP_FAIL(col, HLA_ERR_INTERNAL, "LU U block: %zu messages, expected %d", nmsg,
                     me != pr && b > a);
  if (nmsg) {
    HLA_CALL(hbsp_hpmove(col, NULL, &space, &got));
    if (got != (size_t)(jb2 + jb * (b - a)) * sizeof(hreal))
      return HBSP_FAIL(col, HLA_ERR_INTERNAL, "LU U block: part of %zu bytes", got);
    memcpy(c->l11, space, (size_t)jb2 * sizeof(hreal));
    memcpy(c->ubuf + a * jb, (const hreal *)space + jb2, (size_t)(jb * (b - a)) * sizeof(hreal));
  }

  /* Superstep 2: every rank solves its part (pr also block k+1's columns) and sends it to all. */
  if (me == pr) {
    HLA_CALL(u_solve(c, jb, 0, nxt, 1, A12));
    HLA_CALL(u_send_part(c, jb, 0, nxt));
  }
  HLA_CALL(u_solve_cols(c, jb, nxt, nu, a, b, me == pr, A12));
  HLA_CALL(u_send_part(c, jb, a, b));
  u_split_in(c, jb, nxt, nu, pr, in);
  HLA_CALL(hbsp_sync_known(col, in));
  HLA_CALL(hbsp_qsize(col, &nmsg, NULL));
  int64_t missing = nu - (b - a) - (me == pr ? nxt : 0); /* columns the others solved */
  for (size_t m = 0; m < nmsg; m++) {
    HLA_CALL(hbsp_hpmove(col, NULL, &space, &got));
    const int64_t *hdr = space;
    const int64_t pa = got >= 2 * sizeof(int64_t) ? hdr[0] : -1, pb = pa >= 0 ? hdr[1] : -1;
    if (pa < 0 || pb <= pa || pb > nu || got != part_bytes(jb, pb - pa))
      return HBSP_FAIL(col, HLA_ERR_INTERNAL, "LU U block: malformed part of %zu bytes", got);
    memcpy(c->ubuf + pa * jb, hdr + 2, (size_t)(jb * (pb - pa)) * sizeof(hreal));
    if (me == pr) hkern_unpack(jb, pb - pa, c->ubuf + pa * jb, A12 + pa * lld, lld);
    missing -= pb - pa;
  }
  if (missing != 0)
    return HBSP_FAIL(col, HLA_ERR_INTERNAL, "LU U block: %lld columns of U12 missing",
                     (long long)missing);
  return HLA_OK;
}

/* Whether block step k (columns [j0, j0 + jb)) streams U12 from pr (header): on two process rows
 * always, else where some rank has at least jb/2 rows more than pr below the block (a trsm of jb
 * rows costs the flops of an update of jb/2 rows). The same on every rank of the column. */
static int u_streams(const hlu_ctx *c, int64_t j0, int jb, int64_t nu, int pr) {
  if (!c->plan.usplit || nu <= 0 || (int64_t)jb * nu > INT_MAX) return 0;
  const int64_t below = j0 + jb;
  int64_t most = 0, rpr = 0;
  for (int q = 0; q < c->M; q++) {
    const int64_t r = hmat_numroc(c->n, c->nb, q, c->M) - hmat_numroc(below, c->nb, q, c->M);
    if (q == pr)
      rpr = r;
    else if (r > most)
      most = r;
  }
  return c->M == 2 || most - rpr >= (jb + 1) / 2;
}

/* pr: columns [a, b) of ubuf to every other rank of the column, point to point. */
static int u_post(hlu_ctx *c, int jb, int64_t a, int64_t b) {
  if (b <= a) return HLA_OK;
  MPI_Comm comm = hbsp_comm(c->collv.env);
  for (int t = 1; t < c->M; t++) { /* staggered, as the early L panels */
    c->ufrom[c->nureq] = a;
    HBSP_MPI(c->all, MPI_Isend(c->ubuf + a * jb, (int)(jb * (b - a)), HREAL_MPI,
                               (c->myrow + t) % c->M, HLU_TAG_U, comm, &c->ureq[c->nureq++]));
  }
  return HLA_OK;
}

/* The stream way (header comment), up to the next panel: pr solves and sends block k+1's columns
 * and the first slice; the others post the receives of the three messages. */
static int u_stream(hlu_ctx *c, int jb, int64_t nxt, int64_t nu, int pr, const hreal *L,
                    int64_t ldl, hreal *A12) {
  const int64_t e = u_first_end(c, nxt, nu), from[3] = {0, nxt, e}, to[3] = {nxt, e, nu};
  c->nureq = 0;
  if (c->myrow != pr) {
    MPI_Comm comm = hbsp_comm(c->collv.env);
    c->ustream = 1;
    for (int i = 0; i < 3; i++) {
      if (to[i] <= from[i]) continue;
      c->ufrom[c->nureq] = from[i];
      HBSP_MPI(c->all, MPI_Irecv(c->ubuf + from[i] * jb, (int)(jb * (to[i] - from[i])), HREAL_MPI,
                                 pr, HLU_TAG_U, comm, &c->ureq[c->nureq++]));
    }
    return HLA_OK;
  }
  c->ustream = 2;
  hkern_pack(jb, jb, L, ldl, c->l11);
  hkern_pack(jb, nxt, A12, c->lld, c->ubuf);
  HLA_CALL(u_solve(c, jb, 0, nxt, 1, A12));
  HLA_CALL(u_post(c, jb, 0, nxt));
  hkern_pack(jb, e - nxt, A12 + nxt * c->lld, c->lld, c->ubuf + nxt * jb);
  HLA_CALL(u_solve_cols(c, jb, nxt, nu, nxt, e, 1, A12));
  return u_post(c, jb, nxt, e);
}

int hlu_u_late(hlu_ctx *c, int jb, int64_t nxt, int64_t nu, hreal *A12) {
  if (c->ulate) {
    const int pr = c->ulate - 1;
    c->ulate = 0;
    if (c->myrow == pr) HLA_CALL(u_solve_cols(c, jb, nxt, nu, nxt, nu, 1, A12));
    const size_t bytes = (size_t)(jb * (nu - nxt)) * sizeof(hreal);
    return hlu_bcast(&c->collv, c->ubuf + nxt * jb, bytes, pr, hlu_big_how(c, &c->collv, bytes));
  }
  if (c->ustream != 2) return HLA_OK;
  const int64_t e = u_first_end(c, nxt, nu);
  hkern_pack(jb, nu - e, A12 + e * c->lld, c->lld, c->ubuf + e * jb);
  HLA_CALL(u_solve_cols(c, jb, nxt, nu, e, nu, 1, A12));
  return u_post(c, jb, e, nu);
}

int hlu_u_wait(hlu_ctx *c, int64_t upto) {
  if (c->ustream == 0) return HLA_OK;
  int i = 0;
  while (i < c->nureq && c->ufrom[i] < upto) i++;
  HBSP_MPI(c->all, MPI_Waitall(i, c->ureq, MPI_STATUSES_IGNORE));
  memmove(c->ureq, c->ureq + i, (size_t)(c->nureq - i) * sizeof *c->ureq);
  memmove(c->ufrom, c->ufrom + i, (size_t)(c->nureq - i) * sizeof *c->ufrom);
  c->nureq -= i;
  if (c->nureq == 0) c->ustream = 0;
  return HLA_OK;
}

int hlu_u_block(hlu_ctx *c, int64_t j0, int jb, int64_t nxt, int64_t nu, int pr, const hreal *L,
                int64_t ldl, hreal *A12) {
  const int on_pr = c->myrow == pr;
  if (nu <= 0) return HLA_OK; /* the same on every rank of the process column */
  if (c->plan.swap == HLA_SWAP_SPREAD) return u_solve(c, jb, 0, nxt, on_pr, A12);
  if (u_streams(c, j0, jb, nu, pr)) return u_stream(c, jb, nxt, nu, pr, L, ldl, A12);
  if (c->plan.usplit) return u_split(c, jb, nxt, nu, pr, L, ldl, A12);
  /* On the process column of block k+1 only block k+1's columns now: the next panel waits for
   * them alone, the rest goes after it (hlu_u_late). */
  const int64_t now = nxt > 0 ? nxt : nu;
  if (on_pr) {
    hkern_pack(jb, jb, L, ldl, c->l11);
    hkern_pack(jb, nu, A12, c->lld, c->ubuf);
    HLA_CALL(u_solve(c, jb, 0, nxt, 1, A12));
    if (now == nu) HLA_CALL(u_solve_cols(c, jb, nxt, nu, nxt, nu, 1, A12));
  }
  if (now < nu) c->ulate = pr + 1;
  const size_t bytes = (size_t)(jb * now) * sizeof(hreal);
  return hlu_bcast(&c->collv, c->ubuf, bytes, pr, hlu_big_how(c, &c->collv, bytes));
}

int hlu_u_rest(hlu_ctx *c, int jb, int64_t nxt, int64_t nu, int pr, hreal *A12) {
  return u_solve_cols(c, jb, nxt, nu, nxt, nu, c->myrow == pr, A12);
}
