/* bench_mixed — Ax = b to double accuracy from single-precision factors, side by side in one run on
 * the same cores:
 *   hla     hla_gesv: LU in double, on the M x N grid;
 *   mixed   hla_gesv_mixed: LU in float on the grid, refined in double (hla_report: the steps
 *           and the fallback, if any);
 *   dsgesv  LAPACKE_dsgesv on rank 0 with BLAS threads = the node's cores (LAPACK's mixed
 *           solve: the node limit of the method; the other ranks wait without spinning);
 *   lapack  LAPACKE_dgetrf + dgetrs on rank 0 likewise (bench_lu's node limit);
 * then the multiply the float factorisation rests on, square n x n x n, C := A B:
 *   sgemm-node  cblas_sgemm on rank 0 with all the node's cores;
 *   sgemm       hmatmul on float matrices on the grid;
 *   dgemm       hmatmul on double matrices on the grid (for context).
 *
 *   mpiexec -n P ./bench_mixed [--n 4096,8192] [--reps 3] [--grid MxN] [--nb 128]
 *                              [--only hla,mixed,dsgesv,lapack,sgemm-node,sgemm,dgemm]
 *
 * The matrix is bench_lu's HPL-like one (entries uniform in [-0.5, 0.5) from a counter-based
 * generator), so every implementation solves the same system. Per case and run:
 *   <impl> n=N nb=NB grid=MxN run=R gflops=G seconds=T residual=RES
 * and per case the median of the runs with the ratios measured in this run:
 *   <impl> n=N ... median_gflops=G median_seconds=T residual=RES ratio_hla=X ratio_dsgesv=Y
 *          iterations=I fallback=F threads=T
 * where ratio_hla = time(hla) / time(impl) and ratio_dsgesv = time(dsgesv) / time(impl) (on the
 * mixed line: how much faster the mixed solve is than hla's double solve and than LAPACK's mixed
 * solve on the node; the cases run in the order lapack, dsgesv, hla, mixed, and a median line has
 * the ratios to those already run, 0 for the others, the JSON line all of them); iterations and
 * fallback are hla_report's for mixed (the most steps over the runs, the last run's fallback) and
 * dsgesv's ITER of the last run for dsgesv (negative: it fell back to double). GFLOP/s = (2/3 n^3 +
 * 2 n^2) / t for every solve (the double LU's count, also for the mixed ones, so that GFLOP/s
 * compare as inverse times); t is the slowest rank's wall time of the solve, without generating the
 * matrix. The residual is HPL's ||Ax - b||_inf / (eps (||A||_inf ||x||_inf
 * + ||b||_inf) n), recomputed from the generator (eps = DBL_EPSILON, as bench_lu).
 * The multiplies: GFLOP/s = 2 n^3 / t, ratio_node = time(sgemm-node) / time(impl), and an error
 * max |C - C_ref| / (n |A| |B| eps) (max norms; eps of the matrices' type) over 64 sampled entries,
 * C_ref in double from the (rounded) entries. Then one JSON line with every case.
 * Threads as bench_lu: the ranks run hla's policy (hgrid_create); the node references on rank 0
 * get all the node's cores (hkern_threads_apply) while the others sleep (hbsp_idle_barrier).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "hla.h"
#include "bench_common.h"
#include "dist/layout/layout_impl.h"
#include "kernels/kernels.h"

/* ---------------------------------------------------------------- the matrix */

/* bench_common.h: bench_gen_a / bench_gen_b, bench_residual. */

/* ---------------------------------------------------------------- options and results */

typedef struct {
  int64_t n[16];
  int nn, M, N, nb, reps;
  char only[128];
} bopts;

typedef struct {
  char impl[16];
  int64_t n;
  int nb, M, N, threads;
  double med_s, med_gf, resid; /* resid: worst over the runs (solves), error (multiplies) */
  int iterations, fallback;    /* mixed: hla_report's; dsgesv: ITER in iterations */
  char why[256];
} bcase;

