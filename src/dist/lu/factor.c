/* hla — LU factorisation with partial pivoting: the blocked right-looking driver with look-ahead
 * (hlu_factor_run). It runs the variant lu.c resolved and never chooses one itself.
 *
 * Block step k (columns [j0, j0 + jb), j0 = k nb; pc = k mod N owns them, pr = k mod M owns rows
 * [j0, j0 + jb)):
 *   a. panel: the process column pc factors the panel (panel.c), each pivot and its row by one
 *      record exchange over the column (pivot.c: my candidate); skipped when look-ahead already
 *      did it in step k-1;
 *   b. L: the panel (my rows >= j0) with the pivots and the zero-pivot flag goes along every
 *      process row from pc: with look-ahead on a flat row early (see e.), on the row's board, from
 *      pc to each or round a ring (also a longer row by node whose nodes' ranks follow one
 *      another: lu.c; the next panel's owners pass it on after d.); else by a one- or two-level
 *      broadcast (bcast.c);
 *   c. swaps: the jb interchanges, composed into one permutation, move every touched row once to
 *      its final owner right of the panel, in one superstep per process column (swap.c); left
 *      of the panels they wait for the end (f.). On the process column that factored the panel by
 *      look-ahead the rows were packed in step k-1 (e.): only the superstep is left. With
 *      HLA_SWAP_SPREAD the same superstep brings the block row A12 and L11 to every rank of the
 *      column (HPL's "long" swap: hlu_swap_spread);
 *   d. U: U12 := L11^-1 A12 (trsm, ublock.c) on every rank of the column after a spread; else
 *      with row swaps on short one-level columns (M <= HLU_USPLIT_MAX) either pr, where it has
 *      fewer rows to update than another rank (or M = 2), solves all and streams it point to
 *      point, the columns the next panel and the first slice of e. need first and the rest after
 *      the next panel, or pr sends each rank of its column a part of A12 to solve and the solved
 *      parts are exchanged; else pr solves and broadcasts U12 down its process column, on the
 *      column of block k+1 that block's columns first and the rest after the next panel;
 *   e. update: A22 -= L21 U12 by dgemm (threaded BLAS of the node), first on the columns of block
 *      k+1 and then on the rest. With look-ahead, process column k+1 mod N factors panel k+1
 *      between the two, so the panel (latency-bound, one process column) runs while the other
 *      columns are still updating, and its broadcast in step k+1 does not wait for the big update
 *      of its owners. The dgemm calls are the same either way, so the bits are too. That process
 *      column then knows the pivots of block k+1 and packs the rows its interchanges send (and
 *      moves those inside its rows) as the update of the rest writes them (HLU_PACK_BLOCKS).
 *   f. after the last block: the interchanges left of every panel, all of a block's later ones
 *      composed, each row of L moved once (hlu_swap_left).
 * No global synchronisation inside the loop: only row and column environments (subset syncs).
 *
 * BSP cost per block step (flat; R = ceil((n - j0)/M) rows, C = ceil((n - j0)/N) columns):
 *   panel  flat column: jb binary exchanges, log2 M (l_c + (2 jb + 3) g_c) (on a board: none);
 *          two levels: jb hlu_allreduce_rec of 2 jb + 3 words
 *          + 2 R jb^2 flops on pc, and about jb^3 / 6 on each of its ranks (the recursion's
 *          U12 blocks, no message);
 *   L      R jb g_r + l_r (pipelined: about once, plus N - 2 segments; a tree, and under
 *          HLU_CHAIN_MIN bytes: log2 N times);
 *          on the row's board (N > 2 on one node, look-ahead): R jb words written by pc, read in
 *          place by the others, no message and no l; round the ring: R jb words in and out of
 *          every rank that holds columns right of the panel (the others: jb + 1 words),
 *          overlapped with the update, and one hop's on the critical path;
 *   swaps  2 jb C g_c + l_c (right of the panel);
 *   U      jb^2 C flops on pr + jb C g_c + l_c (pipelined as L); in parts: jb^2 C / M flops each
 *          + 2 l_c + (jb^2 + jb C / M)(M - 1) g_c + jb C (M - 1) / M g_c; streamed: jb^2 C flops
 *          and jb C (M - 1) g_c on pr, three messages to each rank and no superstep; spread:
 *          jb^2 C flops on every rank, and the swaps' h grows by about jb C (M - 1)/M + jb^2;
 *   update 2 R jb C flops.
 * Summed over n / nb steps: 2 n^3 / (3 P) flops + O(n^2 (1/M + 1/N)) words + O(n) l_c + O(n/nb)
 * l_r; f. adds <= n^2 / (2 P) words and n / (nb N) l_c. Two levels replace each broadcast and
 * the pivots' record exchange by its two-level form (bcast.c): the traffic that crosses the top
 * level goes among one rank per group (node).
 *
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "dist/lu/lu_impl.h"
#include "kernels/kernels.h"

/* ---------------------------------------------------------------- the factorisation */

