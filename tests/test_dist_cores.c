/* The advice on cores that the launcher's binding left idle (grid_build in layout/grid.c). ctest
 * runs this twice at P = 1: bound to one core (test_dist_cores.bind_core.np1), where a node with
 * cores to spare gets one warning on stderr per hbsp_init and a note in every report's why; and
 * unbound (test_dist_cores.bind_none.np1), where there is neither. HLA_TEST_BIND says which run
 * this is; HLA_NUM_THREADS is unset so that the thread policy decides.
 * @procs 1
 * @bind core none
 * @env HLA_NUM_THREADS=
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"

/* ---------------------------------------------------------------- stderr, captured */

static FILE *cap;
static int saved = -1;

static void capture(void) {
  fflush(stderr);
  cap = tmpfile();
  saved = dup(2);
  CU_ASSERT(cap != NULL && saved >= 0);
  if (cap && saved >= 0) dup2(fileno(cap), 2);
}

/* What went to stderr since capture() (at most size - 1 bytes). */
static void captured(char *text, size_t size) {
  fflush(stderr);
  text[0] = 0;
  if (saved >= 0) dup2(saved, 2), close(saved), saved = -1;
  if (cap == NULL) return;
  rewind(cap);
  size_t n = fread(text, 1, size - 1, cap);
  text[n] = 0;
  fclose(cap);
  cap = NULL;
}

/* ---------------------------------------------------------------- what this run expects */

static int own_cores, launcher_cores;

/* Whether hla should advise: the launcher bound this rank to fewer cores than it had itself (the
 * test's own reading of the masks, from the same source as hla's). */
static int expect_advice(void) {
  cpu_set_t own, launcher;
  CPU_ZERO(&own);
  CPU_ZERO(&launcher);
  if (sched_getaffinity(0, sizeof own, &own) != 0 ||
      sched_getaffinity(getppid(), sizeof launcher, &launcher) != 0)
    return 0;
  own_cores = CPU_COUNT(&own), launcher_cores = CPU_COUNT(&launcher);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online > 0 && launcher_cores > online) launcher_cores = (int)online;
  return own_cores < launcher_cores;
}

static int expected; /* set once by the first test */

static void test_setup(void) {
  const char *bind =
      getenv("HLA_TEST_BIND"); /* unset when run by hand: whatever the launcher did */
  expected = expect_advice();
  if (bind && strcmp(bind, "none") == 0) {
    CU_ASSERT_EQUAL(own_cores, launcher_cores); /* unbound: nothing to advise */
    CU_ASSERT_EQUAL(expected, 0);
  } else if (!expected) {
    printf("\n  (the launcher left this rank on all of its %d cores: nothing to advise, checking "
           "that hla is silent)\n",
           own_cores);
  }
}

/* ---------------------------------------------------------------- tests */

static void check_warning(const char *text, int want) {
  if (!want) {
    CU_ASSERT_PTR_NULL(strstr(text, "hla: warning"));
    return;
  }
  char head[96];
  snprintf(head, sizeof head, "hla: warning: %d BLAS thread%s per rank where %d could run",
           own_cores, own_cores == 1 ? "" : "s", launcher_cores);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, head));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "mpirun --bind-to none"));
  char ppr[64];
  snprintf(ppr, sizeof ppr, "--map-by ppr:1:node:pe=%d", launcher_cores);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, ppr));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "HLA_QUIET=1"));
  const char *nl = strchr(text, '\n');
  CU_ASSERT(nl != NULL && nl[1] == 0); /* one line */
}

/* Once per hbsp_init: not again for another grid over the same environment, nor over one split
 * from it; again after a new hbsp_init. */
