/* scalapack_timer — an ordinary ScaLAPACK program (BLACS grid, descriptors, pdgesv_ and pdgemm_;
 * nothing of hla in it) that times a solve and a multiply, so that the same binary runs on
 * ScaLAPACK and, under LD_PRELOAD=libhla_scalapack.so, on hla (bench/compare_scalapack.sh runs
 * both side by side):
 *
 *   mpiexec -n P ./scalapack_timer N NB P_ROWS Q_COLS [REPS]
 *
 * Per operation one line: the median seconds of REPS runs (after one warm-up), GFLOP/s (pdgesv:
 * (2/3 n^3 + 2 n^2) / t, as HPL; pdgemm: 2 n^3 / t) and a check: pdgesv's HPL scaled residual
 * ||Ax - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n), computed with pdgemm_ and pdlange_
 * (below 16 passes), pdgemm's max |C - C_ref| against a product of known structure.
 *
 * @needs scalapack @plain
 */
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scalapack_decl.h"

/* A reproducible entry of global (i, j) in [-0.5, 0.5) (splitmix64 of the pair). */
static double entry(uint64_t seed, int64_t i, int64_t j) {
  uint64_t z = seed ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)j * 0xC2B2AE3D27D4EB4Full);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53 - 0.5;
}

/* Fill my part of an m x n matrix (blocks nb, source process 0) by entry(seed). */
static void fill(double *a, int lld, int m, int n, int nb, int myr, int myc, int P, int Q,
                 uint64_t seed) {
  int zero = 0, ml = numroc_(&m, &nb, &myr, &zero, &P), nl = numroc_(&n, &nb, &myc, &zero, &Q);
  for (int jl = 0; jl < nl; jl++) {
    int64_t j = (int64_t)(jl / nb * Q + myc) * nb + jl % nb;
    for (int il = 0; il < ml; il++) {
      int64_t i = (int64_t)(il / nb * P + myr) * nb + il % nb;
      a[il + (int64_t)jl * lld] = entry(seed, i, j);
    }
  }
}

static int cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 5) {
    fprintf(stderr, "usage: scalapack_timer N NB P_ROWS Q_COLS [REPS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int n = atoi(argv[1]), nb = atoi(argv[2]), P = atoi(argv[3]), Q = atoi(argv[4]);
  int reps = argc > 5 ? atoi(argv[5]) : 3, me, np, ctxt, nr, nc, myr, myc, zero = 0, one = 1;
  Cblacs_pinfo(&me, &np);
  if (P * Q != np || n < 1 || nb < 1 || reps < 1 || reps > 32) {
    if (me == 0) fprintf(stderr, "scalapack_timer: %d x %d grid on %d ranks\n", P, Q, np);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", P, Q);
  Cblacs_gridinfo(ctxt, &nr, &nc, &myr, &myc);
  int ml = numroc_(&n, &nb, &myr, &zero, &P), nl = numroc_(&n, &nb, &myc, &zero, &Q);
  int nl1 = numroc_(&one, &nb, &myc, &zero, &Q), lld = ml > 1 ? ml : 1, info;
  int da[9], db[9];
  descinit_(da, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  descinit_(db, &n, &one, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  size_t sa = (size_t)lld * (nl > 0 ? nl : 1), sb = (size_t)lld * (nl1 > 0 ? nl1 : 1);
  double *A = malloc(sa * 8), *A0 = malloc(sa * 8), *B = malloc(sa * 8), *C = malloc(sa * 8);
  double *x = malloc(sb * 8), *b = malloc(sb * 8), *work = malloc((size_t)(ml + nl + 1) * 8);
  int *ipiv = malloc((size_t)(ml + nb) * sizeof *ipiv);
  double t[32];
  const double flu = 2.0 / 3 * (double)n * n * n + 2.0 * (double)n * n, fmm = 2.0 * n * n * n;

  /* pdgesv: the solve of a random system, copied afresh before each run (not timed) */
  fill(A0, lld, n, n, nb, myr, myc, P, Q, 1);
  fill(b, lld, n, 1, nb, myr, myc, P, Q, 2);
  for (int r = -1; r < reps; r++) {
    memcpy(A, A0, sa * 8), memcpy(x, b, sb * 8);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdgesv_(&n, &one, A, &one, &one, da, ipiv, x, &one, &one, db, &info);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r >= 0) t[r] = dt;
  }
  /* the residual: r = A0 x - b by pdgemm_ */
  double an = pdlange_("I", &n, &n, A0, &one, &one, da, work);
  double xn = pdlange_("I", &n, &one, x, &one, &one, db, work);
  double bn = pdlange_("I", &n, &one, b, &one, &one, db, work), pone = 1.0, mone = -1.0;
  pdgemm_("N", "N", &n, &one, &n, &pone, A0, &one, &one, da, x, &one, &one, db, &mone, b, &one,
          &one, db);
  double rn = pdlange_("I", &n, &one, b, &one, &one, db, work);
  double res = rn / (DBL_EPSILON * (an * xn + bn) * n);
  qsort(t, (size_t)reps, sizeof *t, cmp);
  double tl = t[reps / 2];
  if (me == 0)
    printf("pdgesv n=%d nb=%d grid=%dx%d seconds=%.4f gflops=%.2f residual=%.4g info=%d %s\n", n,
           nb, P, Q, tl, flu / tl * 1e-9, res, info, res < 16 && info == 0 ? "PASSED" : "FAILED");

  /* pdgemm: C = A B with B = A^T structure known: check against C = A0 B computed once more */
  fill(A, lld, n, n, nb, myr, myc, P, Q, 3);
  fill(B, lld, n, n, nb, myr, myc, P, Q, 4);
  double zero_d = 0.0;
  for (int r = -1; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pdgemm_("N", "N", &n, &n, &n, &pone, A, &one, &one, da, B, &one, &one, da, &zero_d, C, &one,
            &one, da);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r >= 0) t[r] = dt;
  }
  /* check: C x1 = A (B x1) for x1 = e (a vector of ones) by two more products */
  for (size_t i = 0; i < sb; i++) x[i] = 1.0;
  pdgemm_("N", "N", &n, &one, &n, &pone, B, &one, &one, da, x, &one, &one, db, &zero_d, b, &one,
          &one, db);
  double *y = malloc(sb * 8);
  pdgemm_("N", "N", &n, &one, &n, &pone, A, &one, &one, da, b, &one, &one, db, &zero_d, y, &one,
          &one, db);
  pdgemm_("N", "N", &n, &one, &n, &pone, C, &one, &one, da, x, &one, &one, db, &mone, y, &one, &one,
          db);
  double dn = pdlange_("I", &n, &one, y, &one, &one, db, work);
  double cn = pdlange_("I", &n, &n, C, &one, &one, da, work);
  double err = dn / (DBL_EPSILON * (cn > 0 ? cn : 1) * n);
  qsort(t, (size_t)reps, sizeof *t, cmp);
  double tm = t[reps / 2];
  if (me == 0)
    printf("pdgemm n=%d nb=%d grid=%dx%d seconds=%.4f gflops=%.2f check=%.4g %s\n", n, nb, P, Q, tm,
           fmm / tm * 1e-9, err, err < 16 ? "PASSED" : "FAILED");
  free(A), free(A0), free(B), free(C), free(x), free(b), free(y), free(work), free(ipiv);
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return 0;
}
