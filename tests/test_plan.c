/* Tests of the machine probe, the machine file round trip and the automatic calls that use the
 * planner (hgrid_create(0, 0), hmat_create(.., 0, 0), hmatmul and hla_gesv with opts NULL), with
 * synthetic machine models so that every decision is deterministic (no timing is asserted).
 * @procs 1 2 4
 */
#define _GNU_SOURCE /* setenv, gethostname */
#include <cJSON.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

/* rank 0's path for this run (the same on every rank). */
static void tmp_path(char *buf, size_t size, const char *name) {
  int pid = (int)getpid();
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  snprintf(buf, size, "/tmp/hla_test_plan_%d/%s", pid, name);
}

static void test_probe_and_file(void) {
  hbsp_env w = ht_world();
  int P = hbsp_size(w);
  hplan_machine m, r0;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hplan_probe(w, &m) == HLA_OK));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, m.version == HPLAN_VERSION && m.P == P && m.nodes >= 1 &&
                                       m.threads >= 1 && m.cores_per_node >= 1));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, m.gemm_rate > 0 && m.panel_rate > 0 && m.copy_rate > 0 &&
                                       m.r > 0 && m.nthreads >= 1 && m.gemm_threads[0] > 0));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, m.overlap >= 0 && m.overlap <= 1 && m.seconds > 0));
  if (P > 1) {
    CU_ASSERT(ht_all(MPI_COMM_WORLD, m.link[HPLAN_INTRA].alpha > 0 && m.env_p[HPLAN_WORLD] == P &&
                                         m.l[HPLAN_WORLD] > 0 && m.bcast[HBSP_NATIVE][2] > 0));
  }
  /* a node's ranks share boards here (one real node), not under SimGrid's SMPI (threads) */
  hbsp_env node = NULL;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hbsp_node(w, &node) == HLA_OK));
#ifdef HLA_SMPI
  const int none = hbsp_size(node) > 1;
#else
  const int none = 0;
#endif
  CU_ASSERT(ht_all(MPI_COMM_WORLD, m.no_board == none));
  /* a node's memory and its link alone: measured where every node holds two ranks or more */
  int fewest = hbsp_size(node);
  MPI_Allreduce(MPI_IN_PLACE, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  CU_ASSERT(ht_all(MPI_COMM_WORLD,
                   fewest > 1 ? m.node_bw > 0 && m.intra_alone.alpha > 0 && m.intra_alone.beta > 0
                              : m.node_bw == 0 && m.intra_alone.beta == 0));
  hbsp_free(&node);
  /* the same model on every rank */
  r0 = m;
  MPI_Bcast(&r0, (int)sizeof r0, MPI_BYTE, 0, MPI_COMM_WORLD);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, memcmp(&r0, &m, sizeof m) == 0));

  /* save on rank 0, read back everywhere; a second entry with another P is kept apart */
  char path[256];
  tmp_path(path, sizeof path, "machine.json");
  if (ht_rank() == 0) {
    CU_ASSERT_EQUAL(hplan_save(&m, path), HLA_OK);
    hplan_machine other = m;
    other.P = P + 100, other.gemm_rate = 1;
    other.link[HPLAN_INTRA] = (hplan_link){1e-6, 1e-10}; /* measured with more than one rank */
    CU_ASSERT_EQUAL(hplan_save(&other, path), HLA_OK);
    CU_ASSERT_EQUAL(hplan_save(&m, path), HLA_OK); /* replaces, does not add */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  hplan_machine l;
  memset(&l, 0, sizeof l);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hplan_load(&l, path, m.host, P, m.nodes) == HLA_OK));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, memcmp(&l, &m, sizeof m) == 0));
  CU_ASSERT(ht_all(MPI_COMM_WORLD,
                   hplan_load(&l, path, m.host, P + 100, 0) == HLA_OK && l.gemm_rate == 1));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hplan_load(&l, path, "no-such-host", 0, 0) == HLA_ERR_STATE));
  MPI_Barrier(MPI_COMM_WORLD);
  if (ht_rank() == 0) remove(path);

  /* the planner on the probed model, at a few P */
  hplan_ranking *r = malloc(sizeof *r);
  for (int p = 1; p <= 4; p *= 2) {
    hplan_target t;
    memset(&t, 0, sizeof t);
    t.P = p;
    int e1 = hplan_matmul_rank(&m, 1000, 1000, 1000, &t, r);
    CU_ASSERT(e1 == HLA_OK && r->ncand > 0 && r->cand[0].seconds > 0 && r->cand[0].P == p);
    int e2 = hplan_lu_rank(&m, 1000, &t, r);
    CU_ASSERT(e2 == HLA_OK && r->ncand > 0 && r->cand[0].seconds > 0);
  }
  free(r);
  hbsp_free(&w);
}

