/* hla — BSP profiler: per-environment, per-superstep records, gathered into one JSON file.
 *
 * Model. A profile is started on one environment (hbsp_profile_start, or HLA_PROFILE=path at
 * hbsp_init) and is shared by every environment split, reordered or wrapped from it afterwards
 * (hbsp_prof_inherit). Each attached environment has a recorder on each of its ranks. A
 * "superstep" is one communication phase of that environment: a sync, a barrier or a collective,
 * bracketed by hbsp_prof_begin / hbsp_prof_end. Per superstep a recorder keeps
 *   - compute: seconds from the end of the previous phase on this environment (or from attaching)
 *     to the begin of this one;
 *   - comm: seconds from begin to end (communication and synchronisation together, as in
 *     Zefiros-BSPLib: most communication work happens inside the sync);
 *   - bytes and messages sent and received, as reported by hbsp_prof_msg between the end of the
 *     previous phase and the end of this one (puts are counted where they are queued);
 *   - this rank's traffic row: bytes sent to each peer of the environment (stored sparsely).
 * Nothing is allocated per message: the current superstep accumulates into per-peer arrays of
 * size P, and closed records go to geometrically grown buffers.
 *
 * What a "message" and its bytes are is decided by the callers of hbsp_prof_msg: hbsp_sync
 * (src/bsp/sync.c) reports what goes on the wire, i.e. one message per MPI transfer (a peer's
 * stream of request records with small payloads, a separate message for large puts and hpputs,
 * get replies), bytes including the 24-byte request records and padding, and nothing for a
 * rank's traffic to itself; the collectives report their point-to-point messages.
 *
 * Output. hbsp_profile_write (collective over the starting environment; also run when that
 * environment is freed) gathers every rank's recorders, including those of children that were
 * freed already, to rank 0, which writes one JSON file (overwritten at each write):
 *
 *   { "format": "hla-profile", "version": 1,
 *     "P": <size of the starting environment>,
 *     "wall": <seconds on rank 0 from the start of the profile to this write>,
 *     "envs": [
 *       { "id": 0, "name": "world", "P": 4, "occurrence": 0,
 *         "world_ranks": [0, 1, 2, 3],          // rank i of the env is this MPI_COMM_WORLD rank
 *         "ranks": [                             // one entry per env rank, in rank order
 *           { "rank": 0, "world_rank": 0, "dropped": 0,
 *             "supersteps": [
 *               { "step": 0, "kind": "sync", "label": "", "t": 0.0012,
 *                 "compute": 0.0010, "comm": 0.0002,
 *                 "bytes_sent": 16, "bytes_recv": 16, "msgs_sent": 2, "msgs_recv": 2,
 *                 "row": [0, 8, 8, 0] } ] } ],   // bytes from this rank to each env rank
 *         "supersteps": [                        // per superstep of the env, over its ranks
 *           { "step": 0, "kind": "sync", "label": "",
 *             "h_bytes": 16,                     // max over ranks of max(bytes sent, received)
 *             "max_compute": 0.0010, "max_comm": 0.0002,
 *             "traffic": [[0, 8, 8, 0], ...] } ] }   // P x P, row = sender, column = receiver
 *     ] }
 *
 * Environments of different ranks are matched by (name, world ranks in env order, occurrence):
 * the occurrence is the number of earlier environments with the same name and members in this
 * profile, which is the same on every member because environments are created collectively.
 * "t" is the start of the phase in seconds since the profile started on that rank (one origin for
 * all environments of a rank, so that their timelines line up). "traffic" is dense: P x P numbers
 * per superstep, so a long profile at large P is big. "dropped"
 * counts records lost to a failed allocation. Times are MPI_Wtime; the time spent writing the
 * file is excluded from the next superstep's compute time. The file uses the native byte order
 * for the gather, so all ranks must share one architecture. Records made on children after the
 * starting environment was freed are never written.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bsp_impl.h"

/* ---------------------------------------------------------------- data structures */

/* One closed superstep. All fields are 8 bytes so records can be shipped as they are. */
typedef struct {
  double t, compute, comm;
  uint64_t bytes_sent, bytes_recv, msgs_sent, msgs_recv;
  uint64_t row_off, row_n; /* this record's entries in the recorder's cell array */
  uint64_t kind, label;    /* indices into the recorder's string table */
} prof_rec;

/* One non-zero entry of a traffic row. */
typedef struct {
  uint64_t peer, bytes;
} prof_cell;

typedef struct prof_shared_s prof_shared;

