/* bench_lu — Ax = b by LU with partial pivoting, side by side in one run on the same cores:
 *   lapack     LAPACKE_dgetrf + dgetrs on rank 0 with BLAS threads = the node's cores (the node
 *              limit; the other ranks wait without spinning);
 *   scalapack  pdgesv on the same M x N grid (row-major, as hla's) and block size;
 *   hla-flat   hla_gesv, flat LU;
 *   hla-hier   hla_gesv, hierarchical LU (two levels: nodes, or HLA_VIRTUAL_NODES=k, or
 *              --groups IxJ; on one node without those both levels are one).
 * HPL itself runs through bench/run_hpl.sh; bench/compare_lu.sh runs both and joins them on n.
 *
 *   mpiexec -n P ./bench_lu [--n 4096,6000,8192] [--quick] [--grid MxN] [--nb 128] [--reps 3]
 *                           [--groups IxJ] [--only lapack,scalapack,hla-flat,hla-hier]
 *                           [--bcast ALG] [--swap auto|rows|spread]
 *
 * The matrix is HPL-like: entries uniform in [-0.5, 0.5) from a counter-based generator (a pure
 * function of (seed, i, j)), so every implementation factors the same matrix. Per case and run:
 *   <impl> n=N nb=NB grid=MxN run=R gflops=G seconds=T residual=RES
 * and per case the median of the runs with the ratios to LAPACK and ScaLAPACK measured here:
 *   <impl> n=N nb=NB grid=MxN median_gflops=G median_seconds=T residual=RES ratio_lapack=X
 *          ratio_scalapack=Y
 * then one JSON line with every case. GFLOP/s = (2/3 n^3 + 2 n^2) / t; t is the slowest rank's
 * wall time of the solve (factor + solve), without generating the matrix. The residual is HPL's
 * ||Ax - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n), recomputed from the generator.
 * LAPACK's and ScaLAPACK's matrices come from hla's allocator (hdist_alloc: 2 MiB-aligned, huge
 * pages asked for), so that every implementation runs on the same kind of pages: where the kernel
 * gives huge pages only on request (THP "madvise") they are worth 10-15 % to dgetrf on 16 cores.
 * HPL (hpcc) allocates with plain malloc: compare with it under THP "always", or read the ratio
 * as including that difference (bench/run_hpl.sh prints the THP mode).
 *
 * @needs scalapack
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <lapacke.h>
#include "hla.h"
#include "bench_common.h"
#include "dist/layout/layout_impl.h"
#include "kernels/kernels.h"
#include "scalapack_decl.h"

/* ---------------------------------------------------------------- the matrix */

/* bench_common.h: bench_gen_a / bench_gen_b, bench_residual. */

/* ---------------------------------------------------------------- options and results */

typedef struct {
  int64_t n[16];
  int nn, M, N, nb, reps, gI, gJ;
  char only[128];
  int bcast; /* hbsp_alg of hla's broadcasts (--bcast), HBSP_AUTO by default */
  int swap;  /* hla_swap_alg (--swap), HLA_SWAP_AUTO by default */
} bopts;

typedef struct {
  char impl[16];
  int64_t n;
  int nb, M, N, threads;
  double med_s, med_gf, resid; /* resid: worst over the runs */
  char why[256];
  double phase[6]; /* hla: the last run's hla_report t_panel .. t_solve, max over ranks */
} bcase;

