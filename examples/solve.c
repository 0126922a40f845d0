/* solve — multiply two matrices and solve Ax = b with hla, and compare with the node's limit.
 *
 *   mpiexec -n 2 ./solve [n]        (n = 4096 by default)
 *
 * 1. C = A B with hmatmul, and A x = b with hla_gesv, on a process grid hla chooses (opts = NULL:
 *    automatic; the report says what ran and why).
 * 2. The node limit in the same run: rank 0 alone runs OpenBLAS dgemm and LAPACK dgetrf+dgetrs on
 *    a copy of the same matrices with every core of the node, while the other ranks wait.
 *    Every case runs twice and the second run is timed: the first call in a process also pays for
 *    first touches of fresh memory and MPI's first messages (hla's first calls are printed too).
 * 3. GFLOP/s, the ratio to the node limit, and HPL's scaled residual
 *    ||A x - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n), which passes below 16.
 * Exit status 0 when the residual passes and the product matches the node's within 1e-12
 * (relative, max norm).
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "hla.h"

#define CHECK(env, call)                                                                           \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_ != HLA_OK) {                                                                           \
      fprintf(stderr, "solve: %s failed: %s (%s)\n", #call, hla_strerror(rc_), hbsp_errmsg(env));  \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

/* A reproducible matrix: entry (i, j) depends on i, j and a seed only, so every grid and the
 * single-process reference see the same numbers. Diagonally weighted so the solve is well posed. */
static double entry(int64_t i, int64_t j, void *seed) {
  uint64_t z =
      (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)j * 0xC2B2AE3D27D4EB4Full ^ *(uint64_t *)seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53 - 0.5 + (i == j ? 1.0 : 0.0);
}

/* The node-limit runs get the same kind of memory as hla's matrices (2 MiB-aligned, huge pages
 * asked for), touched before any timing: otherwise they would time page faults, not dgemm. */
