/* hla — process grids: an M x N arrangement of an environment's ranks with row, column, node and
 * cross-node environments (HPL's grid, with BSP environments instead of communicators). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist/layout/layout_impl.h"
#include "dist/plan/probe.h"
#include "kernels/kernels.h"

int hdist_check_same(hbsp_env env, const int64_t *v, int k, int *same) {
  int64_t buf[32] = {0}, out[32];
  if (k > 16) return HBSP_FAIL(env, HLA_ERR_INTERNAL, "hdist_check_same: k = %d > 16", k);
  /* max(v) and max(-v) = -min(v) in one reduction */
  for (int i = 0; i < k; i++) buf[i] = v[i], buf[k + i] = -v[i];
  /* MPI's own: the arguments are known to match, and nothing is allocated (hbsp_allreduce would
   * spend a second allreduce agreeing on that) */
  if (MPI_Allreduce(buf, out, 2 * k, MPI_INT64_T, MPI_MAX, hbsp_comm(env)) != MPI_SUCCESS)
    return HBSP_FAIL(env, HLA_ERR_MPI, "hdist_check_same: MPI_Allreduce failed");
  *same = 1;
  for (int i = 0; i < k; i++)
    if (out[i] != -out[k + i]) *same = 0;
  return HLA_OK;
}

int hdist_sync_count(hbsp_env env, size_t *nmsg) {
  HLA_CALL(hbsp_sync(env));
  return hbsp_qsize(env, nmsg, NULL);
}

int hdist_agree_args(const char *fn, const hmat *x, const char *const *names, int n,
                     const int64_t *v, int k, hbsp_env *env) {
  *env = NULL;
  int first = -1;
  for (int i = 0; i < n && first < 0; i++)
    if (x[i] != NULL) first = i;
  if (first < 0) return HLA_ERR_ARG; /* nothing to talk through: documented per call */
  hbsp_env all = *env = x[first]->g->all;
  if (n + k > 16) return HBSP_FAIL(all, HLA_ERR_INTERNAL, "%s: %d words to agree on", fn, n + k);
  int64_t w[16];
  for (int i = 0; i < n; i++) w[i] = x[i] == NULL;
  for (int i = 0; i < k; i++) w[n + i] = v[i];
  int same;
  HLA_CALL(hdist_check_same(all, w, n + k, &same));
  for (int i = 0; i < n; i++)
    if (same && w[i]) return HBSP_FAIL_ALL(all, HLA_ERR_ARG, "%s: %s is NULL", fn, names[i]);
  /* a NULL handle on some ranks only, or the other words differing: which one, on every rank */
  for (int i = 0; !same && i < n; i++) {
    int64_t any = w[i], all_null = w[i];
    HLA_CALL(hbsp_allreduce(all, &w[i], &any, 1, HBSP_INT64, HBSP_MAX, NULL));
    HLA_CALL(hbsp_allreduce(all, &w[i], &all_null, 1, HBSP_INT64, HBSP_MIN, NULL));
    if (any != all_null)
      return HBSP_FAIL_ALL(all, HLA_ERR_ARG, "%s: %s is NULL on some ranks only", fn, names[i]);
  }
  if (!same) return HBSP_FAIL_ALL(all, HLA_ERR_ARG, "%s: arguments differ between ranks", fn);
  return HLA_OK;
}

int hdist_check_elem(hbsp_env env, const char *fn, const hmat *x, const char *const *names, int n,
                     hla_elem elem) {
  for (int i = 0; i < n; i++)
    if (x[i] != NULL && x[i]->elem != elem)
      return HBSP_FAIL_ALL(env, HLA_ERR_ARG, "%s: %s holds %s, %s holds %s (one type for all)", fn,
                           names[0], x[0]->elem == HLA_FLOAT ? "float" : "double", names[i],
                           x[i]->elem == HLA_FLOAT ? "float" : "double");
  return HLA_OK;
}

/* The most square M x N = P with M <= N. */
static void auto_shape(int P, int *M, int *N) {
  int m = 1;
  for (int d = 1; (int64_t)d * d <= P; d++)
    if (P % d == 0) m = d;
  *M = m;
  *N = P / m;
}

/* Free whatever part of the grid exists. Collective over g->all (every environment of a grid has
 * been made by all its ranks or by none). Returns the first error. */
