/* hla — the machine file (hplan_save / hplan_load / hplan_default_path) and the model's schema
 * check (hplan_check). Local; no communication.
 *
 * The file is one JSON object {"format": "hla-machine", "machines": [entry, ...]}, one entry per
 * host, P and node count, read and written with cJSON (a well-kept parser instead of our own; the
 * reader is fuzzed: tests/fuzz/). Nothing in it is trusted: an entry is used only if every field
 * has its JSON type and passes hplan_check, else it counts as absent (and the caller is told which
 * field). Writing is a read-modify-write: the entries of other keys stay (valid ones rewritten
 * exactly, others as they were), the whole goes to a temporary file in the same directory, flushed
 * to disk and renamed over the old one, so that readers never see half a file. A file that exists
 * and is not an hla machine file is never overwritten: an object with the marker, or one whose
 * "machines" entries all have "version" and "host" (a file without the marker), or text that
 * starts as hla's writers start (an older writer's file with a bare nan), or an empty file.
 */
#define _GNU_SOURCE /* mkdir, fsync */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "dist/plan/plan_impl.h"
#include "settings.h"

/* ---------------------------------------------------------------- messages */

static int say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *why, size_t len, const char *fmt, ...) {
  if (why && len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
  }
  return HLA_ERR_ARG;
}

/* ---------------------------------------------------------------- the schema */

/* Bounds beyond any machine that keep every prediction finite: a rate of at least 1 flop/s (or
 * byte/s) and at most 1e20, a measured time of at most 1e6 s, at most a second per byte. */
#define RATE_MIN  1.0
#define RATE_MAX  1e20
#define SEC_MAX   1e6
#define HALF_MAX  1e9
#define BYTES_MAX 1e21
#define CAL_MAX   1e6
#define P_MAX     (1 << 24)
#define CORES_MAX (1 << 20)

static int int_in(char *why, size_t len, const char *name, int idx, int v, int lo, int hi) {
  if (v >= lo && v <= hi) return HLA_OK;
  if (idx < 0) return say(why, len, "%s: %d outside %d..%d", name, v, lo, hi);
  return say(why, len, "%s[%d]: %d outside %d..%d", name, idx, v, lo, hi);
}

/* v finite in [lo, hi], or 0 when zero (0 meaning "not measured") is allowed. */
static int dbl_in(char *why, size_t len, const char *name, const char *sub, int idx, double v,
                  double lo, double hi, int zero) {
  char nm[64];
  if (idx >= 0)
    snprintf(nm, sizeof nm, "%s[%d]%s", name, idx, sub);
  else
    snprintf(nm, sizeof nm, "%s%s", name, sub);
  if (!isfinite(v)) return say(why, len, "%s: not finite (%g)", nm, v);
  if (zero && v == 0) return HLA_OK;
  if (v < lo || v > hi)
    return say(why, len, "%s: %.3g outside [%g, %g]%s", nm, v, lo, hi, zero ? " and not 0" : "");
  return HLA_OK;
}

#define CHECK(e)                                                                                   \
  do {                                                                                             \
    if ((e) != HLA_OK) return HLA_ERR_ARG;                                                         \
  } while (0)

