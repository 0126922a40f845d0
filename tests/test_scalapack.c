/* libhla_scalapack (src/scalapack) called as ScaLAPACK programs call it, on BLACS grids of every
 * shape, against LAPACK and against ScaLAPACK's own routines (found in its library with dlsym, so
 * that both run side by side): the factors and IPIV of pdgetrf_ on submatrices with offsets, MB !=
 * NB and first blocks elsewhere, tall and wide; pdgetrs_ (both transposes) on ScaLAPACK's factors
 * and ScaLAPACK's pdgetrs on hla's; pdgesv_; pdgemm_ on parts of one array (as ScaLAPACK's own
 * routines call it: here ScaLAPACK's pdgetrf, whose updates go to hla's pdgemm_); the INFO of
 * illegal arguments against ScaLAPACK's, and how they are reported (this program's own PXERBLA and
 * PB_Cabort record them, as ScaLAPACK's testers' do); singular and non-finite matrices; processes
 * outside the grid. Linked before ScaLAPACK (the first of the two ways to use the library).
 * @procs 1 2 3 4
 * @needs scalapack
 */
#define _GNU_SOURCE /* dladdr, RTLD_NOLOAD */
#include <dlfcn.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

/* ---------------------------------------------------------------- ScaLAPACK and BLACS */

void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);

typedef void gemm_fn(const char *, const char *, const int *, const int *, const int *,
                     const double *, const double *, const int *, const int *, const int *,
                     const double *, const int *, const int *, const int *, const double *,
                     double *, const int *, const int *, const int *);
typedef void getrf_fn(const int *, const int *, double *, const int *, const int *, const int *,
                      int *, int *);
typedef void getrs_fn(const char *, const int *, const int *, const double *, const int *,
                      const int *, const int *, const int *, double *, const int *, const int *,
                      const int *, int *);
typedef void gesv_fn(const int *, const int *, double *, const int *, const int *, const int *,
                     int *, double *, const int *, const int *, const int *, int *);
/* hla's (this program links libhla_scalapack first) */
gemm_fn pdgemm_;
getrf_fn pdgetrf_;
getrs_fn pdgetrs_;
gesv_fn pdgesv_;

/* ScaLAPACK's own, from its library (the one that defines BLACS). */
static struct {
  gemm_fn *gemm;
  getrf_fn *getrf;
  getrs_fn *getrs;
  gesv_fn *gesv;
} sca;

static void find_scalapack(void) {
  Dl_info info;
  void *h = NULL;
  if (dladdr((void *)(uintptr_t)Cblacs_gridinfo, &info) && info.dli_fname)
    h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  sca.gemm = (gemm_fn *)(uintptr_t)dlsym(h, "pdgemm_");
  sca.getrf = (getrf_fn *)(uintptr_t)dlsym(h, "pdgetrf_");
  sca.getrs = (getrs_fn *)(uintptr_t)dlsym(h, "pdgetrs_");
  sca.gesv = (gesv_fn *)(uintptr_t)dlsym(h, "pdgesv_");
  CU_ASSERT_FATAL(sca.gemm && sca.getrf && sca.getrs && sca.gesv);
  CU_ASSERT_FATAL(sca.getrf != pdgetrf_ && sca.gemm != pdgemm_); /* hla's are the ones linked */
}

/* The error handlers ScaLAPACK's routines and hla's call: this program's own record what they
 * were told and return, as ScaLAPACK's testers' do. */
static struct {
  int calls, info;
  char name[16];
} said;

void pxerbla_(const int *ctxt, const char *name, const int *info, size_t len);
void pxerbla_(const int *ctxt, const char *name, const int *info, size_t len) {
  (void)ctxt;
  said.calls++, said.info = -*info;
  snprintf(said.name, sizeof said.name, "%.*s", (int)(len < 15 ? len : 15), name);
}
void PB_Cabort(int ctxt, const char *rout, int info);
void PB_Cabort(int ctxt, const char *rout, int info) {
  (void)ctxt;
  said.calls++, said.info = info;
  snprintf(said.name, sizeof said.name, "%s", rout);
}
void PB_Cwarn(int ctxt, int line, const char *rout, const char *fmt, ...);
void PB_Cwarn(int ctxt, int line, const char *rout, const char *fmt, ...) {
  (void)ctxt, (void)line, (void)rout, (void)fmt; /* quiet */
}

static void said_reset(void) {
  memset(&said, 0, sizeof said);
}

/* ---------------------------------------------------------------- grids and matrices */

typedef struct {
  int ctxt, nprow, npcol, myrow, mycol, in;
} grid;

