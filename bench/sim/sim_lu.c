/* sim_lu — flat against hierarchical LU (hlu_factor) for the SimGrid build in model mode
 * (HLA_SIM=model: the kernels charge their flops at the platform's speed, the pivot search picks a
 * pseudo-random row below the diagonal so that the rows still travel; src/kernels/sim.c). One run
 * is one simulated machine:
 *
 *   HLA_SIM=model smpirun -np P -platform PLATFORM.xml -hostfile PLATFORM.hosts \
 *     build-smpi/sim_lu --n 32768 --nb 128 --cases flat,hier,4x8 [--grid MxN] [--speed 3.4e9]
 *       [--bcast auto|native|flat|binomial|pipeline|scatter_allgather] [--swap rows|spread]
 *       [--order R|C]
 *
 * on an M x N grid (default: the most square with M <= N), P A = L U with an n x n matrix in
 * nb x nb blocks, the ranks row-major on the grid (hgrid_create_order's 'C': column-major). A case
 * is `flat` (HLA_LU_FLAT), `hier` (HLA_LU_HIER with the library's own groups: the nodes) or `IxJ`
 * (HLA_LU_HIER with I x J groups). Per case one line and one JSON line on rank 0: the simulated
 * time (the slowest rank's), the rate (2/3 n^3 / time), the compute part 2 n^3 / (3 P speed) and
 * the rest, the phases of the slowest rank, and what ran (the report). The simulator's own cost is
 * measured outside (bench/sim/lu_flat_hier.sh). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hla.h"
#include "sim_args.h"
#include <smpi/smpi.h>

/* Whether SimGrid copies the private part of a partly shared buffer (SMPI_PARTIAL_SHARED_MALLOC)
 * that a message starts inside of. The LU's L panels keep their header (the pivots) private in
 * model mode; the scatter-allgather broadcast cuts short panels, mostly header, into pieces that
 * start inside it, which stock SimGrid 3.32 does not copy (bench/sim/simgrid/3.32-shared.patch):
 * the ranks' pivots then differ and the run ends in MPI_ERR_TRUNCATE or a deadlock. Collective. */
