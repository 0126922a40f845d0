/* soak — many mixed calls in a random but reproducible order, every result checked, memory watched.
 *
 *   mpiexec -n 4 --oversubscribe build/soak --calls 1000 [--seed S] [--max-n 200] [--only KINDS]
 *                                           [--verbose]
 *
 * Any P works. One call is one of (weights in OPS below):
 *   grid      hgrid_create of a random shape of P (1xP, Px1, every other factorisation, and the
 *             automatic 0x0), sometimes over a reordered twin of the world (hbsp_reorder);
 *   mat       hmat_create of random m x n (0 and 1 included, up to --max-n) in random mb x nb
 *             blocks (1..40, mb != nb, 0 = automatic), filled (hmat_fill) or scattered, checked;
 *   free      hmat_free (also of NULL) or hgrid_free (its matrices first); rarely everything;
 *   matmul    hmatmul with random trans, alpha, beta (beta = 0 on a NaN-filled C sometimes), and
 *             a random algorithm through hla_opts or automatic, on operands in other layouts
 *             than C (redistributed inside); C against cblas_dgemm on the gathered operands:
 *             ||C - C_ref||_max / ((|alpha| ||A|| ||B|| max(k, 1) + |beta| ||C0||) eps) <= 16,
 *             max-abs norms, the design's bar with alpha and beta in (a zero bar: exact);
 *   gesv      hla_gesv of n x n with 1..5 right-hand sides; factor   hlu_factor, then one or two
 *             hlu_solve; random LU options. HPL's ||Ax - b||_inf / (eps (||A||_inf ||x||_inf +
 *             ||b||_inf) n) < 16 on rank 0 from the gathered data; ipiv in range and the same on
 *             every rank. One in 16 has a zero column j: HLA_ERR_SINGULAR with info j, as
 *             LAPACK dgetrf's (and hla_gesv leaves B as it was);
 *   redist    hmat_redistribute to a random layout on any grid (twins included), compared ==;
 *   scatter   hmat_scatter from a random root and hmat_gather to another, padded leading
 *             dimensions, compared == (padding untouched) and each rank's part checked;
 *   misuse    a call that must fail with a given code (grid busy, operands on another grid, sizes
 *             that do not conform, mb != nb for LU, B's row block, bad ipiv, Inf/NaN in A, bad
 *             shape, negative size, bad trans, C == A, bad options), operands unchanged.
 * Every return code must agree over the ranks. The random choices are the same on every rank
 * (--seed); the automatic choices depend on the machine model (HLA_PLAN, the machine file).
 * RSS: VmRSS (max over ranks, after malloc_trim so that pages glibc keeps free do not count),
 * everything freed, after the first 50 calls (warm-up) and at the end; rank 0 runs the checks'
 * dgemm and dgetrf once before, so that their code pages do not count as growth. What remains
 * is mostly Open MPI's free lists (unexpected fragments: their high-water mark rises with the
 * backlog of an oversubscribed run), a few per cent at 1000 calls. Output: one line per error
 * or failed check (call number, operation, sizes, blocks, grid, code and message), a progress line
 * every 100 calls, and last
 *   soak: N calls, E errors, F failed checks, RSS start X MiB end Y MiB (growth Z %)
 * Exit status 1 when E + F > 0 or the growth is over 10 %. --verbose prints every call before its
 * main library call (to reproduce a failure or find a hang); --only grid,matmul,... runs those
 * kinds alone (the names of OPS).
 */
#include <float.h>
#ifndef HLA_SMPI /* SMPI's smpicc makes malloc a macro, which breaks this header */
#include <malloc.h>
#endif
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "hla.h"

#define WARMUP   50
#define MAXG     4  /* live grids */
#define MAXM     12 /* live matrices */
#define BAR_MM   16.0
#define BAR_HPL  16.0
#define SENTINEL 12345.0

/* ---------------------------------------------------------------- random numbers */

static uint64_t mix(uint64_t *s) { /* splitmix64, as tests/harness.c */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t rng; /* the same sequence on every rank: every choice is global */
static uint64_t rnd(void) {
  return mix(&rng);
}
static int rint_(int k) {
  return k <= 1 ? 0 : (int)(rnd() % (uint64_t)k);
}
static double runif(void) {
  return (double)(rnd() >> 11) * 0x1.0p-53;
}

/* Entry (i, j) of the matrix of a seed: a pure function, so any rank can check any entry. */
static double gen(uint64_t seed, int64_t i, int64_t j) {
  uint64_t s = seed ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)j * 0xC2B2AE3D27D4EB4Full);
  mix(&s);
  return (double)(mix(&s) >> 11) * 0x1.0p-53 - 0.5;
}

typedef struct {
  uint64_t seed;
  int64_t zero_col;     /* a column of zeros (singular A), -1 if none */
  int64_t bad_i, bad_j; /* one entry set to bad (Inf or NaN), -1 if none */
  double bad;
} fillctx;

static double fill_fn(int64_t i, int64_t j, void *ctx) {
  const fillctx *f = ctx;
  if (j == f->zero_col) return 0.0;
  if (i == f->bad_i && j == f->bad_j) return f->bad;
  return gen(f->seed, i, j);
}

/* ---------------------------------------------------------------- state */

typedef struct {
  hgrid g;        /* NULL: free slot */
  hbsp_env twin;  /* the reordered world the grid is over, or NULL */
  int M, N;       /* shape (resolved for 0 x 0) */
  int root0;      /* the grid's ALL rank of world rank 0, where the checks run */
  int asked_auto; /* made as 0 x 0 */
} sgrid;

typedef struct {
  hmat A; /* NULL: free slot */
  int gi;
  int64_t m, n;
  int mb, nb; /* the blocks it got */
} smat;

static hbsp_env world;
static int P, me;
static int max_n = 200, verbose;
static int ncall;
static long nerr, nfail;
static char what[1024]; /* the current call, for the failure lines */
static sgrid grids[MAXG];
static smat mats[MAXM];
static int pinned[MAXM]; /* operands of the current call: not freed to make room */

/* Append to the description of the current call (what the failure lines print). */
static void say(const char *fmt, ...) {
  size_t k = strlen(what);
  if (k && what[k - 1] != ' ' && fmt[0] != ' ' && k + 2 < sizeof what)
    what[k++] = ';', what[k++] = ' ';
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what + k, sizeof what - k, fmt, ap);
  va_end(ap);
}

/* Before the main library call of a call: the call so far, with --verbose. */
static void vlog(void) {
  if (verbose && me == 0) printf("# call %d: %s\n", ncall, what), fflush(stdout);
}

/* A failed check (counted on rank 0, which has the data). */
static void failed(const char *fmt, ...) {
  if (me != 0) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  printf("soak: call %d: %s: FAILED CHECK: %s\n", ncall, what, msg);
  fflush(stdout);
  nfail++;
}

