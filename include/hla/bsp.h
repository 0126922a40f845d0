/* hla — BSP layer: environments with subsets, BSPlib communication, collectives, profiler.
 *
 * An environment (hbsp_env) is a set of ranks that synchronise together. Environments split into
 * coexisting subset environments (rows, columns, nodes, groups) and reordered twins; each has its
 * own registrations, message queues and superstep counter, and a sync completes the requests of
 * that environment only.
 *
 * Conventions used in the comments below:
 *   Collective over E:   every rank of environment E calls it, with the same global arguments.
 *   Local:               no communication; may be called by any rank on its own.
 *   (global) argument:   must be equal on every rank;  (local): may differ per rank.
 *   BSP cost:            in the BSP model w + h g + l of the environment concerned.
 *
 * Errors: every function returns an hla error code (include/hla/error.h). A collective returns the
 * same code on every rank, and hbsp_errmsg() then gives the same text on every rank. A function
 * that fails with HLA_ERR_ARG changes nothing.
 */
#ifndef HLA_BSP_H
#define HLA_BSP_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "hla/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hbsp_env_s *hbsp_env;

/* MPI tags at or above this value on hbsp_comm() are reserved for hla. */
#define HBSP_TAG_RESERVED 30000
/* Colour for hbsp_split meaning "this rank joins no child". */
#define HBSP_UNDEFINED (-1)

/* ---------------------------------------------------------------- environments */

/** Create an environment over all ranks of comm. Collective over comm; comm is duplicated, so the
 *  caller's traffic on comm never mixes with hla's. Reads HLA_PROFILE (profiler) and
 *  HLA_VIRTUAL_NODES (see hbsp_node). BSP cost: one l of comm. */
HLA_API int hbsp_init(MPI_Comm comm, hbsp_env *env);

/** Free an environment and set *env = NULL. Collective over *env. Pending requests are dropped.
 *  If some rank syncs while another frees, every rank gets HLA_ERR_STATE and nothing is freed.
 *  Children and twins are independent objects and are freed separately, in any order. */
HLA_API int hbsp_free(hbsp_env *env);

/** Number of ranks / this rank's index in env. Local queries; -1 for a NULL env. */
HLA_API int hbsp_size(hbsp_env env);
HLA_API int hbsp_rank(hbsp_env env);

/** Superstep counter of env: the number of completed hbsp_sync calls. Local query. */
HLA_API int64_t hbsp_superstep(hbsp_env env);

/** The MPI communicator under env (same ranks, same order), for interoperation: the caller may
 *  use it for its own MPI calls with tags below HBSP_TAG_RESERVED. Local query. */
HLA_API MPI_Comm hbsp_comm(hbsp_env env);

/** Text of the last error reported on env (empty if none). Local query. */
HLA_API const char *hbsp_errmsg(hbsp_env env);

/** Wall-clock seconds (MPI_Wtime). Local query. */
HLA_API double hbsp_time(void);

/** Split parent into children by color (local, >= 0, or HBSP_UNDEFINED to join none: *child is
 *  then NULL); ranks in a child are ordered by (key, parent rank). Collective over parent. The
 *  parent stays fully usable, its pending requests untouched. BSP cost: O(log P) l of parent. */
HLA_API int hbsp_split(hbsp_env parent, int color, int key, hbsp_env *child);

/** A twin of env with the same members ranked by (key, old rank). The twin has its own
 *  registrations, queues and syncs. Collective over env. */
HLA_API int hbsp_reorder(hbsp_env env, int key, hbsp_env *out);

/** The ranks of env that share this rank's node. A node is a shared-memory domain
 *  (MPI_Comm_split_type SHARED) unless the variable HLA_VIRTUAL_NODES=k is set, in which case the
 *  ranks are cut into k consecutive virtual nodes (sizes differ by at most one), so that the
 *  hierarchy can be exercised on one machine. Collective over env. */
HLA_API int hbsp_node(hbsp_env env, hbsp_env *node);

/* ---------------------------------------------------------------- registration and DRMA */

/** Register base[0..bytes) for puts and gets of env. Collective over env and matched by call order:
 *  the i-th registration on every rank names the same variable (base may differ per rank, may be
 *  NULL with bytes = 0). Effective at the next hbsp_sync. Local work, no communication. */
