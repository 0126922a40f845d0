/* Tests of single-precision matrices (HLA_FLOAT): hmat_create_typed and the element type, local
 * access, fill / set / scatter / gather / norms (values rounded to float), hmat_convert both ways,
 * redistribution between float layouts, hmatmul in float against a double reference of the
 * gathered operands, hlu_factor in float against LAPACK's sgetrf (exactly on the exact generator's
 * matrices, by the backward error on random ones), singular and non-finite input, hlu_solve in
 * float; mixed element types refused on every rank with nothing touched.
 * @procs 1 2 3 4 6
 */
#include "test_lu_util.h"

/* ---------------------------------------------------------------- helpers */

/* x rounded to float, as a double. */
static double rf(double x) {
  return (double)(float)x;
}

/* A float m x n matrix on g with mb x nb blocks, filled with f unless f is NULL. Collective. */
static hmat fmat(hgrid g, int64_t m, int64_t n, int mb, int nb, ht_entry_fn f, void *ctx) {
  hmat A = NULL;
  CU_ASSERT_EQUAL(hmat_create_typed(g, m, n, mb, nb, HLA_FLOAT, &A), HLA_OK);
  if (A != NULL && f != NULL) CU_ASSERT_EQUAL(hmat_fill(A, f, ctx), HLA_OK);
  return A;
}

/* 1 iff every local entry of the float matrix A is f(i, j, ctx) rounded to float (NaN matches
 * NaN). Local. */
static int flocal_is(hmat A, ht_entry_fn f, void *ctx) {
  float *a;
  int64_t lld, ml, nl;
  if (hmat_local_float(A, &a, &lld, &ml, &nl) != HLA_OK) return 0;
  int ok = 1;
  for (int64_t j = 0; j < nl; j++)
    for (int64_t i = 0; i < ml; i++) {
      float want = (float)f(hmat_l2g_row(A, i), hmat_l2g_col(A, j), ctx), got = a[i + j * lld];
      ok &= got == want || (isnan(got) && isnan(want));
    }
  return ok;
}

/* Set entry (i, j) of the float matrix A to v on its owner. Local. */
static void fset(hmat A, int64_t i, int64_t j, float v) {
  int pr, pc, myr, myc;
  hmat_owner(A, i, j, &pr, &pc);
  hgrid_shape(hmat_grid(A), NULL, NULL, &myr, &myc);
  float *a;
  int64_t lld;
  if (pr == myr && pc == myc && hmat_local_float(A, &a, &lld, NULL, NULL) == HLA_OK)
    a[hmat_g2l_row(A, i) + hmat_g2l_col(A, j) * lld] = v;
}

/* The random entry of seed rounded to float (an entry function). */
static double rounded_entry(int64_t i, int64_t j, void *seed) {
  return rf(ht_entry(i, j, seed));
}

static double nan_entry(int64_t i, int64_t j, void *ctx) {
  return NAN;
}

/* The communicator of t's grid (its ALL environment). */
static MPI_Comm grid_comm(const tgrid *t) {
  hbsp_env all;
  hgrid_env(t->g, HGRID_ALL, &all);
  return hbsp_comm(all);
}

/* ---------------------------------------------------------------- types and local access */

/* hmat_create_typed's arguments, hmat_elem, hmat_local / hmat_local_float on both types, the
 * position of local entries in the gathered matrix, hmat_dup keeping the type. */
static void typed_on(const tgrid *t, void *ctx) {
  const int P = t->M * t->N;
  hmat X = NULL;
  int rc = hmat_create_typed(t->g, 7, 5, 2, 3, (hla_elem)2, &X);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_ARG && X == NULL));
  CU_ASSERT(ht_same_text(hgrid_errmsg(t->g)));
  rc = hmat_create_typed(t->g, 7, 5, 2, 3, (hla_elem)-1, &X);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_ARG && X == NULL));
  rc = hmat_create_typed(t->g, -1, 5, 2, 3, HLA_FLOAT, &X);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_ARG && X == NULL));
  CU_ASSERT(
      ht_all(MPI_COMM_WORLD, hmat_create_typed(t->g, 7, 5, 2, 3, HLA_FLOAT, NULL) == HLA_ERR_ARG));
  if (P > 1) { /* the type differs between ranks */
    rc = hmat_create_typed(t->g, 7, 5, 2, 3, t->rank == 0 ? HLA_FLOAT : HLA_DOUBLE, &X);
    CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_ARG && X == NULL));
    CU_ASSERT(ht_same_text(hgrid_errmsg(t->g)));
  }

  hmat F = fmat(t->g, 7, 5, 2, 3, NULL, NULL), D = NULL, D2 = ht_mat(t->g, 7, 5, 2, 3, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_create_typed(t->g, 7, 5, 2, 3, HLA_DOUBLE, &D), HLA_OK);
  CU_ASSERT_EQUAL(hmat_elem(F), HLA_FLOAT);
  CU_ASSERT_EQUAL(hmat_elem(D), HLA_DOUBLE);
  CU_ASSERT_EQUAL(hmat_elem(D2), HLA_DOUBLE);
  CU_ASSERT_EQUAL(hmat_elem(NULL), HLA_DOUBLE);
  int64_t m = 0, n = 0;
  int mb = 0, nb = 0;
  hmat_size(F, &m, &n);
  hmat_blocks(F, &mb, &nb);
  CU_ASSERT(m == 7 && n == 5 && mb == 2 && nb == 3);

  /* local access: hmat_local is for double, hmat_local_float for float */
  int myr, myc;
  hgrid_shape(t->g, NULL, NULL, &myr, &myc);
  int64_t eml, enl, lld = -1, ml = -1, nl = -1;
  hmat_local_size(F, myr, myc, &eml, &enl);
  double *d = NULL;
  float *f = NULL;
  CU_ASSERT_EQUAL(hmat_local(F, &d, &lld, &ml, &nl), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_local_float(D, &f, &lld, &ml, &nl), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_local_float(D2, &f, &lld, &ml, &nl), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_local(D, &d, &lld, &ml, &nl), HLA_OK);
  CU_ASSERT_EQUAL(hmat_local_float(F, &f, &lld, &ml, &nl), HLA_OK);
  CU_ASSERT(ml == eml && nl == enl && lld == (eml > 1 ? eml : 1));
  CU_ASSERT(ml * nl == 0 || f != NULL);
  int zero = 1;
  for (int64_t j = 0; j < nl; j++)
    for (int64_t i = 0; i < ml; i++) zero &= f[i + j * lld] == 0.0f;
  CU_ASSERT(zero); /* created zero-filled */
  /* out-pointers may be NULL */
  CU_ASSERT_EQUAL(hmat_local_float(F, NULL, NULL, NULL, NULL), HLA_OK);

  /* entries written through hmat_local_float land at their global place */
  for (int64_t j = 0; j < nl; j++)
    for (int64_t i = 0; i < ml; i++)
      f[i + j * lld] = (float)(100 * hmat_l2g_row(F, i) + hmat_l2g_col(F, j)) + 0.25f;
  double *G = ht_gather(F);
  if (t->rank == 0) {
    int ok = 1;
    for (int64_t j = 0; j < 5; j++)
      for (int64_t i = 0; i < 7; i++) ok &= G[i + j * 7] == (double)(100 * i + j) + 0.25;
    CU_ASSERT(ok);
  }
  /* hmat_dup keeps the type and the entries */
  hmat C = NULL;
  CU_ASSERT_EQUAL(hmat_dup(F, &C), HLA_OK);
  CU_ASSERT_EQUAL(hmat_elem(C), HLA_FLOAT);
  double *Gc = ht_gather(C);
  if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(G, Gc, 35), 0);
  free(G), free(Gc);
  hmat_free(&C), hmat_free(&F), hmat_free(&D), hmat_free(&D2);
}