/* The code of a collective call, which must be the same on every rank (else an error). */
static int agreed(int rc) {
  int lo, hi;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi && me == 0) {
    printf("soak: call %d: %s: ERROR: return codes differ between ranks (%d .. %d)\n", ncall, what,
           lo, hi);
    nerr++;
  }
  return hi;
}

/* 1 iff rc is want on every rank; else one error line (with g's message, if a grid is given). */
static int expect(int rc, int want, const char *fn, hgrid g) {
  rc = agreed(rc);
  if (rc == want) return 1;
  if (me == 0) {
    printf("soak: call %d: %s: ERROR: %s returned %d %s (%s), expected %s\n", ncall, what, fn, rc,
           hla_strerror(rc), g ? hgrid_errmsg(g) : hbsp_errmsg(world), hla_strerror(want));
    fflush(stdout);
  }
  nerr += me == 0;
  return 0;
}

/* 1 iff cond holds on every rank. */
static int all(int cond) {
  int c = cond ? 1 : 0, a;
  MPI_Allreduce(&c, &a, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return a;
}

/* ---------------------------------------------------------------- sizes and shapes */

static int64_t draw_n(void) {
  int r = rint_(16);
  if (r == 0) return 0;
  if (r == 1) return 1;
  if (r <= 3) return 2 + rint_(max_n < 8 ? 1 : 7);
  return 1 + rint_(max_n);
}

static int draw_block(void) {
  return rint_(8) == 0 ? 0 : 1 + rint_(40);
}

/* A random divisor of x (1 included). */
static int divisor(int x) {
  int d[64], k = 0;
  for (int i = 1; i <= x && k < 64; i++)
    if (x % i == 0) d[k++] = i;
  return d[rint_(k)];
}

static int gcd(int a, int b) {
  return b ? gcd(b, a % b) : a;
}

static const char *gname(int gi) {
  static char buf[4][32];
  static int k;
  char *s = buf[k++ & 3];
  snprintf(s, 32, "%dx%d%s%s", grids[gi].M, grids[gi].N, grids[gi].asked_auto ? "(auto)" : "",
           grids[gi].twin ? "(twin)" : "");
  return s;
}

static const char *mname(int mi) {
  static char buf[8][64];
  static int k;
  char *s = buf[k++ & 7];
  const smat *x = &mats[mi];
  snprintf(s, 64, "%lldx%lld/%dx%d@%s", (long long)x->m, (long long)x->n, x->mb, x->nb,
           gname(x->gi));
  return s;
}

static int ld1(int64_t m) {
  return m > 1 ? (int)m : 1;
}

/* ---------------------------------------------------------------- grids and matrices */

static int ngrids(void) {
  int k = 0;
  for (int i = 0; i < MAXG; i++) k += grids[i].g != NULL;
  return k;
}

static int mats_on(int gi) {
  int k = 0;
  for (int i = 0; i < MAXM; i++) k += mats[i].A != NULL && mats[i].gi == gi;
  return k;
}

static void mat_release(int mi) {
  int rc = hmat_free(&mats[mi].A);
  if (expect(rc, HLA_OK, "hmat_free", NULL) && !all(mats[mi].A == NULL))
    failed("hmat_free left the handle set");
  mats[mi].A = NULL;
}

static void grid_release(int gi) {
  sgrid *s = &grids[gi];
  for (int i = 0; i < MAXM; i++)
    if (mats[i].A && mats[i].gi == gi) mat_release(i);
  int rc = hgrid_free(&s->g);
  if (expect(rc, HLA_OK, "hgrid_free", NULL) && !all(s->g == NULL))
    failed("hgrid_free left the handle set");
  if (s->twin) expect(hbsp_free(&s->twin), HLA_OK, "hbsp_free", NULL);
  memset(s, 0, sizeof *s);
}

static void free_all(void) {
  for (int i = 0; i < MAXG; i++)
    if (grids[i].g) grid_release(i);
}

/* A new grid of shape M x N (0 x 0: automatic), over a reordered world if twin; its slot or -1. */
static int grid_make(int M, int N, int twin) {
  int gi = -1;
  for (int i = 0; i < MAXG && gi < 0; i++)
    if (!grids[i].g) gi = i;
  if (gi < 0) { /* make room: a grid without operands of this call goes */
    int c[MAXG], k = 0;
    for (int i = 0; i < MAXG; i++) {
      int busy = 0;
      for (int j = 0; j < MAXM; j++) busy |= pinned[j] && mats[j].A && mats[j].gi == i;
      if (!busy) c[k++] = i;
    }
    if (k == 0) return -1;
    grid_release(gi = c[rint_(k)]);
  }
  sgrid *s = &grids[gi];
  hbsp_env env = world;
  if (twin) { /* a random permutation of the ranks, the same everywhere */
    int perm[256], n = P < 256 ? P : 256;
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
      int j = rint_(i + 1), t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    if (!expect(hbsp_reorder(world, me < n ? perm[me] : me, &s->twin), HLA_OK, "hbsp_reorder",
                NULL))
      return -1;
    env = s->twin;
  }
  say("new grid %dx%d%s", M, N, twin ? " twin" : "");
  vlog();
  int rc = hgrid_create(env, M, N, &s->g);
  if (!expect(rc, HLA_OK, "hgrid_create", NULL)) {
    if (s->twin) hbsp_free(&s->twin);
    memset(s, 0, sizeof *s);
    return -1;
  }
  s->asked_auto = M == 0;
  hgrid_shape(s->g, &s->M, &s->N, NULL, NULL);
  int ok = s->M * s->N == P && (M == 0 || (s->M == M && s->N == N));
  if (!all(ok)) failed("grid %dx%d asked, %dx%d made on %d ranks", M, N, s->M, s->N, P);
  hbsp_env gall;
  hgrid_env(s->g, HGRID_ALL, &gall);
  s->root0 = hbsp_rank(gall);
  MPI_Bcast(&s->root0, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return gi;
}

static int grid_random(void) {
  int shapes[64][2], ns = 0;
  for (int M = 1; M <= P && ns < 63; M++)
    if (P % M == 0) shapes[ns][0] = M, shapes[ns][1] = P / M, ns++;
  shapes[ns][0] = shapes[ns][1] = 0, ns++; /* automatic */
  int s = rint_(ns);
  return grid_make(shapes[s][0], shapes[s][1], P > 1 && rint_(6) == 0);
}

/* A live grid at random (a new one if there is none). */
static int pick_grid(void) {
  int k = ngrids();
  if (k == 0) return grid_random();
  int r = rint_(k);
  for (int i = 0; i < MAXG; i++)
    if (grids[i].g && r-- == 0) return i;
  return -1;
}

/* A live matrix at random on grid gi (any grid: gi < 0) with m rows and n columns (< 0: any),
 * other than ex; -1 if none. */
static int find_mat(int gi, int64_t m, int64_t n, int ex) {
  int c[MAXM], k = 0;
  for (int i = 0; i < MAXM; i++)
    if (mats[i].A && i != ex && (gi < 0 || mats[i].gi == gi) && (m < 0 || mats[i].m == m) &&
        (n < 0 || mats[i].n == n))
      c[k++] = i;
  return k ? c[rint_(k)] : -1;
}

/* A new m x n matrix in mb x nb blocks on grid gi (zero-filled, checked), pinned; -1 on error. */
static int mat_make(int gi, int64_t m, int64_t n, int mb, int nb) {
  int mi = -1;
  if (gi < 0) return -1;
  for (int i = 0; i < MAXM && mi < 0; i++)
    if (!mats[i].A) mi = i;
  if (mi < 0) { /* make room: an unpinned one goes */
    int c[MAXM], k = 0;
    for (int i = 0; i < MAXM; i++)
      if (!pinned[i]) c[k++] = i;
    mat_release(mi = c[rint_(k)]);
  }
  smat *x = &mats[mi];
  int rc = hmat_create(grids[gi].g, m, n, mb, nb, &x->A);
  if (!expect(rc, HLA_OK, "hmat_create", grids[gi].g)) {
    x->A = NULL;
    return -1;
  }
  x->gi = gi, x->m = m, x->n = n;
  hmat_blocks(x->A, &x->mb, &x->nb);
  pinned[mi] = 1;
  /* the automatic blocks' rules, and my part's size */
  int bok = x->mb >= 1 && x->nb >= 1;
  if (mb && nb) bok &= x->mb == mb && x->nb == nb;
  if (!mb && nb) bok &= x->mb == nb && x->nb == nb;
  if (mb && !nb) bok &= x->mb == mb && x->nb == mb;
  if (!mb && !nb) bok &= x->mb == x->nb;
  int myrow, mycol;
  int64_t ml, nl, lld;
  double *d;
  hgrid_shape(grids[gi].g, NULL, NULL, &myrow, &mycol);
  hmat_local(x->A, &d, &lld, &ml, &nl);
  int lok = ml == hmat_numroc(m, x->mb, myrow, grids[gi].M) &&
            nl == hmat_numroc(n, x->nb, mycol, grids[gi].N) && lld == (ml > 1 ? ml : 1);
  for (int64_t j = 0; lok && j < nl; j++)
    for (int64_t i = 0; i < ml; i++) lok &= d[i + j * lld] == 0.0;
  if (!all(bok)) failed("hmat_create(%d, %d) gave blocks %d x %d", mb, nb, x->mb, x->nb);
  if (!all(lok)) failed("hmat_create: a local part of the wrong size or not zero");
  return mi;
}

static void mat_fill(int mi, const fillctx *f) {
  expect(hmat_fill(mats[mi].A, fill_fn, (void *)f), HLA_OK, "hmat_fill", grids[mats[mi].gi].g);
}

static fillctx fresh(void) {
  return (fillctx){rnd(), -1, -1, -1, 0.0};
}

/* Gather matrix mi on world rank 0 (*G, leading dimension max(1, m); NULL on the other ranks).
 * Returns 0 on an error (counted). */
static int gather0(int mi, double **G) {
  const smat *x = &mats[mi];
  *G = NULL;
  if (me == 0) *G = malloc((size_t)(x->m * x->n > 0 ? x->m * x->n : 1) * sizeof **G);
  int rc = hmat_gather(x->A, grids[x->gi].root0, *G, ld1(x->m));
  if (!expect(rc, HLA_OK, "hmat_gather", grids[x->gi].g)) {
    free(*G);
    *G = NULL;
    return 0;
  }
  return 1;
}

/* Bitwise equality of two gathered m x n matrices (rank 0). */
static int same(const double *a, const double *b, int64_t m, int64_t n) {
  return me != 0 || m * n == 0 || memcmp(a, b, (size_t)(m * n) * sizeof *a) == 0;
}

/* max |a_i|; NaN if there is one (fmax would skip it). */
static double maxabs(const double *a, int64_t cnt) {
  double v = 0;
  for (int64_t i = 0; i < cnt; i++) {
    if (isnan(a[i])) return NAN;
    v = fmax(v, fabs(a[i]));
  }
  return v;
}

/* ---------------------------------------------------------------- options */

static const char *bcast_name[] = {"auto", "native", "flat", "binomial", "pipeline", "sag"};

static void random_bcast(hla_opts *o, int M, int N) {
  o->bcast.alg = (hbsp_alg)rint_(6);
  if (o->bcast.alg == HBSP_PIPELINE && rint_(2)) o->bcast.segment = (size_t)(8 << rint_(14));
  if (rint_(3) == 0) o->bcast.groups = divisor(gcd(M, N));
  say(" bcast %s groups %d seg %zu", bcast_name[o->bcast.alg], o->bcast.groups, o->bcast.segment);
}

/* Multiply options on an M x N grid: NULL, zero, or a random algorithm with its parameters. */
static const hla_opts *mm_opts(hla_opts *o, hla_report *rep, int M, int N) {
  memset(o, 0, sizeof *o);
  int r = rint_(6);
  if (r == 0) {
    say(" opts NULL");
    return NULL;
  }
  if (rint_(2)) o->report = rep;
  if (r == 1) {
    say(" opts zero");
    return o;
  }
  static const char *alg[] = {"auto", "summa", "hsumma", "3d"};
  o->mm_alg = r - 2; /* auto with fields, SUMMA, HSUMMA, 3D */
  if (rint_(2)) o->inner_block = 1 + rint_(40);
  if (o->inner_block && rint_(2)) o->outer_block = o->inner_block * (1 + rint_(3));
  if (o->mm_alg == HLA_MM_HSUMMA) {
    int k = rint_(3);
    if (k == 1) o->groups_row = divisor(M), o->groups_col = divisor(N);
    if (k == 2) o->groups = divisor(M) * divisor(N);
  }
  if (o->mm_alg == HLA_MM_3D || o->mm_alg == HLA_MM_AUTO) {
    int k = rint_(3);
    o->replication = k == 0 ? 0 : k == 1 ? 1 : divisor(rint_(2) ? M : N);
  }
  say(" opts %s b=%d Mo=%d groups=%d/%dx%d c=%d", alg[o->mm_alg], o->inner_block, o->outer_block,
      o->groups, o->groups_row, o->groups_col, o->replication);
  if (rint_(2)) random_bcast(o, M, N);
  return o;
}

/* LU options: NULL, zero, or random fields; info_out always set when *info is wanted. */
static const hla_opts *lu_opts(hla_opts *o, hla_report *rep, int64_t *info, int want_info, int M,
                               int N) {
  memset(o, 0, sizeof *o);
  int r = rint_(4);
  if (r == 0 && !want_info) {
    say(" opts NULL");
    return NULL;
  }
  if (want_info || rint_(2)) o->info_out = info;
  if (rint_(2)) o->report = rep;
  if (r <= 1) {
    say(" opts zero");
    return o;
  }
  o->lu_alg = rint_(3);
  o->lookahead = rint_(4) - 1;
  o->panel = rint_(3);
  o->swap = rint_(3);
  int k = rint_(3);
  if (k == 1) o->groups_row = divisor(M), o->groups_col = divisor(N);
  if (k == 2) o->groups = divisor(P);
  say(" opts lu=%d la=%d panel=%d swap=%d groups=%d/%dx%d", o->lu_alg, o->lookahead, o->panel,
      o->swap, o->groups, o->groups_row, o->groups_col);
  if (rint_(2)) random_bcast(o, M, N);
  return o;
}

/* ---------------------------------------------------------------- checks on rank 0 */

/* HPL's scaled residual, the worst column of X (n x nrhs) against A and B (leading dims n). */
static double hpl_resid(int64_t n, int64_t nrhs, const double *A, const double *X,
                        const double *B) {
  if (n == 0) return 0.0;
  double an = 0.0, worst = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double s = 0;
    for (int64_t j = 0; j < n; j++) s += fabs(A[i + j * n]);
    an = fmax(an, s);
  }
  double *r = malloc((size_t)n * sizeof *r);
  for (int64_t c = 0; c < nrhs; c++) {
    const double *x = X + c * n, *b = B + c * n;
    for (int64_t i = 0; i < n; i++) r[i] = -b[i];
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < n; i++) r[i] += A[i + j * n] * x[j];
    double rn = maxabs(r, n), xn = maxabs(x, n), bn = maxabs(b, n);
    double den = DBL_EPSILON * (an * xn + bn) * (double)n;
    double q = den > 0 ? rn / den : rn == 0 ? 0.0 : INFINITY;
    if (isnan(rn) || isnan(xn) || isnan(den)) q = NAN;
    if (isnan(q) || q > worst) worst = q; /* NaN stays */
  }
  free(r);
  return worst;
}