static grid grid_open(int nprow, int npcol) {
  grid g = {0};
  Cblacs_get(-1, 0, &g.ctxt);
  Cblacs_gridinit(&g.ctxt, "Row-major", nprow, npcol);
  Cblacs_gridinfo(g.ctxt, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
  g.in = g.myrow >= 0 && g.myrow < nprow && g.mycol >= 0 && g.mycol < npcol;
  return g;
}

static void grid_close(grid *g) {
  if (g->in) Cblacs_gridexit(g->ctxt);
}

/* The grid shapes over all P processes. */
static int shapes(int P, int s[][2]) {
  int k = 0;
  s[k][0] = 1, s[k][1] = P, k++;
  if (P > 1) s[k][0] = P, s[k][1] = 1, k++;
  if (P == 4) s[k][0] = 2, s[k][1] = 2, k++;
  return k;
}

/* ScaLAPACK's index maps, written out again here: entries of n owned by p, its global index of
 * local il, and the owner and local index of global i (first block on src). */
static int numroc_(int n, int nb, int p, int src, int np) {
  int c = 0;
  for (int b = 0; b * nb < n; b++)
    if ((b + src) % np == p) c += n - b * nb < nb ? n - b * nb : nb;
  return c;
}
static int l2g(int il, int nb, int p, int src, int np) {
  return (il / nb * np + (p - src + np) % np) * nb + il % nb;
}

/* A distributed matrix: its descriptor and this process's array (lld = local rows + pad; the pad
 * and one guard word after the array hold a sentinel). */
typedef struct {
  int desc[9];
  double *a;
  int ml, nl, lld, words;
  const grid *g;
} dmat;

static const double sentinel = -7777.25;

typedef double (*entry_fn)(int i, int j, const void *ctx);

static dmat dm_make(const grid *g, int m, int n, int mb, int nb, int rs, int cs, int pad,
                    entry_fn f, const void *ctx) {
  dmat d = {.g = g};
  d.ml = numroc_(m, mb, g->myrow, rs, g->nprow), d.nl = numroc_(n, nb, g->mycol, cs, g->npcol);
  d.lld = (d.ml > 1 ? d.ml : 1) + pad;
  d.words = d.lld * (d.nl > 0 ? d.nl : 1) + 1;
  d.a = malloc((size_t)d.words * sizeof *d.a);
  for (int k = 0; k < d.words; k++) d.a[k] = sentinel;
  int desc[9] = {1, g->ctxt, m, n, mb, nb, rs, cs, d.lld};
  memcpy(d.desc, desc, sizeof desc);
  for (int jl = 0; jl < d.nl; jl++)
    for (int il = 0; il < d.ml; il++)
      d.a[il + jl * d.lld] =
          f(l2g(il, mb, g->myrow, rs, g->nprow), l2g(jl, nb, g->mycol, cs, g->npcol), ctx);
  return d;
}

static dmat dm_copy(const dmat *s) {
  dmat d = *s;
  d.a = malloc((size_t)d.words * sizeof *d.a);
  memcpy(d.a, s->a, (size_t)d.words * sizeof *d.a);
  return d;
}

/* For each of my entries: its global (i, j) and a pointer v to it (no break in the body). */
#define DM_EACH(d, i, j, v)                                                                        \
  for (int jl_ = 0; jl_ < (d)->nl; jl_++)                                                          \
    for (int il_ = 0; il_ < (d)->ml; il_++)                                                        \
      for (int i = l2g(il_, (d)->desc[4], (d)->g->myrow, (d)->desc[6], (d)->g->nprow),             \
               j = l2g(jl_, (d)->desc[5], (d)->g->mycol, (d)->desc[7], (d)->g->npcol), once_ = 1;  \
           once_;)                                                                                 \
        for (v = &(d)->a[il_ + jl_ * (d)->lld]; once_; once_ = 0)

/* How many of my entries are not NaN. */
static int not_nan(const dmat *d) {
  int c = 0;
  for (int jl = 0; jl < d->nl; jl++)
    for (int il = 0; il < d->ml; il++) c += !isnan(d->a[il + jl * d->lld]);
  return c;
}

/* The padding and the guard word still hold the sentinel. */
static int pad_intact(const dmat *d) {
  for (int jl = 0; jl < d->nl; jl++)
    for (int il = d->ml; il < d->lld; il++)
      if (d->a[il + jl * d->lld] != sentinel) return 0;
  return d->a[d->words - 1] == sentinel;
}

static double rand_entry(int i, int j, const void *seed) {
  return ht_rand_entry(*(const uint64_t *)seed, i, j);
}

/* The global M x N matrix of f, column-major. */
static double *global(int M, int N, entry_fn f, const void *ctx) {
  double *G = malloc((size_t)(M * N > 0 ? M * N : 1) * sizeof *G);
  for (int j = 0; j < N; j++)
    for (int i = 0; i < M; i++) G[i + j * M] = f(i, j, ctx);
  return G;
}

/* All of cond on every process of the world. */
static int all(int cond) {
  return ht_all(MPI_COMM_WORLD, cond);
}

/* ---------------------------------------------------------------- pdgetrf */

/* One factorisation of sub(A) = A(ia:ia+m-1, ja:ja+n-1) (1-based) of an M x N matrix in mb x nb
 * blocks from (rs, cs): hla's factors against LAPACK's dgetrf of the part, the rest of A and the
 * padding untouched, IPIV in ScaLAPACK's form (other entries untouched), INFO 0. */
static void getrf_case(const grid *g, int M, int N, int mb, int nb, int rs, int cs, int ia, int ja,
                       int m, int n, uint64_t seed) {
  dmat A = dm_make(g, M, N, mb, nb, rs, cs, 3, rand_entry, &seed);
  const int k = m < n ? m : n, np = A.ml + mb;
  int *ipiv = malloc((size_t)np * sizeof *ipiv), info = -99;
  for (int i = 0; i < np; i++) ipiv[i] = -5;
  pdgetrf_(&m, &n, A.a, &ia, &ja, A.desc, ipiv, &info);
  CU_ASSERT_EQUAL(info, 0);
  /* LAPACK on the part */
  double *G = global(M, N, rand_entry, &seed), *F = malloc((size_t)(m * n + 1) * sizeof *F);
  lapack_int *p = malloc((size_t)(k + 1) * sizeof *p);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) F[i + j * m] = G[ia - 1 + i + (ja - 1 + j) * M];
  LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, n, F, m > 1 ? m : 1, p);
  int bad = 0, badpiv = 0;
  double *v;
  DM_EACH(&A, i, j, v) {
    int in = i >= ia - 1 && i < ia - 1 + m && j >= ja - 1 && j < ja - 1 + n;
    double want = in ? F[i - ia + 1 + (j - ja + 1) * m] : G[i + j * M];
    bad += in ? !(fabs(*v - want) <= 1e-10 * (1.0 + fabs(want))) : *v != want;
  }
  for (int il = 0; il < A.ml; il++) {
    int i = l2g(il, mb, g->myrow, rs, g->nprow) - (ia - 1);
    badpiv += i >= 0 && i < k ? ipiv[il] != p[i] + ia - 1 : ipiv[il] != -5;
  }
  for (int il = A.ml; il < np; il++) badpiv += ipiv[il] != -5;
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(badpiv, 0);
  CU_ASSERT(pad_intact(&A));
  if (bad || badpiv)
    printf("pdgetrf %d x %d of %d x %d at (%d, %d), %d x %d blocks from (%d, %d) on %d x %d: %d "
           "entries, %d pivots wrong\n",
           m, n, M, N, ia, ja, mb, nb, rs, cs, g->nprow, g->npcol, bad, badpiv);
  free(A.a), free(ipiv), free(G), free(F), free(p);
}