static void test_typed(void) {
  tgrid_each_world(typed_on, NULL);
}

/* ---------------------------------------------------------------- fill, set, norms */

typedef struct {
  int64_t m, n;
  int mb, nb;
} fshape;

static const fshape fshapes[] = {{13, 9, 3, 2},  {1, 1, 1, 1},  {0, 3, 2, 2},
                                 {20, 31, 8, 8}, {17, 4, 1, 3}, {5, 23, 3, 8}};
#define NFSHAPES (int)(sizeof fshapes / sizeof fshapes[0])

/* hmat_fill and hmat_set round to float; hmat_gather gives the rounded values; hmat_norm agrees
 * with LAPACK's dlange of the gathered (rounded) matrix; NaN propagates. */
static void fill_on(const tgrid *t, void *ctx) {
  static const char norms[] = {'M', '1', 'O', 'I', 'F', 'E'};
  for (int s = 0; s < NFSHAPES; s++) {
    const int64_t m = fshapes[s].m, n = fshapes[s].n;
    uint64_t seed = 40 + (uint64_t)s;
    hmat F = fmat(t->g, m, n, fshapes[s].mb, fshapes[s].nb, ht_entry, &seed);
    CU_ASSERT(flocal_is(F, ht_entry, &seed));
    double *G = ht_gather(F);
    double ref[6] = {0};
    if (t->rank == 0) {
      int ok = 1, inexact = 0;
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
          double x = ht_rand_entry(seed, i, j);
          ok &= G[i + j * m] == rf(x);
          inexact += rf(x) != x;
        }
      CU_ASSERT(ok);
      CU_ASSERT(m * n < 4 || inexact > 0); /* the test does see rounding */
      for (int k = 0; k < 6; k++)
        ref[k] = m * n == 0 ? 0.0
                            : LAPACKE_dlange(LAPACK_COL_MAJOR, norms[k], (lapack_int)m,
                                             (lapack_int)n, G, (lapack_int)(m > 1 ? m : 1));
    }
    MPI_Bcast(ref, 6, MPI_DOUBLE, 0, grid_comm(t));
    for (int k = 0; k < 6; k++) {
      double v = -1.0;
      CU_ASSERT_EQUAL(hmat_norm(F, norms[k], &v), HLA_OK);
      /* 'M' exactly; the sums within a float accumulation's error */
      double tol = k == 0 ? 0.0 : (double)(m * n + 2) * FLT_EPSILON * ref[k];
      CU_ASSERT(fabs(v - ref[k]) <= tol);
      if (!(fabs(v - ref[k]) <= tol))
        printf("float norm '%c' %g, dlange %g: %lld x %lld on %d x %d\n", norms[k], v, ref[k],
               (long long)m, (long long)n, t->M, t->N);
    }
    free(G);
    /* hmat_set: 0.1 and 1/3 rounded */
    CU_ASSERT_EQUAL(hmat_set(F, 0.1, 1.0 / 3.0), HLA_OK);
    float *a;
    int64_t lld, ml, nl;
    hmat_local_float(F, &a, &lld, &ml, &nl);
    int ok = 1;
    for (int64_t j = 0; j < nl; j++)
      for (int64_t i = 0; i < ml; i++)
        ok &= a[i + j * lld] ==
              (hmat_l2g_row(F, i) == hmat_l2g_col(F, j) ? (float)(1.0 / 3.0) : (float)0.1);
    CU_ASSERT(ok);
    /* NaN propagates through the norms */
    if (m > 0 && n > 0) {
      fset(F, m - 1, n / 2, NAN);
      double v = 0.0;
      CU_ASSERT_EQUAL(hmat_norm(F, 'M', &v), HLA_OK);
      CU_ASSERT(isnan(v));
      CU_ASSERT_EQUAL(hmat_norm(F, '1', &v), HLA_OK);
      CU_ASSERT(isnan(v));
    }
    hmat_free(&F);
  }
}

static void test_fill_set_norm(void) {
  tgrid_each(fill_on, NULL);
}

/* ---------------------------------------------------------------- scatter, gather */

/* A global double matrix scattered into float layouts comes back rounded; the gather writes only
 * the m x n entries of a larger leading dimension. */