/* The recorder of one environment on this rank. */
struct hbsp_prof_s {
  prof_shared *sh;
  hbsp_env env; /* NULL once the environment was freed (the records stay for the write) */
  char name[64];
  int P, rank;
  int64_t occ;    /* earlier recorders of sh with the same name and members */
  int64_t *world; /* world rank of each env rank (-1 if not in MPI_COMM_WORLD) */
  double t0, t_last, t_begin;
  int depth; /* nesting of begin/end: only the outermost phase makes a record */
  /* the open superstep */
  uint64_t bytes_sent, bytes_recv, msgs_sent, msgs_recv;
  uint64_t *acc;       /* P: bytes to each peer */
  unsigned char *mark; /* P: peer already in touched[] */
  int *touched, ntouched;
  /* closed supersteps */
  hla_buf recs;   /* prof_rec[] */
  hla_buf cells;  /* prof_cell[] */
  hla_buf strs;   /* NUL-terminated strings, each padded to 8 bytes */
  hla_buf stroff; /* uint64_t offsets of the strings into strs */
  uint64_t label, last_kind;
  uint64_t dropped;
};

/* The profile shared by every recorder on this rank (refcounted by attached environments). */
struct prof_shared_s {
  char *path;
  double t0;       /* MPI_Wtime when the profile started on this rank: origin of every "t" */
  hbsp_env owner;  /* environment that started it; NULL once freed */
  int refs;        /* environments attached */
  hbsp_prof **rec; /* every recorder ever attached, kept until the profile dies */
  int nrec, caprec;
};

/* ---------------------------------------------------------------- recorders */

/* Intern s in p's string table; returns its index or -1 on allocation failure. Linear search: a
 * recorder sees a handful of kinds and labels. Local, O(#strings). */
static int64_t prof_intern(hbsp_prof *p, const char *s) {
  const uint64_t *off = (const uint64_t *)p->stroff.p;
  size_t n = p->stroff.n / sizeof(uint64_t);
  for (size_t i = 0; i < n; i++)
    if (strcmp(p->strs.p + off[i], s) == 0) return (int64_t)i;
  size_t len = strlen(s) + 1, pad = (len + 7) & ~(size_t)7;
  uint64_t o = p->strs.n;
  if (hla_buf_reserve(&p->strs, pad) || hla_buf_reserve(&p->stroff, sizeof o)) return -1;
  char *dst = hla_buf_append(&p->strs, NULL, pad);
  memset(dst, 0, pad);
  memcpy(dst, s, len);
  hla_buf_append(&p->stroff, &o, sizeof o);
  return (int64_t)n;
}

/* String i of p's table. Local. */
static const char *prof_str(const hbsp_prof *p, uint64_t i) {
  return p->strs.p + ((const uint64_t *)p->stroff.p)[i];
}

/* Free a recorder and its records. Local. */
static void prof_rec_free(hbsp_prof *p) {
  if (!p) return;
  free(p->world);
  free(p->acc);
  free(p->mark);
  free(p->touched);
  hla_buf_free(&p->recs);
  hla_buf_free(&p->cells);
  hla_buf_free(&p->strs);
  hla_buf_free(&p->stroff);
  free(p);
}

/* Free a profile with every recorder it ever had. Local. */
static void prof_shared_free(prof_shared *sh) {
  for (int i = 0; i < sh->nrec; i++) prof_rec_free(sh->rec[i]);
  free(sh->rec);
  free(sh->path);
  free(sh);
}

/* World ranks of env's members, in env rank order. Local (group queries only). */
static int prof_world_ranks(hbsp_env env, int64_t *out) {
  MPI_Group g, wg;
  int *in = malloc(sizeof(int) * (size_t)env->P), *tr = malloc(sizeof(int) * (size_t)env->P);
  int code = HLA_OK;
  if (!in || !tr) {
    code = HLA_ERR_NOMEM;
  } else if (MPI_Comm_group(env->comm, &g) != MPI_SUCCESS) {
    code = HLA_ERR_MPI;
  } else {
    if (MPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS) {
      code = HLA_ERR_MPI;
    } else {
      for (int i = 0; i < env->P; i++) in[i] = i;
      if (MPI_Group_translate_ranks(g, env->P, in, wg, tr) != MPI_SUCCESS) code = HLA_ERR_MPI;
      for (int i = 0; code == HLA_OK && i < env->P; i++)
        out[i] = tr[i] == MPI_UNDEFINED ? -1 : tr[i];
      MPI_Group_free(&wg);
    }
    MPI_Group_free(&g);
  }
  free(in);
  free(tr);
  return code;
}