static void test_getrf(void) {
  int s[4][2], ns = shapes(ht_size(), s);
  for (int q = 0; q < ns; q++) {
    grid g = grid_open(s[q][0], s[q][1]);
    int r1 = g.nprow - 1, c1 = g.npcol - 1;
    getrf_case(&g, 30, 30, 4, 4, 0, 0, 1, 1, 30, 30, 1);   /* whole: in place */
    getrf_case(&g, 25, 31, 3, 3, 0, 0, 1, 1, 25, 31, 2);   /* wide, whole */
    getrf_case(&g, 33, 21, 5, 5, 0, 0, 1, 1, 33, 21, 3);   /* tall, whole */
    getrf_case(&g, 30, 30, 4, 4, r1, c1, 1, 1, 30, 30, 4); /* first block elsewhere */
    getrf_case(&g, 40, 37, 4, 4, 0, 0, 5, 9, 27, 22, 5);   /* aligned offsets */
    getrf_case(&g, 40, 37, 4, 6, r1, 0, 3, 2, 30, 33, 6);  /* MB != NB, unaligned: copied */
    getrf_case(&g, 40, 37, 7, 7, 0, c1, 10, 4, 9, 31, 7);  /* wide part */
    getrf_case(&g, 20, 20, 64, 64, 0, 0, 1, 1, 20, 20, 8); /* one block */
    grid_close(&g);
  }
}

/* The order and block where the LU runs in hla's own block (a copy), not the caller's 16. */
static void test_getrf_own_block(void) {
  int P = ht_size();
  grid g = grid_open(1, P);
  getrf_case(&g, 1100, 1100, 16, 16, 0, 0, 1, 1, 1100, 1100, 9);
  grid_close(&g);
}

/* ---------------------------------------------------------------- pdgetrs, pdgesv */

/* max over columns of ||op(A) x - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n) on the
 * global n x n A, x and b (n x nrhs). */
static double residual(char t, int n, int nrhs, const double *A, int lda, const double *X,
                       const double *B) {
  double an = 0.0, worst = 0.0;
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += fabs(t == 'N' ? A[i + j * lda] : A[j + i * lda]);
    an = fmax(an, s);
  }
  for (int c = 0; c < nrhs; c++) {
    double r = 0.0, xn = 0.0, bn = 0.0;
    for (int i = 0; i < n; i++) {
      double s = -B[i + c * n];
      for (int j = 0; j < n; j++) s += (t == 'N' ? A[i + j * lda] : A[j + i * lda]) * X[j + c * n];
      r = fmax(r, fabs(s)), xn = fmax(xn, fabs(X[i + c * n])), bn = fmax(bn, fabs(B[i + c * n]));
    }
    worst = fmax(worst, r / (DBL_EPSILON * (an * xn + bn) * n));
  }
  return worst;
}

