/* hla — private definitions of the BSP layer. Only src/bsp and (through the internal calls at the
 * end) src/dist include this; public headers never do. */
#ifndef HLA_BSP_IMPL_H
#define HLA_BSP_IMPL_H

#include <stdarg.h>
#include <stdint.h>
#include "hla/bsp.h"
#include "hla_private.h"
#include "settings.h"

/* MPI tags used by hla on an environment's communicator (all >= HBSP_TAG_RESERVED). */
enum {
  HBSP_TAG_STREAM = HBSP_TAG_RESERVED, /* sync: puts, get requests and sends */
  HBSP_TAG_HP,                         /* sync: hpput payloads */
  HBSP_TAG_REPLY,                      /* sync: get replies */
  HBSP_TAG_COLL                        /* collectives (point-to-point algorithms) */
};

typedef struct {
  void *base;
  size_t bytes;
  int live;
} hbsp_reg;

/* A registration operation queued until the next sync. */
typedef struct {
  int pop;    /* 0 = push, 1 = pop */
  int slot;   /* pop: slot to free */
  void *base; /* push */
  size_t bytes;
} hbsp_regop;

/* Per-peer outgoing state of one superstep. */
typedef struct {
  hla_buf stream; /* records: get requests, small puts with payload, large-put headers, sends */
  hla_buf hp;     /* hbsp_hpiece[]: payloads of large puts and hpputs, sent apart at the sync */
  size_t hp_bytes;
  hla_buf large; /* copies of large buffered puts (hp pieces refer to them by offset) */
  hla_buf gets;  /* hbsp_getdst[]: where this peer's get replies go, in request order */
  size_t get_bytes;
} hbsp_peer;

/* One payload travelling in the separate "hp" message: from user memory (hpput), or from the
 * peer's `large` buffer at offset `off` (a large put, copied at call time). */
typedef struct {
  const void *src;
  size_t off;
  size_t bytes;
  int buffered;
} hbsp_hpiece;

typedef struct {
  void *dst;
  size_t bytes;
} hbsp_getdst;

/* One message of the current inbox (points into the receive buffer of the last sync). */
typedef struct {
  const char *tag;
  const char *payload;
  size_t tagbytes; /* the tag size in force when it was sent */
  size_t bytes;
} hbsp_msg;

typedef struct hbsp_prof_s hbsp_prof; /* profiler recorder (src/bsp/prof.c) */

/* What the environments descending from one hbsp_init (splits, twins, nodes, and theirs) share on
 * a rank: the advice already given there (hbsp_once), so that a program that makes many grids is
 * told once. Counted: freed with the last of them, whatever the order they are freed in. */
#define HBSP_ONCE_KEYS 16
typedef struct {
  int refs;
  int nsaid;
  uint64_t said[HBSP_ONCE_KEYS];
} hbsp_family;
typedef struct hbsp_coll_cache_s hbsp_coll_cache; /* group sub-environments (src/bsp/coll.c) */

struct hbsp_env_s {
  MPI_Comm comm;
  int P, rank;
  int64_t step;  /* completed syncs */
  char name[64]; /* "world", "world/split", ... for the profiler and messages */

  /* registrations: the slot index is the identity shared by all ranks */
  hbsp_reg *reg;
  int nreg, capreg;
  hla_buf regops;   /* hbsp_regop[] pending until the next sync */
  int64_t nregops;  /* registration calls in this superstep, checked at the sync */
  uint64_t reghash; /* hash of those calls (order and popped slots), checked at the sync */

  /* BSMP */
  size_t tagsize, tagsize_next;
  hla_buf inbox; /* hbsp_msg[] */
  size_t inbox_next, inbox_bytes;
  int inbox_lent; /* hbsp_hpmove handed out a pointer into rbuf in this superstep */