static double *big_alloc(int64_t count) {
  size_t bytes =
      ((size_t)count * sizeof(double) + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
  void *p = NULL;
  if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
  memset(p, 0, bytes);
  return p;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t n = argc > 1 ? atoll(argv[1]) : 4096;
  if (n < 1) n = 4096;
  hbsp_env world;
  CHECK(NULL, hbsp_init(MPI_COMM_WORLD, &world));
  int rank = hbsp_rank(world), P = hbsp_size(world);

  hgrid g;
  CHECK(world, hgrid_create(world, 0, 0, &g)); /* shape chosen by hla */
  int M, N;
  hgrid_shape(g, &M, &N, NULL, NULL);
  hmat A, B, C, X;
  uint64_t sa = 1, sb = 2, sx = 3;
  CHECK(world, hmat_create(g, n, n, 0, 0, &A));
  CHECK(world, hmat_create(g, n, n, 0, 0, &B));
  CHECK(world, hmat_create(g, n, n, 0, 0, &C));
  CHECK(world, hmat_create(g, n, 1, 0, 0, &X));
  hmat_fill(A, entry, &sa);
  hmat_fill(B, entry, &sb);
  hmat_fill(X, entry, &sx); /* b */
  int mb, nb;
  hmat_blocks(A, &mb, &nb);

  /* ---- hla: multiply, then solve (A and X are overwritten by the factors and the solution) */
  hla_report rep;
  hla_opts opts = HLA_OPTS_INIT;
  opts.report = &rep;
  double t_mm1 = 0, t_mm = 0, t;
  for (int run = 0; run < 2; run++) {
    MPI_Barrier(MPI_COMM_WORLD);
    t = hbsp_time();
    CHECK(world, hmatmul('N', 'N', 1.0, A, B, 0.0, C, &opts));
    MPI_Barrier(MPI_COMM_WORLD);
    *(run ? &t_mm : &t_mm1) = hbsp_time() - t;
  }
  char mm_why[256];
  snprintf(mm_why, sizeof mm_why, "%s", rep.why);

  double *G = NULL, *Gb = NULL, *Gc = NULL, *Gx = NULL;
  if (rank == 0) {
    G = big_alloc(n * n);
    Gb = big_alloc(n * n);
    Gc = big_alloc(n * n);
    Gx = malloc(sizeof(double) * (size_t)n);
  }
  CHECK(world, hmat_gather(A, 0, G, n)); /* keep A and b for the residual */
  CHECK(world, hmat_gather(C, 0, Gc, n));
  double *Gbvec = rank == 0 ? malloc(sizeof(double) * (size_t)n) : NULL;
  CHECK(world, hmat_gather(X, 0, Gbvec, n));

  int64_t *ipiv = malloc(sizeof(int64_t) * (size_t)n);
  double t_lu1 = 0, t_lu = 0;
  for (int run = 0; run < 2; run++) { /* the first on copies: gesv overwrites A and b */
    hmat A1 = A, X1 = X;
    if (run == 0) CHECK(world, hmat_dup(A, &A1));
    if (run == 0) CHECK(world, hmat_dup(X, &X1));
    MPI_Barrier(MPI_COMM_WORLD);
    t = hbsp_time();
    CHECK(world, hla_gesv(A1, ipiv, X1, &opts));
    MPI_Barrier(MPI_COMM_WORLD);
    *(run ? &t_lu : &t_lu1) = hbsp_time() - t;
    if (run == 0) hmat_free(&A1), hmat_free(&X1);
  }
  CHECK(world, hmat_gather(X, 0, Gx, n));

  /* ---- the node limit: rank 0 alone with every core */
  double t_mm_node = 0, t_lu_node = 0, mm_err = 0, resid = 0;
  if (rank == 0) {
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    openblas_set_num_threads(cores);
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < n; i++) Gb[i + j * n] = entry(i, j, &sb);
    double *Cn = big_alloc(n * n), t0;
    for (int run = 0; run < 2; run++) { /* the second is timed, as hla's */
      t0 = MPI_Wtime();
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, G, (int)n,
                  Gb, (int)n, 0.0, Cn, (int)n);
      t_mm_node = MPI_Wtime() - t0;
    }
    double cmax = 0;
    for (int64_t i = 0; i < n * n; i++) {
      mm_err = fmax(mm_err, fabs(Cn[i] - Gc[i]));
      cmax = fmax(cmax, fabs(Cn[i]));
    }
    mm_err /= cmax > 0 ? cmax : 1;
    /* LAPACK on a copy (Cn is reused) */
    double *bn = malloc(sizeof(double) * (size_t)n);
    lapack_int *lp = malloc(sizeof(lapack_int) * (size_t)n);
    for (int run = 0; run < 2; run++) {
      memcpy(Cn, G, sizeof(double) * (size_t)(n * n));
      memcpy(bn, Gbvec, sizeof(double) * (size_t)n);
      t0 = MPI_Wtime();
      LAPACKE_dgetrf(LAPACK_COL_MAJOR, (int)n, (int)n, Cn, (int)n, lp);
      LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', (int)n, 1, Cn, (int)n, lp, bn, (int)n);
      t_lu_node = MPI_Wtime() - t0;
    }
    /* HPL's residual of hla's solution */
    double anorm = 0, xnorm = 0, bnorm = 0, rnorm = 0;
    for (int64_t i = 0; i < n; i++) {
      double row = 0, r = -Gbvec[i];
      for (int64_t j = 0; j < n; j++) row += fabs(G[i + j * n]), r += G[i + j * n] * Gx[j];
      anorm = fmax(anorm, row), xnorm = fmax(xnorm, fabs(Gx[i]));
      bnorm = fmax(bnorm, fabs(Gbvec[i])), rnorm = fmax(rnorm, fabs(r));
    }
    resid = rnorm / (2.220446049250313e-16 * (anorm * xnorm + bnorm) * (double)n);
    free(Cn), free(bn), free(lp);
    openblas_set_num_threads(1);
  }
  CHECK(world, hbsp_idle_barrier(world)); /* the others sleep: rank 0 had the cores to itself */

  int ok = 1;
  if (rank == 0) {
    double f_mm = 2.0 * n * n * n, f_lu = 2.0 / 3.0 * n * n * n + 2.0 * n * n;
    printf("hla demo: n = %lld on %d ranks, grid %d x %d, blocks %d x %d (second run of each; "
           "bench/ has medians)\n",
           (long long)n, P, M, N, mb, nb);
    printf("  multiply  hmatmul   %8.2f GFLOP/s   node dgemm        %8.2f GFLOP/s   ratio %.2f"
           "   (hla's first call %.2f GFLOP/s)\n",
           f_mm / t_mm * 1e-9, f_mm / t_mm_node * 1e-9, t_mm_node / t_mm, f_mm / t_mm1 * 1e-9);
    printf("            %s; max relative difference to the node's product %.2e\n", mm_why, mm_err);
    printf("  solve     hla_gesv  %8.2f GFLOP/s   node dgetrf+dgetrs %7.2f GFLOP/s   ratio %.2f"
           "   (hla's first call %.2f GFLOP/s)\n",
           f_lu / t_lu * 1e-9, f_lu / t_lu_node * 1e-9, t_lu_node / t_lu, f_lu / t_lu1 * 1e-9);
    printf("            %s\n", rep.why);
    printf("  residual  ||Ax-b||/(eps (||A|| ||x|| + ||b||) n) = %.3g  %s\n", resid,
           resid < 16 ? "PASSED" : "FAILED");
    ok = resid < 16 && mm_err < 1e-12;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(G), free(Gb), free(Gc), free(Gx), free(Gbvec), free(ipiv);
  hmat_free(&A), hmat_free(&B), hmat_free(&C), hmat_free(&X);
  hgrid_free(&g);
  hbsp_free(&world);
  MPI_Finalize();
  return ok ? 0 : 1;
}
