/* hla — private definitions of grids and distributed matrices (src/dist only). */
#ifndef HLA_DIST_IMPL_H
#define HLA_DIST_IMPL_H

#include <stdint.h>
#include "hla/dist.h"
#include "hla/plan.h"
#include "bsp/bsp_impl.h"

struct hgrid_s {
  hbsp_env parent; /* the caller's environment (borrowed, not freed) */
  hbsp_env all;    /* own twin of parent, same rank order: rank = myrow N + mycol */
  hbsp_env row, col, node, cross;
  int M, N, myrow, mycol;
  int nnodes, node_size, node_rank;
  int threads;            /* BLAS/OpenMP threads per rank set by the policy */
  int nmat;               /* live matrices on this grid (hgrid_free refuses while > 0) */
  hplan_machine *machine; /* the planner's machine model (src/dist/plan*.c), owned; or NULL */
  int plan_state;         /* 0: not looked for yet, 1: machine set, -1: none (rules apply) */
  double *work;           /* workspace kept between operations (hdist_work), or NULL */
  int64_t work_words;     /* its size */
};

struct hmat_s {
  hgrid g;
  int64_t m, n;
  int mb, nb;
  int64_t mloc, nloc, lld;
  double *data; /* lld x nloc, column-major; never NULL (one spare word when empty) */
};

/* Collective over env: *same = 1 on every rank iff v[0..k) is equal on every rank (k <= 16).
 * One allreduce. */
int hdist_check_same(hbsp_env env, const int64_t *v, int k, int *same);

/* Allocate max(count, 1) doubles, zeroed, 64-byte aligned (from 2 MiB: 2 MiB aligned, with
 * transparent huge pages asked for); free() frees it. NULL only on failure. */
double *hdist_alloc(int64_t count);

/* At least count doubles of g's workspace, which stays with the grid until hgrid_free so that
 * repeated operations do not map and fault fresh pages every call (on the 2-core VM a fresh
 * megabyte cost 3 ms: 30 % of an LU at n = 1000). Every operation is collective over its grid, so
 * one uses it at a time; a larger request replaces it (earlier pointers die). 64-byte aligned
 * (2 MiB from 2 MiB, with huge pages asked for); contents undefined (NaN in sanitizer builds, so
 * that tests catch a read before a write). NULL on failure. Local. */
double *hdist_work(hgrid g, int64_t count);

/* End env's superstep (hbsp_sync) and count the messages that arrived in *nmsg. Collective over
 * env; cost that of the sync. */
int hdist_sync_count(hbsp_env env, size_t *nmsg);

#endif
