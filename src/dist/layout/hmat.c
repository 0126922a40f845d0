/* hla — block-cyclic distributed matrices: creation, index maps, local fill, norms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dist/cyclic.h"
#include "dist/layout/layout_impl.h"
#include "dist/plan/plan_impl.h"
#include "kernels/kernels.h"

/* ---------------------------------------------------------------- index maps (ScaLAPACK's) */

int64_t hmat_numroc(int64_t n, int64_t nb, int iproc, int nprocs) {
  return hcyc_numroc(n, nb, iproc, nprocs);
}

int64_t hmat_idx_l2g(int64_t iloc, int64_t nb, int iproc, int nprocs) {
  return hcyc_l2g(iloc, nb, iproc, nprocs);
}

int64_t hmat_idx_g2l(int64_t i, int64_t nb, int nprocs) {
  return hcyc_g2l(i, nb, nprocs);
}

int hmat_idx_owner(int64_t i, int64_t nb, int nprocs) {
  return hcyc_owner(i, nb, nprocs);
}

/* ---------------------------------------------------------------- create / free */

/* hmat_create(mb = nb = 0): the block size of the planner's best LU of order max(m, n) on g when g
 * has (or gets: hplan_grid_machine) a machine model; 0 when there is none. Collective over
 * HGRID_ALL of g; errors agreed. */
static int planned_block(hgrid g, int64_t m, int64_t n, int *b) {
  *b = 0;
  const hplan_machine *mach = NULL;
  HLA_CALL(hdist_grid_machine(g, &mach));
  if (mach == NULL) return HLA_OK;
  int code = hplan_block(mach, g->M, g->N, g->nnodes, m > n ? m : n, b);
  code = hbsp_agree(
      g->all, code == HLA_OK ? HLA_OK : HBSP_FAIL(g->all, code, "hmat_create: planner failed"));
  if (code != HLA_OK) *b = 0;
  return code;
}

/* Bytes of an entry. */
static size_t elem_size(hla_elem e) {
  return e == HLA_FLOAT ? sizeof(float) : sizeof(double);
}

int hmat_create(hgrid g, int64_t m, int64_t n, int mb, int nb, hmat *Aout) {
  return hdist_create(g, m, n, mb, nb, HLA_DOUBLE, 0, Aout);
}

int hmat_create_typed(hgrid g, int64_t m, int64_t n, int mb, int nb, hla_elem type, hmat *Aout) {
  return hdist_create(g, m, n, mb, nb, type, 0, Aout);
}

int hdist_create(hgrid g, int64_t m, int64_t n, int mb, int nb, hla_elem type, int work,
                 hmat *Aout) {
  if (g == NULL) return HLA_ERR_ARG;
  int code = HLA_OK, same;
  int64_t v[5] = {m, n, mb, nb, type};
  HLA_CALL(hdist_check_same(g->all, v, 5, &same));
  if (!same)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "hmat_create: m, n, mb, nb, type differ between ranks");
  else if (type != HLA_DOUBLE && type != HLA_FLOAT)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "hmat_create: unknown element type %d", (int)type);
  else if (m < 0 || n < 0 || mb < 0 || nb < 0)
    code =
        HBSP_FAIL(g->all, HLA_ERR_ARG, "hmat_create: negative size (m %lld, n %lld, mb %d, nb %d)",
                  (long long)m, (long long)n, mb, nb);
  else if (Aout == NULL)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "hmat_create: A is NULL");
  int planned = 0, pc = HLA_OK; /* the planner's block, when there is a model (global test) */
  if (same && m >= 0 && n >= 0 && mb == 0 && nb == 0) pc = planned_block(g, m, n, &planned);
  if (code == HLA_OK) code = pc;
  if (code == HLA_OK && mb == 0 && nb == 0 && planned > 0) {
    mb = nb = planned;
  } else if (code == HLA_OK && mb == 0 && nb == 0) {
    int64_t big = m > n ? m : n;
    mb = nb = (int)(big < 1 ? 1 : big < HMAT_DEFAULT_BLOCK ? big : HMAT_DEFAULT_BLOCK);
  } else if (mb == 0) {
    mb = nb;
  } else if (nb == 0) {
    nb = mb;
  }
  hmat A = NULL;
  if (code == HLA_OK) {
    A = calloc(1, sizeof *A);
    if (A != NULL) {
      A->g = g, A->m = m, A->n = n, A->mb = mb, A->nb = nb, A->owned = work ? 2 : 1;
      A->elem = type;
      A->mloc = hmat_numroc(m, mb, g->myrow, g->M);
      A->nloc = hmat_numroc(n, nb, g->mycol, g->N);
      A->lld = A->mloc > 1 ? A->mloc : 1;
      if (A->nloc > 0 && A->lld > INT64_MAX / A->nloc) {
        free(A);
        A = NULL;
      } else if ((A->data = work ? hdist_take(g, hdist_words(A->lld * A->nloc, elem_size(type)))
                                 : hdist_store(hdist_words(A->lld * A->nloc, elem_size(type)))) ==
                 NULL) {
        free(A);
        A = NULL;
      }
    }
    if (A == NULL)
      code = HBSP_FAIL(g->all, HLA_ERR_NOMEM, "hmat_create: cannot allocate the local part");
  }
  code = hbsp_agree(g->all, code);
  if (code != HLA_OK) {
    if (A && work)
      hdist_give(g, A->data);
    else if (A)
      hdist_unstore(A->data);
    free(A);
    HLA_CALL(code);
  }
  g->nmat++;
  *Aout = A;
  return HLA_OK;
}

