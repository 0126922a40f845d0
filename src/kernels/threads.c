/* hla — thread policy for the node-local kernels: BLAS and OpenMP threads per rank. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <limits.h>
#include <sched.h>
#include <stdint.h>
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

static void mask_words(const cpu_set_t *set, uint64_t w[HKERN_CPU_WORDS]) {
  for (int i = 0; i < HKERN_CPU_WORDS; i++) w[i] = 0;
  for (int c = 0; c < 64 * HKERN_CPU_WORDS && c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, set)) w[c / 64] |= (uint64_t)1 << (c % 64);
}

int hkern_affinity_masks(uint64_t own[HKERN_CPU_WORDS], uint64_t launcher[HKERN_CPU_WORDS]) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    for (int c = 0; c < hkern_node_cores() && c < CPU_SETSIZE; c++) CPU_SET(c, &set);
  mask_words(&set, own);
  /* Launchers bind the rank after they fork it (Open MPI, MPICH's hydra): the parent keeps the
   * mask the launch had, cgroup limits included, where the node's core count (sysconf) would
   * count cores a container cannot use. A rank under a wrapper script the launcher bound sees a
   * bound parent: no advice then rather than a false one. */
  CPU_ZERO(&set);
  if (sched_getaffinity(getppid(), sizeof set, &set) != 0) {
    for (int i = 0; i < HKERN_CPU_WORDS; i++) launcher[i] = own[i];
    return 0;
  }
  mask_words(&set, launcher);
  return 1;
}

int hkern_threads_unbound(int requested, int ranks_on_node, int cores_on_node, int launcher_cores,
                          int threads) {
  if (requested > 0) return 0;
  int t = hkern_threads_choose(0, ranks_on_node, cores_on_node, launcher_cores);
  return t > threads ? t : 0;
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