int hplan_check(const hplan_machine *m, char *why, size_t len) {
  if (why && len) why[0] = '\0';
  if (m == NULL) return say(why, len, "no model (NULL)");
  if (m->version != HPLAN_VERSION)
    return say(why, len, "version: %d, not %d", m->version, HPLAN_VERSION);
  size_t hl = strnlen(m->host, sizeof m->host);
  if (hl == 0 || hl == sizeof m->host)
    return say(why, len, "host: %s", hl ? "not terminated within 64 bytes" : "empty");
  for (size_t i = 0; i < hl; i++)
    if ((unsigned char)m->host[i] < 32 || m->host[i] == 127)
      return say(why, len, "host: a control character");
  CHECK(int_in(why, len, "P", -1, m->P, 1, P_MAX));
  CHECK(int_in(why, len, "nodes", -1, m->nodes, 1, m->P));
  CHECK(int_in(why, len, "ranks_per_node", -1, m->ranks_per_node, 1, m->P));
  CHECK(int_in(why, len, "cores_per_node", -1, m->cores_per_node, 1, CORES_MAX));
  /* more threads than HPLAN_MAX_THREADS when a node has more cores (the model extrapolates) */
  CHECK(int_in(why, len, "threads", -1, m->threads, 1,
               m->cores_per_node > HPLAN_MAX_THREADS ? m->cores_per_node : HPLAN_MAX_THREADS));
  CHECK(dbl_in(why, len, "mem_per_node", "", -1, m->mem_per_node, 1, BYTES_MAX, 1));
  /* rates: the dgemm level and the thread table are divided by; the others, and r (unused by the
   * model), may be 0 for "not measured" (model.c then derives them) */
  CHECK(dbl_in(why, len, "r", "", -1, m->r, RATE_MIN, RATE_MAX, 1));
  CHECK(dbl_in(why, len, "gemm_rate", "", -1, m->gemm_rate, RATE_MIN, RATE_MAX, 0));
  CHECK(dbl_in(why, len, "gemm_khalf", "", -1, m->gemm_khalf, 0, HALF_MAX, 0));
  CHECK(dbl_in(why, len, "gemm_mhalf", "", -1, m->gemm_mhalf, 0, HALF_MAX, 0));
  CHECK(int_in(why, len, "nthreads", -1, m->nthreads, 0, HPLAN_MAX_THREADS));
  for (int t = 0; t < HPLAN_MAX_THREADS; t++)
    CHECK(dbl_in(why, len, "gemm_threads", "", t, m->gemm_threads[t], RATE_MIN, RATE_MAX,
                 t >= m->nthreads));
  CHECK(dbl_in(why, len, "panel_rate", "", -1, m->panel_rate, RATE_MIN, RATE_MAX, 1));
  CHECK(dbl_in(why, len, "panel_half", "", -1, m->panel_half, 0, HALF_MAX, 0));
  CHECK(dbl_in(why, len, "copy_rate", "", -1, m->copy_rate, RATE_MIN, RATE_MAX, 1));
  CHECK(dbl_in(why, len, "getrf_rate", "", -1, m->getrf_rate, RATE_MIN, RATE_MAX, 1));
  CHECK(dbl_in(why, len, "getrf_half", "", -1, m->getrf_half, 0, HALF_MAX, 0));
  CHECK(dbl_in(why, len, "alloc_rate", "", -1, m->alloc_rate, RATE_MIN, RATE_MAX, 1));
  CHECK(int_in(why, len, "have_inter", -1, m->have_inter, 0, 1));
  CHECK(int_in(why, len, "no_board", -1, m->no_board, 0, 1));
  /* links: measured (so positive) where there was a pair to measure; 0 on one rank */
  for (int i = 0; i < 2; i++) {
    int used = i == HPLAN_INTRA ? m->P > 1 : m->have_inter;
    CHECK(dbl_in(why, len, "link", ".alpha", i, m->link[i].alpha, 1e-12, SEC_MAX, !used));
    CHECK(dbl_in(why, len, "link", ".beta", i, m->link[i].beta, 1e-18, 1.0, !used));
  }
  CHECK(dbl_in(why, len, "intra_alone", ".alpha", -1, m->intra_alone.alpha, 1e-12, SEC_MAX, 1));
  CHECK(dbl_in(why, len, "intra_alone", ".beta", -1, m->intra_alone.beta, 1e-18, 1.0, 1));
  CHECK(dbl_in(why, len, "node_bw", "", -1, m->node_bw, RATE_MIN, RATE_MAX, 1));
  for (int i = 0; i < HPLAN_NENV; i++) {
    CHECK(int_in(why, len, "env_p", i, m->env_p[i], 0, m->P));
    CHECK(dbl_in(why, len, "g", "", i, m->g[i], 0, 1.0, 0));
    CHECK(dbl_in(why, len, "l", "", i, m->l[i], 0, SEC_MAX, 0));
    CHECK(dbl_in(why, len, "ar", "", i, m->ar[i], 0, SEC_MAX, 0));
  }
  CHECK(int_in(why, len, "probe_M", -1, m->probe_M, 0, m->P));
  CHECK(int_in(why, len, "probe_N", -1, m->probe_N, 0, m->P));
  for (int a = 0; a < 6; a++)
    for (int s = 0; s < HPLAN_NBCAST; s++) {
      char sub[16];
      snprintf(sub, sizeof sub, "[%d]", s);
      CHECK(dbl_in(why, len, "bcast", sub, a, m->bcast[a][s], 0, SEC_MAX, 0));
    }
  for (int i = 0; i < HPLAN_NIBCAST; i++)
    CHECK(dbl_in(why, len, "ibcast", "", i, m->ibcast[i], 0, SEC_MAX, 0));
  CHECK(dbl_in(why, len, "overlap", "", -1, m->overlap, 0, 1, 0));
  CHECK(dbl_in(why, len, "sync_load", "", -1, m->sync_load, 0, SEC_MAX, 0));
  CHECK(dbl_in(why, len, "lu_cal", "", -1, m->lu_cal, 1e-6, CAL_MAX, 1));
  CHECK(dbl_in(why, len, "mm_cal", "", -1, m->mm_cal, 1e-6, CAL_MAX, 1));
  CHECK(dbl_in(why, len, "seconds", "", -1, m->seconds, 0, SEC_MAX, 0));
  /* the torus: leading dimensions, then zeros; at most 2^24 nodes */
  double nodes_t = 1;
  for (int d = 0; d < HPLAN_TORUS_DIMS; d++) {
    int hi = d > 0 && m->torus[d - 1] == 0 ? 0 : 1 << 16;
    CHECK(int_in(why, len, "torus", d, m->torus[d], 0, hi));
    if (m->torus[d] > 0) nodes_t *= m->torus[d];
  }
  if (nodes_t > (double)(1 << 24)) return say(why, len, "torus: %g nodes", nodes_t);
  CHECK(dbl_in(why, len, "torus_link", "", 0, m->torus_link[0], 0, SEC_MAX, 0));
  CHECK(dbl_in(why, len, "torus_link", "", 1, m->torus_link[1], 1e-18, 1.0, m->torus[0] == 0));
  CHECK(dbl_in(why, len, "torus_hop_alpha", "", -1, m->torus_hop_alpha, 0, SEC_MAX, 0));
  CHECK(dbl_in(why, len, "port_beta", "", -1, m->port_beta, 1e-18, 1.0, 1));
  CHECK(int_in(why, len, "leaf_nodes", -1, m->leaf_nodes, 0, 1 << 24));
  CHECK(dbl_in(why, len, "spine_alpha", "", -1, m->spine_alpha, 0, SEC_MAX, 0));
  /* triples (bytes, rate, latency) in ascending bytes, then zeros */
  for (int i = 0; i < HPLAN_NSIZE; i++) {
    const double *f = &m->size_factor[3 * i];
    const int end = i > 0 && f[-2] == 0, used = !end && f[1] > 0;
    CHECK(dbl_in(why, len, "size_factor", "", 3 * i + 1, f[1], end ? 0 : 1e-3, end ? 0 : 1e3, 1));
    CHECK(dbl_in(why, len, "size_factor", "", 3 * i + 2, f[2], used ? 1e-3 : 0, used ? 1e3 : 0, 0));
    CHECK(dbl_in(why, len, "size_factor", "", 3 * i, f[0], 0, used ? 1e12 : 0, 0));
    if (used && i > 0 && f[0] <= f[-3])
      return say(why, len, "size_factor: %g bytes after %g (ascending)", f[0], f[-3]);
  }
  return HLA_OK;
}