/* LAPACK dgetrf's info (0: regular, j + 1: first zero pivot at j) of the n x n A (rank 0). */
static int64_t lapack_info(int64_t n, const double *A) {
  if (n == 0) return 0;
  double *a = malloc((size_t)(n * n) * sizeof *a);
  lapack_int *ip = malloc((size_t)n * sizeof *ip);
  memcpy(a, A, (size_t)(n * n) * sizeof *a);
  lapack_int info =
      LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, a, (lapack_int)n, ip);
  free(a), free(ip);
  return info;
}

/* ipiv: every entry in [i, n), and the same on every rank. */
static void check_ipiv(const int64_t *ipiv, int64_t n) {
  int ok = 1;
  uint64_t h = 1469598103934665603ull, lo, hi;
  for (int64_t i = 0; i < n; i++) {
    ok &= ipiv[i] >= i && ipiv[i] < n;
    h = (h ^ (uint64_t)ipiv[i]) * 1099511628211ull;
  }
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (!all(ok)) failed("ipiv out of range");
  if (lo != hi) failed("ipiv differs between ranks");
}

/* ---------------------------------------------------------------- the operations */

static void op_grid(void) {
  say("grid_create");
  grid_random();
}

static void op_free(void) {
  int r = rint_(10), gi, mi = find_mat(-1, -1, -1, -1);
  if (r < 6 && mi >= 0) {
    say("hmat_free %s", mname(mi));
    vlog();
    mat_release(mi);
  } else if (r < 7) { /* a NULL handle is a no-op */
    hmat none = NULL;
    say("hmat_free NULL");
    vlog();
    expect(hmat_free(&none), HLA_OK, "hmat_free(NULL)", NULL);
    expect(hmat_free(NULL), HLA_OK, "hmat_free(NULL)", NULL);
  } else if ((gi = pick_grid()) >= 0) {
    say("hgrid_free %s with %d matrices", gname(gi), mats_on(gi));
    vlog();
    grid_release(gi);
  }
}

