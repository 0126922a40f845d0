/* bspbench — BSP parameters of this machine for hla, per level of the hierarchy.
 *
 * Prints the computation rate r (interleaved DAXPY pairs, min/avg/max over ranks); g and l in
 * seconds and in flop units for the world, the node (hbsp_node; HLA_VIRTUAL_NODES=k makes k virtual
 * nodes), the first row and the first column of a near-square grid, and for all rows (columns,
 * nodes) syncing at the same time; the MPI floor of a sync (Alltoall of the count records plus a
 * Barrier); g for large h against MPI_Alltoallv moving the same data. Then the ratios with their
 * targets, and one JSON line with every number.
 *
 * Method (seed 002 §5.1, seed 000 §3): full h-relations, each rank putting h words of 8 bytes
 * spread over the other ranks; small h with one put per word (bspbench: g includes the cost per
 * put), large h with one put per destination (bandwidth); medians of repetitions, the maximum over
 * ranks per repetition; t = h g + l fitted by ordinary least squares.
 *
 *   mpiexec -n 2 ./bspbench [--h0 0] [--h1 64] [--points 16] [--reps 5] [--inner 2]
 *                           [--H0 65536] [--H1 1048576] [--Hpoints 4] [--nmax 1024]
 *
 * Large h spans 0.5 to 8 MiB per rank: over 128 to 512 KiB (the defaults before a1ccb17) the
 * fitted slopes moved by a factor of 3 between runs on the 2-core VM (g(hpput)/g(Alltoallv)
 * 0.55-1.53), over this range by 0.85-1.16.
 *
 * Timings on an oversubscribed machine (more ranks than cores) say little: read them with care.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hla.h"
#include "bsp/probe.h"

typedef struct {
  int h0, h1, points, reps, inner, H0, H1, Hpoints;
  long nmax;
} bench_opts;

static int parse(int argc, char **argv, bench_opts *o, int rank) {
  *o = (bench_opts){0, 64, 16, 5, 2, 65536, 1048576, 4, 1024};
  for (int i = 1; i < argc; i++) {
    struct {
      const char *name;
      int *ival;
      long *lval;
    } opt[] = {{"--h0", &o->h0, NULL},         {"--h1", &o->h1, NULL},
               {"--points", &o->points, NULL}, {"--reps", &o->reps, NULL},
               {"--inner", &o->inner, NULL},   {"--H0", &o->H0, NULL},
               {"--H1", &o->H1, NULL},         {"--Hpoints", &o->Hpoints, NULL},
               {"--nmax", NULL, &o->nmax}};
    int k = 0, n = (int)(sizeof opt / sizeof opt[0]);
    while (k < n && strcmp(argv[i], opt[k].name) != 0) k++;
    char *end = NULL;
    long v = (k < n && i + 1 < argc) ? strtol(argv[i + 1], &end, 10) : -1;
    if (k == n || !end || *end || v < 0) {
      if (rank == 0)
        fprintf(stderr,
                "usage: bspbench [--h0 N] [--h1 N] [--points N] [--reps N] [--inner N]\n"
                "                [--H0 N] [--H1 N] [--Hpoints N] [--nmax POWER_OF_2]\n"
                "  h: words (8 bytes) per rank; h0..h1 small (one put per word), H0..H1 large\n"
                "  (one put per destination, compared with MPI_Alltoallv)\n");
      return 1;
    }
    if (opt[k].ival)
      *opt[k].ival = (int)v;
    else
      *opt[k].lval = v;
    i++;
  }
  return 0;
}

/* One measured level. */
typedef struct {
  const char *name;
  int P; /* size of the (first) environment measured */
  hbsp_gl fit;
} level;

static void print_level(const level *v, const level *world) {
  printf("  %-8s %4d  %10.4f  %10.2f  %10.1f  %10.0f  %8.2f\n", v->name, v->P, v->fit.g * 1e6,
         v->fit.l * 1e6, v->fit.g_flops, v->fit.l_flops,
         world->fit.l > 0 ? v->fit.l / world->fit.l : 0.0);
}

static void json_fit(const char *name, int P, const hbsp_gl *f, int comma) {
  printf("\"%s\": {\"P\": %d, \"g\": %.6g, \"l\": %.6g, \"g_flops\": %.6g, \"l_flops\": %.6g}%s",
         name, P, f->g, f->l, f->g_flops, f->l_flops, comma ? ", " : "");
}

/* Verdict on a ratio against its target; a non-positive ratio comes from a noisy fit. */
static const char *verdict(double ratio, double target) {
  if (!(ratio > 0)) return "n/a (noisy fit: increase --reps or the h range)";
  return ratio <= target ? "met" : "MISSED";
}

/* Near-square grid M x N, M <= N. */
static void grid(int P, int *M, int *N) {
  *M = 1;
  for (int m = 1; m * m <= P; m++)
    if (P % m == 0) *M = m;
  *N = P / *M;
}