static int parse(int argc, char **argv, bopts *o, int rank) {
  *o = (bopts){{4096, 6000, 8192}, 3, 0, 0, 128, 3, 0, 0, "", HBSP_AUTO, HLA_SWAP_AUTO};
  static const char *algs[] = {"auto", "native", "flat", "binomial", "pipeline", "sa"};
  static const char *swaps[] = {"auto", "rows", "spread"};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int ok = 1;
    if (!strcmp(a, "--quick")) {
      o->n[0] = 512, o->n[1] = 1024, o->nn = 2, o->nb = 64;
      continue;
    }
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
    else if (!strcmp(a, "--groups"))
      ok = sscanf(v, "%dx%d", &o->gI, &o->gJ) == 2;
    else if (!strcmp(a, "--nb"))
      ok = (o->nb = atoi(v)) > 0;
    else if (!strcmp(a, "--reps"))
      ok = (o->reps = atoi(v)) > 0;
    else if (!strcmp(a, "--only"))
      snprintf(o->only, sizeof o->only, "%s", v);
    else if (!strcmp(a, "--bcast")) {
      ok = 0;
      for (int k = 0; k < 6; k++)
        if (!strcmp(v, algs[k])) o->bcast = k, ok = 1;
    } else if (!strcmp(a, "--swap")) {
      ok = 0;
      for (int k = 0; k < 3; k++)
        if (!strcmp(v, swaps[k])) o->swap = k, ok = 1;
    } else
      ok = 0;
    if (!ok) {
      if (rank == 0)
        fprintf(stderr, "usage: bench_lu [--n N1,N2,..] [--quick] [--grid MxN] [--nb NB] "
                        "[--reps R] [--groups IxJ] [--only lapack,scalapack,hla-flat,hla-hier]\n"
                        "                [--bcast auto|native|flat|binomial|pipeline|sa] "
                        "[--swap auto|rows|spread]\n");
      return 1;
    }
    i++;
  }
  for (int k = 0; k < o->nn; k++)
    if (o->n[k] <= 0 || o->n[k] > INT32_MAX / 2) return 1;
  return 0;
}

/* Record the runs of one case: per-run lines, median, worst residual. */
static void finish_case(bcase *c, double *secs, double *res, int reps, int rank) {
  double flops = 2.0 / 3.0 * (double)c->n * c->n * c->n + 2.0 * (double)c->n * c->n;
  c->resid = 0.0;
  for (int r = 0; r < reps; r++) {
    c->resid = fmax(c->resid, res[r]);
    if (rank == 0)
      printf("%s n=%lld nb=%d grid=%dx%d run=%d gflops=%.3f seconds=%.4f residual=%.4g\n", c->impl,
             (long long)c->n, c->nb, c->M, c->N, r + 1, flops / secs[r] * 1e-9, secs[r], res[r]);
  }
  qsort(secs, (size_t)reps, sizeof *secs, bench_cmp_double);
  c->med_s = secs[reps / 2];
  c->med_gf = flops / c->med_s * 1e-9;
  if (rank == 0) fflush(stdout);
}

/* ---------------------------------------------------------------- the implementations */

static int run_lapack(hbsp_env env, int64_t n, int reps, int ranks_on_node, bcase *c) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double secs[32], res[32];
  double *x = malloc((size_t)n * sizeof *x);
  int ok = x != NULL;
  for (int r = 0; r < reps; r++) {
    if (rank == 0) {
      int t;
      hkern_threads_apply(0, 1, &t); /* all the node's cores for this one process */
      c->threads = t;
      double *A = hdist_alloc(n * n); /* hla's allocator: see the header */
      lapack_int *ip = malloc((size_t)n * sizeof *ip);
      if (A && ip && x) {
        for (int64_t j = 0; j < n; j++)
          for (int64_t i = 0; i < n; i++) A[i + j * n] = bench_gen(SEED_A, i, j);
        for (int64_t i = 0; i < n; i++) x[i] = bench_gen(SEED_B, i, 0);
        double t0 = MPI_Wtime();
        lapack_int info =
            LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, A, (lapack_int)n, ip);
        if (info == 0)
          info = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)n, 1, A, (lapack_int)n, ip, x,
                                (lapack_int)n);
        secs[r] = MPI_Wtime() - t0;
        ok = info == 0;
      } else {
        ok = 0;
      }
      free(A);
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
  free(x);
  if (ok) finish_case(c, secs, res, reps, rank);
  return ok;
}