/* sub(X) of a distributed matrix, gathered on every process (n x nrhs from (ib, jb), 1-based). */
static double *gather_part(const dmat *X, int ib, int jb, int n, int nrhs) {
  double *mine = calloc((size_t)(n * nrhs + 1), sizeof *mine), *v;
  double *got = calloc((size_t)(n * nrhs + 1), sizeof *got);
  DM_EACH(X, i, j, v) {
    if (i >= ib - 1 && i < ib - 1 + n && j >= jb - 1 && j < jb - 1 + nrhs)
      mine[i - ib + 1 + (j - jb + 1) * n] = *v;
  }
  /* every entry is on one process (no replication here) */
  MPI_Allreduce(mine, got, n * nrhs, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(mine);
  return got;
}

/* Factor with one library, solve with the other (getrf_sca: ScaLAPACK's factors, hla's solve; else
 * the other way round), op t, sub(A) n x n at (ia, ja), sub(B) n x nrhs at (ib, jb); the residual
 * within the bar, the rest of B and the padding untouched. Layouts ScaLAPACK's pdgetrs takes. */
static void getrs_case(const grid *g, int getrf_sca, char t, int n, int nb, int nrhs, int ia,
                       int ib, int jb, uint64_t seed) {
  const int M = ia - 1 + n, N = M;
  dmat A = dm_make(g, M, N, nb, nb, 0, 0, 2, rand_entry, &seed);
  uint64_t sb = seed + 100;
  dmat B = dm_make(g, ib - 1 + n, jb - 1 + nrhs, nb, 3, 0, 0, 1, rand_entry, &sb);
  dmat B0 = dm_copy(&B);
  int *ipiv = malloc((size_t)(A.ml + nb) * sizeof *ipiv), info = -99;
  (getrf_sca ? sca.getrf : pdgetrf_)(&n, &n, A.a, &ia, &ia, A.desc, ipiv, &info);
  CU_ASSERT_EQUAL(info, 0);
  (getrf_sca ? pdgetrs_ : sca.getrs)(&t, &n, &nrhs, A.a, &ia, &ia, A.desc, ipiv, B.a, &ib, &jb,
                                     B.desc, &info);
  CU_ASSERT_EQUAL(info, 0);
  double *G = global(M, N, rand_entry, &seed);
  double *X = gather_part(&B, ib, jb, n, nrhs), *R = gather_part(&B0, ib, jb, n, nrhs);
  double r = residual(t, n, nrhs, G + (ia - 1) + (ia - 1) * M, M, X, R);
  CU_ASSERT(r < 16.0);
  if (!(r < 16.0))
    printf("%s getrf + %s getrs '%c' n %d nb %d nrhs %d at (%d, %d) on %d x %d: residual %g\n",
           getrf_sca ? "ScaLAPACK's" : "hla's", getrf_sca ? "hla's" : "ScaLAPACK's", t, n, nb, nrhs,
           ib, jb, g->nprow, g->npcol, r);
  int out = 0; /* outside sub(B): as it was */
  double *v;
  DM_EACH(&B, i, j, v) {
    int in = i >= ib - 1 && i < ib - 1 + n && j >= jb - 1 && j < jb - 1 + nrhs;
    if (!in) out += *v != rand_entry(i, j, &sb);
  }
  CU_ASSERT_EQUAL(out, 0);
  CU_ASSERT(pad_intact(&A) && pad_intact(&B));
  free(A.a), free(B.a), free(B0.a), free(ipiv), free(G), free(X), free(R);
}

static void test_getrs(void) {
  int s[4][2], ns = shapes(ht_size(), s);
  for (int q = 0; q < ns; q++) {
    grid g = grid_open(s[q][0], s[q][1]);
    for (int sca_first = 0; sca_first < 2; sca_first++)
      for (int t = 0; t < 3; t++) {
        const char tr = "NTC"[t];
        getrs_case(&g, sca_first, tr, 23, 4, 3, 1, 1, 1, 10 + t);  /* whole */
        getrs_case(&g, sca_first, tr, 21, 3, 5, 4, 4, 2, 20 + t);  /* aligned offsets */
        getrs_case(&g, sca_first, tr, 35, 5, 70, 1, 1, 1, 30 + t); /* many right-hand sides */
        getrs_case(&g, sca_first, tr, 17, 64, 1, 1, 1, 1, 40 + t); /* one block */
      }
    grid_close(&g);
  }
}

/* pdgesv in layouts ScaLAPACK refuses (B's rows not aligned with A's, MB != NB, offsets): the
 * solution within the bar, IPIV as pdgetrf's, the rest untouched. */
static void gesv_case(const grid *g, int n, int mb, int nb, int rs, int cs, int ia, int ja, int mbb,
                      int nbb, int ib, int jb, int nrhs, uint64_t seed) {
  const int M = ia - 1 + n + 2, N = ja - 1 + n + 1;
  dmat A = dm_make(g, M, N, mb, nb, rs, cs, 2, rand_entry, &seed);
  uint64_t sb = seed + 7;
  dmat B = dm_make(g, ib - 1 + n + 1, jb - 1 + nrhs, mbb, nbb, 0, 0, 1, rand_entry, &sb);
  dmat B0 = dm_copy(&B);
  int *ipiv = malloc((size_t)(A.ml + mb) * sizeof *ipiv), info = -99;
  said_reset();
  pdgesv_(&n, &nrhs, A.a, &ia, &ja, A.desc, ipiv, B.a, &ib, &jb, B.desc, &info);
  CU_ASSERT_EQUAL(info, 0);
  CU_ASSERT_EQUAL(said.calls, 0);
  double *G = global(M, N, rand_entry, &seed);
  double *X = gather_part(&B, ib, jb, n, nrhs), *R = gather_part(&B0, ib, jb, n, nrhs);
  double r = residual('N', n, nrhs, G + (ia - 1) + (ja - 1) * M, M, X, R);
  CU_ASSERT(r < 16.0);
  if (!(r < 16.0))
    printf("pdgesv n %d (%d x %d blocks from (%d, %d)) at (%d, %d), B at (%d, %d) on %d x %d: "
           "residual %g\n",
           n, mb, nb, rs, cs, ia, ja, ib, jb, g->nprow, g->npcol, r);
  /* IPIV: LAPACK's pivots of the part */
  double *F = malloc((size_t)(n * n) * sizeof *F);
  lapack_int *p = malloc((size_t)n * sizeof *p);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) F[i + j * n] = G[ia - 1 + i + (ja - 1 + j) * M];
  LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, F, n, p);
  int badpiv = 0;
  for (int il = 0; il < A.ml; il++) {
    int i = l2g(il, mb, g->myrow, rs, g->nprow) - (ia - 1);
    if (i >= 0 && i < n) badpiv += ipiv[il] != p[i] + ia - 1;
  }
  CU_ASSERT_EQUAL(badpiv, 0);
  CU_ASSERT(pad_intact(&A) && pad_intact(&B));
  free(A.a), free(B.a), free(B0.a), free(ipiv), free(G), free(X), free(R), free(F), free(p);
}

