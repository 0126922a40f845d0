/* hla — libhla_scalapack: HLA_SCALAPACK_REPORT, what was intercepted and how it ran.
 *
 * Every process counts its calls per routine and per kind (in place, on copies on the caller's grid
 * or on its transpose, trivial, illegal argument) in an attribute of MPI_COMM_SELF, made on the
 * first call. MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: the
 * delete callback prints the counts on MPI_COMM_WORLD's rank 0 when the report is on, and frees
 * them. Rank 0 takes part in every call of a program whose grids all include it (the usual case,
 * and ScaLAPACK's testers); its counts are then every call's.
 */
#include <stdio.h>
#include <stdlib.h>
#include "scalapack/scalapack_impl.h"

typedef struct {
  long long n[SL_NROUTINES][SL_NKINDS];
  int report;
} sl_counts;

/* The attribute's key. MPI forces it to live in a static: a keyval is process-wide state that
 * MPI hands out once and the delete callback at MPI_Finalize cannot find otherwise. */
static int counts_key = MPI_KEYVAL_INVALID;

static const char *const names[SL_NROUTINES] = {"PDGEMM", "PDGESV", "PDGETRF", "PDGETRS"};

static int counts_delete(MPI_Comm comm, int key, void *val, void *extra) {
  (void)comm, (void)key, (void)extra;
  sl_counts *c = val;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (c->report && rank == 0) {
    fprintf(stderr, "hla_scalapack report (MPI rank 0): routine, calls, in place, on copies (of "
                    "them on the grid's transpose), trivial, illegal arguments\n");
    for (int r = 0; r < SL_NROUTINES; r++) {
      const long long *k = c->n[r];
      long long calls = 0;
      for (int i = 0; i < SL_NKINDS; i++) calls += k[i];
      fprintf(stderr,
              "hla_scalapack %-8s calls %lld in_place %lld copied %lld transposed %lld trivial "
              "%lld illegal %lld\n",
              names[r], calls, k[SL_IN_PLACE], k[SL_COPIED] + k[SL_TRANSPOSED], k[SL_TRANSPOSED],
              k[SL_TRIVIAL], k[SL_ILLEGAL]);
    }
    fflush(stderr);
  }
  free(c);
  return MPI_SUCCESS;
}

/* The counters, made on first use (NULL if MPI cannot keep them: then nothing is counted). */
static sl_counts *counts(void) {
  if (counts_key == MPI_KEYVAL_INVALID &&
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, counts_delete, &counts_key, NULL) !=
          MPI_SUCCESS)
    return NULL;
  void *val;
  int found = 0;
  if (MPI_Comm_get_attr(MPI_COMM_SELF, counts_key, &val, &found) != MPI_SUCCESS) return NULL;
  if (found) return val;
  sl_counts *c = calloc(1, sizeof *c);
  if (c != NULL && MPI_Comm_set_attr(MPI_COMM_SELF, counts_key, c) != MPI_SUCCESS) {
    free(c);
    c = NULL;
  }
  return c;
}

void sl_count(int routine, int kind) {
  sl_counts *c = counts();
  if (c != NULL) c->n[routine][kind]++;
}

void sl_report_enable(int on) {
  sl_counts *c = counts();
  if (c != NULL) c->report = on;
}
