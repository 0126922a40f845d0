/* hla — thread policy for the node-local kernels: BLAS and OpenMP threads per rank. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <limits.h>
#include <sched.h>
#include <unistd.h>
#include <cblas.h>
#include <omp.h>
#include "kernels/kernels.h"

int hkern_node_cores(void) {
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c >= 1 && c <= INT_MAX ? (int)c : 1;
}

int hkern_affinity_cores(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return hkern_node_cores();
  int c = CPU_COUNT(&set);
  return c >= 1 ? c : 1;
}

int hkern_threads_choose(int requested, int ranks_on_node, int cores_on_node, int affinity_cores) {
  if (requested > 0) return requested; /* the user's explicit choice wins, oversubscribed or not */
  int t;
  if (ranks_on_node < 1) ranks_on_node = 1;
  if (cores_on_node < 1) cores_on_node = 1;
  t = cores_on_node / ranks_on_node;
  /* A rank bound to fewer cores than its share would oversubscribe them. */
  if (affinity_cores >= 1 && t > affinity_cores) t = affinity_cores;
  return t >= 1 ? t : 1;
}

int hkern_threads_apply(int requested, int ranks_on_node, int *nthreads) {
  int t =
      hkern_threads_choose(requested, ranks_on_node, hkern_node_cores(), hkern_affinity_cores());
  openblas_set_num_threads(t);
  omp_set_num_threads(t);
  if (nthreads != NULL) *nthreads = t;
  return HLA_OK;
}

int hkern_threads_get(void) {
  return openblas_get_num_threads();
}
