/* hla — remapping an operand of hmatmul into the computing layout (mm_remap; matmul_impl.h says
 * what that layout is): one BSMP superstep on the grid's ALL environment, each message carrying
 * its destination's local indices; a transposed operand is transposed while packing. Used by the
 * multiply's entry (matmul.c) and by the 3D algorithm's layers (mm3d.c).
 */
#include <stdlib.h>
#include <string.h>
#include "dist/matmul/matmul_impl.h"
#include "kernels/kernels.h"

static int64_t max1(int64_t v) {
  return v > 1 ? v : 1;
}

int64_t mm_dim_local(const mm_dim *d, int l, int p) {
  int64_t ext = d->n;
  if (d->c > 1) {
    int64_t lo = (int64_t)l * d->share, hi = lo + d->share < d->n ? lo + d->share : d->n;
    ext = hi > lo ? hi - lo : 0;
  }
  return hmat_numroc(ext, d->nb, p, d->np);
}

/* Key (share l, process p) -> l np + p, and the local index of D index i along d. */
static void dim_map(const mm_dim *d, int64_t i, int *key, int64_t *loc) {
  int64_t l = 0;
  if (d->c > 1) {
    l = i / d->share;
    i -= l * d->share;
  }
  *key = (int)(l * d->np + hmat_idx_owner(i, d->nb, d->np));
  *loc = hmat_idx_g2l(i, d->nb, d->np);
}

/* One dimension of S's local part sorted by destination key: idx[start[q]..start[q+1]) are the
 * local indices going to key q, dloc the matching local indices in D. */
typedef struct {
  int nkeys;
  int64_t *start, *idx, *dloc;
} remap_side;

static int side_build(remap_side *s, const mm_dim *d, int64_t nloc, int nb, int iproc, int nprocs) {
  s->nkeys = d->c * d->np;
  s->start = calloc((size_t)s->nkeys + 1, sizeof(int64_t));
  s->idx = malloc((size_t)max1(nloc) * sizeof(int64_t));
  s->dloc = malloc((size_t)max1(nloc) * sizeof(int64_t));
  int *key = malloc((size_t)max1(nloc) * sizeof(int));
  int64_t *loc = malloc((size_t)max1(nloc) * sizeof(int64_t));
  int ok = s->start && s->idx && s->dloc && key && loc;
  if (ok) {
    for (int64_t l = 0; l < nloc; l++) {
      dim_map(d, hmat_idx_l2g(l, nb, iproc, nprocs), &key[l], &loc[l]);
      s->start[key[l] + 1]++;
    }
    for (int q = 0; q < s->nkeys; q++) s->start[q + 1] += s->start[q];
    for (int64_t l = 0; l < nloc; l++) { /* stable: increasing local order inside a key */
      int64_t at = s->start[key[l]]++;
      s->idx[at] = l;
      s->dloc[at] = loc[l];
    }
    for (int q = s->nkeys; q > 0; q--) s->start[q] = s->start[q - 1];
    s->start[0] = 0;
  }
  free(key);
  free(loc);
  return ok;
}

static void side_free(remap_side *s) {
  free(s->start);
  free(s->idx);
  free(s->dloc);
}

/* Bytes of a message: 2 + nr + nc words (header and indices), then nr nc entries. */
static size_t msg_bytes(int64_t nr, int64_t nc) {
  return (size_t)(2 + nr + nc) * sizeof(int64_t) + (size_t)(nr * nc) * sizeof(hreal);
}

static int64_t side_max(const remap_side *s) {
  int64_t m = 0;
  for (int q = 0; q < s->nkeys; q++)
    if (s->start[q + 1] - s->start[q] > m) m = s->start[q + 1] - s->start[q];
  return m;
}

/* Unpack one message (header, D row and column indices, data) into D. */
static void remap_unpack(const mm_target *T, const int64_t *msg) {
  int64_t nr = msg[0], nc = msg[1];
  const int64_t *rows = msg + 2, *cols = rows + nr;
  const hreal *data = (const hreal *)(cols + nc);
  hkern_unpack_idx(nr, rows, nc, cols, data, T->data, T->ld);
}

