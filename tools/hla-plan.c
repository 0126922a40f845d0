/* hla-plan — print the planner's choice and ranking for a multiply or an LU.
 *
 *   hla-plan [--op mm|lu|both] [--n N] [--m M] [--k K] [--nrhs R]
 *            [--P P] [--nodes K] [--rpn R] [--threads T] [--grid MxN] [--groups IxJ]
 *            [--nb B] [--top 10] [--machine FILE] [--probe] [--save] [--show]
 *            [--intra A,B] [--inter A,B] [--torus XxYxZ] [--torus-link H,B] [--leaf L]
 *            [--pairwise] [--relabel G] [--algs summa,hsumma,3d,reduce]
 *            [--bcast native|flat|binomial|pipeline|scatter_allgather]
 *
 * The machine model comes from FILE (default: HLA_MACHINE_FILE, else ~/.cache/hla/machine.json;
 * the entry of this host, preferring the one measured with --P ranks, else any), or from a fresh
 * probe of the ranks this runs on (--probe; mpiexec -n P hla-plan --probe), which --save writes to
 * FILE. --intra/--inter override the point-to-point links (alpha seconds, beta seconds per byte),
 * to plan for a network that is not at hand. --torus puts the target's nodes on a torus of those
 * dimensions (1 to 4, the first varying fastest; hplan_target.torus; default: the machine file's
 * torus where it holds them) whose links take H seconds a hop and B seconds a byte in each
 * direction (--torus-link; default: the machine file's torus_link): the model then routes the
 * broadcasts on it. --leaf puts the target's nodes in leaves of L nodes on the machine file's
 * non-blocking network (hplan_target.leaf_nodes; its port_beta and spine_alpha; default: the
 * machine file's leaf_nodes). The target: P ranks (default: the model's) on
 * --nodes nodes (default: the model's when P is its P, else one rank per core); with --nodes
 * and no --P, every ranks-per-node / threads-per-rank split of the cores is tried. --grid and --nb
 * fix the grid and block size, --groups the multiply's HSUMMA groups; --algs limits the multiply to
 * the algorithms named, --bcast fixes the broadcasts of the multiply's panels and of the LU
 * (hla_opts.bcast.alg; default: the multiply's MPI_Ibcast, overlapped, and the LU's own choice).
 * --pairwise runs the pairwise benchmark on the ranks this runs on and prints the latency and
 * bandwidth matrices;
 * --relabel G then relabels them into G subsets (Kernighan-Lin) and prints the rank order for
 * hbsp_reorder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hla.h"

typedef struct {
  int op; /* 1 mm, 2 lu, 3 both */
  int64_t m, n, k;
  int nrhs, P, nodes, rpn, threads, M, N, gi, gj, nb, top, probe, save, show, pairwise, relabel,
      algs, bcast;
  const char *file;
  int have_intra, have_inter;
  hplan_link intra, inter;
  int torus[HPLAN_TORUS_DIMS], have_torus_link, leaf;
  double torus_link[2];
} topts;

static void usage(void) {
  fprintf(stderr,
          "usage: hla-plan [--op mm|lu|both] [--n N] [--m M] [--k K] [--nrhs R] [--P P]\n"
          "                [--nodes K] [--rpn R] [--threads T] [--grid MxN] [--groups IxJ]\n"
          "                [--nb B] [--top 10]\n"
          "                [--machine FILE] [--probe] [--save] [--show] [--intra A,B]\n"
          "                [--inter A,B] [--torus XxYxZ] [--torus-link H,B] [--leaf L]\n"
          "                [--pairwise] [--relabel G] [--algs summa,hsumma,3d,reduce]\n"
          "                [--bcast native|flat|binomial|pipeline|scatter_allgather]\n");
}