static void test_gesv(void) {
  int s[4][2], ns = shapes(ht_size(), s);
  for (int q = 0; q < ns; q++) {
    grid g = grid_open(s[q][0], s[q][1]);
    int r1 = g.nprow - 1, c1 = g.npcol - 1;
    gesv_case(&g, 26, 4, 4, 0, 0, 1, 1, 4, 2, 1, 1, 3, 1);   /* in place */
    gesv_case(&g, 26, 4, 4, r1, c1, 1, 1, 4, 2, 1, 1, 3, 2); /* first block elsewhere */
    gesv_case(&g, 29, 3, 5, 0, 0, 2, 3, 4, 3, 6, 2, 4, 3);   /* MB != NB, offsets */
    gesv_case(&g, 31, 6, 6, 0, c1, 7, 1, 5, 1, 2, 3, 66, 4); /* B's rows elsewhere, many rhs */
    grid_close(&g);
  }
}

/* ---------------------------------------------------------------- pdgemm */

/* ScaLAPACK's own pdgetrf calls PDGEMM on parts of one array (its trailing updates): hla's
 * pdgemm_ gets them here, and the factors must still be LAPACK's. */
static void test_gemm_inside_scalapack(void) {
  int s[4][2], ns = shapes(ht_size(), s);
  for (int q = 0; q < ns; q++) {
    grid g = grid_open(s[q][0], s[q][1]);
    const int n = 37, nb = 4, one = 1;
    uint64_t seed = 55;
    dmat A = dm_make(&g, n, n, nb, nb, 0, 0, 1, rand_entry, &seed);
    int *ipiv = malloc((size_t)(A.ml + nb) * sizeof *ipiv), info = -1;
    sca.getrf(&n, &n, A.a, &one, &one, A.desc, ipiv, &info);
    CU_ASSERT_EQUAL(info, 0);
    double *G = global(n, n, rand_entry, &seed), *v;
    lapack_int p[37];
    LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, G, n, p);
    int bad = 0;
    DM_EACH(&A, i, j, v) bad += !(fabs(*v - G[i + j * n]) <= 1e-11 * (1.0 + fabs(G[i + j * n])));
    CU_ASSERT_EQUAL(bad, 0);
    free(A.a), free(ipiv), free(G);
    grid_close(&g);
  }
}

/* hla's pdgemm_ and ScaLAPACK's on the same operands, C a part of the array that holds A (as
 * ScaLAPACK's routines do), alpha = 0 with NaN in A, beta = 0 with NaN in C: the same C within
 * the bar, NaN only where ScaLAPACK has it. */
static void gemm_case(const grid *g, char ta, char tb, int m, int n, int k, double alpha,
                      double beta, int nan_a, int nan_c) {
  const int M = m + k + 6, N = m + k + n + 5, mb = 3, nb = 5;
  uint64_t seed = 31 + (uint64_t)(m * 7 + k);
  dmat X = dm_make(g, M, N, mb, nb, 0, g->npcol - 1, 2, rand_entry, &seed);
  dmat Y = dm_copy(&X);
  /* A at (2, 1), op(A) m x k; C at (3, k + 4): disjoint parts of X; B its own matrix */
  const int ia = 2, ja = 1, ic = 3, jc = k + 4 + (ta == 'N' ? 0 : m);
  uint64_t sb = seed + 1;
  dmat B = dm_make(g, k + n + 2, k + n + 2, 4, 4, 0, 0, 0, rand_entry, &sb);
  const int ib = 2, jb = 3;
  if (nan_a || nan_c) {
    double *v;
    DM_EACH(&X, i, j, v) {
      int in_a = i >= ia - 1 && i < ia - 1 + (ta == 'N' ? m : k) && j >= ja - 1 &&
                 j < ja - 1 + (ta == 'N' ? k : m);
      int in_c = i >= ic - 1 && i < ic - 1 + m && j >= jc - 1 && j < jc - 1 + n;
      if ((nan_a && in_a) || (nan_c && in_c)) *v = NAN, Y.a[v - X.a] = NAN;
    }
  }
  pdgemm_(&ta, &tb, &m, &n, &k, &alpha, X.a, &ia, &ja, X.desc, B.a, &ib, &jb, B.desc, &beta, X.a,
          &ic, &jc, X.desc);
  sca.gemm(&ta, &tb, &m, &n, &k, &alpha, Y.a, &ia, &ja, Y.desc, B.a, &ib, &jb, B.desc, &beta, Y.a,
           &ic, &jc, Y.desc);
  int bad = 0;
  for (int q = 0; q < X.words; q++) {
    double a = X.a[q], b = Y.a[q];
    bad += isnan(a) != isnan(b) || (!isnan(a) && !(fabs(a - b) <= 1e-12 * (1.0 + fabs(b)) * k));
  }
  CU_ASSERT_EQUAL(bad, 0);
  if (bad)
    printf("pdgemm %c%c %d x %d x %d alpha %g beta %g%s%s on %d x %d: %d entries differ\n", ta, tb,
           m, n, k, alpha, beta, nan_a ? " NaN in A" : "", nan_c ? " NaN in C" : "", g->nprow,
           g->npcol, bad);
  free(X.a), free(Y.a), free(B.a);
}

