/* hla BSP layer — direct remote memory access: put, hpput, get.
 *
 * Requests are appended to the destination's stream (src/bsp/sync.h) and carried out at the next
 * hbsp_sync. Bounds are checked here against this rank's own registration of the variable when it
 * has a size (the usual, symmetric case); the rank that serves the request checks again against
 * its own registration, and a violation found there is reported by the next sync on every rank.
 *
 * Payloads of at least HBSP_LARGE bytes (and every hpput) travel apart from the stream, in one
 * message per peer that the receiver lands straight in the destination areas through an MPI
 * datatype: a large put is copied once (at the call), an hpput not at all. */
#include <stdlib.h>
#include <string.h>
#include "bsp/sync.h"

#define HBSP_LARGE ((size_t)16384)

/* Queue a payload for the separate hp message to dst (reserving first, so that a failure leaves
 * nothing half-queued). src != NULL: user memory sent at the sync (hpput); else copied now. */
static int queue_hp(hbsp_env env, int dst, int slot, size_t offset, const void *user,
                    const void *copy, size_t bytes) {
  HLA_CALL(hbsp_peers(env));
  hbsp_peer *p = &env->peer[dst];
  if (hla_buf_reserve(&p->hp, sizeof(hbsp_hpiece)) != HLA_OK ||
      (copy && hla_buf_reserve(&p->large, bytes) != HLA_OK))
    return HBSP_FAIL(env, HLA_ERR_NOMEM, "out of memory queueing %zu bytes for rank %d", bytes,
                     dst);
  HLA_CALL(hbsp_stream_add(env, dst, (hbsp_rec){HBSP_REC_HPPUT, slot, offset, bytes}, 0, NULL));
  hbsp_hpiece piece = {user, p->large.n, bytes, copy != NULL};
  if (copy) hla_buf_append(&p->large, copy, bytes);
  hla_buf_append(&p->hp, &piece, sizeof piece);
  p->hp_bytes += bytes;
  return HLA_OK;
}

int hbsp_peers(hbsp_env env) {
  if (env->peer) return HLA_OK;
  env->peer = calloc((size_t)env->P, sizeof *env->peer);
  if (!env->peer || hla_buf_reserve(&env->xcount, 2 * (size_t)env->P * sizeof(hbsp_xcount))) {
    free(env->peer);
    env->peer = NULL;
    return HBSP_FAIL(env, HLA_ERR_NOMEM, "out of memory for the queues to %d ranks", env->P);
  }
  return HLA_OK;
}

int hbsp_stream_add(hbsp_env env, int dst, hbsp_rec rec, size_t extra, char **data) {
  HLA_CALL(hbsp_peers(env));
  hla_buf *b = &env->peer[dst].stream;
  size_t need = sizeof rec + hbsp_pad8(extra);
  if (hla_buf_reserve(b, need) != HLA_OK)
    return HBSP_FAIL(env, HLA_ERR_NOMEM, "out of memory queueing %zu bytes for rank %d", extra,
                     dst);
  memcpy(b->p + b->n, &rec, sizeof rec);
  if (data) *data = b->p + b->n + sizeof rec;
  b->n += need;
  env->queued = 1;
  env->queued_drma |= rec.kind != HBSP_REC_SEND;
  return HLA_OK;
}

/* Common checks of put, hpput and get; returns the slot of base in *slot. */
static int check_drma(hbsp_env env, const char *fn, int peer, const void *local, const void *base,
                      size_t offset, size_t bytes, int *slot) {
  if (peer < 0 || peer >= env->P)
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: rank %d is not in 0..%d", fn, peer, env->P - 1);
  if (!local && bytes > 0) return HBSP_FAIL(env, HLA_ERR_ARG, "%s: local buffer is NULL", fn);
  *slot = hbsp_reg_find(env, base);
  if (*slot < 0)
    return HBSP_FAIL(env, HLA_ERR_ARG,
                     "%s: address %p is not registered (registrations take effect at the sync "
                     "after hbsp_push_reg)",
                     fn, base);
  size_t size = env->reg[*slot].bytes;
  if (offset > SIZE_MAX - bytes || (env->reg[*slot].base && offset + bytes > size))
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: bytes [%zu, %zu + %zu) outside the %zu registered", fn,
                     offset, offset, bytes, size);
  return HLA_OK;
}

int hbsp_put(hbsp_env env, int dst, const void *src, void *dst_base, size_t offset, size_t bytes) {
  if (!env) return HLA_ERR_ARG;
  int slot = -1;
  HLA_CALL(check_drma(env, "hbsp_put", dst, src, dst_base, offset, bytes, &slot));
  if (bytes == 0) return HLA_OK;
  /* Buffered: the caller may change src at once. */
  if (bytes >= HBSP_LARGE && dst != env->rank)
    return queue_hp(env, dst, slot, offset, NULL, src, bytes);
  char *data = NULL;
  HLA_CALL(hbsp_stream_add(env, dst, (hbsp_rec){HBSP_REC_PUT, slot, offset, bytes}, bytes, &data));
  memcpy(data, src, bytes);
  return HLA_OK;
}

int hbsp_hpput(hbsp_env env, int dst, const void *src, void *dst_base, size_t offset,
               size_t bytes) {
  if (!env) return HLA_ERR_ARG;
  int slot = -1;
  HLA_CALL(check_drma(env, "hbsp_hpput", dst, src, dst_base, offset, bytes, &slot));
  if (bytes == 0) return HLA_OK;
  if (dst != env->rank) return queue_hp(env, dst, slot, offset, src, NULL, bytes);
  /* To itself an hpput is a put: the sync copies it at once. */
  char *data = NULL;
  HLA_CALL(hbsp_stream_add(env, dst, (hbsp_rec){HBSP_REC_PUT, slot, offset, bytes}, bytes, &data));
  memcpy(data, src, bytes);
  return HLA_OK;
}

int hbsp_get(hbsp_env env, int src, const void *src_base, size_t offset, void *dst, size_t bytes) {
  if (!env) return HLA_ERR_ARG;
  int slot = -1;
  HLA_CALL(check_drma(env, "hbsp_get", src, dst, src_base, offset, bytes, &slot));
  if (bytes == 0) return HLA_OK;
  HLA_CALL(hbsp_peers(env));
  hbsp_peer *p = &env->peer[src];
  if (hla_buf_reserve(&p->gets, sizeof(hbsp_getdst)) != HLA_OK)
    return HBSP_FAIL(env, HLA_ERR_NOMEM, "hbsp_get: out of memory");
  HLA_CALL(hbsp_stream_add(env, src, (hbsp_rec){HBSP_REC_GET, slot, offset, bytes}, 0, NULL));
  hbsp_getdst d = {dst, bytes};
  hla_buf_append(&p->gets, &d, sizeof d);
  p->get_bytes += bytes;
  return HLA_OK;
}
