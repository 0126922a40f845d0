/* bench_matmul — hmatmul (SUMMA, HSUMMA, 3D, automatic) against the node limit and ScaLAPACK.
 * @needs scalapack
 *
 * In one run, on the same cores, for each n (square n x n x n, C := A B):
 *   node    OpenBLAS dgemm in one process with all cores of the node: rank 0 runs it with the
 *           BLAS threads set to the core count while the other ranks wait in a sleeping barrier
 *           (hbsp_idle_barrier: they sleep, so that they do not take cores from it);
 *   pdgemm  ScaLAPACK's pdgemm on the same grid and blocks, on the same local arrays;
 *   summa, hsumma, 3d, auto   hmatmul with that algorithm forced, and with opts = NULL.
 * Each case: one warm-up call, then --reps timed calls, each between two barriers; the time of a
 * call is the maximum over ranks, and the median of the calls is reported. GFLOP/s = 2 n^3 / t.
 * The error is max |C - C_node| / (|A| |B| n eps) (max norms) against the node's dgemm, with C
 * gathered on rank 0 (--no-check skips it and the gathers; rank 0 then needs no full matrices).
 * Output: one line per case and one JSON line per case ({"bench":"matmul",...}).
 *
 *   mpiexec -n P --bind-to none ./bench_matmul [--n 2048,4096,6000] [--quick] [--grid MxN]
 *       [--nb 64] [--b B] [--reps 3] [--groups G] [--outer Mo] [--c C] [--cores K] [--no-check]
 *       [--no-node] [--no-pdgemm] [--bcast auto|native|flat|binomial|pipeline|sag] [--profile]
 *
 * --bcast: the panel broadcasts of hmatmul (auto/native: MPI_Ibcast overlapped with the dgemm;
 * the others are hla's blocking collectives, sag = scatter-allgather).
 * --quick: n = 256, 512. --grid: process grid (default: hgrid_create's choice). --nb: block size
 * of A, B, C (and the panel width b unless --b). --cores: cores for the node limit (default: the
 * node's). --profile: additionally run each algorithm once with binomial broadcasts under the BSP
 * profiler and print the bytes and messages sent per level (grid rows, columns, the whole grid,
 * other subsets; within and across nodes: set HLA_VIRTUAL_NODES=k to make k virtual nodes) next
 * to the model's counts; best at P = 8 or 16.
 *
 * Threads per rank follow hla's policy (cores of the node / ranks on the node, or HLA_NUM_THREADS);
 * ScaLAPACK runs with the same BLAS threads. Bind ranks with --bind-to none (or give each rank
 * enough cores): a rank bound to one core runs its BLAS threads on that core. On a shared or
 * oversubscribed machine the numbers say little about the algorithms.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cblas.h>
#include <omp.h>
#include "hla.h"
#include "bench_common.h"
#include "json_read.h"
#include "dist/layout/layout_impl.h"
#include "kernels/kernels.h"
#include "scalapack_decl.h"

/* ---------------------------------------------------------------- options */

typedef struct {
  int64_t n[16];
  int nn;
  int M, N, nb, b, reps, groups, outer, c, cores;
  int check, node, pdgemm, profile;
  hbsp_alg bcast;
} bopts;

static int parse_list(const char *s, int64_t *out, int max) {
  int k = 0;
  while (*s && k < max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v <= 0) return -1;
    out[k++] = v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return -1;
  }
  return k;
}