int hmat_free(hmat *Ap) {
  if (Ap == NULL || *Ap == NULL) return HLA_OK;
  hmat A = *Ap;
  A->g->nmat--;
  if (A->owned == 2)
    hdist_give(A->g, A->data);
  else if (A->owned)
    hdist_unstore(A->data);
  free(A);
  *Ap = NULL;
  return HLA_OK;
}

int hmat_wrap(hgrid g, int64_t m, int64_t n, int mb, int nb, int rsrc, int csrc, double *data,
              int64_t lld, hmat *Aout) {
  if (g == NULL) return HLA_ERR_ARG;
  static const char fn[] = "hmat_wrap";
  int64_t v[6] = {m, n, mb, nb, rsrc, csrc};
  int same, code = HLA_OK;
  HLA_CALL(hdist_check_same(g->all, v, 6, &same));
  int64_t mloc = 0, nloc = 0;
  if (!same)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "%s: m, n, mb, nb, rsrc, csrc differ between ranks", fn);
  else if (m < 0 || n < 0 || mb < 1 || nb < 1)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "%s: m %lld, n %lld, mb %d, nb %d", fn, (long long)m,
                     (long long)n, mb, nb);
  else if (rsrc < 0 || rsrc >= g->M || csrc < 0 || csrc >= g->N)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "%s: source process (%d, %d) outside the %d x %d grid",
                     fn, rsrc, csrc, g->M, g->N);
  else if (Aout == NULL)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "%s: A is NULL", fn);
  if (code == HLA_OK) {
    mloc = hmat_numroc(m, mb, (g->myrow - rsrc + g->M) % g->M, g->M);
    nloc = hmat_numroc(n, nb, (g->mycol - csrc + g->N) % g->N, g->N);
    if (lld < (mloc > 1 ? mloc : 1))
      code = HBSP_FAIL(g->all, HLA_ERR_ARG, "%s: lld = %lld < max(1, local rows %lld)", fn,
                       (long long)lld, (long long)mloc);
    else if (data == NULL && mloc * nloc > 0)
      code = HBSP_FAIL(g->all, HLA_ERR_ARG, "%s: data is NULL", fn);
  }
  hmat A = NULL;
  double *spare = NULL; /* an empty part's data: never NULL, as for hmat_create */
  if (code == HLA_OK && ((A = calloc(1, sizeof *A)) == NULL ||
                         (data == NULL && (data = spare = hdist_store(1)) == NULL)))
    code = HBSP_FAIL(g->all, HLA_ERR_NOMEM, "%s: out of memory", fn);
  code = hbsp_agree(g->all, code);
  if (code != HLA_OK) {
    free(A);
    hdist_unstore(spare);
    HLA_CALL(code);
  }
  A->g = g, A->m = m, A->n = n, A->mb = mb, A->nb = nb, A->rsrc = rsrc, A->csrc = csrc;
  A->mloc = mloc, A->nloc = nloc, A->lld = lld, A->data = data, A->owned = spare != NULL;
  A->elem = HLA_DOUBLE;
  g->nmat++;
  *Aout = A;
  return HLA_OK;
}