static int parse(int argc, char **argv, topts *o) {
  memset(o, 0, sizeof *o);
  o->op = 3, o->n = 4096, o->top = 10;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEXT()                                                                                     \
  do {                                                                                             \
    if (v == NULL) return -1;                                                                      \
    i++;                                                                                           \
  } while (0)
    if (!strcmp(a, "--op")) {
      NEXT();
      o->op = !strcmp(v, "mm") ? 1 : !strcmp(v, "lu") ? 2 : !strcmp(v, "both") ? 3 : 0;
      if (!o->op) return -1;
    } else if (!strcmp(a, "--n")) {
      NEXT();
      o->n = atoll(v);
    } else if (!strcmp(a, "--m")) {
      NEXT();
      o->m = atoll(v);
    } else if (!strcmp(a, "--k")) {
      NEXT();
      o->k = atoll(v);
    } else if (!strcmp(a, "--nrhs")) {
      NEXT();
      o->nrhs = atoi(v);
    } else if (!strcmp(a, "--P")) {
      NEXT();
      o->P = atoi(v);
    } else if (!strcmp(a, "--nodes")) {
      NEXT();
      o->nodes = atoi(v);
    } else if (!strcmp(a, "--rpn")) {
      NEXT();
      o->rpn = atoi(v);
    } else if (!strcmp(a, "--threads")) {
      NEXT();
      o->threads = atoi(v);
    } else if (!strcmp(a, "--grid")) {
      NEXT();
      if (sscanf(v, "%dx%d", &o->M, &o->N) != 2) return -1;
    } else if (!strcmp(a, "--groups")) {
      NEXT();
      if (sscanf(v, "%dx%d", &o->gi, &o->gj) != 2) return -1;
    } else if (!strcmp(a, "--nb")) {
      NEXT();
      o->nb = atoi(v);
    } else if (!strcmp(a, "--top")) {
      NEXT();
      o->top = atoi(v);
    } else if (!strcmp(a, "--machine")) {
      NEXT();
      o->file = v;
    } else if (!strcmp(a, "--intra") || !strcmp(a, "--inter")) {
      NEXT();
      hplan_link l;
      if (sscanf(v, "%lf,%lf", &l.alpha, &l.beta) != 2) return -1;
      if (a[3] == 'n' && a[4] == 't' && a[5] == 'r')
        o->intra = l, o->have_intra = 1;
      else
        o->inter = l, o->have_inter = 1;
    } else if (!strcmp(a, "--torus")) {
      NEXT();
      int d = 0;
      for (const char *p = v; *p && d < HPLAN_TORUS_DIMS; d++) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || x < 1 || x > 65536 || (*end && *end != 'x')) return -1;
        o->torus[d] = (int)x;
        p = *end ? end + 1 : end;
      }
    } else if (!strcmp(a, "--torus-link")) {
      NEXT();
      if (sscanf(v, "%lf,%lf", &o->torus_link[0], &o->torus_link[1]) != 2) return -1;
      o->have_torus_link = 1;
    } else if (!strcmp(a, "--leaf")) {
      NEXT();
      o->leaf = atoi(v);
      if (o->leaf < 1) return -1;
    } else if (!strcmp(a, "--relabel")) {
      NEXT();
      o->relabel = atoi(v), o->pairwise = 1;
    } else if (!strcmp(a, "--algs")) { /* the multiply's algorithms the planner may use */
      NEXT();
      const char *names[] = {"summa", "hsumma", "3d", "reduce"};
      for (const char *p = v; *p;) {
        size_t len = strcspn(p, ",");
        int k = 0;
        while (k < 4 && (strlen(names[k]) != len || strncmp(p, names[k], len))) k++;
        if (k == 4) return -1;
        o->algs |= 1 << (HLA_MM_SUMMA + k);
        p += len + (p[len] == ',');
      }
    } else if (!strcmp(a, "--bcast")) { /* the multiply's panel broadcasts (hbsp_alg) */
      NEXT();
      const char *names[] = {"native", "flat", "binomial", "pipeline", "scatter_allgather"};
      int k = 0;
      while (k < 5 && strcmp(v, names[k])) k++;
      if (k == 5) return -1;
      o->bcast = HBSP_NATIVE + k;
    } else if (!strcmp(a, "--probe")) {
      o->probe = 1;
    } else if (!strcmp(a, "--save")) {
      o->save = 1;
    } else if (!strcmp(a, "--show")) {
      o->show = 1;
    } else if (!strcmp(a, "--pairwise")) {
      o->pairwise = 1;
    } else {
      return -1;
    }
  }
  if (o->m <= 0) o->m = o->n;
  if (o->k <= 0) o->k = o->n;
  return o->n > 0 ? 0 : -1;
}