HLA_API int hbsp_push_reg(hbsp_env env, void *base, size_t bytes);

/** Deregister the most recent registration of base. Collective over env, matched by order; pops
 *  may come in any order relative to the pushes. Effective at the end of the next hbsp_sync:
 *  communication issued in the same superstep still uses the registration. */
HLA_API int hbsp_pop_reg(hbsp_env env, void *base);

/** Copy src[0..bytes) now (buffered) and write it at offset of the registered variable dst_base on
 *  rank dst at the next hbsp_sync of env. Local. dst_base is this rank's address of the variable.
 *  Puts to overlapping places land in an unspecified order. BSP cost: bytes in h of env. */
HLA_API int hbsp_put(hbsp_env env, int dst, const void *src, void *dst_base, size_t offset,
                     size_t bytes);

/** As hbsp_put but unbuffered: src is read during the next hbsp_sync, so the caller keeps
 *  src[0..bytes) unchanged until then. Local. */
HLA_API int hbsp_hpput(hbsp_env env, int dst, const void *src, void *dst_base, size_t offset,
                       size_t bytes);

/** At the next hbsp_sync, read bytes at offset of the registered variable src_base on rank src,
 *  as it is at the sync before that superstep's puts land, into dst (local, need not be
 *  registered). Local. BSP cost: bytes in h of env. */
HLA_API int hbsp_get(hbsp_env env, int src, const void *src_base, size_t offset, void *dst,
                     size_t bytes);

/* ---------------------------------------------------------------- BSMP messages */

/** Set the tag size (bytes) for messages sent from the next superstep on; *tagsize returns the
 *  previous value. Collective over env (same value on every rank; checked at the sync). */
HLA_API int hbsp_set_tagsize(hbsp_env env, size_t *tagsize);

/** Queue a message (tag of the current tag size, payload of bytes) for rank dst; it can be read
 *  there after the next hbsp_sync. Both are copied now. Local. */
HLA_API int hbsp_send(hbsp_env env, int dst, const void *tag, const void *payload, size_t bytes);

/** hbsp_send without the copy: *payload receives the queue's space for the bytes of the message to
 *  rank dst (8-byte aligned when the tag size is a multiple of 8), which the caller fills before
 *  the sync. The space stays put until the sync or the next put, get or send to rank dst on env
 * (each destination has its own queue, which such a call may move). The tag is copied now. Local.
 */
HLA_API int hbsp_send_buf(hbsp_env env, int dst, const void *tag, size_t bytes, void **payload);

/** Number of messages not yet moved in this superstep's queue, and their total payload bytes.
 *  Local query. */
HLA_API int hbsp_qsize(hbsp_env env, size_t *nmessages, size_t *nbytes);

/** The next message of the queue without taking it (BSPlib's bsp_get_tag): its payload size in
 *  *bytes and its tag into tag (if not NULL). HLA_ERR_STATE if the queue is empty. Local. */
HLA_API int hbsp_peek(hbsp_env env, size_t *bytes, void *tag);

/** Take one message from the queue (no order guaranteed): its tag into tag (if not NULL), at most
 *  maxbytes of its payload into payload, its full payload size into *bytes. HLA_ERR_STATE if the
 *  queue is empty. The queue is dropped at the next hbsp_sync. Local. */
HLA_API int hbsp_move(hbsp_env env, void *tag, void *payload, size_t maxbytes, size_t *bytes);

/** hbsp_move without the copy (BSPlib's bsp_hpmove): take one message, *tag and *payload (either
 *  may be NULL) point into the queue, valid until the next hbsp_sync of env; the payload is 8-byte
 *  aligned when the tag size is a multiple of 8. *bytes is its payload size. HLA_ERR_STATE if the
 *  queue is empty. Local. */
HLA_API int hbsp_hpmove(hbsp_env env, const void **tag, const void **payload, size_t *bytes);

/* ---------------------------------------------------------------- synchronisation */

