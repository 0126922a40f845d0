/* hla BSP layer — environments: creation, split, reorder, node, free, and error agreement.
 *
 * Every environment owns a duplicate of an MPI communicator, so the traffic of a parent, its
 * children and its reordered twins never mixes: each has its own registrations, queues and
 * superstep counter, and each sync completes only its own requests. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bsp/bsp_impl.h"
#include "bsp/sync.h"

int hbsp_fail_at(hbsp_env env, int code, int with_rank, const char *file, int line, const char *fmt,
                 ...) {
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  if (env) {
    int k = with_rank
                ? snprintf(env->errmsg, sizeof env->errmsg, "rank %d of %s: ", env->rank, env->name)
                : snprintf(env->errmsg, sizeof env->errmsg, "%s: ", env->name);
    va_list ap;
    va_start(ap, fmt);
    if (k > 0 && (size_t)k < sizeof env->errmsg)
      vsnprintf(env->errmsg + k, sizeof env->errmsg - (size_t)k, fmt, ap);
    va_end(ap);
  }
  hla_trace(base, line, code);
  return code;
}

int hbsp_agree(hbsp_env env, int code) {
  /* The lowest failing rank speaks for everyone, so code and message are identical on all. */
  int mine = code != HLA_OK ? env->rank : env->P, first = env->P;
  if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, env->comm) != MPI_SUCCESS)
    return HBSP_FAIL(env, HLA_ERR_MPI, "MPI_Allreduce failed while agreeing on an error");
  if (first == env->P) return HLA_OK;
  /* Every rank now knows of an error: a drained sync's report for the next sync (sync.c) would
   * fail that one too, long after the caller has been told. */
  if (env->deferred_error == HLA_ERR_NOMEM) env->deferred_error = 0;
  struct {
    int code;
    char msg[sizeof env->errmsg];
  } e;
  e.code = code;
  memcpy(e.msg, env->errmsg, sizeof e.msg);
  if (MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, env->comm) != MPI_SUCCESS)
    return HBSP_FAIL(env, HLA_ERR_MPI, "MPI_Bcast failed while agreeing on an error");
  memcpy(env->errmsg, e.msg, sizeof e.msg);
  env->errmsg[sizeof env->errmsg - 1] = 0;
  return e.code;
}

int hbsp_agree_same(hbsp_env env, int code, const int64_t *v, int k, const char *what) {
  if (k > 16) return HBSP_FAIL(env, HLA_ERR_INTERNAL, "%s: %d words to agree on", what, k);
  /* max(-failing rank), max(v) and max(-v) = -min(v) in one reduction */
  int64_t in[33], out[33];
  in[0] = -(int64_t)(code != HLA_OK ? env->rank : env->P);
  for (int i = 0; i < k; i++) in[1 + i] = v[i], in[1 + k + i] = -v[i];
  if (MPI_Allreduce(in, out, 1 + 2 * k, MPI_INT64_T, MPI_MAX, env->comm) != MPI_SUCCESS)
    return HBSP_FAIL(env, HLA_ERR_MPI, "MPI_Allreduce failed while agreeing on arguments");
  int same = 1;
  for (int i = 0; i < k; i++) same = same && out[1 + i] == -out[1 + k + i];
  if (-out[0] < env->P) return hbsp_agree(env, code); /* somebody failed: its verdict */
  if (!same) return HBSP_FAIL_ALL(env, HLA_ERR_ARG, "%s: arguments differ between ranks", what);
  return HLA_OK;
}

int hbsp_agree_sub(hbsp_env env, hbsp_env sub, int code) {
  if (sub == NULL || sub == env) return hbsp_agree(env, code);
  if (code != HLA_OK) memcpy(env->errmsg, sub->errmsg, sizeof env->errmsg);
  int rc = hbsp_agree(env, code);
  if (rc != HLA_OK && sub->deferred_error == HLA_ERR_NOMEM) /* told now, as in hbsp_agree */
    sub->deferred_error = 0;
  return rc;
}

int hbsp_env_wrap(MPI_Comm comm, hbsp_env parent, const char *name, hbsp_env *out) {
  *out = NULL;
  hbsp_env e = calloc(1, sizeof *e);
  if (!e) return HLA_ERR_NOMEM;
  MPI_Comm_size(comm, &e->P);
  MPI_Comm_rank(comm, &e->rank);
  e->comm = comm; /* the per-peer state comes with its first use (hbsp_peers) */
  if (parent) {
    e->settings = parent->settings;
    e->family = parent->family;
    e->family->refs++;
  } else if ((e->family = calloc(1, sizeof *e->family)) != NULL) {
    e->family->refs = 1;
  } else {
    hbsp_env_destroy(e);
    return HLA_ERR_NOMEM;
  }
  if (parent)
    snprintf(e->name, sizeof e->name, "%.40s/%s", parent->name, name);
  else
    snprintf(e->name, sizeof e->name, "%s", name);
  if (parent && parent->prof) {
    int rc = hbsp_prof_inherit(e, parent);
    if (rc != HLA_OK) {
      hbsp_env_destroy(e);
      return rc;
    }
  }
  *out = e;
  return HLA_OK;
}