static void test_gemm(void) {
  int s[4][2], ns = shapes(ht_size(), s);
  for (int q = 0; q < ns; q++) {
    grid g = grid_open(s[q][0], s[q][1]);
    gemm_case(&g, 'N', 'N', 13, 11, 9, 1.5, -0.5, 0, 0);
    gemm_case(&g, 'T', 'N', 12, 10, 17, -1.0, 1.0, 0, 0);
    gemm_case(&g, 'N', 't', 9, 14, 8, 2.0, 0.0, 0, 1);  /* beta 0: NaN in C overwritten */
    gemm_case(&g, 'c', 'T', 10, 7, 12, 0.0, 3.0, 1, 0); /* alpha 0: A not read */
    gemm_case(&g, 'N', 'N', 10, 7, 0, 1.0, 2.0, 0, 0);  /* k 0: C := beta C */
    gemm_case(&g, 'N', 'N', 0, 7, 3, 1.0, 2.0, 0, 0);   /* m 0: nothing */
    grid_close(&g);
  }
}

/* ---------------------------------------------------------------- illegal arguments */

/* Which routine a bad call goes to. */
enum { R_GETRF, R_GETRS, R_GESV, R_GEMM };

/* Arguments of one call, each may be spoiled. */
typedef struct {
  char t1, t2;
  int m, n, k, ia, ja, ib, jb, ic, jc;
  int da[9], db[9], dc[9];
} args;

/* Call routine r (sca: ScaLAPACK's own) with arguments x; returns INFO (PBLAS: what PB_Cabort
 * was told, 0 if nothing). */
static int call(int r, int sca_own, const args *x, dmat *A, dmat *B, dmat *C, int *ipiv) {
  int info = -99;
  const double alpha = 1.0, beta = 0.5;
  said_reset();
  switch (r) {
  case R_GETRF:
    (sca_own ? sca.getrf : pdgetrf_)(&x->m, &x->n, A->a, &x->ia, &x->ja, x->da, ipiv, &info);
    return info;
  case R_GETRS:
    (sca_own ? sca.getrs : pdgetrs_)(&x->t1, &x->n, &x->k, A->a, &x->ia, &x->ja, x->da, ipiv, B->a,
                                     &x->ib, &x->jb, x->db, &info);
    return info;
  case R_GESV:
    (sca_own ? sca.gesv : pdgesv_)(&x->n, &x->k, A->a, &x->ia, &x->ja, x->da, ipiv, B->a, &x->ib,
                                   &x->jb, x->db, &info);
    return info;
  default:
    (sca_own ? sca.gemm : pdgemm_)(&x->t1, &x->t2, &x->m, &x->n, &x->k, &alpha, A->a, &x->ia,
                                   &x->ja, x->da, B->a, &x->ib, &x->jb, x->db, &beta, C->a, &x->ic,
                                   &x->jc, x->dc);
    return said.calls ? said.info : 0;
  }
}

/* A spoiled argument: which routine, a description, and how to spoil. */
typedef struct {
  int r;
  const char *what;
  void (*spoil)(args *x, const grid *g);
} bad_case;

#define SPOIL(name, body)                                                                          \
  static void name(args *x, const grid *g) {                                                       \
    (void)g;                                                                                       \
    body;                                                                                          \
  }
SPOIL(m_neg, x->m = -1)
SPOIL(n_neg, x->n = -2)
SPOIL(k_neg, x->k = -1)
SPOIL(ia_zero, x->ia = 0)
SPOIL(ja_big, x->ja = 99)
SPOIL(ib_zero, x->ib = 0)
SPOIL(m_out, x->m = x->da[2] + 1)
SPOIL(da_type, x->da[0] = 7)
SPOIL(da_mb, x->da[4] = 0)
SPOIL(da_nb, x->da[5] = -3)
SPOIL(da_rsrc, x->da[6] = g->nprow)
SPOIL(da_csrc, x->da[7] = -1)
SPOIL(da_lld, x->da[8] = 0)
SPOIL(db_type, x->db[0] = 3)
SPOIL(db_lld_all, x->db[8] = -4)
SPOIL(db_n, x->db[3] = -1)
SPOIL(dc_mb, x->dc[4] = 0)
SPOIL(dc_csrc, x->dc[7] = g->npcol + 1)
SPOIL(t1_bad, x->t1 = 'X')
SPOIL(t2_bad, x->t2 = 'q')
SPOIL(ic_zero, x->ic = 0)
SPOIL(n_out_c, x->n = x->dc[3] + 3)

