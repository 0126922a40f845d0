/* hla test harness: see harness.h. */
#include "harness.h"
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ht_rank(void) {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int ht_size(void) {
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

int ht_all(MPI_Comm comm, int cond) {
  int c = cond ? 1 : 0, all = 0;
  MPI_Allreduce(&c, &all, 1, MPI_INT, MPI_MIN, comm);
  return all;
}

int ht_same_text(const char *s) {
  uint64_t h = 1469598103934665603ull, lo, hi; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

hbsp_env ht_world(void) {
  hbsp_env w = NULL;
  CU_ASSERT_EQUAL_FATAL(hbsp_init(MPI_COMM_WORLD, &w), HLA_OK);
  return w;
}

/* ---------------------------------------------------------------- matrices */

double ht_entry(int64_t i, int64_t j, void *seed) {
  return ht_rand_entry(*(uint64_t *)seed, i, j);
}

hmat ht_mat(hgrid g, int64_t m, int64_t n, int mb, int nb, ht_entry_fn f, void *ctx) {
  hmat A = NULL;
  CU_ASSERT_EQUAL(hmat_create(g, m, n, mb, nb, &A), HLA_OK);
  if (A != NULL && f != NULL) hmat_fill(A, f, ctx);
  return A;
}

double *ht_gather(hmat A) {
  int64_t m, n;
  hmat_size(A, &m, &n);
  double *G = calloc((size_t)(m * n > 0 ? m * n : 1), sizeof(double));
  CU_ASSERT_EQUAL(hmat_gather(A, 0, G, m > 1 ? m : 1), HLA_OK);
  return G;
}

int ht_local_is(hmat A, ht_entry_fn f, void *ctx) {
  double *a;
  int64_t lld, ml, nl;
  hmat_local(A, &a, &lld, &ml, &nl);
  int ok = 1;
  for (int64_t j = 0; j < nl; j++)
    for (int64_t i = 0; i < ml; i++)
      ok &= a[i + j * lld] == f(hmat_l2g_row(A, i), hmat_l2g_col(A, j), ctx);
  return ok;
}

int64_t ht_ndiff(const double *a, const double *b, int64_t n) {
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) bad += a[i] != b[i];
  return bad;
}

/* ---------------------------------------------------------------- grids */

int tgrid_open(hbsp_env world, int M, int N, tgrid *t) {
  memset(t, 0, sizeof *t);
  t->world = world, t->M = M, t->N = N;
  int r = hbsp_rank(world);
  int rc = hbsp_split(world, r < M * N ? 0 : HBSP_UNDEFINED, r, &t->sub);
  if (rc != HLA_OK) return rc;
  t->member = t->sub != NULL;
  if (t->member) {
    rc = hgrid_create(t->sub, M, N, &t->g);
    t->rank = hbsp_rank(t->sub);
  }
  return rc;
}

/* A grid over all of world (0 x 0: the automatic shape), which the tgrid does not own. */
static int open_all(hbsp_env world, int M, int N, tgrid *t) {
  memset(t, 0, sizeof *t);
  t->world = world, t->M = M, t->N = N, t->member = 1, t->rank = hbsp_rank(world);
  int rc = hgrid_create(world, M, N, &t->g);
  if (rc == HLA_OK) hgrid_shape(t->g, &t->M, &t->N, NULL, NULL);
  return rc;
}

tgrid tgrid_world(int M, int N) {
  tgrid t;
  CU_ASSERT_EQUAL(open_all(ht_world(), M, N, &t), HLA_OK);
  t.own_world = 1;
  return t;
}

void tgrid_close(tgrid *t) {
  if (t->g) CU_ASSERT_EQUAL(hgrid_free(&t->g), HLA_OK);
  if (t->sub) CU_ASSERT_EQUAL(hbsp_free(&t->sub), HLA_OK);
  if (t->own_world) CU_ASSERT_EQUAL(hbsp_free(&t->world), HLA_OK);
}

int tgrid_shapes(int P, int shapes[][2]) {
  int cand[][2] = {{1, 1}, {1, P}, {P, 1}, {2, 3}, {3, 2}, {2, 2}, {2, 1}, {1, 2}};
  int k = 0;
  for (size_t c = 0; c < sizeof cand / sizeof cand[0]; c++) {
    int M = cand[c][0], N = cand[c][1], dup = 0;
    if (M * N > P) continue;
    for (int q = 0; q < k; q++) dup |= shapes[q][0] == M && shapes[q][1] == N;
    if (dup) continue;
    shapes[k][0] = M, shapes[k][1] = N, k++;
  }
  return k;
}

int tgrid_factors(int P, int shapes[][2]) {
  int k = 0;
  for (int M = 1; M <= P && k < TGRID_MAXSHAPES; M++)
    if (P % M == 0) shapes[k][0] = M, shapes[k][1] = P / M, k++;
  return k;
}

/* For each shape of list(P): open the grid on one world environment, fn on its members, close. */
static void each(int (*list)(int, int[][2]), int (*open)(hbsp_env, int, int, tgrid *), tgrid_fn fn,
                 void *ctx) {
  hbsp_env w = ht_world();
  int shapes[TGRID_MAXSHAPES][2], ns = list(hbsp_size(w), shapes);
  for (int s = 0; s < ns; s++) {
    tgrid t;
    CU_ASSERT_EQUAL(open(w, shapes[s][0], shapes[s][1], &t), HLA_OK);
    t.shape = s, t.nshapes = ns;
    if (t.member) fn(&t, ctx);
    tgrid_close(&t);
  }
  hbsp_free(&w);
}

void tgrid_each(tgrid_fn fn, void *ctx) {
  each(tgrid_shapes, tgrid_open, fn, ctx);
}

void tgrid_each_world(tgrid_fn fn, void *ctx) {
  each(tgrid_factors, open_all, fn, ctx);
}

/* Format this rank's failure records into one string. */
static char *failure_text(int rank) {
  size_t cap = 1024, n = 0;
  char *s = malloc(cap);
  s[0] = 0;
  for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext) {
    char line[1024];
    int k = snprintf(line, sizeof line, "  rank %d: %s: %s:%u: %s\n", rank,
                     f->pTest ? f->pTest->pName : "?", f->strFileName ? f->strFileName : "?",
                     f->uiLineNumber, f->strCondition ? f->strCondition : "?");
    if (k < 0) continue;
    if (n + (size_t)k + 1 > cap) {
      while (n + (size_t)k + 1 > cap) cap *= 2;
      s = realloc(s, cap);
    }
    memcpy(s + n, line, (size_t)k + 1);
    n += (size_t)k;
  }
  return s;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = ht_rank(), size = ht_size();
  if (CU_initialize_registry() != CUE_SUCCESS) {
    fprintf(stderr, "CUnit: cannot initialise the registry\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  hla_test_register();
  CU_basic_set_mode(rank == 0 ? CU_BRM_VERBOSE : CU_BRM_SILENT);
  if (rank == 0) printf("hla tests at P = %d\n", size);
  fflush(stdout);
  CU_basic_run_tests();

  /* Collect the failures of every rank on rank 0. */
  unsigned nfail = CU_get_number_of_failures(), nasserts = CU_get_number_of_asserts();
  unsigned tot_fail = 0, tot_asserts = 0;
  MPI_Reduce(&nfail, &tot_fail, 1, MPI_UNSIGNED, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&nasserts, &tot_asserts, 1, MPI_UNSIGNED, MPI_SUM, 0, MPI_COMM_WORLD);
  char *mine = failure_text(rank);
  int len = (int)strlen(mine);
  int *lens = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
  int *displs = rank == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
  MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char *all = NULL;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; r++) displs[r] = total, total += lens[r];
    all = calloc((size_t)total + 1, 1);
  }
  MPI_Gatherv(mine, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
  unsigned my_failed_tests = CU_get_run_summary()->nTestsFailed, failed_tests = 0;
  MPI_Reduce(&my_failed_tests, &failed_tests, 1, MPI_UNSIGNED, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (tot_fail) printf("\nFailures on all ranks:\n%s", all);
    printf("\nhla: P = %d: %u asserts on all ranks, %u failed\n", size, tot_asserts, tot_fail);
    fflush(stdout);
  }
  free(mine);
  free(all);
  free(lens);
  free(displs);
  int code = 0;
  if (rank == 0) code = tot_fail ? 1 : 0;
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CU_cleanup_registry();
  MPI_Finalize();
  return code;
}