void hbsp_env_destroy(hbsp_env e) {
  if (!e) return;
  for (int p = 0; e->peer && p < e->P; p++) {
    hla_buf_free(&e->peer[p].stream);
    hla_buf_free(&e->peer[p].hp);
    hla_buf_free(&e->peer[p].gets);
    hla_buf_free(&e->peer[p].large);
  }
  free(e->peer);
  free(e->reg);
  if (e->family && --e->family->refs == 0) free(e->family);
  hla_buf *bufs[] = {&e->regops, &e->inbox,  &e->xcount, &e->rbuf, &e->rpieces, &e->junk,
                     &e->reply,  &e->greply, &e->reqs,   &e->offs, &e->types,   &e->blocks};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) hla_buf_free(bufs[i]);
  free(e);
}

/* The HLA_* variables for a new environment: parsed on every rank, rank 0's values taken
 * everywhere (ranks that see different environments agree instead of taking different paths),
 * reported once by rank 0 on stderr. A value that would change what is computed or written fails
 * hbsp_init on every rank (HLA_ERR_ARG); one that changes only speed falls back to its default
 * with a warning. An HLA_PROFILE that rank 0 cannot write is a warning, and no profile. Collective
 * over e's communicator; a few small broadcasts. */
static int settings_agree(hbsp_env e) {
  char msg[2048];
  int counts[3], errors, warnings;
  hla_settings mine;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  hla_settings_parse(&mine, NULL, NULL, cores > 0 && cores < INT_MAX ? (int)cores : 0, msg,
                     sizeof msg, &errors, &warnings);
  e->settings = mine;
  HBSP_MPI(e, MPI_Bcast(&e->settings, (int)sizeof e->settings, MPI_BYTE, 0, e->comm));
  int differ = memcmp(&mine, &e->settings, sizeof mine) != 0, profile_ok = 1;
  if (e->rank == 0 && errors == 0 && e->settings.profile[0]) {
    FILE *f = fopen(e->settings.profile, "a"); /* written at the end: find out now */
    profile_ok = f != NULL;
    if (f) fclose(f);
    if (!profile_ok) {
      size_t at = strlen(msg);
      snprintf(msg + at, sizeof msg - at,
               "hla: warning: HLA_PROFILE='%.200s' cannot be written (%s); no profile\n",
               e->settings.profile, strerror(errno));
    }
  }
  counts[0] = errors, counts[1] = profile_ok, counts[2] = 0;
  HBSP_MPI(e, MPI_Allreduce(&differ, &counts[2], 1, MPI_INT, MPI_MAX, e->comm));
  HBSP_MPI(e, MPI_Bcast(counts, 2, MPI_INT, 0, e->comm));
  if (!counts[1]) e->settings.profile[0] = 0;
  if (e->rank == 0) {
    fputs(msg, stderr);
    if (counts[2])
      fputs("hla: warning: the HLA_* variables differ between ranks; rank 0's are used\n", stderr);
  }
  if (counts[0] == 0) return HLA_OK;
  /* the first error, the same text everywhere */
  HBSP_MPI(e, MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, e->comm));
  char *first = strstr(msg, "hla: error: "), *end = first ? strchr(first, '\n') : NULL;
  if (end) *end = 0;
  return HBSP_FAIL_ALL(e, HLA_ERR_ARG, "hbsp_init: %s", first ? first + 12 : "bad HLA_* variable");
}

int hbsp_init(MPI_Comm comm, hbsp_env *env) {
  if (!env) return HLA_ERR_ARG;
  *env = NULL;
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited || comm == MPI_COMM_NULL) return HLA_ERR_ARG;
  MPI_Comm dup;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) return HLA_ERR_MPI;
  int world = 0;
  MPI_Comm_compare(comm, MPI_COMM_WORLD, &world);
  hbsp_env e;
  int rc =
      hbsp_env_wrap(dup, NULL, world == MPI_IDENT || world == MPI_CONGRUENT ? "world" : "env", &e);
  /* Agree on allocation failures before anyone goes on (no env yet: use the communicator). */
  int bad = rc != HLA_OK, anybad = 0;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, dup);
  if (anybad) {
    hbsp_env_destroy(e);
    MPI_Comm_free(&dup);
    return HLA_ERR_NOMEM;
  }
  rc = settings_agree(e);
  if (rc == HLA_OK && e->settings.profile[0]) rc = hbsp_profile_start(e, e->settings.profile);
  if (rc != HLA_OK) {
    MPI_Comm_free(&e->comm);
    hbsp_env_destroy(e);
    return rc;
  }
  *env = e;
  return HLA_OK;
}

