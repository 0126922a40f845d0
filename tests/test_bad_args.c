/* One bad argument on one rank only: every public collective call, for each of its arguments that
 * can be bad, with the bad value on rank 0 and then on the last rank while the others pass good
 * ones. Every rank must return the same code (an error, unless the argument is not read on that
 * rank) and none may hang: each case runs under an alarm that aborts the program with the case's
 * name (a hang shows as this test failing, never as a hung suite). The agreement rule is in
 * docs/ARCHITECTURE.md: a rank with a NULL handle takes part through the grid of another handle
 * it has; a rank with no valid handle at all cannot (the calls with one handle say so).
 * @procs 2 3
 */
#define _GNU_SOURCE /* alarm, sigaction */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"

/* What every case sees: a grid, matrices on it, a pivot vector. */
typedef struct {
  hbsp_env w;
  hgrid g;
  hmat A, B, C, LU, X;
  int64_t *ipiv, *piv_lu; /* piv_lu: LU's pivots (LU = A factored) */
  double *G;              /* a global buffer on every rank (read/written on the root only) */
  int64_t n;
  int P;
} fixture;

/* bad = 1 on the rank that passes the bad argument. Returns the call's code; cleans up what the
 * call made when it succeeded. */
typedef int (*case_fn)(fixture *f, int bad);