static void op_free_all(void) {
  say("free everything");
  vlog();
  free_all();
}

/* A new matrix, filled or scattered, checked against the generator by a gather. */
static void op_mat(void) {
  int gi = pick_grid();
  if (gi < 0) return;
  int64_t m = draw_n(), n = draw_n();
  int mb = draw_block(), nb = rint_(3) == 0 ? mb : draw_block();
  say("hmat_create %lldx%lld blocks %dx%d on %s", (long long)m, (long long)n, mb, nb, gname(gi));
  vlog();
  int mi = mat_make(gi, m, n, mb, nb);
  if (mi < 0) return;
  say(" -> %dx%d", mats[mi].mb, mats[mi].nb);
  fillctx f = fresh();
  if (rint_(2)) {
    say(" fill");
    mat_fill(mi, &f);
  } else {
    say(" scatter");
    double *G = NULL;
    if (me == 0) {
      G = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof *G);
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) G[i + j * ld1(m)] = gen(f.seed, i, j);
    }
    int rc = hmat_scatter(mats[mi].A, grids[gi].root0, G, ld1(m));
    free(G);
    if (!expect(rc, HLA_OK, "hmat_scatter", grids[gi].g)) return;
  }
  double *G;
  if (!gather0(mi, &G)) return;
  int ok = 1;
  for (int64_t j = 0; me == 0 && j < n; j++)
    for (int64_t i = 0; i < m; i++) ok &= G[i + j * ld1(m)] == gen(f.seed, i, j);
  if (!ok) failed("gathered matrix differs from what was filled");
  free(G);
}

/* An operand of the multiply: an existing matrix on gi with rows m and columns n (< 0: any) at
 * times, else a new one of m x n (a wildcard drawn) in random blocks. */
static int operand(int gi, int64_t m, int64_t n, int ex) {
  int mi = rint_(2) ? find_mat(gi, m, n, ex) : -1;
  if (mi >= 0) {
    pinned[mi] = 1;
    return mi;
  }
  int mb = draw_block(), nb = rint_(4) == 0 ? mb : draw_block();
  return mat_make(gi, m >= 0 ? m : draw_n(), n >= 0 ? n : draw_n(), mb, nb);
}