static int run_scalapack(int64_t n64, int nb, int M, int N, int reps, bcase *c) {
  int rank, ctxt, nprow, npcol, myrow, mycol, info, zero = 0, one = 1, n = (int)n64;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", M, N);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  int mloc = numroc_(&n, &nb, &myrow, &zero, &nprow),
      nloc = numroc_(&n, &nb, &mycol, &zero, &npcol);
  int nbloc = numroc_(&one, &nb, &mycol, &zero, &npcol), lld = mloc > 1 ? mloc : 1;
  int desca[9], descb[9];
  descinit_(desca, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  descinit_(descb, &n, &one, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  double *a = hdist_alloc(lld * (nloc > 0 ? nloc : 1));
  double *b = malloc((size_t)lld * sizeof *b), *x = malloc((size_t)n * sizeof *x);
  int *ip = malloc((size_t)(mloc + nb) * sizeof *ip), ok = a && b && x && ip, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  double secs[32], res[32];
  for (int r = 0; all_ok && r < reps; r++) {
    for (int jl = 0; jl < nloc; jl++) {
      int64_t j = ((int64_t)(jl / nb) * npcol + mycol) * nb + jl % nb;
      for (int il = 0; il < mloc; il++) {
        int64_t i = ((int64_t)(il / nb) * nprow + myrow) * nb + il % nb;
        a[il + (size_t)jl * lld] = bench_gen(SEED_A, i, j);
      }
    }
    for (int il = 0; il < mloc && nbloc > 0; il++)
      b[il] = bench_gen(SEED_B, ((int64_t)(il / nb) * nprow + myrow) * nb + il % nb, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdgesv_(&n, &one, a, &one, &one, desca, ip, b, &one, &one, descb, &info);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, &secs[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    memset(x, 0, (size_t)n * sizeof *x);
    for (int il = 0; il < mloc && nbloc > 0; il++)
      x[((int64_t)(il / nb) * nprow + myrow) * nb + il % nb] = b[il];
    MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int bad = info != 0, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) all_ok = 0;
    res[r] = bench_residual(n, x);
  }
  free(a), free(b), free(x), free(ip);
  Cblacs_gridexit(ctxt);
  if (all_ok) finish_case(c, secs, res, reps, rank);
  return all_ok;
}

static int run_hla(hgrid g, int64_t n, int nb, int reps, const hla_opts *opts, bcase *c) {
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
  hla_opts o = *opts;
  o.report = &rep;
  for (int r = 0; all_ok && r < reps; r++) {
    hmat_fill(A, bench_gen_a, NULL);
    hmat_fill(B, bench_gen_b, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    rc = hla_gesv(A, ipiv, B, &o);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, &secs[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rc != HLA_OK) {
      if (rank == 0) fprintf(stderr, "hla_gesv: %s: %s\n", hla_strerror(rc), hgrid_errmsg(g));
      all_ok = 0;
      break;
    }
    hmat_gather(B, 0, x, n);
    MPI_Bcast(x, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    res[r] = bench_residual(n, x);
  }
  if (all_ok) {
    double ph[6] = {rep.t_panel, rep.t_lwait, rep.t_swap, rep.t_u, rep.t_update, rep.t_solve};
    MPI_Allreduce(ph, c->phase, 6, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    c->threads = rep.threads;
    snprintf(c->why, sizeof c->why, "%s", rep.why);
    finish_case(c, secs, res, reps, rank);
  }
  hmat_free(&A), hmat_free(&B);
  free(ipiv), free(x);
  return all_ok;
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
  if (bench_setup("bench_lu", &o.M, &o.N, &env, &g, &ranks_on_node)) {
    MPI_Finalize();
    return 2;
  }
  if (rank == 0)
    printf("# bench_lu: %d ranks, grid %d x %d, nb %d, %d runs per case, %d BLAS threads per "
           "rank, %d cores on the node\n",
           P, o.M, o.N, o.nb, o.reps, hgrid_threads(g), hkern_node_cores());
  if (o.reps > 32) o.reps = 32;

  static const char *impls[] = {"lapack", "scalapack", "hla-flat", "hla-hier"};
  bcase cases[16 * 4];
  int nc = 0;
  for (int k = 0; k < o.nn; k++) {
    int64_t n = o.n[k];
    double ref[2] = {0, 0}; /* lapack, scalapack median seconds */
    for (int m = 0; m < 4; m++) {
      if (!bench_wanted(o.only, impls[m])) continue;
      bcase *c = &cases[nc];
      memset(c, 0, sizeof *c);
      snprintf(c->impl, sizeof c->impl, "%s", impls[m]);
      c->n = n, c->nb = o.nb, c->M = m == 0 ? 1 : o.M, c->N = m == 0 ? 1 : o.N;
      c->threads = hgrid_threads(g);
      int ok;
      hla_opts ho = HLA_OPTS_INIT;
      switch (m) {
      case 0:
        ok = run_lapack(env, n, o.reps, ranks_on_node, c);
        break;
      case 1:
        ok = run_scalapack(n, o.nb, o.M, o.N, o.reps, c);
        break;
      default:
        ho.lu_alg = m == 2 ? HLA_LU_FLAT : HLA_LU_HIER;
        ho.bcast.alg = (hbsp_alg)o.bcast;
        ho.swap = o.swap;
        if (m == 3) ho.groups_row = o.gI, ho.groups_col = o.gJ;
        ok = run_hla(g, n, o.nb, o.reps, &ho, c);
      }
      if (!ok) {
        if (rank == 0) printf("%s n=%lld: failed\n", impls[m], (long long)n);
        continue;
      }
      if (m < 2) ref[m] = c->med_s;
      if (rank == 0)
        printf("%s n=%lld nb=%d grid=%dx%d median_gflops=%.3f median_seconds=%.4f residual=%.4g "
               "ratio_lapack=%.3f ratio_scalapack=%.3f threads=%d%s%s\n",
               c->impl, (long long)n, c->nb, c->M, c->N, c->med_gf, c->med_s, c->resid,
               ref[0] > 0 ? ref[0] / c->med_s : 0.0, ref[1] > 0 ? ref[1] / c->med_s : 0.0,
               c->threads, c->why[0] ? " why=" : "", c->why);
      if (rank == 0 && m >= 2)
        printf("  %s phases (s, max over ranks, last run): panel %.3f L %.3f swaps %.3f U %.3f "
               "update %.3f solve %.3f\n",
               c->impl, c->phase[0], c->phase[1], c->phase[2], c->phase[3], c->phase[4],
               c->phase[5]);
      nc++;
    }
  }
  if (rank == 0) {
    printf("{\"bench\": \"lu\", \"ranks\": %d, \"grid\": \"%dx%d\", \"nb\": %d, \"reps\": %d, "
           "\"cases\": [",
           P, o.M, o.N, o.nb, o.reps);
    for (int i = 0; i < nc; i++) {
      const bcase *c = &cases[i];
      double rl = 0, rs = 0;
      for (int q = 0; q < nc; q++) {
        if (cases[q].n != c->n) continue;
        if (!strcmp(cases[q].impl, "lapack")) rl = cases[q].med_s / c->med_s;
        if (!strcmp(cases[q].impl, "scalapack")) rs = cases[q].med_s / c->med_s;
      }
      printf("%s{\"impl\": \"%s\", \"n\": %lld, \"nb\": %d, \"grid\": \"%dx%d\", \"threads\": %d, "
             "\"gflops\": %.4f, \"seconds\": %.5f, \"residual\": %.4g, \"ratio_lapack\": %.4f, "
             "\"ratio_scalapack\": %.4f}",
             i ? ", " : "", c->impl, (long long)c->n, c->nb, c->M, c->N, c->threads, c->med_gf,
             c->med_s, c->resid, rl, rs);
    }
    printf("]}\n");
  }
  hgrid_free(&g);
  hbsp_free(&env);
  MPI_Finalize();
  return 0;
}
