/* libFuzzer target: the machine file's reader (hplan_parse) and its read-modify-write
 * (hplan_merge) on arbitrary bytes, as if they were the file. Built with clang by
 * tests/fuzz/run.sh (ASan, UBSan, leaks); the seeds are in tests/fuzz/corpus_machine_file/.
 * Beyond what the sanitizers catch, it aborts when:
 *   - an entry the reader accepts fails hplan_check, or does not read back exactly once written;
 *   - text that is not an hla machine file is not refused by the writer (it would be overwritten);
 *   - the writer's output is not an hla machine file whose entry for the model reads back exactly.
 */
#include <cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dist/plan/plan_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Entries in the text's "machines" (0 if it does not parse). */
static int entries(const char *text, size_t n) {
  char *z = malloc(n + 1);
  if (z == NULL) return 0;
  memcpy(z, text, n), z[n] = '\0';
  cJSON *root = cJSON_ParseWithLength(z, n + 1);
  int c = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "machines"));
  cJSON_Delete(root);
  free(z);
  return c;
}

/* Written alone, m reads back bit for bit. */
static void round_trip(const hplan_machine *m) {
  char *out = NULL;
  if (hplan_merge(NULL, 0, m, &out, NULL, 0) != HLA_OK) abort();
  hplan_machine b;
  int kind;
  if (hplan_parse(out, strlen(out), m->host, m->P, m->nodes, &b, &kind, NULL, 0) != HLA_OK ||
      kind != HP_FILE_OURS || memcmp(m, &b, sizeof b) != 0)
    abort();
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  hplan_machine m;
  int kind = -1;
  char why[256];
  int code = hplan_parse(text, size, NULL, 0, 0, &m, &kind, why, sizeof why);
  if (code == HLA_OK) {
    if (hplan_check(&m, NULL, 0) != HLA_OK || kind != HP_FILE_OURS) abort();
    round_trip(&m);
  } else if (code != HLA_ERR_STATE && code != HLA_ERR_NOMEM) {
    abort();
  }
  if (memchr(why, '\n', strnlen(why, sizeof why))) abort(); /* the reason fits one line */

  /* the writer on the same text, with a model of its own */
  hplan_machine s;
  hplan_machine_synthetic(&s, 4, 2, 2, 1e10, (hplan_link){1e-6, 1e-10}, (hplan_link){1e-5, 1e-9});
  s.bcast[1][2] = 1.0 / 3; /* a number that needs 17 digits */
  char *out = NULL;
  code = hplan_merge(text, size, &s, &out, why, sizeof why);
  if (kind == HP_FILE_FOREIGN) {
    if (code != HLA_ERR_STATE || out != NULL) abort();
  } else if (code == HLA_OK) {
    hplan_machine b;
    int k2;
    if (hplan_parse(out, strlen(out), s.host, s.P, s.nodes, &b, &k2, NULL, 0) != HLA_OK ||
        k2 != HP_FILE_OURS || memcmp(&s, &b, sizeof b) != 0)
      abort();
    /* and an entry the reader took from the input is still there, unless it had the same key or
     * the file was full (the oldest go) */
    if (kind == HP_FILE_OURS && hplan_parse(text, size, NULL, 0, 0, &m, NULL, NULL, 0) == HLA_OK &&
        entries(text, size) < 63 &&
        !(strcmp(m.host, s.host) == 0 && m.P == s.P && m.nodes == s.nodes) &&
        hplan_parse(out, strlen(out), m.host, m.P, m.nodes, &b, NULL, NULL, 0) != HLA_OK)
      abort();
    free(out);
  } else if (code != HLA_ERR_NOMEM) {
    abort();
  }
  return 0;
}