static void op_matmul(void) {
  int gi = pick_grid();
  if (gi < 0) return;
  char ta = "NT"[rint_(2)], tb = "NT"[rint_(2)];
  int ci = operand(gi, -1, -1, -1);
  if (ci < 0) return;
  int64_t m = mats[ci].m, n = mats[ci].n;
  int ai = ta == 'N' ? operand(gi, m, -1, ci) : operand(gi, -1, m, ci);
  if (ai < 0) return;
  int64_t k = ta == 'N' ? mats[ai].n : mats[ai].m;
  int bi = rint_(8) == 0 && (tb == 'N' ? mats[ai].m == k && mats[ai].n == n
                                       : mats[ai].m == n && mats[ai].n == k)
               ? ai /* B = A */
           : tb == 'N' ? operand(gi, k, n, ci)
                       : operand(gi, n, k, ci);
  if (bi < 0) return;
  double alpha = rint_(8) == 0 ? 0.0 : rint_(3) == 0 ? 1.0 : 4 * runif() - 2;
  int rb = rint_(4);
  double beta = rb == 0 ? 0.0 : rb == 1 ? 1.0 : 4 * runif() - 2;
  int nan_c = beta == 0.0 && rint_(2);
  say("hmatmul %c%c m=%lld n=%lld k=%lld alpha=%.3g beta=%.3g%s A %s B %s C %s", ta, tb,
      (long long)m, (long long)n, (long long)k, alpha, beta, nan_c ? " (C NaN)" : "", mname(ai),
      mname(bi), mname(ci));
  fillctx fa = fresh(), fb = fresh(), fc = fresh();
  mat_fill(ai, &fa);
  if (bi != ai) mat_fill(bi, &fb);
  if (nan_c)
    expect(hmat_set(mats[ci].A, NAN, NAN), HLA_OK, "hmat_set", grids[gi].g);
  else
    mat_fill(ci, &fc);
  hla_opts o;
  hla_report rep;
  const hla_opts *op = mm_opts(&o, &rep, grids[gi].M, grids[gi].N);
  double *A, *B, *C0, *C;
  if (!gather0(ai, &A)) return;
  if (!gather0(bi, &B) || !gather0(ci, &C0)) {
    free(A), free(B);
    return;
  }
  vlog();
  int rc = hmatmul(ta, tb, alpha, mats[ai].A, mats[bi].A, beta, mats[ci].A, op);
  int ok = expect(rc, HLA_OK, "hmatmul", grids[gi].g);
  if (gather0(ci, &C) && me == 0) {
    if (!ok) {
      if (!same(C, C0, m, n)) failed("C changed by a failed hmatmul");
    } else {
      double *R = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof *R);
      if (beta == 0.0)
        memset(R, 0, (size_t)(m * n) * sizeof *R);
      else
        memcpy(R, C0, (size_t)(m * n) * sizeof *R);
      int64_t am = ta == 'N' ? m : k, bm = tb == 'N' ? k : n;
      if (m > 0 && n > 0)
        cblas_dgemm(CblasColMajor, ta == 'N' ? CblasNoTrans : CblasTrans,
                    tb == 'N' ? CblasNoTrans : CblasTrans, (int)m, (int)n, (int)k, alpha, A,
                    ld1(am), B, ld1(bm), beta, R, ld1(m));
      double err = 0;
      for (int64_t i = 0; i < m * n; i++) {
        double d = fabs(C[i] - R[i]);
        if (isnan(d) || d > err) err = d; /* NaN stays */
      }
      double na = maxabs(A, m * k), nb = maxabs(B, k * n), nc = beta != 0 ? maxabs(C0, m * n) : 0;
      double den =
          (fabs(alpha) * na * nb * (double)(k > 1 ? k : 1) + fabs(beta) * nc) * DBL_EPSILON;
      double q = den > 0 ? err / den : err == 0 ? 0.0 : INFINITY;
      if (isnan(err)) q = NAN;
      if (!(q <= BAR_MM))
        failed("||C - C_ref||_max = %.3g, scaled error %.3g > %g", err, q, BAR_MM);
      free(R);
    }
  }
  free(A), free(B), free(C0), free(C);
}

/* A square matrix in square blocks (mb = nb, or automatic: one or both 0) on gi, reused at times.
 */
static int lu_matrix(int gi) {
  int c[MAXM], k = 0;
  for (int i = 0; i < MAXM; i++)
    if (mats[i].A && mats[i].gi == gi && mats[i].m == mats[i].n && mats[i].mb == mats[i].nb)
      c[k++] = i;
  if (k && rint_(3) == 0) {
    int mi = c[rint_(k)];
    pinned[mi] = 1;
    return mi;
  }
  int b = draw_block(), mode = rint_(4), n = (int)draw_n();
  return mat_make(gi, n, n, mode == 1 ? 0 : b, mode == 2 ? 0 : mode == 3 ? 0 : b);
}

/* Right-hand sides n x nrhs with row block mb on gi, reused at times. */
static int rhs_matrix(int gi, int64_t n, int mb, int ex) {
  int nrhs = rint_(16) == 0 ? 0 : 1 + rint_(5);
  int c[MAXM], k = 0;
  for (int i = 0; i < MAXM; i++)
    if (mats[i].A && i != ex && mats[i].gi == gi && mats[i].m == n && mats[i].mb == mb &&
        mats[i].n <= 5)
      c[k++] = i;
  if (k && rint_(3) == 0) {
    int mi = c[rint_(k)];
    pinned[mi] = 1;
    return mi;
  }
  return mat_make(gi, n, nrhs, mb, rint_(3) == 0 ? 0 : 1 + rint_(40));
}

/* Solution X against the gathered A0, B0 (rank 0). */
static void check_solution(int xi, const double *A0, const double *B0) {
  double *X;
  if (!gather0(xi, &X)) return;
  if (me == 0) {
    double q = hpl_resid(mats[xi].m, mats[xi].n, A0, X, B0);
    if (!(q < BAR_HPL)) failed("HPL scaled residual %.3g >= %g", q, BAR_HPL);
  }
  free(X);
}

/* HLA_ERR_SINGULAR against LAPACK dgetrf on the same A0 (rank 0): info (-2: not known) is its
 * info - 1, and the zero column's index where A has one. */