static void scatter_on(const tgrid *t, void *ctx) {
  for (int s = 0; s < NFSHAPES; s++) {
    const int64_t m = fshapes[s].m, n = fshapes[s].n, ldg = m + 3;
    uint64_t seed = 60 + (uint64_t)s;
    double *G = calloc((size_t)(ldg * n + 1), sizeof *G), *H = calloc((size_t)(ldg * n + 1), 8);
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < ldg; i++) {
        G[i + j * ldg] = i < m ? ht_rand_entry(seed, i, j) : 99.0;
        H[i + j * ldg] = -7.0;
      }
    hmat F = fmat(t->g, m, n, fshapes[s].mb, fshapes[s].nb, NULL, NULL);
    CU_ASSERT_EQUAL(hmat_scatter(F, 0, G, ldg), HLA_OK);
    CU_ASSERT(flocal_is(F, ht_entry, &seed));
    CU_ASSERT_EQUAL(hmat_gather(F, 0, H, ldg), HLA_OK);
    if (t->rank == 0) {
      int ok = 1;
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < ldg; i++)
          ok &= H[i + j * ldg] == (i < m ? rf(G[i + j * ldg]) : -7.0);
      CU_ASSERT(ok);
    }
    /* from another root: the last rank of the grid */
    const int last = t->M * t->N - 1;
    hmat F2 = fmat(t->g, m, n, fshapes[s].mb, fshapes[s].nb, NULL, NULL);
    CU_ASSERT_EQUAL(hmat_scatter(F2, last, G, ldg), HLA_OK);
    CU_ASSERT(flocal_is(F2, ht_entry, &seed));
    free(G), free(H);
    hmat_free(&F), hmat_free(&F2);
  }
}

static void test_scatter_gather(void) {
  tgrid_each(scatter_on, NULL);
}

/* ---------------------------------------------------------------- hmat_convert */

/* Random entries, with some beyond float's range (every 7th: +-1e300, and 3.5e38) and FLT_MAX. */
static double big_entry(int64_t i, int64_t j, void *seed) {
  int64_t k = i + 3 * j;
  if (k % 7 == 3) return k % 2 ? 1e300 : -1e300;
  if (k % 11 == 5) return 3.5e38;
  if (k % 13 == 6) return -(double)FLT_MAX;
  return ht_entry(i, j, seed);
}

/* Where big_entry is beyond float's range: +-Inf (as hmat_convert says). */
static double big_as_float(int64_t i, int64_t j, void *seed) {
  double x = big_entry(i, j, seed);
  return fabs(x) > (double)FLT_MAX ? copysign(INFINITY, x) : rf(x);
}

static void convert_on(const tgrid *t, void *ctx) {
  const int64_t m = 19, n = 14;
  const int mb = 3, nb = 2;
  uint64_t seed = 71;
  hmat D = ht_mat(t->g, m, n, mb, nb, ht_entry, &seed), F = fmat(t->g, m, n, mb, nb, NULL, NULL);
  /* double -> float rounds to nearest, the source unchanged */
  CU_ASSERT_EQUAL(hmat_convert(D, F), HLA_OK);
  CU_ASSERT(flocal_is(F, ht_entry, &seed));
  CU_ASSERT(ht_local_is(D, ht_entry, &seed));
  /* float -> double is exact */
  hmat D2 = ht_mat(t->g, m, n, mb, nb, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_convert(F, D2), HLA_OK);
  CU_ASSERT(ht_local_is(D2, rounded_entry, &seed));
  /* and back to float: the same float values */
  hmat F2 = fmat(t->g, m, n, mb, nb, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_convert(D2, F2), HLA_OK);
  CU_ASSERT(flocal_is(F2, ht_entry, &seed));
  /* same type both sides: a copy; src == dst: nothing */
  uint64_t s2 = 72;
  hmat F3 = fmat(t->g, m, n, mb, nb, ht_entry, &s2), D3 = ht_mat(t->g, m, n, mb, nb, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_convert(F3, F2), HLA_OK);
  CU_ASSERT(flocal_is(F2, ht_entry, &s2));
  CU_ASSERT_EQUAL(hmat_convert(D, D3), HLA_OK);
  CU_ASSERT(ht_local_is(D3, ht_entry, &seed));
  CU_ASSERT_EQUAL(hmat_convert(F3, F3), HLA_OK);
  CU_ASSERT(flocal_is(F3, ht_entry, &s2));
  /* beyond float's range: +-Inf */
  hmat B = ht_mat(t->g, m, n, mb, nb, big_entry, &seed);
  CU_ASSERT_EQUAL(hmat_convert(B, F3), HLA_OK);
  CU_ASSERT(flocal_is(F3, big_as_float, &seed));

  /* errors: sizes (HLA_ERR_DIM), blocks (HLA_ERR_DIST), NULL (HLA_ERR_ARG); dst untouched */
  hmat Fr = fmat(t->g, m, n + 1, mb, nb, ht_entry, &s2), Fc = fmat(t->g, m + 2, n, mb, nb, NULL, 0);
  hmat Fb = fmat(t->g, m, n, nb, mb, ht_entry, &s2);
  CU_ASSERT_EQUAL(hmat_convert(D, Fr), HLA_ERR_DIM);
  CU_ASSERT(flocal_is(Fr, ht_entry, &s2));
  CU_ASSERT_EQUAL(hmat_convert(Fr, D), HLA_ERR_DIM);
  CU_ASSERT(ht_local_is(D, ht_entry, &seed));
  CU_ASSERT_EQUAL(hmat_convert(Fc, D), HLA_ERR_DIM);
  CU_ASSERT(ht_local_is(D, ht_entry, &seed));
  CU_ASSERT_EQUAL(hmat_convert(D, Fb), HLA_ERR_DIST);
  CU_ASSERT(flocal_is(Fb, ht_entry, &s2));
  CU_ASSERT_EQUAL(hmat_convert(NULL, F), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hmat_convert(D, NULL), HLA_ERR_ARG);
  CU_ASSERT(flocal_is(F, ht_entry, &seed));
  /* another grid (the transposed shape) over the same ranks */
  if (t->M != t->N) {
    hgrid g2;
    CU_ASSERT_EQUAL(hgrid_create(t->sub, t->N, t->M, &g2), HLA_OK);
    hmat Fo = fmat(g2, m, n, mb, nb, ht_entry, &s2);
    CU_ASSERT_EQUAL(hmat_convert(D, Fo), HLA_ERR_DIST);
    CU_ASSERT(flocal_is(Fo, ht_entry, &s2));
    hmat_free(&Fo);
    hgrid_free(&g2);
  }
  /* an empty matrix */
  hmat E1 = ht_mat(t->g, 0, 4, 2, 2, NULL, NULL), E2 = fmat(t->g, 0, 4, 2, 2, NULL, NULL);
  CU_ASSERT_EQUAL(hmat_convert(E1, E2), HLA_OK);
  CU_ASSERT_EQUAL(hmat_convert(E2, E1), HLA_OK);
  hmat_free(&E1), hmat_free(&E2);
  hmat_free(&D), hmat_free(&F), hmat_free(&D2), hmat_free(&F2), hmat_free(&F3), hmat_free(&D3);
  hmat_free(&B), hmat_free(&Fr), hmat_free(&Fc), hmat_free(&Fb);
}