/* C := A B with opts on g (blocks from the planner when blk = 0); the error against a serial
 * product on rank 0 (every rank gets it) and the report. */
static double mult_err(hgrid g, int64_t n, int blk, const hla_opts *o, int *code) {
  uint64_t sa = 11, sb = 12;
  hmat A = ht_mat(g, n, n, blk, blk, ht_entry, &sa), B = ht_mat(g, n, n, blk, blk, ht_entry, &sb);
  hmat C = ht_mat(g, n, n, blk, blk, NULL, NULL);
  *code = hmatmul('N', 'N', 1.0, A, B, 0.0, C, o);
  double *got = ht_rank() == 0 ? malloc(sizeof(double) * n * n) : NULL;
  hmat_gather(C, 0, got, n);
  double err = 0;
  if (got) {
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < n; i++) {
        double c = 0;
        for (int64_t l = 0; l < n; l++) c += ht_entry(i, l, &sa) * ht_entry(l, j, &sb);
        err = fmax(err, fabs(c - got[i + j * n]));
      }
    err /= 0.25 * (double)n * DBL_EPSILON;
  }
  MPI_Bcast(&err, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  free(got);
  hmat_free(&A), hmat_free(&B), hmat_free(&C);
  return err;
}

/* An n x n matrix on g with the automatic blocks (hmat_create(.., 0, 0)) gets want x want. */
static void check_auto_blocks(hgrid g, int64_t n, int want) {
  hmat A;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hmat_create(g, n, n, 0, 0, &A) == HLA_OK));
  int mb, nb;
  hmat_blocks(A, &mb, &nb);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, mb == want && nb == want));
  hmat_free(&A);
}

static void test_auto_calls_with_model(void) {
  hbsp_env w = ht_world();
  int P = hbsp_size(w);
  hgrid g;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hgrid_create(w, 0, 0, &g) == HLA_OK)); /* HLA_PLAN=off */
  int M, N;
  hgrid_shape(g, &M, &N, NULL, NULL);
  hplan_machine m;
  hplan_machine_synthetic(&m, P, 1, P, 1e10, (hplan_link){1e-6, 1e-10}, (hplan_link){1e-6, 1e-10});
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hplan_grid_set(g, &m) == HLA_OK));
  const hplan_machine *got = NULL;
  CU_ASSERT(
      ht_all(MPI_COMM_WORLD, hplan_grid_machine(g, &got) == HLA_OK && got != NULL && got->P == P));

  /* hmat_create(0, 0): the planner's LU block for this grid */
  const int64_t n = 150;
  hplan_target t;
  memset(&t, 0, sizeof t);
  t.P = P, t.nodes = 1, t.M = M, t.N = N;
  hplan_ranking *r = malloc(sizeof *r);
  CU_ASSERT_EQUAL(hplan_lu_rank(&m, n, &t, r), HLA_OK);
  int want = r->cand[0].nb;
  check_auto_blocks(g, n, want);

  /* hmatmul with every field automatic: the planner chooses, the result is right */
  hla_report rep;
  hla_opts o = HLA_OPTS_INIT;
  o.report = &rep;
  int code;
  double err = mult_err(g, 97, 16, &o, &code);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, code == HLA_OK && err <= 16));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rep.predicted_seconds > 0));
  if (P > 1) CU_ASSERT(ht_all(MPI_COMM_WORLD, strncmp(rep.why, "planner:", 8) == 0));
  err = mult_err(g, 64, 8, NULL, &code);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, code == HLA_OK && err <= 16));
  /* explicit options: the rules, and still a prediction from the model on the grid */
  hla_opts s = HLA_OPTS_INIT;
  s.mm_alg = HLA_MM_SUMMA, s.report = &rep;
  err = mult_err(g, 64, 8, &s, &code);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, code == HLA_OK && err <= 16 && rep.mm_alg == HLA_MM_SUMMA &&
                                       rep.predicted_seconds > 0));

  /* hla_gesv with every field automatic */
  uint64_t sa = 21, sb = 22;
  hmat A = ht_mat(g, n, n, 0, 0, ht_entry, &sa), B = ht_mat(g, n, 2, want, want, ht_entry, &sb);
  int64_t *ipiv = malloc(sizeof(int64_t) * n);
  hla_opts lo = HLA_OPTS_INIT;
  lo.report = &rep;
  CU_ASSERT(ht_all(MPI_COMM_WORLD,
                   hla_gesv(A, ipiv, B, &lo) ==
                       HLA_OK)); /* (one process runs LAPACK's dgetrf and says so instead) */
  CU_ASSERT(ht_all(MPI_COMM_WORLD,
                   rep.predicted_seconds > 0 && (P == 1 || strstr(rep.why, "planner") != NULL)));
  /* the solution: ||A x - b|| small against the generator */
  double *x = ht_rank() == 0 ? malloc(sizeof(double) * n * 2) : NULL;
  hmat_gather(B, 0, x, n);
  double res = 0;
  if (x) {
    for (int c = 0; c < 2; c++)
      for (int64_t i = 0; i < n; i++) {
        double s2 = -ht_entry(i, c, &sb);
        for (int64_t j = 0; j < n; j++) s2 += ht_entry(i, j, &sa) * x[j + c * n];
        res = fmax(res, fabs(s2));
      }
  }
  MPI_Bcast(&res, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  CU_ASSERT(res < 1e-9);
  free(x), free(ipiv), free(r);
  hmat_free(&A), hmat_free(&B);
  hgrid_free(&g);
  hbsp_free(&w);
}

