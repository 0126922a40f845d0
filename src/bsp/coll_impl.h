/* hla — private interface of the BSP collectives (src/bsp/coll*.c).
 *
 * Two parts:
 *  1. Internal entry points for library hot paths (src/dist): the same collectives as the public
 *     hbsp_bcast ... hbsp_allgather, without the agreement round-trip. They check the global
 *     arguments (root, how, type/op, sizes: equal on every rank, so every rank fails alike without
 *     communicating) but not the buffers, and an allocation failure is reported on the failing rank
 *     only (always before any communication of the call). The caller guarantees non-NULL buffers.
 *  2. The pieces shared between coll.c (dispatch, two-level, cache), coll_op.c (types and
 *     operators), coll_p2p.c (messages) and the algorithm files coll_bcast.c, coll_reduce.c and
 *     coll_gather.c.
 */
#ifndef HLA_BSP_COLL_IMPL_H
#define HLA_BSP_COLL_IMPL_H

#include <stdint.h>
#include "bsp/bsp_impl.h"

/* ---------------------------------------------------------------- 1. internal entry points */

/* Each is collective over env, with the semantics and costs of the public function of the same
 * name without "coll_" (include/hla/bsp.h, costs in src/bsp/coll.c). */
int hbsp_coll_bcast(hbsp_env env, void *buf, size_t bytes, int root, const hbsp_coll *how);
int hbsp_coll_reduce(hbsp_env env, const void *send, void *recv, size_t count, hbsp_type type,
                     hbsp_op op, int root, const hbsp_coll *how);
int hbsp_coll_allreduce(hbsp_env env, const void *send, void *recv, size_t count, hbsp_type type,
                        hbsp_op op, const hbsp_coll *how);
int hbsp_coll_gather(hbsp_env env, const void *send, void *recv, size_t bytes, int root,
                     const hbsp_coll *how);
int hbsp_coll_scatter(hbsp_env env, const void *send, void *recv, size_t bytes, int root,
                      const hbsp_coll *how);
int hbsp_coll_allgather(hbsp_env env, const void *send, void *recv, size_t bytes,
                        const hbsp_coll *how);

/* inout := inout (+) in for two records of a reduction; both partners of a step compute it with
 * the roles swapped, so it must give the same bits either way (and be associative): then every
 * rank ends with the same record. */
typedef void (*hbsp_rec_combine)(void *inout, const void *in, void *arg);
/* Allreduce of one record of `bytes` (global) in rec (local contents) under f, by recursive
 * doubling, the caller's ws (bytes) as the receive buffer: for records that no hbsp_op combines,
 * such as HPL's pivot search that carries the winner's whole row (lu/panel.c). Collective over
 * env. BSP cost: log2 P' (l + bytes g) + the combines, P' the largest power of two <= P,
 * plus 2 (l + bytes g) where P is not one. */
int hbsp_coll_allreduce_rec(hbsp_env env, void *rec, void *ws, size_t bytes, hbsp_rec_combine f,
                            void *arg);

/* What hbsp_coll_allreduce with these global arguments allocates (env's cache, the MPI objects,
 * the workspace), made now with no communication, so that the call inside a loop of subset
 * supersteps finds it (while the workspace stays within HBSP_COLL_WS_KEEP) and cannot fail on one
 * rank alone. Local; the caller agrees. One level only: groups are made by the call. */
int hbsp_coll_reserve_allreduce(hbsp_env env, size_t count, hbsp_type type, hbsp_op op,
                                const hbsp_coll *how);

/* ---------------------------------------------------------------- 2. shared pieces */

/* Largest single MPI message (MPI counts are int). */
#define HBSP_COLL_CHUNK ((size_t)1 << 30)
/* Default pipeline segment. */
#define HBSP_COLL_SEGMENT ((size_t)64 << 10)
/* Workspaces up to this size stay cached on the environment between calls. */
#define HBSP_COLL_WS_KEEP ((size_t)16 << 20)
/* MPICH before 4.2 (Debian 12 ships 4.0.2) crashes in MPI_Reduce with MPI_IN_PLACE at a root
 * other than 0 (pmodels/mpich#6540, fixed by #6543): there the NATIVE reduce gives the root's
 * own part from a copy in the workspace instead. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40200000
#define HBSP_REDUCE_INPLACE_COPY 1
#else
#define HBSP_REDUCE_INPLACE_COPY 0
#endif

/* Sub-environments of the two-level form for one group count G. */
typedef struct hbsp_coll_groups_s {
  int G;
  hbsp_env inner; /* the P/G consecutive ranks of this rank's group; rank = local index */
  hbsp_env outer; /* the G ranks with this rank's local index, one per group; rank = group */
  struct hbsp_coll_groups_s *next;
} hbsp_coll_groups;

struct hbsp_coll_cache_s {
  hbsp_coll_groups *groups; /* one entry per G used so far */
  hla_buf ws;               /* workspace of the running collective */
  int have_dloc;            /* the three MPI objects below exist */
  MPI_Datatype dloc_type;   /* hbsp_dloc */
  MPI_Op op_maxloc, op_maxabsloc;
};

/* One run of a base (single-level) algorithm. */
typedef struct {
  hbsp_env env;           /* environment it runs on */
  hbsp_alg alg;           /* never HBSP_AUTO */
  size_t seg;             /* pipeline segment in bytes, 1 .. HBSP_COLL_CHUNK */
  char *ws;               /* workspace of at least the size the matching *_ws function gave */
  hbsp_coll_cache *cache; /* where the MPI objects for hbsp_dloc live (NATIVE only) */
} hbsp_coll_ctx;