int hbsp_free(hbsp_env *env) {
  if (!env || !*env) return HLA_ERR_ARG;
  hbsp_env e = *env;
  /* The free takes part in the sync's count exchange: a rank that syncs while another frees makes
   * both fail with HLA_ERR_STATE instead of hanging, and nothing is freed. */
  HLA_CALL(hbsp_exchange(e, HBSP_STATE_FREE));
  HLA_CALL(hbsp_prof_finish(e));
  hbsp_coll_cache_free(e);
  hbsp_prof_release(e);
  MPI_Comm_free(&e->comm);
  hbsp_env_destroy(e);
  *env = NULL;
  return HLA_OK;
}

int hbsp_once(hbsp_env env, uint64_t key) {
  hbsp_family *f = env->family;
  for (int i = 0; i < f->nsaid; i++)
    if (f->said[i] == key) return 0;
  if (f->nsaid == HBSP_ONCE_KEYS) return 0;
  f->said[f->nsaid++] = key;
  return 1;
}

int hbsp_size(hbsp_env env) {
  return env ? env->P : -1;
}
int hbsp_rank(hbsp_env env) {
  return env ? env->rank : -1;
}
int64_t hbsp_superstep(hbsp_env env) {
  return env ? env->step : -1;
}
MPI_Comm hbsp_comm(hbsp_env env) {
  return env ? env->comm : MPI_COMM_NULL;
}
const char *hbsp_errmsg(hbsp_env env) {
  return env ? env->errmsg : "no environment";
}
double hbsp_time(void) {
  return MPI_Wtime();
}

/* Wrap a communicator just made by a collective MPI call (MPI_COMM_NULL: no child) and agree on
 * the outcome over parent, with rc, this rank's verdict on the call's arguments, so that one
 * agreement serves both and no rank keeps a child its peers failed to make. */
static int wrap_agreed(hbsp_env parent, int rc, MPI_Comm c, const char *name, hbsp_env *child) {
  hbsp_env e = NULL;
  if (c != MPI_COMM_NULL && rc != HLA_OK)
    MPI_Comm_free(&c);
  else if (c != MPI_COMM_NULL) {
    rc = hbsp_env_wrap(c, parent, name, &e);
    if (rc != HLA_OK) {
      MPI_Comm_free(&c);
      rc = HBSP_FAIL(parent, rc, "cannot allocate the %s environment", name);
    }
  }
  rc = hbsp_agree(parent, rc);
  if (rc != HLA_OK) {
    if (e) {
      hbsp_prof_release(e);
      MPI_Comm_free(&e->comm);
      hbsp_env_destroy(e);
    }
    return rc;
  }
  *child = e;
  return HLA_OK;
}

#ifdef HLA_SMPI
typedef struct {
  int key, rank;
} keyed;

static int keyed_cmp(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  return x->key != y->key ? (x->key > y->key) - (x->key < y->key)
                          : (x->rank > y->rank) - (x->rank < y->rank);
}

/* The last member of the run of one rank stride (*stride) that starts at member i. */
static int run_end(const keyed *m, int n, int i, int *stride) {
  int j = i;
  *stride = i + 1 < n ? m[i + 1].rank - m[i].rank : 1;
  while (j + 1 < n && m[j + 1].rank - m[j].rank == *stride) j++;
  return j;
}
#endif

/* MPI_Comm_split, with MPI's semantics. Under SimGrid (HLA_SMPI) the same communicator comes from
 * one MPI_Allgather of (colour, key) and MPI_Comm_create_group: SMPI 3.32's own split gathers to
 * rank 0 through a flat gather and answers with P - 1 isends, which its kernel takes about P^3 to
 * simulate (46 s of the simulator's time a split at 4,096 ranks), while its MPI_Comm_create_group
 * only broadcasts the new communicator's id. Collective over comm. */