/* hgrid_create(0, 0) reads the machine file (HLA_PLAN=load) and takes the planner's grid. */
static void test_grid_from_file(void) {
  int P = ht_size();
  char path[256];
  tmp_path(path, sizeof path, "synthetic.json");
  /* a machine whose links are slow, so that the grid shape matters */
  hplan_machine m;
  hplan_machine_synthetic(&m, P, 1, P, 1e10, (hplan_link){2e-4, 1e-9}, (hplan_link){2e-4, 1e-9});
  gethostname(m.host, sizeof m.host - 1);
  MPI_Bcast(m.host, sizeof m.host, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (ht_rank() == 0) CU_ASSERT_EQUAL(hplan_save(&m, path), HLA_OK);
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("HLA_MACHINE_FILE", path, 1); /* read by hbsp_init */
  setenv("HLA_PLAN", "load", 1);
  setenv("HLA_PLAN_N", "2048", 1);
  hbsp_env w = ht_world();
  hgrid g;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hgrid_create(w, 0, 0, &g) == HLA_OK));
  hplan_target t;
  memset(&t, 0, sizeof t);
  t.P = P, t.nodes = 1;
  hplan_ranking *r = malloc(sizeof *r);
  CU_ASSERT_EQUAL(hplan_lu_rank(&m, 2048, &t, r), HLA_OK);
  int M, N;
  hgrid_shape(g, &M, &N, NULL, NULL);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, M == r->cand[0].M && N == r->cand[0].N));
  const hplan_machine *got = NULL;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hplan_grid_machine(g, &got) == HLA_OK && got != NULL &&
                                       got->link[0].alpha == 2e-4));
  hgrid_free(&g);

  /* HLA_PLAN=off: the documented rules (most square grid, blocks of 64) */
  setenv("HLA_PLAN", "off", 1);
  hbsp_free(&w);
  w = ht_world();
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hgrid_create(w, 0, 0, &g) == HLA_OK));
  hgrid_shape(g, &M, &N, NULL, NULL);
  int Ms = 1;
  for (int d = 1; d * d <= P; d++)
    if (P % d == 0) Ms = d;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, M == Ms && N == P / Ms));
  check_auto_blocks(g, 500, HMAT_DEFAULT_BLOCK);
  hla_report rep;
  hla_opts o = HLA_OPTS_INIT;
  o.report = &rep;
  int code;
  double err = mult_err(g, 40, 8, &o, &code);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, code == HLA_OK && err <= 16 && rep.predicted_seconds == 0));
  hgrid_free(&g);
  unsetenv("HLA_MACHINE_FILE");
  unsetenv("HLA_PLAN_N");
  MPI_Barrier(MPI_COMM_WORLD);
  if (ht_rank() == 0) remove(path);
  free(r);
  hbsp_free(&w);
}