/* ---------------------------------------------------------------- entries */

typedef enum { F_INT, F_DBL, F_STR } ftype;
typedef struct {
  const char *name;
  ftype type;
  size_t off;
  int count;
} field;

#define FLD(n, t, c)                                                                               \
  { #n, t, offsetof(hplan_machine, n), c }
/* The entry's keys, in the order written; arrays flattened (link: alpha, beta of intra, inter;
 * bcast: per algorithm, per size). */
static const field fields[] = {FLD(version, F_INT, 1),
                               FLD(host, F_STR, 64),
                               FLD(P, F_INT, 1),
                               FLD(nodes, F_INT, 1),
                               FLD(ranks_per_node, F_INT, 1),
                               FLD(cores_per_node, F_INT, 1),
                               FLD(threads, F_INT, 1),
                               FLD(mem_per_node, F_DBL, 1),
                               FLD(r, F_DBL, 1),
                               FLD(gemm_rate, F_DBL, 1),
                               FLD(gemm_khalf, F_DBL, 1),
                               FLD(gemm_mhalf, F_DBL, 1),
                               FLD(nthreads, F_INT, 1),
                               FLD(gemm_threads, F_DBL, HPLAN_MAX_THREADS),
                               FLD(panel_rate, F_DBL, 1),
                               FLD(panel_half, F_DBL, 1),
                               FLD(copy_rate, F_DBL, 1),
                               FLD(getrf_rate, F_DBL, 1),
                               FLD(getrf_half, F_DBL, 1),
                               FLD(alloc_rate, F_DBL, 1),
                               FLD(link, F_DBL, 4),
                               FLD(have_inter, F_INT, 1),
                               FLD(intra_alone, F_DBL, 2),
                               FLD(node_bw, F_DBL, 1),
                               FLD(env_p, F_INT, HPLAN_NENV),
                               FLD(g, F_DBL, HPLAN_NENV),
                               FLD(l, F_DBL, HPLAN_NENV),
                               FLD(ar, F_DBL, HPLAN_NENV),
                               FLD(probe_M, F_INT, 1),
                               FLD(probe_N, F_INT, 1),
                               FLD(bcast, F_DBL, 6 * HPLAN_NBCAST),
                               FLD(ibcast, F_DBL, HPLAN_NIBCAST),
                               FLD(overlap, F_DBL, 1),
                               FLD(sync_load, F_DBL, 1),
                               FLD(lu_cal, F_DBL, 1),
                               FLD(mm_cal, F_DBL, 1),
                               FLD(seconds, F_DBL, 1),
                               FLD(torus, F_INT, HPLAN_TORUS_DIMS),
                               FLD(torus_link, F_DBL, 2),
                               FLD(torus_hop_alpha, F_DBL, 1),
                               FLD(port_beta, F_DBL, 1),
                               FLD(leaf_nodes, F_INT, 1),
                               FLD(spine_alpha, F_DBL, 1),
                               FLD(no_board, F_INT, 1),
                               FLD(size_factor, F_DBL, 3 * HPLAN_NSIZE)};
#define NFIELDS ((int)(sizeof fields / sizeof fields[0]))
/* Most entries a file keeps (the oldest go first). */
#define FILE_MAX 64
/* Larger than any machine file (64 entries of a few KiB): not read. */
#define TEXT_MAX ((size_t)4 << 20)
#define MARKER   "hla-machine"

/* One value of field d from JSON number v into m (ints: integers of int's range only). */
static int put_value(hplan_machine *m, const field *d, int j, const cJSON *v, char *why,
                     size_t len) {
  if (!cJSON_IsNumber(v)) return say(why, len, "%s: not a number", d->name);
  double x = v->valuedouble;
  char *base = (char *)m + d->off;
  if (d->type == F_DBL) {
    ((double *)base)[j] = x;
    return HLA_OK;
  }
  if (!(x >= INT_MIN && x <= INT_MAX && x == floor(x)))
    return say(why, len, "%s: %g is not an integer", d->name, x);
  ((int *)base)[j] = (int)x;
  return HLA_OK;
}

/* An entry object into *m, every field checked: types here, values by hplan_check. A missing
 * field is 0 (which the check then accepts or not). */
static int entry_read(const cJSON *e, hplan_machine *m, char *why, size_t len) {
  memset(m, 0, sizeof *m);
  if (!cJSON_IsObject(e)) return say(why, len, "not a JSON object");
  for (int i = 0; i < NFIELDS; i++) {
    const field *d = &fields[i];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, d->name);
    if (v == NULL) continue;
    if (d->type == F_STR) {
      const char *s = cJSON_GetStringValue(v);
      if (s == NULL) return say(why, len, "%s: not a string", d->name);
      if (strlen(s) >= (size_t)d->count)
        return say(why, len, "%s: longer than %d bytes", d->name, d->count - 1);
      strcpy((char *)m + d->off, s);
    } else if (cJSON_IsArray(v) && d->count > 1) {
      int j = 0;
      for (const cJSON *x = v->child; x; x = x->next, j++) {
        if (j >= d->count) return say(why, len, "%s: more than %d values", d->name, d->count);
        CHECK(put_value(m, d, j, x, why, len));
      }
    } else { /* one number (older writers wrote one-element arrays as a bare number) */
      CHECK(put_value(m, d, 0, v, why, len));
    }
  }
  /* the thread table holds nthreads rates: values beyond them mean nothing (and are not written) */
  if (m->nthreads >= 0 && m->nthreads < HPLAN_MAX_THREADS)
    memset(&m->gemm_threads[m->nthreads], 0,
           sizeof(double) * (size_t)(HPLAN_MAX_THREADS - m->nthreads));
  return hplan_check(m, why, len);
}

