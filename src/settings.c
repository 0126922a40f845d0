/* hla — the HLA_* environment variables, parsed and checked (settings.h). */
#include "settings.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *from_env(const char *name, void *ctx) {
  (void)ctx;
  return getenv(name);
}

typedef struct {
  char *msg;
  size_t len;
  int *errors, *warnings;
} report;

static void say(report *r, int error, const char *fmt, ...) {
  ++*(error ? r->errors : r->warnings);
  size_t at = strnlen(r->msg, r->len);
  if (at + 1 >= r->len) return;
  int w = snprintf(r->msg + at, r->len - at, "hla: %s: ", error ? "error" : "warning");
  if (w < 0 || (size_t)w >= r->len - at) return;
  at += (size_t)w;
  va_list ap;
  va_start(ap, fmt);
  w = vsnprintf(r->msg + at, r->len - at, fmt, ap);
  va_end(ap);
  if (w < 0 || (size_t)w >= r->len - at) return;
  at += (size_t)w;
  if (at + 1 < r->len) r->msg[at] = '\n', r->msg[at + 1] = 0;
}

/* A whole decimal integer in [lo, hi]: 1 and *v, else 0. */
static int integer(const char *s, int64_t lo, int64_t hi, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi || isspace((unsigned char)*s))
    return 0;
  *v = x;
  return 1;
}

/* The index of x among names[0 .. n - 1] (an enum's order), or -1. */
static int keyword(const char *x, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(x, names[i]) == 0) return i;
  return -1;
}

/* A value to quote in a message: at most 40 characters, the rest marked. */
static const char *quoted(const char *v, char *buf, size_t size) {
  snprintf(buf, size, "%.40s%s", v, strlen(v) > 40 ? "..." : "");
  for (char *p = buf; *p; p++)
    if ((unsigned char)*p < 32) *p = '?'; /* one line stays one line */
  return buf;
}

void hla_settings_parse(hla_settings *s, hla_getenv_fn get, void *ctx, int cores, char *msg,
                        size_t len, int *errors, int *warnings) {
  char none[1];
  report r = {msg ? msg : none, msg ? len : 1, errors, warnings};
  if (r.len) r.msg[0] = 0;
  *errors = *warnings = 0;
  memset(s, 0, sizeof *s);
  if (get == NULL) get = from_env;
  char q[48];
  int64_t v;
  const char *x;

  if ((x = get("HLA_TRACE", ctx)) && *x) {
    s->trace = strcmp(x, "0") != 0;
    if (strcmp(x, "0") != 0 && strcmp(x, "1") != 0)
      say(&r, 0, "HLA_TRACE='%s' is not 0 or 1; tracing on", quoted(x, q, sizeof q));
  }
  if ((x = get("HLA_QUIET", ctx)) && *x) {
    s->quiet = strcmp(x, "1") == 0; /* a bad value must not hide the advice it was meant for */
    if (strcmp(x, "0") != 0 && strcmp(x, "1") != 0)
      say(&r, 0, "HLA_QUIET='%s' is not 0 or 1; advice stays on", quoted(x, q, sizeof q));
  }
  if ((x = get("HLA_SCALAPACK_REPORT", ctx)) && *x) {
    s->scalapack_report = strcmp(x, "0") != 0;
    if (strcmp(x, "0") != 0 && strcmp(x, "1") != 0)
      say(&r, 0, "HLA_SCALAPACK_REPORT='%s' is not 0 or 1; the report on", quoted(x, q, sizeof q));
  }
  if ((x = get("HLA_SCALAPACK_LU_GRID", ctx)) && *x) {
    static const char *const modes[] = {"auto", "caller", "wide"};
    s->scalapack_lu_grid = keyword(x, modes, 3);
    if (s->scalapack_lu_grid < 0) {
      s->scalapack_lu_grid = HLA_SL_LU_AUTO;
      say(&r, 0, "HLA_SCALAPACK_LU_GRID='%s' is not auto, caller or wide; using auto",
          quoted(x, q, sizeof q));
    }
  }
  if ((x = get("HLA_SIM", ctx)) && *x) {
#ifdef HLA_SMPI
    const int smpi = 1;
#else
    const int smpi = 0;
#endif
    if (strcmp(x, "model") == 0 && smpi)
      s->sim_model = 1;
    else if (strcmp(x, "model") == 0)
      say(&r, 1, "HLA_SIM=model needs the SimGrid build (-DHLA_SMPI=ON); computing for real");
    else if (strcmp(x, "real") != 0)
      say(&r, 1, "HLA_SIM='%s' is not real or model; computing for real", quoted(x, q, sizeof q));
  }
  if ((x = get("HLA_VIRTUAL_NODES", ctx)) && *x) {
    if (integer(x, 1, 1 << 20, &v))
      s->virtual_nodes = (int)v;
    else
      say(&r, 1, "HLA_VIRTUAL_NODES='%s' is not an integer in [1, 2^20]", quoted(x, q, sizeof q));
  }
  if ((x = get("HLA_NUM_THREADS", ctx)) && *x) {
    int most = cores > 0 ? cores : HLA_SETTINGS_MAX_THREADS;
    if (!integer(x, 1, INT_MAX, &v)) {
      say(&r, 0, "HLA_NUM_THREADS='%s' is not a positive integer; using the thread policy",
          quoted(x, q, sizeof q));
    } else if (v > most) {
      say(&r, 0, "HLA_NUM_THREADS=%lld is more than the node's %d cores; using %d", (long long)v,
          most, most);
      s->num_threads = most;
    } else {
      s->num_threads = (int)v;
    }
  }
  if ((x = get("HLA_PLAN", ctx)) && *x) {
    static const char *const modes[] = {"auto", "load", "probe", "off"};
    s->plan = keyword(x, modes, 4);
    if (s->plan < 0) {
      s->plan = HLA_PLAN_AUTO;
      say(&r, 0, "HLA_PLAN='%s' is not auto, load, probe or off; using auto",
          quoted(x, q, sizeof q));
    }
  }
  if ((x = get("HLA_PLAN_N", ctx)) && *x) {
    if (integer(x, 1, HLA_SETTINGS_MAX_PLAN_N, &v))
      s->plan_n = v;
    else
      say(&r, 0, "HLA_PLAN_N='%s' is not an integer in [1, %lld]; using 4096 sqrt(P)",
          quoted(x, q, sizeof q), (long long)HLA_SETTINGS_MAX_PLAN_N);
  }
  struct {
    const char *name;
    char *dst;
  } paths[] = {{"HLA_PROFILE", s->profile}, {"HLA_MACHINE_FILE", s->machine}};
  for (int i = 0; i < 2; i++)
    if ((x = get(paths[i].name, ctx)) && *x) {
      if (strlen(x) < HLA_SETTINGS_PATH)
        strcpy(paths[i].dst, x);
      else
        say(&r, 1, "%s is a path of %zu characters (at most %d)", paths[i].name, strlen(x),
            HLA_SETTINGS_PATH - 1);
    }
}

int hla_settings_trace(void) {
  const char *t = getenv("HLA_TRACE");
  return t && *t && strcmp(t, "0") != 0;
}
