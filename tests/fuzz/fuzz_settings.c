/* libFuzzer target: the HLA_* variables' parser (src/settings.c) on arbitrary environments. The
 * input is lines "NAME=value" (bytes of any kind, NUL included, as an environment cannot hold but
 * a caller's get function may return) plus one byte choosing the node's core count. Properties:
 * no crash, leak or undefined behaviour; every value in its documented range; the message
 * NUL-terminated inside its buffer, one line per bad value. tests/fuzz/run.sh builds and runs it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "settings.h"

typedef struct {
  char *names[16], *values[16];
  int n;
} fake_env;

static const char *get(const char *name, void *ctx) {
  const fake_env *e = ctx;
  for (int i = 0; i < e->n; i++)
    if (strcmp(e->names[i], name) == 0) return e->values[i];
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int cores = data[0] % 5 == 0 ? 0 : data[0]; /* 0: unknown */
  char *text = malloc(size);
  memcpy(text, data + 1, size - 1);
  text[size - 1] = 0;
  fake_env e = {.n = 0};
  for (char *line = text; line && e.n < 16;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = 0;
    char *eq = strchr(line, '=');
    if (eq) {
      *eq = 0;
      e.names[e.n] = line, e.values[e.n] = eq + 1, e.n++;
    }
    line = next;
  }
  size_t len = 1 + (size_t)data[0] % 300; /* buffers from 1 byte up */
  char *msg = malloc(len);
  hla_settings s;
  int errors = -1, warnings = -1;
  hla_settings_parse(&s, get, &e, cores, msg, len, &errors, &warnings);
  int limit = cores > 0 ? cores : HLA_SETTINGS_MAX_THREADS;
  if (errors < 0 || warnings < 0 || memchr(msg, 0, len) == NULL) abort();
  if (s.num_threads < 0 || s.num_threads > limit) abort();
  if (s.virtual_nodes < 0 || s.virtual_nodes > (1 << 20)) abort();
  if (s.plan < HLA_PLAN_AUTO || s.plan > HLA_PLAN_OFF) abort();
  if (s.plan_n < 0 || s.plan_n > HLA_SETTINGS_MAX_PLAN_N) abort();
  if (s.trace != 0 && s.trace != 1) abort();
  if (!memchr(s.profile, 0, sizeof s.profile) || !memchr(s.machine, 0, sizeof s.machine)) abort();
  free(msg);
  free(text);
  return 0;
}