/* Whether entry e is for host, P and nodes (host NULL, P <= 0, nodes <= 0: any), read leniently:
 * the key of an entry that fails the check still says whose it is. */
static int entry_for(const cJSON *e, const char *host, int P, int nodes) {
  const cJSON *h = cJSON_GetObjectItemCaseSensitive(e, "host"),
              *p = cJSON_GetObjectItemCaseSensitive(e, "P"),
              *n = cJSON_GetObjectItemCaseSensitive(e, "nodes");
  return cJSON_IsObject(e) &&
         (host == NULL || (cJSON_IsString(h) && strcmp(h->valuestring, host) == 0)) &&
         (P <= 0 || (cJSON_IsNumber(p) && p->valuedouble == P)) &&
         (nodes <= 0 || (cJSON_IsNumber(n) && n->valuedouble == nodes));
}

/* Entry e is of this format version (others are skipped: an older hla's, not ours to judge). */
static int entry_current(const cJSON *e) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "version");
  return cJSON_IsNumber(v) && v->valuedouble == HPLAN_VERSION;
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v (finite: checked before). */
static void fmt_double(char *buf, size_t size, double v) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

/* An entry object for m (checked), numbers written as raw text so that they read back exactly
 * (cJSON's own printer may round the last bit). NULL when out of memory. */