int hdist_unshift(hmat X, int copy, hmat *T) {
  *T = X;
  if (X->rsrc == 0 && X->csrc == 0) return HLA_OK;
  HLA_CALL(hmat_create_typed(X->g, X->m, X->n, X->mb, X->nb, X->elem, T));
  int code = copy ? hmat_redistribute(X, *T) : HLA_OK;
  if (code != HLA_OK) hmat_free(T), *T = NULL;
  return code;
}

int hdist_reshift(hmat X, hmat *T, int copy) {
  if (*T == NULL || *T == X) return HLA_OK;
  int code = copy ? hmat_redistribute(*T, X) : HLA_OK;
  hmat_free(T);
  return code;
}

int hmat_dup(hmat A, hmat *B) {
  if (A == NULL) return HLA_ERR_ARG;
  int code = B == NULL ? HBSP_FAIL(A->g->all, HLA_ERR_ARG, "hmat_dup: B is NULL") : HLA_OK;
  HLA_CALL(hbsp_agree(A->g->all, code));
  hmat C;
  HLA_CALL(hmat_create_typed(A->g, A->m, A->n, A->mb, A->nb, A->elem, &C));
  if (A->rsrc || A->csrc) { /* the copy's first block is on process (0, 0) */
    int e = hmat_redistribute(A, C);
    if (e != HLA_OK) hmat_free(&C);
    HLA_CALL(e);
  } else {
    const size_t es = elem_size(A->elem);
    for (int64_t j = 0; j < A->nloc; j++)
      memcpy((char *)C->data + (size_t)(j * C->lld) * es,
             (char *)A->data + (size_t)(j * A->lld) * es, (size_t)A->mloc * es);
  }
  *B = C;
  return HLA_OK;
}

hla_elem hmat_elem(hmat A) {
  return A ? A->elem : HLA_DOUBLE;
}

int hmat_convert(hmat src, hmat dst) {
  hbsp_env env;
  static const char fn[] = "hmat_convert";
  const hmat x[2] = {src, dst};
  const char *const names[2] = {"src", "dst"};
  HLA_CALL(hdist_agree_args(fn, x, names, 2, NULL, 0, &env));
  int code = HLA_OK;
  if (src->g != dst->g)
    code = HBSP_FAIL(env, HLA_ERR_DIST, "%s: src and dst are on different grids", fn);
  else if (src->m != dst->m || src->n != dst->n)
    code = HBSP_FAIL(env, HLA_ERR_DIM, "%s: src is %lld x %lld, dst %lld x %lld", fn,
                     (long long)src->m, (long long)src->n, (long long)dst->m, (long long)dst->n);
  else if (src->mb != dst->mb || src->nb != dst->nb || src->rsrc != dst->rsrc ||
           src->csrc != dst->csrc)
    code = HBSP_FAIL(env, HLA_ERR_DIST, "%s: src and dst have different layouts", fn);
  HLA_CALL(hbsp_agree(env, code)); /* global facts: the same on every rank */
  if (src == dst) return HLA_OK;
  for (int64_t j = 0; j < src->nloc; j++) {
    if (src->elem == HLA_DOUBLE && dst->elem == HLA_FLOAT) {
      const double *a = (const double *)src->data + j * src->lld;
      float *b = (float *)dst->data + j * dst->lld;
      for (int64_t i = 0; i < src->mloc; i++) b[i] = (float)a[i];
    } else if (src->elem == HLA_FLOAT && dst->elem == HLA_DOUBLE) {
      const float *a = (const float *)src->data + j * src->lld;
      double *b = (double *)dst->data + j * dst->lld;
      for (int64_t i = 0; i < src->mloc; i++) b[i] = a[i];
    } else {
      const size_t es = elem_size(src->elem);
      memcpy((char *)dst->data + (size_t)(j * dst->lld) * es,
             (const char *)src->data + (size_t)(j * src->lld) * es, (size_t)src->mloc * es);
    }
  }
  return HLA_OK;
}

