/* hla test harness, the part without MPI: see unit.h. */
#include "unit.h"
#include <stdio.h>
#include <string.h>

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

CU_pSuite ht_suite(const char *name, const char *names, const CU_TestFunc *fns, size_t n) {
  CU_pSuite s = CU_add_suite(name, NULL, NULL);
  const char *p = names;
  for (size_t k = 0; k < n; k++) {
    char one[128];
    size_t len = 0;
    while (*p == ',' || *p == ' ') p++;
    while (*p && *p != ',' && *p != ' ') {
      if (len + 1 < sizeof one) one[len++] = *p;
      p++;
    }
    one[len] = 0;
    CU_add_test(s, one, fns[k]);
  }
  return s;
}