static const bad_case bad_cases[] = {
    {R_GETRF, "M < 0", m_neg},
    {R_GETRF, "N < 0", n_neg},
    {R_GETRF, "IA = 0", ia_zero},
    {R_GETRF, "JA past N_A", ja_big},
    {R_GETRF, "IA + M - 1 > M_A", m_out},
    {R_GETRF, "DTYPE_A", da_type},
    {R_GETRF, "MB_A = 0", da_mb},
    {R_GETRF, "NB_A < 0", da_nb},
    {R_GETRF, "RSRC_A = NPROW", da_rsrc},
    {R_GETRF, "CSRC_A = -1", da_csrc},
    {R_GETRF, "LLD_A = 0", da_lld},
    {R_GETRS, "TRANS", t1_bad},
    {R_GETRS, "N < 0", n_neg},
    {R_GETRS, "NRHS < 0", k_neg},
    {R_GETRS, "IB = 0", ib_zero},
    {R_GETRS, "DTYPE_B", db_type},
    {R_GETRS, "LLD_B < 0", db_lld_all},
    {R_GETRS, "MB_A = 0", da_mb},
    {R_GESV, "N < 0", n_neg},
    {R_GESV, "NRHS < 0", k_neg},
    {R_GESV, "IA = 0", ia_zero},
    {R_GESV, "N_B < 0", db_n},
    {R_GESV, "DTYPE_B", db_type},
    {R_GESV, "RSRC_A", da_rsrc},
    {R_GEMM, "TRANSA", t1_bad},
    {R_GEMM, "TRANSB", t2_bad},
    {R_GEMM, "M < 0", m_neg},
    {R_GEMM, "K < 0", k_neg},
    {R_GEMM, "IA = 0", ia_zero},
    {R_GEMM, "DTYPE_A", da_type},
    {R_GEMM, "MB_A = 0", da_mb},
    {R_GEMM, "DTYPE_B", db_type},
    {R_GEMM, "MB_C = 0", dc_mb},
    {R_GEMM, "CSRC_C", dc_csrc},
    {R_GEMM, "IC = 0", ic_zero},
    {R_GEMM, "N past N_C", n_out_c},
};

/* Every bad argument: hla's INFO is ScaLAPACK's own, on every process, reported the same way
 * (PXERBLA with the routine's name, or PB_Cabort), and nothing written. */
static void test_illegal(void) {
  int s[4][2], ns = shapes(ht_size(), s);
  static const char *const names[4] = {"PDGETRF", "PDGETRS", "PDGESV", "PDGEMM"};
  for (int q = 0; q < ns; q++) {
    grid g = grid_open(s[q][0], s[q][1]);
    uint64_t seed = 5;
    dmat A = dm_make(&g, 12, 12, 3, 3, 0, 0, 1, rand_entry, &seed);
    dmat B = dm_make(&g, 12, 4, 3, 2, 0, 0, 1, rand_entry, &seed);
    dmat C = dm_make(&g, 12, 12, 3, 3, 0, 0, 1, rand_entry, &seed);
    int *ipiv = calloc((size_t)(A.ml + 3), sizeof *ipiv);
    for (size_t c = 0; c < sizeof bad_cases / sizeof *bad_cases; c++) {
      const bad_case *b = &bad_cases[c];
      args x = {'N', 'N', 12, 12, b->r == R_GEMM ? 12 : 4, 1, 1, 1, 1, 1, 1, {0}, {0}, {0}};
      memcpy(x.da, A.desc, sizeof x.da), memcpy(x.db, B.desc, sizeof x.db);
      memcpy(x.dc, C.desc, sizeof x.dc);
      if (b->r == R_GEMM) memcpy(x.db, C.desc, sizeof x.db);
      b->spoil(&x, &g);
      dmat A0 = dm_copy(&A), B0 = dm_copy(&B), C0 = dm_copy(&C);
      int want = call(b->r, 1, &x, &A, b->r == R_GEMM ? &C : &B, &C, ipiv);
      char wname[16];
      int wcalls = said.calls;
      memcpy(wname, said.name, sizeof wname);
      int got = call(b->r, 0, &x, &A, b->r == R_GEMM ? &C : &B, &C, ipiv);
      CU_ASSERT(want < 0);
      CU_ASSERT_EQUAL(got, want);
      CU_ASSERT(said.calls == 1 && wcalls == 1 && strcmp(said.name, wname) == 0 &&
                strcmp(said.name, names[b->r]) == 0);
      CU_ASSERT(all(got == want));
      if (got != want || said.calls != 1)
        printf("%s with %s on %d x %d: INFO %d, ScaLAPACK's %d; reported %d times as %s\n",
               names[b->r], b->what, g.nprow, g.npcol, got, want, said.calls, said.name);
      CU_ASSERT(memcmp(A.a, A0.a, (size_t)A.words * sizeof(double)) == 0);
      CU_ASSERT(memcmp(B.a, B0.a, (size_t)B.words * sizeof(double)) == 0);
      CU_ASSERT(memcmp(C.a, C0.a, (size_t)C.words * sizeof(double)) == 0);
      free(A0.a), free(B0.a), free(C0.a);
    }
    /* hla beyond ScaLAPACK: a value that differs between processes (ScaLAPACK's PCHK1MAT finds
     * it for pdgetrf), an LLD too small on one process only (PBLAS would report it there alone,
     * and the others would wait), a pivot out of range for pdgetrs (ScaLAPACK does not look) */
    if (g.nprow * g.npcol > 1) {
      const int first = g.myrow == 0 && g.mycol == 0;
      args x = {'N', 'N', first ? 12 : 11, 12, 12, 1, 1, 1, 1, 1, 1, {0}, {0}, {0}};
      memcpy(x.da, A.desc, sizeof x.da);
      int got = call(R_GETRF, 0, &x, &A, &B, &C, ipiv);
      CU_ASSERT(all(got == -1 && said.calls == 1));
      x.m = 12;
      memcpy(x.db, C.desc, sizeof x.db), memcpy(x.dc, C.desc, sizeof x.dc);
      if (first && A.nl > 0) x.da[8] = 0;
      got = call(R_GEMM, 0, &x, &A, &C, &C, ipiv);
      CU_ASSERT(all(got == -1011 && said.calls == 1));
    }
    args x = {'N', 'N', 12, 12, 4, 1, 1, 1, 1, 1, 1, {0}, {0}, {0}};
    memcpy(x.da, A.desc, sizeof x.da), memcpy(x.db, B.desc, sizeof x.db);
    for (int i = 0; i < A.ml + 3; i++) ipiv[i] = 1000; /* past every row */
    dmat B0 = dm_copy(&B);
    int got = call(R_GETRS, 0, &x, &A, &B, &C, ipiv);
    CU_ASSERT(all(got == -8 && said.calls == 1 && strcmp(said.name, "PDGETRS") == 0));
    CU_ASSERT(memcmp(B.a, B0.a, (size_t)B.words * sizeof(double)) == 0);
    free(B0.a), free(A.a), free(B.a), free(C.a), free(ipiv);
    grid_close(&g);
  }
}

