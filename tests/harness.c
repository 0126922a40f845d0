/* hla test harness: see harness.h. */
#include "harness.h"
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ht_rank(void) {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int ht_size(void) {
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

uint64_t ht_rand_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double ht_rand_uniform(uint64_t *s) {
  return (double)(ht_rand_u64(s) >> 11) * 0x1.0p-53 - 0.5;
}

double ht_rand_entry(uint64_t seed, int64_t i, int64_t j) {
  uint64_t s = seed ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)j * 0xC2B2AE3D27D4EB4Full);
  ht_rand_u64(&s);
  return ht_rand_uniform(&s);
}

int ht_all(MPI_Comm comm, int cond) {
  int c = cond ? 1 : 0, all = 0;
  MPI_Allreduce(&c, &all, 1, MPI_INT, MPI_MIN, comm);
  return all;
}

/* Format this rank's failure records into one string. */
static char *failure_text(int rank) {
  size_t cap = 1024, n = 0;
  char *s = malloc(cap);
  s[0] = 0;
  for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext) {
    char line[1024];
    int k = snprintf(line, sizeof line, "  rank %d: %s: %s:%u: %s\n", rank,
                     f->pTest ? f->pTest->pName : "?", f->strFileName ? f->strFileName : "?",
                     f->uiLineNumber, f->strCondition ? f->strCondition : "?");
    if (k < 0) continue;
    if (n + (size_t)k + 1 > cap) {
      while (n + (size_t)k + 1 > cap) cap *= 2;
      s = realloc(s, cap);
    }
    memcpy(s + n, line, (size_t)k + 1);
    n += (size_t)k;
  }
  return s;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = ht_rank(), size = ht_size();
  if (CU_initialize_registry() != CUE_SUCCESS) {
    fprintf(stderr, "CUnit: cannot initialise the registry\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  hla_test_register();
  CU_basic_set_mode(rank == 0 ? CU_BRM_VERBOSE : CU_BRM_SILENT);
  if (rank == 0) printf("hla tests at P = %d\n", size);
  fflush(stdout);
  CU_basic_run_tests();

  /* Collect the failures of every rank on rank 0. */
  unsigned nfail = CU_get_number_of_failures(), nasserts = CU_get_number_of_asserts();
  unsigned tot_fail = 0, tot_asserts = 0;
  MPI_Reduce(&nfail, &tot_fail, 1, MPI_UNSIGNED, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&nasserts, &tot_asserts, 1, MPI_UNSIGNED, MPI_SUM, 0, MPI_COMM_WORLD);
  char *mine = failure_text(rank);
  int len = (int)strlen(mine);
  int *lens = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
  int *displs = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
  MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char *all = NULL;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; r++) displs[r] = total, total += lens[r];
    all = calloc((size_t)total + 1, 1);
  }
  MPI_Gatherv(mine, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
  unsigned my_failed_tests = CU_get_run_summary()->nTestsFailed, failed_tests = 0;
  MPI_Reduce(&my_failed_tests, &failed_tests, 1, MPI_UNSIGNED, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (tot_fail) printf("\nFailures on all ranks:\n%s", all);
    printf("\nhla: P = %d: %u asserts on all ranks, %u failed\n", size, tot_asserts, tot_fail);
    fflush(stdout);
  }
  free(mine);
  free(all);
  free(lens);
  free(displs);
  int code = 0;
  if (rank == 0) code = tot_fail ? 1 : 0;
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CU_cleanup_registry();
  MPI_Finalize();
  return code;
}
