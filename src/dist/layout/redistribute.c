/* hla — redistribution between any two block-cyclic layouts over the same ranks.
 *
 * Rows and columns map independently: the entries rank s (at (sr, sc) in the source grid) sends to
 * rank d (at (dr, dc) in the destination grid) are the rows s owns in the source layout that
 * process row dr owns in the destination layout, crossed with the same for columns. So each side
 * sorts its local rows (and columns) once by the process row (column) they go to or come from,
 * and one message per pair of ranks carries the product, packed in increasing global order on both
 * sides. One superstep of BSMP messages on the source grid's ALL environment (ScaLAPACK's pdgemr2d
 * does the same exchange as a sequence of point-to-point rounds). An element file (src/prec.h):
 * compiled for double and for float; a message is an 8-byte header (the sender's rank) and then
 * the entries. */
#include <stdlib.h>
#include <string.h>
#include "dist/prec_dist.h"
#include "dist/layout/layout_impl.h"
#include "kernels/kernels.h"

/* One dimension of a side of a copy: n_blocks of nb dealt over np processes from process src,
 * my process there being iproc (actual coordinate), and the part [off, off + len) taking part. */
typedef struct {
  int64_t nloc, nb, off;
  int iproc, np, src;
} side;

/* My local indices of side a that fall in its part, sorted by the process of side b that owns the
 * matching index (a's global i is b's i - a.off + b.off), increasing inside each group:
 * idx[start[p] .. start[p+1]) for b's actual process p. A counting sort; local, O(nloc + np). */
static void group_indices(side a, side b, int64_t len, int64_t *start, int64_t *idx) {
  int me = (a.iproc - a.src + a.np) % a.np; /* counted from a's first block */
  for (int p = 0; p <= b.np; p++) start[p] = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t l = 0; l < a.nloc; l++) {
      int64_t gi = hmat_idx_l2g(l, a.nb, me, a.np) - a.off;
      if (gi < 0 || gi >= len) continue;
      int p = (hmat_idx_owner(gi + b.off, b.nb, b.np) + b.src) % b.np;
      if (pass == 0)
        start[p + 1]++;
      else
        idx[start[p]++] = l; /* start[p] as a cursor, shifted back below */
    }
    if (pass == 0)
      for (int p = 0; p < b.np; p++) start[p + 1] += start[p];
  }
  for (int p = b.np; p > 0; p--) start[p] = start[p - 1];
  start[0] = 0;
}

/* Map from ranks of dst's grid environment to ranks of src's; *ident = 1 if it is the identity.
 * HLA_ERR_DIST (local code, not agreed) if the two grids are over different ranks. */
static int rank_map(hgrid gs, hgrid gd, int *d2s, int *ident) {
  int P = hbsp_size(gs->all);
  *ident = 1;
  for (int r = 0; r < P; r++) d2s[r] = r;
  if (gs == gd) return HLA_OK;
  MPI_Comm cs = hbsp_comm(gs->all), cd = hbsp_comm(gd->all);
  int res = MPI_UNEQUAL;
  if (MPI_Comm_compare(cs, cd, &res) != MPI_SUCCESS)
    return HBSP_FAIL(gs->all, HLA_ERR_MPI, "hmat_redistribute: MPI_Comm_compare failed");
  if (res == MPI_IDENT || res == MPI_CONGRUENT) return HLA_OK;
  if (res != MPI_SIMILAR)
    return HBSP_FAIL(gs->all, HLA_ERR_DIST,
                     "hmat_redistribute: the grids of src and dst are over different ranks");
  MPI_Group gr_s, gr_d;
  int e = MPI_Comm_group(cs, &gr_s);
  if (e == MPI_SUCCESS) e = MPI_Comm_group(cd, &gr_d);
  if (e != MPI_SUCCESS)
    return HBSP_FAIL(gs->all, HLA_ERR_MPI, "hmat_redistribute: MPI_Comm_group failed");
  int *in = malloc((size_t)P * sizeof *in);
  if (in != NULL) {
    for (int r = 0; r < P; r++) in[r] = r;
    e = MPI_Group_translate_ranks(gr_d, P, in, gr_s, d2s);
  }
  MPI_Group_free(&gr_s);
  MPI_Group_free(&gr_d);
  free(in);
  if (in == NULL) return HBSP_FAIL(gs->all, HLA_ERR_NOMEM, "hmat_redistribute: out of memory");
  if (e != MPI_SUCCESS)
    return HBSP_FAIL(gs->all, HLA_ERR_MPI, "hmat_redistribute: MPI_Group_translate_ranks failed");
  for (int r = 0; r < P; r++)
    if (d2s[r] != r) *ident = 0;
  return HLA_OK;
}

