/* hla — the machine file (hplan_save / hplan_load / hplan_default_path): a small JSON object with
 * one entry per host, P and node count, written to a temporary file and renamed so that readers
 * never see half a file. Local; no communication.
 */
#define _GNU_SOURCE /* mkdir */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "dist/plan/plan_impl.h"

/* ---------------------------------------------------------------- the machine file */

typedef enum { F_INT, F_DBL, F_STR } ftype;
typedef struct {
  const char *name;
  ftype type;
  size_t off;
  int count;
} field;

#define FLD(n, t, c)                                                                               \
  { #n, t, offsetof(hplan_machine, n), c }
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
                               FLD(env_p, F_INT, HPLAN_NENV),
                               FLD(g, F_DBL, HPLAN_NENV),
                               FLD(l, F_DBL, HPLAN_NENV),
                               FLD(ar, F_DBL, HPLAN_NENV),
                               FLD(probe_M, F_INT, 1),
                               FLD(probe_N, F_INT, 1),
                               FLD(bcast, F_DBL, 6 * HPLAN_NBCAST),
                               FLD(overlap, F_DBL, 1),
                               FLD(sync_load, F_DBL, 1),
                               FLD(lu_cal, F_DBL, 1),
                               FLD(mm_cal, F_DBL, 1),
                               FLD(seconds, F_DBL, 1)};
#define NFIELDS ((int)(sizeof fields / sizeof fields[0]))
/* Most entries a file keeps. */
#define FILE_MAX 64

static void write_entry(FILE *f, const hplan_machine *m) {
  fprintf(f, "  {");
  for (int i = 0; i < NFIELDS; i++) {
    const field *d = &fields[i];
    const char *base = (const char *)m + d->off;
    fprintf(f, "%s\n   \"%s\": ", i ? "," : "", d->name);
    int count = d->count;
    if (strcmp(d->name, "gemm_threads") == 0) count = m->nthreads > 0 ? m->nthreads : 1;
    if (d->type == F_STR) {
      fputc('"', f);
      for (const char *s = base; *s && s < base + d->count; s++)
        if (*s != '"' && *s != '\\' && (unsigned char)*s >= 32) fputc(*s, f);
      fputc('"', f);
      continue;
    }
    if (count > 1) fputc('[', f);
    for (int j = 0; j < count; j++) {
      if (j) fputs(", ", f);
      if (d->type == F_INT)
        fprintf(f, "%d", ((const int *)base)[j]);
      else
        fprintf(f, "%.17g", ((const double *)base)[j]);
    }
    if (count > 1) fputc(']', f);
  }
  fprintf(f, "\n  }");
}

/* A tiny reader for the subset of JSON that write_entry produces (and any JSON: unknown values
 * are skipped). */
typedef struct {
  const char *s;
  size_t i, n;
  int err;
} jrd;

static void jws(jrd *r) {
  while (r->i < r->n &&
         (r->s[r->i] == ' ' || r->s[r->i] == '\n' || r->s[r->i] == '\t' || r->s[r->i] == '\r'))
    r->i++;
}

static int jpeek(jrd *r) {
  jws(r);
  return r->i < r->n ? r->s[r->i] : -1;
}

static int jexpect(jrd *r, char c) {
  if (jpeek(r) != c) return r->err = 1, 0;
  r->i++;
  return 1;
}

static void jstring(jrd *r, char *out, size_t size) {
  size_t k = 0;
  if (!jexpect(r, '"')) return;
  while (r->i < r->n && r->s[r->i] != '"') {
    char c = r->s[r->i++];
    if (c == '\\' && r->i < r->n) c = r->s[r->i++];
    if (out && k + 1 < size) out[k++] = c;
  }
  if (out && size) out[k] = '\0';
  if (!jexpect(r, '"')) r->err = 1;
}

static double jnumber(jrd *r) {
  jws(r);
  char *end;
  double v = strtod(r->s + r->i, &end);
  if (end == r->s + r->i) {
    r->err = 1;
    return 0;
  }
  r->i = (size_t)(end - r->s);
  return v;
}

static void jskip(jrd *r) {
  int c = jpeek(r);
  if (c == '"') {
    jstring(r, NULL, 0);
  } else if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    r->i++;
    if (jpeek(r) == close) {
      r->i++;
      return;
    }
    while (!r->err) {
      if (c == '{') {
        jstring(r, NULL, 0);
        jexpect(r, ':');
      }
      jskip(r);
      if (jpeek(r) == ',') {
        r->i++;
        continue;
      }
      jexpect(r, close);
      return;
    }
  } else if (c == 't' || c == 'f' || c == 'n') {
    while (r->i < r->n && r->s[r->i] >= 'a' && r->s[r->i] <= 'z') r->i++;
  } else {
    jnumber(r);
  }
}