static void check_singular(int rc, int64_t info, int64_t zero_col, int64_t n, const double *A0) {
  int64_t li = me == 0 ? lapack_info(n, A0) : 0;
  MPI_Bcast(&li, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (rc != HLA_ERR_SINGULAR) return;
  if (li == 0)
    failed("HLA_ERR_SINGULAR (info %lld), LAPACK dgetrf found no zero pivot", (long long)info);
  else if (info != -2 && li != info + 1)
    failed("first zero pivot %lld, LAPACK dgetrf info %lld", (long long)info, (long long)li);
  if (zero_col >= 0 && info != zero_col)
    failed("zero column %lld, first zero pivot reported %lld", (long long)zero_col,
           (long long)info);
}

/* hla_gesv (gesv = 1) or hlu_factor and one or two hlu_solve. */
static void op_solve(int gesv) {
  int gi = pick_grid();
  if (gi < 0) return;
  int ai = lu_matrix(gi);
  if (ai < 0) return;
  int64_t n = mats[ai].n;
  int bi = rhs_matrix(gi, n, mats[ai].mb, ai);
  if (bi < 0) return;
  fillctx fa = fresh(), fb = fresh();
  if (n > 0 && rint_(16) == 0) fa.zero_col = rint_((int)n);
  say("%s n=%lld A %s B %s%s", gesv ? "hla_gesv" : "hlu_factor+hlu_solve", (long long)n, mname(ai),
      mname(bi), fa.zero_col >= 0 ? " zero column" : "");
  if (fa.zero_col >= 0) say(" %lld", (long long)fa.zero_col);
  mat_fill(ai, &fa);
  mat_fill(bi, &fb);
  hla_opts o;
  hla_report rep;
  int64_t info = -2;
  const hla_opts *op = lu_opts(&o, &rep, &info, fa.zero_col >= 0, grids[gi].M, grids[gi].N);
  int64_t *ipiv = n > 0 || rint_(2) ? malloc((size_t)(n > 0 ? n : 1) * sizeof *ipiv) : NULL;
  double *A0, *B0 = NULL;
  if (!gather0(ai, &A0) || !gather0(bi, &B0)) {
    free(A0), free(ipiv);
    return;
  }
  vlog();
  int rc = gesv ? hla_gesv(mats[ai].A, ipiv, mats[bi].A, op) : hlu_factor(mats[ai].A, ipiv, op);
  const char *fn = gesv ? "hla_gesv" : "hlu_factor";
  rc = agreed(rc);
  if (fa.zero_col >= 0 || rc == HLA_ERR_SINGULAR) {
    if (fa.zero_col >= 0 && !expect(rc, HLA_ERR_SINGULAR, fn, grids[gi].g)) {
      /* counted */
    } else {
      check_singular(rc, op == &o && o.info_out ? info : -2, fa.zero_col, n, A0);
      check_ipiv(ipiv, n);
      double *B1;
      if (gesv && gather0(bi, &B1) && !same(B0, B1, n, mats[bi].n))
        failed("B changed by a singular hla_gesv");
      if (gesv) free(B1);
    }
  } else if (expect(rc, HLA_OK, fn, grids[gi].g)) {
    check_ipiv(ipiv, n);
    if (o.info_out && op == &o && info != -1)
      failed("info_out %lld for a regular A", (long long)info);
    if (gesv) {
      check_solution(bi, A0, B0);
    } else {
      for (int s = 0, ns = 1 + rint_(2); s < ns; s++) {
        int xi = s == 0 ? bi : rhs_matrix(gi, n, mats[ai].mb, ai);
        if (xi < 0) break;
        if (s > 0) {
          fillctx fx = fresh();
          mat_fill(xi, &fx);
          free(B0);
          say(" then B %s", mname(xi));
          if (!gather0(xi, &B0)) break;
        }
        say(" solve");
        hla_opts so;
        hla_report srep;
        int64_t sinfo;
        const hla_opts *sop = lu_opts(&so, &srep, &sinfo, 0, grids[gi].M, grids[gi].N);
        vlog();
        if (expect(hlu_solve(mats[ai].A, ipiv, mats[xi].A, sop), HLA_OK, "hlu_solve", grids[gi].g))
          check_solution(xi, A0, B0);
      }
    }
  }
  free(A0), free(B0), free(ipiv);
}

static void op_redist(void) {
  int si = find_mat(-1, -1, -1, -1);
  if (si < 0) {
    int gi = pick_grid();
    if (gi < 0) return;
    si = mat_make(gi, draw_n(), draw_n(), draw_block(), draw_block());
    if (si < 0) return;
  }
  pinned[si] = 1;
  if (rint_(2)) {
    fillctx f = fresh();
    mat_fill(si, &f);
  }
  int r = rint_(20), di = -1;
  if (r == 0)
    di = si;
  else if (r < 7)
    di = find_mat(-1, mats[si].m, mats[si].n, si);
  if (di < 0) {
    int gi = rint_(4) == 0 ? grid_random() : pick_grid();
    if (gi < 0) return;
    int mb = draw_block(), nb = rint_(3) == 0 ? mb : draw_block();
    di = mat_make(gi, mats[si].m, mats[si].n, mb, nb);
    if (di < 0) return;
  }
  pinned[di] = 1;
  say("hmat_redistribute %s -> %s", mname(si), mname(di));
  double *S0, *S1, *D;
  if (!gather0(si, &S0)) return;
  vlog();
  int rc = hmat_redistribute(mats[si].A, mats[di].A);
  if (expect(rc, HLA_OK, "hmat_redistribute", grids[mats[si].gi].g) && gather0(di, &D)) {
    if (!same(S0, D, mats[si].m, mats[si].n)) failed("destination differs from the source");
    free(D);
    if (gather0(si, &S1) && !same(S0, S1, mats[si].m, mats[si].n)) failed("source changed");
    free(S1);
  }
  free(S0);
}

static void op_scatter(void) {
  int mi = find_mat(-1, -1, -1, -1);
  if (mi < 0 || rint_(4) == 0) {
    int gi = pick_grid();
    if (gi < 0) return;
    mi = mat_make(gi, draw_n(), draw_n(), draw_block(), draw_block());
    if (mi < 0) return;
  }
  pinned[mi] = 1;
  smat *x = &mats[mi];
  hgrid g = grids[x->gi].g;
  hbsp_env gall;
  hgrid_env(g, HGRID_ALL, &gall);
  int rs = rint_(P), rg = rint_(P), mine = hbsp_rank(gall);
  int64_t m = x->m, n = x->n, ls = ld1(m) + rint_(3), lg = ld1(m) + rint_(3);
  uint64_t seed = rnd();
  say("hmat_scatter root %d ld %lld, hmat_gather root %d ld %lld, %s", rs, (long long)ls, rg,
      (long long)lg, mname(mi));
  double *G = NULL;
  if (mine == rs) { /* padding as NaN: the scatter must not read it */
    G = malloc((size_t)(ls * (n > 0 ? n : 1)) * sizeof *G);
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < ls; i++) G[i + j * ls] = i < m ? gen(seed, i, j) : NAN;
  }
  vlog();
  int rc = hmat_scatter(x->A, rs, G, ls);
  free(G);
  if (!expect(rc, HLA_OK, "hmat_scatter", g)) return;
  double *d;
  int64_t lld, ml, nl;
  hmat_local(x->A, &d, &lld, &ml, &nl);
  int ok = 1;
  for (int64_t j = 0; j < nl; j++)
    for (int64_t i = 0; i < ml; i++)
      ok &= d[i + j * lld] == gen(seed, hmat_l2g_row(x->A, i), hmat_l2g_col(x->A, j));
  if (!all(ok)) failed("a local part differs from the scattered matrix");
  double *H = NULL;
  if (mine == rg) {
    H = malloc((size_t)(lg * (n > 0 ? n : 1)) * sizeof *H);
    for (int64_t i = 0; i < lg * (n > 0 ? n : 1); i++) H[i] = SENTINEL;
  }
  rc = hmat_gather(x->A, rg, H, lg);
  ok = 1;
  if (expect(rc, HLA_OK, "hmat_gather", g) && mine == rg) {
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < lg; i++) ok &= H[i + j * lg] == (i < m ? gen(seed, i, j) : SENTINEL);
    for (int64_t i = n * lg; i < lg * (n > 0 ? n : 1); i++) ok &= H[i] == SENTINEL;
  }
  if (!all(ok)) failed("gathered matrix differs, or padding written");
  free(H);
}