static cJSON *entry_build(const hplan_machine *m) {
  cJSON *e = cJSON_CreateObject();
  for (int i = 0; e && i < NFIELDS; i++) {
    const field *d = &fields[i];
    const char *base = (const char *)m + d->off;
    cJSON *v;
    if (d->type == F_STR) {
      v = cJSON_CreateString(base);
    } else {
      char buf[HPLAN_MAX_THREADS * 26 + 8]; /* at most 24 characters a number, ", " between */
      size_t at = 0;
      int count = strcmp(d->name, "gemm_threads") == 0 ? m->nthreads : d->count; /* checked */
      if (d->count > 1) buf[at++] = '[';
      for (int j = 0; j < count; j++) {
        if (j) at += (size_t)snprintf(buf + at, sizeof buf - at, ", ");
        if (d->type == F_INT)
          at += (size_t)snprintf(buf + at, sizeof buf - at, "%d", ((const int *)base)[j]);
        else
          fmt_double(buf + at, sizeof buf - at, ((const double *)base)[j]), at += strlen(buf + at);
      }
      if (d->count > 1) buf[at++] = ']';
      buf[at] = '\0';
      v = cJSON_CreateRaw(buf);
    }
    if (v == NULL || !cJSON_AddItemToObject(e, d->name, v)) {
      cJSON_Delete(v);
      cJSON_Delete(e);
      return NULL;
    }
  }
  return e;
}

/* ---------------------------------------------------------------- the file's text */

/* The first bytes of s (n of them) that fit out, each unprintable one as '?': what a one-line
 * message may quote of a file. */
static void printable(char *out, size_t size, const char *s, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < size; i++)
    out[k++] = (unsigned char)s[i] >= 32 && (unsigned char)s[i] < 127 ? s[i] : '?';
  out[k] = '\0';
}

/* Text of nothing but white space. */
static int blank(const char *t, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r') return 0;
  return 1;
}

/* Text that starts as every hla writer starts, {"format": "hla-machine" (white space aside): an
 * hla file even when it does not parse (older writers wrote a NaN as a bare nan). */
static int hla_start(const char *t, size_t n) {
  static const char *const tok[] = {"{", "\"format\"", ":", "\"" MARKER "\""};
  size_t i = 0;
  for (int k = 0; k < 4; k++) {
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) i++;
    size_t l = strlen(tok[k]);
    if (n - i < l || memcmp(t + i, tok[k], l) != 0) return 0;
    i += l;
  }
  return 1;
}

/* An object that is an hla machine file: the marker, or (older or hand-written files) a
 * "machines" array whose entries all have a version and a host. */
static int hla_object(const cJSON *root) {
  if (!cJSON_IsObject(root)) return 0;
  const char *f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "format"));
  if (f) return strcmp(f, MARKER) == 0;
  const cJSON *ms = cJSON_GetObjectItemCaseSensitive(root, "machines");
  if (!cJSON_IsArray(ms)) return 0;
  for (const cJSON *e = ms->child; e; e = e->next)
    if (!cJSON_IsObject(e) || !cJSON_HasObjectItem(e, "version") || !cJSON_HasObjectItem(e, "host"))
      return 0;
  return 1;
}

