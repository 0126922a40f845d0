/* hla test harness: the CUnit main() of a test that needs no MPI ("@nompi"), run without mpiexec.
 * The closing lines are CUnit's own. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include "unit.h"

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) {
    fprintf(stderr, "CUnit: cannot initialise the registry\n");
    return 2;
  }
  hla_test_register();
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned nfail = CU_get_number_of_failures();
  int tests_failed = (int)CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  return nfail > 0 || tests_failed > 0 ? 1 : 0;
}