static int c_grid_shape(fixture *f, int bad) {
  hgrid g = NULL;
  int rc = hgrid_create(f->w, bad ? -1 : 1, f->P, &g);
  if (g) hgrid_free(&g);
  return rc;
}
static int c_grid_product(fixture *f, int bad) {
  hgrid g = NULL;
  int rc = hgrid_create(f->w, bad ? f->P : 1, bad ? 2 : f->P, &g);
  if (g) hgrid_free(&g);
  return rc;
}
static int c_grid_out(fixture *f, int bad) {
  hgrid g = NULL;
  int rc = hgrid_create(f->w, 1, f->P, bad ? NULL : &g);
  if (g) hgrid_free(&g);
  return rc;
}
static int c_mat_size(fixture *f, int bad) {
  hmat A = NULL;
  int rc = hmat_create(f->g, bad ? 11 : 10, 10, 3, 3, &A);
  hmat_free(&A);
  return rc;
}
static int c_mat_block(fixture *f, int bad) {
  hmat A = NULL;
  int rc = hmat_create(f->g, 10, 10, bad ? -3 : 3, 3, &A);
  hmat_free(&A);
  return rc;
}
static int c_mat_out(fixture *f, int bad) {
  hmat A = NULL;
  int rc = hmat_create(f->g, 10, 10, 3, 3, bad ? NULL : &A);
  hmat_free(&A);
  return rc;
}
static int c_scatter_root(fixture *f, int bad) {
  return hmat_scatter(f->A, bad ? f->P : 0, f->G, f->n);
}
static int c_scatter_buf(fixture *f, int bad) {
  return hmat_scatter(f->A, 0, bad ? NULL : f->G, f->n);
}
static int c_scatter_ld(fixture *f, int bad) {
  return hmat_scatter(f->A, 0, f->G, bad ? f->n - 1 : f->n);
}
static int c_gather_root(fixture *f, int bad) {
  return hmat_gather(f->A, bad ? -1 : 0, f->G, f->n);
}
static int c_gather_buf(fixture *f, int bad) {
  return hmat_gather(f->A, 0, bad ? NULL : f->G, f->n);
}
static int c_gather_ld(fixture *f, int bad) {
  return hmat_gather(f->A, 0, f->G, bad ? 0 : f->n);
}
static int c_redist_src(fixture *f, int bad) {
  return hmat_redistribute(bad ? NULL : f->A, f->C);
}
static int c_redist_dst(fixture *f, int bad) {
  return hmat_redistribute(f->A, bad ? NULL : f->C);
}
static int c_redist_size(fixture *f, int bad) {
  return hmat_redistribute(f->A, bad ? f->B : f->C);
}
static int c_dup_out(fixture *f, int bad) {
  hmat D = NULL;
  int rc = hmat_dup(f->A, bad ? NULL : &D);
  hmat_free(&D);
  return rc;
}
static int c_norm_kind(fixture *f, int bad) {
  double v;
  return hmat_norm(f->A, bad ? 'X' : '1', &v);
}
static int c_norm_out(fixture *f, int bad) {
  double v;
  return hmat_norm(f->A, 'F', bad ? NULL : &v);
}
static int c_mm_trans(fixture *f, int bad) {
  return hmatmul(bad ? 'X' : 'N', 'N', 1.0, f->A, f->A, 0.0, f->C, NULL);
}
static int c_mm_trans0(fixture *f, int bad) {
  return hmatmul('N', bad ? '\0' : 'N', 1.0, f->A, f->A, 0.0, f->C, NULL);
}
static int c_mm_a(fixture *f, int bad) {
  return hmatmul('N', 'N', 1.0, bad ? NULL : f->A, f->A, 0.0, f->C, NULL);
}
static int c_mm_b(fixture *f, int bad) {
  return hmatmul('N', 'N', 1.0, f->A, bad ? NULL : f->A, 0.0, f->C, NULL);
}
static int c_mm_c(fixture *f, int bad) {
  return hmatmul('N', 'N', 1.0, f->A, f->A, 0.0, bad ? NULL : f->C, NULL);
}
static int c_mm_alpha(fixture *f, int bad) {
  return hmatmul('N', 'N', bad ? 2.0 : 1.0, f->A, f->A, 0.0, f->C, NULL);
}
static int c_mm_opts(fixture *f, int bad) {
  hla_opts o = HLA_OPTS_INIT;
  o.mm_alg = bad ? 99 : HLA_MM_SUMMA;
  return hmatmul('N', 'N', 1.0, f->A, f->A, 0.0, f->C, &o);
}
static int c_mm_opts_differ(fixture *f, int bad) {
  hla_opts o = HLA_OPTS_INIT;
  o.mm_alg = bad ? HLA_MM_HSUMMA : HLA_MM_SUMMA;
  return hmatmul('N', 'N', 1.0, f->A, f->A, 0.0, f->C, &o);
}
/* hlu_factor writes A: factor a copy. */
static int factor_copy(fixture *f, int bad, int which) {
  hmat D = NULL;
  int rc = hmat_dup(f->A, &D);
  if (rc != HLA_OK) return rc;
  hla_opts o = HLA_OPTS_INIT;
  if (which == 1 && bad) o.lu_alg = 99;
  if (which == 2) o.lookahead = bad ? -1 : 0;
  rc = hlu_factor(D, which == 0 && bad ? NULL : f->ipiv, &o);
  hmat_free(&D);
  return rc;
}
static int c_lu_ipiv(fixture *f, int bad) {
  return factor_copy(f, bad, 0);
}
static int c_lu_opts(fixture *f, int bad) {
  return factor_copy(f, bad, 1);
}
static int c_lu_opts_differ(fixture *f, int bad) {
  return factor_copy(f, bad, 2);
}
static int c_solve_lu(fixture *f, int bad) {
  return hlu_solve(bad ? NULL : f->LU, f->piv_lu, f->X, NULL);
}
static int c_solve_b(fixture *f, int bad) {
  return hlu_solve(f->LU, f->piv_lu, bad ? NULL : f->X, NULL);
}
static int c_solve_b_is_lu(fixture *f, int bad) {
  return hlu_solve(f->LU, f->piv_lu, bad ? f->LU : f->X, NULL);
}
static int c_solve_ipiv(fixture *f, int bad) {
  return hlu_solve(f->LU, bad ? NULL : f->piv_lu, f->X, NULL);
}
static int c_solve_ipiv_value(fixture *f, int bad) {
  int64_t keep = f->piv_lu[1];
  if (bad) f->piv_lu[1] = 0; /* row 1 swapped with row 0 < 1: not LAPACK's form */
  int rc = hlu_solve(f->LU, f->piv_lu, f->X, NULL);
  f->piv_lu[1] = keep;
  return rc;
}
static int c_solve_opts(fixture *f, int bad) {
  hla_opts o = HLA_OPTS_INIT;
  o.swap = bad ? 7 : 0;
  return hlu_solve(f->LU, f->piv_lu, f->X, &o);
}
/* hla_gesv writes A and B: on copies. */
static int gesv_copy(fixture *f, int bad, int which) {
  hmat D = NULL, Y = NULL;
  int rc = hmat_dup(f->A, &D);
  if (rc == HLA_OK) rc = hmat_dup(f->B, &Y);
  if (rc != HLA_OK) {
    hmat_free(&D);
    return rc;
  }
  hla_opts o = HLA_OPTS_INIT;
  o.panel = which == 3 && bad ? -2 : 0;
  rc = hla_gesv(which == 0 && bad ? NULL : D, which == 2 && bad ? NULL : f->ipiv,
                which == 1 && bad ? NULL : Y, &o);
  hmat_free(&D);
  hmat_free(&Y);
  return rc;
}
static int c_gesv_a(fixture *f, int bad) {
  return gesv_copy(f, bad, 0);
}
static int c_gesv_b(fixture *f, int bad) {
  return gesv_copy(f, bad, 1);
}
static int c_gesv_ipiv(fixture *f, int bad) {
  return gesv_copy(f, bad, 2);
}
static int c_gesv_opts(fixture *f, int bad) {
  return gesv_copy(f, bad, 3);
}
static int c_grid_machine(fixture *f, int bad) {
  const hplan_machine *m;
  return hplan_grid_machine(f->g, bad ? NULL : &m);
}
static int c_split_out(fixture *f, int bad) {
  hbsp_env c = NULL;
  int rc = hbsp_split(f->w, 0, 0, bad ? NULL : &c);
  if (c) hbsp_free(&c);
  return rc;
}
static int c_bcast_root(fixture *f, int bad) {
  double x[4] = {0};
  return hbsp_bcast(f->w, x, sizeof x, bad ? 1 % f->P : 0, NULL);
}
static int c_allreduce_count(fixture *f, int bad) {
  double x[4] = {0}, y[4];
  return hbsp_allreduce(f->w, x, y, bad ? 3 : 4, HBSP_DOUBLE, HBSP_SUM, NULL);
}
static int c_reduce_op(fixture *f, int bad) {
  double x[4] = {0}, y[4];
  return hbsp_reduce(f->w, x, y, 4, HBSP_DOUBLE, bad ? HBSP_MAX : HBSP_SUM, 0, NULL);
}
static int c_gather_bytes(fixture *f, int bad) {
  double x[4] = {0}, *y = calloc((size_t)f->P * 4, sizeof *y);
  int rc = hbsp_gather(f->w, x, y, bad ? 3 * sizeof *x : 4 * sizeof *x, 0, NULL);
  free(y);
  return rc;
}
static int c_allgather_null(fixture *f, int bad) {
  double x[4] = {0}, *y = calloc((size_t)f->P * 4, sizeof *y);
  int rc = hbsp_allgather(f->w, x, bad ? NULL : y, sizeof x, NULL);
  free(y);
  return rc;
}