/* Make a recorder of env in sh (not yet attached to env). Local, O(P + #recorders * P). */
static int prof_rec_new(prof_shared *sh, hbsp_env env, hbsp_prof **out) {
  *out = NULL;
  hbsp_prof *p = calloc(1, sizeof *p);
  if (!p) return HLA_ERR_NOMEM;
  size_t P = (size_t)env->P;
  p->sh = sh;
  p->P = env->P;
  p->rank = env->rank;
  snprintf(p->name, sizeof p->name, "%s", env->name);
  p->world = malloc(sizeof(int64_t) * P);
  p->acc = calloc(P, sizeof(uint64_t));
  p->mark = calloc(P, 1);
  p->touched = malloc(sizeof(int) * P);
  int code = (p->world && p->acc && p->mark && p->touched) ? HLA_OK : HLA_ERR_NOMEM;
  if (code == HLA_OK) code = prof_world_ranks(env, p->world);
  if (code == HLA_OK && prof_intern(p, "") != 0) code = HLA_ERR_NOMEM; /* label 0 = none */
  if (code == HLA_OK && sh->nrec == sh->caprec) {
    int cap = sh->caprec ? 2 * sh->caprec : 8;
    hbsp_prof **r = realloc(sh->rec, sizeof *r * (size_t)cap);
    if (!r)
      code = HLA_ERR_NOMEM;
    else
      sh->rec = r, sh->caprec = cap;
  }
  if (code != HLA_OK) {
    prof_rec_free(p);
    return code;
  }
  for (int i = 0; i < sh->nrec; i++) {
    const hbsp_prof *q = sh->rec[i];
    if (q->P == p->P && strcmp(q->name, p->name) == 0 &&
        memcmp(q->world, p->world, sizeof(int64_t) * P) == 0)
      p->occ++;
  }
  p->t_last = MPI_Wtime();
  p->t0 = sh->t0;
  sh->rec[sh->nrec++] = p;
  *out = p;
  return HLA_OK;
}

/* Attach recorder p to env. Local. */
static void prof_attach(hbsp_prof *p, hbsp_env env) {
  p->env = env;
  p->sh->refs++;
  env->prof = p;
}

/* ---------------------------------------------------------------- hooks (bsp_impl.h) */

/* Hook (bsp_impl.h): a phase starts. Local, O(1). */
void hbsp_prof_begin(hbsp_env env) {
  hbsp_prof *p = env->prof;
  if (!p) return;
  if (p->depth++ == 0) p->t_begin = MPI_Wtime();
}

/* Hook: one message to or from peer. Local, O(1), no allocation. */
void hbsp_prof_msg(hbsp_env env, int peer, size_t bytes, int sent) {
  hbsp_prof *p = env->prof;
  if (!p || peer < 0 || peer >= p->P) return;
  if (sent) {
    p->bytes_sent += bytes;
    p->msgs_sent++;
    if (!p->mark[peer]) {
      p->mark[peer] = 1;
      p->touched[p->ntouched++] = peer;
    }
    p->acc[peer] += bytes;
  } else {
    p->bytes_recv += bytes;
    p->msgs_recv++;
  }
}

/* Hook: the phase ends and becomes a record. Local, O(peers written to); allocates only when a
 * buffer grows (geometrically). */
void hbsp_prof_end(hbsp_env env, const char *kind) {
  hbsp_prof *p = env->prof;
  if (!p || p->depth == 0) return; /* off, or an end without a begin */
  if (--p->depth > 0) return;      /* a phase nested in another one on the same env */
  double now = MPI_Wtime();
  if (!kind) kind = "";
  if (strcmp(prof_str(p, p->last_kind), kind) != 0) {
    int64_t k = prof_intern(p, kind);
    p->last_kind = k < 0 ? 0 : (uint64_t)k;
  }
  prof_rec r = {.t = p->t_begin - p->t0,
                .compute = p->t_begin - p->t_last,
                .comm = now - p->t_begin,
                .bytes_sent = p->bytes_sent,
                .bytes_recv = p->bytes_recv,
                .msgs_sent = p->msgs_sent,
                .msgs_recv = p->msgs_recv,
                .row_off = p->cells.n / sizeof(prof_cell),
                .row_n = (uint64_t)p->ntouched,
                .kind = p->last_kind,
                .label = p->label};
  int ok = hla_buf_reserve(&p->cells, sizeof(prof_cell) * (size_t)p->ntouched) == HLA_OK &&
           hla_buf_reserve(&p->recs, sizeof r) == HLA_OK;
  for (int i = 0; i < p->ntouched; i++) {
    int q = p->touched[i];
    prof_cell c = {(uint64_t)q, p->acc[q]};
    if (ok) hla_buf_append(&p->cells, &c, sizeof c);
    p->acc[q] = 0;
    p->mark[q] = 0;
  }
  if (ok)
    hla_buf_append(&p->recs, &r, sizeof r);
  else
    p->dropped++;
  p->ntouched = 0;
  p->bytes_sent = p->bytes_recv = p->msgs_sent = p->msgs_recv = 0;
  p->t_last = now;
}

