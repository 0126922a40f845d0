/* hla — scatter a global matrix from one rank to a block-cyclic layout, and gather it back. One
 * superstep of BSMP messages on the grid's ALL environment: the root exchanges one message with
 * each rank that owns something, so the matrix crosses the network once. */
#include <stdlib.h>
#include <string.h>
#include "dist/layout/layout_impl.h"
#include "kernels/kernels.h"

/* Copy between the global matrix G (leading dimension ldg) and the local part L (leading
 * dimension lld) of process (pr, pc): one memcpy per block column segment. to_local: G -> L. */
static void copy_part(hmat A, int pr, int pc, double *G, int64_t ldg, double *L, int64_t lld,
                      int to_local) {
  const hgrid g = A->g;
  pr = (pr - A->rsrc + g->M) % g->M, pc = (pc - A->csrc + g->N) % g->N; /* from the first block */
  int64_t mloc = hmat_numroc(A->m, A->mb, pr, g->M), nloc = hmat_numroc(A->n, A->nb, pc, g->N);
  for (int64_t jl = 0; jl < nloc; jl++) {
    int64_t j = hmat_idx_l2g(jl, A->nb, pc, g->N);
    for (int64_t il = 0; il < mloc; il += A->mb) {
      int64_t i = hmat_idx_l2g(il, A->mb, pr, g->M);
      size_t len = (size_t)(mloc - il < A->mb ? mloc - il : A->mb) * sizeof(double);
      if (to_local)
        memcpy(L + il + jl * lld, G + i + j * ldg, len);
      else
        memcpy(G + i + j * ldg, L + il + jl * lld, len);
    }
  }
}

/* The checks shared by scatter and gather; returns the local code (not yet agreed). */
static int check_args(hmat A, int root, const double *G, int64_t ldg, const char *fn) {
  hbsp_env env = A->g->all;
  int64_t r = root;
  int same;
  HLA_CALL(hdist_check_same(env, &r, 1, &same));
  if (!same) return HBSP_FAIL(env, HLA_ERR_ARG, "%s: root differs between ranks", fn);
  if (root < 0 || root >= hbsp_size(env))
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: root %d out of range", fn, root);
  if (hbsp_rank(env) != root) return HLA_OK;
  if (G == NULL && A->m > 0 && A->n > 0)
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: G is NULL on the root", fn);
  if (ldg < (A->m > 1 ? A->m : 1))
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: ldg = %lld < max(1, m = %lld)", fn, (long long)ldg,
                     (long long)A->m);
  return HLA_OK;
}

/* Largest local part of any process: process (0, 0) holds the most rows and columns. */
static int64_t max_part(hmat A) {
  return hmat_numroc(A->m, A->mb, 0, A->g->M) * hmat_numroc(A->n, A->nb, 0, A->g->N);
}

/* Scatter into (gather from) a float matrix through a double one of its layout: the values cross
 * the API as double, and this costs a double copy of the local part while it runs. */
static int via_double(hmat A, int root, double *G, int64_t ldg, int scatter) {
  hmat D;
  HLA_CALL(hmat_create_typed(A->g, A->m, A->n, A->mb, A->nb, HLA_DOUBLE, &D));
  int code = scatter ? hmat_scatter(D, root, G, ldg) : hmat_convert(A, D);
  if (code == HLA_OK) code = scatter ? hmat_convert(D, A) : hmat_gather(D, root, G, ldg);
  hmat_free(&D);
  return code;
}

