/* hla test harness: a CUnit main() that runs under mpiexec, and the helpers the test programs
 * share (registration, grids, matrices).
 *
 * Every rank runs every test; a failed assertion on any rank fails the program, and rank 0 prints
 * the failures of all ranks (prefixed by rank) and one summary. Tests must not use the _FATAL
 * asserts around collective calls: a rank that leaves a test early would leave its peers waiting.
 */
#ifndef HLA_TEST_HARNESS_H
#define HLA_TEST_HARNESS_H

#include <CUnit/CUnit.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "hla.h"
#include "unit.h"

int ht_rank(void); /* rank in MPI_COMM_WORLD */
int ht_size(void);

/* An environment over MPI_COMM_WORLD (a failed hbsp_init ends the test). */
hbsp_env ht_world(void);

/* True on every rank iff cond holds on every rank of comm (for asserting global facts). */
int ht_all(MPI_Comm comm, int cond);
/* True on every rank iff s is the same text on every rank of the world (error messages). */
int ht_same_text(const char *s);

/* ---------------------------------------------------------------- matrices */

/* An entry function of global (i, j), as hmat_fill takes it. */
typedef double (*ht_entry_fn)(int64_t i, int64_t j, void *ctx);

/* ht_rand_entry(*(uint64_t *)seed, i, j): the random matrix of a seed, for hmat_fill. */
double ht_entry(int64_t i, int64_t j, void *seed);

/* An m x n matrix on g with mb x nb blocks, filled with f(i, j, ctx) unless f is NULL (the
 * creation is asserted). Collective over g. */
hmat ht_mat(hgrid g, int64_t m, int64_t n, int mb, int nb, ht_entry_fn f, void *ctx);

/* A gathered m x n copy (leading dimension max(m, 1)) on rank 0 of A's grid; the other ranks get
 * a buffer they do not read. The caller frees it. Collective over A's grid. */
double *ht_gather(hmat A);

/* 1 iff every local entry of A is f(i, j, ctx) at its global (i, j). Local: this rank's part. */
int ht_local_is(hmat A, ht_entry_fn f, void *ctx);

/* How many of the n entries of a and b differ (!=, so a NaN always counts). */
int64_t ht_ndiff(const double *a, const double *b, int64_t n);

/* ---------------------------------------------------------------- grids */

/* A test's grid: M x N on the first M N ranks of the world, over a sub-environment of those ranks
 * (tgrid_open, tgrid_each), or over the world itself (tgrid_world, tgrid_each_world). */
typedef struct {
  hbsp_env world, sub; /* sub: NULL for a grid over the world and on the ranks left out */
  hgrid g;
  int M, N, member, rank; /* rank in the grid's ALL */
  int shape, nshapes;     /* tgrid_each*: the shape's index in its list, and the list's length */
  int own_world;          /* tgrid_close frees the world too (tgrid_world) */
} tgrid;

/* Up to this many shapes in a list. */
#define TGRID_MAXSHAPES 16

/* An M x N grid on the first M N ranks of world; the others are not members (t->g NULL). */
int tgrid_open(hbsp_env world, int M, int N, tgrid *t);
/* A grid over a new world environment: M x N, or the automatic shape for 0 x 0 (the creation is
 * asserted). */
tgrid tgrid_world(int M, int N);
/* Frees the grid and its environments (asserting hgrid_free and hbsp_free). */
void tgrid_close(tgrid *t);

/* The grid shapes of the LU tests that fit in P ranks (1x1, 1xP, Px1, 2x3, 3x2, 2x2, 2x1, 1x2,
 * each once). Returns the count. */
int tgrid_shapes(int P, int shapes[][2]);
/* Every grid shape M x N = P, M ascending. Returns the count. */
int tgrid_factors(int P, int shapes[][2]);

/* What a test runs on one grid; ctx is the test's own. */
typedef void (*tgrid_fn)(const tgrid *t, void *ctx);
/* For each shape of tgrid_shapes(world size): opens the sub-grid, runs fn(&t, ctx) on its members
 * (the other ranks go on to the next shape's split and wait there), closes it. */
void tgrid_each(tgrid_fn fn, void *ctx);
/* For each shape of tgrid_factors(world size): a grid over the world (one world environment for
 * all of them), fn(&t, ctx) on every rank. */
void tgrid_each_world(tgrid_fn fn, void *ctx);

#endif
