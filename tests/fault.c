/* Allocation fault injection: see fault.h. Test-only global state; one thread allocates while
 * armed (the tests run one BLAS/OpenMP thread per rank), but the counter is atomic anyway. */
#include "fault.h"
#include <errno.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stdlib.h>

void *__real_malloc(size_t bytes);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t bytes);
int __real_posix_memalign(void **p, size_t align, size_t bytes);
void *__real_aligned_alloc(size_t align, size_t bytes);

static atomic_int armed;
static atomic_long count, fail_at;
static void *site[2];
static int fired;
static void *trail[4096][4]; /* the call stacks of the allocations counted, when fault_trail asks */
static int want_trail;

void fault_arm(long k) {
  atomic_store(&count, 0);
  atomic_store(&fail_at, k);
  site[0] = site[1] = NULL, fired = 0;
  atomic_store(&armed, 1);
}

long fault_disarm(void) {
  atomic_store(&armed, 0);
  return atomic_load(&count);
}

int fault_fired(void) {
  return fired;
}

void *fault_site(int up) {
  return site[up != 0];
}

/* 1 if this allocation (from ret) is the one to fail. The caller of ret's function is found by
 * unwinding (only then, once per armed call): the library may be built without frame pointers. */
static int fail_now(void *ret) {
  if (!atomic_load(&armed)) return 0;
  long n = atomic_fetch_add(&count, 1) + 1;
  if (want_trail && n <= 4096) {
    void *bt[16];
    int nf = backtrace(bt, 16), i = 0;
    while (i < nf && bt[i] != ret) i++;
    for (int j = 0; j < 4; j++) trail[n - 1][j] = i + j < nf ? bt[i + j] : NULL;
  }
  if (n != atomic_load(&fail_at)) return 0;
  void *bt[8];
  int nf = backtrace(bt, 8);
  site[0] = ret, site[1] = NULL, fired = 1;
  for (int i = 0; i + 1 < nf; i++)
    if (bt[i] == ret) site[1] = bt[i + 1];
  return 1;
}

void *__wrap_malloc(size_t bytes) {
  return fail_now(__builtin_return_address(0)) ? NULL : __real_malloc(bytes);
}

void *__wrap_calloc(size_t n, size_t size) {
  return fail_now(__builtin_return_address(0)) ? NULL : __real_calloc(n, size);
}

/* A failed realloc leaves the block as it was, as the real one does. */
void *__wrap_realloc(void *p, size_t bytes) {
  return fail_now(__builtin_return_address(0)) ? NULL : __real_realloc(p, bytes);
}

int __wrap_posix_memalign(void **p, size_t align, size_t bytes) {
  return fail_now(__builtin_return_address(0)) ? ENOMEM : __real_posix_memalign(p, align, bytes);
}

void *__wrap_aligned_alloc(size_t align, size_t bytes) {
  return fail_now(__builtin_return_address(0)) ? NULL : __real_aligned_alloc(align, bytes);
}

void *(*fault_trail(int on))[4] {
  want_trail = on;
  return trail;
}
