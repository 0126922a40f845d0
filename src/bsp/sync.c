/* hla BSP layer — the superstep: count exchange, data exchange, delivery.
 *
 * hbsp_sync does, on the environment's own communicator only:
 *   1. The count exchange: ONE small MPI_Allreduce of the checks (this rank's state, superstep,
 *      registration calls (count and hash), tag size, deferred error) and of whether anything is
 *      queued; then, only if some rank queued anything, ONE MPI_Alltoall of a small record per
 *      peer (hbsp_xcount): the bytes of the stream, of the large payloads and of the get replies
 *      for that peer. Every rank sees the same reduced checks, so every rank reaches the same
 *      verdict, and on a mismatch the two records that differ travel to all, for the same message.
 *   2. Non-blocking receives of the incoming streams and of the replies to this rank's gets;
 *      non-blocking sends of the outgoing streams and of the large payloads (hpput payloads
 *      straight from the user's memory, through an MPI datatype when there are several).
 *   3. Get requests are served from the values as they are now, before any put lands. Then the
 *      large payloads are received straight into their destinations (MPI's rendezvous moves them
 *      once), small puts land and messages enter the inbox; the replies land in the get buffers.
 *   4. Pops, then pushes, take effect; the tag size changes; queues reset (capacity kept).
 * hbsp_sync_known does steps 2-4 alone: its caller gives the counts of step 1 (messages only).
 * Peers are visited in the Latin-square order rank, rank+1, ... so that no rank is everyone's
 * first. Messages larger than HBSP_CHUNK bytes are cut into chunks (MPI counts are int).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bsp/sync.h"

/* Largest single MPI message; also the scratch size if a receive buffer cannot be allocated. */
#define HBSP_CHUNK ((size_t)1 << 24)

static const char *state_name(int64_t s) {
  return s == HBSP_STATE_SYNC      ? "hbsp_sync"
         : s == HBSP_STATE_BARRIER ? "hbsp_barrier"
                                   : "hbsp_free";
}

/* Reset the queues for the next superstep. */
static void clear_requests(hbsp_env env) {
  for (int p = 0; env->queued && p < env->P; p++) {
    hbsp_peer *q = &env->peer[p];
    q->stream.n = q->hp.n = q->gets.n = q->large.n = 0;
    q->hp_bytes = q->get_bytes = 0;
    hbsp_buf_trim(env, &q->stream);
    hbsp_buf_trim(env, &q->large);
  }
  env->queued = env->queued_drma = 0;
  env->regops.n = 0;
  env->nregops = 0;
  env->reghash = 0;
}

/* A failed sync drops the whole superstep on every rank, so the next one starts consistent. */
static void drop_superstep(hbsp_env env) {
  clear_requests(env);
  env->tagsize_next = env->tagsize;
}

/* The checks failed somewhere (or a put was dropped somewhere): the verdict, the same on every
 * rank. The first rank s whose checks differ from rank 0's, or else the first with a deferred
 * error, sends its record to all, and every rank writes the same message from the two records.
 * Two broadcasts and an allreduce; nothing of size P. */