/* Processes outside the grid (BLACS gives them no context): INFO -602 / -702 / -602 through
 * PXERBLA, as ScaLAPACK's own; PBLAS -1002 through PB_Cabort. */
static void test_outside(void) {
  int P = ht_size();
  if (P < 2) return;
  grid g = grid_open(1, P - 1); /* the last process is outside */
  int none[9] = {1, g.in ? g.ctxt : -1, 4, 4, 2, 2, 0, 0, 4}, n = 4, k = 1, one = 1, info = 0;
  double a[16] = {0}, b[4] = {0};
  int ipiv[8];
  if (!g.in) {
    for (int own = 1; own >= 0; own--) {
      said_reset();
      (own ? sca.getrf : pdgetrf_)(&n, &n, a, &one, &one, none, ipiv, &info);
      CU_ASSERT(info == -602 && said.calls == 1);
      said_reset();
      (own ? sca.getrs : pdgetrs_)("N", &n, &k, a, &one, &one, none, ipiv, b, &one, &one, none,
                                   &info);
      CU_ASSERT(info == -702 && said.calls == 1);
      said_reset();
      (own ? sca.gesv : pdgesv_)(&n, &k, a, &one, &one, none, ipiv, b, &one, &one, none, &info);
      CU_ASSERT(info == -602 && said.calls == 1);
    }
    const double alpha = 1.0, beta = 0.0;
    said_reset();
    pdgemm_("N", "N", &n, &n, &n, &alpha, a, &one, &one, none, a, &one, &one, none, &beta, a, &one,
            &one, none);
    CU_ASSERT(said.calls == 1 && said.info == -1002);
  }
  grid_close(&g);
}

/* ---------------------------------------------------------------- singular, non-finite */

static double singular_entry(int i, int j, const void *ctx) {
  return j == *(const int *)ctx ? 0.0 : ht_rand_entry(99, i, j);
}

/* A zero column k: INFO k + 1 (the first zero pivot, 1-based), the factorisation complete; pdgesv
 * leaves B as it was. Inf or NaN: NaN factors, IPIV without interchanges, INFO 0. */
static void test_singular_nonfinite(void) {
  int s[4][2], ns = shapes(ht_size(), s);
  for (int q = 0; q < ns; q++) {
    grid g = grid_open(s[q][0], s[q][1]);
    const int n = 17, one = 1, zero_col = 6, nrhs = 2;
    dmat A = dm_make(&g, n, n, 3, 3, 0, 0, 0, singular_entry, &zero_col);
    int *ipiv = malloc((size_t)(A.ml + 3) * sizeof *ipiv), info = 0;
    pdgetrf_(&n, &n, A.a, &one, &one, A.desc, ipiv, &info);
    CU_ASSERT(all(info == zero_col + 1));
    free(A.a);
    A = dm_make(&g, n, n, 3, 3, 0, 0, 0, singular_entry, &zero_col);
    uint64_t sb = 4;
    dmat B = dm_make(&g, n, nrhs, 3, 1, 0, 0, 0, rand_entry, &sb), B0 = dm_copy(&B);
    pdgesv_(&n, &nrhs, A.a, &one, &one, A.desc, ipiv, B.a, &one, &one, B.desc, &info);
    CU_ASSERT(all(info == zero_col + 1));
    CU_ASSERT(memcmp(B.a, B0.a, (size_t)B.words * sizeof(double)) == 0);
    /* NaN somewhere */
    uint64_t sa = 8;
    free(A.a);
    A = dm_make(&g, n, n, 3, 3, 0, 0, 0, rand_entry, &sa);
    if (A.ml > 0 && A.nl > 0) A.a[0] = NAN;
    for (int i = 0; i < A.ml + 3; i++) ipiv[i] = -1;
    pdgesv_(&n, &nrhs, A.a, &one, &one, A.desc, ipiv, B.a, &one, &one, B.desc, &info);
    CU_ASSERT(all(info == 0));
    int nonnan = not_nan(&A) + not_nan(&B), badpiv = 0;
    for (int il = 0; il < A.ml; il++) badpiv += ipiv[il] != l2g(il, 3, g.myrow, 0, g.nprow) + 1;
    CU_ASSERT_EQUAL(nonnan, 0);
    CU_ASSERT_EQUAL(badpiv, 0);
    free(A.a), free(B.a), free(B0.a), free(ipiv);
    grid_close(&g);
  }
}

static void test_setup(void) {
  int me, np;
  Cblacs_pinfo(&me, &np);
  CU_ASSERT_EQUAL(np, ht_size());
  find_scalapack();
}

void hla_test_register(void) {
  HT_SUITE("scalapack", test_setup, test_getrf, test_getrf_own_block, test_getrs, test_gesv,
           test_gemm_inside_scalapack, test_gemm, test_illegal, test_outside,
           test_singular_nonfinite);
}