/* Calls that must fail with a given code and change nothing. */
static void op_misuse(void) {
  int gi = pick_grid();
  if (gi < 0) return;
  hgrid g = grids[gi].g;
  int M = grids[gi].M, N = grids[gi].N, kind = rint_(12);
  int64_t n = 1 + draw_n();
  switch (kind) {
  case 0: { /* hgrid_free of a grid with a matrix */
    int mi = find_mat(gi, -1, -1, -1);
    if (mi < 0 && (mi = mat_make(gi, draw_n(), draw_n(), 0, 0)) < 0) return;
    say("misuse: hgrid_free of %s while %s lives", gname(gi), mname(mi));
    vlog();
    if (expect(hgrid_free(&grids[gi].g), HLA_ERR_STATE, "hgrid_free", g) && !all(grids[gi].g == g))
      failed("the failed hgrid_free changed the handle");
    if (!all(grids[gi].g != NULL)) { /* freed after all: forget its matrices (leaked) */
      for (int i = 0; i < MAXM; i++)
        if (mats[i].gi == gi) mats[i].A = NULL;
      if (grids[gi].twin) hbsp_free(&grids[gi].twin);
      memset(&grids[gi], 0, sizeof grids[gi]);
    }
    break;
  }
  case 1:   /* an operand on another grid */
  case 2:   /* sizes that do not conform */
  case 3:   /* bad trans */
  case 4:   /* C == A */
  case 5: { /* bad options */
    int64_t m = draw_n(), k = draw_n(), nn = draw_n();
    int ci = mat_make(gi, m, nn, draw_block(), draw_block()), ho = gi; /* pinned: gi stays */
    if (ci >= 0 && kind == 1) {
      for (int t = 0; t < 8 && ho == gi; t++) ho = pick_grid();
      if (ho == gi) ho = grid_random();
      if (ho < 0 || ho == gi) return;
    }
    int ai = ci < 0 ? -1 : mat_make(kind == 1 ? ho : gi, m, k, draw_block(), draw_block());
    int bi = ai < 0 ? -1 : mat_make(gi, kind == 2 ? k + 1 : k, nn, draw_block(), draw_block());
    if (bi < 0) return;
    fillctx f = fresh();
    mat_fill(ci, &f);
    hla_opts o = HLA_OPTS_INIT;
    char ta = kind == 3 ? 'X' : 'N';
    int want = kind == 1 ? HLA_ERR_DIST : kind == 2 ? HLA_ERR_DIM : HLA_ERR_ARG;
    if (kind == 5) {
      if (rint_(2))
        o.mm_alg = HLA_MM_HSUMMA, o.groups_row = M + 1;
      else if (rint_(2))
        o.mm_alg = HLA_MM_3D, o.replication = (M > N ? M : N) + 1;
      else
        o.inner_block = 4, o.outer_block = 6;
    }
    say("misuse: hmatmul %s, A %s B %s C %s",
        (const char *[]){"", "A on another grid", "k does not conform", "trans 'X'", "C == A",
                         "bad options"}[kind],
        mname(ai), mname(bi), mname(ci));
    double *C0, *C1;
    if (!gather0(ci, &C0)) return;
    vlog();
    int rc =
        hmatmul(ta, 'N', 1.0, kind == 4 ? mats[ci].A : mats[ai].A, mats[bi].A, 0.0, mats[ci].A, &o);
    expect(rc, want, "hmatmul", g);
    if (gather0(ci, &C1) && !same(C0, C1, m, nn)) failed("C changed by a failed hmatmul");
    free(C0), free(C1);
    break;
  }
  case 6:   /* LU of mb != nb (a rectangular A is factored: not a misuse) */
  case 7: { /* hla_gesv with Inf or NaN in A */
    int b = 1 + rint_(40);
    int ai = mat_make(gi, n, n, b, kind == 7 ? b : b + 1);
    int bi = ai < 0 ? -1 : mat_make(gi, n, 1 + rint_(3), b, b);
    if (bi < 0) return;
    fillctx fa = fresh(), fb = fresh();
    if (kind == 7) {
      fa.bad_i = rint_((int)n), fa.bad_j = rint_((int)n), fa.bad = rint_(2) ? NAN : -INFINITY;
    }
    mat_fill(ai, &fa);
    mat_fill(bi, &fb);
    say("misuse: %s A %s B %s", kind == 7 ? "hla_gesv, a non-finite entry" : "hlu_factor, mb != nb",
        mname(ai), mname(bi));
    double *A0, *A1, *B0 = NULL, *B1;
    int64_t *ipiv = malloc((size_t)n * sizeof *ipiv);
    if (!gather0(ai, &A0) || !gather0(bi, &B0)) {
      free(A0), free(ipiv);
      return;
    }
    vlog();
    int rc = kind == 7 ? hla_gesv(mats[ai].A, ipiv, mats[bi].A, NULL)
                       : hlu_factor(mats[ai].A, ipiv, NULL);
    expect(rc, kind == 7 ? HLA_ERR_NONFINITE : HLA_ERR_DIST, kind == 7 ? "hla_gesv" : "hlu_factor",
           g);
    if (gather0(ai, &A1) && !same(A0, A1, mats[ai].m, mats[ai].n)) failed("A changed");
    if (gather0(bi, &B1) && !same(B0, B1, mats[bi].m, mats[bi].n)) failed("B changed");
    free(A0), free(A1), free(B0), free(B1), free(ipiv);
    break;
  }
  case 8: { /* hlu_solve: B's row block differs, or a bad ipiv */
    int b = 1 + rint_(40), badblock = rint_(2);
    int ai = mat_make(gi, n, n, b, b);
    int bi = ai < 0 ? -1 : mat_make(gi, n, 1 + rint_(3), badblock ? b + 1 : b, b);
    if (bi < 0) return;
    fillctx fa = fresh(), fb = fresh();
    mat_fill(ai, &fa);
    mat_fill(bi, &fb);
    int64_t *ipiv = malloc((size_t)n * sizeof *ipiv);
    for (int64_t i = 0; i < n; i++) ipiv[i] = i;
    if (!badblock) ipiv[rint_((int)n)] = rint_(2) ? -1 : n;
    say("misuse: hlu_solve, %s, LU %s B %s", badblock ? "B's row block differs" : "bad ipiv",
        mname(ai), mname(bi));
    double *B0, *B1;
    if (!gather0(bi, &B0)) {
      free(ipiv);
      return;
    }
    vlog();
    expect(hlu_solve(mats[ai].A, ipiv, mats[bi].A, NULL), badblock ? HLA_ERR_DIST : HLA_ERR_ARG,
           "hlu_solve", g);
    if (gather0(bi, &B1) && !same(B0, B1, mats[bi].m, mats[bi].n)) failed("B changed");
    free(B0), free(B1), free(ipiv);
    break;
  }
  case 9: { /* hmat_redistribute between different sizes */
    int si = mat_make(gi, n, n, draw_block(), draw_block());
    int di = si < 0 ? -1 : mat_make(pick_grid(), n, n + 1, draw_block(), draw_block());
    if (di < 0) return;
    fillctx f = fresh();
    mat_fill(di, &f);
    say("misuse: hmat_redistribute %s -> %s", mname(si), mname(di));
    double *D0, *D1;
    if (!gather0(di, &D0)) return;
    vlog();
    expect(hmat_redistribute(mats[si].A, mats[di].A), HLA_ERR_DIM, "hmat_redistribute", g);
    if (gather0(di, &D1) && !same(D0, D1, mats[di].m, mats[di].n)) failed("dst changed");
    free(D0), free(D1);
    break;
  }
  case 10: { /* a shape that is not P */
    hgrid bad = NULL;
    say("misuse: hgrid_create %dx1 on %d ranks", P + 1, P);
    vlog();
    expect(hgrid_create(world, P + 1, 1, &bad), HLA_ERR_ARG, "hgrid_create", NULL);
    if (!all(bad == NULL)) failed("a failed hgrid_create wrote the handle");
    break;
  }
  default: { /* a negative size */
    hmat bad = NULL;
    say("misuse: hmat_create -1 x %lld on %s", (long long)n, gname(gi));
    vlog();
    expect(hmat_create(g, -1, n, 0, 0, &bad), HLA_ERR_ARG, "hmat_create", g);
    if (!all(bad == NULL)) failed("a failed hmat_create left a matrix");
  }
  }
}

