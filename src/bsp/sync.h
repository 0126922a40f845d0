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

/* Count-exchange record sent to each peer by every sync, barrier and free. */
typedef struct {
  uint64_t stream, hp, get; /* bytes for this peer: stream, large payloads, get replies wanted */
  int64_t state, step;      /* checks: the same value goes to every peer */
  int64_t nregops;
  uint64_t reghash, tagsize;
  int64_t deferred;
} hbsp_xrec;

/* What an environment is doing when it takes part in the count exchange. */
enum { HBSP_STATE_SYNC = 1, HBSP_STATE_BARRIER, HBSP_STATE_FREE };

/* The count exchange alone (no data), as used by hbsp_barrier and hbsp_free: checks that every
 * rank is in the same state with the same registrations and tag size; HLA_ERR_STATE (or a
 * deferred HLA_ERR_ARG) on every rank otherwise. Collective over env. */
int hbsp_exchange(hbsp_env env, int state);

/* Apply the queued pops, then the pushes into the lowest free slots (the same on every rank, since
 * the sync checked that all ranks made the same calls). Called at the end of a sync; cannot fail.
 */
void hbsp_reg_apply(hbsp_env env);

/* Append a record (and room for `extra` bytes after it, returned in *data) to dst's stream. */
int hbsp_stream_add(hbsp_env env, int dst, hbsp_rec rec, size_t extra, char **data);

#endif
