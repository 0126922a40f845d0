/* hla test harness, the part without MPI: registration of the tests and a seeded generator.
 * harness.h adds the MPI main() and the helpers for grids and matrices; a test that needs no MPI
 * (a line "@nompi" in it: pure functions, run without mpiexec) includes this alone and is linked
 * with unit_main.c instead.
 */
#ifndef HLA_TEST_UNIT_H
#define HLA_TEST_UNIT_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

/* Each test program defines this: it adds its suites and tests to the CUnit registry. */
void hla_test_register(void);

/* A suite of the test functions named, each under its own name:
 *   HT_SUITE("lu", test_solve, test_singular); */
#define HT_SUITE(name, ...)                                                                        \
  ht_suite((name), #__VA_ARGS__, (const CU_TestFunc[]){__VA_ARGS__},                               \
           sizeof((const CU_TestFunc[]){__VA_ARGS__}) / sizeof(CU_TestFunc))
/* names: the functions' names, separated by commas (what HT_SUITE's # makes of its list). */
CU_pSuite ht_suite(const char *name, const char *names, const CU_TestFunc *fns, size_t n);

/* Seeded portable generator (splitmix64): the same sequence on every platform and grid. */
uint64_t ht_rand_u64(uint64_t *state);
double ht_rand_uniform(uint64_t *state); /* in [-0.5, 0.5) */
/* Entry (i, j) of a reproducible random matrix: a pure function of (seed, i, j). */
double ht_rand_entry(uint64_t seed, int64_t i, int64_t j);

#endif