/* Rank 0's stderr into path until stderr_back (other ranks: nothing). */
static int stderr_to(const char *path) {
  if (ht_rank() != 0) return -1;
  fflush(stderr);
  int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 2);
  close(fd);
  return saved;
}

static void stderr_back(int saved) {
  if (saved < 0) return;
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
}

/* Lines of the file at path that hold both a and b (rank 0's count, on every rank). */
static int lines_with(const char *path, const char *a, const char *b) {
  int n = 0;
  if (ht_rank() == 0) {
    FILE *f = fopen(path, "r");
    char line[2048];
    while (f && fgets(line, sizeof line, f))
      if (strstr(line, a) && strstr(line, b)) n++;
    if (f) fclose(f);
  }
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return n;
}

/* The grid's model, copied (zeros: none). */
static hplan_machine grid_model(hgrid g, int *have) {
  hplan_machine m;
  memset(&m, 0, sizeof m);
  const hplan_machine *p = NULL;
  *have = hplan_grid_machine(g, &p) == HLA_OK && p != NULL;
  if (*have) m = *p;
  return m;
}

/* A machine file that cannot be written (here: the path is a directory) costs one probe per
 * process, not one per grid: the probed model is kept, rank 0 says so once, and the next
 * hgrid_create(0, 0) gets the very same model (a second probe would measure other times) at
 * once; HLA_PLAN=load, which finds no file, uses it too. */
static void test_unwritable_file_probes_once(void) {
  if (ht_size() > 2) return; /* the probe of 4 oversubscribed ranks takes long; 2 show it */
  char dir[256], log[256];
  tmp_path(dir, sizeof dir, "not_a_file");
  tmp_path(log, sizeof log, "stderr.txt");
  if (ht_rank() == 0) {
    char parent[256];
    snprintf(parent, sizeof parent, "%s", dir);
    *strrchr(parent, '/') = '\0';
    mkdir(parent, 0755);
    mkdir(dir, 0755);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("HLA_MACHINE_FILE", dir, 1); /* read by hbsp_init */
  setenv("HLA_PLAN", "auto", 1);
  hbsp_env w = ht_world();
  setenv("HLA_PLAN", "load", 1);
  hbsp_env wl = ht_world();
  int saved = stderr_to(log);
  hgrid g1, g2, g3;
  double t0 = MPI_Wtime();
  int ok1 = hgrid_create(w, 0, 0, &g1) == HLA_OK;
  double t1 = MPI_Wtime();
  int ok2 = hgrid_create(w, 0, 0, &g2) == HLA_OK;
  double t2 = MPI_Wtime();
  int ok3 = hgrid_create(wl, 0, 0, &g3) == HLA_OK;
  stderr_back(saved);
  CU_ASSERT_FATAL(ht_all(MPI_COMM_WORLD, ok1 && ok2 && ok3));
  int h1, h2, h3;
  hplan_machine m1 = grid_model(g1, &h1), m2 = grid_model(g2, &h2), m3 = grid_model(g3, &h3);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, h1 && h2 && h3 && m1.seconds > 0));
  CU_ASSERT(
      ht_all(MPI_COMM_WORLD, memcmp(&m1, &m2, sizeof m1) == 0 && memcmp(&m1, &m3, sizeof m1) == 0));
  /* the probe takes a second or more; a grid from the kept model, milliseconds */
  CU_ASSERT(ht_all(MPI_COMM_WORLD, t2 - t1 < 0.25 * (t1 - t0)));
  CU_ASSERT_EQUAL(lines_with(log, dir, "not written"), 1);
  CU_ASSERT_EQUAL(lines_with(log, "hla:", ""), 1);
  if (ht_rank() == 0) printf("\n  probe %.2f s, then %.4f s ", t1 - t0, t2 - t1);
  hgrid_free(&g1), hgrid_free(&g2), hgrid_free(&g3);
  setenv("HLA_PLAN", "off", 1);
  unsetenv("HLA_MACHINE_FILE");
  MPI_Barrier(MPI_COMM_WORLD);
  if (ht_rank() == 0) rmdir(dir), remove(log);
  hbsp_free(&wl);
  hbsp_free(&w);
}