static void jentry(jrd *r, hplan_machine *m) {
  memset(m, 0, sizeof *m);
  if (!jexpect(r, '{')) return;
  if (jpeek(r) == '}') {
    r->i++;
    return;
  }
  while (!r->err) {
    char key[64];
    jstring(r, key, sizeof key);
    jexpect(r, ':');
    const field *d = NULL;
    for (int i = 0; i < NFIELDS && !d; i++)
      if (strcmp(fields[i].name, key) == 0) d = &fields[i];
    if (d == NULL) {
      jskip(r);
    } else if (d->type == F_STR) {
      jstring(r, (char *)m + d->off, (size_t)d->count);
    } else {
      int arr = jpeek(r) == '[', j = 0;
      if (arr) r->i++;
      while (!r->err) {
        double v = jnumber(r);
        if (j < d->count) {
          if (d->type == F_INT)
            ((int *)((char *)m + d->off))[j] = (int)v;
          else
            ((double *)((char *)m + d->off))[j] = v;
        }
        j++;
        if (!arr) break;
        if (jpeek(r) == ',') {
          r->i++;
          continue;
        }
        jexpect(r, ']');
        break;
      }
    }
    if (jpeek(r) == ',') {
      r->i++;
      continue;
    }
    jexpect(r, '}');
    return;
  }
}

/* Every entry of the file (at most FILE_MAX); -1 when the file cannot be read or parsed. */
static int read_file(const char *path, hplan_machine *out, int max) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return -1;
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 4096 > cap) {
      cap = cap ? 2 * cap : 65536;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return -1;
      }
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  jrd r = {buf, 0, n, 0};
  int count = 0;
  if (jexpect(&r, '{') && jpeek(&r) != '}') {
    while (!r.err) {
      char key[64];
      jstring(&r, key, sizeof key);
      jexpect(&r, ':');
      if (strcmp(key, "machines") == 0 && jpeek(&r) == '[') {
        r.i++;
        while (!r.err && jpeek(&r) != ']') {
          hplan_machine m;
          jentry(&r, &m);
          if (!r.err && m.version == HPLAN_VERSION && count < max) out[count++] = m;
          if (jpeek(&r) == ',') r.i++;
        }
        jexpect(&r, ']');
      } else {
        jskip(&r);
      }
      if (jpeek(&r) == ',') {
        r.i++;
        continue;
      }
      jexpect(&r, '}');
      break;
    }
  }
  free(buf);
  return r.err ? -1 : count;
}

static int same_key(const hplan_machine *a, const char *host, int P, int nodes) {
  return (host == NULL || strncmp(a->host, host, sizeof a->host) == 0) && (P <= 0 || a->P == P) &&
         (nodes <= 0 || a->nodes == nodes);
}

int hplan_load(hplan_machine *m, const char *path, const char *host, int P, int nodes) {
  if (m == NULL || path == NULL) return HLA_ERR_ARG;
  hplan_machine *all = malloc(sizeof *all * FILE_MAX);
  if (all == NULL) return HLA_ERR_NOMEM;
  int n = read_file(path, all, FILE_MAX), code = HLA_ERR_STATE;
  for (int i = 0; i < n; i++)
    if (same_key(&all[i], host, P, nodes)) {
      *m = all[i];
      code = HLA_OK;
      break;
    }
  free(all);
  return code;
}

/* mkdir -p of the directory part of path. */
static void make_dirs(const char *path) {
  char buf[1024];
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

int hplan_save(const hplan_machine *m, const char *path) {
  if (m == NULL || path == NULL || !*path) return HLA_ERR_ARG;
  hplan_machine *all = malloc(sizeof *all * (FILE_MAX + 1));
  if (all == NULL) return HLA_ERR_NOMEM;
  int n = read_file(path, all, FILE_MAX);
  if (n < 0) n = 0;
  int at = n;
  for (int i = 0; i < n; i++)
    if (same_key(&all[i], m->host, m->P, m->nodes)) at = i;
  if (at == n && n == FILE_MAX) at = 0; /* full: the oldest goes */
  all[at] = *m;
  if (at == n) n++;
  make_dirs(path);
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  int code = HLA_OK;
  if (f == NULL) {
    code = HLA_ERR_STATE;
  } else {
    fprintf(f, "{\"format\": \"hla-machine\",\n \"machines\": [\n");
    for (int i = 0; i < n; i++) {
      write_entry(f, &all[i]);
      fprintf(f, "%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, " ]\n}\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
      code = HLA_ERR_STATE;
      remove(tmp);
    }
  }
  free(all);
  return code;
}

int hplan_default_path(char *buf, size_t size) {
  if (buf == NULL || size == 0) return 0;
  const char *v = getenv("HLA_MACHINE_FILE");
  if (v && *v) {
    if (strcmp(v, "none") == 0 || strcmp(v, "off") == 0) return 0;
    return snprintf(buf, size, "%s", v) < (int)size;
  }
  const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  if (x && *x) return snprintf(buf, size, "%s/hla/machine.json", x) < (int)size;
  if (h && *h) return snprintf(buf, size, "%s/.cache/hla/machine.json", h) < (int)size;
  return 0;
}