/* Workspace of one redistribution. */
typedef struct {
  int64_t *srs, *scs; /* my src-local rows / columns grouped by destination process row / column */
  int64_t *sro, *sco; /* group starts: Md + 1, Nd + 1 */
  int64_t *drs, *dcs; /* my dst-local rows / columns grouped by source process row / column */
  int64_t *dro, *dco; /* group starts: Ms + 1, Ns + 1 */
  hreal *sbuf;        /* my own part, packed (what I send to others is packed in the queue) */
  hgrid g;            /* the grid they were taken from (hdist_take) */
  int *d2s;
} redist_ws;

static void ws_free(redist_ws *w) {
  free(w->srs), free(w->scs), free(w->sro), free(w->sco);
  free(w->drs), free(w->dcs), free(w->dro), free(w->dco);
  hdist_give(w->g, w->sbuf), free(w->d2s);
}

static int64_t max_group(const int64_t *start, int n) {
  int64_t m = 0;
  for (int p = 0; p < n; p++)
    if (start[p + 1] - start[p] > m) m = start[p + 1] - start[p];
  return m;
}

static void *alloc_n(int64_t n, size_t size) {
  return malloc((size_t)(n > 0 ? n : 1) * size);
}

/* The transpose of a packed nr x nc block (src rows x src columns): its entry (i, j) lands at dst
 * row drows[j], dst column dcols[i]. Cost nr nc words. */
static void transposed_unpack(int64_t nr, const int64_t *dcols, int64_t nc, const int64_t *drows,
                              const hreal *buf, hreal *A, int64_t lda) {
  for (int64_t j = 0; j < nc; j++)
    for (int64_t i = 0; i < nr; i++) A[drows[j] + dcols[i] * lda] = buf[i + j * nr];
}

/* The part copied: m x n entries, src's from (si, sj), dst's from (di, dj). */
typedef struct {
  int64_t si, sj, di, dj, m, n;
} part;

/* Build the index groups and buffers; returns 0 on allocation failure. */
static int ws_build(redist_ws *w, hmat src, hmat dst, part q) {
  hgrid gs = src->g, gd = dst->g;
  int Ms = gs->M, Ns = gs->N, Md = gd->M, Nd = gd->N;
  w->srs = alloc_n(src->mloc, sizeof(int64_t)), w->scs = alloc_n(src->nloc, sizeof(int64_t));
  w->drs = alloc_n(dst->mloc, sizeof(int64_t)), w->dcs = alloc_n(dst->nloc, sizeof(int64_t));
  w->sro = alloc_n(Md + 1, sizeof(int64_t)), w->sco = alloc_n(Nd + 1, sizeof(int64_t));
  w->dro = alloc_n(Ms + 1, sizeof(int64_t)), w->dco = alloc_n(Ns + 1, sizeof(int64_t));
  if (!w->srs || !w->scs || !w->drs || !w->dcs || !w->sro || !w->sco || !w->dro || !w->dco)
    return 0;
  side sr = {src->mloc, src->mb, q.si, gs->myrow, Ms, src->rsrc};
  side sc = {src->nloc, src->nb, q.sj, gs->mycol, Ns, src->csrc};
  side dr = {dst->mloc, dst->mb, q.di, gd->myrow, Md, dst->rsrc};
  side dc = {dst->nloc, dst->nb, q.dj, gd->mycol, Nd, dst->csrc};
  group_indices(sr, dr, q.m, w->sro, w->srs);
  group_indices(sc, dc, q.n, w->sco, w->scs);
  group_indices(dr, sr, q.m, w->dro, w->drs);
  group_indices(dc, sc, q.n, w->dco, w->dcs);
  int64_t sout = max_group(w->sro, Md) * max_group(w->sco, Nd);
  w->g = gs; /* the source grid keeps it between calls */
  w->sbuf = hdist_take(gs, hdist_words(sout, sizeof(hreal)));
  return w->sbuf != NULL;
}