/* Pack the L panel of columns [j0, j0 + jb) (my rows from il0, local column jl0) with its pivots
 * and zero-pivot flag into lb: [jb pivots][flag][rows x jb]. */
static void pack_l(const hlu_ctx *c, hreal *lb, const int64_t *ipiv, int64_t j0, int jb,
                   int64_t pinfo, int64_t il0, int64_t jl0) {
  int64_t *hdr = (int64_t *)lb;
  memcpy(hdr, ipiv + j0, (size_t)jb * sizeof *hdr);
  hdr[jb] = pinfo;
  hkern_pack(c->mloc - il0, jb, c->a + il0 + jl0 * c->lld, c->lld, lb + HREAL_WORD * (jb + 1));
}

/* The early broadcast of an L panel by messages along a process row that does not lie on one node
 * (there the board serves), in one of two shapes:
 *   star  (rows of at most HLU_EARLY_MAX ranks) the root sends to each with MPI_Isend and the
 *         others MPI_Irecv. Where MPI moves a large message in one piece (shared memory with
 *         single-copy: the receiver copies it itself) it needs little help from the busy sender.
 *         Where it cannot (no single-copy, as in many containers; across a network without
 *         progress threads) the message only moves while both sides are inside MPI, here between
 *         the update's slices: on 16 cores without single-copy, process rows of 8 ranks lost 30 %
 *         and rows of 16 (MPI_Ibcast) more against the blocking broadcast
 *         (bench/results/history_16core.md), while rows of 2 and 4 were within a few percent.
 *   ring  (longer rows, HPL's increasing ring) the root sends to the next rank, and every rank
 *         passes the panel on to the next as soon as it sees it arrive (early_progress, after
 *         each slice of its update) or needs it (early_have). Each rank sends one message a step
 *         instead of the root N - 1; the next panel's owner, the rank after the root, has it first.
 *         Against the blocking chain, which holds every rank of the row for the whole chain each
 *         step, a rank spends no time in it: the panel moves while the ranks compute, and a step
 *         costs a rank about its update and one message (the bound of model_lu.c: hp_lu_time).
 *         Measured under SimGrid only, where a posted message moves by itself
 *         (bench/results/sim/README.md: "The LU at n = 32768, against HPL"); on a network
 *         without progress threads a hop also waits for both ranks to be inside MPI.
 *         The next panel's owners (on more than one process row) pass the panel on only once
 *         their U block has come down their process column (early_take, then early_have after
 *         d.): that block and the next panel are the step's critical path, and the process
 *         columns further round the ring, which would otherwise take the panel at once and send
 *         their own U blocks down the same nodes, shared its links. On 8 x 32 ranks of the
 *         simulated torus the critical U block of 128 KB took 1.1-3.6 ms to come down its column
 *         instead of 1.1 ms alone, and the LU 0.462 s instead of 0.431 s
 *         (bench/results/sim/README.md: "The next owner's U block first"). The others take the
 *         panel that much later, within the step they have before it is their turn.
 * Either way the panel's entries go only to the process columns that hold columns right of it
 * (early_full): the others have nothing to update and take only its header, the pivots and the
 * flag, which leads the buffer. Near the end of a run, or on rows with more process columns than
 * block columns, the ring then passes the rest of its way in messages of a few words (under
 * SimGrid a row of 1,024 ranks and 64 block columns took about 1.6 s to pass a panel round whole;
 * that LU went from 2.19 to 1.73 s).
 * A queue holds one panel's requests: the star root's sends, or a receive (r[0]) and, in the ring,
 * the send on (r[1]). */

typedef struct {
  MPI_Request r[HLU_EARLY_MAX];
  int n;
  int recv; /* r[0] is a receive not seen complete */
  int next; /* ring: the rank the panel goes on to once received; -1: none, or sent */
  hreal *buf;
  int count; /* words sent on to next: the whole message, or its header only */
} hlu_early;

