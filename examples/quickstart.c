/* quickstart — the smallest complete use of hla: C = A B and A x = b on a grid hla picks, with a
 * check of both answers. The README's "Using it" shows this file.
 *
 *   mpiexec -n 4 ./quickstart [n]      (n = 1000 by default; any number of ranks)
 *
 * Exit status 0 when A x = b and C = A B hold to rounding (scaled errors below 16). */
#include <hla.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Entry (i, j) of A: a rule of the global indices, so every rank fills its own part. */
static double a_ij(int64_t i, int64_t j, void *ctx) {
  (void)ctx;
  return (i == j ? 4.0 : 0.0) + 1.0 / (double)(1 + i + 2 * j);
}

/* Every hla call returns HLA_OK or the same error code on every rank (the same as the other
 * examples' CHECK; each example is one file, to copy on its own). */
#define CHECK(env, call)                                                                           \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_ != HLA_OK) {                                                                           \
      fprintf(stderr, "quickstart: %s failed: %s (%s)\n", #call, hla_strerror(rc_),                \
              hbsp_errmsg(env));                                                                   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t n = argc > 1 ? atoll(argv[1]) : 1000;
  hbsp_env world;
  CHECK(NULL, hbsp_init(MPI_COMM_WORLD, &world));

  hgrid g;
  CHECK(world,
        hgrid_create(world, 0, 0, &g)); /* 0 x 0: hla picks the grid shape (and threads per rank) */
  hmat A, B, C, X;
  CHECK(world, hmat_create(g, n, n, 0, 0, &A)); /* block sizes 0 x 0: hla picks them */
  CHECK(world, hmat_create(g, n, n, 0, 0, &B));
  CHECK(world, hmat_create(g, n, n, 0, 0, &C));
  CHECK(world, hmat_create(g, n, 1, 0, 0, &X));
  CHECK(world,
        hmat_fill(A, a_ij, NULL)); /* or hmat_scatter from one rank, or write hmat_local's array */
  CHECK(world, hmat_set(B, 1.0, 2.0)); /* ones, and twos on the diagonal */
  CHECK(world, hmat_set(X, 1.0, 1.0)); /* b = ones */

  CHECK(world, hmatmul('N', 'N', 1.0, A, B, 0.0, C, NULL)); /* C = A B */

  /* A x = b: hla_gesv overwrites A with its LU factors and X (b) with x, so keep a copy of A. */
  hmat A0;
  CHECK(world, hmat_dup(A, &A0));
  int64_t *ipiv = malloc((size_t)(n > 0 ? n : 1) * sizeof *ipiv); /* replicated pivots */
  if (ipiv == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  CHECK(world, hla_gesv(A, ipiv, X, NULL));

  /* Checks. Solve: R = A0 x - b against ||A0|| ||x|| (HPL's scaled residual, with ||b|| = 1).
   * Product: C x against A0 (B x), two ways to the same vector. */
  hmat R, U, V;
  CHECK(world, hmat_create(g, n, 1, 0, 0, &R));
  CHECK(world, hmat_create(g, n, 1, 0, 0, &U));
  CHECK(world, hmat_create(g, n, 1, 0, 0, &V));
  CHECK(world, hmat_set(R, 1.0, 1.0));
  CHECK(world, hmatmul('N', 'N', 1.0, A0, X, -1.0, R, NULL)); /* R = A0 x - b */
  CHECK(world, hmatmul('N', 'N', 1.0, B, X, 0.0, U, NULL));   /* U = B x */
  CHECK(world, hmatmul('N', 'N', 1.0, C, X, 0.0, V, NULL));   /* V = C x */
  CHECK(world, hmatmul('N', 'N', 1.0, A0, U, -1.0, V, NULL)); /* V = A0 (B x) - C x */
  double rnorm, anorm, xnorm, vnorm, cnorm, eps = 0x1p-53;
  CHECK(world, hmat_norm(R, 'I', &rnorm));
  CHECK(world, hmat_norm(A0, 'I', &anorm));
  CHECK(world, hmat_norm(X, 'I', &xnorm));
  CHECK(world, hmat_norm(V, 'I', &vnorm));
  CHECK(world, hmat_norm(C, 'I', &cnorm));
  double solve_err = n > 0 ? rnorm / (eps * (anorm * xnorm + 1.0) * (double)n) : 0.0;
  double mult_err = n > 0 ? vnorm / (eps * cnorm * xnorm * (double)n) : 0.0;
  int M, N, mb, nb, ok = solve_err < 16.0 && mult_err < 16.0;
  CHECK(world, hgrid_shape(g, &M, &N, NULL, NULL));
  CHECK(world, hmat_blocks(C, &mb, &nb));
  if (hbsp_rank(world) == 0)
    printf("n = %lld, %d x %d grid, %d x %d blocks: scaled errors (pass below 16): "
           "A x = b %.3f, C = A B %.3f: %s\n",
           (long long)n, M, N, mb, nb, solve_err, mult_err, ok ? "ok" : "FAILED");

  free(ipiv);
  hmat_free(&A), hmat_free(&A0), hmat_free(&B), hmat_free(&C), hmat_free(&X);
  hmat_free(&R), hmat_free(&U), hmat_free(&V);
  hgrid_free(&g);
  hbsp_free(&world);
  MPI_Finalize();
  return ok ? 0 : 1;
}
