/* hla — hierarchical SUMMA (Hasanov, Quintin and Lastovetsky; ../reference/001_hsumma_hasanov.md
 * §3.2-3.4, with the cleaned pseudocode of §3.3 and its errata fixed).
 *
 * The M x N grid is cut into I x J groups of (M/I) x (N/J) consecutive process rows and columns.
 * Process (r, c) is in group (x, y) = (r / qI, c / qJ) at in-group position (i, j) = (r % qI,
 * c % qJ), qI = M/I, qJ = N/J. Four environments, split from the grid's row and column ones
 * for the duration of the call:
 *   row_in  = my process row inside my group (ranked by j)   — inner broadcasts of A,
 *   row_out = my process row, same j in every group (by y)  — outer broadcasts of A,
 *   col_in, col_out likewise for B along process columns.
 * For each outer panel of Mo columns of op(A) (rows of op(B)): the processes at the owner's
 * in-group column j broadcast their pieces to the same position of the other groups of their
 * group row (outer, row_out); then for each inner panel of b inside it, the in-group column j
 * broadcasts its part inside each group (inner, row_in) and everyone updates C with one dgemm.
 * Inner broadcasts land in place in the outer panel buffer, so the inner panels, their buffers'
 * contents and the dgemm calls are exactly SUMMA's: with the same b the result is bitwise equal to
 * SUMMA's. I = J = 1 (G = 1) or I = M, J = N (G = P) are SUMMA's communication pattern (one of the
 * two levels has a single process and is skipped).
 *
 * Overlap: inner panel s + 1 is in flight while the dgemm of s runs, and the outer panels O + 1
 * and O + 2 while the inner steps of O run (all tested between the slices of the dgemm). Outer
 * panel O + 1 is waited for before the last update of O, to start its first inner broadcasts
 * ahead; with two outer buffers, outer panel O + 1 would be posted only once O - 1's buffer was
 * free, after O - 1's last update, and with Mo = b (the source's b = M) no update would run
 * between its post and that wait: three buffers give the outer broadcasts an update to hide
 * behind.
 */
#include <stdlib.h>
#include <string.h>
#include "dist/matmul/matmul_impl.h"

enum { HS_OUTER = 3 }; /* outer panel buffers (above) */

typedef struct {
  hbsp_env row_in, row_out, col_in, col_out; /* NULL: a level with one process */
  int own[4];                                /* which of them this call split (and frees) */
  hreal *a[HS_OUTER], *bt[HS_OUTER];         /* outer panels, mloc x Mo and nloc x Mo */
  mm_piece *pa, *pb;
  mm_reqs qa[HS_OUTER], qb[HS_OUTER], qi[2]; /* outer broadcasts of A and of B, inner ones */
} hs_ws;

static void hs_free(hgrid g, hs_ws *w) {
  hbsp_env *envs[4] = {&w->row_in, &w->row_out, &w->col_in, &w->col_out};
  for (int i = 0; i < 4; i++)
    if (w->own[i] && *envs[i] != NULL) hbsp_free(envs[i]);
  for (int i = 0; i < HS_OUTER; i++) {
    hdist_give(g, w->a[i]);
    hdist_give(g, w->bt[i]);
    mm_reqs_free(&w->qa[i]);
    mm_reqs_free(&w->qb[i]);
  }
  for (int i = 0; i < 2; i++) mm_reqs_free(&w->qi[i]);
  free(w->pa);
  free(w->pb);
}

/* The two levels of one direction: env (q processes in G groups of q/G), my position pos. */
static int hs_levels(hbsp_env env, int q, int G, int pos, hbsp_env *in, hbsp_env *out, int *own_in,
                     int *own_out) {
  int qg = q / G;
  *in = *out = NULL;
  *own_in = *own_out = 0;
  if (G == 1) { /* one group: the inner level is the whole row */
    *in = env;
    return HLA_OK;
  }
  if (qg == 1) { /* groups of one: the outer level is the whole row */
    *out = env;
    return HLA_OK;
  }
  int code = hbsp_split_named(env, pos / qg, pos % qg, "group", in);
  *own_in = code == HLA_OK;
  if (code == HLA_OK) {
    code = hbsp_split_named(env, pos % qg, pos / qg, "across", out);
    *own_out = code == HLA_OK;
  }
  return code;
}

typedef struct {
  const mm_ctx *x;
  hs_ws *w;
  int qI, qJ, gi, gj; /* group extents and my in-group position */
  int64_t Mo;
  hbsp_coll how; /* the panel broadcast of each level (no further grouping) */
  const hbsp_coll *hp;
} hs_run;