/* Stop on an error (every rank gets the same code); env holds the message. */
#define CHECK(env, call)                                                                           \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_ != HLA_OK) {                                                                           \
      if (rank == 0) fprintf(stderr, "bspbench: %s: %s\n", #call, hbsp_errmsg(env));               \
      MPI_Finalize();                                                                              \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bench_opts o;
  if (parse(argc, argv, &o, rank)) {
    MPI_Finalize();
    return 2;
  }
  hbsp_env w = NULL;
  if (hbsp_init(MPI_COMM_WORLD, &w) != HLA_OK) {
    fprintf(stderr, "bspbench: hbsp_init failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int P = hbsp_size(w), M, N;
  grid(P, &M, &N);
  double t_begin = MPI_Wtime();

  /* r */
  int nlen = 0;
  for (long n = 1; n <= o.nmax; n *= 2) nlen++;
  hbsp_rate *table = malloc(sizeof(hbsp_rate) * (size_t)(nlen > 0 ? nlen : 1)), r;
  CHECK(w, hbsp_probe_rate(w, o.nmax, 5e-3, table, &r));

  /* environments: node, row, column */
  hbsp_env node, row, col;
  CHECK(w, hbsp_node(w, &node));
  CHECK(w, hbsp_split(w, rank / N, rank % N, &row));
  CHECK(w, hbsp_split(w, rank % N, rank / N, &col));
  int node0 = rank, first_node = 0; /* is world rank 0 in my node? */
  MPI_Allreduce(&rank, &node0, 1, MPI_INT, MPI_MIN, hbsp_comm(node));
  first_node = node0 == 0;
  int nnodes = 0, lead = hbsp_rank(node) == 0;
  MPI_Allreduce(&lead, &nnodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int Pnode = hbsp_size(node);
  MPI_Bcast(&Pnode, 1, MPI_INT, 0, MPI_COMM_WORLD);
  /* more ranks than cores on a (physical) node: the timings measure the scheduler */
  MPI_Comm shm;
  int on_host = 1, over = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
  MPI_Comm_size(shm, &on_host);
  MPI_Comm_free(&shm);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int mine_over = cores > 0 && on_host > cores;
  MPI_Allreduce(&mine_over, &over, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  hbsp_hrel_opts small = {o.h0, o.h1, o.points, o.reps, o.inner, HBSP_HREL_WORDS};
  level lv[7] = {{.name = "world", .P = P},       {.name = "node", .P = Pnode},
                 {.name = "row", .P = N},         {.name = "col", .P = M},
                 {.name = "nodes||", .P = Pnode}, {.name = "rows||", .P = N},
                 {.name = "cols||", .P = M}};
  CHECK(w, hbsp_probe_gl(w, &small, r.ravg, &lv[0].fit));
  CHECK(w, hbsp_probe_gl_sub(w, node, first_node, &small, r.ravg, &lv[1].fit));
  CHECK(w, hbsp_probe_gl_sub(w, row, rank / N == 0, &small, r.ravg, &lv[2].fit));
  CHECK(w, hbsp_probe_gl_sub(w, col, rank % N == 0, &small, r.ravg, &lv[3].fit));
  CHECK(w, hbsp_probe_gl_sub(w, node, 1, &small, r.ravg, &lv[4].fit));
  CHECK(w, hbsp_probe_gl_sub(w, row, 1, &small, r.ravg, &lv[5].fit));
  CHECK(w, hbsp_probe_gl_sub(w, col, 1, &small, r.ravg, &lv[6].fit));

  /* floor and large h */
  hbsp_floor fl;
  CHECK(w, hbsp_probe_floor(w, 0, 50, &fl));
  hbsp_hrel_opts large = {o.H0, o.H1, o.Hpoints, o.reps, 1, HBSP_HREL_BULK};
  hbsp_gl big_put, big_hp, big_mpi;
  CHECK(w, hbsp_probe_gl(w, &large, r.ravg, &big_put));
  large.mode = HBSP_HREL_BULK_HP;
  CHECK(w, hbsp_probe_gl(w, &large, r.ravg, &big_hp));
  CHECK(w, hbsp_probe_alltoallv(w, &large, r.ravg, &big_mpi));
  double elapsed = MPI_Wtime() - t_begin;

  double l_ratio = fl.floor > 0 ? lv[0].fit.l / fl.floor : 0;
  double t0_ratio = fl.floor > 0 ? lv[0].fit.t[0] / fl.floor : 0;
  double g_ratio = big_mpi.g > 0 ? big_put.g / big_mpi.g : 0;
  double ghp_ratio = big_mpi.g > 0 ? big_hp.g / big_mpi.g : 0;
  if (rank == 0) {
    printf("bspbench (hla): P = %d, grid %d x %d, %d node(s) of up to %d ranks%s\n", P, M, N,
           nnodes, Pnode, getenv("HLA_VIRTUAL_NODES") ? " (virtual)" : "");
    if (over)
      printf("WARNING: more ranks than cores on a node (oversubscribed): the timings below are "
             "not meaningful\n");
    printf("computation rate, DAXPY pairs (Mflop/s):\n  %8s %10s %10s %10s\n", "n", "min", "avg",
           "max");
    for (int k = 0; k < nlen; k++)
      printf("  %8lld %10.1f %10.1f %10.1f\n", (long long)table[k].n, table[k].rmin * 1e-6,
             table[k].ravg * 1e-6, table[k].rmax * 1e-6);
    printf("r = %.1f Mflop/s (average at n = %lld)\n\n", r.ravg * 1e-6, (long long)r.n);
    printf("full h-relations, h = %d..%d words, one put per word, median of %d x %d:\n", o.h0, o.h1,
           o.reps, o.inner);
    printf("  %-8s %4s  %10s  %10s  %10s  %10s  %8s\n", "level", "P", "g (us/w)", "l (us)",
           "g (flop)", "l (flop)", "l/l_world");
    for (int i = 0; i < 7; i++) print_level(&lv[i], &lv[0]);
    printf("  (|| = every such environment syncing at once; row/col/node = the first one alone)\n");
    printf("  concurrency: g(rows||)/g(row) = %.2f, l(rows||)/l(row) = %.2f\n\n",
           lv[2].fit.g > 0 ? lv[5].fit.g / lv[2].fit.g : 0,
           lv[2].fit.l > 0 ? lv[5].fit.l / lv[2].fit.l : 0);
    printf("floor: MPI_Alltoall of %d B per peer %.2f us, MPI_Barrier %.2f us, both %.2f us\n",
           fl.count_bytes, fl.alltoall * 1e6, fl.barrier * 1e6, fl.floor * 1e6);
    printf("large h = %d..%d words, one put per destination:\n", o.H0, o.H1);
    printf("  hbsp_put     g = %.5f us/word (%.3f GB/s)  l = %.1f us\n", big_put.g * 1e6,
           big_put.g > 0 ? 8e-9 / big_put.g : 0, big_put.l * 1e6);
    printf("  hbsp_hpput   g = %.5f us/word (%.3f GB/s)  l = %.1f us\n", big_hp.g * 1e6,
           big_hp.g > 0 ? 8e-9 / big_hp.g : 0, big_hp.l * 1e6);
    printf("  Alltoallv    g = %.5f us/word (%.3f GB/s)  l = %.1f us\n\n", big_mpi.g * 1e6,
           big_mpi.g > 0 ? 8e-9 / big_mpi.g : 0, big_mpi.l * 1e6);
    printf("targets:\n");
    printf("  l(world)/floor      = %.2f  (target <= 2 at P = 2)  %s\n", l_ratio,
           verdict(l_ratio, 2));
    printf("  t(h=%d)/floor        = %.2f  (empty-ish sync, for reference)\n", o.h0, t0_ratio);
    printf("  g(hpput)/g(Alltoallv) = %.2f  (target <= 1.2)  %s\n", ghp_ratio,
           verdict(ghp_ratio, 1.2));
    printf("  g(put)/g(Alltoallv) = %.2f  (for reference: a buffered put copies its source at the "
           "call, so it pays that copy on top of the transfer)\n",
           g_ratio);
    printf("(%.2f s in all)\n", elapsed);

    printf("JSON {\"bench\": \"bspbench\", \"P\": %d, \"grid\": [%d, %d], \"nodes\": %d, ", P, M, N,
           nnodes);
    printf("\"r\": {\"n\": %lld, \"min\": %.6g, \"avg\": %.6g, \"max\": %.6g}, ", (long long)r.n,
           r.rmin, r.ravg, r.rmax);
    printf("\"h\": [%d, %d], \"levels\": {", o.h0, o.h1);
    for (int i = 0; i < 7; i++) json_fit(lv[i].name, lv[i].P, &lv[i].fit, i < 6);
    printf("}, \"floor\": {\"count_bytes\": %d, \"alltoall\": %.6g, \"barrier\": %.6g, "
           "\"both\": %.6g}, ",
           fl.count_bytes, fl.alltoall, fl.barrier, fl.floor);
    printf("\"large\": {\"H\": [%d, %d], ", o.H0, o.H1);
    json_fit("put", P, &big_put, 1);
    json_fit("hpput", P, &big_hp, 1);
    json_fit("alltoallv", P, &big_mpi, 0);
    printf("}, \"ratios\": {\"l_world_over_floor\": %.4g, \"g_put_over_alltoallv\": %.4g, "
           "\"g_hpput_over_alltoallv\": %.4g}, \"oversubscribed\": %s, \"seconds\": %.3g}\n",
           l_ratio, g_ratio, ghp_ratio, over ? "true" : "false", elapsed);
  }
  free(table);
  CHECK(col, hbsp_free(&col));
  CHECK(row, hbsp_free(&row));
  CHECK(node, hbsp_free(&node));
  CHECK(w, hbsp_free(&w));
  MPI_Finalize();
  return 0;
}