static int parse(int argc, char **argv, bopts *o) {
  *o = (bopts){
      .n = {2048, 4096, 6000}, .nn = 3, .nb = 64, .reps = 3, .check = 1, .node = 1, .pdgemm = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--quick"))
      o->n[0] = 256, o->n[1] = 512, o->nn = 2;
    else if (!strcmp(a, "--no-check"))
      o->check = 0;
    else if (!strcmp(a, "--no-node"))
      o->node = 0;
    else if (!strcmp(a, "--no-pdgemm"))
      o->pdgemm = 0;
    else if (!strcmp(a, "--profile"))
      o->profile = 1;
    else if (v == NULL)
      return -1;
    else if (!strcmp(a, "--n") && ++i) {
      if ((o->nn = parse_list(v, o->n, 16)) <= 0) return -1;
    } else if (!strcmp(a, "--grid") && ++i) {
      if (sscanf(v, "%dx%d", &o->M, &o->N) != 2) return -1;
    } else if (!strcmp(a, "--nb") && ++i)
      o->nb = atoi(v);
    else if (!strcmp(a, "--b") && ++i)
      o->b = atoi(v);
    else if (!strcmp(a, "--reps") && ++i)
      o->reps = atoi(v);
    else if (!strcmp(a, "--groups") && ++i)
      o->groups = atoi(v);
    else if (!strcmp(a, "--outer") && ++i)
      o->outer = atoi(v);
    else if (!strcmp(a, "--c") && ++i)
      o->c = atoi(v);
    else if (!strcmp(a, "--cores") && ++i)
      o->cores = atoi(v);
    else
      return -1;
  }
  return o->nb > 0 && o->reps >= 1 && o->b >= 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- helpers */

static double gen(int64_t i, int64_t j, void *ctx) {
  /* a cheap reproducible entry in [-0.5, 0.5): the same on every grid */
  uint64_t s = *(uint64_t *)ctx ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^
               ((uint64_t)j * 0xC2B2AE3D27D4EB4Full);
  s = (s ^ (s >> 30)) * 0xBF58476D1CE4E5B9ull;
  s = (s ^ (s >> 27)) * 0x94D049BB133111EBull;
  s ^= s >> 31;
  return (double)(s >> 11) * 0x1.0p-53 - 0.5;
}

typedef int (*op_fn)(void *ctx);

/* Median over reps of the time of op (max over ranks, between barriers), after a warm-up. */
static double time_op(op_fn op, void *ctx, int reps, int *err) {
  double t[64];
  if (reps > 64) reps = 64;
  *err = op(ctx);
  for (int r = 0; r < reps && *err == 0; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    *err = op(ctx);
    MPI_Barrier(MPI_COMM_WORLD);
    double dt = MPI_Wtime() - t0, mx;
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t[r] = mx;
  }
  qsort(t, (size_t)reps, sizeof t[0], bench_cmp_double);
  return t[reps / 2];
}

/* ---------------------------------------------------------------- the cases */

typedef struct {
  hmat A, B, C;
  hla_opts *opts; /* NULL: automatic */
} mm_case;

static int run_hmatmul(void *p) {
  mm_case *c = p;
  return hmatmul('N', 'N', 1.0, c->A, c->B, 0.0, c->C, c->opts);
}

typedef struct {
  int n, nb, desc[9];
  double *a, *b, *c;
} pd_case;

static int run_pdgemm(void *p) {
  pd_case *c = p;
  const int one = 1;
  const double alpha = 1.0, beta = 0.0;
  pdgemm_("N", "N", &c->n, &c->n, &c->n, &alpha, c->a, &one, &one, c->desc, c->b, &one, &one,
          c->desc, &beta, c->c, &one, &one, c->desc);
  return 0;
}

typedef struct {
  int64_t n;
  const double *a, *b;
  double *c;
} node_case;

static int run_node(void *p) {
  node_case *c = p;
  if (c->a != NULL) /* rank 0 computes; the others only wait */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)c->n, (int)c->n, (int)c->n, 1.0,
                c->a, (int)c->n, c->b, (int)c->n, 0.0, c->c, (int)c->n);
  return 0;
}