/* Start the outer broadcasts of outer panel O into buffer O % HS_OUTER. */
static int hs_post_outer(hs_run *h, int64_t O) {
  const mm_ctx *x = h->x;
  hs_ws *w = h->w;
  int64_t lo = O * h->Mo, hi = lo + h->Mo < x->k ? lo + h->Mo : x->k;
  int i = (int)(O % HS_OUTER);
  int na = mm_pieces(lo, hi, x->kba, x->N, w->pa);
  for (int p = 0; p < na; p++) {
    int pc = w->pa[p].owner;
    if (pc % h->qJ != h->gj) continue; /* the outer level runs in the owner's in-group column */
    hreal *dst = w->a[i] + w->pa[p].off * x->mloc;
    if (pc == x->mycol) mm_pack_a(x, &w->pa[p], dst);
    HLA_CALL(mm_bcast(w->row_out, dst, x->mloc * w->pa[p].w, pc / h->qJ, h->hp, &w->qa[i]));
  }
  int nb = mm_pieces(lo, hi, x->kbb, x->M, w->pb);
  for (int p = 0; p < nb; p++) {
    int pr = w->pb[p].owner;
    if (pr % h->qI != h->gi) continue;
    hreal *dst = w->bt[i] + w->pb[p].off * x->nloc;
    if (pr == x->myrow) mm_pack_bt(x, &w->pb[p], dst);
    HLA_CALL(mm_bcast(w->col_out, dst, x->nloc * w->pb[p].w, pr / h->qI, h->hp, &w->qb[i]));
  }
  return HLA_OK;
}

/* Start the inner broadcasts of inner panel s of A (op = 0) or of B (op = 1), inside outer panel
 * s panel / Mo, whose outer broadcasts of that operand are complete here. */
static int hs_post_inner(hs_run *h, int64_t s, int op) {
  const mm_ctx *x = h->x;
  hs_ws *w = h->w;
  int64_t lo = s * x->panel, hi = lo + x->panel < x->k ? lo + x->panel : x->k;
  int64_t O = lo / h->Mo, base = O * h->Mo;
  int i = (int)(O % HS_OUTER), qi = (int)(s % 2);
  if (op == 0) {
    int na = mm_pieces(lo, hi, x->kba, x->N, w->pa);
    for (int p = 0; p < na; p++) {
      hreal *dst = w->a[i] + (w->pa[p].g0 - base) * x->mloc;
      HLA_CALL(mm_bcast(w->row_in, dst, x->mloc * w->pa[p].w, w->pa[p].owner % h->qJ, h->hp,
                        &w->qi[qi]));
    }
    return HLA_OK;
  }
  int nb = mm_pieces(lo, hi, x->kbb, x->M, w->pb);
  for (int p = 0; p < nb; p++) {
    hreal *dst = w->bt[i] + (w->pb[p].g0 - base) * x->nloc;
    HLA_CALL(
        mm_bcast(w->col_in, dst, x->nloc * w->pb[p].w, w->pb[p].owner % h->qI, h->hp, &w->qi[qi]));
  }
  return HLA_OK;
}

/* Start inner panel s's broadcasts, each operand's once its own outer panel has arrived (fresh: s
 * begins an outer panel, whose broadcasts must be waited for first), so that A's inner broadcasts
 * do not wait on B's outer ones (with I x 1 or 1 x J groups the two operands travel on different
 * levels). */
static int hs_post_inners(hs_run *h, int64_t s, int fresh) {
  const mm_ctx *x = h->x;
  hs_ws *w = h->w;
  int o = (int)(s * x->panel / h->Mo % HS_OUTER);
  if (fresh) HLA_CALL(mm_wait(x->row, &w->qa[o]));
  HLA_CALL(hs_post_inner(h, s, 0));
  if (fresh) HLA_CALL(mm_wait(x->row, &w->qb[o]));
  return hs_post_inner(h, s, 1);
}

static int hs_loop(hs_run *h) {
  const mm_ctx *x = h->x;
  hs_ws *w = h->w;
  int64_t b = x->panel, S = (x->k + b - 1) / b, So = (x->k + h->Mo - 1) / h->Mo;
  int64_t per = h->Mo / b; /* inner panels per outer panel */
  for (int64_t O = 0; O < HS_OUTER && O < So; O++) HLA_CALL(hs_post_outer(h, O));
  HLA_CALL(hs_post_inners(h, 0, 1));
  for (int64_t s = 0; s < S; s++) {
    int64_t O = s / per, lo = s * b, base = O * h->Mo;
    if (s + 1 < S) HLA_CALL(hs_post_inners(h, s + 1, (s + 1) / per != O));
    HLA_CALL(mm_wait(x->row, &w->qi[s % 2]));
    int64_t width = x->k - lo < b ? x->k - lo : b;
    int i = (int)(O % HS_OUTER), o1 = (int)((O + 1) % HS_OUTER), o2 = (int)((O + 2) % HS_OUTER);
    mm_reqs *flight[5] = {&w->qi[(s + 1) % 2], &w->qa[o1], &w->qb[o1], &w->qa[o2], &w->qb[o2]};
    HLA_CALL(mm_update(x, w->a[i] + (lo - base) * x->mloc, w->bt[i] + (lo - base) * x->nloc, width,
                       flight, 5));
    /* Outer panel O is used up: its buffer takes outer panel O + HS_OUTER. */
    if ((s + 1 == S || (s + 1) / per != O) && O + HS_OUTER < So)
      HLA_CALL(hs_post_outer(h, O + HS_OUTER));
  }
  return HLA_OK;
}