static void test_convert(void) {
  tgrid_each(convert_on, NULL);
}

/* ---------------------------------------------------------------- redistribution */

/* Every pair of float layouts over the world's grids (every factorisation of P) with blocks 1, 3,
 * 8 and 3 x 8, ragged sizes: the entries arrive exactly, and back again. */
static void test_redistribute(void) {
  hbsp_env w = ht_world();
  int P = hbsp_size(w), shapes[TGRID_MAXSHAPES][2], ns = tgrid_factors(P, shapes);
  hgrid grids[TGRID_MAXSHAPES];
  for (int s = 0; s < ns; s++)
    CU_ASSERT_EQUAL(hgrid_create(w, shapes[s][0], shapes[s][1], &grids[s]), HLA_OK);
  static const int blocks[][2] = {{1, 1}, {3, 3}, {8, 8}, {3, 8}};
  static const int64_t sizes[][2] = {{17, 13}, {1, 1}, {0, 4}, {40, 23}, {9, 1}};
  int bad = 0;
  for (int z = 0; z < 5; z++) {
    const int64_t m = sizes[z][0], n = sizes[z][1];
    uint64_t seed = 80 + (uint64_t)z;
    for (int s = 0; s < ns * 4; s++) {
      hgrid gs = grids[s / 4];
      const int *bs = blocks[s % 4];
      hmat A = fmat(gs, m, n, bs[0], bs[1], ht_entry, &seed);
      hmat C = fmat(gs, m, n, bs[0], bs[1], NULL, NULL);
      for (int d = 0; d < ns * 4; d++) {
        if ((s + d) % 3 && z > 0) continue; /* all pairs on the first size, a third after */
        const int *bd = blocks[d % 4];
        hmat B = fmat(grids[d / 4], m, n, bd[0], bd[1], NULL, NULL);
        bad += hmat_redistribute(A, B) != HLA_OK;
        bad += !ht_all(MPI_COMM_WORLD, flocal_is(B, ht_entry, &seed));
        bad += hmat_redistribute(B, C) != HLA_OK;
        bad += !ht_all(MPI_COMM_WORLD, flocal_is(C, ht_entry, &seed));
        hmat_fill(C, nan_entry, NULL);
        hmat_free(&B);
      }
      hmat_free(&A), hmat_free(&C);
    }
  }
  CU_ASSERT_EQUAL(bad, 0);

  /* a part of a float matrix into another layout */
  uint64_t s1 = 91, s2 = 92;
  hmat A = fmat(grids[0], 17, 13, 3, 3, ht_entry, &s1);
  hmat B = fmat(grids[ns - 1], 11, 9, 8, 3, ht_entry, &s2);
  CU_ASSERT_EQUAL(hmat_redistribute_part(A, 2, 1, B, 4, 3, 5, 6), HLA_OK);
  double *G = ht_gather(B);
  if (ht_rank() == 0) {
    int ok = 1;
    for (int64_t j = 0; j < 9; j++)
      for (int64_t i = 0; i < 11; i++) {
        int in = i >= 4 && i < 9 && j >= 3 && j < 9;
        ok &= G[i + j * 11] ==
              rf(in ? ht_rand_entry(s1, i - 4 + 2, j - 3 + 1) : ht_rand_entry(s2, i, j));
      }
    CU_ASSERT(ok);
  }
  free(G);

  /* float <-> double: HLA_ERR_ARG on every rank, the same message, the destination untouched */
  hmat D = ht_mat(grids[ns - 1], 17, 13, 3, 3, ht_entry, &s2);
  hmat F = fmat(grids[ns - 1], 17, 13, 3, 3, ht_entry, &s2);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hmat_redistribute(A, D) == HLA_ERR_ARG));
  CU_ASSERT(ht_same_text(hgrid_errmsg(grids[0])));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, ht_local_is(D, ht_entry, &s2)));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hmat_redistribute(D, A) == HLA_ERR_ARG));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, flocal_is(A, ht_entry, &s1)));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hmat_redistribute_part(D, 0, 0, A, 0, 0, 2, 2) == HLA_ERR_ARG));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, flocal_is(A, ht_entry, &s1)));
  /* float sizes differ: HLA_ERR_DIM */
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hmat_redistribute(A, B) == HLA_ERR_DIM));
  /* the same float layout: a local copy */
  CU_ASSERT_EQUAL(hmat_redistribute(F, F), HLA_OK);
  CU_ASSERT(flocal_is(F, ht_entry, &s2));
  hmat_free(&A), hmat_free(&B), hmat_free(&D), hmat_free(&F);
  for (int s = 0; s < ns; s++) hgrid_free(&grids[s]);
  hbsp_free(&w);
}

/* ---------------------------------------------------------------- hmatmul */

typedef struct {
  char ta, tb;
  int64_t m, n, k;
  int amb, anb, bmb, bnb, cmb, cnb;
  double alpha, beta;
} mcase;