static int parse(int argc, char **argv, bopts *o, int rank) {
  *o = (bopts){{4096, 8192}, 2, 0, 0, 128, 3, ""};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int ok = 1;
    if (!v)
      ok = 0;
    else if (!strcmp(a, "--n")) {
      o->nn = 0;
      for (char *s = argv[i + 1], *e; *s && o->nn < 16; s = *e ? e + 1 : e) {
        o->n[o->nn++] = strtoll(s, &e, 10);
        if (e == s || (*e && *e != ',')) ok = 0;
        if (!ok) break;
      }
    } else if (!strcmp(a, "--grid"))
      ok = sscanf(v, "%dx%d", &o->M, &o->N) == 2;
    else if (!strcmp(a, "--nb"))
      ok = (o->nb = atoi(v)) > 0;
    else if (!strcmp(a, "--reps"))
      ok = (o->reps = atoi(v)) > 0;
    else if (!strcmp(a, "--only"))
      snprintf(o->only, sizeof o->only, "%s", v);
    else
      ok = 0;
    if (!ok) {
      if (rank == 0)
        fprintf(stderr, "usage: bench_mixed [--n N1,N2,..] [--reps R] [--grid MxN] [--nb NB]\n"
                        "                   [--only hla,mixed,dsgesv,lapack,sgemm-node,sgemm,"
                        "dgemm]\n");
      return 1;
    }
    i++;
  }
  for (int k = 0; k < o->nn; k++)
    if (o->n[k] <= 0 || o->n[k] > INT32_MAX / 2) return 1;
  return 0;
}

/* Record the runs of one case: per-run lines, median; res (may be NULL: the multiplies) gives the
 * worst residual. */
static void finish_case(bcase *c, double flops, double *secs, const double *res, int reps,
                        int rank) {
  if (res) c->resid = 0.0;
  for (int r = 0; r < reps; r++) {
    if (res && !(res[r] <= c->resid)) c->resid = res[r];
    if (rank == 0)
      printf("%s n=%lld nb=%d grid=%dx%d run=%d gflops=%.3f seconds=%.4f %s=%.4g\n", c->impl,
             (long long)c->n, c->nb, c->M, c->N, r + 1, flops / secs[r] * 1e-9, secs[r],
             res ? "residual" : "error", res ? res[r] : c->resid);
  }
  qsort(secs, (size_t)reps, sizeof *secs, bench_cmp_double);
  c->med_s = secs[reps / 2];
  c->med_gf = flops / c->med_s * 1e-9;
  if (rank == 0) fflush(stdout);
}

static double solve_flops(int64_t n) {
  return 2.0 / 3.0 * (double)n * n * n + 2.0 * (double)n * n;
}

/* ---------------------------------------------------------------- the solves */

/* lapack (dsgesv = 0) or dsgesv (1) on rank 0 with all the node's cores. */
static int run_node_solve(hbsp_env env, int64_t n, int reps, int ranks_on_node, int dsgesv,
                          bcase *c) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double secs[32], res[32];
  double *x = malloc((size_t)n * sizeof *x);
  int ok = x != NULL;
  c->iterations = 0;
  for (int r = 0; r < reps; r++) {
    if (rank == 0) {
      int t;
      hkern_threads_apply(0, 1, &t); /* all the node's cores for this one process */
      c->threads = t;
      double *A = hdist_alloc(n * n); /* hla's allocator, as bench_lu */
      double *b = dsgesv ? malloc((size_t)n * sizeof *b) : NULL;
      lapack_int *ip = malloc((size_t)n * sizeof *ip);
      if (A && ip && x && (b || !dsgesv)) {
        for (int64_t j = 0; j < n; j++)
          for (int64_t i = 0; i < n; i++) A[i + j * n] = bench_gen(SEED_A, i, j);
        for (int64_t i = 0; i < n; i++) (dsgesv ? b : x)[i] = bench_gen(SEED_B, i, 0);
        lapack_int info, iter = 0;
        double t0 = MPI_Wtime();
        if (dsgesv) {
          info = LAPACKE_dsgesv(LAPACK_COL_MAJOR, (lapack_int)n, 1, A, (lapack_int)n, ip, b,
                                (lapack_int)n, x, (lapack_int)n, &iter);
        } else {
          info =
              LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, A, (lapack_int)n, ip);
          if (info == 0)
            info = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)n, 1, A, (lapack_int)n, ip, x,
                                  (lapack_int)n);
        }
        secs[r] = MPI_Wtime() - t0;
        ok = info == 0;
        if (dsgesv) c->iterations = (int)iter;
      } else {
        ok = 0;
      }
      free(A);
      free(b);
      free(ip);
      hkern_threads_apply(0, ranks_on_node, NULL);
    }
    hbsp_idle_barrier(env); /* the others waited asleep: rank 0 had the node's cores */
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) break;
    MPI_Bcast(x, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&secs[r], 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    res[r] = bench_residual(n, x);
  }
  MPI_Bcast(&c->threads, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&c->iterations, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(x);
  if (ok) finish_case(c, solve_flops(n), secs, res, reps, rank);
  return ok;
}

