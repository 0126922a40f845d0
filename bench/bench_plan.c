/* bench_plan — validation of the planner: runs its top candidates and several others for the
 * multiply and the LU, and prints predicted against measured time per candidate, the rank
 * correlation, and the two targets:
 *   (a) the chosen plan's predicted time within 25 % of its measured time;
 *   (b) the chosen plan's measured time within 10 % of the best measured candidate.
 *
 *   mpiexec -n P --bind-to none ./bench_plan [--n 2048,4096,6000] [--quick] [--op mm,lu]
 *       [--top 3] [--max 6] [--reps 3] [--warm 1] [--machine FILE] [--probe]
 *
 * The machine model: --probe measures it now (hplan_probe on these ranks); otherwise the machine
 * file's entry for this host, P and node count (HLA_MACHINE_FILE or ~/.cache/hla/machine.json),
 * probing and saving it when there is none. Candidates: the planner's best --top, then the best
 * of every other grid shape, then (LU) other block sizes and look-ahead off, (multiply) other
 * algorithms and layout blocks, up to --max per case. The candidates run in --reps rounds, each
 * candidate once per round (so that drift, other users and the order favour none), each time on a
 * fresh grid and fresh matrices with --warm untimed runs first (the first call of a size pays the
 * allocator's page faults; the matrices are refilled before each LU); a run is timed between
 * barriers as the slowest rank's wall time, and the median over the rounds is compared.
 * --quick: n = 1024, 2048, one round without warm-up, at most 4 candidates.
 * Output: one line per candidate, one summary line per case, and one JSON line per case
 * ({"bench":"plan",...}); at the end the number of cases meeting each target.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hla.h"

typedef struct {
  int64_t n[16];
  int nn, mm, lu, top, max, reps, warm, probe;
  const char *file;
} bopts;

static int parse(int argc, char **argv, bopts *o) {
  memset(o, 0, sizeof *o);
  int64_t def[3] = {2048, 4096, 6000};
  memcpy(o->n, def, sizeof def);
  o->nn = 3, o->mm = o->lu = 1, o->top = 3, o->max = 6, o->reps = 3, o->warm = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--quick")) {
      o->n[0] = 1024, o->n[1] = 2048, o->nn = 2, o->reps = 1, o->max = 4, o->top = 2, o->warm = 0;
    } else if (!strcmp(a, "--probe")) {
      o->probe = 1;
    } else if (v && !strcmp(a, "--n")) {
      o->nn = 0;
      for (char *s = argv[++i]; *s && o->nn < 16;) {
        char *e;
        long x = strtol(s, &e, 10);
        if (e == s || x <= 0) return -1;
        o->n[o->nn++] = x;
        s = *e == ',' ? e + 1 : e;
      }
    } else if (v && !strcmp(a, "--op")) {
      o->mm = strstr(v, "mm") != NULL, o->lu = strstr(v, "lu") != NULL;
      i++;
    } else if (v && !strcmp(a, "--top")) {
      o->top = atoi(argv[++i]);
    } else if (v && !strcmp(a, "--max")) {
      o->max = atoi(argv[++i]);
    } else if (v && !strcmp(a, "--reps")) {
      o->reps = atoi(argv[++i]);
    } else if (v && !strcmp(a, "--warm")) {
      o->warm = atoi(argv[++i]);
    } else if (v && !strcmp(a, "--machine")) {
      o->file = argv[++i];
    } else {
      return -1;
    }
  }
  if (o->top < 1) o->top = 1;
  if (o->max < o->top) o->max = o->top;
  if (o->max > 12) o->max = 12;
  if (o->reps < 1) o->reps = 1;
  if (o->warm < 0) o->warm = 0;
  return 0;
}

static double entry(int64_t i, int64_t j, void *ctx) {
  uint64_t s = (uint64_t)(uintptr_t)ctx ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^
               ((uint64_t)j * 0xC2B2AE3D27D4EB4Full);
  s ^= s >> 31, s *= 0xBF58476D1CE4E5B9ull, s ^= s >> 29;
  return (double)(s >> 11) * 0x1.0p-53 - 0.5;
}

/* ---------------------------------------------------------------- candidates */

static int same_plan(const hplan_cand *a, const hplan_cand *b) {
  return a->M == b->M && a->N == b->N && a->mb == b->mb && a->alg == b->alg && a->b == b->b &&
         a->Mo == b->Mo && a->gi == b->gi && a->gj == b->gj && a->c == b->c &&
         a->lookahead == b->lookahead;
}