/* Parse text (n bytes) into *root (NULL if it does not parse, with where in why) and say what it
 * is. cJSON gets a NUL-terminated copy: no read can run past the text. */
static int classify(const char *text, size_t n, cJSON **root, char *why, size_t len) {
  *root = NULL;
  if (text == NULL) return HP_FILE_NONE;
  if (n > TEXT_MAX) {
    say(why, len, "larger than %zu bytes", TEXT_MAX);
    return HP_FILE_FOREIGN;
  }
  if (blank(text, n)) return HP_FILE_EMPTY;
  if (memchr(text, '\0', n) != NULL) { /* no JSON text holds a NUL byte */
    say(why, len, "not JSON text (a NUL byte)");
    return HP_FILE_FOREIGN;
  }
  char *z = malloc(n + 1);
  if (z == NULL) {
    say(why, len, "out of memory");
    return HP_FILE_NOMEM;
  }
  memcpy(z, text, n);
  z[n] = '\0';
  const char *end = NULL;
  *root = cJSON_ParseWithLengthOpts(z, n + 1, &end, 1);
  int kind;
  if (*root == NULL) {
    /* where: the line and its text (printable bytes only: it goes into a one-line warning) */
    size_t at = end && end >= z && end <= z + n ? (size_t)(end - z) : 0, b = at, line = 1;
    while (b > 0 && z[b - 1] != '\n') b--;
    for (size_t i = 0; i < b; i++) line += z[i] == '\n';
    while (b < at && (z[b] == ' ' || z[b] == '\t')) b++;
    char snip[48];
    const char *eol = memchr(z + b, '\n', n - b);
    printable(snip, sizeof snip, z + b, eol ? (size_t)(eol - (z + b)) : n - b);
    say(why, len, "not valid JSON at line %zu: %s", line, snip);
    kind = hla_start(text, n) ? HP_FILE_OURS : HP_FILE_FOREIGN;
  } else if (hla_object(*root)) {
    kind = HP_FILE_OURS;
  } else {
    say(why, len, "%s",
        cJSON_IsObject(*root) ? "a JSON object without hla's \"format\" marker"
                              : "not a JSON object");
    kind = HP_FILE_FOREIGN;
  }
  free(z);
  return kind;
}

int hplan_parse(const char *text, size_t n, const char *host, int P, int nodes, hplan_machine *m,
                int *kind, char *why, size_t len) {
  if (why && len) why[0] = '\0';
  cJSON *root;
  int k = classify(text, n, &root, why, len), code = HLA_ERR_STATE, found = 0;
  if (kind) *kind = k;
  if (k == HP_FILE_NOMEM) return HLA_ERR_NOMEM;
  if (k == HP_FILE_OURS && root) {
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(root, "machines");
    int i = 0;
    for (const cJSON *e = cJSON_IsArray(ms) ? ms->child : NULL; e && !found; e = e->next, i++) {
      if (!entry_for(e, host, P, nodes) || !entry_current(e)) continue;
      hplan_machine tmp;
      char w[160];
      if (entry_read(e, &tmp, w, sizeof w) == HLA_OK) {
        if (m) memcpy(m, &tmp, sizeof tmp);
        found = 1;
      } else if (why && len && !why[0]) { /* the first bad entry for the key */
        const char *h = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "host"));
        char hs[64];
        printable(hs, sizeof hs, h ? h : "?", h ? strlen(h) : 1);
        say(why, len, "entry %d (host %s): %s", i, hs, w);
      }
    }
  }
  if (found) {
    code = HLA_OK;
    if (why && len) why[0] = '\0';
  }
  cJSON_Delete(root);
  return code;
}