  /* sync machinery, kept between supersteps (the large message buffers: hbsp_buf_trim) */
  hbsp_peer *peer;    /* P entries, or NULL until this rank first queues or receives (hbsp_peers) */
  int queued;         /* this rank queued a request in this superstep */
  int queued_drma;    /* ... and one of them a put or get (not a message) */
  int deferred_error; /* a remote put/get this rank served went outside a registration */
  hla_buf xcount;     /* count exchange send and receive arrays (hbsp_xcount[2P]), with peer */
  hla_buf rbuf;       /* incoming streams; the inbox points into it */
  hla_buf rpieces;    /* hbsp_hpiece[]: where incoming hp payloads land (destination areas) */
  hla_buf junk;       /* landing place for hp payloads whose destination is invalid */
  hla_buf reply;      /* outgoing get replies */
  hla_buf greply;     /* incoming get replies */
  hla_buf reqs;       /* MPI_Request[] */
  hla_buf offs;       /* per-peer offsets into rbuf/reply */
  hla_buf types;      /* MPI_Datatype[] made for hp payloads, freed at the end of the sync */
  hla_buf blocks;     /* displacements and lengths of one hp message's datatype */

  hbsp_coll_cache *coll; /* cached group environments for two-level collectives */
  hbsp_prof *prof;       /* NULL when the profiler is off */
  hla_settings settings; /* the HLA_* variables as hbsp_init read them (rank 0's), inherited */
  hbsp_family *family;   /* shared with every environment of the same hbsp_init on this rank */

  char errmsg[512];
};

/* Record an error message on env and return code. The message starts with "rank r of <env>: ";
 * HBSP_FAIL_ALL is for verdicts every rank reaches from the same data, and leaves the rank out so
 * that the text is identical everywhere. */
int hbsp_fail_at(hbsp_env env, int code, int with_rank, const char *file, int line, const char *fmt,
                 ...) __attribute__((format(printf, 6, 7)));
#define HBSP_FAIL(env, code, ...) hbsp_fail_at((env), (code), 1, __FILE__, __LINE__, __VA_ARGS__)
#define HBSP_FAIL_ALL(env, code, ...)                                                              \
  hbsp_fail_at((env), (code), 0, __FILE__, __LINE__, __VA_ARGS__)

/* Collective over env: every rank passes its local code; all return the code of the lowest rank
 * that failed (HLA_OK if none) and that rank's message becomes everyone's. One allreduce when
 * nobody failed. */
int hbsp_agree(hbsp_env env, int code);

/* hbsp_agree, and in the same allreduce a check that the k global words v[0..k) (k <= 16) are
 * equal on every rank: when they differ (and nobody failed otherwise) every rank returns
 * HLA_ERR_ARG with the message "<what>: arguments differ between ranks". Collective over env; one
 * allreduce of 2 k + 1 words when all is well. */
int hbsp_agree_same(hbsp_env env, int code, const int64_t *v, int k, const char *what);

/* hbsp_agree over env on the code of a collective over sub, a subset environment of env's ranks
 * (NULL: none) whose errors were agreed inside sub only: the other subsets went on, so only an
 * agreement over env brings every rank to the same verdict. sub's message becomes env's. */
int hbsp_agree_sub(hbsp_env env, hbsp_env sub, int code);