static int check_verdict(hbsp_env env, const hbsp_xcheck *mine) {
  hbsp_xcheck r0 = *mine, rs;
  HBSP_MPI(env, MPI_Bcast(&r0, (int)sizeof r0, MPI_BYTE, 0, env->comm));
  int differs = r0.state != mine->state || r0.step != mine->step || r0.nregops != mine->nregops ||
                r0.reghash != mine->reghash || r0.tagsize != mine->tagsize;
  int first[2] = {differs ? env->rank : env->P, mine->deferred ? env->rank : env->P}, at[2];
  HBSP_MPI(env, MPI_Allreduce(first, at, 2, MPI_INT, MPI_MIN, env->comm));
  const int s = at[0] < env->P ? at[0] : at[1];
  if (s >= env->P) return HLA_OK; /* cannot be: the reduction saw a difference */
  rs = *mine;
  HBSP_MPI(env, MPI_Bcast(&rs, (int)sizeof rs, MPI_BYTE, s, env->comm));
  const hbsp_xcheck *a = &r0, *b = &rs;
  if (at[0] < env->P) {
    if (a->state != b->state)
      return HBSP_FAIL_ALL(env, HLA_ERR_STATE, "rank 0 called %s while rank %d called %s",
                           state_name(a->state), s, state_name(b->state));
    if (a->step != b->step)
      return HBSP_FAIL_ALL(env, HLA_ERR_STATE, "rank 0 is at superstep %lld, rank %d at %lld",
                           (long long)a->step, s, (long long)b->step);
    if (a->nregops != b->nregops || a->reghash != b->reghash)
      return HBSP_FAIL_ALL(env, HLA_ERR_STATE,
                           "registrations differ: in this superstep rank 0 made %lld push/pop "
                           "calls, rank %d made %lld (or in another order)",
                           (long long)a->nregops, s, (long long)b->nregops);
    return HBSP_FAIL_ALL(env, HLA_ERR_STATE, "tag sizes differ: rank 0 set %llu, rank %d set %llu",
                         (unsigned long long)a->tagsize, s, (unsigned long long)b->tagsize);
  }
  env->deferred_error = 0; /* reported now; cleared everywhere (each rank clears its own) */
  return HBSP_FAIL_ALL(env, (int)b->deferred,
                       "in superstep %lld, a put or get served by rank %d went outside its "
                       "registered area (or the receive buffer could not be allocated) and was "
                       "dropped",
                       (long long)b->step - 1, s);
}

/* Step 1: the count exchange. First the checks, reduced: every rank learns whether all ranks are
 * in the same state, superstep, registrations and tag size (bitwise OR of each value and of its
 * complement: equal everywhere iff OR(v) = AND(v)), whether any rank has a deferred error, and
 * whether any rank queued anything. Only then, and only if so, the counts per peer, one
 * MPI_Alltoall. A superstep without traffic (every barrier and free, many syncs) thus costs one
 * small allreduce, where an all-to-all of P records would cost O(P) per rank. On return *xin_out
 * is the counts rank s sent to this rank (xin[s]), or NULL when nobody queued anything. */
static int count_exchange(hbsp_env env, int state, const hbsp_xcount **xin_out) {
  enum { NV = 5, QUEUED = 1, DEFERRED = 2, NO_PEERS = 4 };
  *xin_out = NULL;
  const hbsp_xcheck mine = {state,        env->step,         env->nregops,
                            env->reghash, env->tagsize_next, env->deferred_error};
  const int queued = state == HBSP_STATE_SYNC && env->queued;
  uint64_t v[2 * NV + 1] = {(uint64_t)mine.state, (uint64_t)mine.step, (uint64_t)mine.nregops,
                            mine.reghash, mine.tagsize},
                      w[2 * NV + 1];
  for (int i = 0; i < NV; i++) v[NV + i] = ~v[i];
  v[2 * NV] = (queued ? QUEUED : 0) | (mine.deferred ? DEFERRED : 0) | (env->peer ? 0 : NO_PEERS);
  HBSP_MPI(env, MPI_Allreduce(v, w, 2 * NV + 1, MPI_UINT64_T, MPI_BOR, env->comm));
  int same = 1;
  for (int i = 0; i < NV; i++) same &= w[i] == ~w[NV + i];
  if (!same || (w[2 * NV] & DEFERRED)) return check_verdict(env, &mine);
  if (!(w[2 * NV] & QUEUED)) return HLA_OK;

  if (w[2 * NV] & NO_PEERS) { /* this superstep's receivers need their queues too */
    int bad = hbsp_peers(env) != HLA_OK, anybad;
    HBSP_MPI(env, MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, env->comm));
    if (anybad)
      return HBSP_FAIL_ALL(env, HLA_ERR_NOMEM,
                           "sync: a rank is out of memory for the queues to %d ranks; this "
                           "superstep's communication was dropped",
                           env->P);
  }
  hbsp_xcount *xout = (hbsp_xcount *)env->xcount.p, *xin = xout + env->P;
  for (int p = 0; p < env->P; p++)
    xout[p] = (hbsp_xcount){env->peer[p].stream.n, env->peer[p].hp_bytes, env->peer[p].get_bytes};
  HBSP_MPI(env, MPI_Alltoall(xout, (int)sizeof *xout, MPI_BYTE, xin, (int)sizeof *xin, MPI_BYTE,
                             env->comm));
  *xin_out = xin;
  return HLA_OK;
}