/* ---------------------------------------------------------------- main */

static const struct {
  const char *name;
  int weight;
} OPS[] = {{"grid", 5},    {"mat", 8},     {"free", 8},     {"matmul", 22}, {"gesv", 11},
           {"factor", 11}, {"redist", 14}, {"scatter", 10}, {"misuse", 6},  {"free_all", 1}};
enum { NOPS = sizeof OPS / sizeof OPS[0] };

static void run_op(int k) {
  switch (k) {
  case 0:
    op_grid();
    break;
  case 1:
    op_mat();
    break;
  case 2:
    op_free();
    break;
  case 3:
    op_matmul();
    break;
  case 4:
    op_solve(1);
    break;
  case 5:
    op_solve(0);
    break;
  case 6:
    op_redist();
    break;
  case 7:
    op_scatter();
    break;
  case 8:
    op_misuse();
    break;
  default:
    op_free_all();
  }
}

/* kind is in the comma-separated list (NULL: every kind). */
static int wanted(const char *list, const char *kind) {
  size_t k = strlen(kind);
  for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (!strncmp(p, kind, k) && (p[k] == 0 || p[k] == ',')) return 1;
  return list == NULL;
}

/* VmRSS in MiB, max over ranks, after glibc returned what it keeps free. */
static double rss_mib(void) {
#ifndef HLA_SMPI
  malloc_trim(0);
#endif
  long kb = 0;
  char line[256];
  FILE *f = fopen("/proc/self/status", "r");
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
  if (f) fclose(f);
  double mine = kb / 1024.0, mx;
  MPI_Allreduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return mx;
}

int main(int argc, char **argv) {
  int provided, calls = 1000;
  const char *only = NULL;
  uint64_t seed = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int ok = 1;
    if (!strcmp(a, "--verbose"))
      verbose = 1;
    else if (!v)
      ok = 0;
    else if (!strcmp(a, "--calls"))
      ok = (calls = atoi(v)) >= 0, i++;
    else if (!strcmp(a, "--seed"))
      seed = strtoull(v, NULL, 0), i++;
    else if (!strcmp(a, "--max-n"))
      ok = (max_n = atoi(v)) >= 1, i++;
    else if (!strcmp(a, "--only"))
      only = v, i++;
    else
      ok = 0;
    if (!ok) {
      if (me == 0)
        fprintf(stderr,
                "usage: soak [--calls N] [--seed S] [--max-n N] [--only KINDS] [--verbose]\n"
                "  KINDS: comma-separated of grid,mat,free,matmul,gesv,factor,redist,"
                "scatter,misuse,free_all\n");
      MPI_Finalize();
      return 2;
    }
  }
  rng = seed;
  if (me == 0) { /* the checks' own BLAS and LAPACK code paths: their pages are no growth */
    int64_t n = max_n;
    double *a = calloc((size_t)(n * n), sizeof *a), *c = calloc((size_t)(n * n), sizeof *c);
    for (int64_t i = 0; i < n * n; i++) a[i] = gen(seed, i, 0);
    for (int t = 0; t < 4; t++)
      cblas_dgemm(CblasColMajor, t & 1 ? CblasTrans : CblasNoTrans,
                  t & 2 ? CblasTrans : CblasNoTrans, (int)n, (int)n, (int)n, 1.0, a, (int)n, a,
                  (int)n, 1.0, c, (int)n);
    lapack_info(n, a);
    free(a), free(c);
  }
  if (hbsp_init(MPI_COMM_WORLD, &world) != HLA_OK) {
    if (me == 0) fprintf(stderr, "soak: hbsp_init failed\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (me == 0)
    printf("# soak: %d ranks, %d calls, seed %llu, max n %d\n", P, calls, (unsigned long long)seed,
           max_n);
  fflush(stdout);
  int total = 0, count[NOPS] = {0};
  int wt[NOPS];
  for (int k = 0; k < NOPS; k++) wt[k] = wanted(only, OPS[k].name) ? OPS[k].weight : 0;
  for (int k = 0; k < NOPS; k++) total += wt[k];
  if (total == 0) {
    if (me == 0) fprintf(stderr, "soak: --only %s names no kind\n", only);
    MPI_Finalize();
    return 2;
  }
  double t0 = MPI_Wtime(), rss0 = 0, rss1;
  for (ncall = 1; ncall <= calls; ncall++) {
    int r = rint_(total), k = 0;
    while (r >= wt[k]) r -= wt[k++];
    count[k]++;
    what[0] = 0;
    memset(pinned, 0, sizeof pinned);
    run_op(k);
    if (ncall == (calls < WARMUP ? calls : WARMUP)) {
      free_all();
      rss0 = rss_mib();
    }
    if (ncall % 100 == 0 && me == 0) {
      printf("# call %d: %.1f s, %ld errors, %ld failed checks\n", ncall, MPI_Wtime() - t0, nerr,
             nfail);
      fflush(stdout);
    }
  }
  ncall = calls;
  snprintf(what, sizeof what, "the end");
  free_all();
  rss1 = calls ? rss_mib() : (rss0 = rss_mib());
  double growth = rss0 > 0 ? (rss1 - rss0) / rss0 * 100 : 0;
  int code = 0;
  if (me == 0) {
    printf("# %.1f s; calls by kind:", MPI_Wtime() - t0);
    for (int k = 0; k < NOPS; k++) printf(" %s %d", OPS[k].name, count[k]);
    printf("\nsoak: %d calls, %ld errors, %ld failed checks, RSS start %.1f MiB end %.1f MiB "
           "(growth %.1f %%)\n",
           calls, nerr, nfail, rss0, rss1, growth);
    fflush(stdout);
    code = nerr + nfail > 0 || growth > 10.0;
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  hbsp_free(&world);
  MPI_Finalize();
  return code;
}
