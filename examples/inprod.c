/* inprod — the BSP inner product with hla, twice: with puts and with messages.
 *
 * Computes x·x for x_i = 1/i, i = 1..n, i.e. sum 1/i^2 (which tends to pi^2/6, the Basel problem).
 * The vector is distributed cyclically: rank s of P owns x_i for the i with (i-1) mod P = s.
 *
 *   superstep 0  each rank computes its partial sum alpha_s over its own elements;
 *                it puts alpha_s into slot s of the array `partial` on EVERY rank
 *   sync         the puts land
 *   superstep 1  every rank adds partial[0..P) up, in rank order: all ranks get the same bits
 *
 * Putting to every rank instead of gathering on one costs the same h (P-1 words in, P-1 out) and
 * saves the broadcast superstep a gather would need (Bisseling's Algorithm 1.2).
 *
 *   mpiexec -n 4 ./inprod [n]      (n = 100000 by default)
 *
 * Exit status 0 when both sums are within 1e-12 of the reference.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "hla.h"

/* sum 1/i^2 for i = 1..100000 (exact rational sum, rounded to double) */
#define BASEL_100000 1.6449240668982263

/* Every hla call returns an error code. A collective call returns the same code on every rank,
 * so stopping everywhere is safe; MPI_Abort also covers a local error on one rank. */
#define CHECK(env, call)                                                                           \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_ != HLA_OK) {                                                                           \
      fprintf(stderr, "inprod: %s failed: %s (%s)\n", #call, hla_strerror(rc_), hbsp_errmsg(env)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
  if (n < 1) n = 100000;

  hbsp_env env;
  CHECK(NULL, hbsp_init(MPI_COMM_WORLD, &env));
  int P = hbsp_size(env), s = hbsp_rank(env);

  /* The local part of x under the cyclic distribution: local k is global i = k P + s + 1. */
  long nloc = (n - s + P - 1) / P;
  double *x = malloc(sizeof(double) * (size_t)(nloc > 0 ? nloc : 1));
  for (long k = 0; k < nloc; k++) x[k] = 1.0 / (double)(k * P + s + 1);

  /* Registration is collective and takes effect at the next sync, so register first and sync
   * once before anyone puts. The tag size for the messages of the second method also changes at a
   * sync: set it now and the same sync makes it valid. */
  double *partial = calloc((size_t)P, sizeof(double));
  CHECK(env, hbsp_push_reg(env, partial, sizeof(double) * (size_t)P));
  size_t tagsize = sizeof(int);
  CHECK(env, hbsp_set_tagsize(env, &tagsize));
  CHECK(env, hbsp_sync(env));

  /* ---- method 1: hbsp_put into a registered array ---- */
  double t0 = hbsp_time();
  double alpha = 0;
  for (long k = nloc - 1; k >= 0; k--) alpha += x[k] * x[k]; /* small terms first: less round-off */
  for (int t = 0; t < P; t++)
    /* hbsp_put copies alpha now: the variable may change right after the call */
    CHECK(env, hbsp_put(env, t, &alpha, partial, sizeof(double) * (size_t)s, sizeof(double)));
  CHECK(env, hbsp_sync(env));
  double sum_put = 0;
  for (int t = 0; t < P; t++) sum_put += partial[t];
  double t_put = hbsp_time() - t0;

  /* Deregistration also takes effect at the next sync (the one of method 2 below). */
  CHECK(env, hbsp_pop_reg(env, partial));

  /* ---- method 2: hbsp_send with the sender's rank as tag, hbsp_move to read ---- */
  t0 = hbsp_time();
  for (int t = 0; t < P; t++) CHECK(env, hbsp_send(env, t, &s, &alpha, sizeof alpha));
  CHECK(env, hbsp_sync(env));
  /* Messages arrive in no particular order: the tag says where each one goes, so the sum below
   * runs in rank order again and gives the same bits as method 1. */
  double *from = calloc((size_t)P, sizeof(double));
  size_t nmsg;
  CHECK(env, hbsp_qsize(env, &nmsg, NULL));
  for (size_t m = 0; m < nmsg; m++) {
    int tag;
    double value;
    size_t bytes;
    CHECK(env, hbsp_move(env, &tag, &value, sizeof value, &bytes));
    if (tag >= 0 && tag < P && bytes == sizeof value) from[tag] = value;
  }
  double sum_send = 0;
  for (int t = 0; t < P; t++) sum_send += from[t];
  double t_send = hbsp_time() - t0;

  /* The reference: n = 100000 has a known value; otherwise sum serially, small terms first. */
  double ref = 0;
  for (long i = n; i >= 1; i--) ref += 1.0 / ((double)i * (double)i);
  if (n == 100000) ref = BASEL_100000;
  double err_put = fabs(sum_put - ref), err_send = fabs(sum_send - ref);
  int ok = err_put <= 1e-12 && err_send <= 1e-12 && nmsg == (size_t)P;

  if (s == 0) {
    printf("inner product of x_i = 1/i, i = 1..%ld, on %d rank(s), cyclic distribution\n", n, P);
    printf("  expected        %.16f%s\n", ref, n == 100000 ? " (sum 1/i^2, i <= 100000)" : "");
    printf("  hbsp_put        %.16f  difference %.2e  (%.1f us)\n", sum_put, sum_put - ref,
           t_put * 1e6);
    printf("  hbsp_send/move  %.16f  difference %.2e  (%.1f us)\n", sum_send, sum_send - ref,
           t_send * 1e6);
    double pi = acos(-1.0);
    printf("  pi^2/6          %.16f  (the limit as n grows)\n", pi * pi / 6);
    printf("%s\n", ok ? "OK" : "FAILED: off by more than 1e-12");
  }

  free(from);
  free(partial);
  free(x);
  CHECK(env, hbsp_free(&env));
  MPI_Finalize();
  return ok ? 0 : 1;
}