/* A chunked non-blocking transfer of n contiguous bytes. */
static int post(hbsp_env env, int send, char *buf, size_t n, int peer, int tag) {
  for (size_t off = 0; off < n; off += HBSP_CHUNK) {
    size_t len = n - off < HBSP_CHUNK ? n - off : HBSP_CHUNK;
    MPI_Request *r = hla_buf_append(&env->reqs, NULL, sizeof *r); /* reserved (reserve_posts) */
    if (!r) return HBSP_FAIL(env, HLA_ERR_NOMEM, "sync: out of memory");
    int e = send ? MPI_Isend(buf + off, (int)len, MPI_BYTE, peer, tag, env->comm, r)
                 : MPI_Irecv(buf + off, (int)len, MPI_BYTE, peer, tag, env->comm, r);
    if (e != MPI_SUCCESS)
      return HBSP_FAIL(env, HLA_ERR_MPI, "sync: MPI_I%s failed", send ? "send" : "recv");
    hbsp_prof_msg(env, peer, len, send);
  }
  return HLA_OK;
}

/* Send (or receive) the concatenation of pieces, total bytes, to (from) peer: one message per
 * HBSP_CHUNK of the concatenation, each described by an hindexed datatype over the pieces, so that
 * nothing is copied. Buffered pieces are at base + off. env->blocks holds room for as many blocks
 * as there are pieces, env->reqs and env->types for a request and a type per chunk (reserve). */
static int post_pieces(hbsp_env env, int send, const hbsp_hpiece *pc, size_t total,
                       const char *base, int peer) {
  size_t i = 0, inpiece = 0;
  MPI_Aint *dp = (MPI_Aint *)env->blocks.p;
  int *bl = (int *)(dp + env->blocks.cap / (sizeof *dp + sizeof *bl));
  for (size_t off = 0; off < total; off += HBSP_CHUNK) {
    size_t len = total - off < HBSP_CHUNK ? total - off : HBSP_CHUNK;
    int nb = 0;
    const char *first = NULL;
    for (size_t left = len; left > 0;) {
      if (pc[i].bytes == 0) { /* empty pieces take no block */
        i++;
        continue;
      }
      size_t take = pc[i].bytes - inpiece < left ? pc[i].bytes - inpiece : left;
      const char *at = pc[i].buffered ? base + pc[i].off : (const char *)pc[i].src;
      if (nb == 0) first = at + inpiece;
      MPI_Get_address(at + inpiece, &dp[nb]);
      bl[nb++] = (int)take;
      left -= take;
      inpiece += take;
      if (inpiece == pc[i].bytes) i++, inpiece = 0;
    }
    /* One block (the common case of one large put per peer): a plain contiguous message, which
     * MPI moves with its fastest single-copy path. */
    void *at = (void *)first;
    int count = bl[0];
    MPI_Datatype t = MPI_BYTE;
    if (nb > 1) {
      at = MPI_BOTTOM;
      count = 1;
      if (MPI_Type_create_hindexed(nb, bl, dp, MPI_BYTE, &t) != MPI_SUCCESS ||
          MPI_Type_commit(&t) != MPI_SUCCESS)
        return HBSP_FAIL(env, HLA_ERR_MPI, "sync: cannot build a payload datatype");
      hla_buf_append(&env->types, &t, sizeof t); /* reserved */
    }
    MPI_Request *r = hla_buf_append(&env->reqs, NULL, sizeof *r);
    if (send)
      HBSP_MPI(env, MPI_Isend(at, count, t, peer, HBSP_TAG_HP, env->comm, r));
    else
      HBSP_MPI(env, MPI_Irecv(at, count, t, peer, HBSP_TAG_HP, env->comm, r));
    hbsp_prof_msg(env, peer, len, send);
  }
  return HLA_OK;
}

/* Room for what the posts of a sync append, so that none fails once the first is out (its peers
 * would wait for the rest): nreq requests, as many datatypes, blocks for npieces pieces. */