/* Check an MPI return code. */
#define HBSP_MPI(env, call)                                                                        \
  do {                                                                                             \
    int hbsp_mpi_e_ = (call);                                                                      \
    if (hbsp_mpi_e_ != MPI_SUCCESS)                                                                \
      return HBSP_FAIL((env), HLA_ERR_MPI, "%s failed (MPI error %d)", #call, hbsp_mpi_e_);        \
  } while (0)

/* Registration slot of this rank's address base (most recent live one), or -1. Local. */
int hbsp_reg_find(hbsp_env env, const void *base);

/* Make a new environment object around an MPI communicator the caller created (takes ownership).
 * Inherits the profiler of parent (may be NULL). Local. */
int hbsp_env_wrap(MPI_Comm comm, hbsp_env parent, const char *name, hbsp_env *out);

/* hbsp_split whose child is named "<parent>/<name>" (for profiles and messages) instead of
 * "<parent>/split". Collective over parent, as hbsp_split. */
int hbsp_split_named(hbsp_env parent, int color, int key, const char *name, hbsp_env *child);

/* Free the local object without any communication (error paths and internal caches). */
void hbsp_env_destroy(hbsp_env env);

/* ---- supersteps whose traffic every rank knows (src/bsp/sync.c) ----
 * hbsp_sync_known(env, in) is hbsp_sync for a superstep in which only messages (hbsp_send,
 * hbsp_send_buf) were queued and every rank knows what each peer sends it: in[s] is the sum of
 * hbsp_sync_msg_bytes over the messages rank s queued for this rank (in[rank] is ignored). It
 * skips the count exchange and its checks (an allreduce, then an all-to-all of counts), so the
 * superstep is one round of messages: BSP cost h g + one message's latency, where hbsp_sync has
 * l. The caller derives both ends from the same global data; a mismatch is its bug (a message
 * that does not fit is an MPI error, a missing one a hang). Collective over env, which must have
 * been prepared by hbsp_sync_known_prepare (the per-peer queues; local, HLA_ERR_NOMEM with env's
 * message). A rank that cannot take its messages completes the superstep and returns
 * HLA_ERR_NOMEM there alone, as hbsp_sync; the next hbsp_sync reports it on every rank. */
int hbsp_sync_known(hbsp_env env, const uint64_t *in);
int hbsp_sync_known_prepare(hbsp_env env);
size_t hbsp_sync_msg_bytes(hbsp_env env, size_t bytes);

/* ---- profiler hooks (src/bsp/prof.c); each is a no-op when env->prof is NULL ---- */

/* A communication phase (sync, barrier or collective) starts: what came before was computation. */
void hbsp_prof_begin(hbsp_env env);
/* One message of `bytes` to (sent = 1) or from (sent = 0) rank `peer` of env. */
void hbsp_prof_msg(hbsp_env env, int peer, size_t bytes, int sent);
/* The phase ends; kind names it ("sync", "bcast", ...). Closes one superstep record. */
void hbsp_prof_end(hbsp_env env, const char *kind);
/* Attach env to its parent's profile (split/reorder/node) and release it (free). */
int hbsp_prof_inherit(hbsp_env child, hbsp_env parent);
void hbsp_prof_release(hbsp_env env);
/* Called by hbsp_free before the object is destroyed: writes the file if env started the profile.
 * Collective over env. */
int hbsp_prof_finish(hbsp_env env);

/* ---- collectives cache (src/bsp/coll.c) ---- */
void hbsp_coll_cache_free(hbsp_env env);

/* 1 the first time key is asked for in env's family (the environments of one hbsp_init) on this
 * rank, then 0: for advice given once per program and situation without global state. 0 once
 * HBSP_ONCE_KEYS keys are held (no more advice). Local. */
int hbsp_once(hbsp_env env, uint64_t key);

/* The HLA_* variables in force on env: read by the hbsp_init it descends from (src/settings.h).
 * Local. */
static inline const hla_settings *hbsp_settings(hbsp_env env) {
  return &env->settings;
}

/* The most bytes a message buffer of env keeps between supersteps (its capacity beyond is given
 * back): the steady state of small supersteps allocates nothing, and one large superstep (a
 * remap of a whole matrix) does not pin its memory for the life of env. In the simulation's model
 * mode nothing is kept: thousands of simulated ranks share one machine's memory, and a page fault
 * costs no simulated time. Local. */
#define HBSP_BUF_KEEP ((size_t)16 << 20)
static inline void hbsp_buf_trim(hbsp_env env, hla_buf *b) {
  if (b->cap > (env->settings.sim_model ? 0 : HBSP_BUF_KEEP)) hla_buf_free(b);
}

#endif
