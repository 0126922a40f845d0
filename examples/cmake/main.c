/* A program outside hla's tree, built against an installed hla: with CMake (find_package(hla),
 * CMakeLists.txt beside this file) or with the MPI wrapper and pkg-config. It makes B = A X for a
 * known X with hmatmul, solves A Y = B with hla_gesv, and checks that Y is X.
 *
 *   mpiexec -n 2 ./hla_example [n]      (n = 500 by default; any number of ranks)
 *
 * Exit status 0 when max |Y - X| is within rounding of cond(A) (below 1e-10 for this A). */
#include <hla.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Diagonally dominant, so that the check's bound holds whatever n. */
static double a_ij(int64_t i, int64_t j, void *ctx) {
  (void)ctx;
  return (i == j ? 2.0 : 0.0) + 1.0 / (double)(1 + i + j);
}

static double x_ij(int64_t i, int64_t j, void *ctx) {
  (void)ctx;
  return 1.0 + (double)((i * 7 + j * 3) % 11) / 8.0;
}

#define CHECK(env, call)                                                                           \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_ != HLA_OK) {                                                                           \
      fprintf(stderr, "hla_example: %s failed: %s (%s)\n", #call, hla_strerror(rc_),               \
              hbsp_errmsg(env));                                                                   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t n = argc > 1 ? atoll(argv[1]) : 500, nrhs = 3;
  hbsp_env world;
  CHECK(NULL, hbsp_init(MPI_COMM_WORLD, &world));
  hgrid g;
  CHECK(world, hgrid_create(world, 0, 0, &g));
  hmat A, X, B;
  CHECK(world, hmat_create(g, n, n, 0, 0, &A));
  CHECK(world, hmat_create(g, n, nrhs, 0, 0, &X));
  CHECK(world, hmat_create(g, n, nrhs, 0, 0, &B));
  CHECK(world, hmat_fill(A, a_ij, NULL));
  CHECK(world, hmat_fill(X, x_ij, NULL));
  CHECK(world, hmatmul('N', 'N', 1.0, A, X, 0.0, B, NULL)); /* B = A X */

  int64_t *ipiv = malloc((size_t)(n > 0 ? n : 1) * sizeof *ipiv);
  if (ipiv == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  hla_report rep;
  hla_opts opts = HLA_OPTS_INIT;
  opts.report = &rep;
  CHECK(world, hla_gesv(A, ipiv, B, &opts)); /* B := A^-1 B, which should be X again */

  /* Each rank compares its own part of B with the rule, then the worst over the ranks. */
  double *b, err = 0.0, worst;
  int64_t lld, mloc, nloc;
  CHECK(world, hmat_local(B, &b, &lld, &mloc, &nloc));
  for (int64_t j = 0; j < nloc; j++)
    for (int64_t i = 0; i < mloc; i++)
      err = fmax(err, fabs(b[i + j * lld] - x_ij(hmat_l2g_row(B, i), hmat_l2g_col(B, j), NULL)));
  MPI_Allreduce(&err, &worst, 1, MPI_DOUBLE, MPI_MAX, hbsp_comm(world));
  int ok = worst < 1e-10;
  if (hbsp_rank(world) == 0)
    printf("n = %lld on %d x %d ranks, %d threads each: max |Y - X| = %.2e: %s\n(%s)\n",
           (long long)n, rep.M, rep.N, rep.threads, worst, ok ? "ok" : "FAILED", rep.why);

  free(ipiv);
  hmat_free(&A), hmat_free(&X), hmat_free(&B);
  hgrid_free(&g);
  hbsp_free(&world);
  MPI_Finalize();
  return ok ? 0 : 1;
}