static int reserve_posts(hbsp_env env, size_t nreq, size_t npieces) {
  const size_t block = sizeof(MPI_Aint) + sizeof(int);
  env->blocks.n = 0;
  if (hla_buf_reserve(&env->reqs, nreq * sizeof(MPI_Request)) != HLA_OK ||
      hla_buf_reserve(&env->types, nreq * sizeof(MPI_Datatype)) != HLA_OK ||
      (npieces > env->blocks.cap / block &&
       hla_buf_reserve(&env->blocks, npieces * block) != HLA_OK))
    return HLA_ERR_NOMEM;
  return HLA_OK;
}

static size_t nchunks(uint64_t bytes) {
  return (size_t)((bytes + HBSP_CHUNK - 1) / HBSP_CHUNK);
}

static int wait_all(hbsp_env env) {
  int n = (int)(env->reqs.n / sizeof(MPI_Request));
  if (n > 0) HBSP_MPI(env, MPI_Waitall(n, (MPI_Request *)env->reqs.p, MPI_STATUSES_IGNORE));
  env->reqs.n = 0;
  MPI_Datatype *t = (MPI_Datatype *)env->types.p;
  for (size_t i = 0; i < env->types.n / sizeof *t; i++) MPI_Type_free(&t[i]);
  env->types.n = 0;
  return HLA_OK;
}

/* The record at *pos of a stream; *pos moves past it and the data that follows it inline. */
static const hbsp_rec *next_rec(const char *st, size_t *pos) {
  const hbsp_rec *rec = (const hbsp_rec *)(st + *pos);
  *pos += sizeof *rec;
  if (rec->kind == HBSP_REC_PUT) *pos += hbsp_pad8(rec->bytes);
  if (rec->kind == HBSP_REC_SEND) *pos += hbsp_pad8(rec->offset + rec->bytes);
  return rec;
}

/* Area [offset, offset+bytes) of slot, or NULL if outside this rank's registration. */
static char *reg_area(hbsp_env env, int32_t slot, uint64_t offset, uint64_t bytes) {
  if (slot < 0 || slot >= env->nreg || !env->reg[slot].live) return NULL;
  const hbsp_reg *r = &env->reg[slot];
  if (offset > r->bytes || bytes > r->bytes - offset) return NULL;
  return (char *)r->base + offset;
}

/* Step 3a: serve the get requests of a stream into out (exactly `want` bytes expected). */
static int serve_gets(hbsp_env env, const char *st, size_t n, char *out, size_t want) {
  size_t done = 0;
  for (size_t pos = 0; pos < n;) {
    const hbsp_rec *rec = next_rec(st, &pos);
    if (rec->kind != HBSP_REC_GET) continue;
    if (rec->bytes > want - done)
      return HBSP_FAIL(env, HLA_ERR_INTERNAL, "sync: get requests exceed their announced size");
    const char *area = reg_area(env, rec->slot, rec->offset, rec->bytes);
    if (area)
      memcpy(out + done, area, rec->bytes);
    else {
      memset(out + done, 0, rec->bytes);
      env->deferred_error = HLA_ERR_ARG;
    }
    done += rec->bytes;
  }
  return HLA_OK;
}

/* Step 3b: post the receives of the large payloads from source s straight into their
 * destinations (an invalid destination lands in env->junk at *junk_at and is reported later).
 * Its memory was reserved (landing_needs). */
static int post_large(hbsp_env env, int s, const char *st, size_t n, size_t total,
                      size_t *junk_at) {
  env->rpieces.n = 0;
  for (size_t pos = 0; pos < n;) {
    const hbsp_rec *rec = next_rec(st, &pos);
    if (rec->kind != HBSP_REC_HPPUT) continue;
    char *area = reg_area(env, rec->slot, rec->offset, rec->bytes);
    if (!area) {
      area = env->junk.p + *junk_at;
      *junk_at += rec->bytes;
      env->deferred_error = HLA_ERR_ARG;
    }
    hbsp_hpiece piece = {area, 0, rec->bytes, 0};
    hla_buf_append(&env->rpieces, &piece, sizeof piece);
  }
  return post_pieces(env, 0, (const hbsp_hpiece *)env->rpieces.p, total, NULL, s);
}

/* What landing a stream takes: bytes of large payloads whose destination is invalid here (junk),
 * large payloads (hp) and messages (msg). */