static void add(hplan_cand *list, int *n, int max, const hplan_cand *c) {
  if (*n >= max) return;
  for (int i = 0; i < *n; i++)
    if (same_plan(&list[i], c)) return;
  /* one process: every layout runs the same one call */
  if (c->M * c->N == 1)
    for (int i = 0; i < *n; i++)
      if (list[i].M * list[i].N == 1 && list[i].alg == c->alg) return;
  list[(*n)++] = *c;
}

/* The candidates of one case; list[0] is the planner's choice. */
static int candidates(const hplan_machine *m, int op, int64_t n, int P, const bopts *o,
                      hplan_cand *list) {
  hplan_ranking *r = malloc(sizeof *r);
  int cnt = 0;
  hplan_target t;
  memset(&t, 0, sizeof t);
  t.P = P;
  int e = op == HPLAN_OP_MATMUL ? hplan_matmul_rank(m, n, n, n, &t, r) : hplan_lu_rank(m, n, &t, r);
  if (e != HLA_OK) {
    free(r);
    return 0;
  }
  hplan_cand best = r->cand[0];
  for (int i = 0; i < r->ncand && cnt < o->top; i++) add(list, &cnt, o->max, &r->cand[i]);
  /* the best of every other grid */
  for (int M = 1; M <= P; M++) {
    if (P % M) continue;
    hplan_target g = t;
    g.M = M, g.N = P / M;
    int e2 =
        op == HPLAN_OP_MATMUL ? hplan_matmul_rank(m, n, n, n, &g, r) : hplan_lu_rank(m, n, &g, r);
    if (e2 == HLA_OK) add(list, &cnt, o->max, &r->cand[0]);
  }
  /* variations of the best plan */
  hplan_target v = t;
  v.M = best.M, v.N = best.N;
  if (op == HPLAN_OP_LU) {
    const int nbs[4] = {32, 96, 256, 384};
    for (int i = 0; i < 4; i++) {
      v.nb = nbs[i];
      if (hplan_lu_rank(m, n, &v, r) == HLA_OK) add(list, &cnt, o->max, &r->cand[0]);
    }
    v.nb = best.nb;
    if (hplan_lu_rank(m, n, &v, r) == HLA_OK)
      for (int i = 0; i < r->ncand; i++)
        if (r->cand[i].lookahead != best.lookahead) {
          add(list, &cnt, o->max, &r->cand[i]);
          break;
        }
  } else {
    for (int a = HLA_MM_SUMMA; a <= HLA_MM_3D; a++) {
      if (a == best.alg) continue;
      v.algs = 1 << a;
      if (hplan_matmul_rank(m, n, n, n, &v, r) == HLA_OK) add(list, &cnt, o->max, &r->cand[0]);
    }
    v.algs = 0;
    const int blks[2] = {64, 256};
    for (int i = 0; i < 2; i++) {
      v.mb = v.nb = blks[i];
      if (hplan_matmul_rank(m, n, n, n, &v, r) == HLA_OK) add(list, &cnt, o->max, &r->cand[0]);
    }
  }
  free(r);
  return cnt;
}

/* ---------------------------------------------------------------- running one */

