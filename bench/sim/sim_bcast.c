/* sim_bcast — the panel broadcasts of a multiply alone, for the SimGrid build: how far those of
 * successive panels run ahead of one another (bench/sim/bcast_drift.sh).
 *
 *   smpirun -np P -platform ... -hostfile ... build-smpi/sim_bcast --grid MxN --bytes B
 *     --steps S [--lookahead 0|1|2] [--rows 0|1] [--flops F] [--group Q [--spread 1]]
 *
 * On an M x N grid of row-major ranks (SUMMA's placement in hla), step s broadcasts B bytes down
 * every process column from process row s mod M (MPI_Ibcast over the column's communicator, as
 * hla's multiply does); with --rows 1 also B bytes along every process row from process column
 * s mod N (the A panel, which couples the columns). Each step waits for its panels, then charges
 * F flops (--flops F, smpi_execute_flops: the update). Step s + 1's broadcasts are posted: with
 * --lookahead 0 once its own panels are due; 1 once step s's panels have come, before the update;
 * 2 before waiting for step s's panels, as hla's SUMMA does (summa.c: two panels in flight while a
 * rank waits). --group Q broadcasts B down each column only inside groups of Q process rows (Q
 * divides M), all groups at once, from member s mod Q of each: groups of consecutive rows are
 * HSUMMA's inner broadcasts of B; with --spread 1 a group's rows are M / Q apart (HSUMMA's outer
 * broadcasts have that shape, but run in one position of the groups at a time). No library code
 * runs: what differs from the model's step of one panel (src/dist/plan/torus.c) is only how the
 * simulated ranks drift apart. Prints, on rank 0, the slowest rank's time over the S steps and per
 * step, and one JSON line. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_args.h"

/* Step s's broadcasts into buffer s % 2 of each direction. */
static void post(int s, int Q, int N, int rows, int64_t bytes, char *buf, MPI_Comm col,
                 MPI_Comm row, MPI_Request *req) {
  int i = s % 2;
  MPI_Ibcast(buf + i * bytes, (int)bytes, MPI_CHAR, s % Q, col, &req[0]);
  req[1] = MPI_REQUEST_NULL;
  if (rows) MPI_Ibcast(buf + (2 + i) * bytes, (int)bytes, MPI_CHAR, s % N, row, &req[1]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int grid[2] = {0, 0}, steps = 1, look = 0, rows = 0, group = 0, spread = 0;
  int64_t bytes = 1 << 20;
  double flops = 0;
  const sim_arg args[] = {{"--grid", SIM_GRID, grid, 0},   {"--bytes", SIM_I64, &bytes, 0},
                          {"--steps", SIM_INT, &steps, 0}, {"--lookahead", SIM_INT, &look, 0},
                          {"--rows", SIM_INT, &rows, 0},   {"--flops", SIM_DBL, &flops, 0},
                          {"--group", SIM_INT, &group, 0}, {"--spread", SIM_INT, &spread, 0}};
  sim_args(argc, argv, args, (int)(sizeof args / sizeof *args));
  int M = grid[0], N = grid[1];
  if (group <= 0) group = M;
  int P, me;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (M <= 0 || N <= 0 || M * N != P || bytes <= 0 || bytes > ((int64_t)1 << 30) || steps < 1 ||
      look < 0 || look > 2 || M % group != 0) {
    if (me == 0)
      fprintf(stderr,
              "sim_bcast: --grid MxN with M N = %d, --bytes 1..2^30, --steps >= 1, "
              "--group dividing M\n",
              P);
    MPI_Finalize();
    return 2;
  }
  MPI_Comm col, row;
  const int r = me / N, ng = M / group; /* my process row; groups in a column */
  const int gid = spread ? r % ng : r / group, pos = spread ? r / ng : r % group;
  MPI_Comm_split(MPI_COMM_WORLD, (me % N) * ng + gid, pos, &col);
  MPI_Comm_split(MPI_COMM_WORLD, me / N, me % N, &row);
  /* two buffers a direction, as the multiply's look-ahead; their contents do not matter */
  char *buf = SMPI_SHARED_MALLOC(4 * (size_t)bytes);
  MPI_Request req[2][2];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
    if (s == 0 || !look) post(s, group, N, rows, bytes, buf, col, row, req[s % 2]);
    if (look == 2 && s + 1 < steps)
      post(s + 1, group, N, rows, bytes, buf, col, row, req[(s + 1) % 2]);
    MPI_Waitall(2, req[s % 2], MPI_STATUSES_IGNORE); /* the panel step s needs */
    if (look == 1 && s + 1 < steps)
      post(s + 1, group, N, rows, bytes, buf, col, row, req[(s + 1) % 2]);
    if (flops > 0) smpi_execute_flops(flops); /* the update of step s */
  }
  double t = MPI_Wtime() - t0, tmax;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0) {
    printf("P=%d grid=%dx%d group=%d spread=%d bytes=%lld steps=%d lookahead=%d rows=%d flops=%.4g "
           "seconds=%.6f per_step=%.6f\n",
           P, M, N, group, spread, (long long)bytes, steps, look, rows, flops, tmax, tmax / steps);
    printf("{\"bench\":\"sim_bcast\",\"P\":%d,\"grid\":\"%dx%d\",\"group\":%d,\"spread\":%d,"
           "\"bytes\":%lld,\"steps\":%d,\"lookahead\":%d,\"rows\":%d,\"flops\":%.6g,"
           "\"seconds\":%.6g,\"per_step\":%.6g}\n",
           P, M, N, group, spread, (long long)bytes, steps, look, rows, flops, tmax, tmax / steps);
  }
  SMPI_SHARED_FREE(buf);
  MPI_Comm_free(&col);
  MPI_Comm_free(&row);
  MPI_Finalize();
  return 0;
}