static void landing_needs(hbsp_env env, const char *st, size_t n, size_t *junk, size_t *hp,
                          size_t *msg) {
  *junk = *hp = *msg = 0;
  for (size_t pos = 0; pos < n;) {
    const hbsp_rec *rec = next_rec(st, &pos);
    if (rec->kind == HBSP_REC_HPPUT && !reg_area(env, rec->slot, rec->offset, rec->bytes))
      *junk += rec->bytes;
    *hp += rec->kind == HBSP_REC_HPPUT;
    *msg += rec->kind == HBSP_REC_SEND;
  }
}

/* Step 3c: land the small puts of a stream and queue its messages in the inbox. */
static void deliver(hbsp_env env, const char *st, size_t n) {
  for (size_t pos = 0; pos < n;) {
    const hbsp_rec *rec = next_rec(st, &pos);
    const char *data = (const char *)(rec + 1);
    if (rec->kind == HBSP_REC_PUT) {
      char *area = reg_area(env, rec->slot, rec->offset, rec->bytes);
      if (area)
        memcpy(area, data, rec->bytes);
      else
        env->deferred_error = HLA_ERR_ARG;
    } else if (rec->kind == HBSP_REC_SEND) {
      hbsp_msg m = {data, data + rec->offset, rec->offset, rec->bytes};
      hla_buf_append(&env->inbox, &m, sizeof m); /* reserved (landing_needs) */
      env->inbox_bytes += rec->bytes;
    }
  }
}

/* Post the sends of this rank's streams and hpput payloads. */
static int post_streams(hbsp_env env) {
  for (int k = 1; k < env->P; k++) {
    int d = (env->rank + k) % env->P;
    HLA_CALL(post(env, 1, env->peer[d].stream.p, env->peer[d].stream.n, d, HBSP_TAG_STREAM));
    const hbsp_peer *q = &env->peer[d];
    if (q->hp_bytes)
      HLA_CALL(post_pieces(env, 1, (const hbsp_hpiece *)q->hp.p, q->hp_bytes, q->large.p, d));
  }
  return HLA_OK;
}

static int dropped(hbsp_env env, int rc);

/* A rank that cannot allocate its receive buffers still completes the protocol, so that nobody
 * waits: it receives into a scratch chunk and discards, answers gets with zeros, and returns
 * HLA_ERR_NOMEM; every rank learns of it at the next sync. */