/* How many of the ranks after the root along the row (relative 1 .. N - 1) hold columns right of
 * panel k: the first ones, the owners of blocks k + 1, k + 2, ... */
static int early_full(int64_t k, int64_t n, int nb, int N) {
  const int64_t after = (n + nb - 1) / nb - 1 - k;
  return after < N - 1 ? (int)after : N - 1;
}

/* The panel goes on to the next rank of the ring, once it is here (blocking: wait for it). */
static int early_forward(hbsp_env all, hbsp_env row, hlu_early *q, int block) {
  if (q->recv) {
    int done = 1;
    if (block)
      HBSP_MPI(all, MPI_Wait(&q->r[0], MPI_STATUS_IGNORE));
    else
      HBSP_MPI(all, MPI_Test(&q->r[0], &done, MPI_STATUS_IGNORE));
    if (!done) return HLA_OK;
    q->recv = 0;
  }
  if (q->next >= 0) {
    HBSP_MPI(all, MPI_Isend(q->buf, q->count, HREAL_MPI, q->next, HLU_TAG_L, hbsp_comm(row),
                            &q->r[q->n++]));
    q->next = -1;
  }
  return HLA_OK;
}

/* The panel of q is here (and, in the ring, on its way on). */
static int early_have(hbsp_env all, hbsp_env row, hlu_early *q) {
  return early_forward(all, row, q, 1);
}

/* The panel of q is here; passed on now, or where hold, later by early_have. */
static int early_take(hbsp_env all, hbsp_env row, hlu_early *q, int hold) {
  if (!hold) return early_have(all, row, q);
  if (q->recv) HBSP_MPI(all, MPI_Wait(&q->r[0], MPI_STATUS_IGNORE));
  q->recv = 0;
  return HLA_OK;
}

/* Everything of q done: its buffer may take another panel. */
static int early_wait(hbsp_env all, hbsp_env row, hlu_early *q) {
  HLA_CALL(early_have(all, row, q));
  if (q->n > 0) HBSP_MPI(all, MPI_Waitall(q->n, q->r, MPI_STATUSES_IGNORE));
  q->n = 0;
  return HLA_OK;
}

/* Posts panel k's message of `count` words (its header: the first `head`) from root along the row:
 * relative ranks 1 .. early_full get all of it, the rest the header. */
static int early_post(hbsp_env all, hbsp_env row, hlu_early *q, hreal *buf, int count, int head,
                      int root, int ring, int full) {
  MPI_Comm comm = hbsp_comm(row);
  int N = hbsp_size(row), me = hbsp_rank(row), v = (me - root + N) % N;
#define WORDS(t) ((t) <= full ? count : head) /* what relative rank t gets */
  *q = (hlu_early){.n = 0, .recv = 0, .next = -1, .buf = buf, .count = WORDS(v + 1)};
  if (v != 0) {
    HBSP_MPI(all, MPI_Irecv(buf, WORDS(v), HREAL_MPI, ring ? (me + N - 1) % N : root, HLU_TAG_L,
                            comm, &q->r[q->n++]));
    q->recv = 1;
    if (ring && v < N - 1) q->next = (me + 1) % N;
  } else if (ring) {
    HBSP_MPI(all,
             MPI_Isend(buf, WORDS(1), HREAL_MPI, (me + 1) % N, HLU_TAG_L, comm, &q->r[q->n++]));
  } else {
    for (int t = 1; t < N; t++) /* staggered, so that no receiver is everyone's first */
      HBSP_MPI(all,
               MPI_Isend(buf, WORDS(t), HREAL_MPI, (me + t) % N, HLU_TAG_L, comm, &q->r[q->n++]));
  }
#undef WORDS
  return HLA_OK;
}

/* Moves the panels along while this rank computes: passes on what has arrived, oldest panel first
 * (a rank's messages to the next are matched in the order they were sent), and lets go of what
 * has completed. */
static int early_progress(hbsp_env all, hbsp_env row, hlu_early *old, hlu_early *young) {
  HLA_CALL(early_forward(all, row, old, 0));
  if (old->next < 0) HLA_CALL(early_forward(all, row, young, 0));
  hlu_early *qs[2] = {old, young};
  for (int i = 0; i < 2; i++) {
    int done;
    if (qs[i]->n > 0 && !qs[i]->recv && qs[i]->next < 0) {
      HBSP_MPI(all, MPI_Testall(qs[i]->n, qs[i]->r, &done, MPI_STATUSES_IGNORE));
      if (done) qs[i]->n = 0;
    }
  }
  return HLA_OK;
}