/* hla_gesv (mixed = 0) or hla_gesv_mixed (1) on the grid. */
static int run_hla(hgrid g, int64_t n, int nb, int reps, int mixed, bcase *c) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  hmat A = NULL, B = NULL;
  int rc = hmat_create(g, n, n, nb, nb, &A);
  if (rc == HLA_OK) rc = hmat_create(g, n, 1, nb, nb, &B);
  int64_t *ipiv = malloc((size_t)n * sizeof *ipiv);
  double *x = malloc((size_t)n * sizeof *x), secs[32], res[32];
  int ok = rc == HLA_OK && ipiv && x, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  hla_report rep;
  hla_opts o = HLA_OPTS_INIT;
  o.report = &rep;
  c->iterations = 0, c->fallback = 0;
  for (int r = 0; all_ok && r < reps; r++) {
    hmat_fill(A, bench_gen_a, NULL);
    hmat_fill(B, bench_gen_b, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    rc = mixed ? hla_gesv_mixed(A, ipiv, B, &o) : hla_gesv(A, ipiv, B, &o);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, &secs[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rc != HLA_OK) {
      if (rank == 0)
        fprintf(stderr, "%s: %s: %s\n", mixed ? "hla_gesv_mixed" : "hla_gesv", hla_strerror(rc),
                hgrid_errmsg(g));
      all_ok = 0;
      break;
    }
    if (mixed) {
      if (rep.iterations > c->iterations) c->iterations = rep.iterations;
      c->fallback = rep.fallback;
    }
    hmat_gather(B, 0, x, n);
    MPI_Bcast(x, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    res[r] = bench_residual(n, x);
  }
  if (all_ok) {
    c->threads = rep.threads;
    snprintf(c->why, sizeof c->why, "%s", rep.why);
    finish_case(c, solve_flops(n), secs, res, reps, rank);
  }
  hmat_free(&A), hmat_free(&B);
  free(ipiv), free(x);
  return all_ok;
}

/* ---------------------------------------------------------------- the multiplies */

#define NSAMPLE 64

/* The sampled entries (the same on every rank). */
static void samples(int64_t n, int64_t *si, int64_t *sj) {
  uint64_t s = 0x5a3b1eULL;
  for (int k = 0; k < NSAMPLE; k++) {
    si[k] = (int64_t)(bench_mix(&s) % (uint64_t)n);
    sj[k] = (int64_t)(bench_mix(&s) % (uint64_t)n);
  }
}

/* Entry (i, j) of C = A B from the generator, in double; the entries rounded to float first when
 * single. */
static double ref_entry(int64_t n, int64_t i, int64_t j, int single) {
  double s = 0.0;
  for (int64_t k = 0; k < n; k++) {
    double a = bench_gen(SEED_A, i, k), b = bench_gen(SEED_B, k, j);
    if (single) a = (double)(float)a, b = (double)(float)b;
    s += a * b;
  }
  return s;
}

/* max |c - c_ref| / (n |A| |B| eps) over the samples this rank owns (mine gives c(i, j) where
 * it holds it), max over the ranks; |A|, |B| <= 0.5. */
typedef int (*entry_of)(void *ctx, int64_t i, int64_t j, double *c);

static double sample_error(int64_t n, int single, entry_of mine, void *ctx) {
  int64_t si[NSAMPLE], sj[NSAMPLE];
  samples(n, si, sj);
  double err = 0.0, c, glob;
  for (int k = 0; k < NSAMPLE; k++)
    if (mine(ctx, si[k], sj[k], &c)) {
      double d = fabs(c - ref_entry(n, si[k], sj[k], single));
      if (!(d <= err)) err = d;
    }
  MPI_Allreduce(&err, &glob, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return glob / ((double)n * 0.25 * (single ? FLT_EPSILON : DBL_EPSILON));
}

typedef struct {
  const float *C;
  int64_t n;
} node_c;

static int node_c_entry(void *ctx, int64_t i, int64_t j, double *c) {
  const node_c *x = ctx;
  if (!x->C) return 0;
  *c = x->C[i + j * x->n];
  return 1;
}

/* Entry (i, j) of a distributed C where this rank owns it. */
static int hmat_c_entry(void *ctx, int64_t i, int64_t j, double *c) {
  hmat C = ctx;
  int pr, pc, myr, myc;
  hmat_owner(C, i, j, &pr, &pc);
  hgrid_shape(hmat_grid(C), NULL, NULL, &myr, &myc);
  if (pr != myr || pc != myc) return 0;
  int64_t lld, li = hmat_g2l_row(C, i), lj = hmat_g2l_col(C, j);
  if (hmat_elem(C) == HLA_FLOAT) {
    float *a;
    hmat_local_float(C, &a, &lld, NULL, NULL);
    *c = a[li + lj * lld];
  } else {
    double *a;
    hmat_local(C, &a, &lld, NULL, NULL);
    *c = a[li + lj * lld];
  }
  return 1;
}

/* cblas_sgemm on rank 0 with all the node's cores. */
static int run_node_sgemm(hbsp_env env, int64_t n, int reps, int ranks_on_node, bcase *c) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double secs[32];
  float *A = NULL, *B = NULL, *C = NULL;
  int ok = 1;
  if (rank == 0) {
    /* hla's allocator (doubles: half as many for the floats) */
    int64_t words = (n * n + 1) / 2;
    A = (float *)hdist_alloc(words), B = (float *)hdist_alloc(words);
    C = (float *)hdist_alloc(words);
    ok = A && B && C;
    for (int64_t j = 0; ok && j < n; j++)
      for (int64_t i = 0; i < n; i++) {
        A[i + j * n] = (float)bench_gen(SEED_A, i, j);
        B[i + j * n] = (float)bench_gen(SEED_B, i, j);
      }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; ok && r < reps; r++) {
    if (rank == 0) {
      int t;
      hkern_threads_apply(0, 1, &t); /* all the node's cores for this one process */
      c->threads = t;
      double t0 = MPI_Wtime();
      cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, A,
                  (int)n, B, (int)n, 0.0f, C, (int)n);
      secs[r] = MPI_Wtime() - t0;
      hkern_threads_apply(0, ranks_on_node, NULL);
    }
    hbsp_idle_barrier(env);
    MPI_Bcast(&secs[r], 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  MPI_Bcast(&c->threads, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ok) {
    node_c x = {rank == 0 ? C : NULL, n};
    c->resid = sample_error(n, 1, node_c_entry, &x);
    finish_case(c, 2.0 * (double)n * n * n, secs, NULL, reps, rank);
  }
  free(A), free(B), free(C);
  return ok;
}

/* hmatmul on the grid, float (single = 1) or double matrices. */
static int run_hla_gemm(hgrid g, int64_t n, int nb, int reps, int single, bcase *c) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  hla_elem e = single ? HLA_FLOAT : HLA_DOUBLE;
  hmat A = NULL, B = NULL, C = NULL;
  int rc = hmat_create_typed(g, n, n, nb, nb, e, &A);
  if (rc == HLA_OK) rc = hmat_create_typed(g, n, n, nb, nb, e, &B);
  if (rc == HLA_OK) rc = hmat_create_typed(g, n, n, nb, nb, e, &C);
  if (rc != HLA_OK) {
    if (rank == 0) fprintf(stderr, "hmat_create_typed: %s\n", hla_strerror(rc));
    hmat_free(&A), hmat_free(&B), hmat_free(&C);
    return 0;
  }
  hmat_fill(A, bench_gen_a, NULL);
  hmat_fill(B, bench_gen_b, NULL);
  hla_report rep;
  hla_opts o = HLA_OPTS_INIT;
  o.report = &rep;
  double secs[32];
  int ok = 1;
  for (int r = 0; ok && r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    rc = hmatmul('N', 'N', 1.0, A, B, 0.0, C, &o);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, &secs[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rc != HLA_OK) {
      if (rank == 0) fprintf(stderr, "hmatmul: %s: %s\n", hla_strerror(rc), hgrid_errmsg(g));
      ok = 0;
    }
  }
  if (ok) {
    c->threads = rep.threads;
    snprintf(c->why, sizeof c->why, "%s", rep.why);
    c->resid = sample_error(n, single, hmat_c_entry, C);
    finish_case(c, 2.0 * (double)n * n * n, secs, NULL, reps, rank);
  }
  hmat_free(&A), hmat_free(&B), hmat_free(&C);
  return ok;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
  int provided, rank, P;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  bopts o;
  if (parse(argc, argv, &o, rank)) {
    MPI_Finalize();
    return 2;
  }
  hbsp_env env;
  hgrid g;
  int ranks_on_node;
  if (bench_setup("bench_mixed", &o.M, &o.N, &env, &g, &ranks_on_node)) {
    MPI_Finalize();
    return 2;
  }
  if (o.reps > 32) o.reps = 32;
  if (rank == 0)
    printf("# bench_mixed: %d ranks, grid %d x %d, nb %d, %d runs per case, %d BLAS threads per "
           "rank, %d cores on the node\n",
           P, o.M, o.N, o.nb, o.reps, hgrid_threads(g), hkern_node_cores());

  /* the solves: the references first, so that mixed's line has its ratios */
  static const char *impls[] = {"lapack", "dsgesv", "hla", "mixed"};
  bcase cases[16 * 4];
  int nc = 0;
  for (int k = 0; k < o.nn; k++) {
    int64_t n = o.n[k];
    double t_hla = 0, t_ds = 0;
    for (int m = 0; m < 4; m++) {
      if (!bench_wanted(o.only, impls[m])) continue;
      bcase *c = &cases[nc];
      memset(c, 0, sizeof *c);
      snprintf(c->impl, sizeof c->impl, "%s", impls[m]);
      c->n = n, c->nb = o.nb, c->M = m < 2 ? 1 : o.M, c->N = m < 2 ? 1 : o.N;
      c->threads = hgrid_threads(g);
      int ok = m < 2 ? run_node_solve(env, n, o.reps, ranks_on_node, m == 1, c)
                     : run_hla(g, n, o.nb, o.reps, m == 3, c);
      if (!ok) {
        if (rank == 0) printf("%s n=%lld: failed\n", impls[m], (long long)n);
        continue;
      }
      if (m == 1) t_ds = c->med_s;
      if (m == 2) t_hla = c->med_s;
      if (rank == 0)
        printf("%s n=%lld nb=%d grid=%dx%d median_gflops=%.3f median_seconds=%.4f residual=%.4g "
               "ratio_hla=%.3f ratio_dsgesv=%.3f iterations=%d fallback=%d threads=%d%s%s\n",
               c->impl, (long long)n, c->nb, c->M, c->N, c->med_gf, c->med_s, c->resid,
               t_hla > 0 ? t_hla / c->med_s : 0.0, t_ds > 0 ? t_ds / c->med_s : 0.0, c->iterations,
               c->fallback, c->threads, c->why[0] ? " why=" : "", c->why);
      nc++;
    }
  }

  /* the multiplies */
  static const char *gimpls[] = {"sgemm-node", "sgemm", "dgemm"};
  bcase gcases[16 * 3];
  int ng = 0;
  for (int k = 0; k < o.nn; k++) {
    int64_t n = o.n[k];
    double t_node = 0;
    for (int m = 0; m < 3; m++) {
      if (!bench_wanted(o.only, gimpls[m])) continue;
      bcase *c = &gcases[ng];
      memset(c, 0, sizeof *c);
      snprintf(c->impl, sizeof c->impl, "%s", gimpls[m]);
      c->n = n, c->nb = o.nb, c->M = m == 0 ? 1 : o.M, c->N = m == 0 ? 1 : o.N;
      c->threads = hgrid_threads(g);
      int ok = m == 0 ? run_node_sgemm(env, n, o.reps, ranks_on_node, c)
                      : run_hla_gemm(g, n, o.nb, o.reps, m == 1, c);
      if (!ok) {
        if (rank == 0) printf("%s n=%lld: failed\n", gimpls[m], (long long)n);
        continue;
      }
      if (m == 0) t_node = c->med_s;
      if (rank == 0)
        printf("%s n=%lld nb=%d grid=%dx%d median_gflops=%.3f median_seconds=%.4f error=%.4g "
               "ratio_node=%.3f threads=%d%s%s\n",
               c->impl, (long long)n, c->nb, c->M, c->N, c->med_gf, c->med_s, c->resid,
               t_node > 0 ? t_node / c->med_s : 0.0, c->threads, c->why[0] ? " why=" : "", c->why);
      ng++;
    }
  }

  if (rank == 0) {
    printf("{\"bench\": \"mixed\", \"ranks\": %d, \"grid\": \"%dx%d\", \"nb\": %d, \"reps\": %d, "
           "\"cases\": [",
           P, o.M, o.N, o.nb, o.reps);
    for (int i = 0; i < nc; i++) {
      const bcase *c = &cases[i];
      double rh = 0, rd = 0;
      for (int q = 0; q < nc; q++) {
        if (cases[q].n != c->n) continue;
        if (!strcmp(cases[q].impl, "hla")) rh = cases[q].med_s / c->med_s;
        if (!strcmp(cases[q].impl, "dsgesv")) rd = cases[q].med_s / c->med_s;
      }
      printf("%s{\"impl\": \"%s\", \"n\": %lld, \"nb\": %d, \"grid\": \"%dx%d\", \"threads\": %d, "
             "\"gflops\": %.4f, \"seconds\": %.5f, \"residual\": %.4g, \"iterations\": %d, "
             "\"fallback\": %d, \"ratio_hla\": %.4f, \"ratio_dsgesv\": %.4f}",
             i ? ", " : "", c->impl, (long long)c->n, c->nb, c->M, c->N, c->threads, c->med_gf,
             c->med_s, c->resid, c->iterations, c->fallback, rh, rd);
    }
    printf("], \"gemm\": [");
    for (int i = 0; i < ng; i++) {
      const bcase *c = &gcases[i];
      double rn = 0;
      for (int q = 0; q < ng; q++)
        if (gcases[q].n == c->n && !strcmp(gcases[q].impl, "sgemm-node"))
          rn = gcases[q].med_s / c->med_s;
      printf("%s{\"impl\": \"%s\", \"n\": %lld, \"nb\": %d, \"grid\": \"%dx%d\", \"threads\": %d, "
             "\"gflops\": %.4f, \"seconds\": %.5f, \"error\": %.4g, \"ratio_node\": %.4f}",
             i ? ", " : "", c->impl, (long long)c->n, c->nb, c->M, c->N, c->threads, c->med_gf,
             c->med_s, c->resid, rn);
    }
    printf("]}\n");
  }
  hgrid_free(&g);
  hbsp_free(&env);
  MPI_Finalize();
  return 0;
}