/* Attach child to parent's profile, if any. Local, O(P + recorders·P); HLA_ERR_NOMEM leaves
 * child->prof NULL. */
int hbsp_prof_inherit(hbsp_env child, hbsp_env parent) {
  if (!child) return HLA_ERR_ARG;
  child->prof = NULL;
  if (!parent || !parent->prof) return HLA_OK;
  hbsp_prof *p;
  int code = prof_rec_new(parent->prof->sh, child, &p);
  if (code != HLA_OK) return HBSP_FAIL(child, code, "profiler: cannot attach %s", child->name);
  prof_attach(p, child);
  return HLA_OK;
}

/* Detach env (being freed); its records stay until the profile dies with its last env. Local. */
void hbsp_prof_release(hbsp_env env) {
  if (!env || !env->prof) return;
  hbsp_prof *p = env->prof;
  prof_shared *sh = p->sh;
  env->prof = NULL;
  p->env = NULL;
  if (sh->owner == env) sh->owner = NULL;
  if (--sh->refs == 0) prof_shared_free(sh);
}

static int prof_write(hbsp_env env);

/* Write the file if env started the profile. Collective over env (see prof_write). */
int hbsp_prof_finish(hbsp_env env) {
  if (!env || !env->prof || env->prof->sh->owner != env) return HLA_OK;
  int code = prof_write(env);
  /* hbsp_free stops on an error; writing once is enough, so that a second hbsp_free goes through */
  if (code != HLA_OK) env->prof->sh->owner = NULL;
  return code;
}

/* ---------------------------------------------------------------- public API */

/* Public (bsp.h). Collective over env: one agreement. If env already started a profile, only the
 * path changes; if it records into an ancestor's profile, it leaves it for its own. */
int hbsp_profile_start(hbsp_env env, const char *path) {
  if (!env) return HLA_ERR_ARG;
  int code = HLA_OK;
  prof_shared *sh = NULL;
  hbsp_prof *p = NULL;
  char *copy = NULL;
  if (!path || !*path) {
    code = HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_profile_start: empty path");
  } else if (!(copy = malloc(strlen(path) + 1))) {
    code = HBSP_FAIL(env, HLA_ERR_NOMEM, "hbsp_profile_start: out of memory");
  } else {
    strcpy(copy, path);
    if (!env->prof || env->prof->sh->owner != env) {
      sh = calloc(1, sizeof *sh);
      if (!sh) {
        code = HLA_ERR_NOMEM;
      } else {
        sh->t0 = MPI_Wtime();
        code = prof_rec_new(sh, env, &p);
      }
      if (code != HLA_OK)
        code = HBSP_FAIL(env, code, "hbsp_profile_start: cannot create the recorder");
    }
  }
  code = hbsp_agree(env, code);
  if (code != HLA_OK) {
    free(copy);
    if (sh) prof_shared_free(sh); /* also frees p */
    return code;
  }
  if (!sh) { /* env already owns a profile: keep its records, change the file */
    free(env->prof->sh->path);
    env->prof->sh->path = copy;
    return HLA_OK;
  }
  hbsp_prof_release(env); /* leave the profile of an ancestor, if any */
  sh->path = copy;
  sh->owner = env;
  prof_attach(p, env);
  return HLA_OK;
}

/* Public (bsp.h). Collective over env. */
int hbsp_profile_write(hbsp_env env) {
  if (!env) return HLA_ERR_ARG;
  int code = HLA_OK;
  if (!env->prof || env->prof->sh->owner != env)
    code =
        HBSP_FAIL(env, HLA_ERR_ARG,
                  "hbsp_profile_write: %s did not start a profile (hbsp_profile_start)", env->name);
  HLA_CALL(hbsp_agree(env, code));
  return prof_write(env);
}

/* Public (bsp.h). Local; allocates only for a label not seen before on env. */
int hbsp_profile_label(hbsp_env env, const char *label) {
  if (!env) return HLA_ERR_ARG;
  hbsp_prof *p = env->prof;
  if (!p) return HLA_OK;
  int64_t k = prof_intern(p, label ? label : "");
  if (k < 0) return HBSP_FAIL(env, HLA_ERR_NOMEM, "hbsp_profile_label: out of memory");
  p->label = (uint64_t)k;
  return HLA_OK;
}