/* HSUMMA. Collective over x->all (through the grid's row and column environments, which it
 * splits into the four level environments: 4 splits, O(log P) l each, per call).
 *
 * Cost on an M x N grid with I x J groups, outer block Mo, inner block b, broadcast of m words
 * over p processes costing L(p) alpha + m W(p) beta (reference 001 eq. 4.1):
 *   latency   k (L(J) + L(I)) / Mo  +  k (L(N/J) + L(M/I)) / b          [times alpha]
 *   bandwidth k (m/M (W(J) + W(N/J)) + n/N (W(I) + W(M/I)))             [times beta]
 *   compute   2 m n k / P, as SUMMA.
 * For a sqrt P x sqrt P grid, sqrt G x sqrt G groups and m = n = k this is reference 001's
 * (4.3)-(4.4): T_l = 2n (L(sqrt G)/Mo + L(sqrt(P/G))/b) alpha, T_b = 2 (n^2/sqrt P)
 * (W(sqrt G) + W(sqrt(P/G))) beta — the bandwidth term independent of b and Mo; G = 1 and G = P
 * give SUMMA's L(sqrt P) and W(sqrt P) since L(1) = W(1) = 0. The hierarchy pays when the latency
 * saved exceeds the bandwidth added: with the scatter-allgather broadcast at G = sqrt P, iff
 * alpha/beta > 2 n b / P (reference 001 (4.10)). BSP: as SUMMA with the row and column supersteps
 * of each level in the smaller level environments (their g and l).
 * Memory: 3 (mloc + nloc) Mo doubles of outer panel buffers (HS_OUTER). */
int mm_hsumma(const mm_ctx *x, int I, int J, int64_t Mo) {
  hs_ws w;
  memset(&w, 0, sizeof w);
  hs_run h = {.x = x, .w = &w, .qI = x->M / I, .qJ = x->N / J, .Mo = Mo};
  h.gi = x->myrow % h.qI, h.gj = x->mycol % h.qJ;
  if (x->how != NULL) h.how = *x->how;
  h.how.groups = 0;
  h.hp = &h.how;
  int64_t S = x->k > 0 ? (x->k + x->panel - 1) / x->panel : 0;
  int code = HLA_OK, e;
  if (S > 0) {
    code = hs_levels(x->row, x->N, J, x->mycol, &w.row_in, &w.row_out, &w.own[0], &w.own[1]);
    e = hs_levels(x->col, x->M, I, x->myrow, &w.col_in, &w.col_out, &w.own[2], &w.own[3]);
    if (code == HLA_OK) code = e;
    if (code != HLA_OK) HBSP_FAIL(x->all, code, "hmatmul: cannot split the HSUMMA groups");
  }
  int64_t npa = mm_max_pieces(Mo, x->kba), npb = mm_max_pieces(Mo, x->kbb);
  int64_t big = (x->mloc > x->nloc ? x->mloc : x->nloc) * Mo;
  int ok = 1;
  for (int i = 0; i < HS_OUTER && S > 0 && code == HLA_OK; i++) {
    ok = ok && (w.a[i] = HREAL_TAKE(x->g, x->mloc * Mo)) != NULL;
    ok = ok && (w.bt[i] = HREAL_TAKE(x->g, x->nloc * Mo)) != NULL;
    ok = ok && mm_reqs_init(&w.qa[i], npa, big) && mm_reqs_init(&w.qb[i], npb, big);
    ok = ok && (i >= 2 || mm_reqs_init(&w.qi[i], npa + npb, big));
  }
  if (ok && S > 0 && code == HLA_OK) {
    w.pa = malloc((size_t)npa * sizeof *w.pa);
    w.pb = malloc((size_t)npb * sizeof *w.pb);
    ok = w.pa != NULL && w.pb != NULL;
  }
  if (code == HLA_OK && !ok)
    code = HBSP_FAIL(x->all, HLA_ERR_NOMEM, "hmatmul: no memory for HSUMMA panels");
  code = hbsp_agree(x->all, code);
  if (code == HLA_OK) {
    mm_scale(x);
    if (S > 0) code = hs_loop(&h);
    for (int i = 0; i < HS_OUTER; i++) { /* never leave a request behind */
      if (w.qa[i].n) mm_wait(x->row, &w.qa[i]);
      if (w.qb[i].n) mm_wait(x->row, &w.qb[i]);
      if (i < 2 && w.qi[i].n) mm_wait(x->row, &w.qi[i]);
    }
  }
  hs_free(x->g, &w);
  HLA_CALL(code);
  return HLA_OK;
}