/* C := alpha op(A) op(B) + beta C in float on g, against the double product of the gathered
 * (float) operands: max |C - C_ref| <= 16 (|alpha| k |A| |B| + |beta| |C|) eps_float with max
 * norms; beta = 0 over NaN. Returns 1 on every rank of g iff the call succeeded within the bar. */
static int run_fcase(const tgrid *t, const mcase *c, const hla_opts *opts) {
  const int na = c->ta == 'N' || c->ta == 'n', nbt = c->tb == 'N' || c->tb == 'n';
  const int64_t ar = na ? c->m : c->k, ac = na ? c->k : c->m;
  const int64_t br = nbt ? c->k : c->n, bc = nbt ? c->n : c->k;
  uint64_t sa = 101, sb = 202, sc = 303;
  hmat A = fmat(t->g, ar, ac, c->amb, c->anb, ht_entry, &sa);
  hmat B = fmat(t->g, br, bc, c->bmb, c->bnb, ht_entry, &sb);
  hmat C = fmat(t->g, c->m, c->n, c->cmb, c->cnb, c->beta == 0.0 ? nan_entry : ht_entry, &sc);
  double *Ga = ht_gather(A), *Gb = ht_gather(B), *Gc = ht_gather(C);
  int e = hmatmul(c->ta, c->tb, c->alpha, A, B, c->beta, C, opts);
  double *Gr = ht_gather(C);
  int ok = e == HLA_OK && hmat_elem(C) == HLA_FLOAT;
  if (t->rank == 0 && ok) {
    double ma = 0, mb = 0, mc = 0, err = 0;
    for (int64_t i = 0; i < ar * ac; i++) ma = fmax(ma, fabs(Ga[i]));
    for (int64_t i = 0; i < br * bc; i++) mb = fmax(mb, fabs(Gb[i]));
    if (c->beta != 0.0)
      for (int64_t i = 0; i < c->m * c->n; i++) mc = fmax(mc, fabs(Gc[i]));
    for (int64_t j = 0; j < c->n; j++)
      for (int64_t i = 0; i < c->m; i++) {
        double s = 0.0;
        for (int64_t l = 0; l < c->k; l++) {
          double a = na ? Ga[i + l * ar] : Ga[l + i * ar];
          double b = nbt ? Gb[l + j * br] : Gb[j + l * br];
          s += a * b;
        }
        double ref = c->alpha * s + (c->beta == 0.0 ? 0.0 : c->beta * Gc[i + j * c->m]);
        double d = fabs(Gr[i + j * c->m] - ref);
        if (!(d <= err)) err = d; /* NaN counts as a failure */
      }
    double den = (fabs(c->alpha) * (double)c->k * ma * mb + fabs(c->beta) * mc) * FLT_EPSILON;
    double ratio = err / (den > 0 ? den : DBL_MIN);
    if (!(ratio <= 16.0)) {
      ok = 0;
      printf("  FAIL float %c%c m %lld n %lld k %lld blocks A %dx%d B %dx%d C %dx%d alpha %g "
             "beta %g on %d x %d, mm_alg %d: ratio %g\n",
             c->ta, c->tb, (long long)c->m, (long long)c->n, (long long)c->k, c->amb, c->anb,
             c->bmb, c->bnb, c->cmb, c->cnb, c->alpha, c->beta, t->M, t->N, opts ? opts->mm_alg : 0,
             ratio);
    }
  } else if (t->rank == 0) {
    printf("  FAIL: float hmatmul returned %d (%s) on %d x %d\n", e, hgrid_errmsg(t->g), t->M,
           t->N);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, grid_comm(t));
  free(Ga), free(Gb), free(Gc), free(Gr);
  hmat_free(&A), hmat_free(&B), hmat_free(&C);
  return ok;
}

/* Both transposes, ragged sizes, alpha / beta (beta = 0 over NaN), k = 0, operands in other block
 * sizes than C (redistributed), on every grid shape; then each algorithm forced. */
static void matmul_on(const tgrid *t, void *ctx) {
  static const mcase cases[] = {
      {'N', 'N', 37, 50, 7, 4, 4, 4, 4, 4, 4, 1.5, 0.5},
      {'N', 'T', 29, 31, 45, 3, 5, 4, 2, 5, 3, 0.75, -2.0},
      {'T', 'N', 23, 17, 40, 4, 4, 4, 4, 4, 4, -1.0, 0.0},
      {'T', 'T', 17, 23, 40, 5, 2, 3, 3, 4, 2, 1.1, 0.3},
      {'n', 't', 7, 37, 50, 3, 5, 5, 2, 3, 2, -1.0, 1.0},
      {'N', 'N', 1, 1, 1, 1, 1, 1, 1, 1, 1, 2.0, 0.0},
      {'N', 'T', 9, 11, 0, 4, 4, 4, 4, 4, 4, 1.0, -0.5},  /* k = 0: C := beta C */
      {'N', 'N', 13, 19, 21, 8, 8, 8, 8, 8, 8, 0.0, 0.0}, /* alpha = 0, beta = 0: C := 0 */
      {'N', 'N', 0, 5, 3, 4, 4, 4, 4, 4, 4, 1.0, 1.0},
  };
  int bad = 0;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) bad += !run_fcase(t, &cases[k], NULL);
  /* the algorithms, forced */
  const int M = t->M, N = t->N;
  mcase c = {'N', 'T', 29, 31, 45, 3, 3, 3, 3, 3, 3, 1.25, -0.5};
  hla_report rep;
  hla_opts o = HLA_OPTS_INIT;
  o.report = &rep;
  o.mm_alg = HLA_MM_SUMMA, o.inner_block = 4;
  bad += !run_fcase(t, &c, &o);
  bad += rep.mm_alg != HLA_MM_SUMMA;
  o.mm_alg = HLA_MM_HSUMMA, o.groups_row = M, o.groups_col = 1, o.outer_block = 8;
  bad += !run_fcase(t, &c, &o);
  bad += rep.mm_alg != HLA_MM_HSUMMA;
  o = (hla_opts)HLA_OPTS_INIT;
  o.report = &rep;
  o.mm_alg = HLA_MM_3D, o.inner_block = 4, o.replication = M > 1 ? M : N;
  bad += !run_fcase(t, &c, &o);
  bad += rep.mm_alg != HLA_MM_3D;
  CU_ASSERT_EQUAL(bad, 0);
}

