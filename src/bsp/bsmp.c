/* hla BSP layer — bulk synchronous message passing: tagged messages read in the next superstep.
 *
 * The inbox of a superstep points into the receive buffer of the sync that delivered it, so
 * messages are copied once on each side (not at all with hbsp_send_buf and hbsp_hpmove); the inbox
 * is dropped at the next sync. */
#include <string.h>
#include "bsp/sync.h"

int hbsp_set_tagsize(hbsp_env env, size_t *tagsize) {
  if (!env) return HLA_ERR_ARG;
  if (!tagsize) return HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_set_tagsize: tagsize is NULL");
  size_t old = env->tagsize_next;
  env->tagsize_next = *tagsize; /* in force from the next superstep; the sync checks agreement */
  *tagsize = old;
  return HLA_OK;
}

int hbsp_send_buf(hbsp_env env, int dst, const void *tag, size_t bytes, void **payload) {
  if (!env) return HLA_ERR_ARG;
  if (dst < 0 || dst >= env->P)
    return HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_send: rank %d is not in 0..%d", dst, env->P - 1);
  if (!tag && env->tagsize > 0)
    return HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_send: tag is NULL but the tag size is %zu",
                     env->tagsize);
  if (!payload) return HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_send_buf: payload is NULL");
  if (bytes > SIZE_MAX / 2) return HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_send: %zu bytes", bytes);
  size_t ts = env->tagsize;
  char *data;
  HLA_CALL(hbsp_stream_add(env, dst, (hbsp_rec){HBSP_REC_SEND, 0, ts, bytes}, ts + bytes, &data));
  if (ts) memcpy(data, tag, ts);
  *payload = data + ts;
  return HLA_OK;
}

int hbsp_send(hbsp_env env, int dst, const void *tag, const void *payload, size_t bytes) {
  if (env && !payload && bytes > 0)
    return HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_send: payload is NULL");
  void *data;
  HLA_CALL(hbsp_send_buf(env, dst, tag, bytes, &data));
  if (bytes) memcpy(data, payload, bytes);
  return HLA_OK;
}

int hbsp_qsize(hbsp_env env, size_t *nmessages, size_t *nbytes) {
  if (!env) return HLA_ERR_ARG;
  size_t n = env->inbox.n / sizeof(hbsp_msg);
  if (nmessages) *nmessages = n - env->inbox_next;
  if (nbytes) *nbytes = env->inbox_bytes;
  return HLA_OK;
}

int hbsp_peek(hbsp_env env, size_t *bytes, void *tag) {
  if (!env) return HLA_ERR_ARG;
  if (env->inbox_next >= env->inbox.n / sizeof(hbsp_msg))
    return HBSP_FAIL(env, HLA_ERR_STATE, "hbsp_peek: the message queue is empty");
  const hbsp_msg *m = (const hbsp_msg *)env->inbox.p + env->inbox_next;
  if (bytes) *bytes = m->bytes;
  if (tag && m->tagbytes) memcpy(tag, m->tag, m->tagbytes);
  return HLA_OK;
}

/* The next message of the inbox, taken off it. */
static int take(hbsp_env env, const void **tag, const void **payload, size_t *bytes) {
  size_t n = env->inbox.n / sizeof(hbsp_msg);
  if (env->inbox_next >= n)
    return HBSP_FAIL(env, HLA_ERR_STATE, "hbsp_move: the message queue is empty");
  const hbsp_msg *m = (const hbsp_msg *)env->inbox.p + env->inbox_next;
  if (tag) *tag = m->tag;
  if (payload) *payload = m->payload;
  if (bytes) *bytes = m->bytes;
  env->inbox_next++;
  env->inbox_bytes -= m->bytes;
  return HLA_OK;
}

int hbsp_hpmove(hbsp_env env, const void **tag, const void **payload, size_t *bytes) {
  if (!env) return HLA_ERR_ARG;
  env->inbox_lent = 1; /* its pointers stay valid until the next sync */
  return take(env, tag, payload, bytes);
}

int hbsp_move(hbsp_env env, void *tag, void *payload, size_t maxbytes, size_t *bytes) {
  if (!env) return HLA_ERR_ARG;
  const hbsp_msg *m = env->inbox_next < env->inbox.n / sizeof(hbsp_msg)
                          ? (const hbsp_msg *)env->inbox.p + env->inbox_next
                          : NULL;
  if (m && m->bytes > 0 && maxbytes > 0 && !payload)
    return HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_move: payload is NULL");
  const void *t = NULL, *p = NULL;
  size_t b = 0;
  HLA_CALL(take(env, &t, &p, &b)); /* HLA_ERR_STATE when m is NULL */
  if (tag && m->tagbytes) memcpy(tag, t, m->tagbytes);
  if (payload && maxbytes) memcpy(payload, p, b < maxbytes ? b : maxbytes);
  if (bytes) *bytes = b;
  /* Every message copied out and no pointer into the receive buffer handed out: a large one
   * need not wait for the next sync to go. */
  if (!env->inbox_lent && env->inbox_next == env->inbox.n / sizeof(hbsp_msg))
    hbsp_buf_trim(env, &env->rbuf);
  return HLA_OK;
}