/* expect: 0 an error everywhere; 1 HLA_OK everywhere; 2 the bad value matters only on rank 0
 * (the root): an error when it is there, else HLA_OK; 3 any code, as long as it is the same. */
typedef struct {
  const char *name;
  case_fn fn;
  int expect;
} bcase;

static const bcase cases[] = {
    {"hgrid_create M", c_grid_shape, 0},
    {"hgrid_create M N != P", c_grid_product, 0},
    {"hgrid_create g", c_grid_out, 0},
    {"hmat_create m", c_mat_size, 0},
    {"hmat_create mb", c_mat_block, 0},
    {"hmat_create A", c_mat_out, 0},
    {"hmat_scatter root", c_scatter_root, 0},
    {"hmat_scatter G", c_scatter_buf, 2},
    {"hmat_scatter ldg", c_scatter_ld, 2},
    {"hmat_gather root", c_gather_root, 0},
    {"hmat_gather G", c_gather_buf, 2},
    {"hmat_gather ldg", c_gather_ld, 2},
    {"hmat_redistribute src", c_redist_src, 0},
    {"hmat_redistribute dst", c_redist_dst, 0},
    {"hmat_redistribute size", c_redist_size, 0},
    {"hmat_dup B", c_dup_out, 0},
    {"hmat_norm norm", c_norm_kind, 0},
    {"hmat_norm value", c_norm_out, 0},
    {"hmatmul transa", c_mm_trans, 0},
    {"hmatmul transb 0", c_mm_trans0, 0},
    {"hmatmul A", c_mm_a, 0},
    {"hmatmul B", c_mm_b, 0},
    {"hmatmul C", c_mm_c, 0},
    {"hmatmul alpha", c_mm_alpha, 0},
    {"hmatmul opts", c_mm_opts, 0},
    {"hmatmul opts differ", c_mm_opts_differ, 0},
    {"hlu_factor ipiv", c_lu_ipiv, 0},
    {"hlu_factor opts", c_lu_opts, 0},
    {"hlu_factor opts differ", c_lu_opts_differ, 0},
    {"hlu_solve LU", c_solve_lu, 0},
    {"hlu_solve B", c_solve_b, 0},
    {"hlu_solve B = LU", c_solve_b_is_lu, 0},
    {"hlu_solve ipiv", c_solve_ipiv, 0},
    {"hlu_solve ipiv value", c_solve_ipiv_value, 0},
    {"hlu_solve opts", c_solve_opts, 0},
    {"hla_gesv A", c_gesv_a, 0},
    {"hla_gesv B", c_gesv_b, 0},
    {"hla_gesv ipiv", c_gesv_ipiv, 0},
    {"hla_gesv opts", c_gesv_opts, 0},
    {"hplan_grid_machine m", c_grid_machine, 0},
    {"hbsp_split child", c_split_out, 0},
    {"hbsp_bcast root", c_bcast_root, 0},
    {"hbsp_allreduce count", c_allreduce_count, 0},
    {"hbsp_reduce op", c_reduce_op, 0},
    {"hbsp_gather bytes", c_gather_bytes, 0},
    {"hbsp_allgather recv", c_allgather_null, 0},
};