/* Unpack the messages of a copy (tr: of a transpose, hdist_transpose) into dst: the header says
 * which source rank, hence which groups of my dst-local indices its rows and columns land in
 * (transposed: its rows become my columns). Returns the first error (code if none). Local. */
static int receive(hbsp_env env, redist_ws *w, hmat src, hmat dst, int tr, int code,
                   const char *fn) {
  int P = hbsp_size(env), me = hbsp_rank(env), Ns = src->g->N;
  const int64_t *rs = tr ? w->dco : w->dro, *ri = tr ? w->dcs : w->drs; /* its rows: by src row */
  const int64_t *cs = tr ? w->dro : w->dco, *ci = tr ? w->drs : w->dcs; /* its cols: by src col */
  size_t nmsg = 0, nbytes = 0;
  hbsp_qsize(env, &nmsg, &nbytes);
  for (size_t k = 0; k < nmsg && code == HLA_OK; k++) {
    size_t got = 0;
    int64_t h;
    const void *pay = NULL; /* unpacked from the queue itself (8-byte aligned: no tags) */
    code = hbsp_hpmove(env, NULL, &pay, &got);
    if (code != HLA_OK) break;
    if (got < sizeof h)
      return HBSP_FAIL(env, HLA_ERR_INTERNAL, "%s: unexpected message (%zu bytes)", fn, got);
    memcpy(&h, pay, sizeof h);
    const hreal *data = (const hreal *)pay + HREAL_WORD;
    int sr = (int)(h / Ns), sc = (int)(h % Ns);
    int64_t nr = h >= 0 && h < P ? rs[sr + 1] - rs[sr] : -1;
    int64_t nc = h >= 0 && h < P ? cs[sc + 1] - cs[sc] : -1;
    if (nr < 0 || h == me || got != (size_t)(nr * nc + HREAL_WORD) * sizeof(hreal))
      return HBSP_FAIL(env, HLA_ERR_INTERNAL, "%s: unexpected message (%zu bytes)", fn, got);
    if (tr)
      transposed_unpack(nr, ri + rs[sr], nc, ci + cs[sc], data, HDATA(dst), dst->lld);
    else
      hkern_unpack_idx(nr, ri + rs[sr], nc, ci + cs[sc], data, HDATA(dst), dst->lld);
  }
  return code;
}

/* Queue for rank to a message of my src-local rows x columns: my rank (one hreal-sized word) then
 * the entries, packed straight into the queue's space (no copy of its own: a large redistribution
 * is bound by memory traffic). Local. */
static int send_packed(hbsp_env env, int to, int me, int64_t nr, const int64_t *rows, int64_t nc,
                       const int64_t *cols, hmat src) {
  void *pay;
  HLA_CALL(hbsp_send_buf(env, to, NULL, (size_t)(nr * nc + HREAL_WORD) * sizeof(hreal), &pay));
  const int64_t h = me;
  memcpy(pay, &h, sizeof h);
  hkern_pack_idx(nr, rows, nc, cols, HDATA(src), src->lld, (hreal *)pay + HREAL_WORD);
  return HLA_OK;
}