int mm_remap(hbsp_env env, char trans, hmat S, const mm_target *T) {
  hgrid g = S->g;
  int me = hbsp_rank(env), tr = trans == 'T';
  /* S's rows become D's rows ('N') or columns ('T'). */
  remap_side sr, sc;
  memset(&sr, 0, sizeof sr);
  memset(&sc, 0, sizeof sc);
  int ok = side_build(&sr, tr ? &T->col : &T->row, S->mloc, S->mb, hdist_prow(S), g->M) &&
           side_build(&sc, tr ? &T->row : &T->col, S->nloc, S->nb, hdist_pcol(S), g->N);
  int64_t mr = ok ? side_max(&sr) : 0, mc = ok ? side_max(&sc) : 0;
  int64_t *sbuf = ok ? hdist_take(g, hdist_words((int64_t)msg_bytes(mr, mc), 1)) : NULL;
  int64_t *rbuf = ok ? hdist_take(g, hdist_words((int64_t)msg_bytes(T->mloc, T->nloc), 1)) : NULL;
  int code = sbuf && rbuf ? HLA_OK : HBSP_FAIL(env, HLA_ERR_NOMEM, "hmatmul: no memory to remap");
  code = hbsp_agree(env, code);
  int agreed = code == HLA_OK; /* from here on every rank syncs */
  for (int k1 = 0; k1 < sr.nkeys && code == HLA_OK; k1++) {
    int64_t n1 = sr.start[k1 + 1] - sr.start[k1];
    const int64_t *i1 = sr.idx + sr.start[k1], *d1 = sr.dloc + sr.start[k1];
    for (int k2 = 0; k2 < sc.nkeys && n1 > 0 && code == HLA_OK; k2++) {
      int64_t n2 = sc.start[k2 + 1] - sc.start[k2];
      const int64_t *i2 = sc.idx + sc.start[k2], *d2 = sc.dloc + sc.start[k2];
      if (n2 == 0) continue;
      int rk = tr ? k2 : k1, ck = tr ? k1 : k2;        /* D's row and column keys */
      int64_t layer = rk / T->row.np + ck / T->col.np; /* one of the two is always 0 */
      int to = (int)(layer * T->layer_stride + (int64_t)(rk % T->row.np) * T->N + ck % T->col.np);
      int64_t nr = tr ? n2 : n1, nc = tr ? n1 : n2;
      sbuf[0] = nr, sbuf[1] = nc;
      memcpy(sbuf + 2, tr ? d2 : d1, (size_t)nr * sizeof(int64_t));
      memcpy(sbuf + 2 + nr, tr ? d1 : d2, (size_t)nc * sizeof(int64_t));
      hreal *data = (hreal *)(sbuf + 2 + nr + nc);
      if (!tr) {
        hkern_pack_idx(n1, i1, n2, i2, HDATA(S), S->lld, data);
      } else { /* D(a, b) = S(i1[b], i2[a]): a runs over S's columns; tiles for the cache */
        enum { TL = 32 };
        for (int64_t a0 = 0; a0 < nr; a0 += TL)
          for (int64_t b0 = 0; b0 < nc; b0 += TL) {
            int64_t a1 = a0 + TL < nr ? a0 + TL : nr, b1 = b0 + TL < nc ? b0 + TL : nc;
            for (int64_t a = a0; a < a1; a++) {
              const hreal *col = HDATA(S) + i2[a] * S->lld;
              for (int64_t b = b0; b < b1; b++) data[a + b * nr] = col[i1[b]];
            }
          }
      }
      if (to == me)
        remap_unpack(T, sbuf);
      else
        code = hbsp_send(env, to, NULL, sbuf, msg_bytes(nr, nc));
    }
  }
  if (agreed) { /* sync even after a failed send so that nothing stays queued */
    int e = hbsp_sync(env);
    if (code == HLA_OK) code = e;
    code = hbsp_agree(env, code);
  }
  size_t nmsg = 0, nbytes = 0, cap = msg_bytes(T->mloc, T->nloc);
  if (code == HLA_OK) hbsp_qsize(env, &nmsg, &nbytes);
  for (size_t q = 0; q < nmsg && code == HLA_OK; q++) {
    size_t got = 0;
    code = hbsp_move(env, NULL, rbuf, cap, &got);
    if (code != HLA_OK) break;
    if (got < 16 || got > cap || rbuf[0] < 0 || rbuf[1] < 0 || got != msg_bytes(rbuf[0], rbuf[1])) {
      code = HBSP_FAIL(env, HLA_ERR_INTERNAL, "hmatmul: bad remap message (%zu bytes)", got);
      break;
    }
    remap_unpack(T, rbuf);
  }
  side_free(&sr);
  side_free(&sc);
  hdist_give(g, sbuf);
  hdist_give(g, rbuf);
  return agreed ? hbsp_agree(env, code) : code;
}
