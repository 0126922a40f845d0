/* Tests of hmatmul on virtual nodes: the automatic choice takes HSUMMA when the grid spans several
 * nodes, and the result equals SUMMA's bit for bit; 3D across nodes.
 * @procs 4 8
 * @env HLA_VIRTUAL_NODES=2
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static double entry(int64_t i, int64_t j, void *ctx) {
  return ht_rand_entry(*(uint64_t *)ctx, i, j);
}

/* C := op(A) op(B) with opts; the gathered C on rank 0 into out (m n doubles). */
static int mult(hgrid g, int64_t m, int64_t n, int64_t k, const hla_opts *o, double *out) {
  hmat A, B, C;
  uint64_t sa = 5, sb = 6;
  hmat_create(g, m, k, 4, 4, &A);
  hmat_create(g, k, n, 4, 4, &B);
  hmat_create(g, m, n, 4, 4, &C);
  hmat_fill(A, entry, &sa);
  hmat_fill(B, entry, &sb);
  int e = hmatmul('N', 'N', 1.0, A, B, 0.0, C, o);
  hmat_gather(C, 0, out, m);
  hmat_free(&A), hmat_free(&B), hmat_free(&C);
  return e;
}

static void test_auto_hsumma(void) {
  hbsp_env w;
  hbsp_init(MPI_COMM_WORLD, &w);
  int P = hbsp_size(w), rank = ht_rank();
  hgrid g;
  hgrid_create(w, 1, P, &g); /* rows of P ranks cross the two nodes */
  const int64_t m = 21, n = 34, k = 40;
  double *ref = rank == 0 ? malloc(m * n * sizeof(double)) : NULL;
  double *got = rank == 0 ? malloc(m * n * sizeof(double)) : NULL;
  hla_opts s = HLA_OPTS_INIT, a = HLA_OPTS_INIT;
  hla_report rep;
  s.mm_alg = HLA_MM_SUMMA;
  a.report = &rep;
  int e1 = mult(g, m, n, k, &s, ref), e2 = mult(g, m, n, k, &a, got);
  CU_ASSERT(ht_all(MPI_COMM_WORLD, e1 == HLA_OK && e2 == HLA_OK));
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rep.mm_alg == HLA_MM_HSUMMA && rep.groups_col > 1));
  int same = rank != 0 || memcmp(ref, got, (size_t)(m * n) * sizeof(double)) == 0;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, same));
  /* The reference by hand on rank 0. */
  if (rank == 0) {
    uint64_t sa = 5, sb = 6;
    double err = 0;
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < m; i++) {
        double c = 0;
        for (int64_t l = 0; l < k; l++) c += entry(i, l, &sa) * entry(l, j, &sb);
        err = fmax(err, fabs(c - got[i + j * m]));
      }
    CU_ASSERT(err <= 16 * 0.25 * (double)k * DBL_EPSILON);
  }
  /* 3D layers across the nodes give the same product (to rounding). */
  hla_opts t = HLA_OPTS_INIT;
  t.mm_alg = HLA_MM_3D, t.replication = 2, t.report = &rep;
  CU_ASSERT(ht_all(MPI_COMM_WORLD, mult(g, m, n, k, &t, got) == HLA_OK && rep.replication == 2));
  if (rank == 0) {
    double err = 0;
    for (int64_t i = 0; i < m * n; i++) err = fmax(err, fabs(ref[i] - got[i]));
    CU_ASSERT(err <= 16 * 0.25 * (double)k * DBL_EPSILON);
  }
  free(ref), free(got);
  hgrid_free(&g);
  hbsp_free(&w);
}

void hla_test_register(void) {
  CU_pSuite s = CU_add_suite("matmul_nodes", NULL, NULL);
  HT_ADD(s, test_auto_hsumma);
}