static double now_max(double t0) {
  double dt = MPI_Wtime() - t0, mx;
  MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return mx;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Candidate c on a fresh grid and fresh matrices: `warm` untimed runs, then the median seconds of
 * reps timed ones; -1 on error. */
static double run(hbsp_env env, const hplan_cand *c, int64_t n, int warm, int reps,
                  hla_report *rep) {
  hgrid g;
  if (hgrid_create(env, c->M, c->N, &g) != HLA_OK) return -1;
  double t[32], res = -1;
  if (reps > 32) reps = 32;
  hla_opts o = HLA_OPTS_INIT;
  o.report = rep;
  int ok = 1;
  if (c->op == HPLAN_OP_MATMUL) {
    hmat A, B, C;
    ok = hmat_create(g, n, n, c->mb, c->nb, &A) == HLA_OK &&
         hmat_create(g, n, n, c->mb, c->nb, &B) == HLA_OK &&
         hmat_create(g, n, n, c->mb, c->nb, &C) == HLA_OK;
    if (ok) {
      hmat_fill(A, entry, (void *)1);
      hmat_fill(B, entry, (void *)2);
      o.mm_alg = c->alg, o.inner_block = c->b;
      if (c->alg == HLA_MM_HSUMMA)
        o.outer_block = c->Mo, o.groups_row = c->gi, o.groups_col = c->gj;
      if (c->alg == HLA_MM_3D) o.replication = c->c;
      for (int r = -warm; r < reps && ok; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        ok = hmatmul('N', 'N', 1.0, A, B, 0.0, C, &o) == HLA_OK;
        double dt = now_max(t0);
        if (r >= 0) t[r] = dt;
      }
      hmat_free(&A), hmat_free(&B), hmat_free(&C);
    }
  } else {
    hmat A;
    int64_t *ipiv = malloc(sizeof(int64_t) * (size_t)n);
    ok = ipiv && hmat_create(g, n, n, c->nb, c->nb, &A) == HLA_OK;
    if (ok) {
      o.lu_alg = c->alg, o.lookahead = c->lookahead;
      for (int r = -warm; r < reps && ok; r++) {
        hmat_fill(A, entry, (void *)3);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        ok = hlu_factor(A, ipiv, &o) == HLA_OK;
        double dt = now_max(t0);
        if (r >= 0) t[r] = dt;
      }
      hmat_free(&A);
    }
    free(ipiv);
  }
  if (ok) {
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    res = t[reps / 2];
  }
  hgrid_free(&g);
  return res;
}

/* Spearman's rank correlation of x and y (n values; ties get their mean rank). */
static void ranks_of(const double *v, int n, double *rk) {
  for (int i = 0; i < n; i++) {
    int less = 0, eq = 0;
    for (int j = 0; j < n; j++) less += v[j] < v[i], eq += v[j] == v[i];
    rk[i] = less + (eq + 1) / 2.0;
  }
}

static double spearman(const double *x, const double *y, int n) {
  double rx[16], ry[16], mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
  ranks_of(x, n, rx), ranks_of(y, n, ry);
  for (int i = 0; i < n; i++) mx += rx[i] / n, my += ry[i] / n;
  for (int i = 0; i < n; i++) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

/* ---------------------------------------------------------------- main */

static int get_machine(hbsp_env env, const bopts *o, hplan_machine *m) {
  int me = hbsp_rank(env), P = hbsp_size(env), have = 0;
  char path[1024] = "";
  if (o->file)
    snprintf(path, sizeof path, "%s", o->file);
  else
    hplan_default_path(path, sizeof path);
  hbsp_env node;
  hbsp_node(env, &node);
  int leader = hbsp_rank(node) == 0, nodes = 0;
  MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  hbsp_free(&node);
  if (!o->probe && me == 0 && path[0]) {
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    have = hplan_load(m, path, host, P, nodes) == HLA_OK;
  }
  MPI_Bcast(&have, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (have) {
    MPI_Bcast(m, (int)sizeof *m, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (me == 0) printf("machine model from %s (probed in %.2f s)\n", path, m->seconds);
    return HLA_OK;
  }
  int e = hplan_probe(env, m);
  if (e != HLA_OK) return e;
  if (me == 0) {
    printf("machine model probed in %.2f s", m->seconds);
    if (path[0] && hplan_save(m, path) == HLA_OK) printf(", saved to %s", path);
    printf("\n");
  }
  return HLA_OK;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int me, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  bopts o;
  if (parse(argc, argv, &o) != 0) {
    if (me == 0)
      fprintf(stderr, "usage: bench_plan [--n 2048,4096,6000] [--quick] [--op mm,lu] [--top 3]"
                      " [--max 6] [--reps 3] [--warm 1] [--machine FILE] [--probe]\n");
    MPI_Finalize();
    return 2;
  }
  hbsp_env env;
  hbsp_init(MPI_COMM_WORLD, &env);
  hplan_machine m;
  if (get_machine(env, &o, &m) != HLA_OK) {
    if (me == 0) fprintf(stderr, "bench_plan: no machine model: %s\n", hbsp_errmsg(env));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (me == 0)
    printf("P=%d nodes=%d ranks/node=%d cores/node=%d threads=%d dgemm %.1f GF/s/rank "
           "link %.2g s + %.2g s/B overlap %.2f\n",
           m.P, m.nodes, m.ranks_per_node, m.cores_per_node, m.threads, m.gemm_rate / 1e9,
           m.link[0].alpha, m.link[0].beta, m.overlap);
  /* warm-up: one small run of each */
  {
    hplan_cand w;
    memset(&w, 0, sizeof w);
    w.op = HPLAN_OP_MATMUL, w.M = 1, w.N = P, w.mb = w.nb = 64, w.alg = HLA_MM_SUMMA, w.b = 256;
    hla_report rep;
    run(env, &w, 512, 0, 1, &rep);
    w.op = HPLAN_OP_LU, w.alg = HLA_LU_FLAT, w.lookahead = 1;
    run(env, &w, 512, 0, 1, &rep);
  }
  int cases = 0, ok_pred = 0, ok_best = 0;
  for (int op = HPLAN_OP_MATMUL; op <= HPLAN_OP_LU; op++) {
    if ((op == HPLAN_OP_MATMUL && !o.mm) || (op == HPLAN_OP_LU && !o.lu)) continue;
    for (int in = 0; in < o.nn; in++) {
      int64_t n = o.n[in];
      hplan_cand list[12];
      int nc = candidates(&m, op, n, P, &o, list);
      double pred[12], meas[12], rounds[12][32];
      const char *opn = op == HPLAN_OP_MATMUL ? "mm" : "lu";
      /* rounds: every candidate once per round, so that drift and the order favour none */
      for (int r = 0; r < o.reps && r < 32; r++)
        for (int i = 0; i < nc; i++) {
          hla_report rep;
          rounds[i][r] = run(env, &list[i], n, o.warm, 1, &rep);
        }
      for (int i = 0; i < nc; i++) {
        int nr = o.reps < 32 ? o.reps : 32, bad = 0;
        for (int r = 0; r < nr; r++) bad |= rounds[i][r] < 0;
        qsort(rounds[i], (size_t)nr, sizeof(double), cmp_double);
        pred[i] = list[i].seconds;
        meas[i] = bad ? -1 : rounds[i][nr / 2];
        if (me == 0) {
          printf("%s n=%-5lld P=%d cand %2d%s predicted %8.4f s measured %8.4f s ratio %5.2f  %s\n",
                 opn, (long long)n, P, i, i == 0 ? "*" : " ", pred[i], meas[i],
                 meas[i] > 0 ? pred[i] / meas[i] : 0, list[i].why);
          fflush(stdout);
        }
      }
      double best = HUGE_VAL;
      for (int i = 0; i < nc; i++)
        if (meas[i] > 0 && meas[i] < best) best = meas[i];
      double err = meas[0] > 0 ? fabs(pred[0] - meas[0]) / meas[0] : NAN;
      double gap = meas[0] > 0 ? meas[0] / best - 1 : NAN;
      double rho = nc >= 3 ? spearman(pred, meas, nc) : NAN;
      int a = err <= 0.25, b = gap <= 0.10;
      cases++, ok_pred += a, ok_best += b;
      if (me == 0) {
        printf("%s n=%-5lld P=%d summary: %d candidates, chosen predicted %.4f s measured %.4f s "
               "(error %.1f%% %s), best measured %.4f s (chosen +%.1f%% %s), spearman %.2f\n",
               opn, (long long)n, P, nc, pred[0], meas[0], 100 * err, a ? "ok" : "MISS", best,
               100 * gap, b ? "ok" : "MISS", rho);
        printf("{\"bench\":\"plan\",\"op\":\"%s\",\"n\":%lld,\"P\":%d,\"candidates\":%d,"
               "\"chosen\":\"%s\",\"predicted\":%.6g,\"measured\":%.6g,\"best_measured\":%.6g,"
               "\"error\":%.4g,\"gap\":%.4g,\"spearman\":%.4g,\"pred\":[",
               opn, (long long)n, P, nc, list[0].why, pred[0], meas[0], best, err, gap,
               isnan(rho) ? 0.0 : rho);
        for (int i = 0; i < nc; i++) printf("%s%.6g", i ? "," : "", pred[i]);
        printf("],\"meas\":[");
        for (int i = 0; i < nc; i++) printf("%s%.6g", i ? "," : "", meas[i]);
        printf("]}\n");
        fflush(stdout);
      }
    }
  }
  if (me == 0)
    printf("targets over %d cases: prediction within 25%%: %d; chosen within 10%% of best: %d\n",
           cases, ok_pred, ok_best);
  hbsp_free(&env);
  MPI_Finalize();
  return 0;
}