int hplan_merge(const char *text, size_t n, const hplan_machine *m, char **out, char *why,
                size_t len) {
  if (why && len) why[0] = '\0';
  if (out == NULL) return say(why, len, "no output");
  *out = NULL;
  if (hplan_check(m, why, len) != HLA_OK) return HLA_ERR_ARG;
  cJSON *root;
  char w[160] = "";
  int kind = classify(text, n, &root, w, sizeof w);
  if (kind == HP_FILE_NOMEM) return HLA_ERR_NOMEM;
  if (kind == HP_FILE_FOREIGN) {
    cJSON_Delete(root);
    say(why, len, "it exists and is not an hla machine file (%s); not overwritten", w);
    return HLA_ERR_STATE;
  }
  cJSON *top = cJSON_CreateObject(), *ms = cJSON_CreateArray(), *mine = entry_build(m),
        *fmt = cJSON_CreateString(MARKER);
  int ok = top && ms && mine && fmt && cJSON_AddItemToObject(top, "format", fmt);
  if (ok) fmt = NULL;
  ok = ok && cJSON_AddItemToObject(top, "machines", ms);
  if (ok) ms = NULL;
  /* the entries of other keys, oldest first: valid ones rebuilt (exact numbers), others as they
   * were; the oldest go when the file is full */
  cJSON *old = root ? cJSON_GetObjectItemCaseSensitive(root, "machines") : NULL,
        *list = cJSON_GetObjectItemCaseSensitive(top, "machines");
  if (ok && cJSON_IsArray(old)) {
    int keep = 0;
    for (const cJSON *e = old->child; e; e = e->next)
      keep += !entry_for(e, m->host, m->P, m->nodes);
    int drop = keep - (FILE_MAX - 1);
    while (ok && old->child) {
      cJSON *e = cJSON_DetachItemViaPointer(old, old->child);
      if (entry_for(e, m->host, m->P, m->nodes) || drop-- > 0) {
        cJSON_Delete(e);
        continue;
      }
      hplan_machine tmp;
      cJSON *r =
          entry_current(e) && entry_read(e, &tmp, NULL, 0) == HLA_OK ? entry_build(&tmp) : NULL;
      if (r) cJSON_Delete(e), e = r;
      ok = cJSON_AddItemToArray(list, e);
      if (!ok) cJSON_Delete(e);
    }
  }
  ok = ok && cJSON_AddItemToArray(list, mine);
  if (ok) mine = NULL;
  /* whatever else the object holds stays, after the two keys of the format */
  while (ok && cJSON_IsObject(root) && root->child) {
    cJSON *e = cJSON_DetachItemViaPointer(root, root->child);
    if (e->string == NULL || strcmp(e->string, "format") == 0 ||
        strcmp(e->string, "machines") == 0) {
      cJSON_Delete(e);
      continue;
    }
    ok = cJSON_AddItemToObject(top, e->string, e);
    if (!ok) cJSON_Delete(e);
  }
  if (ok) *out = cJSON_Print(top);
  cJSON_Delete(fmt);
  cJSON_Delete(ms);
  cJSON_Delete(mine);
  cJSON_Delete(top);
  cJSON_Delete(root);
  if (*out == NULL) {
    say(why, len, "out of memory");
    return HLA_ERR_NOMEM;
  }
  return HLA_OK;
}

/* ---------------------------------------------------------------- files */

/* The file's text into *text (malloc'ed, *n bytes): HLA_OK; no such file: HLA_OK with *text NULL;
 * anything else (a directory, a device, a fifo, too large, unreadable): HLA_ERR_STATE and why.
 * O_NONBLOCK: a fifo at the path must not hang the reader. */
static int read_text(const char *path, char **text, size_t *n, char *why, size_t len) {
  *text = NULL, *n = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return HLA_OK;
    say(why, len, "it cannot be read (%s)", strerror(errno));
    return HLA_ERR_STATE;
  }
  struct stat st;
  int code = HLA_ERR_STATE;
  char *buf = NULL;
  size_t got = 0;
  if (fstat(fd, &st) != 0)
    say(why, len, "it cannot be read (%s)", strerror(errno));
  else if (S_ISDIR(st.st_mode))
    say(why, len, "it is a directory");
  else if (!S_ISREG(st.st_mode))
    say(why, len, "it is not a regular file");
  else if ((buf = malloc(TEXT_MAX + 1)) == NULL)
    code = HLA_ERR_NOMEM;
  else
    code = HLA_OK;
  if (code == HLA_ERR_NOMEM) say(why, len, "out of memory");
  while (code == HLA_OK) { /* to the end; one byte more than the most a machine file may hold */
    ssize_t r = read(fd, buf + got, TEXT_MAX + 1 - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) code = HLA_ERR_STATE, say(why, len, "it cannot be read (%s)", strerror(errno));
    if (r <= 0) break;
    got += (size_t)r;
    if (got > TEXT_MAX)
      code = HLA_ERR_STATE,
      say(why, len, "it is larger than %zu bytes: not a machine file", (size_t)TEXT_MAX);
  }
  close(fd);
  if (code != HLA_OK) {
    free(buf);
    return code;
  }
  *text = buf, *n = got;
  return HLA_OK;
}