/* Node limit: like time_op, but the waiting ranks sleep in the barriers. */
static double time_node(hbsp_env env, node_case *nc, int reps, int cores, int threads) {
  double t[64];
  if (reps > 64) reps = 64;
  if (nc->a != NULL) {
    openblas_set_num_threads(cores);
    omp_set_num_threads(cores);
  }
  run_node(nc);
  for (int r = 0; r < reps; r++) {
    hbsp_idle_barrier(env);
    double t0 = MPI_Wtime();
    run_node(nc);
    t[r] = MPI_Wtime() - t0;
  }
  hbsp_idle_barrier(env);
  if (nc->a != NULL) {
    openblas_set_num_threads(threads);
    omp_set_num_threads(threads);
  }
  qsort(t, (size_t)reps, sizeof t[0], bench_cmp_double);
  double med = t[reps / 2];
  MPI_Bcast(&med, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return med;
}

/* max |C - ref| / (|A| |B| n eps) on rank 0 (every rank gets it); -1 when not checked. */
static double check_err(hmat C, int do_check, const double *ref, double *full, double na, double nb,
                        int64_t n) {
  if (!do_check) return -1;
  hmat_gather(C, 0, full, n);
  double err = 0;
  if (full != NULL) {
    for (int64_t i = 0; i < n * n; i++) {
      double d = fabs(full[i] - ref[i]);
      if (!(d <= err)) err = d;
    }
    err /= na * nb * (double)n * DBL_EPSILON;
  }
  MPI_Bcast(&err, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return err;
}

static const char *alg_name(int a) {
  return a == HLA_MM_SUMMA    ? "summa"
         : a == HLA_MM_HSUMMA ? "hsumma"
         : a == HLA_MM_3D     ? "3d"
         : a == HLA_MM_REDUCE ? "reduce"
                              : "auto";
}

/* One line and one JSON line for a case (rank 0). */
static void print_case(int rank, int64_t n, int P, int M, int N, int nb, int threads,
                       const char *name, double t, double t_node, double t_pd, double err,
                       const hla_report *rep, const char *note) {
  if (rank != 0) return;
  double gf = t > 0 ? 2.0 * (double)n * n * n / t / 1e9 : 0;
  double rn = t_node > 0 && t > 0 ? t_node / t : 0, rp = t_pd > 0 && t > 0 ? t_pd / t : 0;
  char det[320] = "";
  if (rep != NULL)
    snprintf(det, sizeof det, "ran=%s b=%d Mo=%d groups=%dx%d c=%d redist=%d (%s)",
             alg_name(rep->mm_alg), rep->inner_block, rep->outer_block, rep->groups_row,
             rep->groups_col, rep->replication, rep->redistributed, rep->why);
  printf("n=%-6lld %-7s %9.2f GF/s  t=%9.4fs  node=%5.2f  pdgemm=%5.2f  err=%8.3g  %s%s\n",
         (long long)n, name, gf, t, rn, rp, err, det, note ? note : "");
  printf("{\"bench\":\"matmul\",\"n\":%lld,\"P\":%d,\"grid\":\"%dx%d\",\"nb\":%d,\"threads\":%d,"
         "\"case\":\"%s\",\"seconds\":%.6g,\"gflops\":%.6g,\"ratio_node\":%.4g,"
         "\"ratio_pdgemm\":%.4g,\"err\":%.4g",
         (long long)n, P, M, N, nb, threads, name, t, gf, rn, rp, err);
  if (rep != NULL) {
    printf(",\"alg\":\"%s\",\"b\":%d,\"outer\":%d,\"groups\":\"%dx%d\",\"c\":%d,"
           "\"redistributed\":%d,\"why\":\"",
           alg_name(rep->mm_alg), rep->inner_block, rep->outer_block, rep->groups_row,
           rep->groups_col, rep->replication, rep->redistributed);
    for (const char *q = rep->why; *q; q++)
      if (*q != '"' && *q != '\\') putchar(*q);
    printf("\"");
  }
  printf("}\n");
  fflush(stdout);
}

static void usage(void) {
  fprintf(stderr,
          "usage: bench_matmul [--n 2048,4096,6000] [--quick] [--grid MxN] [--nb 64]"
          " [--b B] [--reps 3] [--groups G] [--outer Mo] [--c C] [--cores K]"
          " [--no-check] [--no-node] [--no-pdgemm] [--bcast native|binomial|...] [--profile]\n");
}

int profile_levels(hbsp_env env, hgrid g, int64_t n, const bopts *o); /* below */

int main(int argc, char **argv) {
  int provided, rank, P;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  bopts o;
  if (parse(argc, argv, &o) != 0) {
    if (rank == 0) usage();
    MPI_Finalize();
    return 2;
  }
  hbsp_env env;
  hgrid g;
  if (bench_setup("bench_matmul", &o.M, &o.N, &env, &g, NULL)) {
    MPI_Finalize();
    return 2;
  }
  int M, N, nnodes, threads = hgrid_threads(g);
  hgrid_shape(g, &M, &N, NULL, NULL);
  hgrid_nodes(g, &nnodes, NULL, NULL);
  int cores = o.cores > 0 ? o.cores : hkern_node_cores();
  if (rank == 0) {
    printf("# bench_matmul: P = %d, grid %dx%d, %d node(s), %d BLAS threads per rank, node limit"
           " on %d cores, blocks %d, reps %d (median)\n",
           P, M, N, nnodes, threads, cores, o.nb, o.reps);
    if (hkern_affinity_cores() < cores)
      printf("# warning: rank 0 may run on %d cores only (its affinity): use --bind-to none\n",
             hkern_affinity_cores());
    if (P * threads > hkern_node_cores())
      printf("# warning: %d ranks x %d threads > %d cores: oversubscribed, timings say little\n", P,
             threads, hkern_node_cores());
    fflush(stdout);
  }
  int ctxt;
  Cblacs_get(0, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "R", M, N);

  for (int in = 0; in < o.nn; in++) {
    int64_t n = o.n[in];
    hmat A, B, C;
    uint64_t sa = 1, sb = 2;
    if (hmat_create(g, n, n, o.nb, o.nb, &A) || hmat_create(g, n, n, o.nb, o.nb, &B) ||
        hmat_create(g, n, n, o.nb, o.nb, &C)) {
      if (rank == 0) printf("n=%lld: cannot allocate the matrices\n", (long long)n);
      break;
    }
    hmat_fill(A, gen, &sa);
    hmat_fill(B, gen, &sb);
    double na, nbm;
    hmat_norm(A, 'M', &na);
    hmat_norm(B, 'M', &nbm);

    /* Rank 0's full matrices: the node limit's operands and the reference. */
    double *Af = NULL, *Bf = NULL, *Cref = NULL, *Cfull = NULL;
    int need = o.node || o.check;
    if (rank == 0 && need) {
      size_t bytes = (size_t)(n * n) * sizeof(double);
      /* hla's allocator (huge pages where the kernel gives them on request), so that the node
       * limit runs on the same kind of memory as hla's matrices */
      Af = hdist_alloc((int64_t)(bytes / sizeof(double))),
      Bf = hdist_alloc((int64_t)(bytes / sizeof(double)));
      Cref = hdist_alloc((int64_t)(bytes / sizeof(double)));
      if (o.check) Cfull = hdist_alloc((int64_t)(bytes / sizeof(double)));
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
          Af[i + j * n] = gen(i, j, &sa);
          Bf[i + j * n] = gen(i, j, &sb);
        }
    }
    node_case ncs = {n, Af, Bf, Cref};
    double t_node = 0, t_pd = 0;
    if (o.node) {
      t_node = time_node(env, &ncs, o.reps, cores, threads);
      print_case(rank, n, P, M, N, o.nb, cores, "node", t_node, t_node, 0, 0, NULL,
                 " (OpenBLAS dgemm, one process, all cores)");
    } else if (o.check) {
      if (rank == 0) run_node(&ncs);
    }

    if (o.pdgemm) {
      pd_case pc = {.n = (int)n, .nb = o.nb};
      int64_t lld;
      hmat_local(A, &pc.a, &lld, NULL, NULL);
      hmat_local(B, &pc.b, NULL, NULL, NULL);
      hmat_local(C, &pc.c, NULL, NULL, NULL);
      int zero = 0, ld = (int)lld, info;
      descinit_(pc.desc, &pc.n, &pc.n, &pc.nb, &pc.nb, &zero, &zero, &ctxt, &ld, &info);
      int e;
      t_pd = time_op(run_pdgemm, &pc, o.reps, &e);
      double err = check_err(C, o.check, Cref, Cfull, na, nbm, n);
      print_case(rank, n, P, M, N, o.nb, threads, "pdgemm", t_pd, t_node, t_pd, err, NULL,
                 " (ScaLAPACK, same grid and blocks)");
    }

    const int algs[] = {HLA_MM_SUMMA, HLA_MM_HSUMMA, HLA_MM_3D, HLA_MM_AUTO};
    for (int a = 0; a < 4; a++) {
      hla_report rep;
      hla_opts opts = HLA_OPTS_INIT;
      opts.mm_alg = algs[a], opts.inner_block = o.b, opts.report = &rep;
      opts.bcast.alg = o.bcast;
      if (algs[a] == HLA_MM_HSUMMA) opts.groups = o.groups, opts.outer_block = o.outer;
      if (algs[a] == HLA_MM_3D) opts.replication = o.c;
      mm_case mc = {A, B, C, &opts}; /* AUTO with zero fields: the same as opts = NULL */
      int e;
      double t = time_op(run_hmatmul, &mc, o.reps, &e);
      if (e != HLA_OK) {
        if (rank == 0)
          printf("n=%-6lld %-7s skipped: %s (%s)\n", (long long)n, alg_name(algs[a]),
                 hla_strerror(e), hgrid_errmsg(g));
        continue;
      }
      double err = check_err(C, o.check, Cref, Cfull, na, nbm, n);
      print_case(rank, n, P, M, N, o.nb, threads, alg_name(algs[a]), t, t_node, t_pd, err, &rep,
                 NULL);
    }
    if (o.profile) profile_levels(env, g, n, &o);
    free(Af), free(Bf), free(Cref), free(Cfull);
    hmat_free(&A), hmat_free(&B), hmat_free(&C);
  }
  Cblacs_gridexit(ctxt);
  Cblacs_exit(1); /* MPI stays up for hla */
  hgrid_free(&g);
  hbsp_free(&env);
  MPI_Finalize();
  return 0;
}

/* ---------------------------------------------------------------- --profile */

/* The profiler file is read back with tests/json_read.h. */

/* Traffic of one algorithm, by level of the environment and kind of superstep. */
enum { LV_WORLD, LV_ROW, LV_COL, LV_OTHER, NLV };
static const char *lv_name[NLV] = {"grid", "row", "col", "subset"};
#define NKIND 8
typedef struct {
  char kind[NKIND][16];
  int nk;
  double bytes[NLV][NKIND], inter[NLV][NKIND], msgs[NLV][NKIND];
} traffic;

static int kind_index(traffic *t, const char *k) {
  for (int i = 0; i < t->nk; i++)
    if (!strcmp(t->kind[i], k)) return i;
  if (t->nk == NKIND) return NKIND - 1;
  snprintf(t->kind[t->nk], sizeof t->kind[0], "%s", k);
  return t->nk++;
}

/* Sum what every rank sent during the multiply (phases starting at or after tm[world rank]). An
 * environment is a row (col) level if all its members share a process row (column) of the M x N
 * grid (world rank w at (w / N, w % N)), the grid level if it has all P ranks. */
static void tally(const jv *root, int P, int N, const double *tm, const int *node, traffic *t) {
  memset(t, 0, sizeof *t);
  jv *envs = jget(root, "envs");
  for (int e = 0; e < jlen(envs); e++) {
    jv *env = jat(envs, e), *w = jget(env, "world_ranks");
    int p = jlen(w), same_row = 1, same_col = 1;
    int w0 = (int)jnum(jat(w, 0));
    for (int i = 0; i < p; i++) {
      int wi = (int)jnum(jat(w, i));
      same_row &= wi / N == w0 / N, same_col &= wi % N == w0 % N;
    }
    int lv = p == P ? LV_WORLD : same_row ? LV_ROW : same_col ? LV_COL : LV_OTHER;
    jv *ranks = jget(env, "ranks");
    for (int r = 0; r < jlen(ranks); r++) {
      jv *rk = jat(ranks, r), *ss = jget(rk, "supersteps");
      int wr = (int)jnum(jget(rk, "world_rank"));
      for (int s = 0; s < jlen(ss); s++) {
        jv *st = jat(ss, s);
        if (jnum(jget(st, "t")) < tm[wr]) continue;
        int k = kind_index(t, jstr(jget(st, "kind")));
        t->bytes[lv][k] += jnum(jget(st, "bytes_sent"));
        t->msgs[lv][k] += jnum(jget(st, "msgs_sent"));
        jv *row = jget(st, "row");
        for (int q = 0; q < jlen(row) && q < p; q++)
          if (node[(int)jnum(jat(w, q))] != node[wr]) t->inter[lv][k] += jnum(jat(row, q));
      }
    }
  }
}

/* The layer split hmatmul's 3D chooses (matmul.c's rule): rows when c divides M and the layer
 * M/c x N is at least as square as M x N/c. */
static int split_rows(int c, int M, int N) {
  int r = M % c == 0, cl = N % c == 0;
  if (r && cl) return fabs(log((double)M / c) - log(N)) <= fabs(log(M) - log((double)N / c));
  return r;
}

/* Model counts with binomial broadcasts and reductions (p - 1 messages of the whole size per
 * collective over p ranks), all ranks together, panels aligned with blocks:
 *   SUMMA  row: (N-1) m k words, ceil(k/b) M (N-1) messages; col: (M-1) k n, ceil(k/b) N (M-1).
 *   HSUMMA row: inner (N-J) m k words, ceil(k/b) M (N-J) messages; outer (J-1) m k,
 *          ceil(k/Mo) M (J-1); col likewise with I, M and n — the same words as SUMMA, fewer
 *          start-ups on the long (outer) level when Mo > b.
 *   3D     layer rows (NL-1) m k, layer columns (ML-1) k n; fibre reduce (c-1) m n words and
 *          (c-1) P messages; the remap moves at most m k + k n words in one sync of the grid. */
/* Broadcasts per process row (or column) for panels of width b over k-blocks of kb: a panel
 * goes out piece by piece, one piece per block it spans (summa.c, mm_pieces). */
static double pieces(double k, double b, double kb) {
  double s = 0;
  for (double lo = 0; lo < k; lo += b) {
    double hi = lo + b < k ? lo + b : k;
    s += floor((hi - 1) / kb) - floor(lo / kb) + 1;
  }
  return s;
}

static void model_print(int alg, const hla_report *rep, int64_t m, int M, int N, int P) {
  double n = (double)m, k = n, b = rep->inner_block, S = pieces(k, b, rep->nb);
  if (alg == HLA_MM_SUMMA) {
    printf("    model row bcast %12.0f bytes %8.0f msgs | col bcast %12.0f bytes %8.0f msgs\n",
           8 * (N - 1) * n * k, S * M * (N - 1), 8 * (M - 1) * k * n, S * N * (M - 1));
  } else if (alg == HLA_MM_HSUMMA) {
    int gi = rep->groups_row, gj = rep->groups_col;
    double So = pieces(k, rep->outer_block, rep->nb);
    printf(
        "    model row bcast %12.0f bytes %8.0f msgs (inner %.0f + outer %.0f) | col bcast %12.0f"
        " bytes %8.0f msgs (inner %.0f + outer %.0f)\n",
        8 * (N - 1) * n * k, S * M * (N - gj) + So * M * (gj - 1), S * M * (N - gj),
        So * M * (gj - 1), 8 * (M - 1) * k * n, S * N * (M - gi) + So * N * (gi - 1),
        S * N * (M - gi), So * N * (gi - 1));
  } else {
    int c = rep->replication, sr = split_rows(c, M, N);
    int ML = sr ? M / c : M, NL = sr ? N : N / c;
    double Sl = ceil(ceil(k / b) / c); /* panels per layer: 3D remaps to k-blocks of b */
    printf("    model layer row bcast %12.0f bytes %8.0f msgs | layer col bcast %12.0f bytes %8.0f"
           " msgs | fibre reduce %12.0f bytes %6.0f msgs | remap <= %.0f bytes\n",
           8 * (NL - 1) * n * k, Sl * c * ML * (NL - 1), 8 * (ML - 1) * k * n,
           Sl * c * NL * (ML - 1), 8 * (c - 1) * n * n, (double)(c - 1) * P, 8 * 2 * n * k);
  }
}

int profile_levels(hbsp_env env, hgrid g, int64_t n, const bopts *o) {
  (void)env;
  int rank, P, M, N;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  hgrid_shape(g, &M, &N, NULL, NULL);
  hbsp_env cross;
  hgrid_env(g, HGRID_CROSS, &cross);
  int mynode = hbsp_rank(cross), nnodes;
  hgrid_nodes(g, &nnodes, NULL, NULL);
  int *node = malloc((size_t)P * sizeof *node);
  double *tm = malloc((size_t)P * sizeof *tm);
  MPI_Allgather(&mynode, 1, MPI_INT, node, 1, MPI_INT, MPI_COMM_WORLD);
  char path[64];
  long id = (long)getpid();
  MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "/tmp/bench_matmul_%ld.json", id);
  if (rank == 0)
    printf("# profile n=%lld, grid %dx%d, %d node(s), binomial broadcasts and reductions; bytes and"
           " messages sent during one call, all ranks together\n",
           (long long)n, M, N, nnodes);
  const int algs[] = {HLA_MM_SUMMA, HLA_MM_HSUMMA, HLA_MM_3D};
  for (int a = 0; a < 3; a++) {
    hbsp_env e2;
    hgrid g2;
    hmat A, B, C;
    uint64_t sa = 1, sb = 2;
    hbsp_init(MPI_COMM_WORLD, &e2);
    if (hbsp_profile_start(e2, path) != HLA_OK) {
      if (rank == 0) printf("# profile: the profiler cannot start (%s)\n", hbsp_errmsg(e2));
      hbsp_free(&e2);
      break;
    }
    double t0 = MPI_Wtime();
    hgrid_create(e2, M, N, &g2);
    hmat_create(g2, n, n, o->nb, o->nb, &A);
    hmat_create(g2, n, n, o->nb, o->nb, &B);
    hmat_create(g2, n, n, o->nb, o->nb, &C);
    hmat_fill(A, gen, &sa);
    hmat_fill(B, gen, &sb);
    hla_report rep;
    hla_opts opts = HLA_OPTS_INIT;
    opts.mm_alg = algs[a], opts.inner_block = o->b, opts.report = &rep;
    opts.groups = algs[a] == HLA_MM_HSUMMA ? o->groups : 0;
    opts.outer_block = algs[a] == HLA_MM_HSUMMA ? o->outer : 0;
    opts.replication = algs[a] == HLA_MM_3D ? o->c : 0;
    opts.bcast.alg = HBSP_BINOMIAL;
    MPI_Barrier(MPI_COMM_WORLD);
    double mine = MPI_Wtime() - t0;
    int e = hmatmul('N', 'N', 1.0, A, B, 0.0, C, &opts);
    MPI_Gather(&mine, 1, MPI_DOUBLE, tm, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    hmat_free(&A), hmat_free(&B), hmat_free(&C);
    hgrid_free(&g2);
    hbsp_free(&e2); /* writes the file */
    if (rank != 0) continue;
    if (e != HLA_OK) {
      printf("  %-7s skipped: %s\n", alg_name(algs[a]), hla_strerror(e));
      continue;
    }
    jv *root = jload(path);
    if (root == NULL) {
      printf("# profile: cannot read %s\n", path);
      break;
    }
    traffic t;
    tally(root, P, N, tm, node, &t);
    jfree(root);
    printf("  %-7s b=%d Mo=%d groups=%dx%d c=%d\n", alg_name(algs[a]), rep.inner_block,
           rep.outer_block, rep.groups_row, rep.groups_col, rep.replication);
    for (int lv = 0; lv < NLV; lv++)
      for (int k = 0; k < t.nk; k++)
        if (t.msgs[lv][k] > 0 || t.bytes[lv][k] > 0)
          printf("    %-6s %-9s %12.0f bytes (%12.0f across nodes) %8.0f msgs\n", lv_name[lv],
                 t.kind[k], t.bytes[lv][k], t.inter[lv][k], t.msgs[lv][k]);
    model_print(algs[a], &rep, n, M, N, P);
  }
  if (rank == 0) remove(path);
  fflush(stdout);
  free(node), free(tm);
  return 0;
}