int hmat_scatter(hmat A, int root, const double *G, int64_t ldg) {
  if (A == NULL) return HLA_ERR_ARG;
  if (A->elem == HLA_FLOAT) return via_double(A, root, (double *)G, ldg, 1);
  const hgrid g = A->g;
  hbsp_env env = g->all;
  int me = hbsp_rank(env), P = hbsp_size(env);
  int code = check_args(A, root, G, ldg, "hmat_scatter");
  double *buf = NULL;
  if (code == HLA_OK && me == root && P > 1 && (buf = hdist_alloc(max_part(A))) == NULL)
    code = HBSP_FAIL(env, HLA_ERR_NOMEM, "hmat_scatter: out of memory");
  code = hbsp_agree(env, code);
  if (code != HLA_OK) {
    free(buf);
    HLA_CALL(code);
  }
  if (me == root) {
    for (int r = 0; r < P && code == HLA_OK; r++) {
      int pr = r / g->N, pc = r % g->N;
      int64_t ml, nl;
      hmat_local_size(A, pr, pc, &ml, &nl);
      if (ml * nl == 0 || r == me) continue; /* my own part once all have agreed */
      /* The message is the receiver's local array itself (lld = mloc): it lands in one copy. */
      copy_part(A, pr, pc, (double *)G, ldg, buf, ml, 1);
      code = hbsp_send(env, r, NULL, buf, (size_t)(ml * nl) * sizeof(double));
    }
    free(buf);
  }
  /* Sync even if a send failed, so that nothing stays queued; then agree (on the sync's failure
   * too: it may be this rank's alone) before anyone writes A. */
  int e = hbsp_sync(env);
  HLA_CALL(hbsp_agree(env, e != HLA_OK ? e : code));
  if (me == root) copy_part(A, g->myrow, g->mycol, (double *)G, ldg, A->data, A->lld, 1);
  if (me != root && A->mloc * A->nloc > 0) {
    size_t want = (size_t)(A->mloc * A->nloc) * sizeof(double), got = 0, nmsg = 0, nbytes = 0;
    hbsp_qsize(env, &nmsg, &nbytes);
    if (nmsg != 1 || nbytes != want)
      code = HBSP_FAIL(env, HLA_ERR_INTERNAL,
                       "hmat_scatter: expected 1 message of %zu bytes, got %zu (%zu bytes)", want,
                       nmsg, nbytes);
    else if (A->lld == A->mloc)
      code = hbsp_move(env, NULL, A->data, want, &got);
    else { /* a wrapped array with a longer leading dimension: its columns one by one */
      double *tmp = hdist_alloc(A->mloc * A->nloc);
      code = tmp ? hbsp_move(env, NULL, tmp, want, &got)
                 : HBSP_FAIL(env, HLA_ERR_NOMEM, "hmat_scatter: out of memory");
      if (tmp) hkern_dlacpy('A', A->mloc, A->nloc, tmp, A->mloc, A->data, A->lld);
      free(tmp);
    }
  }
  HLA_CALL(hbsp_agree(env, code));
  return HLA_OK;
}

int hmat_gather(hmat A, int root, double *G, int64_t ldg) {
  if (A == NULL) return HLA_ERR_ARG;
  if (A->elem == HLA_FLOAT) return via_double(A, root, G, ldg, 0);
  const hgrid g = A->g;
  hbsp_env env = g->all;
  int me = hbsp_rank(env), P = hbsp_size(env);
  int code = check_args(A, root, G, ldg, "hmat_gather");
  /* One message per rank that owns something: its rank as a header word, then its local array
   * (lld = mloc), since messages arrive in no particular order. */
  int64_t mine = A->mloc * A->nloc;
  double *buf = NULL;
  if (code == HLA_OK && P > 1 && (me == root || mine > 0) &&
      (buf = hdist_alloc(1 + (me == root ? max_part(A) : mine))) == NULL)
    code = HBSP_FAIL(env, HLA_ERR_NOMEM, "hmat_gather: out of memory");
  code = hbsp_agree(env, code);
  if (code != HLA_OK) {
    free(buf);
    HLA_CALL(code);
  }
  if (me != root && mine > 0) {
    int64_t h = me;
    memcpy(buf, &h, sizeof h);
    hkern_dlacpy('A', A->mloc, A->nloc, A->data, A->lld, buf + 1, A->mloc);
    code = hbsp_send(env, root, NULL, buf, (size_t)(mine + 1) * sizeof(double));
  }
  int e = hbsp_sync(env);
  e = hbsp_agree(env, e != HLA_OK ? e : code); /* the sync's failure may be this rank's alone */
  if (e != HLA_OK) {
    free(buf);
    HLA_CALL(e);
  }
  if (me == root) {
    if (mine > 0) copy_part(A, g->myrow, g->mycol, G, ldg, A->data, A->lld, 0);
    size_t nmsg = 0, nbytes = 0, cap = (size_t)(max_part(A) + 1) * sizeof(double);
    hbsp_qsize(env, &nmsg, &nbytes);
    for (size_t k = 0; k < nmsg && code == HLA_OK; k++) {
      size_t got = 0;
      int64_t h;
      code = hbsp_move(env, NULL, buf, cap, &got);
      if (code != HLA_OK) break;
      memcpy(&h, buf, sizeof h);
      int pr = (int)(h / g->N), pc = (int)(h % g->N);
      int64_t ml = 0, nl = 0;
      if (h >= 0 && h < P) hmat_local_size(A, pr, pc, &ml, &nl);
      if (h < 0 || h >= P || h == me || got != (size_t)(ml * nl + 1) * sizeof(double))
        code = HBSP_FAIL(env, HLA_ERR_INTERNAL, "hmat_gather: unexpected message (%zu bytes)", got);
      else
        copy_part(A, pr, pc, G, ldg, buf + 1, ml, 0);
    }
  }
  free(buf);
  HLA_CALL(hbsp_agree(env, code));
  return HLA_OK;
}