static void show_machine(const hplan_machine *m) {
  printf("machine %s: P=%d nodes=%d ranks/node=%d cores/node=%d threads=%d probe %.2f s\n", m->host,
         m->P, m->nodes, m->ranks_per_node, m->cores_per_node, m->threads, m->seconds);
  printf("  dgemm %.2f GF/s per rank (khalf %.0f, mhalf %.0f); alone with t threads:",
         m->gemm_rate / 1e9, m->gemm_khalf, m->gemm_mhalf);
  for (int t = 0; t < m->nthreads && t < 8; t++) printf(" %.1f", m->gemm_threads[t] / 1e9);
  printf("\n  panel LU %.2f GF/s (half %.0f); dgetrf %.2f GF/s (half %.0f); copy %.2f GB/s; "
         "DAXPY r %.2f GF/s; fresh memory %.2f GB/s\n",
         m->panel_rate / 1e9, m->panel_half, m->getrf_rate / 1e9, m->getrf_half, m->copy_rate / 1e9,
         m->r / 1e9, m->alloc_rate / 1e9);
  printf("  link intra alpha %.3g s beta %.3g s/B (%.2f GB/s); inter alpha %.3g beta %.3g%s\n",
         m->link[0].alpha, m->link[0].beta, m->link[0].beta > 0 ? 1e-9 / m->link[0].beta : 0,
         m->link[1].alpha, m->link[1].beta, m->have_inter ? "" : " (not measured)");
  if (m->node_bw > 0)
    printf("  node memory %.2f GB/s of messages, all ranks at once; intra alone alpha %.3g s beta "
           "%.3g s/B (%.2f GB/s)\n",
           m->node_bw / 1e9, m->intra_alone.alpha, m->intra_alone.beta,
           m->intra_alone.beta > 0 ? 1e-9 / m->intra_alone.beta : 0);
  if (m->no_board) printf("  no node boards: the LU's panels on one node go by messages\n");
  const char *names[HPLAN_NENV] = {"world", "node", "row", "col"};
  for (int i = 0; i < HPLAN_NENV; i++)
    if (m->env_p[i] > 1)
      printf("  BSP %-5s p=%d g=%.3g s/word l=%.3g s allreduce %.3g s\n", names[i], m->env_p[i],
             m->g[i], m->l[i], m->ar[i]);
  printf("  world bcast (8 B / 64 KiB / 1 MiB):");
  const char *an[6] = {"", "native", "flat", "binomial", "pipeline", "sag"};
  for (int a = 1; a < 6; a++)
    printf(" %s %.3g/%.3g/%.3g", an[a], m->bcast[a][0], m->bcast[a][1], m->bcast[a][2]);
  printf("\n  MPI_Ibcast of 1 MiB (world / all rows / all columns): %.3g / %.3g / %.3g s",
         m->ibcast[HPLAN_IB_WORLD], m->ibcast[HPLAN_IB_ROWS], m->ibcast[HPLAN_IB_COLS]);
  printf("\n  overlap of a broadcast behind a dgemm: %.2f; a collective after computing: +%.3g s\n",
         m->overlap, m->sync_load);
  printf("  calibration (measured / modelled): LU %.3f, multiply %.3f\n", m->lu_cal, m->mm_cal);
  double kappa[6];
  int native_as;
  hplan_bcast_calibration(m, kappa, &native_as);
  printf("  broadcasts' calibration:");
  for (int a = 1; a < 6; a++) printf(" %s %.3g", an[a], kappa[a]);
  if (native_as > 0) printf(" (MPI's measured as %s)", an[native_as]);
  printf("\n");
  if (m->torus[0] > 0) {
    printf("  torus");
    for (int d = 0; d < HPLAN_TORUS_DIMS && m->torus[d] > 0; d++)
      printf("%s%d", d ? "x" : " ", m->torus[d]);
    printf(": %.3g s a hop, %.3g s/B (%.2f GB/s) a link direction; a short message %.3g s a hop\n",
           m->torus_link[0], m->torus_link[1], m->torus_link[1] > 0 ? 1e-9 / m->torus_link[1] : 0,
           m->torus_hop_alpha);
  }
  if (m->port_beta > 0)
    printf("  a node's port into a non-blocking network: %.3g s/B (%.2f GB/s) each way\n",
           m->port_beta, 1e-9 / m->port_beta);
  if (m->leaf_nodes > 0)
    printf("  nodes a leaf switch: %d; between leaves +%.3g s a message\n", m->leaf_nodes,
           m->spine_alpha);
  if (m->size_factor[1] > 0) {
    printf("  by message size, rate and latency against a long and a short message's:");
    for (int i = 0; i < HPLAN_NSIZE && m->size_factor[3 * i + 1] > 0; i++)
      printf("%s %.0f B %.3g %.3g", i ? ";" : "", m->size_factor[3 * i], m->size_factor[3 * i + 1],
             m->size_factor[3 * i + 2]);
    printf("\n");
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  topts o;
  if (parse(argc, argv, &o) != 0) {
    if (me == 0) usage();
    MPI_Finalize();
    return 2;
  }
  char path[1024] = "";
  if (o.file)
    snprintf(path, sizeof path, "%s", o.file);
  else
    hplan_default_path(path, sizeof path);

  hplan_machine m;
  int have = 0, rc = 0;
  hbsp_env env = NULL;
  if (hbsp_init(MPI_COMM_WORLD, &env) != HLA_OK) {
    fprintf(stderr, "hla-plan: hbsp_init failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (o.probe) {
    int e = hplan_probe(env, &m);
    if (e != HLA_OK) {
      if (me == 0) fprintf(stderr, "hla-plan: probe failed: %s\n", hbsp_errmsg(env));
      rc = 1;
    } else {
      have = 1;
      if (o.save && me == 0) {
        char why[200] = "";
        int e2 = path[0] ? hplan_save(&m, path) : HLA_ERR_STATE;
        if (e2 == HLA_ERR_ARG) hplan_check(&m, why, sizeof why);
        if (e2 != HLA_OK)
          fprintf(stderr, "hla-plan: cannot save to '%s': %s\n", path,
                  e2 == HLA_ERR_ARG     ? why
                  : e2 == HLA_ERR_STATE ? "it cannot be written, or it holds something other than "
                                          "an hla machine file (left as it is)"
                                        : hla_strerror(e2)),
              rc = 1;
        else
          printf("saved the machine model to %s\n", path);
      }
    }
  } else if (me == 0) {
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    have = path[0] && (hplan_load(&m, path, host, o.P, 0) == HLA_OK ||
                       hplan_load(&m, path, host, 0, 0) == HLA_OK ||
                       hplan_load(&m, path, NULL, 0, 0) == HLA_OK);
    if (!have)
      fprintf(stderr,
              "hla-plan: no valid machine model in '%s' (none, or only malformed or unusable "
              "entries; run: mpiexec -n P hla-plan --probe --save)\n",
              path[0] ? path : "(no path)");
  }
  MPI_Bcast(&have, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (have && !o.probe) MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, 0, MPI_COMM_WORLD);

  if (have && o.pairwise && P > 1) {
    double *lat = malloc(sizeof(double) * P * P), *ib = malloc(sizeof(double) * P * P);
    if (lat && ib && hplan_pairwise(env, 0, 1, 0, 0, lat, ib) == HLA_OK && me == 0) {
      printf("pairwise latency (us):\n");
      for (int s = 0; s < P; s++) {
        for (int t = 0; t < P; t++) printf(" %7.2f", lat[s * P + t] * 1e6);
        printf("\n");
      }
      printf("pairwise bandwidth (GB/s):\n");
      for (int s = 0; s < P; s++) {
        for (int t = 0; t < P; t++) printf(" %7.2f", ib[s * P + t] > 0 ? 1e-9 / ib[s * P + t] : 0);
        printf("\n");
      }
      if (o.relabel > 1 && P % o.relabel == 0) {
        int *order = malloc(sizeof(int) * P);
        if (order && hplan_relabel_kl(P, lat, o.relabel, 0, order) == HLA_OK) {
          printf("relabelled order into %d subsets (position: rank):", o.relabel);
          for (int i = 0; i < P; i++) printf(" %d", order[i]);
          printf("\n");
        }
        free(order);
      }
    }
    free(lat), free(ib);
  }

  if (have && me == 0) {
    if (o.have_intra) m.link[HPLAN_INTRA] = o.intra;
    if (o.have_inter) m.link[HPLAN_INTER] = o.inter, m.have_inter = 1;
    if (o.have_torus_link) memcpy(m.torus_link, o.torus_link, sizeof m.torus_link);
    if (o.show || o.probe) show_machine(&m);
    char why[200];
    if (hplan_check(&m, why, sizeof why) != HLA_OK) /* --intra/--inter may make it so */
      fprintf(stderr, "hla-plan: the machine model is unusable: %s\n", why), rc = 1;
    hplan_target t;
    memset(&t, 0, sizeof t);
    t.P = o.P, t.nodes = o.nodes, t.ranks_per_node = o.rpn, t.threads = o.threads;
    t.M = o.M, t.N = o.N, t.mb = t.nb = o.nb, t.nrhs = o.nrhs;
    t.groups[0] = o.gi, t.groups[1] = o.gj;
    if (o.op == 1) t.algs = o.algs;
    t.bcast = o.bcast;
    memcpy(t.torus, o.torus, sizeof t.torus);
    t.leaf_nodes = o.leaf;
    hplan_ranking *r = malloc(sizeof *r);
    if (r && (o.op & 1)) {
      int e = hplan_matmul_rank(&m, o.m, o.n, o.k, &t, r);
      printf("\nmultiply C(%lld x %lld) = A B, k = %lld:\n", (long long)o.m, (long long)o.n,
             (long long)o.k);
      if (e == HLA_OK)
        hplan_print(r, o.top, stdout);
      else
        printf("  no plan (%s)\n", hla_strerror(e)), rc = 1;
    }
    if (r && (o.op & 2)) {
      int e = hplan_lu_rank(&m, o.n, &t, r);
      printf("\nLU of order %lld%s:\n", (long long)o.n, o.nrhs ? " and solve" : "");
      if (e == HLA_OK)
        hplan_print(r, o.top, stdout);
      else
        printf("  no plan (%s)\n", hla_strerror(e)), rc = 1;
    }
    free(r);
  }
  if (!have) rc = 1;
  hbsp_free(&env);
  MPI_Finalize();
  return rc;
}
