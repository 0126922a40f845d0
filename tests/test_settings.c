/* Unit tests of the HLA_* variables' parser (src/settings.c): every bad value reported with its
 * name and the right severity, the defaults kept, nothing read but through the given function.
 * Pure: run without mpiexec. hbsp_init's agreement over ranks is in test_bsp_env.c.
 * @nompi
 */
#include <stdlib.h>
#include <string.h>
#include "settings.h"
#include "unit.h"

/* A fake environment: NULL-terminated name=value pairs. */
static const char *fake(const char *name, void *ctx) {
  for (const char **p = ctx; *p; p++) {
    size_t n = strlen(name);
    if (strncmp(*p, name, n) == 0 && (*p)[n] == '=') return *p + n + 1;
  }
  return NULL;
}

static hla_settings parse(const char **env, int cores, char *msg, int *errors, int *warnings) {
  hla_settings s;
  hla_settings_parse(&s, fake, (void *)env, cores, msg, 1024, errors, warnings);
  return s;
}

static void test_defaults(void) {
  const char *env[] = {NULL};
  char msg[1024];
  int e, w;
  hla_settings s = parse(env, 8, msg, &e, &w);
  CU_ASSERT(e == 0 && w == 0 && msg[0] == 0);
  CU_ASSERT(s.trace == 0 && s.quiet == 0 && s.virtual_nodes == 0 && s.num_threads == 0 &&
            s.plan == HLA_PLAN_AUTO && s.plan_n == 0 && s.profile[0] == 0 && s.machine[0] == 0 &&
            s.scalapack_report == 0 && s.scalapack_lu_grid == HLA_SL_LU_AUTO);
}

static void test_good_values(void) {
  const char *env[] = {"HLA_TRACE=1",
                       "HLA_VIRTUAL_NODES=3",
                       "HLA_NUM_THREADS=2",
                       "HLA_PLAN=load",
                       "HLA_PLAN_N=2048",
                       "HLA_PROFILE=/tmp/p.json",
                       "HLA_MACHINE_FILE=none",
                       "HLA_QUIET=1",
                       "HLA_SCALAPACK_REPORT=1",
                       "HLA_SCALAPACK_LU_GRID=wide",
                       NULL};
  char msg[1024];
  int e, w;
  hla_settings s = parse(env, 8, msg, &e, &w);
  CU_ASSERT(e == 0 && w == 0);
  CU_ASSERT(s.trace == 1 && s.quiet == 1 && s.virtual_nodes == 3 && s.num_threads == 2 &&
            s.plan == HLA_PLAN_LOAD && s.plan_n == 2048 && strcmp(s.profile, "/tmp/p.json") == 0 &&
            strcmp(s.machine, "none") == 0 && s.scalapack_report == 1 &&
            s.scalapack_lu_grid == HLA_SL_LU_WIDE);
  const char *caller[] = {"HLA_SCALAPACK_LU_GRID=caller", NULL};
  s = parse(caller, 8, msg, &e, &w);
  CU_ASSERT(e == 0 && w == 0 && s.scalapack_lu_grid == HLA_SL_LU_CALLER);
}

/* Speed-only variables: a warning naming the variable, and the default. */
static void test_warnings(void) {
  static const char *bad_threads[] = {"abc", "0", "-5", "2x", " 2", "99999999999999999999", ""};
  for (size_t i = 0; i < sizeof bad_threads / sizeof *bad_threads; i++) {
    char var[64], msg[1024];
    snprintf(var, sizeof var, "HLA_NUM_THREADS=%s", bad_threads[i]);
    const char *env[] = {var, NULL};
    int e, w;
    hla_settings s = parse(env, 8, msg, &e, &w);
    CU_ASSERT_EQUAL(s.num_threads, 0);
    CU_ASSERT_EQUAL(e, 0);
    CU_ASSERT_EQUAL(w, bad_threads[i][0] != 0); /* empty means unset */
    if (bad_threads[i][0]) CU_ASSERT_PTR_NOT_NULL(strstr(msg, "hla: warning: HLA_NUM_THREADS"));
  }
  const char *many[] = {"HLA_NUM_THREADS=100000", NULL};
  char msg[1024];
  int e, w;
  hla_settings s = parse(many, 8, msg, &e, &w); /* cut to the node's cores */
  CU_ASSERT(s.num_threads == 8 && e == 0 && w == 1 && strstr(msg, "8 cores") != NULL);
  const char *env[] = {"HLA_PLAN=garbage",
                       "HLA_PLAN_N=99999999999999",
                       "HLA_TRACE=yes",
                       "HLA_QUIET=yes",
                       "HLA_SCALAPACK_REPORT=on",
                       "HLA_SCALAPACK_LU_GRID=tall",
                       NULL};
  s = parse(env, 8, msg, &e, &w);
  CU_ASSERT(s.plan == HLA_PLAN_AUTO && s.plan_n == 0 && s.trace == 1 && s.quiet == 0 &&
            s.scalapack_report == 1 && s.scalapack_lu_grid == HLA_SL_LU_AUTO && e == 0 && w == 6);
  CU_ASSERT(strstr(msg, "HLA_PLAN='garbage'") && strstr(msg, "HLA_PLAN_N=") &&
            strstr(msg, "HLA_TRACE") && strstr(msg, "HLA_QUIET='yes'") &&
            strstr(msg, "HLA_SCALAPACK_REPORT='on'") &&
            strstr(msg, "HLA_SCALAPACK_LU_GRID='tall'"));
}

/* Variables that change what is computed or written: errors. */
static void test_errors(void) {
  char longpath[2000];
  memset(longpath, 'x', sizeof longpath - 1);
  longpath[sizeof longpath - 1] = 0;
  memcpy(longpath, "HLA_PROFILE=", 12);
  const char *env[] = {"HLA_VIRTUAL_NODES=zero", longpath, NULL};
  char msg[1024];
  int e, w;
  hla_settings s = parse(env, 8, msg, &e, &w);
  CU_ASSERT(e == 2 && w == 0 && s.virtual_nodes == 0 && s.profile[0] == 0);
  CU_ASSERT(strstr(msg, "hla: error: HLA_VIRTUAL_NODES='zero'") != NULL);
  CU_ASSERT(strstr(msg, "hla: error: HLA_PROFILE is a path") != NULL);
  /* one line per value, however long or odd the value */
  const char *odd[] = {"HLA_PLAN=a\nb", NULL};
  s = parse(odd, 8, msg, &e, &w);
  CU_ASSERT(w == 1 && strchr(msg, '\n') == msg + strlen(msg) - 1);
  /* a message buffer too small is cut, never overrun */
  char tiny[8];
  hla_settings_parse(&s, fake, (void *)env, 8, tiny, sizeof tiny, &e, &w);
  CU_ASSERT(e == 2 && strlen(tiny) < sizeof tiny);
}

void hla_test_register(void) {
  HT_SUITE("settings", test_defaults, test_good_values, test_warnings, test_errors);
}