/* ---------------------------------------------------------------- local queries */

int hmat_local(hmat A, double **data, int64_t *lld, int64_t *mloc, int64_t *nloc) {
  if (A == NULL || A->elem != HLA_DOUBLE) return HLA_ERR_ARG;
  if (data) *data = A->data;
  if (lld) *lld = A->lld;
  if (mloc) *mloc = A->mloc;
  if (nloc) *nloc = A->nloc;
  return HLA_OK;
}

int hmat_local_float(hmat A, float **data, int64_t *lld, int64_t *mloc, int64_t *nloc) {
  if (A == NULL || A->elem != HLA_FLOAT) return HLA_ERR_ARG;
  if (data) *data = A->data;
  if (lld) *lld = A->lld;
  if (mloc) *mloc = A->mloc;
  if (nloc) *nloc = A->nloc;
  return HLA_OK;
}

int hmat_size(hmat A, int64_t *m, int64_t *n) {
  if (A == NULL) return HLA_ERR_ARG;
  if (m) *m = A->m;
  if (n) *n = A->n;
  return HLA_OK;
}

int hmat_blocks(hmat A, int *mb, int *nb) {
  if (A == NULL) return HLA_ERR_ARG;
  if (mb) *mb = A->mb;
  if (nb) *nb = A->nb;
  return HLA_OK;
}

hgrid hmat_grid(hmat A) {
  return A ? A->g : NULL;
}

int hmat_local_size(hmat A, int prow, int pcol, int64_t *mloc, int64_t *nloc) {
  if (A == NULL || prow < 0 || prow >= A->g->M || pcol < 0 || pcol >= A->g->N) return HLA_ERR_ARG;
  int M = A->g->M, N = A->g->N;
  if (mloc) *mloc = hmat_numroc(A->m, A->mb, (prow - A->rsrc + M) % M, M);
  if (nloc) *nloc = hmat_numroc(A->n, A->nb, (pcol - A->csrc + N) % N, N);
  return HLA_OK;
}

int64_t hmat_l2g_row(hmat A, int64_t iloc) {
  if (A == NULL || iloc < 0 || iloc >= A->mloc) return -1;
  return hmat_idx_l2g(iloc, A->mb, hdist_prow(A), A->g->M);
}

int64_t hmat_l2g_col(hmat A, int64_t jloc) {
  if (A == NULL || jloc < 0 || jloc >= A->nloc) return -1;
  return hmat_idx_l2g(jloc, A->nb, hdist_pcol(A), A->g->N);
}

int64_t hmat_g2l_row(hmat A, int64_t i) {
  if (A == NULL || i < 0 || i >= A->m) return -1;
  return hmat_idx_g2l(i, A->mb, A->g->M);
}

int64_t hmat_g2l_col(hmat A, int64_t j) {
  if (A == NULL || j < 0 || j >= A->n) return -1;
  return hmat_idx_g2l(j, A->nb, A->g->N);
}

int hmat_owner(hmat A, int64_t i, int64_t j, int *prow, int *pcol) {
  if (A == NULL || i < 0 || i >= A->m || j < 0 || j >= A->n) return HLA_ERR_ARG;
  if (prow) *prow = (hmat_idx_owner(i, A->mb, A->g->M) + A->rsrc) % A->g->M;
  if (pcol) *pcol = (hmat_idx_owner(j, A->nb, A->g->N) + A->csrc) % A->g->N;
  return HLA_OK;
}

/* ---------------------------------------------------------------- local fill */