/* ---------------------------------------------------------------- gather and write */

/* Blob of one rank (all items 8 bytes or padded to 8):
 *   u64 nrec
 *   per recorder: u64 namelen (incl. NUL, padded), name, i64 P, rank, occ, dropped,
 *                 i64 world[P], u64 nstr, u64 stroff[nstr], u64 strbytes, strs,
 *                 u64 nrec, prof_rec[nrec], u64 ncell, prof_cell[ncell] */

/* Append one 8-byte value. Local. */
static int put_u64(hla_buf *b, uint64_t v) {
  return hla_buf_append(b, &v, sizeof v) ? HLA_OK : HLA_ERR_NOMEM;
}

/* Append n bytes, zero-padded to a multiple of 8. Local. */
static int put_bytes(hla_buf *b, const void *p, size_t n) {
  size_t pad = (n + 7) & ~(size_t)7;
  char *d = hla_buf_append(b, NULL, pad);
  if (!d) return HLA_ERR_NOMEM;
  memset(d, 0, pad);
  if (n) memcpy(d, p, n);
  return HLA_OK;
}

/* Serialise every recorder of sh on this rank. Local, O(records + cells). */
static int prof_pack(const prof_shared *sh, hla_buf *b) {
  HLA_CALL(put_u64(b, (uint64_t)sh->nrec));
  for (int i = 0; i < sh->nrec; i++) {
    const hbsp_prof *p = sh->rec[i];
    size_t nl = strlen(p->name) + 1;
    HLA_CALL(put_u64(b, (nl + 7) & ~(size_t)7));
    HLA_CALL(put_bytes(b, p->name, nl));
    HLA_CALL(put_u64(b, (uint64_t)p->P));
    HLA_CALL(put_u64(b, (uint64_t)p->rank));
    HLA_CALL(put_u64(b, (uint64_t)p->occ));
    HLA_CALL(put_u64(b, p->dropped));
    HLA_CALL(put_bytes(b, p->world, sizeof(int64_t) * (size_t)p->P));
    HLA_CALL(put_u64(b, p->stroff.n / sizeof(uint64_t)));
    HLA_CALL(put_bytes(b, p->stroff.p, p->stroff.n));
    HLA_CALL(put_u64(b, p->strs.n));
    HLA_CALL(put_bytes(b, p->strs.p, p->strs.n));
    HLA_CALL(put_u64(b, p->recs.n / sizeof(prof_rec)));
    HLA_CALL(put_bytes(b, p->recs.p, p->recs.n));
    HLA_CALL(put_u64(b, p->cells.n / sizeof(prof_cell)));
    HLA_CALL(put_bytes(b, p->cells.p, p->cells.n));
  }
  return HLA_OK;
}

/* A recorder as read back on rank 0: pointers into the gathered blobs. */
typedef struct {
  const char *name;
  int64_t P, rank, occ, dropped;
  const int64_t *world;
  const uint64_t *stroff;
  uint64_t nstr;
  const char *strs;
  uint64_t strbytes;
  const prof_rec *recs;
  uint64_t nrec;
  const prof_cell *cells;
  uint64_t ncell;
} prof_view;

/* One environment of the run: the views of its ranks. */
typedef struct {
  const prof_view *first;
  uint64_t hash;
  const prof_view **ranks; /* P entries, NULL where no rank reported */
} prof_genv;

typedef struct {
  const char *p, *end;
} prof_cursor;

/* Take one 8-byte value from the cursor. Local. */
static int get_u64(prof_cursor *c, uint64_t *v) {
  if (c->end - c->p < 8) return HLA_ERR_INTERNAL;
  memcpy(v, c->p, 8);
  c->p += 8;
  return HLA_OK;
}

/* Take n items of size sz (padded to 8) from the cursor. */
static int get_array(prof_cursor *c, uint64_t n, size_t sz, const void **out) {
  if (n > (uint64_t)(c->end - c->p) / (sz ? sz : 1)) return HLA_ERR_INTERNAL;
  size_t bytes = ((size_t)n * sz + 7) & ~(size_t)7;
  if (bytes > (size_t)(c->end - c->p)) return HLA_ERR_INTERNAL;
  *out = c->p;
  c->p += bytes;
  return HLA_OK;
}

