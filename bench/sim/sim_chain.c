/* sim_chain — the LU's U broadcasts alone, for the SimGrid build: the library's pipelined broadcast
 * (HBSP_PIPELINE, as the LU sends U12 down a process column of more than two ranks) of B bytes down
 * the first C process columns of an M x N grid at once, beside what the planner's model says of the
 * same broadcasts (bench/sim/chain_check.sh).
 *
 *   smpirun -np P -platform ... -hostfile ... build-smpi/sim_chain --grid MxN --bytes B
 *     [--cols C] [--root R] [--steps S] [--machine FILE --rpn R [--torus XxYxZ | --leaf L]]
 *
 * Ranks are row-major on the grid (hgrid's placement); column c is ranks c, c + N, ..., and its
 * chain starts at process row R (default 0). Each of S steps (default 4) starts after a barrier, so
 * a step is one broadcast's latency, not a stream of them. Prints, on rank 0, the slowest rank's
 * seconds a step; with --machine, also the model's time of the same family of C column broadcasts
 * (src/dist/plan/model.c: routed on the torus or the ports where the file and --torus or --leaf
 * say so), as the planner prices it (times the probe's calibration of the pipelined broadcast) and
 * uncalibrated; then one JSON line. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist/plan/plan_impl.h"
#include "hla/bsp.h"
#include "sim_args.h"

/* The model's seconds of the family (calibrated and not); -1 where the file cannot be read. */
static void model(const char *path, int M, int N, int C, int root, int rpn, const int *torus,
                  int leaf, double bytes, double *cal, double *raw) {
  hplan_machine m;
  *cal = *raw = -1;
  if (hplan_load(&m, path, NULL, 0, 0) != HLA_OK) return;
  hp_ctx x;
  hp_ctx_make(&x, &m, M * N, (M * N + rpn - 1) / rpn, rpn, 1);
  int dims[HPLAN_TORUS_DIMS] = {torus[0], torus[1], torus[2]};
  hp_ctx_torus(&x, &m, dims, leaf);
  hp_env col = hp_env_family(hp_env_of(&x, 0, N, M), 1, C, 0, 1);
  col.root = root;
  *cal = hp_bcast(&x, col, HBSP_PIPELINE, bytes);
  *raw = *cal / x.kappa[HBSP_PIPELINE];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int grid[2] = {0, 0}, cols = 0, root = 0, steps = 4, rpn = 4, leaf = 0, torus[3] = {0, 0, 0};
  int64_t bytes = 131072;
  char machine[4096] = "", tor[64] = "";
  const sim_arg args[] = {
      {"--grid", SIM_GRID, grid, 0},   {"--bytes", SIM_I64, &bytes, 0},
      {"--cols", SIM_INT, &cols, 0},   {"--root", SIM_INT, &root, 0},
      {"--steps", SIM_INT, &steps, 0}, {"--machine", SIM_STR, machine, sizeof machine},
      {"--rpn", SIM_INT, &rpn, 0},     {"--torus", SIM_STR, tor, sizeof tor},
      {"--leaf", SIM_INT, &leaf, 0}};
  sim_args(argc, argv, args, (int)(sizeof args / sizeof *args));
  int P, me;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int M = grid[0], N = grid[1];
  if (cols <= 0 || cols > N) cols = N;
  if (tor[0]) sscanf(tor, "%dx%dx%d", &torus[0], &torus[1], &torus[2]);
  hbsp_env world, col;
  if (M <= 0 || M * N != P || bytes <= 0 || steps <= 0 || root < 0 || root >= M || rpn <= 0 ||
      hbsp_init(MPI_COMM_WORLD, &world) != HLA_OK ||
      hbsp_split(world, me % N, me / N, &col) != HLA_OK) {
    if (me == 0)
      fprintf(stderr,
              "sim_chain: needs --grid MxN with M N = P = %d, --bytes > 0, --steps > 0, "
              "0 <= --root < M, --rpn > 0\n",
              P);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *buf = SMPI_SHARED_MALLOC((size_t)bytes);
  const hbsp_coll how = {HBSP_PIPELINE, 0, 1};
  double t = 0;
  for (int s = 0; s < steps; s++) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (me % N < cols && hbsp_bcast(col, buf, (size_t)bytes, root, &how) != HLA_OK)
      MPI_Abort(MPI_COMM_WORLD, 3);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t += dt;
  }
  t /= steps;
  if (me == 0) {
    double cal = -1, raw = -1;
    if (machine[0]) model(machine, M, N, cols, root, rpn, torus, leaf, (double)bytes, &cal, &raw);
    printf("P=%d grid=%dx%d bytes=%lld cols=%d root=%d simulated=%.6f", P, M, N, (long long)bytes,
           cols, root, t);
    if (raw >= 0) printf(" model=%.6f uncalibrated=%.6f (%.2f x)", cal, raw, raw / t);
    printf("\n{\"bench\":\"sim_chain\",\"P\":%d,\"grid\":\"%dx%d\",\"bytes\":%lld,\"cols\":%d,"
           "\"root\":%d,\"simulated\":%.6g,\"model\":%.6g,\"uncalibrated\":%.6g}\n",
           P, M, N, (long long)bytes, cols, root, t, cal, raw);
  }
  SMPI_SHARED_FREE(buf);
  hbsp_free(&col);
  hbsp_free(&world);
  MPI_Finalize();
  return 0;
}