int hmat_fill(hmat A, double (*f)(int64_t i, int64_t j, void *ctx), void *ctx) {
  if (A == NULL || f == NULL) return HLA_ERR_ARG;
  const hgrid g = A->g;
  /* Walk local blocks so that the index maps cost one division per block, not per entry. */
  for (int64_t j0 = 0; j0 < A->nloc; j0 += A->nb) {
    int64_t jg0 = hmat_idx_l2g(j0, A->nb, hdist_pcol(A), g->N);
    int64_t jn = A->nloc - j0 < A->nb ? A->nloc - j0 : A->nb;
    for (int64_t jj = 0; jj < jn; jj++) {
      double *col = (double *)A->data + (j0 + jj) * A->lld;
      float *colf = (float *)A->data + (j0 + jj) * A->lld;
      for (int64_t i0 = 0; i0 < A->mloc; i0 += A->mb) {
        int64_t ig0 = hmat_idx_l2g(i0, A->mb, hdist_prow(A), g->M);
        int64_t in = A->mloc - i0 < A->mb ? A->mloc - i0 : A->mb;
        if (A->elem == HLA_FLOAT)
          for (int64_t ii = 0; ii < in; ii++) colf[i0 + ii] = (float)f(ig0 + ii, jg0 + jj, ctx);
        else
          for (int64_t ii = 0; ii < in; ii++) col[i0 + ii] = f(ig0 + ii, jg0 + jj, ctx);
      }
    }
  }
  return HLA_OK;
}

int hmat_set(hmat A, double offdiag, double diag) {
  if (A == NULL) return HLA_ERR_ARG;
  const hgrid g = A->g;
  if (A->elem == HLA_FLOAT)
    for (int64_t j = 0; j < A->nloc; j++)
      for (int64_t i = 0; i < A->mloc; i++) ((float *)A->data)[i + j * A->lld] = (float)offdiag;
  else
    hkern_dlaset(A->mloc, A->nloc, offdiag, offdiag, A->data, A->lld);
  /* The diagonal crosses my part where a global index is both one of my rows and my columns. */
  for (int64_t jl = 0; jl < A->nloc; jl++) {
    int64_t j = hmat_idx_l2g(jl, A->nb, hdist_pcol(A), g->N);
    if (j >= A->m || hmat_idx_owner(j, A->mb, g->M) != hdist_prow(A)) continue;
    int64_t at = hmat_idx_g2l(j, A->mb, g->M) + jl * A->lld;
    if (A->elem == HLA_FLOAT)
      ((float *)A->data)[at] = (float)diag;
    else
      ((double *)A->data)[at] = diag;
  }
  return HLA_OK;
}

/* ---------------------------------------------------------------- norms */

/* A NaN-propagating maximum reduction: MPI's MAX need not propagate NaN, so NaN travels as a
 * separate flag. v[0] = max ignoring NaN, v[1] = 1 if a NaN was seen. */
static void nan_split(double x, double v[2]) {
  v[0] = x != x ? 0.0 : x;
  v[1] = x != x ? 1.0 : 0.0;
}
static double nan_join(const double v[2]) {
  return v[1] != 0.0 ? NAN : v[0];
}

/* Max of the NaN-propagating local maxima over env. */
static int allmax(hbsp_env env, double local, double *out) {
  double v[2], r[2];
  nan_split(local, v);
  HLA_CALL(hbsp_allreduce(env, v, r, 2, HBSP_DOUBLE, HBSP_MAX, NULL));
  *out = nan_join(r);
  return HLA_OK;
}

static double local_max(const double *s, int64_t k) {
  double v = 0.0;
  for (int64_t i = 0; i < k; i++) {
    if (s[i] != s[i]) return s[i];
    if (s[i] > v) v = s[i];
  }
  return v;
}

/* Sums of |a_ij| along one dimension of my part, summed over the other process dimension (sum_env)
 * and maximised over the rest (max_env). rows = 1: row sums ('I'), 0: column sums ('1'). */
static int sum_then_max(hmat A, const double *a, int64_t lda, int rows, hbsp_env sum_env,
                        hbsp_env max_env, double *value, int *code) {
  int64_t k = rows ? A->mloc : A->nloc;
  double *s = hdist_alloc(2 * k);
  if (s == NULL && *code == HLA_OK)
    *code = HBSP_FAIL(A->g->all, HLA_ERR_NOMEM, "hmat_norm: out of memory");
  int e = hbsp_agree(A->g->all, *code);
  if (e != HLA_OK) {
    free(s);
    HLA_CALL(e);
  }
  if (rows)
    hkern_rowsums_abs(A->mloc, A->nloc, a, lda, s, 0);
  else
    hkern_colsums_abs(A->mloc, A->nloc, a, lda, s, 0);
  /* Every rank of sum_env has the same k (same process row or column): all skip together. */
  if (k > 0) e = hbsp_allreduce(sum_env, s, s + k, (size_t)k, HBSP_DOUBLE, HBSP_SUM, NULL);
  double mine = local_max(s + k, k);
  free(s);
  HLA_CALL(e);
  return allmax(max_env, mine, value);
}

