/* hla test harness: a CUnit main() that runs under mpiexec.
 *
 * Every rank runs every test; a failed assertion on any rank fails the program, and rank 0 prints
 * the failures of all ranks (prefixed by rank) and one summary. Tests must not use the _FATAL
 * asserts around collective calls: a rank that leaves a test early would leave its peers waiting.
 */
#ifndef HLA_TEST_HARNESS_H
#define HLA_TEST_HARNESS_H

#include <CUnit/CUnit.h>
#include <mpi.h>
#include <stdint.h>
#include "hla.h"

/* Each test program defines this: it adds its suites and tests to the CUnit registry. */
void hla_test_register(void);

/* Add a test function to a suite under its own name. */
#define HT_ADD(suite, fn) CU_add_test((suite), #fn, (fn))

int ht_rank(void); /* rank in MPI_COMM_WORLD */
int ht_size(void);

/* Seeded portable generator (splitmix64): the same sequence on every platform and grid. */
uint64_t ht_rand_u64(uint64_t *state);
double ht_rand_uniform(uint64_t *state); /* in [-0.5, 0.5) */
/* Entry (i, j) of a reproducible random matrix: a pure function of (seed, i, j). */
double ht_rand_entry(uint64_t seed, int64_t i, int64_t j);

/* True on every rank iff cond holds on every rank of comm (for asserting global facts). */
int ht_all(MPI_Comm comm, int cond);

#endif