int hplan_load_why(hplan_machine *m, const char *path, const char *host, int P, int nodes,
                   int *kind, char *why, size_t len) {
  if (why && len) why[0] = '\0';
  if (kind) *kind = HP_FILE_NONE;
  if (m == NULL || path == NULL) return HLA_ERR_ARG;
  char *text;
  size_t n;
  int code = read_text(path, &text, &n, why, len);
  if (code != HLA_OK) {
    if (kind) *kind = HP_FILE_FOREIGN;
    return code == HLA_ERR_NOMEM ? code : HLA_ERR_STATE;
  }
  if (text == NULL) return HLA_ERR_STATE;
  code = hplan_parse(text, n, host, P, nodes, m, kind, why, len);
  free(text);
  return code;
}

int hplan_load(hplan_machine *m, const char *path, const char *host, int P, int nodes) {
  return hplan_load_why(m, path, host, P, nodes, NULL, NULL, 0);
}

/* mkdir -p of the directory part of path. */
static void make_dirs(const char *path) {
  char buf[4096];
  size_t n = strlen(path);
  if (n >= sizeof buf) return;
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i < n; i++)
    if (buf[i] == '/') {
      buf[i] = '\0';
      mkdir(buf, 0755);
      buf[i] = '/';
    }
}

/* text to path atomically: a fresh file beside it (O_EXCL: never another writer's), flushed to
 * disk, with the old file's permissions, renamed over it. */
static int write_atomic(const char *path, const char *text, char *why, size_t len) {
  make_dirs(path);
  size_t pl = strlen(path);
  char *tmp = malloc(pl + 64);
  if (tmp == NULL) {
    say(why, len, "out of memory");
    return HLA_ERR_NOMEM;
  }
  int fd = -1;
  for (int i = 0; i < 100 && fd < 0; i++) {
    snprintf(tmp, pl + 64, "%s.%ld.%d.tmp", path, (long)getpid(), i);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    say(why, len, "no file can be created beside it (%s)", strerror(errno));
    free(tmp);
    return HLA_ERR_STATE;
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) fchmod(fd, st.st_mode & 07777);
  size_t n = strlen(text), done = 0;
  int err = 0;
  while (done < n && !err) {
    ssize_t w = write(fd, text + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      err = w < 0 ? errno : EIO;
    else
      done += (size_t)w;
  }
  if (!err && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && rename(tmp, path) != 0) err = errno;
  if (err) {
    unlink(tmp);
    say(why, len, "it cannot be written (%s)", strerror(err));
  }
  free(tmp);
  return err ? HLA_ERR_STATE : HLA_OK;
}

int hplan_save_why(const hplan_machine *m, const char *path, char *why, size_t len) {
  if (why && len) why[0] = '\0';
  if (m == NULL || path == NULL || !*path) return say(why, len, "no model or no path");
  if (hplan_check(m, why, len) != HLA_OK) return HLA_ERR_ARG;
  char *text, *out = NULL;
  size_t n;
  int code = read_text(path, &text, &n, why, len);
  if (code == HLA_OK) code = hplan_merge(text, n, m, &out, why, len);
  free(text);
  if (code == HLA_OK) code = write_atomic(path, out, why, len);
  free(out);
  return code;
}

int hplan_save(const hplan_machine *m, const char *path) {
  return hplan_save_why(m, path, NULL, 0);
}

int hplan_default_path(char *buf, size_t size) {
  hla_settings s;
  int errors, warnings;
  hla_settings_parse(&s, NULL, NULL, 0, NULL, 0, &errors, &warnings);
  return hplan_machine_path(s.machine, buf, size);
}

int hplan_machine_path(const char *setting, char *buf, size_t size) {
  if (buf == NULL || size == 0) return 0;
  if (setting && *setting) {
    if (strcmp(setting, "none") == 0 || strcmp(setting, "off") == 0) return 0;
    return snprintf(buf, size, "%s", setting) < (int)size;
  }
  const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  if (x && *x) return snprintf(buf, size, "%s/hla/machine.json", x) < (int)size;
  if (h && *h) return snprintf(buf, size, "%s/.cache/hla/machine.json", h) < (int)size;
  return 0;
}
