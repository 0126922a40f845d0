/* Allocation fault injection for a test program linked with
 *   -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=posix_memalign,--wrap=aligned_alloc
 * (tests/fault.c; CMakeLists.txt does it for test_fault_alloc). The linker sends every call to
 * those functions made from the program's own objects (hla_static's included) to fault.c's
 * wrappers; the shared libraries (MPI, OpenBLAS, CUnit, libc) keep theirs, so only hla's
 * allocations are seen. Disarmed, the wrappers only pass the call on.
 */
#ifndef HLA_TEST_FAULT_H
#define HLA_TEST_FAULT_H

#include <stddef.h>

/* Count the allocations from now on, and make the k-th of them fail (k = 0: none fails). */
void fault_arm(long k);
/* Stop counting; returns how many allocations were made while armed. */
long fault_disarm(void);
/* Whether the armed k-th allocation was reached (and failed); its call site (up = 0: the return
 * address in the function that allocated) and that function's own call site (up = 1; NULL if the
 * unwinder did not find it), to tell apart the callers of a helper such as hla_alloc. */
int fault_fired(void);
void *fault_site(int up);
/* on = 1: remember the call site of each allocation counted from now on and its three callers
 * (the first 4096); returns them, in order. For chasing a case (FAULT_VERBOSE=2). */
void *(*fault_trail(int on))[4];

#endif