/* The board slot of panel k on an N-column process row: each owner alternates its two slots. */
static int board_slot(int64_t k, int N) {
  return (int)(k / N % 2);
}

/* The owner of panel (j0, jb) writes it into its board slot s, once everyone has read what the
 * slot held (2 N panels before), and posts it. */
static int board_post(const hlu_ctx *c, hbsp_board bd, hreal *slot, int s, const int64_t *ipiv,
                      int64_t j0, int jb, int64_t pinfo, int64_t il0, int64_t jl0) {
  HLA_CALL(hbsp_board_claim(bd, s));
  pack_l(c, slot, ipiv, j0, jb, pinfo, il0, jl0);
  return hbsp_board_post(bd, s);
}

int hlu_factor_run(hlu_ctx *c, int64_t *ipiv) {
  const int64_t n = c->n, lld = c->lld;
  const int nb = c->nb, M = c->M, N = c->N, me_r = c->myrow, me_c = c->mycol;
  if (M * N == 1) {
    /* One process holds the whole matrix in global order: LAPACK's blocked LU on all its threads
     * is the best there is (same pivots: both take the first largest entry). */
    int64_t info;
    c->tmark = hbsp_time();
    int e = hkern_dgetrf(n, n, c->a, lld, ipiv, &info);
    hlu_phase(c, HLU_T_UPDATE); /* all of dgetrf */
    if (e != HLA_OK)
      return HBSP_FAIL(c->all, e, "hlu_factor: " HREAL_P "getrf of order %lld", (long long)n);
    if (info >= 0 && (c->info < 0 || info < c->info)) c->info = info;
    return HLA_OK;
  }
  int64_t pinfo = -1;
  /* How the L panels go was resolved with the workspaces (hlu_workspace: c->plan.lpanels). Early,
   * panel k+1 leaves as soon as it is factored, while its owners still update the rest of the
   * trailing matrix; the other process columns pick it up in step k+1, so nobody waits for the
   * owners' big update: on the row's board (the owners post it, the others read it in place) or
   * by messages (early_post). Messages: two L buffers alternate, each with its requests
   * (lq[k % 2]): a sender only reads its buffer in step k+1, so it waits for its sends just before
   * it packs panel k+2 into the same buffer, by when every receiver has long had them. On the
   * board each owner alternates two slots (board_slot): it writes slot s again 2 N steps later,
   * after its claim. */
  hbsp_board bd = c->plan.lpanels == HLU_L_BOARD ? c->board : NULL;
  if (bd) HLA_CALL(hbsp_board_reset(bd)); /* nothing left over from a call that failed */
  if (c->pboard) HLA_CALL(hbsp_board_reset(c->pboard));
  c->pex = 0;
  const int early = c->plan.lpanels != HLU_L_BCAST;
  const int msgs = early && bd == NULL; /* by messages: moved along after each update slice */
  const int ring = c->plan.lpanels == HLU_L_RING;
  hlu_early lq[2] = {{.n = 0, .next = -1}, {.n = 0, .next = -1}};
  const int spread = c->plan.swap == HLA_SWAP_SPREAD;
  const int pre = c->plan.lookahead && !spread; /* the next block's swaps packed early (e.) */
  c->tmark = hbsp_time();
  for (int64_t j0 = 0, k = 0; j0 < n; j0 += nb, k++) {
    const int jb = (int)(n - j0 < nb ? n - j0 : nb);
    const int pc = (int)(k % N), pr = (int)(k % M);
    const int64_t il0 = hmat_numroc(j0, nb, me_r, M), il1 = hmat_numroc(j0 + jb, nb, me_r, M);
    const int64_t jl0 = hmat_numroc(j0, nb, me_c, N), jl1 = hmat_numroc(j0 + jb, nb, me_c, N);
    const int64_t nl = c->mloc - il0, ldl = nl > 1 ? nl : 1, nu = c->nloc - jl1;
    /* the next panel's owner holds panel k until its U block is down its column (early_take) */
    const int hold = ring && M > 1 && me_c == (int)((k + 1) % N);

    /* a. panel */
    if (me_c == pc && (!c->plan.lookahead || k == 0)) HLA_CALL(hlu_panel(c, j0, jb, ipiv, &pinfo));
    hlu_phase(c, HLU_T_PANEL);

    /* b. L panel, pivots and the zero-pivot flag along my process row */
    hreal *lb = early && k % 2 ? c->lbuf2 : c->lbuf;
    const int64_t lwords = HREAL_WORD * (jb + 1) + nl * jb; /* entries, the header's included */
    if (bd != NULL) { /* posted in step k-1 (see e.), except for the first panel */
      const int s = board_slot(k, N);
      if (me_c == pc) {
        lb = hbsp_board_slot(bd, me_c, s);
        if (k == 0) HLA_CALL(board_post(c, bd, lb, s, ipiv, j0, jb, pinfo, il0, jl0));
      } else {
        const void *p;
        HLA_CALL(hbsp_board_wait(bd, pc, s, &p));
        lb = (hreal *)p; /* read in place, never written: the owner's until it claims it */
      }
    } else if (!early) {
      if (me_c == pc) pack_l(c, lb, ipiv, j0, jb, pinfo, il0, jl0);
      HLA_CALL(hlu_bcast(&c->rowlv, lb, (size_t)lwords * sizeof(hreal), pc,
                         hlu_big_how(c, &c->rowlv, (size_t)lwords * sizeof(hreal))));
    } else { /* posted in step k-1 (see e.), except for the first panel */
      if (k == 0) {
        if (me_c == pc) pack_l(c, lb, ipiv, j0, jb, pinfo, il0, jl0);
        HLA_CALL(early_post(c->all, c->rowlv.env, &lq[0], lb, (int)lwords,
                            (int)(HREAL_WORD * (jb + 1)), pc, ring, early_full(k, n, nb, N)));
      }
      if (me_c != pc) HLA_CALL(early_take(c->all, c->rowlv.env, &lq[k % 2], hold));
    }
    const int64_t *hdr = (const int64_t *)lb;
    const hreal *L = lb + HREAL_WORD * (jb + 1);
    memcpy(ipiv + j0, hdr, (size_t)jb * sizeof *hdr);
    if (c->info < 0 && hdr[jb] >= 0) c->info = hdr[jb];
    hlu_phase(c, HLU_T_LWAIT);

    /* nxt: my columns of block k+1, which the next panel needs first (e.) */
    const int64_t m2 = c->mloc - il1, next0 = j0 + jb;
    const int next_pc = (int)((k + 1) % N);
    const int64_t nxt = me_c == next_pc && next0 < n ? (n - next0 < nb ? n - next0 : nb) : 0;
    /* c. the block's interchanges right of the panel (with spread: and the block row A12 with
     * L11 onto every rank of my process column) */
    int64_t *dst, *src, np;
    if (c->rows.open) { /* packed in step k-1 (e.) */
      HLA_CALL(hlu_rows_close(c));
    } else {
      hlu_perm_pairs(ipiv, j0, j0 + jb, n, c->iwork, &dst, &src, &np);
      if (spread)
        HLA_CALL(hlu_swap_spread(c, j0, jb, c->iwork, dst, src, np, jl1, c->nloc, nxt, pr, L, ldl));
      else
        HLA_CALL(hlu_move_rows(c, c->A, dst, src, np, jl1, c->nloc));
    }
    hlu_phase(c, HLU_T_SWAP);

    /* d. U12 := L11^-1 A12, into the matrix on process row pr and into ubuf on every rank of my
     * process column (ublock.c); with spread only block k+1's columns now, the rest after the
     * next panel. */
    hreal *A12 = c->a + il0 + jl1 * lld;
    HLA_CALL(hlu_u_block(c, j0, jb, nxt, nu, pr, L, ldl, A12));
    HLA_CALL(hlu_u_wait(c, nxt)); /* streamed: block k+1's columns */
    if (hold) HLA_CALL(early_have(c->all, c->rowlv.env, &lq[k % 2])); /* on round the ring */
    hlu_phase(c, HLU_T_U);

    /* e. trailing update: block k+1 first, then (look-ahead) panel k+1, then the rest */
    const hreal *L21 = L + (il1 - il0);
    hreal *A22 = c->a + il1 + jl1 * lld;
    if (m2 > 0 && nxt > 0)
      HLA_CALL(hkern_dgemm('N', 'N', m2, nxt, jb, -1.0, L21, ldl, c->ubuf, jb, 1.0, A22, lld));
    hlu_phase(c, HLU_T_UPDATE);
    if (c->plan.lookahead && nxt > 0) {
      pinfo = -1;
      HLA_CALL(hlu_panel(c, next0, (int)nxt, ipiv, &pinfo));
    }
    if (early && next0 < n) {
      /* Panel k+1 leaves now, as soon as it is factored: its owners post it on the board, or
       * send it while the other process columns post their receive before their update, and both
       * sides move the messages along between the slices below. */
      const int jbn = (int)(n - next0 < nb ? n - next0 : nb);
      if (bd != NULL) {
        const int s = board_slot(k + 1, N);
        if (me_c == next_pc)
          HLA_CALL(board_post(c, bd, hbsp_board_slot(bd, me_c, s), s, ipiv, next0, jbn, pinfo, il1,
                              jl1));
      } else {
        hreal *nb2 = (k + 1) % 2 ? c->lbuf2 : c->lbuf;
        hlu_early *q = &lq[(k + 1) % 2];
        HLA_CALL(early_wait(c->all, c->rowlv.env, q)); /* panel k-1's, in this buffer */
        if (me_c == next_pc) pack_l(c, nb2, ipiv, next0, jbn, pinfo, il1, jl1);
        HLA_CALL(early_post(
            c->all, c->rowlv.env, q, nb2, (int)(HREAL_WORD * (jbn + 1) + (c->mloc - il1) * jbn),
            (int)(HREAL_WORD * (jbn + 1)), next_pc, ring, early_full(k + 1, n, nb, N)));
      }
    }
    hlu_phase(c, HLU_T_PANEL);
    if (spread) { /* the spread's rest, now that the next panel is on its way */
      HLA_CALL(hlu_swap_spread_rest(c));
      hlu_phase(c, HLU_T_SWAP);
      HLA_CALL(hlu_u_rest(c, jb, nxt, nu, pr, A12));
      hlu_phase(c, HLU_T_U);
    }
    /* U12's columns left for after the panel: streamed, pr solves them while the others update
     * the first slice; broadcast, on the process column of block k+1, they go down it now. */
    HLA_CALL(hlu_u_late(c, jb, nxt, nu, A12));
    hlu_phase(c, HLU_T_U);
    /* The interchanges of block k+1 over the rest of my columns, when this process column has
     * just factored panel k+1 (look-ahead, row swaps): their rows are packed right after the
     * update writes them (below), while still in cache, and move at the start of step k+1. */
    const int64_t rest = nu - nxt;
    if (pre && nxt > 0 && rest > 0) {
      hlu_perm_pairs(ipiv, next0, next0 + nxt, n, c->iwork, &dst, &src, &np);
      if (np > 0) HLA_CALL(hlu_rows_open(c, c->A, dst, src, np, jl1 + nxt, c->nloc, rest, NULL));
    }
    /* The rest in column slices (the same slices in every variant, so the bits agree), each
     * after its columns of a streamed U12 arrived, testing the early broadcast in between so that
     * it moves while this rank computes (N > 1), or packing the next interchanges' rows (N = 1). */
    for (int64_t s0 = 0, s1; s0 < rest; s0 = s1) {
      s1 = hlu_slice_end(c, rest, s0);
      const int64_t w = s1 - s0;
      HLA_CALL(hlu_u_wait(c, nxt + s1));
      if (m2 > 0)
        HLA_CALL(hkern_dgemm('N', 'N', m2, w, jb, -1.0, L21, ldl, c->ubuf + (nxt + s0) * jb, jb,
                             1.0, A22 + (nxt + s0) * lld, lld));
      if (c->rows.open) HLA_CALL(hlu_rows_pack(c, s0, s0 + w));
      if (msgs) HLA_CALL(early_progress(c->all, c->rowlv.env, &lq[k % 2], &lq[(k + 1) % 2]));
    }
    HLA_CALL(hlu_u_wait(c, INT64_MAX)); /* nothing left by now; kept safe */
    if (bd != NULL && me_c != pc) HLA_CALL(hbsp_board_done(bd, pc, board_slot(k, N)));
    hlu_phase(c, HLU_T_UPDATE);
  }
  HLA_CALL(early_wait(c->all, c->rowlv.env, &lq[0]));
  HLA_CALL(early_wait(c->all, c->rowlv.env, &lq[1]));
  hlu_phase(c, HLU_T_LWAIT);
  /* f. */
  HLA_CALL(hlu_swap_left(c, ipiv));
  hlu_phase(c, HLU_T_SWAP);
  return HLA_OK;
}