static int comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out) {
#ifndef HLA_SMPI
  return MPI_Comm_split(comm, color, key, out);
#else
  int P, e;
  MPI_Comm_size(comm, &P);
  /* One buffer of P pairs and no other allocation: all ranks of a simulation share one process,
   * so what each holds in proportion to P costs P^2 in all. It gets every rank's (colour, key);
   * then this colour's members, compacted to its front as (key, rank); then, if there is more than
   * one and they fit after the members, their runs of one stride. */
  keyed *all = malloc((size_t)P * sizeof *all);
  int mine[2] = {color, key}, ok = all != NULL, all_ok = 0;
  e = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (e == MPI_SUCCESS && all_ok)
    e = MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
  else if (e == MPI_SUCCESS)
    e = MPI_Comm_split(comm, color, key, out); /* every rank falls back */
  if (e == MPI_SUCCESS && all_ok) {
    *out = MPI_COMM_NULL;
    if (color != MPI_UNDEFINED) {
      int n = 0;
      for (int r = 0; r < P; r++) {
        const keyed got = all[r]; /* (colour, key) */
        if (got.key == color) all[n++] = (keyed){got.rank, r};
      }
      keyed *members = all;
      int sorted = 1; /* the usual case (keys in rank order), which every rank would sort */
      for (int i = 1; i < n && sorted; i++) sorted = keyed_cmp(&members[i - 1], &members[i]) < 0;
      if (!sorted) qsort(members, (size_t)n, sizeof *members, keyed_cmp);
      /* (first, last, stride) runs: SMPI 3.32's MPI_Group_incl checks its list for repeats pair
       * by pair, n^2 steps (at 16,384 ranks the simulator spent minutes in it), its
       * MPI_Group_range_incl only the runs */
      int nr = 0, d;
      for (int i = 0; i < n; nr++) i = run_end(members, n, i, &d) + 1;
      int one[1][3], (*runs)[3] = NULL; /* one: the usual case; then small tests take every path */
      if (nr == 1)
        runs = one;
      else if (3 * (size_t)nr <= 2 * (size_t)(P - n))
        runs = (int(*)[3])(all + n);
      MPI_Group g, sub;
      e = MPI_Comm_group(comm, &g);
      if (runs) {
        for (int i = 0, r = 0; i < n; r++) {
          const int j = run_end(members, n, i, &d);
          runs[r][0] = members[i].rank, runs[r][1] = members[j].rank, runs[r][2] = d;
          i = j + 1;
        }
        if (e == MPI_SUCCESS) e = MPI_Group_range_incl(g, nr, runs, &sub);
      } else { /* many runs over most ranks: the ranks alone, in place (rank i over pair i) */
        int *ranks = (int *)all;
        for (int i = 0; i < n; i++) ranks[i] = members[i].rank;
        if (e == MPI_SUCCESS) e = MPI_Group_incl(g, n, ranks, &sub);
      }
      if (e == MPI_SUCCESS) e = MPI_Comm_create_group(comm, sub, 0, out), MPI_Group_free(&sub);
      MPI_Group_free(&g);
    }
  }
  free(all);
  return e;
#endif
}

/* Split with an MPI colour (rc: this rank's verdict on the arguments; a rank with bad ones takes
 * part with MPI_UNDEFINED); name is the child's suffix. One comm_split and one agreement. */
static int split_named(hbsp_env parent, int rc, int color, int key, hbsp_env *child,
                       const char *name) {
  MPI_Comm c;
  if (child) *child = NULL;
  HBSP_MPI(parent, comm_split(parent->comm, rc == HLA_OK ? color : MPI_UNDEFINED, key, &c));
  return wrap_agreed(parent, rc, c, name, child);
}

int hbsp_split_named(hbsp_env parent, int color, int key, const char *name, hbsp_env *child) {
  if (!parent) return HLA_ERR_ARG;
  int rc = HLA_OK;
  if (!child)
    rc = HBSP_FAIL(parent, HLA_ERR_ARG, "hbsp_split: child is NULL");
  else if (color < 0 && color != HBSP_UNDEFINED)
    rc = HBSP_FAIL(parent, HLA_ERR_ARG, "hbsp_split: colour %d is negative", color);
  return split_named(parent, rc, color == HBSP_UNDEFINED ? MPI_UNDEFINED : color, key, child, name);
}

int hbsp_split(hbsp_env parent, int color, int key, hbsp_env *child) {
  return hbsp_split_named(parent, color, key, "split", child);
}

int hbsp_reorder(hbsp_env env, int key, hbsp_env *out) {
  if (!env) return HLA_ERR_ARG;
  int rc = out ? HLA_OK : HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_reorder: out is NULL");
  return split_named(env, rc, 0, key, out, "reorder");
}

int hbsp_node(hbsp_env env, hbsp_env *node) {
  if (!env) return HLA_ERR_ARG;
  int rc = node ? HLA_OK : HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_node: node is NULL");
  long k = env->settings.virtual_nodes; /* checked by hbsp_init */
  if (k > 0) {
    /* k consecutive blocks whose sizes differ by at most one: block i starts at floor(i P / k). */
    if (k > env->P) k = env->P;
    int color = 0;
    while (color + 1 < k && (int64_t)(color + 1) * env->P / k <= env->rank) color++;
    return split_named(env, rc, color, env->rank, node, "node");
  }
  MPI_Comm c;
  if (node) *node = NULL;
  HBSP_MPI(env, MPI_Comm_split_type(env->comm, rc == HLA_OK ? MPI_COMM_TYPE_SHARED : MPI_UNDEFINED,
                                    env->rank, MPI_INFO_NULL, &c));
  return wrap_agreed(env, rc, c, "node", node);
}