/* HLA_PLAN=load and this machine's entry with a value out of range: the entry is not used (the
 * rules apply) and rank 0 reports it once, naming the file and the field. */
static void test_bad_entry_reported_once(void) {
  int P = ht_size();
  char path[256], log[256];
  tmp_path(path, sizeof path, "bad_entry.json");
  tmp_path(log, sizeof log, "stderr2.txt");
  if (ht_rank() == 0) {
    hplan_machine m;
    hplan_machine_synthetic(&m, P, 1, P, 1e10, (hplan_link){1e-6, 1e-10},
                            (hplan_link){1e-6, 1e-10});
    memset(m.host, 0, sizeof m.host);
    gethostname(m.host, sizeof m.host - 1);
    remove(path);
    CU_ASSERT_EQUAL(hplan_save(&m, path), HLA_OK);
    /* the value no writer of hla would write */
    FILE *f = fopen(path, "r");
    char text[65536];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    cJSON *root = cJSON_Parse(text);
    cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "machines"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(e, "overlap", cJSON_CreateNumber(7));
    char *bad = cJSON_Print(root);
    f = fopen(path, "w");
    CU_ASSERT(f != NULL && bad != NULL);
    if (f && bad) fputs(bad, f), fclose(f);
    free(bad);
    cJSON_Delete(root);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("HLA_MACHINE_FILE", path, 1); /* read by hbsp_init */
  setenv("HLA_PLAN", "load", 1);
  hbsp_env w = ht_world();
  int saved = stderr_to(log);
  hgrid g1, g2;
  int ok = hgrid_create(w, 0, 0, &g1) == HLA_OK && hgrid_create(w, 0, 0, &g2) == HLA_OK;
  int h1, h2;
  if (ok) grid_model(g1, &h1), grid_model(g2, &h2); /* each asks again: still once */
  stderr_back(saved);
  CU_ASSERT_FATAL(ht_all(MPI_COMM_WORLD, ok));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, !h1 && !h2));
  CU_ASSERT_EQUAL(lines_with(log, path, "overlap"), 1);
  CU_ASSERT_EQUAL(lines_with(log, "hla:", ""), 1);
  hgrid_free(&g1), hgrid_free(&g2);
  setenv("HLA_PLAN", "off", 1);
  unsetenv("HLA_MACHINE_FILE");
  MPI_Barrier(MPI_COMM_WORLD);
  if (ht_rank() == 0) remove(path), remove(log);
  hbsp_free(&w);
}

/* hplan_grid_set refuses a model that fails hplan_check, on every rank. */
static void test_grid_set_checks(void) {
  hbsp_env w = ht_world();
  int P = hbsp_size(w);
  hgrid g;
  CU_ASSERT_FATAL(ht_all(MPI_COMM_WORLD, hgrid_create(w, 0, 0, &g) == HLA_OK));
  hplan_machine m;
  hplan_machine_synthetic(&m, P, 1, P, 1e10, (hplan_link){1e-6, 1e-10}, (hplan_link){1e-6, 1e-10});
  m.gemm_rate = NAN;
  hbsp_env all = NULL;
  hgrid_env(g, HGRID_ALL, &all);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hplan_grid_set(g, &m) == HLA_ERR_ARG &&
                                       strstr(hbsp_errmsg(all), "gemm_rate") != NULL));
  const hplan_machine *got = NULL;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, hplan_grid_machine(g, &got) == HLA_OK && got == NULL));
  hgrid_free(&g);
  hbsp_free(&w);
}

void hla_test_register(void) {
  HT_SUITE("plan", test_probe_and_file, test_auto_calls_with_model, test_grid_from_file,
           test_unwritable_file_probes_once, test_bad_entry_reported_once, test_grid_set_checks);
}