static void test_warning_once(void) {
  char text[2048];
  hbsp_env w = NULL, sub = NULL;
  hgrid g1 = NULL, g2 = NULL, g3 = NULL;
  capture();
  CU_ASSERT_EQUAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  CU_ASSERT_EQUAL(hgrid_create(w, 0, 0, &g1), HLA_OK);
  captured(text, sizeof text);
  check_warning(text, expected);
  if (expected) {
    CU_ASSERT_EQUAL(hgrid_threads(g1), own_cores); /* the policy kept to the mask */
  }

  capture();
  CU_ASSERT_EQUAL(hgrid_create(w, 1, 1, &g2), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_split(w, 0, 0, &sub), HLA_OK);
  CU_ASSERT_EQUAL(hgrid_create(sub, 1, 1, &g3), HLA_OK);
  captured(text, sizeof text);
  CU_ASSERT_STRING_EQUAL(text, "");
  hgrid_free(&g3), hgrid_free(&g2), hgrid_free(&g1);
  hbsp_free(&sub);
  hbsp_free(&w);

  capture();
  CU_ASSERT_EQUAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  CU_ASSERT_EQUAL(hgrid_create(w, 0, 0, &g1), HLA_OK);
  captured(text, sizeof text);
  check_warning(text, expected);
  hgrid_free(&g1);
  hbsp_free(&w);
}

static double entry(int64_t i, int64_t j, void *ctx) {
  return (i == j ? 10.0 : 0.0) + 1.0 / (double)(1 + i + j);
}

/* The reports of hmatmul and hla_gesv on such a grid end with the note, which fits in why. */
static void check_reports(hbsp_env w) {
  hgrid g = NULL;
  CU_ASSERT_EQUAL(hgrid_create(w, 0, 0, &g), HLA_OK);
  hmat A = ht_mat(g, 40, 40, 8, 8, entry, NULL), B = ht_mat(g, 40, 2, 8, 8, entry, NULL);
  hmat C = ht_mat(g, 40, 2, 8, 8, NULL, NULL);
  char note[128];
  snprintf(note, sizeof note,
           "; %d of %d cores per rank: ranks bound to fewer cores (mpirun "
           "--bind-to none)",
           own_cores, launcher_cores);
  hla_report rep;
  hla_opts opts = HLA_OPTS_INIT;
  opts.report = &rep;
  CU_ASSERT_EQUAL(hmatmul('N', 'N', 1.0, A, B, 0.0, C, &opts), HLA_OK);
  size_t len = strnlen(rep.why, sizeof rep.why), nl = strlen(note);
  CU_ASSERT(len < sizeof rep.why);
  if (expected) {
    CU_ASSERT(len > nl && strcmp(rep.why + len - nl, note) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.why, "one process")); /* its own reason comes first */
  } else {
    CU_ASSERT_PTR_NULL(strstr(rep.why, "cores per rank"));
  }
  int64_t ipiv[40];
  CU_ASSERT_EQUAL(hla_gesv(A, ipiv, C, &opts), HLA_OK);
  len = strnlen(rep.why, sizeof rep.why);
  if (expected) {
    CU_ASSERT(len > nl && strcmp(rep.why + len - nl, note) == 0);
  } else {
    CU_ASSERT_PTR_NULL(strstr(rep.why, "cores per rank"));
  }
  hmat_free(&A), hmat_free(&B), hmat_free(&C);
  hgrid_free(&g);
}

static void test_reports(void) {
  hbsp_env w = ht_world();
  check_reports(w);
  hbsp_free(&w);
}

/* HLA_QUIET=1 silences stderr; the reports keep their note (they were asked for). */
static void test_quiet(void) {
  setenv("HLA_QUIET", "1", 1);
  char text[2048];
  hbsp_env w = NULL;
  capture();
  CU_ASSERT_EQUAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  check_reports(w);
  captured(text, sizeof text);
  CU_ASSERT_PTR_NULL(strstr(text, "hla: warning"));
  hbsp_free(&w);
  unsetenv("HLA_QUIET");
}

void hla_test_register(void) {
  HT_SUITE("dist_cores", test_setup, test_warning_once, test_reports, test_quiet);
}