/** End the superstep of env: puts land, gets are served (before the puts), messages are
 *  delivered, (de)registrations take effect. Completes env's requests only: not its parent's, its
 *  children's or a twin's. One exchange of counts (a small allreduce that checks that every rank
 *  agrees on registrations, tag size and sync-versus-free, then, only if some rank queued
 *  anything, an all-to-all of the counts), then the data. Collective over env.
 *  The one error not agreed at once: a rank that cannot allocate its receive buffers still
 *  completes the superstep with the others (its incoming data dropped) and returns
 *  HLA_ERR_NOMEM at once; the others learn of it from their next hbsp_sync, hbsp_barrier or
 *  hbsp_free of env (HLA_ERR_NOMEM on every rank, that superstep's data dropped), or from the
 *  first error a collective over env returns on every rank in between.
 *  BSP cost: h g + l of env. */
HLA_API int hbsp_sync(hbsp_env env);

/** Barrier over env; completes no communication. Collective over env. BSP cost: l. */
HLA_API int hbsp_barrier(hbsp_env env);

/** Barrier over env whose waiting ranks sleep (polling after sleeps that double from 50 us to
 *  10 ms) instead of spinning, so that one rank running threaded work on the node's cores (a
 *  one-process baseline, say) has them to itself. Not a superstep and no BSP checks: nothing
 *  pending is touched. Collective over env. Cost: one MPI barrier, plus up to the time already
 *  waited (at most 10 ms) after the last rank arrives. */
HLA_API int hbsp_idle_barrier(hbsp_env env);

/* ---------------------------------------------------------------- board (node shared memory) */

/* A board: every rank of an environment owns a few slots in the node's shared memory, writes one,
 * posts it, and the other ranks read it in place, with no message and nothing more asked of the
 * owner (it may be computing). Every post of a slot is read by every other rank, which waits for
 * it (hbsp_board_wait), reads, and says it is done (hbsp_board_done); the owner claims a slot
 * (hbsp_board_claim) before writing it again, which waits until all have read the last post.
 * Posts of one slot are read in order. Waiting ranks poll, call into MPI now and then (so that
 * their own non-blocking messages move) and yield their core after a few thousand polls. */
typedef struct hbsp_board_s *hbsp_board;

/** A board of `slots` (1 to 64) slots of `bytes` bytes per rank over env, each slot page-aligned.
 *  Collective over env; bytes and slots global. *board = NULL with HLA_OK where the ranks of env do
 *  not all share one node's memory (MPI_Comm_split_type SHARED; HLA_VIRTUAL_NODES plays no part)
 *  or MPI cannot map it: the caller then sends messages. Free it before env.
 *  Cost: l, plus the first touch of the slots' pages. */
HLA_API int hbsp_board_create(hbsp_env env, size_t bytes, int slots, hbsp_board *board);

/** Free a board and set *board = NULL (nothing for NULL). Collective over the board's env. */
HLA_API int hbsp_board_free(hbsp_board *board);

/** Bytes of each slot (0 for NULL). Local. */
HLA_API size_t hbsp_board_bytes(hbsp_board b);

/** Address, in this process, of slot s of rank r (NULL if out of range). Local. */
HLA_API void *hbsp_board_slot(hbsp_board b, int r, int s);

/** Owner, before writing its slot s: wait until every other rank is done with its last post.
 *  Local (waits on the readers). */
HLA_API int hbsp_board_claim(hbsp_board b, int s);

/** Owner: publish what it wrote in its slot s. Local; cost: a memory fence. */
HLA_API int hbsp_board_post(hbsp_board b, int s);

/** Reader: wait for the next post of rank r's slot s (r not this rank) and set *data (if not NULL)
 *  to it. Local (waits on r). */
HLA_API int hbsp_board_wait(hbsp_board b, int r, int s, const void **data);

/** Reader: done reading the post of rank r's slot s that it waited for last. Local. */
HLA_API int hbsp_board_done(hbsp_board b, int r, int s);

/** Forget every post (after an error left some unread): all counts to zero. Collective over the
 *  board's env; cost: 2 l. */
HLA_API int hbsp_board_reset(hbsp_board b);

/* ---------------------------------------------------------------- collectives */

typedef enum {
  HBSP_AUTO = 0,         /* library's choice */
  HBSP_NATIVE,           /* MPI's own collective */
  HBSP_FLAT,             /* root talks to every rank directly */
  HBSP_BINOMIAL,         /* binomial tree */
  HBSP_PIPELINE,         /* segmented chain, segment bytes in hbsp_coll.segment */
  HBSP_SCATTER_ALLGATHER /* two-phase: scatter then ring allgather (reduce: reduce-scatter + gather)
                          */
} hbsp_alg;