/* Read one recorder from the cursor and check it. Local. */
static int prof_unpack(prof_cursor *c, prof_view *v) {
  uint64_t u;
  const void *a;
  HLA_CALL(get_u64(c, &u));
  HLA_CALL(get_array(c, u, 1, &a));
  v->name = a;
  if (u == 0 || v->name[u - 1] != 0) return HLA_ERR_INTERNAL;
  HLA_CALL(get_u64(c, &u));
  v->P = (int64_t)u;
  HLA_CALL(get_u64(c, &u));
  v->rank = (int64_t)u;
  HLA_CALL(get_u64(c, &u));
  v->occ = (int64_t)u;
  HLA_CALL(get_u64(c, &u));
  v->dropped = (int64_t)u;
  if (v->P <= 0 || v->rank < 0 || v->rank >= v->P) return HLA_ERR_INTERNAL;
  HLA_CALL(get_array(c, (uint64_t)v->P, 8, &a));
  v->world = a;
  HLA_CALL(get_u64(c, &v->nstr));
  HLA_CALL(get_array(c, v->nstr, 8, &a));
  v->stroff = a;
  HLA_CALL(get_u64(c, &v->strbytes));
  HLA_CALL(get_array(c, v->strbytes, 1, &a));
  v->strs = a;
  HLA_CALL(get_u64(c, &v->nrec));
  HLA_CALL(get_array(c, v->nrec, sizeof(prof_rec), &a));
  v->recs = a;
  HLA_CALL(get_u64(c, &v->ncell));
  HLA_CALL(get_array(c, v->ncell, sizeof(prof_cell), &a));
  v->cells = a;
  if (v->nstr == 0) return HLA_ERR_INTERNAL;
  for (uint64_t i = 0; i < v->nstr; i++)
    if (v->stroff[i] >= v->strbytes ||
        !memchr(v->strs + v->stroff[i], 0, v->strbytes - v->stroff[i]))
      return HLA_ERR_INTERNAL;
  for (uint64_t i = 0; i < v->nrec; i++) {
    const prof_rec *r = &v->recs[i];
    if (r->kind >= v->nstr || r->label >= v->nstr || r->row_off > v->ncell ||
        r->row_n > v->ncell - r->row_off)
      return HLA_ERR_INTERNAL;
    for (uint64_t k = 0; k < r->row_n; k++)
      if (v->cells[r->row_off + k].peer >= (uint64_t)v->P) return HLA_ERR_INTERNAL;
  }
  return HLA_OK;
}

/* String i of a read-back recorder. */
static const char *view_str(const prof_view *v, uint64_t i) {
  return v->strs + v->stroff[i];
}

