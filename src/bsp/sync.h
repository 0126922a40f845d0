/* hla BSP layer — the wire format of a superstep and the count exchange (private). */
#ifndef HLA_BSP_SYNC_H
#define HLA_BSP_SYNC_H

#include "bsp/bsp_impl.h"

/* One request in a peer's outgoing stream. Records and payloads are 8-byte aligned. */
enum { HBSP_REC_GET = 1, HBSP_REC_PUT, HBSP_REC_HPPUT, HBSP_REC_SEND };
typedef struct {
  uint32_t kind;
  int32_t slot;    /* registration slot (GET, PUT, HPPUT) */
  uint64_t offset; /* byte offset in the registration; SEND: tag bytes */
  uint64_t bytes;  /* payload bytes */
} hbsp_rec;
/* PUT: payload follows the record. SEND: tag then payload follow. HPPUT: payload travels in the
 * separate zero-copy hp message. GET: nothing follows; the reply comes back in request order. */

static inline size_t hbsp_pad8(size_t n) {
  return (n + 7) & ~(size_t)7;
}

/* What every rank checks at a sync, barrier and free: the same value from every rank. */
typedef struct {
  int64_t state, step; /* HBSP_STATE_*, completed syncs */
  int64_t nregops;
  uint64_t reghash, tagsize;
  int64_t deferred; /* a served put or get went outside its registration (HLA_ERR_*), or 0 */
} hbsp_xcheck;

/* Count-exchange record sent to each peer by a sync in which some rank queued something. */
typedef struct {
  uint64_t stream, hp, get; /* bytes for this peer: stream, large payloads, get replies wanted */
} hbsp_xcount;

/* What an environment is doing when it takes part in the count exchange. */
enum { HBSP_STATE_SYNC = 1, HBSP_STATE_BARRIER, HBSP_STATE_FREE };

/* The checks of the count exchange alone (no data), as used by hbsp_barrier and hbsp_free: that
 * every rank is in the same state with the same registrations and tag size; HLA_ERR_STATE (or a
 * deferred HLA_ERR_ARG) on every rank otherwise. Collective over env: one allreduce. */
int hbsp_exchange(hbsp_env env, int state);

/* Apply the queued pops, then the pushes into the lowest free slots (the same on every rank, since
 * the sync checked that all ranks made the same calls). Called at the end of a sync; cannot fail.
 */
void hbsp_reg_apply(hbsp_env env);

/* The per-peer queues and count arrays, made at the first use that needs them: an environment
 * that only runs collectives never holds O(P) sync state (16,384 simulated ranks of one process
 * would need gigabytes for it). HLA_ERR_NOMEM, with env's message, if they cannot be had. Local. */
int hbsp_peers(hbsp_env env);

/* Append a record (and room for `extra` bytes after it, returned in *data) to dst's stream. */
int hbsp_stream_add(hbsp_env env, int dst, hbsp_rec rec, size_t extra, char **data);

#endif