static int drain(hbsp_env env, const hbsp_xcount *xin) {
  int P = env->P, me = env->rank;
  size_t most = 1, get = 1; /* the largest chunks received and answered */
  for (int s = 0; s < P; s++) {
    uint64_t v[3] = {xin[s].stream, xin[s].hp, env->peer[s].get_bytes};
    for (int i = 0; i < 3; i++) most = v[i] > most ? v[i] : most;
    get = xin[s].get > get ? xin[s].get : get;
  }
  char *scratch = calloc(1, most < HBSP_CHUNK ? most : HBSP_CHUNK);
  char *zeros = calloc(1, get < HBSP_CHUNK ? get : HBSP_CHUNK);
  if (!scratch || !zeros) {
    free(scratch);
    free(zeros);
    return HBSP_FAIL(env, HLA_ERR_NOMEM, "sync: out of memory, even for a scratch buffer");
  }
  size_t nreq = 0, npc = 0;
  for (int s = 0; s < P; s++) {
    const hbsp_peer *q = &env->peer[s];
    nreq += nchunks(q->stream.n) + nchunks(q->hp_bytes) + nchunks(xin[s].get);
    npc = q->hp.n / sizeof(hbsp_hpiece) > npc ? q->hp.n / sizeof(hbsp_hpiece) : npc;
  }
  env->reqs.n = env->types.n = 0;
  int rc = reserve_posts(env, nreq, npc);
  if (rc == HLA_OK) rc = post_streams(env);
  for (int k = 1; k < P && rc == HLA_OK; k++) {
    int s = (me + k) % P;
    for (size_t left = xin[s].get; left > 0 && rc == HLA_OK;) {
      size_t len = left < HBSP_CHUNK ? left : HBSP_CHUNK;
      rc = post(env, 1, zeros, len, s, HBSP_TAG_REPLY);
      left -= len;
    }
  }
  struct {
    uint64_t n;
    int tag;
  } in[3];
  for (int k = 1; k < P && rc == HLA_OK; k++) {
    int s = (me + k) % P;
    in[0].n = xin[s].stream, in[0].tag = HBSP_TAG_STREAM;
    in[1].n = xin[s].hp, in[1].tag = HBSP_TAG_HP;
    in[2].n = env->peer[s].get_bytes, in[2].tag = HBSP_TAG_REPLY;
    for (int i = 0; i < 3; i++)
      for (size_t left = in[i].n; left > 0;) {
        size_t len = left < HBSP_CHUNK ? left : HBSP_CHUNK;
        if (MPI_Recv(scratch, (int)len, MPI_BYTE, s, in[i].tag, env->comm, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS)
          rc = HLA_ERR_MPI;
        left -= len;
      }
  }
  rc = dropped(env, rc); /* after the replies from zeros are out */
  free(scratch);
  free(zeros);
  return rc;
}

/* End of a superstep whose data this rank could not take (rc: how that went): its requests
 * complete, and it ends here too, so that the next one matches the others'; they learn of it at
 * the next sync. */
static int dropped(hbsp_env env, int rc) {
  int rw = wait_all(env);
  drop_superstep(env);
  env->step++;
  env->deferred_error = HLA_ERR_NOMEM;
  HLA_CALL(rc);
  HLA_CALL(rw);
  return HBSP_FAIL(env, HLA_ERR_NOMEM,
                   "sync: cannot allocate the receive buffers; this "
                   "superstep's communication was dropped");
}

/* Landing could not have its memory (after the streams came in, before any large payload was
 * received): take the large payloads into a scratch chunk and drop them. */
static int land_failed(hbsp_env env, const hbsp_xcount *xin) {
  size_t most = 0;
  for (int s = 0; s < env->P; s++) most = xin[s].hp > most ? xin[s].hp : most;
  char *scratch = malloc(most < HBSP_CHUNK ? most + 1 : HBSP_CHUNK);
  int rc = scratch ? HLA_OK : HLA_ERR_NOMEM;
  for (int k = 1; k < env->P && rc == HLA_OK; k++) {
    int s = (env->rank + k) % env->P;
    for (size_t left = xin[s].hp; left > 0;) {
      size_t len = left < HBSP_CHUNK ? left : HBSP_CHUNK;
      if (MPI_Recv(scratch, (int)len, MPI_BYTE, s, HBSP_TAG_HP, env->comm, MPI_STATUS_IGNORE) !=
          MPI_SUCCESS)
        rc = HLA_ERR_MPI;
      left -= len;
    }
  }
  free(scratch);
  return dropped(env, rc);
}

/* known: the counts every peer sends this rank, known in advance (hbsp_sync_known), or NULL for
 * the count exchange. */
static int do_sync(hbsp_env env, const hbsp_xcount *known) {
  int P = env->P, me = env->rank;
  const hbsp_xcount *xin = known;
  int rc = known ? HLA_OK : count_exchange(env, HBSP_STATE_SYNC, &xin);
  if (rc != HLA_OK) {
    drop_superstep(env);
    return rc;
  }
  env->inbox.n = 0;
  env->inbox_next = env->inbox_bytes = 0;
  env->inbox_lent = 0;
  /* the last superstep's messages end here */
  hbsp_buf_trim(env, &env->rbuf);
  if (xin == NULL) { /* nobody queued anything */
    hbsp_reg_apply(env);
    env->tagsize = env->tagsize_next;
    clear_requests(env);
    env->step++;
    return HLA_OK;
  }

  /* Offsets, per peer: soff into rbuf (its stream), roff into greply (its replies to this rank's
   * gets), qoff into reply (this rank's replies to its gets). */
  if (hla_buf_reserve(&env->offs, 3 * (size_t)P * sizeof(size_t)) != HLA_OK) return drain(env, xin);
  size_t *soff = (size_t *)env->offs.p, *roff = soff + P, *qoff = soff + 2 * P;
  size_t nr = 0, ng = 0, nq = 0;
  for (int s = 0; s < P; s++) {
    uint64_t st = s == me ? env->peer[me].stream.n : xin[s].stream;
    soff[s] = nr, nr += hbsp_pad8(st);
    roff[s] = ng, ng += env->peer[s].get_bytes;
    qoff[s] = nq, nq += xin[s].get;
  }
  env->rbuf.n = env->greply.n = env->reply.n = 0;
  /* Every request of the superstep (a chunk of a message each), and blocks for this rank's large
   * payloads: nothing the posts append can fail once the first is out. */
  size_t nreq = 0, npc = 0;
  for (int s = 0; s < P; s++) {
    const hbsp_peer *q = &env->peer[s];
    if (s == me) continue;
    nreq += nchunks(xin[s].stream) + nchunks(q->get_bytes) + nchunks(q->stream.n) +
            nchunks(q->hp_bytes) + nchunks(xin[s].get) + nchunks(xin[s].hp);
    npc = q->hp.n / sizeof(hbsp_hpiece) > npc ? q->hp.n / sizeof(hbsp_hpiece) : npc;
  }
  env->reqs.n = env->types.n = 0;
  if (hla_buf_reserve(&env->rbuf, nr) || hla_buf_reserve(&env->greply, ng) ||
      hla_buf_reserve(&env->reply, nq) || reserve_posts(env, nreq, npc))
    return drain(env, xin);

  /* Step 2: receives first (streams, then replies), then sends, in Latin-square order. */
  for (int k = 1; k < P; k++) {
    int s = (me + k) % P;
    HLA_CALL(post(env, 0, env->rbuf.p + soff[s], xin[s].stream, s, HBSP_TAG_STREAM));
  }
  int nrecv = (int)(env->reqs.n / sizeof(MPI_Request));
  for (int k = 1; k < P; k++) {
    int d = (me + k) % P;
    HLA_CALL(post(env, 0, env->greply.p + roff[d], env->peer[d].get_bytes, d, HBSP_TAG_REPLY));
  }
  HLA_CALL(post_streams(env));
  /* This rank's own stream goes through the receive buffer too: the inbox points there, and the
   * stream itself is refilled in the next superstep. */
  if (env->peer[me].stream.n)
    memcpy(env->rbuf.p + soff[me], env->peer[me].stream.p, env->peer[me].stream.n);
  HBSP_MPI(env, MPI_Waitall(nrecv, (MPI_Request *)env->reqs.p, MPI_STATUSES_IGNORE));

  /* Step 3: every get reads its value before any put of this superstep lands. */
  for (int k = 0; k < P; k++) {
    int s = (me + k) % P;
    size_t st = s == me ? env->peer[me].stream.n : xin[s].stream;
    HLA_CALL(serve_gets(env, env->rbuf.p + soff[s], st, env->reply.p + qoff[s], xin[s].get));
  }
  for (int k = 1; k < P; k++) {
    int s = (me + k) % P;
    HLA_CALL(post(env, 1, env->reply.p + qoff[s], xin[s].get, s, HBSP_TAG_REPLY));
  }
  /* What landing takes, reserved before any of it. */
  size_t junk = 0, junk_at = 0, nhp = 0, nmsg = 0;
  for (int s = 0; s < P; s++) {
    size_t j, h, m;
    landing_needs(env, env->rbuf.p + soff[s], s == me ? env->peer[me].stream.n : xin[s].stream, &j,
                  &h, &m);
    junk += s == me ? 0 : j, nhp = h > nhp ? h : nhp, nmsg += m;
  }
  env->junk.n = env->rpieces.n = 0;
  if (hla_buf_reserve(&env->junk, junk) ||
      hla_buf_reserve(&env->rpieces, nhp * sizeof(hbsp_hpiece)) || reserve_posts(env, 0, nhp) ||
      hla_buf_reserve(&env->inbox, nmsg * sizeof(hbsp_msg)))
    return land_failed(env, xin);
  for (int k = 1; k < P; k++) {
    int s = (me + k) % P;
    if (xin[s].hp)
      HLA_CALL(post_large(env, s, env->rbuf.p + soff[s], xin[s].stream, xin[s].hp, &junk_at));
  }
  for (int k = 0; k < P; k++) {
    int s = (me + k) % P;
    size_t st = s == me ? env->peer[me].stream.n : xin[s].stream;
    deliver(env, env->rbuf.p + soff[s], st);
  }
  HLA_CALL(wait_all(env));
  for (int d = 0; d < P; d++) {
    const hbsp_getdst *g = (const hbsp_getdst *)env->peer[d].gets.p;
    size_t n = env->peer[d].gets.n / sizeof *g;
    const char *src = d == me ? env->reply.p + qoff[me] : env->greply.p + roff[d];
    for (size_t i = 0; i < n; i++) {
      memcpy(g[i].dst, src, g[i].bytes);
      src += g[i].bytes;
    }
  }

  /* Step 4. */
  hbsp_reg_apply(env);
  env->tagsize = env->tagsize_next;
  clear_requests(env);
  env->step++;
  return HLA_OK;
}

int hbsp_sync(hbsp_env env) {
  if (!env) return HLA_ERR_ARG;
  hbsp_prof_begin(env);
  int rc = do_sync(env, NULL);
  hbsp_prof_end(env, "sync");
  return rc;
}

size_t hbsp_sync_msg_bytes(hbsp_env env, size_t bytes) {
  return sizeof(hbsp_rec) + hbsp_pad8(env->tagsize + bytes);
}

int hbsp_sync_known_prepare(hbsp_env env) {
  return hbsp_peers(env);
}

int hbsp_sync_known(hbsp_env env, const uint64_t *in) {
  if (!env) return HLA_ERR_ARG;
  if (!env->peer)
    return HBSP_FAIL(env, HLA_ERR_INTERNAL, "hbsp_sync_known: hbsp_sync_known_prepare not called");
  /* What the count exchange would have checked, here on this rank only: a caller's error. */
  if (env->queued_drma || env->nregops != 0 || env->tagsize_next != env->tagsize)
    return HBSP_FAIL(env, HLA_ERR_INTERNAL,
                     "hbsp_sync_known: only messages may be queued in its superstep");
  hbsp_xcount *xin = (hbsp_xcount *)env->xcount.p + env->P;
  for (int s = 0; s < env->P; s++) xin[s] = (hbsp_xcount){s == env->rank ? 0 : in[s], 0, 0};
  hbsp_prof_begin(env);
  int rc = do_sync(env, xin);
  hbsp_prof_end(env, "sync_known");
  return rc;
}

int hbsp_exchange(hbsp_env env, int state) {
  const hbsp_xcount *xin;
  int rc = count_exchange(env, state, &xin);
  if (rc != HLA_OK && rc != HLA_ERR_ARG) { /* a mismatch leaves no consistent superstep */
    drop_superstep(env);
  }
  return rc;
}

int hbsp_barrier(hbsp_env env) {
  if (!env) return HLA_ERR_ARG;
  hbsp_prof_begin(env);
  int rc = hbsp_exchange(env, HBSP_STATE_BARRIER);
  hbsp_prof_end(env, "barrier");
  return rc;
}

int hbsp_idle_barrier(hbsp_env env) {
  if (!env) return HLA_ERR_ARG;
#ifdef HLA_SMPI
  /* SimGrid 3.32's MPI_Ibarrier is no barrier (rank 0 answers each rank as soon as that one
   * arrives; smpi_nbc_impl.cpp), and its ranks are threads that never spin: block instead. */
  HBSP_MPI(env, MPI_Barrier(hbsp_comm(env)));
  return HLA_OK;
#endif
  MPI_Request r;
  int done = 0;
  HBSP_MPI(env, MPI_Ibarrier(hbsp_comm(env), &r));
  /* Sleeps doubling from 50 us to 10 ms: a short wait ends soon after the last rank arrives, and
   * a long one wakes this rank rarely. Frequent wake-ups are not free for the rank that works:
   * every 100 us cost a 2-thread dgetrf on 2 cores 30 % (each one preempts a BLAS thread, and
   * its partner thread waits for it at the next block). */
  for (long ns = 50000;; ns = ns < 10000000 / 2 ? 2 * ns : 10000000) {
    HBSP_MPI(env, MPI_Test(&r, &done, MPI_STATUS_IGNORE));
    if (done) return HLA_OK;
    struct timespec ts = {0, ns}; /* a variable: nanosleep is a macro under SMPI */
    nanosleep(&ts, NULL);
  }
}
