/* sim_copies — K transfers at once between ranks of one node, for the SimGrid build: whether the
 * platform's nodes share a memory among their transfers (bench/sim/memory_check.sh).
 *
 *   smpirun -np P -platform ... -hostfile ... build-smpi/sim_copies --pairs K --bytes B --half H
 *
 * Ranks 0 .. K - 1 each send B bytes to rank H more than their own (H at least K, 2 H at most
 * the ranks of a node, which the hostfile fills first), all at once between two barriers. Prints,
 * on rank 0, the time between the barriers and one JSON line. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "sim_args.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int pairs = 1, half = 32, me, P;
  int64_t bytes = 100000000;
  const sim_arg args[] = {{"--pairs", SIM_INT, &pairs, 0},
                          {"--bytes", SIM_I64, &bytes, 0},
                          {"--half", SIM_INT, &half, 0}};
  sim_args(argc, argv, args, (int)(sizeof args / sizeof *args));
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (pairs < 1 || half < pairs || 2 * half > P || bytes < 1 || bytes > 1 << 30) {
    if (me == 0) fprintf(stderr, "sim_copies: need 1 <= K <= H, 2 H <= P, 1 <= B <= 2^30\n");
    MPI_Finalize();
    return 2;
  }
  char *buf = SMPI_SHARED_MALLOC((size_t)bytes); /* the contents do not matter */
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  if (me < pairs)
    MPI_Send(buf, (int)bytes, MPI_CHAR, me + half, 0, MPI_COMM_WORLD);
  else if (me >= half && me < half + pairs)
    MPI_Recv(buf, (int)bytes, MPI_CHAR, me - half, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  t = MPI_Wtime() - t;
  if (me == 0) {
    printf("pairs=%d bytes=%lld seconds=%.6f\n", pairs, (long long)bytes, t);
    printf("{\"bench\":\"sim_copies\",\"pairs\":%d,\"bytes\":%lld,\"seconds\":%.6g}\n", pairs,
           (long long)bytes, t);
  }
  SMPI_SHARED_FREE(buf);
  MPI_Finalize();
  return 0;
}