/** How to run a collective. groups = G > 1 applies Hasanov's two-level transformation with G groups
 *  of P/G consecutive ranks (G must divide P): an outer collective across groups, an inner one
 * inside each, both with alg. groups <= 1 (or = P) runs alg directly. NULL means HBSP_AUTO. */
typedef struct {
  hbsp_alg alg;
  size_t segment; /* bytes per segment for HBSP_PIPELINE; 0 = a default */
  int groups;
} hbsp_coll;

typedef enum {
  HBSP_BYTE,
  HBSP_INT,
  HBSP_INT64,
  HBSP_DOUBLE,
  HBSP_DOUBLE_INDEX,
  HBSP_FLOAT
} hbsp_type;
typedef enum {
  HBSP_SUM,
  HBSP_MAX,
  HBSP_MIN,
  HBSP_MAXLOC,   /* HBSP_DOUBLE_INDEX: largest value; ties go to the lowest index */
  HBSP_MAXABSLOC /* HBSP_DOUBLE_INDEX: largest |value| (value keeps its sign); ties to lowest index
                  */
} hbsp_op;

/** Element of HBSP_DOUBLE_INDEX (value with a global index). */
typedef struct {
  double value;
  int64_t index;
} hbsp_dloc;

/** All collectives below: collective over env with the same root, sizes and how on every rank
 *  (global); buffers local. Errors are agreed: every rank returns the same code and nothing is
 *  written. In place as in MPI: reductions with send == recv; gather/allgather with send ==
 *  recv + rank * bytes (this rank's block already in place); scatter with recv == send + root *
 *  bytes on the root. Costs in the Hockney model per algorithm: see src/bsp/coll.c. */

/** Copy buf[0..bytes) from root to every rank. */
HLA_API int hbsp_bcast(hbsp_env env, void *buf, size_t bytes, int root, const hbsp_coll *how);

/** Element-wise reduction of count elements of type into recv on root (recv ignored elsewhere). */
HLA_API int hbsp_reduce(hbsp_env env, const void *send, void *recv, size_t count, hbsp_type type,
                        hbsp_op op, int root, const hbsp_coll *how);

/** Element-wise reduction, result on every rank. */
HLA_API int hbsp_allreduce(hbsp_env env, const void *send, void *recv, size_t count, hbsp_type type,
                           hbsp_op op, const hbsp_coll *how);

/** Every rank's bytes land in rank order in recv[0..P*bytes) on root. */
HLA_API int hbsp_gather(hbsp_env env, const void *send, void *recv, size_t bytes, int root,
                        const hbsp_coll *how);

/** Root's send[r*bytes..(r+1)*bytes) lands in recv on rank r. */
HLA_API int hbsp_scatter(hbsp_env env, const void *send, void *recv, size_t bytes, int root,
                         const hbsp_coll *how);

/** Every rank's bytes land in rank order in recv[0..P*bytes) on every rank. */
HLA_API int hbsp_allgather(hbsp_env env, const void *send, void *recv, size_t bytes,
                           const hbsp_coll *how);

/* ---------------------------------------------------------------- profiler */

/** Start recording on env and on every environment split or reordered from it afterwards: per
 *  superstep (sync or collective) the compute time before it, the communication+sync time, bytes
 *  and messages sent and received, and the traffic row of this rank. Written as one JSON file at
 *  path when env is freed or hbsp_profile_write is called. HLA_PROFILE=path does the same for
 *  every hbsp_init. Collective over env. When off, the cost is one pointer test per call. */
HLA_API int hbsp_profile_start(hbsp_env env, const char *path);

/** Gather every rank's records of env's profile (and its children's) to rank 0 of env and write
 *  the JSON file; recording goes on. Collective over env. */
HLA_API int hbsp_profile_write(hbsp_env env);

/** Label the supersteps that follow on env (for example "lu-panel"); labels group repeated
 *  supersteps in the output. Local. */
HLA_API int hbsp_profile_label(hbsp_env env, const char *label);

#ifdef __cplusplus
}
#endif
#endif
