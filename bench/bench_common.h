/* hla benchmarks — what bench_lu, bench_mixed and bench_matmul share: the HPL-like matrix of the
 * solves, HPL's residual, the --only list, the sort of the medians and the grid's setup.
 * Header-only (static), as scalapack_decl.h. */
#ifndef HLA_BENCH_COMMON_H
#define HLA_BENCH_COMMON_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <mpi.h>
#include "hla.h"

/* ---------------------------------------------------------------- the matrix */

#define SEED_A 0x5eedULL
#define SEED_B 0xb0b0ULL

/* splitmix64 step, as tests/harness.c's generator, so that the matrices match the tests'. */
static inline uint64_t bench_mix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Entry (i, j) of the matrix of a seed: uniform in [-0.5, 0.5), a pure function of (seed, i, j),
 * so that every implementation and grid gets the same matrix. */
static inline double bench_gen(uint64_t seed, int64_t i, int64_t j) {
  uint64_t s = seed ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)j * 0xC2B2AE3D27D4EB4Full);
  bench_mix(&s);
  return (double)(bench_mix(&s) >> 11) * 0x1.0p-53 - 0.5;
}

/* A and b of the solves, for hmat_fill. */
static inline double bench_gen_a(int64_t i, int64_t j, void *ctx) {
  (void)ctx;
  return bench_gen(SEED_A, i, j);
}
static inline double bench_gen_b(int64_t i, int64_t j, void *ctx) {
  (void)ctx;
  return bench_gen(SEED_B, i, j);
}

/* HPL's residual ||A x - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n), eps = DBL_EPSILON,
 * of x (global, on every rank), recomputed from the generator: rows dealt cyclically over the
 * ranks of MPI_COMM_WORLD. A NaN anywhere in A x - b gives NaN. */
static inline double bench_residual(int64_t n, const double *x) {
  int P, me;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  double loc[2] = {0, 0}, glob[2]; /* max |r_i|, max row sum */
  double xn = 0.0, bn = 0.0;
  for (int64_t i = 0; i < n; i++) {
    xn = fmax(xn, fabs(x[i]));
    bn = fmax(bn, fabs(bench_gen(SEED_B, i, 0)));
  }
  for (int64_t i = me; i < n; i += P) {
    double s = -bench_gen(SEED_B, i, 0), rs = 0.0;
    for (int64_t j = 0; j < n; j++) {
      double a = bench_gen(SEED_A, i, j);
      s += a * x[j];
      rs += fabs(a);
    }
    if (!(fabs(s) <= loc[0])) loc[0] = fabs(s); /* NaN sticks */
    loc[1] = fmax(loc[1], rs);
  }
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return glob[0] / (DBL_EPSILON * (glob[1] * xn + bn) * (double)n);
}

/* ---------------------------------------------------------------- options and medians */

/* Is impl one of the comma-separated names of only ("" or NULL: every one)? */
static inline int bench_wanted(const char *only, const char *impl) {
  if (only == NULL || !only[0]) return 1;
  const char *p = strstr(only, impl);
  size_t k = strlen(impl);
  while (p && !((p[k] == 0 || p[k] == ',') && (p == only || p[-1] == ','))) p = strstr(p + 1, impl);
  return p != NULL;
}

/* qsort's comparison of doubles (for the medians). */
static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ---------------------------------------------------------------- setup */

/* The environment over MPI_COMM_WORLD and an M x N grid on it (0 x 0: hla's choice, read back into
 * *M, *N), and how many ranks share this rank's node (*ranks_on_node, may be NULL). 0 on success;
 * else 1 after a message on rank 0 (prog names the program), and the caller finalizes and exits.
 * Collective over MPI_COMM_WORLD. */
static inline int bench_setup(const char *prog, int *M, int *N, hbsp_env *env, hgrid *g,
                              int *ranks_on_node) {
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (hbsp_init(MPI_COMM_WORLD, env) != HLA_OK || hgrid_create(*env, *M, *N, g) != HLA_OK) {
    if (rank == 0) fprintf(stderr, "%s: cannot make a %d x %d grid on %d ranks\n", prog, *M, *N, P);
    return 1;
  }
  hgrid_shape(*g, M, N, NULL, NULL);
  if (ranks_on_node) {
    MPI_Comm shm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, ranks_on_node);
    MPI_Comm_free(&shm);
  }
  return 0;
}

#endif