/* The copy of part q from src to dst (arguments agreed on env, the grid's ALL of src). */
static int copy_part(hbsp_env env, hmat src, hmat dst, part q, const char *fn) {
  hgrid gs = src->g, gd = dst->g;
  int P = hbsp_size(env), me = hbsp_rank(env), code = HLA_OK, ident = 1;
  redist_ws w;
  memset(&w, 0, sizeof w);
  if ((w.d2s = alloc_n(P, sizeof(int))) == NULL)
    code = HBSP_FAIL(env, HLA_ERR_NOMEM, "%s: out of memory", fn);
  else
    code = rank_map(gs, gd, w.d2s, &ident);
  /* the same layout and place on the same ranks: my part is already where it belongs */
  int whole = q.si == 0 && q.sj == 0 && q.di == 0 && q.dj == 0 && q.m == src->m && q.n == src->n &&
              q.m == dst->m && q.n == dst->n;
  int same_layout = whole && ident && gs->M == gd->M && gs->N == gd->N && src->mb == dst->mb &&
                    src->nb == dst->nb && src->rsrc == dst->rsrc && src->csrc == dst->csrc;
  if (code == HLA_OK && !same_layout && !ws_build(&w, src, dst, q))
    code = HBSP_FAIL(env, HLA_ERR_NOMEM, "%s: out of memory", fn);
  code = hbsp_agree(env, code);
  if (code != HLA_OK || (src == dst && whole) || same_layout) {
    if (code == HLA_OK && src != dst)
      hkern_dlacpy('A', src->mloc, src->nloc, HDATA(src), src->lld, HDATA(dst), dst->lld);
    ws_free(&w);
    HLA_CALL(code);
    return HLA_OK;
  }

  /* Send: one message per destination rank that gets anything from me; mine to myself is copied
   * directly, once everyone has agreed, from the same packing (dst is written after the
   * agreement only). */
  int Md = gd->M, Nd = gd->N, self_r = -1, self_c = -1;
  for (int dr = 0; dr < Md && code == HLA_OK; dr++) {
    int64_t nr = w.sro[dr + 1] - w.sro[dr];
    for (int dc = 0; dc < Nd && code == HLA_OK; dc++) {
      int64_t nc = w.sco[dc + 1] - w.sco[dc];
      int to = w.d2s[dr * Nd + dc];
      if (nr * nc == 0) continue;
      if (to == me) {
        self_r = dr, self_c = dc;
        continue;
      }
      code = send_packed(env, to, me, nr, w.srs + w.sro[dr], nc, w.scs + w.sco[dc], src);
    }
  }
  /* Sync even if a send failed so that nothing stays queued; agree (on the sync's failure too: it
   * may be this rank's alone) before anyone unpacks. */
  int e = hbsp_sync(env);
  e = hbsp_agree(env, e != HLA_OK ? e : code);
  if (e != HLA_OK) {
    ws_free(&w);
    HLA_CALL(e);
  }
  if (self_r >= 0) {
    int64_t nr = w.sro[self_r + 1] - w.sro[self_r], nc = w.sco[self_c + 1] - w.sco[self_c];
    hkern_pack_idx(nr, w.srs + w.sro[self_r], nc, w.scs + w.sco[self_c], HDATA(src), src->lld,
                   w.sbuf);
    hkern_unpack_idx(nr, w.drs + w.dro[gs->myrow], nc, w.dcs + w.dco[gs->mycol], w.sbuf, HDATA(dst),
                     dst->lld);
  }

  code = receive(env, &w, src, dst, 0, code, fn);
  ws_free(&w);
  HLA_CALL(hbsp_agree(env, code));
  return HLA_OK;
}

/* ---------------------------------------------------------------- transposed copy */