/* FNV-1a hash of the identity of an environment: name, members, occurrence. */
static uint64_t view_hash(const prof_view *v) {
  uint64_t h = 1469598103934665603ull;
  for (const char *s = v->name; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  for (int64_t i = 0; i < v->P; i++) h = (h ^ (uint64_t)v->world[i]) * 1099511628211ull;
  return (h ^ (uint64_t)v->occ) * 1099511628211ull;
}

/* Whether two read-back recorders belong to the same environment. */
static int same_env(const prof_view *a, const prof_view *b) {
  return a->P == b->P && a->occ == b->occ && strcmp(a->name, b->name) == 0 &&
         memcmp(a->world, b->world, sizeof(int64_t) * (size_t)a->P) == 0;
}

/* Write s as a JSON string. */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

/* Bytes from rank v to each peer in record r, expanded into row[0..P). */
static void view_row(const prof_view *v, const prof_rec *r, int64_t P, uint64_t *row) {
  memset(row, 0, sizeof(uint64_t) * (size_t)P);
  for (uint64_t k = 0; k < r->row_n; k++)
    row[v->cells[r->row_off + k].peer] += v->cells[r->row_off + k].bytes;
}

/* Write a row of P numbers as a JSON array. */
static void json_row(FILE *f, const uint64_t *row, int64_t P) {
  fputc('[', f);
  for (int64_t q = 0; q < P; q++) fprintf(f, "%s%" PRIu64, q ? ", " : "", row[q]);
  fputc(']', f);
}

/* Larger of two. */
static double dmax(double a, double b) {
  return a > b ? a : b;
}

/* Write one environment. Rank 0 only. */
static int prof_json_env(FILE *f, const prof_genv *e, int id) {
  const prof_view *v0 = e->first;
  int64_t P = v0->P;
  uint64_t *row = malloc(sizeof(uint64_t) * (size_t)P);
  if (!row) return HLA_ERR_NOMEM;
  fprintf(f, "    {\"id\": %d, \"name\": ", id);
  json_str(f, v0->name);
  fprintf(f, ", \"P\": %" PRId64 ", \"occurrence\": %" PRId64 ",\n     \"world_ranks\": ", P,
          v0->occ);
  fputc('[', f);
  for (int64_t q = 0; q < P; q++) fprintf(f, "%s%" PRId64, q ? ", " : "", v0->world[q]);
  fprintf(f, "],\n     \"ranks\": [");
  uint64_t nstep = 0;
  int firstrank = 1;
  for (int64_t q = 0; q < P; q++) {
    const prof_view *v = e->ranks[q];
    if (!v) continue;
    if (v->nrec > nstep) nstep = v->nrec;
    fprintf(f,
            "%s\n      {\"rank\": %" PRId64 ", \"world_rank\": %" PRId64 ", \"dropped\": %" PRId64
            ", \"supersteps\": [",
            firstrank ? "" : ",", q, v->world[q], v->dropped);
    firstrank = 0;
    for (uint64_t s = 0; s < v->nrec; s++) {
      const prof_rec *r = &v->recs[s];
      fprintf(f, "%s\n        {\"step\": %" PRIu64 ", \"kind\": ", s ? "," : "", s);
      json_str(f, view_str(v, r->kind));
      fprintf(f, ", \"label\": ");
      json_str(f, view_str(v, r->label));
      fprintf(f,
              ", \"t\": %.9g, \"compute\": %.9g, \"comm\": %.9g, \"bytes_sent\": %" PRIu64
              ", \"bytes_recv\": %" PRIu64 ", \"msgs_sent\": %" PRIu64 ", \"msgs_recv\": %" PRIu64
              ", \"row\": ",
              r->t, r->compute, r->comm, r->bytes_sent, r->bytes_recv, r->msgs_sent, r->msgs_recv);
      view_row(v, r, P, row);
      json_row(f, row, P);
      fputc('}', f);
    }
    fprintf(f, "]}");
  }
  fprintf(f, "],\n     \"supersteps\": [");
  for (uint64_t s = 0; s < nstep; s++) {
    /* kind and label from the lowest rank that has this step */
    const prof_view *vk = NULL;
    uint64_t h = 0;
    double mc = 0, mm = 0;
    for (int64_t q = 0; q < P; q++) {
      const prof_view *v = e->ranks[q];
      if (!v || s >= v->nrec) continue;
      if (!vk) vk = v;
      const prof_rec *r = &v->recs[s];
      uint64_t hr = r->bytes_sent > r->bytes_recv ? r->bytes_sent : r->bytes_recv;
      if (hr > h) h = hr;
      mc = dmax(mc, r->compute);
      mm = dmax(mm, r->comm);
    }
    fprintf(f, "%s\n      {\"step\": %" PRIu64 ", \"kind\": ", s ? "," : "", s);
    json_str(f, view_str(vk, vk->recs[s].kind));
    fprintf(f, ", \"label\": ");
    json_str(f, view_str(vk, vk->recs[s].label));
    fprintf(f,
            ", \"h_bytes\": %" PRIu64 ", \"max_compute\": %.9g, \"max_comm\": %.9g,\n"
            "       \"traffic\": [",
            h, mc, mm);
    for (int64_t q = 0; q < P; q++) {
      const prof_view *v = e->ranks[q];
      if (v && s < v->nrec)
        view_row(v, &v->recs[s], P, row);
      else
        memset(row, 0, sizeof(uint64_t) * (size_t)P);
      if (q) fprintf(f, ", ");
      json_row(f, row, P);
    }
    fprintf(f, "]}");
  }
  fprintf(f, "]}");
  free(row);
  return HLA_OK;
}

/* Parse the gathered blobs and write the JSON file. Rank 0 of the owner only. */
static int prof_json(const prof_shared *sh, const char *all, const int *counts, const int *displs,
                     int nranks, int P, double wall) {
  int code = HLA_OK;
  prof_view *views = NULL;
  prof_genv *envs = NULL;
  size_t nview = 0, capview = 0, nenv = 0;
  /* read every rank's recorders */
  for (int q = 0; q < nranks && code == HLA_OK; q++) {
    prof_cursor c = {all + displs[q], all + displs[q] + counts[q]};
    uint64_t n;
    code = get_u64(&c, &n);
    if (code == HLA_OK && n > (uint64_t)counts[q]) code = HLA_ERR_INTERNAL;
    for (uint64_t i = 0; code == HLA_OK && i < n; i++) {
      if (nview == capview) {
        size_t cap = capview ? 2 * capview : 16;
        prof_view *nv = realloc(views, sizeof *nv * cap);
        if (!nv) {
          code = HLA_ERR_NOMEM;
          break;
        }
        views = nv, capview = cap;
      }
      code = prof_unpack(&c, &views[nview]);
      if (code == HLA_OK) nview++;
    }
  }
  /* group them into environments */
  if (code == HLA_OK && nview && !(envs = calloc(nview, sizeof *envs))) code = HLA_ERR_NOMEM;
  for (size_t i = 0; code == HLA_OK && i < nview; i++) {
    const prof_view *v = &views[i];
    uint64_t h = view_hash(v);
    size_t k = 0;
    while (k < nenv && !(envs[k].hash == h && same_env(envs[k].first, v))) k++;
    if (k == nenv) {
      envs[k].first = v;
      envs[k].hash = h;
      envs[k].ranks = calloc((size_t)v->P, sizeof(prof_view *));
      if (!envs[k].ranks) {
        code = HLA_ERR_NOMEM;
        break;
      }
      nenv++;
    }
    envs[k].ranks[v->rank] = v;
  }
  FILE *f = NULL;
  if (code == HLA_OK && !(f = fopen(sh->path, "w"))) code = HLA_ERR_ARG;
  if (code == HLA_OK) {
    fprintf(f, "{\"format\": \"hla-profile\", \"version\": 1, \"P\": %d, \"wall\": %.9g,\n", P,
            wall);
    fprintf(f, "  \"envs\": [\n");
    for (size_t k = 0; code == HLA_OK && k < nenv; k++) {
      if (k) fprintf(f, ",\n");
      code = prof_json_env(f, &envs[k], (int)k);
    }
    fprintf(f, "\n  ]}\n");
    if (ferror(f) && code == HLA_OK) code = HLA_ERR_ARG;
  }
  if (f && fclose(f) != 0 && code == HLA_OK) code = HLA_ERR_ARG;
  for (size_t k = 0; k < nenv; k++) free(envs[k].ranks);
  free(envs);
  free(views);
  return code;
}

/* Gather every rank's recorders to rank 0 of env (the owner) and write the file. Collective over
 * env: three agreements, one gather of sizes and one gatherv of the records. */
static int prof_write(hbsp_env env) {
  prof_shared *sh = env->prof->sh;
  double t_start = MPI_Wtime();
  hla_buf blob = {0};
  int code = prof_pack(sh, &blob);
  if (code == HLA_OK && blob.n > INT_MAX) code = HLA_ERR_NOMEM;
  if (code != HLA_OK)
    code = HBSP_FAIL(env, code, "profiler: cannot pack %zu bytes of records", blob.n);
  code = hbsp_agree(env, code);
  if (code != HLA_OK) {
    hla_buf_free(&blob);
    return code;
  }
  int mine = (int)blob.n, P = env->P, root = env->rank == 0;
  int *counts = NULL, *displs = NULL;
  char *all = NULL;
  if (root) {
    counts = malloc(sizeof(int) * (size_t)P);
    displs = malloc(sizeof(int) * (size_t)P);
    if (!counts || !displs) code = HLA_ERR_NOMEM;
  }
  int mpi = MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, env->comm);
  if (mpi != MPI_SUCCESS) code = HLA_ERR_MPI; /* counts would be garbage: stop here */
  if (root && code == HLA_OK) {
    long long total = 0;
    for (int q = 0; q < P; q++) displs[q] = (int)total, total += counts[q];
    if (total > INT_MAX)
      code = HLA_ERR_NOMEM;
    else if (!(all = malloc(total ? (size_t)total : 1)))
      code = HLA_ERR_NOMEM;
  }
  if (code != HLA_OK) code = HBSP_FAIL(env, code, "profiler: cannot gather the records on rank 0");
  code = hbsp_agree(env, code);
  if (code == HLA_OK) {
    mpi = MPI_Gatherv(blob.p, mine, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, env->comm);
    if (mpi != MPI_SUCCESS) code = HBSP_FAIL(env, HLA_ERR_MPI, "profiler: MPI_Gatherv failed");
    if (root && code == HLA_OK) {
      code = prof_json(sh, all, counts, displs, P, P, t_start - sh->t0);
      if (code != HLA_OK)
        code = HBSP_FAIL(env, code, "profiler: cannot write %s (%s)", sh->path,
                         code == HLA_ERR_ARG ? "file error" : hla_strerror(code));
    }
    code = hbsp_agree(env, code);
  }
  free(all);
  free(counts);
  free(displs);
  hla_buf_free(&blob);
  /* pause recording: the write is not the program's computation */
  double spent = MPI_Wtime() - t_start;
  for (int i = 0; i < sh->nrec; i++)
    if (sh->rec[i]->env && sh->rec[i]->depth == 0) sh->rec[i]->t_last += spent;
  return code;
}