static int shared_copy_ok(int me, int P) {
  if (P < 2) return 1;
  size_t shared[2] = {4096, 8192};
  unsigned char *b = SMPI_PARTIAL_SHARED_MALLOC(8192, shared, 1);
  memset(b, me == 0 ? 0x5a : 0, 4096);
  if (me == 0) MPI_Send(b + 8, 256, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
  if (me == 1) MPI_Recv(b + 8, 256, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int ok = me != 1 || (b[8] == 0x5a && b[263] == 0x5a), all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  SMPI_SHARED_FREE(b);
  return all;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t n = 8192;
  int nb = 128, grid[2] = {0, 0};
  double speed = 3.4e9;
  char cases[256] = "flat,hier", bcast[32] = "auto", swap[16] = "auto", order[4] = "R";
  const sim_arg args[] = {{"--n", SIM_I64, &n, 0},
                          {"--nb", SIM_INT, &nb, 0},
                          {"--speed", SIM_DBL, &speed, 0},
                          {"--grid", SIM_GRID, grid, 0},
                          {"--cases", SIM_STR, cases, sizeof cases},
                          {"--bcast", SIM_STR, bcast, sizeof bcast},
                          {"--swap", SIM_STR, swap, sizeof swap},
                          {"--order", SIM_STR, order, sizeof order}};
  sim_args(argc, argv, args, (int)(sizeof args / sizeof *args));
  int M = grid[0], N = grid[1];
  static const char *const algs[] = {"auto",     "native",   "flat",
                                     "binomial", "pipeline", "scatter_allgather"};
  int ibc = 0;
  while (ibc < 6 && strcmp(bcast, algs[ibc])) ibc++;
  int P, me;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (M <= 0 || N <= 0) {
    for (M = 1; (M + 1) * (M + 1) <= P; M++) continue;
    while (P % M) M--;
    N = P / M;
  }
  hbsp_env world;
  hgrid g;
  hmat A;
  if (ibc == 6) {
    if (me == 0)
      fprintf(stderr, "sim_lu: --bcast %s is not one of auto, native, flat, ...\n", bcast);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *mode = getenv("HLA_SIM");
  if (ibc == 5 && mode != NULL && !strcmp(mode, "model") && !shared_copy_ok(me, P)) {
    if (me == 0)
      fprintf(stderr, "sim_lu: --bcast scatter_allgather in model mode needs a SimGrid that copies "
                      "partly shared buffers whole (bench/sim/build_simgrid.sh)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (M * N != P || hbsp_init(MPI_COMM_WORLD, &world) != HLA_OK ||
      hgrid_create_order(world, M, N, order[0], &g) != HLA_OK ||
      hmat_create(g, n, n, nb, nb, &A) != HLA_OK) {
    if (me == 0)
      fprintf(stderr, "sim_lu: grid %d x %d (order %s) is not P = %d; or the setup failed\n", M, N,
              order, P);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int64_t *ipiv = malloc((size_t)n * sizeof *ipiv);
  if (ipiv == NULL) MPI_Abort(MPI_COMM_WORLD, 2);
  const double flops = 2.0 / 3.0 * (double)n * (double)n * (double)n;
  const double compute = flops / ((double)P * speed);
  char *save = NULL; /* strtok_r: SMPI's ranks are threads of one process */
  for (char *tok = strtok_r(cases, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    hla_opts o = HLA_OPTS_INIT;
    hla_report rep;
    memset(&rep, 0, sizeof rep);
    o.report = &rep;
    o.bcast.alg = (hbsp_alg)(HBSP_AUTO + ibc);
    o.swap = !strcmp(swap, "spread") ? HLA_SWAP_SPREAD
             : !strcmp(swap, "rows") ? HLA_SWAP_ROWS
                                     : HLA_SWAP_AUTO;
    int I = 0, J = 0;
    if (!strcmp(tok, "flat"))
      o.lu_alg = HLA_LU_FLAT;
    else if (!strcmp(tok, "hier"))
      o.lu_alg = HLA_LU_HIER;
    else if (sscanf(tok, "%dx%d", &I, &J) == 2)
      o.lu_alg = HLA_LU_HIER, o.groups_row = I, o.groups_col = J;
    else {
      if (me == 0) printf("sim_lu: case %s is not flat, hier or IxJ\n", tok);
      continue;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    const int e = hlu_factor(A, ipiv, &o);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    /* the phases of the slowest rank: each rank's own, the maximum over ranks per phase */
    double ph[5] = {rep.t_panel, rep.t_lwait, rep.t_swap, rep.t_u, rep.t_update}, phmax[5];
    MPI_Reduce(ph, phmax, 5, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    /* Every rank must hold the same pivots (the model's are pseudo-random, kernels/sim.c): their
     * hash's maximum and minimum over ranks agree. */
    unsigned long long h[2] = {1469598103934665603ull, 0}, hmax[2];
    for (int64_t i = 0; i < n && e == HLA_OK; i++)
      h[0] = (h[0] ^ (uint64_t)ipiv[i]) * 1099511628211ull;
    h[1] = ~h[0];
    MPI_Reduce(h, hmax, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me != 0) continue;
    if (e != HLA_OK) {
      printf("%s: error %d (%s)\n", tok, e, hgrid_errmsg(g));
      continue;
    }
    if (hmax[0] != ~hmax[1]) {
      printf("%s: the ranks' pivots differ\n", tok);
      continue;
    }
    const char *alg = rep.lu_alg == HLA_LU_HIER ? "hier" : "flat";
    printf("P=%d n=%lld nb=%d grid=%dx%d%s case=%s alg=%s groups=%dx%d lookahead=%d bcast=%s "
           "seconds=%.4f gflops=%.1f compute=%.4f comm=%.4f\n",
           P, (long long)n, nb, M, N, order[0] == 'C' ? " order=C" : "", tok, alg, rep.groups_row,
           rep.groups_col, rep.lookahead, bcast, tmax, flops / tmax * 1e-9, compute,
           tmax - compute);
    printf("  phases (s, max over ranks): panel %.3f L %.3f swaps %.3f U %.3f update %.3f\n",
           phmax[0], phmax[1], phmax[2], phmax[3], phmax[4]);
    printf(
        "{\"bench\":\"sim_lu\",\"P\":%d,\"n\":%lld,\"nb\":%d,\"grid\":\"%dx%d\",\"order\":\"%c\","
        "\"case\":\"%s\","
        "\"alg\":\"%s\",\"groups\":\"%dx%d\",\"lookahead\":%d,\"bcast\":\"%s\",\"seconds\":%.6g,"
        "\"gflops\":%.6g,"
        "\"compute\":%.6g,\"comm\":%.6g,\"t_panel\":%.4g,\"t_lwait\":%.4g,\"t_swap\":%.4g,"
        "\"t_u\":%.4g,\"t_update\":%.4g}\n",
        P, (long long)n, nb, M, N, order[0], tok, alg, rep.groups_row, rep.groups_col,
        rep.lookahead, bcast, tmax, flops / tmax * 1e-9, compute, tmax - compute, phmax[0],
        phmax[1], phmax[2], phmax[3], phmax[4]);
    fflush(stdout);
  }
  free(ipiv);
  hmat_free(&A);
  hgrid_free(&g);
  hbsp_free(&world);
  MPI_Finalize();
  return 0;
}