static int grid_destroy(hgrid g) {
  int code = hbsp_board_free(&g->rowb.b), e = hbsp_board_free(&g->colb.b);
  if (code == HLA_OK) code = e;
  hbsp_env *envs[] = {&g->cross, &g->node, &g->col, &g->row, &g->all};
  for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
    if (*envs[i] == NULL) continue;
    e = hbsp_free(envs[i]);
    if (code == HLA_OK) code = e;
  }
  free(g->machine);
  for (int i = 0; i < HDIST_BLOCKS; i++) hdist_unstore(g->cache[i].p);
  free(g);
  return code;
}

/* Binding that costs threads (cut: on this rank the policy gave fewer threads than it would to a
 * rank bound to its launcher's cores, and some of those cores no rank of the node's is bound to):
 * agreed over the grid, noted on the grid for the reports' why, and said on stderr by rank 0,
 * once per hbsp_init family and situation (hbsp_once). Not once per grid: programs make many
 * grids over the same ranks, and the advice does not change. Not once per process either, which
 * would take global state; a program that calls hbsp_init again is told again. w: the maxima over
 * the grid of cut, of -threads where cut, of the threads the policy would give unbound and of the
 * ranks on the node there (grid_build's reduction). Local. */
static int idle_cores_note(hgrid g, const int64_t *w64) {
  const int w[4] = {(int)w64[0], (int)w64[1], (int)w64[2], (int)w64[3]};
  g->cores_note[0] = 0;
  if (!w[0]) return HLA_OK;
  int threads = -w[1];
  snprintf(g->cores_note, sizeof g->cores_note,
           "; %d of %d cores per rank: ranks bound to fewer cores (mpirun --bind-to none)", threads,
           w[2]);
  const hla_settings *s = hbsp_settings(g->all);
  uint64_t key = (uint64_t)threads | (uint64_t)w[2] << 21 | (uint64_t)w[3] << 42;
  if (g->myrow == 0 && g->mycol == 0 && !s->quiet && hbsp_once(g->all, key))
    fprintf(stderr,
            "hla: warning: %d BLAS thread%s per rank where %d could run: the MPI launcher bound "
            "each rank to fewer cores than its share of the node, and left cores idle; run with "
            "`mpirun --bind-to none` or `--map-by ppr:%d:node:pe=%d` (HLA_QUIET=1: no such "
            "advice)\n",
            threads, threads == 1 ? "" : "s", w[2], w[3], w[2]);
  return HLA_OK;
}