static int norm_of(hmat A, const double *a, int64_t lda, char kind, double *value, int code);

int hmat_norm(hmat A, char norm, double *value) {
  if (A == NULL) return HLA_ERR_ARG;
  hgrid g = A->g;
  int code = HLA_OK, same;
  char kind = 0;
  switch (norm) {
  case '1':
  case 'O':
  case 'o':
    kind = '1';
    break;
  case 'I':
  case 'i':
    kind = 'I';
    break;
  case 'F':
  case 'f':
  case 'E':
  case 'e':
    kind = 'F';
    break;
  case 'M':
  case 'm':
    kind = 'M';
    break;
  }
  int64_t v = kind;
  HLA_CALL(hdist_check_same(g->all, &v, 1, &same));
  if (!same)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "hmat_norm: norm differs between ranks");
  else if (kind == 0)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "hmat_norm: unknown norm '%c'", norm);
  else if (value == NULL)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "hmat_norm: value is NULL");
  /* A float matrix is measured on a double copy of my part (exact), made here. */
  double *a = A->data, *copy = NULL;
  int64_t lda = A->lld;
  if (A->elem == HLA_FLOAT && code == HLA_OK) {
    if ((a = copy = hdist_alloc(A->mloc * A->nloc)) == NULL)
      code = HBSP_FAIL(g->all, HLA_ERR_NOMEM, "hmat_norm: out of memory");
    lda = A->mloc > 1 ? A->mloc : 1;
    for (int64_t j = 0; copy && j < A->nloc; j++)
      for (int64_t i = 0; i < A->mloc; i++) copy[i + j * lda] = ((float *)A->data)[i + j * A->lld];
  }
  double r = 0.0;
  code = norm_of(A, a, lda, kind, &r, code);
  free(copy);
  HLA_CALL(code);
  if (A->m == 0 || A->n == 0) r = 0.0;
  *value = r;
  return HLA_OK;
}

/* hmat_norm's work on my part a (lda) of A; code: the checks' verdict, agreed here. */
static int norm_of(hmat A, const double *a, int64_t lda, char kind, double *value, int code) {
  hgrid g = A->g;
  double r = 0.0;
  switch (kind) {
  case '1':
    HLA_CALL(sum_then_max(A, a, lda, 0, g->col, g->row, &r, &code));
    break;
  case 'I':
    HLA_CALL(sum_then_max(A, a, lda, 1, g->row, g->col, &r, &code));
    break;
  case 'M':
    HLA_CALL(hbsp_agree(g->all, code));
    HLA_CALL(allmax(g->all, hkern_dlange('M', A->mloc, A->nloc, a, lda, NULL), &r));
    break;
  case 'F': {
    HLA_CALL(hbsp_agree(g->all, code));
    int P = hbsp_size(g->all);
    double mine[2] = {0.0, 1.0}, *all = hdist_alloc(2 * (int64_t)P);
    hkern_dlassq(A->mloc, A->nloc, a, lda, &mine[0], &mine[1]);
    code = all ? HLA_OK : HBSP_FAIL(g->all, HLA_ERR_NOMEM, "hmat_norm: out of memory");
    code = hbsp_agree(g->all, code);
    if (code == HLA_OK) code = hbsp_allgather(g->all, mine, all, 2 * sizeof(double), NULL);
    if (code == HLA_OK) {
      /* Merge in rank order: every rank gets the same bits. */
      double s = 0.0, q = 1.0;
      for (int p = 0; p < P; p++) hkern_lassq_merge(&s, &q, all[2 * p], all[2 * p + 1]);
      r = s * sqrt(q);
    }
    free(all);
    HLA_CALL(code);
    break;
  }
  default:
    HLA_CALL(hbsp_agree(g->all, code));
    return HLA_ERR_INTERNAL; /* agree failed above */
  }
  *value = r;
  return HLA_OK;
}