/* dst := src^T, as copy_part with rows and columns exchanged between the sides: my src rows are
 * grouped by the dst process column they land in, my src columns by the dst process row, and a
 * message (src rows x src columns, packed as in copy_part) is unpacked transposed. */
int hdist_transpose(hmat src, hmat dst) {
  static const char fn[] = "hdist_transpose";
  hgrid gs = src->g, gd = dst->g;
  hbsp_env env = gs->all;
  int P = hbsp_size(env), me = hbsp_rank(env), code = HLA_OK, ident = 1;
  int Ms = gs->M, Ns = gs->N, Md = gd->M, Nd = gd->N;
  redist_ws w;
  memset(&w, 0, sizeof w);
  if (src->m != dst->n || src->n != dst->m)
    code = HBSP_FAIL(env, HLA_ERR_DIM, "%s: %lld x %lld into %lld x %lld", fn, (long long)src->m,
                     (long long)src->n, (long long)dst->m, (long long)dst->n);
  else if ((w.d2s = alloc_n(P, sizeof(int))) == NULL)
    code = HBSP_FAIL(env, HLA_ERR_NOMEM, "%s: out of memory", fn);
  else
    code = rank_map(gs, gd, w.d2s, &ident);
  if (code == HLA_OK) {
    w.srs = alloc_n(src->mloc, sizeof(int64_t)), w.scs = alloc_n(src->nloc, sizeof(int64_t));
    w.drs = alloc_n(dst->mloc, sizeof(int64_t)), w.dcs = alloc_n(dst->nloc, sizeof(int64_t));
    w.sro = alloc_n(Nd + 1, sizeof(int64_t)), w.sco = alloc_n(Md + 1, sizeof(int64_t));
    w.dro = alloc_n(Ns + 1, sizeof(int64_t)), w.dco = alloc_n(Ms + 1, sizeof(int64_t));
    if (w.srs && w.scs && w.drs && w.dcs && w.sro && w.sco && w.dro && w.dco) {
      side sr = {src->mloc, src->mb, 0, gs->myrow, Ms, src->rsrc};
      side sc = {src->nloc, src->nb, 0, gs->mycol, Ns, src->csrc};
      side dr = {dst->mloc, dst->mb, 0, gd->myrow, Md, dst->rsrc};
      side dc = {dst->nloc, dst->nb, 0, gd->mycol, Nd, dst->csrc};
      group_indices(sr, dc, src->m, w.sro, w.srs); /* src rows by dst process column */
      group_indices(sc, dr, src->n, w.sco, w.scs); /* src columns by dst process row */
      group_indices(dr, sc, dst->m, w.dro, w.drs); /* dst rows by src process column */
      group_indices(dc, sr, dst->n, w.dco, w.dcs); /* dst columns by src process row */
      w.g = gs;
      w.sbuf =
          hdist_take(gs, hdist_words(max_group(w.sro, Nd) * max_group(w.sco, Md), sizeof(hreal)));
    }
    if (!w.sbuf) code = HBSP_FAIL(env, HLA_ERR_NOMEM, "%s: out of memory", fn);
  }
  code = hbsp_agree(env, code);
  if (code != HLA_OK) {
    ws_free(&w);
    HLA_CALL(code);
  }
  for (int dr = 0; dr < Md && code == HLA_OK; dr++) {
    int64_t nc = w.sco[dr + 1] - w.sco[dr]; /* my src columns that become dst row dr's rows */
    for (int dc = 0; dc < Nd && code == HLA_OK; dc++) {
      int64_t nr = w.sro[dc + 1] - w.sro[dc];
      int to = w.d2s[dr * Nd + dc];
      if (nr * nc == 0) continue;
      if (to == me) {
        hkern_pack_idx(nr, w.srs + w.sro[dc], nc, w.scs + w.sco[dr], HDATA(src), src->lld, w.sbuf);
        transposed_unpack(nr, w.dcs + w.dco[gs->myrow], nc, w.drs + w.dro[gs->mycol], w.sbuf,
                          HDATA(dst), dst->lld);
      } else {
        code = send_packed(env, to, me, nr, w.srs + w.sro[dc], nc, w.scs + w.sco[dr], src);
      }
    }
  }
  int e = hbsp_sync(env);
  if (e == HLA_OK) e = hbsp_agree(env, code);
  if (e != HLA_OK) {
    ws_free(&w);
    HLA_CALL(e);
  }
  code = receive(env, &w, src, dst, 1, code, fn);
  ws_free(&w);
  HLA_CALL(hbsp_agree(env, code));
  return HLA_OK;
}