/* Saturating size arithmetic for workspace sizes (a saturated size fails to allocate). */
static inline size_t hbsp_sat_add(size_t a, size_t b) {
  return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}
static inline size_t hbsp_sat_mul(size_t a, size_t b) {
  return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}
/* Round a workspace piece up so that the next piece stays aligned for any element type. */
static inline size_t hbsp_ws_round(size_t n) {
  return hbsp_sat_add(n, 63) & ~(size_t)63;
}

/* Rank of relative rank v (relative to root) and back. */
static inline int hbsp_abs_rank(int v, int root, int P) {
  return (v + root) % P;
}
static inline int hbsp_rel_rank(int r, int root, int P) {
  return (r - root + P) % P;
}
/* Lowest set bit of v > 0; for v = 0 the smallest power of two >= P (the whole binomial tree). */
static inline int hbsp_subtree(int v, int P) {
  if (v) return v & -v;
  int m = 1;
  while (m < P) m <<= 1;
  return m;
}

/* ---- types and operators (coll_op.c) ---- */

/* Size of one element; 0 for an unknown type. */
size_t hbsp_coll_type_size(hbsp_type type);
/* 1 if (type, op) is a supported combination. */
int hbsp_coll_valid_op(hbsp_type type, hbsp_op op);

/* 1 if a wins over b under HBSP_MAXLOC (absval = 0) or HBSP_MAXABSLOC (absval = 1): NaN first,
 * then the larger key, ties to the lower index. Local. */
int hbsp_dloc_wins(const hbsp_dloc *a, const hbsp_dloc *b, int absval);
/* inout[i] = inout[i] op in[i] for i < count. Commutative and associative for every supported
 * combination (MAXLOC/MAXABSLOC: ties to the lowest index), so any tree gives the same result up
 * to floating-point rounding of HBSP_SUM on doubles. */
void hbsp_coll_combine(hbsp_type type, hbsp_op op, void *inout, const void *in, size_t count);
/* The MPI datatype and operator of (type, op); for hbsp_dloc they come from cache, which
 * hbsp_coll_mpi_prepare must have filled. */
void hbsp_coll_mpi_op(const hbsp_coll_cache *cache, hbsp_type type, hbsp_op op, MPI_Datatype *dt,
                      MPI_Op *mop);
/* Create the MPI objects for hbsp_dloc in cache if not yet there. Local. */
int hbsp_coll_mpi_prepare(hbsp_env env, hbsp_coll_cache *cache);
/* Free them (local, no communication). */
void hbsp_coll_mpi_free(hbsp_coll_cache *cache);

/* ---- point-to-point messages on env->comm, tag HBSP_TAG_COLL (coll_p2p.c) ---- */

/* Blocking send/receive of bytes (nothing when 0), cut into messages of at most HBSP_COLL_CHUNK,
 * each reported to the profiler. */
int hbsp_coll_send(hbsp_env env, int peer, const void *buf, size_t bytes);
int hbsp_coll_recv(hbsp_env env, int peer, void *buf, size_t bytes);
/* Send sbytes to dst while receiving rbytes from src (both directions at once: ring steps). */
int hbsp_coll_sendrecv(hbsp_env env, int dst, const void *sbuf, size_t sbytes, int src, void *rbuf,
                       size_t rbytes);

/* ---- base algorithms (coll_bcast.c, coll_reduce.c, coll_gather.c) ----
 * hbsp_coll_base_X runs c->alg for collective X, collective over c->env (same arguments as the
 * public function, already checked), bracketed for the profiler;
 * hbsp_coll_X_ws gives the workspace it needs on a rank (v: rank relative to the root); the
 * *_run variants are the same without the profiler bracket (for composing algorithms). A size of 0
 * does nothing and P = 1 copies send to recv. */
int hbsp_coll_bcast_run(const hbsp_coll_ctx *c, void *buf, size_t bytes, int root);
int hbsp_coll_base_bcast(const hbsp_coll_ctx *c, void *buf, size_t bytes, int root);

size_t hbsp_coll_reduce_ws(hbsp_alg alg, int P, int v, size_t count, size_t esz, size_t seg);
int hbsp_coll_reduce_run(const hbsp_coll_ctx *c, const void *send, void *recv, size_t count,
                         hbsp_type type, hbsp_op op, int root);
int hbsp_coll_base_reduce(const hbsp_coll_ctx *c, const void *send, void *recv, size_t count,
                          hbsp_type type, hbsp_op op, int root);
size_t hbsp_coll_allreduce_ws(hbsp_alg alg, int P, int rank, size_t count, size_t esz, size_t seg);
int hbsp_coll_base_allreduce(const hbsp_coll_ctx *c, const void *send, void *recv, size_t count,
                             hbsp_type type, hbsp_op op);

size_t hbsp_coll_gather_ws(hbsp_alg alg, int P, int v, int root, size_t bytes, size_t seg);
int hbsp_coll_base_gather(const hbsp_coll_ctx *c, const void *send, void *recv, size_t bytes,
                          int root);
size_t hbsp_coll_scatter_ws(hbsp_alg alg, int P, int v, int root, size_t bytes, size_t seg);
int hbsp_coll_base_scatter(const hbsp_coll_ctx *c, const void *send, void *recv, size_t bytes,
                           int root);
size_t hbsp_coll_allgather_ws(hbsp_alg alg, int P, size_t bytes);
int hbsp_coll_base_allgather(const hbsp_coll_ctx *c, const void *send, void *recv, size_t bytes);

#endif