static const char *running = "";
static void on_alarm(int sig) {
  (void)sig;
  char msg[160];
  int n =
      snprintf(msg, sizeof msg, "test_bad_args: case '%s' hung on rank %d\n", running, ht_rank());
  if (n > 0) (void)!write(2, msg, (size_t)n);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static double entry(int64_t i, int64_t j, void *ctx) {
  (void)ctx;
  return i == j ? 8.0 : ht_rand_entry(5, i, j);
}

static void fixture_open(fixture *f, int M, int N) {
  memset(f, 0, sizeof *f);
  f->w = ht_world();
  f->P = hbsp_size(f->w);
  f->n = 29;
  CU_ASSERT_EQUAL_FATAL(hgrid_create(f->w, M, N, &f->g), HLA_OK);
  f->A = ht_mat(f->g, f->n, f->n, 5, 5, entry, NULL);
  f->LU = ht_mat(f->g, f->n, f->n, 5, 5, entry, NULL);
  f->B = ht_mat(f->g, f->n, 2, 5, 2, entry, NULL);
  f->X = ht_mat(f->g, f->n, 2, 5, 2, entry, NULL);
  f->C = ht_mat(f->g, f->n, f->n, 4, 6, NULL, NULL);
  f->ipiv = calloc((size_t)f->n, sizeof *f->ipiv);
  f->piv_lu = calloc((size_t)f->n, sizeof *f->piv_lu);
  f->G = calloc((size_t)(f->n * f->n), sizeof *f->G);
  CU_ASSERT_EQUAL_FATAL(hlu_factor(f->LU, f->piv_lu, NULL), HLA_OK);
}

static void fixture_close(fixture *f) {
  hmat *m[] = {&f->A, &f->B, &f->C, &f->LU, &f->X};
  for (size_t i = 0; i < sizeof m / sizeof *m; i++) hmat_free(m[i]);
  CU_ASSERT_EQUAL(hgrid_free(&f->g), HLA_OK);
  free(f->ipiv), free(f->piv_lu), free(f->G);
  hbsp_free(&f->w);
}

/* Every case with the bad value on rank 0, then on the last rank; returns the cases run. */
static int run_all(fixture *f) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, NULL);
  int me = ht_rank(), ran = 0;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int where = 0; where < 2; where++) {
      int badrank = where ? f->P - 1 : 0;
      running = cases[c].name;
      alarm(30);
      int rc = cases[c].fn(f, me == badrank);
      alarm(0);
      int lo = rc, hi = rc;
      MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      int e = cases[c].expect;
      int ok = lo == hi && (e == 3 || (e == 0 && rc != HLA_OK) || (e == 1 && rc == HLA_OK) ||
                            (e == 2 && (rc != HLA_OK) == (badrank == 0)));
      if (!ok && me == 0)
        printf("\n  case '%s', bad on rank %d: codes %d..%d (%s)\n", cases[c].name, badrank, lo, hi,
               hla_strerror(rc));
      CU_ASSERT(ok);
      ran++;
    }
  return ran;
}

static void test_one_bad_rank(void) {
  int P = ht_size(), ran = 0;
  int shapes[2][2] = {{1, P}, {P, 1}};
  for (int s = 0; s < 2; s++) {
    fixture f;
    fixture_open(&f, shapes[s][0], shapes[s][1]);
    ran += run_all(&f);
    fixture_close(&f);
  }
  if (ht_rank() == 0) printf("(%d cases) ", ran);
}

/* hplan_probe with a NULL model on one rank fails on every rank before anything is measured. */
static void test_probe_out(void) {
  hbsp_env w = ht_world();
  hplan_machine m;
  alarm(30);
  running = "hplan_probe m";
  int rc = hplan_probe(w, ht_rank() == ht_size() - 1 ? NULL : &m);
  alarm(0);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == HLA_ERR_ARG));
  hbsp_free(&w);
}

void hla_test_register(void) {
  HT_SUITE("bad_args", test_one_bad_rank, test_probe_out);
}