/* The part of hgrid_create after validation: environments, node level, thread policy. */
static int grid_build(hgrid g, hbsp_env env) {
  int rank = g->myrow * g->N + g->mycol; /* ALL is ranked row-major, whatever env's order */
  HLA_CALL(hbsp_split_named(env, 0, rank, "grid", &g->all)); /* own traffic */
  HLA_CALL(hbsp_split_named(g->all, g->myrow, g->mycol, "row", &g->row));
  HLA_CALL(hbsp_split_named(g->all, g->mycol, g->myrow, "col", &g->col));
  HLA_CALL(hbsp_node(g->all, &g->node));
  g->node_size = hbsp_size(g->node);
  g->node_rank = hbsp_rank(g->node);
  HLA_CALL(hbsp_split_named(g->all, g->node_rank, rank, "cross", &g->cross));
  /* my row (column) on one node: the lowest grid rank of each node names it, the row (column)
   * compares the names. MPI's own allreduces: nothing to allocate, arguments known to match. */
  int id[2] = {rank, 0}, lim[4] = {0, 1, 0, 1};
  int e = MPI_Allreduce(&rank, &id[0], 1, MPI_INT, MPI_MIN, hbsp_comm(g->node));
  id[1] = -id[0];
  e |= MPI_Allreduce(id, lim, 2, MPI_INT, MPI_MAX, hbsp_comm(g->row));
  e |= MPI_Allreduce(id, lim + 2, 2, MPI_INT, MPI_MAX, hbsp_comm(g->col));
  g->rowb.on_node = lim[0] == -lim[1];
  g->colb.on_node = lim[2] == -lim[3];

  /* The thread policy needs the ranks that really share this node's cores, which virtual nodes
   * (HLA_VIRTUAL_NODES) do not tell; and what their affinity masks cover, to see cores that the
   * launcher's binding left idle (mine and my launcher's masks, OR-ed over the node). */
  uint64_t mask[2 * HKERN_CPU_WORDS], node_mask[2 * HKERN_CPU_WORDS];
  hkern_affinity_masks(mask, mask + HKERN_CPU_WORDS);
  MPI_Comm shm = MPI_COMM_NULL; /* every rank takes part in each call: none waits for another */
  e |= MPI_Comm_split_type(hbsp_comm(g->all), MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
  int code = HLA_OK, shm_size = 1;
  if (shm != MPI_COMM_NULL) {
    MPI_Comm_size(shm, &shm_size);
    e |= MPI_Allreduce(mask, node_mask, 2 * HKERN_CPU_WORDS, MPI_UINT64_T, MPI_BOR, shm);
    MPI_Comm_free(&shm);
  }
  if (e != MPI_SUCCESS)
    code = HBSP_FAIL(g->all, HLA_ERR_MPI, "hgrid_create: the node's ranks and cores (MPI error)");
  int requested = hbsp_settings(g->all)->num_threads, could = 0, idle = 0;
  if (code == HLA_OK) code = hkern_threads_apply(requested, shm_size, &g->threads);
  if (code == HLA_OK) {
    int launcher = 0;
    for (int i = 0; i < HKERN_CPU_WORDS; i++) {
      launcher += __builtin_popcountll(mask[HKERN_CPU_WORDS + i]);
      idle += __builtin_popcountll(node_mask[HKERN_CPU_WORDS + i] & ~node_mask[i]);
    }
    could = hkern_threads_unbound(requested, shm_size, hkern_node_cores(), launcher, g->threads);
  }
  /* One reduction over the grid for all of it: the lowest failing rank (its verdict is then
   * everyone's), the idle cores' note and the number of nodes (the cross environment of the
   * nodes' first ranks holds one rank per node). At 4,096 simulated ranks every reduction over
   * all of them costs seconds of the simulator's time. */
  const int cut = could > 0 && idle > 0, P = hbsp_size(g->all);
  int64_t v[6] = {code != HLA_OK ? P - rank : 0,
                  cut,
                  cut ? -g->threads : -INT_MAX,
                  cut ? could : 0,
                  cut ? shm_size : 0,
                  g->node_rank == 0 ? hbsp_size(g->cross) : 0},
          w[6];
  if (MPI_Allreduce(v, w, 6, MPI_INT64_T, MPI_MAX, hbsp_comm(g->all)) != MPI_SUCCESS)
    return HBSP_FAIL(g->all, HLA_ERR_MPI, "hgrid_create: MPI_Allreduce failed");
  if (w[0] > 0) return hbsp_agree(g->all, code);
  g->nnodes = (int)w[5];
  hkern_sim_set(hbsp_settings(g->all)->sim_model); /* rank 0's value: the same everywhere */
  return idle_cores_note(g, w + 1);
}

static int env_board(hbsp_env env, hdist_board *kb, size_t bytes, hbsp_board *board) {
  if (kb->b && hbsp_board_bytes(kb->b) < bytes) HLA_CALL(hbsp_board_free(&kb->b));
  if (kb->b == NULL && kb->on_node && hbsp_size(env) > 1 && (kb->none == 0 || bytes < kb->none)) {
    HLA_CALL(hbsp_board_create(env, bytes, 2, &kb->b));
    if (kb->b == NULL) kb->none = bytes; /* not again for as much */
  }
  *board = kb->b;
  return HLA_OK;
}

int hdist_row_board(hgrid g, size_t bytes, hbsp_board *board) {
  return env_board(g->row, &g->rowb, bytes, board);
}

int hdist_col_board(hgrid g, size_t bytes, hbsp_board *board) {
  return env_board(g->col, &g->colb, bytes, board);
}

/* hgrid_create(M = N = 0): the shape of the planner's best LU (of order HLA_PLAN_N, default
 * 4096 sqrt(P)) on env when there is a machine model (hplan_obtain: the machine file or a probe);
 * *M = *N = 0 when there is none. *mach gets the model (malloc'ed, for the grid to keep) or NULL.
 * Collective over env; errors agreed. */
static int planned_shape(hbsp_env env, int *M, int *N, hplan_machine **mach) {
  *M = *N = 0, *mach = NULL;
  hbsp_env node = NULL;
  HLA_CALL(hbsp_node(env, &node));
  int leader = hbsp_rank(node) == 0, nodes = 0;
  int code = hbsp_allreduce(env, &leader, &nodes, 1, HBSP_INT, HBSP_SUM, NULL);
  int e = hbsp_free(&node);
  HLA_CALL(code);
  HLA_CALL(e);
  hplan_machine *m = NULL;
  HLA_CALL(hplan_obtain(env, nodes, &m));
  if (m == NULL) return HLA_OK;
  int P = hbsp_size(env);
  int64_t n0 = hbsp_settings(env)->plan_n; /* the same on every rank */
  if (n0 <= 0) n0 = ((int64_t)(4096 * sqrt((double)P)) + 255) / 256 * 256;
  code = hplan_shape(m, P, nodes, n0, M, N);
  /* the same arithmetic everywhere; only a failed malloc can differ */
  code = hbsp_agree(env,
                    code == HLA_OK ? HLA_OK : HBSP_FAIL(env, code, "hgrid_create: planner failed"));
  if (code != HLA_OK) {
    free(m);
    *M = *N = 0;
    return code;
  }
  *mach = m;
  return HLA_OK;
}

/* hgrid_create and hgrid_create_order ('R' or 'C'; 0: hgrid_create, where M = N = 0 plans). */
static int grid_create(hbsp_env env, int M, int N, char order, hgrid *gout) {
  if (env == NULL) return HLA_ERR_ARG;
  int P = hbsp_size(env), rank = hbsp_rank(env), code = HLA_OK;
  int64_t shape[3] = {M, N, order};
  int same;
  hplan_machine *mach = NULL;
  HLA_CALL(hdist_check_same(env, shape, 3, &same));
  if (!same)
    code = HBSP_FAIL(env, HLA_ERR_ARG, "hgrid_create: M, N or the order differ between ranks");
  else if (order != 0 && order != 'R' && order != 'C')
    code = HBSP_FAIL(env, HLA_ERR_ARG, "hgrid_create_order: order '%c' (use 'R' or 'C')",
                     order >= 32 && order < 127 ? order : '?');
  else if (order != 0 && (M == 0 || N == 0))
    code = HBSP_FAIL(env, HLA_ERR_ARG, "hgrid_create_order: shape %d x %d", M, N);
  else if (M < 0 || N < 0)
    code = HBSP_FAIL(env, HLA_ERR_ARG, "hgrid_create: negative shape %d x %d", M, N);
  else if (M == 0 && N == 0) { /* the planner's shape when there is a machine model */
    code = planned_shape(env, &M, &N, &mach);
    if (code == HLA_OK && M == 0) auto_shape(P, &M, &N);
  } else if ((int64_t)M * N != P)
    code = HBSP_FAIL(env, HLA_ERR_ARG, "hgrid_create: %d x %d grid over %d ranks", M, N, P);
  if (code == HLA_OK && gout == NULL) code = HBSP_FAIL(env, HLA_ERR_ARG, "hgrid_create: g is NULL");
  hgrid g = NULL;
  if (code == HLA_OK && (g = calloc(1, sizeof *g)) == NULL)
    code = HBSP_FAIL(env, HLA_ERR_NOMEM, "hgrid_create: out of memory");
  code = hbsp_agree(env, code);
  if (code != HLA_OK) {
    free(g);
    free(mach);
    HLA_CALL(code);
  }
  g->machine = mach, g->plan_state = mach ? 1 : 0;
  g->parent = env;
  g->M = M, g->N = N;
  if (order == 'C')
    g->myrow = rank % M, g->mycol = rank / M;
  else
    g->myrow = rank / N, g->mycol = rank % N;
  code = grid_build(g, env);
  if (code != HLA_OK) {
    /* Every step above is collective with agreed errors, so all ranks stop at the same step and
     * can free together what exists. */
    if (g->all != NULL) HBSP_FAIL(env, code, "hgrid_create: %s", hbsp_errmsg(g->all));
    grid_destroy(g);
    HLA_CALL(code);
  }
  *gout = g;
  return HLA_OK;
}

int hgrid_create(hbsp_env env, int M, int N, hgrid *gout) {
  return grid_create(env, M, N, 0, gout);
}

int hgrid_create_order(hbsp_env env, int M, int N, char order, hgrid *gout) {
  return grid_create(env, M, N, order, gout);
}

int hgrid_free(hgrid *gp) {
  if (gp == NULL || *gp == NULL) return HLA_ERR_ARG;
  hgrid g = *gp;
  int code = HLA_OK;
  if (g->nmat > 0)
    code = HBSP_FAIL(g->all, HLA_ERR_STATE, "hgrid_free: %d matrices still on the grid", g->nmat);
  HLA_CALL(hbsp_agree(g->all, code));
  *gp = NULL;
  HLA_CALL(grid_destroy(g));
  return HLA_OK;
}

int hgrid_shape(hgrid g, int *M, int *N, int *myrow, int *mycol) {
  if (g == NULL) return HLA_ERR_ARG;
  if (M) *M = g->M;
  if (N) *N = g->N;
  if (myrow) *myrow = g->myrow;
  if (mycol) *mycol = g->mycol;
  return HLA_OK;
}

int hgrid_env(hgrid g, hgrid_level level, hbsp_env *env) {
  if (g == NULL || env == NULL) return HLA_ERR_ARG;
  switch (level) {
  case HGRID_ALL:
    *env = g->all;
    return HLA_OK;
  case HGRID_ROW:
    *env = g->row;
    return HLA_OK;
  case HGRID_COL:
    *env = g->col;
    return HLA_OK;
  case HGRID_NODE:
    *env = g->node;
    return HLA_OK;
  case HGRID_CROSS:
    *env = g->cross;
    return HLA_OK;
  }
  return HLA_ERR_ARG;
}

int hgrid_rank(hgrid g, int prow, int pcol) {
  if (g == NULL || prow < 0 || prow >= g->M || pcol < 0 || pcol >= g->N) return -1;
  return prow * g->N + pcol;
}

int hgrid_coords(hgrid g, int rank, int *prow, int *pcol) {
  if (g == NULL || rank < 0 || rank >= g->M * g->N) return HLA_ERR_ARG;
  if (prow) *prow = rank / g->N;
  if (pcol) *pcol = rank % g->N;
  return HLA_OK;
}

int hgrid_nodes(hgrid g, int *nnodes, int *node_size, int *node_rank) {
  if (g == NULL) return HLA_ERR_ARG;
  if (nnodes) *nnodes = g->nnodes;
  if (node_size) *node_size = g->node_size;
  if (node_rank) *node_rank = g->node_rank;
  return HLA_OK;
}

int hgrid_threads(hgrid g) {
  return g ? g->threads : -1;
}

void hdist_why_note(hgrid g, char *why, size_t size) {
  size_t note = strlen(g->cores_note), len = strnlen(why, size);
  if (note == 0 || note >= size) return;
  if (len > size - 1 - note) len = size - 1 - note; /* the note wins over why's tail */
  memcpy(why + len, g->cores_note, note + 1);
}

const char *hgrid_errmsg(hgrid g) {
  return g ? hbsp_errmsg(g->all) : "";
}

/* ---------------------------------------------------------------- the grid's machine model */

int hplan_grid_machine(hgrid g, const hplan_machine **m) {
  if (g == NULL) return HLA_ERR_ARG;
  HLA_CALL(hbsp_agree(g->all, m ? HLA_OK
                                : HBSP_FAIL(g->all, HLA_ERR_ARG, "hplan_grid_machine: m is NULL")));
  return hdist_grid_machine(g, m);
}

int hdist_grid_machine(hgrid g, const hplan_machine **m) {
  if (g->plan_state == 0) {
    hplan_machine *mach = NULL;
    HLA_CALL(hplan_obtain(g->all, g->nnodes, &mach));
    g->machine = mach;
    g->plan_state = mach ? 1 : -1;
  }
  *m = g->machine;
  return HLA_OK;
}

int hplan_grid_set(hgrid g, const hplan_machine *m) {
  if (g == NULL) return HLA_ERR_ARG;
  /* a model enters the library here: rank 0's is checked (a NaN model would plan nonsense) */
  char why[160] = "";
  int have = m != NULL, code = HLA_OK;
  if (hbsp_rank(g->all) == 0 && have && hplan_check(m, why, sizeof why) != HLA_OK)
    code = HBSP_FAIL(g->all, HLA_ERR_ARG, "hplan_grid_set: unusable model (%s)", why);
  HBSP_MPI(g->all, MPI_Bcast(&have, 1, MPI_INT, 0, hbsp_comm(g->all)));
  hplan_machine *copy = have ? malloc(sizeof *copy) : NULL;
  if (code == HLA_OK && have && !copy)
    code = HBSP_FAIL(g->all, HLA_ERR_NOMEM, "hplan_grid_set: out of memory");
  code = hbsp_agree(g->all, code);
  if (code != HLA_OK) {
    free(copy);
    hla_trace(__FILE__, __LINE__, code);
    return code;
  }
  if (have) {
    if (hbsp_rank(g->all) == 0) *copy = *m;
    HBSP_MPI(g->all, MPI_Bcast(copy, (int)sizeof *copy, MPI_BYTE, 0, hbsp_comm(g->all)));
  }
  free(g->machine);
  g->machine = copy;
  g->plan_state = have ? 1 : -1;
  return HLA_OK;
}