static void test_matmul(void) {
  tgrid_each(matmul_on, NULL);
}

/* Operands of different element types: HLA_ERR_ARG on every rank, the same message, C untouched.
 */
static void matmul_mixed_on(const tgrid *t, void *ctx) {
  uint64_t sa = 1, sb = 2, sc = 3;
  hmat Af = fmat(t->g, 10, 12, 3, 3, ht_entry, &sa), Bf = fmat(t->g, 12, 8, 3, 3, ht_entry, &sb);
  hmat Cf = fmat(t->g, 10, 8, 3, 3, ht_entry, &sc);
  hmat Ad = ht_mat(t->g, 10, 12, 3, 3, ht_entry, &sa),
       Bd = ht_mat(t->g, 12, 8, 3, 3, ht_entry, &sb);
  hmat Cd = ht_mat(t->g, 10, 8, 3, 3, ht_entry, &sc);
  const struct {
    hmat A, B, C;
  } mix[] = {{Ad, Bf, Cf}, {Af, Bd, Cf}, {Ad, Bd, Cf}, {Af, Bf, Cd}, {Af, Bd, Cd}, {Ad, Bf, Cd}};
  for (int k = 0; k < 6; k++) {
    int rc = hmatmul('N', 'N', 1.0, mix[k].A, mix[k].B, k % 2 ? 0.0 : 1.0, mix[k].C, NULL);
    CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_ARG));
    CU_ASSERT(ht_same_text(hgrid_errmsg(t->g)));
    int same = hmat_elem(mix[k].C) == HLA_FLOAT ? flocal_is(mix[k].C, ht_entry, &sc)
                                                : ht_local_is(mix[k].C, ht_entry, &sc);
    CU_ASSERT(ht_all(MPI_COMM_WORLD, same));
  }
  /* all float: fine */
  CU_ASSERT_EQUAL(hmatmul('N', 'N', 1.0, Af, Bf, 0.0, Cf, NULL), HLA_OK);
  hmat_free(&Af), hmat_free(&Bf), hmat_free(&Cf), hmat_free(&Ad), hmat_free(&Bd), hmat_free(&Cd);
}

static void test_matmul_mixed_types(void) {
  tgrid_each_world(matmul_mixed_on, NULL);
}

/* ---------------------------------------------------------------- LU */

/* LAPACK's sgetrf of the gathered m x n matrix A (float values held as doubles): pivots (0-based)
 * into ipiv, factors (as doubles) into F; its info (0 or the 1-based first zero pivot). */
static int lapack_sgetrf(int64_t m, int64_t n, const double *A, int64_t *ipiv, double *F) {
  const int64_t k = m < n ? m : n;
  float *W = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof *W);
  lapack_int *p = malloc((size_t)(k > 0 ? k : 1) * sizeof *p);
  for (int64_t i = 0; i < m * n; i++) W[i] = (float)A[i];
  int info = 0;
  if (k > 0)
    info = LAPACKE_sgetrf(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n, W,
                          (lapack_int)(m > 1 ? m : 1), p);
  for (int64_t i = 0; i < k; i++) ipiv[i] = p[i] - 1;
  for (int64_t i = 0; i < m * n; i++) F[i] = W[i];
  free(W), free(p);
  return info;
}

/* The float backward error ||P A - L U||_1 / (||A||_1 max(m, n) eps_float) of the gathered float
 * matrix A and factors F. */
static double factor_residual_float(int64_t m, int64_t n, const double *A, const double *F,
                                    const int64_t *ipiv) {
  return factor_residual_mn(m, n, A, F, ipiv) * (DBL_EPSILON / FLT_EPSILON);
}

/* The exact generator's matrices in float: exactly its factors and pivots (which LAPACK's sgetrf
 * also gives), square for every block size and a tall one (its first columns). */
static void exact_on(const tgrid *t, void *ctx) {
  static const int64_t sizes[] = {22, 13, 6};
  for (int q = 0; q < 3; q++) {
    const int64_t n = sizes[q];
    exact_t e;
    exact_make(&e, n, 2000 + (uint64_t)(t->shape * 10 + q), -1);
    const int nbs[] = {1, 2, 3, 8, (int)n};
    for (int b = 0; b < 5; b++) {
      int64_t ipiv[22], ref[22];
      hla_opts o;
      lu_variant(3 * t->shape + 5 * q + b, &o);
      hmat A = fmat(t->g, n, n, nbs[b], nbs[b], global_entry, &e);
      CU_ASSERT(flocal_is(A, global_entry, &e)); /* A is exact in float */
      double *A0 = ht_gather(A);
      CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
      CU_ASSERT(flocal_is(A, factors_entry, &e));
      CU_ASSERT_EQUAL(memcmp(ipiv, e.ipiv, (size_t)n * sizeof *ipiv), 0);
      double *F = ht_gather(A);
      if (t->rank == 0) {
        double *L = malloc((size_t)(n * n) * sizeof *L);
        CU_ASSERT_EQUAL(lapack_sgetrf(n, n, A0, ref, L), 0);
        CU_ASSERT_EQUAL(memcmp(ipiv, ref, (size_t)n * sizeof *ipiv), 0);
        CU_ASSERT_EQUAL(ht_ndiff(F, L, n * n), 0);
        free(L);
      }
      free(A0), free(F);
      hmat_free(&A);
    }
    /* tall: the first c columns, whose factors are the first c columns of L\U with the rows of
     * L in the order of the first c interchanges only (the later ones undone) */
    const int64_t c = n / 2 + 1;
    int64_t ipiv[22], ref[22];
    for (int i = 0; i < 22; i++) ipiv[i] = -7;
    hmat A = fmat(t->g, n, c, 3, 3, global_entry, &e);
    double *A0 = ht_gather(A);
    CU_ASSERT_EQUAL(hlu_factor(A, ipiv, NULL), HLA_OK);
    CU_ASSERT_EQUAL(memcmp(ipiv, e.ipiv, (size_t)c * sizeof *ipiv), 0);
    for (int64_t i = c; i < 22; i++) CU_ASSERT_EQUAL(ipiv[i], -7);
    double *F = ht_gather(A);
    if (t->rank == 0) {
      double *L = malloc((size_t)(n * c) * sizeof *L);
      CU_ASSERT_EQUAL(lapack_sgetrf(n, c, A0, ref, L), 0);
      CU_ASSERT_EQUAL(memcmp(ipiv, ref, (size_t)c * sizeof *ipiv), 0);
      CU_ASSERT_EQUAL(ht_ndiff(F, L, n * c), 0);
      double *T = malloc((size_t)(n * c) * sizeof *T);
      memcpy(T, e.LU, (size_t)(n * c) * sizeof *T);
      for (int64_t k = n - 1; k >= c; k--)
        for (int64_t j = 0; j < c; j++) {
          double x = T[k + j * n];
          T[k + j * n] = T[e.ipiv[k] + j * n], T[e.ipiv[k] + j * n] = x;
        }
      CU_ASSERT_EQUAL(ht_ndiff(F, T, n * c), 0);
      free(L), free(T);
    }
    free(A0), free(F);
    hmat_free(&A);
    exact_free(&e);
  }
}

