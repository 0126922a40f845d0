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

/* C := op(A) op(B) with opts; the gathered C on rank 0 into out (m n doubles). */
static int mult(hgrid g, int64_t m, int64_t n, int64_t k, const hla_opts *o, double *out) {
  uint64_t sa = 5, sb = 6;
  hmat A = ht_mat(g, m, k, 4, 4, ht_entry, &sa), B = ht_mat(g, k, n, 4, 4, ht_entry, &sb);
  hmat C = ht_mat(g, m, n, 4, 4, NULL, NULL);
  int e = hmatmul('N', 'N', 1.0, A, B, 0.0, C, o);
  hmat_gather(C, 0, out, m);
  hmat_free(&A), hmat_free(&B), hmat_free(&C);
  return e;
}

static void test_auto_hsumma(void) {
  int P = ht_size(), rank = ht_rank();
  tgrid row = tgrid_world(1, P); /* rows of P ranks cross the two nodes */
  hgrid g = row.g;
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
        for (int64_t l = 0; l < k; l++) c += ht_entry(i, l, &sa) * ht_entry(l, j, &sb);
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
  tgrid_close(&row);
}

void hla_test_register(void) {
  HT_SUITE("matmul_nodes", test_auto_hsumma);
}