int hmat_redistribute(hmat src, hmat dst) {
  HREAL_DISPATCH(src ? src : dst, hmat_redistribute_s(src, dst));
  static const char *const names[2] = {"src", "dst"};
  const hmat x[2] = {src, dst};
  int64_t v[12] = {0};
  for (int i = 0; i < 2; i++)
    if (x[i] != NULL) {
      int64_t w[6] = {x[i]->m, x[i]->n, x[i]->mb, x[i]->nb, x[i]->rsrc, x[i]->csrc};
      memcpy(v + 6 * i, w, sizeof w);
    }
  hbsp_env env;
  HLA_CALL(hdist_agree_args("hmat_redistribute", x, names, 2, v, 12, &env));
  HLA_CALL(hdist_check_elem(env, "hmat_redistribute", x, names, 2, HREAL_ELEM));
  if (src->m != dst->m || src->n != dst->n)
    return HBSP_FAIL_ALL(
        env, HLA_ERR_DIM, "hmat_redistribute: src is %lld x %lld but dst is %lld x %lld",
        (long long)src->m, (long long)src->n, (long long)dst->m, (long long)dst->n);
  return copy_part(env, src, dst, (part){0, 0, 0, 0, src->m, src->n}, "hmat_redistribute");
}

int hmat_redistribute_part(hmat src, int64_t si, int64_t sj, hmat dst, int64_t di, int64_t dj,
                           int64_t m, int64_t n) {
  HREAL_DISPATCH(src ? src : dst, hmat_redistribute_part_s(src, si, sj, dst, di, dj, m, n));
  static const char fn[] = "hmat_redistribute_part";
  static const char *const names[2] = {"src", "dst"};
  const hmat x[2] = {src, dst};
  int64_t v[14] = {si, sj, di, dj, m, n};
  for (int i = 0; i < 2; i++)
    if (x[i] != NULL) {
      int64_t w[4] = {x[i]->m, x[i]->n, x[i]->mb, x[i]->nb};
      memcpy(v + 6 + 4 * i, w, sizeof w);
    }
  hbsp_env env;
  HLA_CALL(hdist_agree_args(fn, x, names, 2, v, 14, &env));
  HLA_CALL(hdist_check_elem(env, fn, x, names, 2, HREAL_ELEM));
  if (m < 0 || n < 0 || si < 0 || sj < 0 || di < 0 || dj < 0 || si > src->m - m ||
      sj > src->n - n || di > dst->m - m || dj > dst->n - n)
    return HBSP_FAIL_ALL(env, HLA_ERR_DIM,
                         "%s: %lld x %lld at (%lld, %lld) of a %lld x %lld src into (%lld, %lld) "
                         "of a %lld x %lld dst",
                         fn, (long long)m, (long long)n, (long long)si, (long long)sj,
                         (long long)src->m, (long long)src->n, (long long)di, (long long)dj,
                         (long long)dst->m, (long long)dst->n);
  if (src == dst && (si != di || sj != dj))
    return HBSP_FAIL_ALL(env, HLA_ERR_ARG, "%s: a part moved within one matrix", fn);
  return copy_part(env, src, dst, (part){si, sj, di, dj, m, n}, fn);
}