static void test_lu_exact(void) {
  tgrid_each(exact_on, NULL);
}

/* Random float matrices, square (ragged n) and rectangular, several blocks: sgetrf's pivots and a
 * float backward error below 1 (test_lu's bar, with float's eps); nothing past ipiv[min(m, n))
 * written. */
static void random_on(const tgrid *t, void *ctx) {
  static const int64_t shapes[][2] = {{45, 45}, {31, 31}, {10, 12}, {17, 13},
                                      {5, 23},  {31, 7},  {40, 39}, {1, 1}};
  static const int nbs[] = {1, 3, 5, 8};
  for (int s = 0; s < 8; s++)
    for (int b = 0; b < 4; b++) {
      const int64_t m = shapes[s][0], n = shapes[s][1], k = m < n ? m : n;
      uint64_t seed = 300 + (uint64_t)(7 * s + b);
      int64_t ipiv[46], ref[46], info = 99;
      for (int i = 0; i < 46; i++) ipiv[i] = -7;
      hla_opts o = HLA_OPTS_INIT;
      o.info_out = &info;
      hmat A = fmat(t->g, m, n, nbs[b], nbs[b], ht_entry, &seed);
      double *A0 = ht_gather(A);
      CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_OK);
      CU_ASSERT_EQUAL(info, -1);
      CU_ASSERT_EQUAL(hmat_elem(A), HLA_FLOAT);
      for (int64_t i = k; i < 46; i++) CU_ASSERT_EQUAL(ipiv[i], -7);
      double *F = ht_gather(A);
      if (t->rank == 0) {
        double *L = malloc((size_t)(m * n) * sizeof *L);
        CU_ASSERT_EQUAL(lapack_sgetrf(m, n, A0, ref, L), 0);
        CU_ASSERT_EQUAL(memcmp(ipiv, ref, (size_t)k * sizeof *ipiv), 0);
        double r = factor_residual_float(m, n, A0, F, ipiv);
        CU_ASSERT(r < 1.0);
        if (!(r < 1.0))
          printf("float factor residual %g: %lld x %lld, nb %d on %d x %d\n", r, (long long)m,
                 (long long)n, nbs[b], t->M, t->N);
        /* the factors are float's: not double's rounded (LAPACK's sgetrf is as far from them) */
        free(L);
      }
      free(A0), free(F);
      hmat_free(&A);
    }
}

static void test_lu_random(void) {
  tgrid_each(random_on, NULL);
}

/* A random matrix with a chosen column zero (z[0]; z[1] the seed). */
static double zero_col_entry(int64_t i, int64_t j, void *ctx) {
  const int64_t *z = ctx;
  return j == z[0] ? 0.0 : ht_rand_entry((uint64_t)z[1], i, j);
}

/* Singular float matrices: HLA_ERR_SINGULAR with the first zero pivot in info_out, sgetrf's
 * pivots; NaN, Inf (also one made by converting 1e300): HLA_ERR_NONFINITE with A untouched. */
static void singular_on(const tgrid *t, void *ctx) {
  const int64_t n = 10;
  int64_t ipiv[10], ref[10], info = 99;
  hla_opts o = HLA_OPTS_INIT;
  o.info_out = &info;
  /* zero: the first pivot */
  hmat A = fmat(t->g, n, n, 3, 3, NULL, NULL);
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_SINGULAR);
  CU_ASSERT_EQUAL(info, 0);
  CU_ASSERT(strstr(hgrid_errmsg(t->g), "singular") != NULL);
  /* the exact generator with a zero on U's diagonal at 6 */
  exact_t e;
  exact_make(&e, n, 4243, 6);
  hmat_fill(A, global_entry, &e);
  info = 99;
  CU_ASSERT_EQUAL(hlu_factor(A, ipiv, &o), HLA_ERR_SINGULAR);
  CU_ASSERT_EQUAL(info, 6);
  double *F = ht_gather(A);
  if (t->rank == 0) {
    double L[100];
    CU_ASSERT_EQUAL(lapack_sgetrf(n, n, e.A, ref, L), 7);
    CU_ASSERT_EQUAL(memcmp(ipiv, ref, sizeof ref), 0);
    CU_ASSERT(factor_residual_float(n, n, e.A, F, ipiv) < 1.0);
  }
  free(F);
  exact_free(&e);
  /* rectangular with a zero column inside the first min(m, n) */
  int64_t z[2] = {2, 31};
  hmat R = fmat(t->g, 9, 6, 2, 2, zero_col_entry, z);
  info = 99;
  CU_ASSERT_EQUAL(hlu_factor(R, ipiv, &o), HLA_ERR_SINGULAR);
  CU_ASSERT_EQUAL(info, 2);
  hmat_free(&R);

  /* non-finite */
  uint64_t seed = 8;
  for (int kind = 0; kind < 3; kind++) {
    if (kind < 2) {
      hmat_fill(A, ht_entry, &seed);
      fset(A, 6, 4, kind ? INFINITY : NAN);
    } else {
      hmat D = ht_mat(t->g, n, n, 3, 3, ht_entry, &seed);
      double *d;
      int64_t lld;
      hmat_local(D, &d, &lld, NULL, NULL);
      int pr, pc, myr, myc;
      hmat_owner(D, 3, 8, &pr, &pc);
      hgrid_shape(t->g, NULL, NULL, &myr, &myc);
      if (pr == myr && pc == myc) d[hmat_g2l_row(D, 3) + hmat_g2l_col(D, 8) * lld] = -1e300;
      CU_ASSERT_EQUAL(hmat_convert(D, A), HLA_OK);
      hmat_free(&D);
    }
    double *G0 = ht_gather(A);
    int64_t p2[10];
    for (int i = 0; i < 10; i++) p2[i] = -3;
    CU_ASSERT_EQUAL(hlu_factor(A, p2, NULL), HLA_ERR_NONFINITE);
    for (int i = 0; i < 10; i++) CU_ASSERT_EQUAL(p2[i], -3);
    double *G1 = ht_gather(A);
    if (t->rank == 0) {
      CU_ASSERT_EQUAL(memcmp(G0, G1, (size_t)(n * n) * sizeof(double)), 0);
      CU_ASSERT(kind == 2 ? isinf(G0[3 + 8 * n]) && G0[3 + 8 * n] < 0 : !isfinite(G0[6 + 4 * n]));
    }
    free(G0), free(G1);
  }
  hmat_free(&A);
}

