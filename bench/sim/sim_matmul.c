/* sim_matmul — SUMMA against HSUMMA over the number of groups G (and 3D), for the SimGrid build in
 * model mode (HLA_SIM=model: the kernels charge their flops at the platform's speed, the matrices
 * live in SMPI's shared memory; src/kernels/sim.c). One run is one simulated machine:
 *
 *   HLA_SIM=model smpirun -np P -platform bench/platforms/bgp_like.xml \
 *     -hostfile bench/platforms/bgp_like.hosts build-smpi/sim_matmul --n 65536 --b 256 \
 *     --groups 1,4,16,64,8x16,c4 [--grid MxN] [--speed 3.4e9] [--k k] [--nb nb] [--mo Mo]
 *     [--bcast native|binomial|scatter_allgather|pipeline]
 *
 * on a sqrt P x sqrt P grid (P a square) unless --grid, C := A B with n x n matrices in b x b
 * blocks, panels of b and an outer block of b (the source's b = M; --mo: HSUMMA's outer block Mo,
 * a multiple of b), G = 1 being SUMMA, G > 1 HSUMMA with G groups (I x J as square as the grid
 * allows; a token IxJ: exactly I x J groups) and cK the 3D / 2.5D multiply with K layers
 * (HLA_MM_3D; K divides M or N). --k k: A is n x k and B k x n, so the multiply runs k / b of the
 * n / b steps with the same panels (a long multiply's steps, sampled: the simulator's cost grows
 * with the steps). --nb nb: the matrices in nb x nb blocks, the panels still of b (a grid with
 * more process columns than n / b has idle columns with nb = b; the planner may choose a smaller
 * nb). Per case one line and one JSON line on rank 0: the simulated time of the multiply (the
 * slowest rank's), its compute part 2 n^2 k / (P speed) (speed: the platform's flop/s per core,
 * which the kernels are charged at) and the rest, the communication that the computation did not
 * hide. (The simulator's own wall time and memory are measured outside, by
 * bench/sim/summa_hsumma.sh: under SMPI the clocks a rank reads are simulated.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hla.h"
#include "sim_args.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t n = 8192, k = 0;
  int b = 256, nb = 0, mo = 0, grid[2] = {0, 0};
  double speed = 3.4e9;
  char groups[256] = "1", bcast[32] = "native";
  const sim_arg args[] = {{"--n", SIM_I64, &n, 0},
                          {"--k", SIM_I64, &k, 0},
                          {"--b", SIM_INT, &b, 0},
                          {"--nb", SIM_INT, &nb, 0},
                          {"--mo", SIM_INT, &mo, 0},
                          {"--speed", SIM_DBL, &speed, 0},
                          {"--groups", SIM_STR, groups, sizeof groups},
                          {"--bcast", SIM_STR, bcast, sizeof bcast},
                          {"--grid", SIM_GRID, grid, 0}};
  sim_args(argc, argv, args, (int)(sizeof args / sizeof *args));
  int M = grid[0], N = grid[1];
  if (k <= 0) k = n;
  if (nb <= 0) nb = b;
  if (mo <= 0) mo = b;
  int P, me;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (M <= 0 || N <= 0)
    for (M = N = 1; (M + 1) * (M + 1) <= P;) N = ++M;
  hbsp_env world;
  hgrid g;
  hmat A, B, C;
  if (M * N != P || hbsp_init(MPI_COMM_WORLD, &world) != HLA_OK ||
      hgrid_create(world, M, N, &g) != HLA_OK || hmat_create(g, n, k, nb, nb, &A) != HLA_OK ||
      hmat_create(g, k, n, nb, nb, &B) != HLA_OK || hmat_create(g, n, n, nb, nb, &C) != HLA_OK) {
    if (me == 0)
      fprintf(stderr,
              "sim_matmul: P = %d is not %d x %d (a square by default); or the setup failed\n", P,
              M, N);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  hbsp_alg alg = HBSP_NATIVE;
  if (!strcmp(bcast, "binomial"))
    alg = HBSP_BINOMIAL;
  else if (!strcmp(bcast, "scatter_allgather"))
    alg = HBSP_SCATTER_ALLGATHER;
  else if (!strcmp(bcast, "pipeline"))
    alg = HBSP_PIPELINE;
  const double compute = 2.0 * (double)n * (double)n * (double)k / ((double)P * speed);
  char *save = NULL; /* strtok_r: SMPI's ranks are threads of one process */
  for (char *tok = strtok_r(groups, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int c = tok[0] == 'c' ? atoi(tok + 1) : 0, G = c ? 1 : atoi(tok), gi = 0, gj = 0, si, sj;
    /* a plain G leaves the shape to the library (sscanf fills si before it fails on the 'x') */
    if (!c && sscanf(tok, "%dx%d", &si, &sj) == 2) gi = si, gj = sj, G = gi * gj;
    hla_opts o = HLA_OPTS_INIT;
    hla_report rep;
    o.report = &rep;
    o.mm_alg = c ? HLA_MM_3D : G > 1 ? HLA_MM_HSUMMA : HLA_MM_SUMMA;
    o.inner_block = b, o.outer_block = mo, o.groups = G > 1 ? G : 0, o.replication = c;
    o.groups_row = gi, o.groups_col = gj;
    o.bcast.alg = alg;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    const int e = hmatmul('N', 'N', 1.0, A, B, 0.0, C, &o);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0) {
      if (e != HLA_OK) {
        printf("%s: error %d (%s)\n", tok, e, hgrid_errmsg(g));
        continue;
      }
      const char *alg = c ? "3d" : G > 1 ? "hsumma" : "summa";
      /* k, nb and Mo only where not n, b and b: as printed before */
      char kk[32] = "", bb[32] = "", oo[32] = "";
      if (k != n) snprintf(kk, sizeof kk, " k=%lld", (long long)k);
      if (nb != b) snprintf(bb, sizeof bb, " nb=%d", nb);
      if (mo != b) snprintf(oo, sizeof oo, " Mo=%d", mo);
      printf("P=%d n=%lld%s b=%d%s%s bcast=%s grid=%dx%d G=%d groups=%dx%d c=%d seconds=%.4f "
             "compute=%.4f comm=%.4f\n",
             P, (long long)n, kk, b, bb, oo, bcast, M, N, G, rep.groups_row, rep.groups_col,
             rep.replication, tmax, compute, tmax - compute);
      printf(
          "{\"bench\":\"sim_matmul\",\"P\":%d,\"n\":%lld,\"k\":%lld,\"b\":%d,\"nb\":%d,\"Mo\":%d,"
          "\"bcast\":\"%s\",\"grid\":\"%dx%d\",\"G\":%d,\"groups\":\"%dx%d\",\"c\":%d,"
          "\"alg\":\"%s\",\"seconds\":%.6g,\"compute\":%.6g,\"comm\":%.6g}\n",
          P, (long long)n, (long long)k, b, nb, mo, bcast, M, N, G, rep.groups_row, rep.groups_col,
          rep.replication, alg, tmax, compute, tmax - compute);
      fflush(stdout);
    }
  }
  hmat_free(&A), hmat_free(&B), hmat_free(&C);
  hgrid_free(&g);
  hbsp_free(&world);
  MPI_Finalize();
  return 0;
}