static void test_lu_singular_nonfinite(void) {
  tgrid_each(singular_on, NULL);
}

/* hlu_solve (and hlu_solve_trans, hla_gesv) in float: HPL's residual with float's eps below 16;
 * hla_gesv gives the bits of hlu_factor + hlu_solve; a double B with float factors is refused. */
static void solve_on(const tgrid *t, void *ctx) {
  static const int64_t nrhss[3] = {5, 1, 67};
  static const int64_t ns[2] = {31, 50};
  for (int b = 0; b < 6; b++) {
    const int nb = b % 2 ? 8 : 3;
    const int64_t nrhs = nrhss[b / 2], n = ns[b % 2];
    uint64_t sa = 11 + (uint64_t)b, sb = 12;
    int64_t ipiv[50], ipiv2[50];
    hmat A = fmat(t->g, n, n, nb, nb, ht_entry, &sa), B = fmat(t->g, n, nrhs, nb, 2, ht_entry, &sb);
    hmat A2 = fmat(t->g, n, n, nb, nb, ht_entry, &sa),
         B2 = fmat(t->g, n, nrhs, nb, 2, ht_entry, &sb);
    hmat Bt = fmat(t->g, n, nrhs, nb, 2, ht_entry, &sb);
    double *A0 = ht_gather(A), *B0 = ht_gather(B);
    CU_ASSERT_EQUAL(hlu_factor(A, ipiv, NULL), HLA_OK);
    CU_ASSERT_EQUAL(hlu_solve(A, ipiv, B, NULL), HLA_OK);
    CU_ASSERT_EQUAL(hlu_solve_trans('T', A, ipiv, Bt, NULL), HLA_OK);
    double *X = ht_gather(B), *Xt = ht_gather(Bt);
    if (t->rank == 0) {
      double r = solve_residual(n, nrhs, A0, X, B0) * (DBL_EPSILON / FLT_EPSILON);
      CU_ASSERT(r < 16.0);
      double *At = malloc((size_t)(n * n) * sizeof *At);
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) At[j + i * n] = A0[i + j * n];
      double rt = solve_residual(n, nrhs, At, Xt, B0) * (DBL_EPSILON / FLT_EPSILON);
      CU_ASSERT(rt < 16.0);
      if (!(r < 16.0) || !(rt < 16.0))
        printf("float solve residual %g, transposed %g on %d x %d, n %lld nb %d, %lld rhs\n", r, rt,
               t->M, t->N, (long long)n, nb, (long long)nrhs);
      /* a float answer: its residual with double's eps is far above the bar (the test can fail) */
      CU_ASSERT(solve_residual(n, nrhs, A0, X, B0) > 16.0);
      free(At);
    }
    CU_ASSERT_EQUAL(hla_gesv(A2, ipiv2, B2, NULL), HLA_OK);
    CU_ASSERT_EQUAL(memcmp(ipiv, ipiv2, (size_t)n * sizeof *ipiv), 0);
    double *X2 = ht_gather(B2);
    if (t->rank == 0) CU_ASSERT_EQUAL(ht_ndiff(X, X2, n * nrhs), 0);
    /* float factors, double right-hand sides: refused, B untouched */
    hmat Bd = ht_mat(t->g, n, nrhs, nb, 2, ht_entry, &sb);
    CU_ASSERT_EQUAL(hlu_solve(A, ipiv, Bd, NULL), HLA_ERR_ARG);
    CU_ASSERT(ht_local_is(Bd, ht_entry, &sb));
    hmat Ad = ht_mat(t->g, n, n, nb, nb, ht_entry, &sa);
    CU_ASSERT_EQUAL(hla_gesv(Ad, ipiv2, Bt, NULL), HLA_ERR_ARG);
    CU_ASSERT(ht_local_is(Ad, ht_entry, &sa));
    hmat_free(&Bd), hmat_free(&Ad);
    free(A0), free(B0), free(X), free(Xt), free(X2);
    hmat_free(&A), hmat_free(&B), hmat_free(&A2), hmat_free(&B2), hmat_free(&Bt);
  }
}

static void test_solve(void) {
  tgrid_each(solve_on, NULL);
}

void hla_test_register(void) {
  HT_SUITE("single", test_typed, test_fill_set_norm, test_scatter_gather, test_convert,
           test_redistribute, test_matmul, test_matmul_mixed_types, test_lu_exact, test_lu_random,
           test_lu_singular_nonfinite, test_solve);
}
