/* hla — collectives of the BSP layer: public entry points, error agreement, Hasanov's two-level
 * transformation and the per-environment cache of group sub-environments and workspace.
 *
 * Every collective here is collective over env (all ranks of env call it with the same root, size,
 * type, op and how; buffers are local). The base algorithms are in coll_bcast.c, coll_reduce.c and
 * coll_gather.c, with their costs. Algorithm choice (hbsp_coll.alg): HBSP_AUTO is HBSP_NATIVE for
 * now (MPI's tuned collectives are the safe default on one machine; the planner will replace
 * this rule with its own choice).
 *
 * Costs in the Hockney model: a message of m bytes costs alpha + m beta, combining m bytes costs
 * m gamma; P ranks, X = ceil(m / segment) pipeline segments, log2 = ceil(log2). One level means
 * G = 1 or G = P; two levels means G groups of Q = P/G ranks (the sum of the base costs at the
 * two levels: outer on G ranks, inner on Q).
 *
 * bcast            one level                              two levels
 *   FLAT           (P-1)(alpha + m beta)                  (G + Q - 2)(alpha + m beta)
 *   PIPELINE       (X + P - 2)(alpha + (m/X) beta)        (2X + G + Q - 4)(alpha + (m/X) beta)
 *   BINOMIAL       log2 P (alpha + m beta)                log2 G + log2 Q = log2 P: unchanged
 *   SCATTER_ALLG.  (log2 P + P - 1) alpha                 (log2 P + G + Q - 2) alpha
 *                    + 2 ((P-1)/P) m beta                   + 2 (2 - 1/G - G/P) m beta
 *                                                         (a gain iff alpha/beta > 2m/P)
 * reduce (c = beta + gamma)
 *   FLAT           (P-1)(alpha + m c)                     (G + Q - 2)(alpha + m c)
 *   PIPELINE       (X + P - 2)(alpha + (m/X) c)           (2X + G + Q - 4)(alpha + (m/X) c)
 *   BINOMIAL       log2 P (alpha + m c)                   unchanged
 *   SCATTER_ALLG.  2 log2 P alpha + 2((P-1)/P) m beta     2 log2 P alpha
 *                    + ((P-1)/P) m gamma                    + (2 - 1/G - G/P) m (2 beta + gamma):
 *                                                         worse, use G = 1
 * allreduce
 *   FLAT           2(P-1)(alpha + m beta) + (P-1) m gamma  2(G + Q - 2)(alpha + m beta)
 *                                                            + (G + Q - 2) m gamma
 *   PIPELINE       reduce + bcast: 2(X + P - 2)(alpha + (m/X) beta) + (X + P - 2)(m/X) gamma,
 *                  two levels the same with 2X + G + Q - 4 for X + P - 2
 *   BINOMIAL       recursive doubling log2 P (alpha + m c), unchanged by G
 *   SCATTER_ALLG.  Rabenseifner 2 log2 P alpha + 2((P-1)/P) m beta + ((P-1)/P) m gamma;
 *                  two levels 2 log2 P alpha + (2 - 1/G - G/P) m (2 beta + gamma): no gain
 * gather, scatter (m bytes per rank)
 *   FLAT           (P-1)(alpha + m beta)                  (G + Q - 2) alpha + (P-1) m beta
 *   BINOMIAL,      log2 P alpha + (P-1) m beta            log2 P alpha + (P-1) m beta
 *   SCATTER_ALLG.
 *   PIPELINE       ((P-1) X + P - 2)(alpha + (m/X) beta)  inner (Q, m) + outer (G, Q m)
 *   The outer level moves Q m bytes per message, so only the latency term can shrink: the
 *   thesis's eqs. 3.24-3.30 use m on both levels (an erratum); bandwidth stays (P-1) m beta.
 * allgather
 *   FLAT, ring     (P-1)(alpha + m beta)                  (G + Q - 2) alpha + (P-1) m beta
 *   (PIPELINE: ring with an alpha per extra segment; SCATTER_ALLGATHER: ring)
 *   BINOMIAL       log2 P alpha + (P-1) m beta (Bruck)    (log2 G + log2 Q) alpha + (P-1) m beta
 * For P not a power of two the Rabenseifner and recursive-doubling forms add one folding step
 * each way (see coll_reduce.c). The cost of making the group sub-environments (two hbsp_split,
 * once per G and env, then cached) is not in these formulas.
 *
 * Two-level forms (Hasanov, Algorithms 1-5): groups are the G blocks of Q consecutive ranks; the
 * inner environment of a rank is its group (ranked by local index), the outer one the G ranks with
 * the same local index (ranked by group). The outer step runs among the ranks whose local index is
 * the root's, so any root works:
 *   bcast:     outer bcast from the root's group, then inner bcast from the root's local index;
 *   reduce:    inner reduce to the root's local index, then outer reduce to the root's group;
 *   allreduce: inner allreduce, then outer allreduce among same-index ranks (all Q of them);
 *   scatter:   outer scatter of Q m-byte chunks, then inner scatter;
 *   gather:    inner gather, then outer gather of Q m-byte chunks;
 *   allgather: inner allgather into this group's chunk of recv, then outer allgather of chunks
 *              (consecutive groups keep the rank order).
 * Both levels use the same algorithm and segment. The profiler records each level's traffic on
 * its own sub-environment.
 */
#include <stdlib.h>
#include <string.h>
#include "bsp/coll_impl.h"

/* ---------------------------------------------------------------- one call, described */

typedef enum { K_BCAST, K_REDUCE, K_ALLREDUCE, K_GATHER, K_SCATTER, K_ALLGATHER } coll_kind;

static const char *const kind_name[] = {"hbsp_bcast",  "hbsp_reduce",  "hbsp_allreduce",
                                        "hbsp_gather", "hbsp_scatter", "hbsp_allgather"};

typedef struct {
  coll_kind kind;
  const void *send; /* bcast: the buffer */
  void *recv;       /* bcast: the buffer */
  size_t n;         /* bytes per rank, or elements for the reductions */
  hbsp_type type;
  hbsp_op op;
  int root; /* 0 for the rootless ones */
  const hbsp_coll *how;
} coll_call;

/* how, resolved. */
typedef struct {
  hbsp_alg alg;
  size_t seg;
  int G; /* 1: one level */
} coll_plan;

static int is_reduction(coll_kind k) {
  return k == K_REDUCE || k == K_ALLREDUCE;
}

static coll_plan resolve(hbsp_env env, const hbsp_coll *how) {
  coll_plan p = {HBSP_NATIVE, HBSP_COLL_SEGMENT, 1};
  if (!how) return p;
  if (how->alg != HBSP_AUTO) p.alg = how->alg;
  if (how->segment) p.seg = how->segment < HBSP_COLL_CHUNK ? how->segment : HBSP_COLL_CHUNK;
  if (how->groups > 1 && how->groups < env->P) p.G = how->groups;
  return p;
}

/* Checks of the global arguments: equal on every rank, so every rank reaches the same verdict
 * without communicating. */
static int check_global(hbsp_env env, const coll_call *a) {
  const char *fn = kind_name[a->kind];
  int P = env->P;
  if (a->root < 0 || a->root >= P)
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: root %d is not a rank of %s (P = %d)", fn, a->root,
                     env->name, P);
  if (a->how) {
    if ((unsigned)a->how->alg > (unsigned)HBSP_SCATTER_ALLGATHER)
      return HBSP_FAIL(env, HLA_ERR_ARG, "%s: unknown algorithm %d", fn, (int)a->how->alg);
    int G = a->how->groups;
    if (G > 1 && G != P && (G > P || P % G != 0))
      return HBSP_FAIL(env, HLA_ERR_ARG, "%s: %d groups do not divide P = %d", fn, G, P);
  }
  if (is_reduction(a->kind)) {
    if (!hbsp_coll_valid_op(a->type, a->op))
      return HBSP_FAIL(env, HLA_ERR_ARG, "%s: type %d does not support op %d", fn, (int)a->type,
                       (int)a->op);
    if (a->n > SIZE_MAX / 4 / hbsp_coll_type_size(a->type))
      return HBSP_FAIL(env, HLA_ERR_ARG, "%s: %zu elements overflow size_t", fn, a->n);
  } else if (a->kind != K_BCAST && a->n > SIZE_MAX / 2 / (size_t)P) {
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: %d x %zu bytes overflow size_t", fn, P, a->n);
  }
  return HLA_OK;
}

/* Checks of this rank's buffers (local: the verdict must be agreed). */
static int check_buffers(hbsp_env env, const coll_call *a) {
  if (a->n == 0) return HLA_OK;
  const char *fn = kind_name[a->kind];
  int root = env->rank == a->root;
  int need_send = 1, need_recv = 1;
  switch (a->kind) {
  case K_BCAST:
    need_send = 0;
    break;
  case K_REDUCE:
  case K_GATHER:
    need_recv = root;
    break;
  case K_SCATTER:
    need_send = root;
    break;
  default:
    break;
  }
  if (need_send && !a->send) return HBSP_FAIL(env, HLA_ERR_ARG, "%s: send buffer is NULL", fn);
  if (need_recv && !a->recv)
    return HBSP_FAIL(env, HLA_ERR_ARG, "%s: %s buffer is NULL", fn,
                     a->kind == K_BCAST ? "the" : "receive");
  return HLA_OK;
}

/* ---------------------------------------------------------------- cache */

static void destroy_sub(hbsp_env s) {
  if (!s) return;
  hbsp_coll_cache_free(s);
  hbsp_prof_release(s);
  MPI_Comm_free(&s->comm);
  hbsp_env_destroy(s);
}

void hbsp_coll_cache_free(hbsp_env env) {
  if (!env || !env->coll) return;
  hbsp_coll_cache *c = env->coll;
  env->coll = NULL;
  /* Every member frees the same list in the same order (it was built collectively), so the
   * MPI_Comm_free calls match even where MPI makes them collective. */
  while (c->groups) {
    hbsp_coll_groups *g = c->groups;
    c->groups = g->next;
    destroy_sub(g->inner);
    destroy_sub(g->outer);
    free(g);
  }
  hbsp_coll_mpi_free(c);
  hla_buf_free(&c->ws);
  free(c);
}

/* Lower the workspace to nothing after a big call, so a single large collective does not pin its
 * memory for the life of env. */
static void ws_trim(hbsp_env env) {
  if (env->coll && env->coll->ws.cap > HBSP_COLL_WS_KEEP) hla_buf_free(&env->coll->ws);
}

/* Workspace of this rank for a call: [top-level piece][base algorithm piece]. */
static void ws_need(hbsp_env env, const coll_call *a, const coll_plan *p, size_t *top,
                    size_t *base) {
  int P = env->P, rank = env->rank, root = a->root;
  size_t esz = is_reduction(a->kind) ? hbsp_coll_type_size(a->type) : 1;
  hbsp_alg alg = p->alg;
  *top = *base = 0;
  if (p->G == 1) {
    int v = hbsp_rel_rank(rank, root, P);
    switch (a->kind) {
    case K_BCAST:
      break;
    case K_REDUCE:
      *base = hbsp_coll_reduce_ws(alg, P, v, a->n, esz, p->seg);
      break;
    case K_ALLREDUCE:
      *base = hbsp_coll_allreduce_ws(alg, P, rank, a->n, esz, p->seg);
      break;
    case K_GATHER:
      *base = hbsp_coll_gather_ws(alg, P, v, root, a->n, p->seg);
      break;
    case K_SCATTER:
      *base = hbsp_coll_scatter_ws(alg, P, v, root, a->n, p->seg);
      break;
    case K_ALLGATHER:
      *base = hbsp_coll_allgather_ws(alg, P, a->n);
      break;
    }
    return;
  }
  int G = p->G, Q = P / G, g = rank / Q, li = rank % Q, gr = root / Q, l = root % Q;
  int vi = hbsp_rel_rank(li, l, Q), vo = hbsp_rel_rank(g, gr, G), outer = li == l;
  size_t in = 0, out = 0, chunk = hbsp_sat_mul((size_t)Q, a->n);
  switch (a->kind) {
  case K_BCAST:
    break;
  case K_REDUCE:
    in = hbsp_coll_reduce_ws(alg, Q, vi, a->n, esz, p->seg);
    if (outer) out = hbsp_coll_reduce_ws(alg, G, vo, a->n, esz, p->seg);
    if (outer && rank != root) *top = hbsp_ws_round(hbsp_sat_mul(a->n, esz)); /* partial result */
    break;
  case K_ALLREDUCE:
    in = hbsp_coll_allreduce_ws(alg, Q, li, a->n, esz, p->seg);
    out = hbsp_coll_allreduce_ws(alg, G, g, a->n, esz, p->seg);
    break;
  case K_GATHER:
  case K_SCATTER: /* same trees */
    in = hbsp_coll_gather_ws(alg, Q, vi, l, a->n, p->seg);
    if (outer) out = hbsp_coll_gather_ws(alg, G, vo, gr, chunk, p->seg);
    if (outer && rank != root) *top = hbsp_ws_round(chunk); /* this group's chunk */
    break;
  case K_ALLGATHER:
    in = hbsp_coll_allgather_ws(alg, Q, a->n);
    out = hbsp_coll_allgather_ws(alg, G, chunk);
    break;
  }
  *base = in > out ? in : out; /* the levels run one after the other */
}

/* Make sure env's cache exists, holds the workspace for the call and, for NATIVE reductions of
 * hbsp_dloc, the MPI type and operators. Local; nothing is communicated. */
static int prepare(hbsp_env env, const coll_call *a, const coll_plan *p, char **ws_top,
                   char **ws_base) {
  const char *fn = kind_name[a->kind];
  size_t top, base;
  ws_need(env, a, p, &top, &base);
  size_t total = hbsp_sat_add(top, base);
  /* A call that needs nothing (a broadcast in one level) allocates nothing, so that it cannot
   * fail on one rank alone in the library's loops. */
  *ws_top = *ws_base = NULL;
  if (total == 0 && p->G == 1 && !(is_reduction(a->kind) && a->type == HBSP_DOUBLE_INDEX))
    return HLA_OK;
  if (!env->coll && !(env->coll = calloc(1, sizeof *env->coll)))
    return HBSP_FAIL(env, HLA_ERR_NOMEM, "%s: out of memory for the collectives cache", fn);
  if (total == SIZE_MAX || hla_buf_reserve(&env->coll->ws, total) != HLA_OK)
    return HBSP_FAIL(env, HLA_ERR_NOMEM, "%s: cannot allocate %zu bytes of workspace", fn, total);
  *ws_top = env->coll->ws.p;
  *ws_base = env->coll->ws.p ? env->coll->ws.p + top : NULL;
  if (is_reduction(a->kind) && a->type == HBSP_DOUBLE_INDEX && p->alg == HBSP_NATIVE)
    HLA_CALL(hbsp_coll_mpi_prepare(env, env->coll));
  return HLA_OK;
}

/* The sub-environments for G groups, made on first use (collective over env). */
static int get_groups(hbsp_env env, int G, hbsp_coll_groups **out) {
  hbsp_coll_groups *g = env->coll->groups;
  while (g && g->G != G) g = g->next;
  if (!g) {
    int Q = env->P / G;
    g = calloc(1, sizeof *g);
    int rc =
        hbsp_agree(env, g ? HLA_OK : HBSP_FAIL(env, HLA_ERR_NOMEM, "out of memory for groups"));
    if (rc != HLA_OK) {
      free(g);
      return rc;
    }
    rc = hbsp_split_named(env, env->rank / Q, env->rank, "inner", &g->inner);
    if (rc == HLA_OK) rc = hbsp_split_named(env, env->rank % Q, env->rank, "outer", &g->outer);
    if (rc != HLA_OK) { /* hbsp_split agrees, so every rank is here together */
      destroy_sub(g->inner);
      free(g);
      return rc;
    }
    g->G = G;
    g->next = env->coll->groups;
    env->coll->groups = g;
  }
  /* A profile started on env after the groups were made: attach them too (best effort; a failure
   * only loses their records). Same order on every rank, as the call is collective. */
  if (env->prof && !g->inner->prof) (void)hbsp_prof_inherit(g->inner, env);
  if (env->prof && !g->outer->prof) (void)hbsp_prof_inherit(g->outer, env);
  *out = g;
  return HLA_OK;
}

/* ---------------------------------------------------------------- running a call */

/* A failure on a sub-environment is reported on env too, where the caller looks for it. */
static int lift(hbsp_env env, hbsp_env sub, int rc) {
  if (rc != HLA_OK) memcpy(env->errmsg, sub->errmsg, sizeof env->errmsg);
  return rc;
}
#define LEVEL(ctx, call)                                                                           \
  do {                                                                                             \
    int level_rc_ = (call);                                                                        \
    if (level_rc_ != HLA_OK) return lift(env, (ctx).env, level_rc_);                               \
  } while (0)

static int run_two_level(hbsp_env env, const coll_call *a, const coll_plan *p, char *top,
                         char *ws) {
  hbsp_coll_groups *grp;
  HLA_CALL(get_groups(env, p->G, &grp));
  int Q = env->P / p->G, rank = env->rank, root = a->root;
  int g = rank / Q, li = rank % Q, gr = root / Q, l = root % Q, me = rank == root;
  /* lead: this rank takes part in the outer step of a rooted collective (allreduce and allgather
   * use every outer environment) */
  int lead = li == l;
  hbsp_coll_ctx in = {grp->inner, p->alg, p->seg, ws, env->coll};
  hbsp_coll_ctx out = {grp->outer, p->alg, p->seg, ws, env->coll};
  const char *send = a->send;
  char *recv = a->recv, *part;
  size_t n = a->n, chunk = (size_t)Q * n;
  switch (a->kind) {
  case K_BCAST:
    if (lead) LEVEL(out, hbsp_coll_base_bcast(&out, recv, n, gr));
    LEVEL(in, hbsp_coll_base_bcast(&in, recv, n, l));
    return HLA_OK;
  case K_REDUCE:
    part = me ? recv : top; /* the root reduces in place at the outer level */
    LEVEL(in, hbsp_coll_base_reduce(&in, send, lead ? part : NULL, n, a->type, a->op, l));
    if (lead) LEVEL(out, hbsp_coll_base_reduce(&out, part, recv, n, a->type, a->op, gr));
    return HLA_OK;
  case K_ALLREDUCE:
    LEVEL(in, hbsp_coll_base_allreduce(&in, send, recv, n, a->type, a->op));
    LEVEL(out, hbsp_coll_base_allreduce(&out, recv, recv, n, a->type, a->op));
    return HLA_OK;
  case K_GATHER:
    /* The root gathers its group straight into its chunk of recv. */
    part = me ? recv + (size_t)gr * chunk : top;
    LEVEL(in,
          hbsp_coll_base_gather(&in, me && send == recv ? part : send, lead ? part : NULL, n, l));
    if (lead) LEVEL(out, hbsp_coll_base_gather(&out, part, recv, chunk, gr));
    return HLA_OK;
  case K_SCATTER:
    /* The root scatters its own group's chunk from where it is in send; it passes that place as
     * its outer receive buffer, which the base algorithms then leave alone (own slot). */
    part = me ? (char *)send + (size_t)gr * chunk : top;
    if (lead) LEVEL(out, hbsp_coll_base_scatter(&out, send, part, chunk, gr));
    LEVEL(in,
          hbsp_coll_base_scatter(&in, lead ? part : NULL, me && recv == send ? part : recv, n, l));
    return HLA_OK;
  case K_ALLGATHER:
    part = recv + (size_t)g * chunk;
    LEVEL(in, hbsp_coll_base_allgather(&in, send == recv ? part : send, part, n));
    LEVEL(out, hbsp_coll_base_allgather(&out, part, recv, chunk));
    return HLA_OK;
  }
  return HBSP_FAIL(env, HLA_ERR_INTERNAL, "unknown collective %d", (int)a->kind);
}

static int run_one_level(hbsp_env env, const coll_call *a, const coll_plan *p, char *ws) {
  hbsp_coll_ctx c = {env, p->alg, p->seg, ws, env->coll};
  switch (a->kind) {
  case K_BCAST:
    return hbsp_coll_base_bcast(&c, a->recv, a->n, a->root);
  case K_REDUCE:
    return hbsp_coll_base_reduce(&c, a->send, a->recv, a->n, a->type, a->op, a->root);
  case K_ALLREDUCE:
    return hbsp_coll_base_allreduce(&c, a->send, a->recv, a->n, a->type, a->op);
  case K_GATHER:
    return hbsp_coll_base_gather(&c, a->send, a->recv, a->n, a->root);
  case K_SCATTER:
    return hbsp_coll_base_scatter(&c, a->send, a->recv, a->n, a->root);
  case K_ALLGATHER:
    return hbsp_coll_base_allgather(&c, a->send, a->recv, a->n);
  }
  return HBSP_FAIL(env, HLA_ERR_INTERNAL, "unknown collective %d", (int)a->kind);
}

/* Run a checked call (collective over env). */
static int execute(hbsp_env env, const coll_call *a) {
  if (a->n == 0) return HLA_OK;
  coll_plan p = resolve(env, a->how);
  char *top, *ws;
  int rc = prepare(env, a, &p, &top, &ws);
  if (rc == HLA_OK)
    rc = p.G == 1 ? run_one_level(env, a, &p, ws) : run_two_level(env, a, &p, top, ws);
  ws_trim(env);
  return rc;
}

/* Public path: check, reserve, agree (one allreduce when all is well), run. */
static int public_call(hbsp_env env, const coll_call *a) {
  if (!env) return HLA_ERR_ARG;
  int rc = check_global(env, a);
  if (rc == HLA_OK) rc = check_buffers(env, a);
  if (rc == HLA_OK && a->n) { /* allocate now, so that a failure is agreed too */
    coll_plan p = resolve(env, a->how);
    char *top, *ws;
    rc = prepare(env, a, &p, &top, &ws);
  }
  /* the global arguments, compared in the same allreduce (a mismatch would hang the collective) */
  const hbsp_coll none = {0};
  const hbsp_coll *h = a->how ? a->how : &none;
  int64_t v[8] = {a->kind, (int64_t)a->n, a->type,   a->op,
                  a->root, h->alg,        h->groups, (int64_t)h->segment};
  rc = hbsp_agree_same(env, rc, v, 8, kind_name[a->kind]);
  if (rc != HLA_OK) {
    ws_trim(env);
    return rc;
  }
  return execute(env, a);
}

/* Internal path: no agreement; global checks only. */
static int internal_call(hbsp_env env, const coll_call *a) {
  if (!env) return HLA_ERR_ARG;
  HLA_CALL(check_global(env, a));
  return execute(env, a);
}

/* ---------------------------------------------------------------- entry points */

#define BCAST_CALL(buf, bytes, root, how)                                                          \
  (&(coll_call){K_BCAST, (buf), (buf), (bytes), HBSP_BYTE, HBSP_SUM, (root), (how)})
#define RED_CALL(k, send, recv, count, type, op, root, how)                                        \
  (&(coll_call){(k), (send), (recv), (count), (type), (op), (root), (how)})
#define BLK_CALL(k, send, recv, bytes, root, how)                                                  \
  (&(coll_call){(k), (send), (recv), (bytes), HBSP_BYTE, HBSP_SUM, (root), (how)})

int hbsp_bcast(hbsp_env env, void *buf, size_t bytes, int root, const hbsp_coll *how) {
  return public_call(env, BCAST_CALL(buf, bytes, root, how));
}
int hbsp_reduce(hbsp_env env, const void *send, void *recv, size_t count, hbsp_type type,
                hbsp_op op, int root, const hbsp_coll *how) {
  return public_call(env, RED_CALL(K_REDUCE, send, recv, count, type, op, root, how));
}
int hbsp_allreduce(hbsp_env env, const void *send, void *recv, size_t count, hbsp_type type,
                   hbsp_op op, const hbsp_coll *how) {
  return public_call(env, RED_CALL(K_ALLREDUCE, send, recv, count, type, op, 0, how));
}
int hbsp_gather(hbsp_env env, const void *send, void *recv, size_t bytes, int root,
                const hbsp_coll *how) {
  return public_call(env, BLK_CALL(K_GATHER, send, recv, bytes, root, how));
}
int hbsp_scatter(hbsp_env env, const void *send, void *recv, size_t bytes, int root,
                 const hbsp_coll *how) {
  return public_call(env, BLK_CALL(K_SCATTER, send, recv, bytes, root, how));
}
int hbsp_allgather(hbsp_env env, const void *send, void *recv, size_t bytes, const hbsp_coll *how) {
  return public_call(env, BLK_CALL(K_ALLGATHER, send, recv, bytes, 0, how));
}

int hbsp_coll_bcast(hbsp_env env, void *buf, size_t bytes, int root, const hbsp_coll *how) {
  return internal_call(env, BCAST_CALL(buf, bytes, root, how));
}
int hbsp_coll_reserve_allreduce(hbsp_env env, size_t count, hbsp_type type, hbsp_op op,
                                const hbsp_coll *how) {
  if (!env) return HLA_ERR_ARG;
  const coll_call *a = RED_CALL(K_ALLREDUCE, NULL, NULL, count, type, op, 0, how);
  HLA_CALL(check_global(env, a));
  if (a->n == 0) return HLA_OK;
  coll_plan p = resolve(env, a->how);
  char *top, *ws;
  return prepare(env, a, &p, &top, &ws);
}
int hbsp_coll_reduce(hbsp_env env, const void *send, void *recv, size_t count, hbsp_type type,
                     hbsp_op op, int root, const hbsp_coll *how) {
  return internal_call(env, RED_CALL(K_REDUCE, send, recv, count, type, op, root, how));
}
int hbsp_coll_allreduce(hbsp_env env, const void *send, void *recv, size_t count, hbsp_type type,
                        hbsp_op op, const hbsp_coll *how) {
  return internal_call(env, RED_CALL(K_ALLREDUCE, send, recv, count, type, op, 0, how));
}
int hbsp_coll_gather(hbsp_env env, const void *send, void *recv, size_t bytes, int root,
                     const hbsp_coll *how) {
  return internal_call(env, BLK_CALL(K_GATHER, send, recv, bytes, root, how));
}
int hbsp_coll_scatter(hbsp_env env, const void *send, void *recv, size_t bytes, int root,
                      const hbsp_coll *how) {
  return internal_call(env, BLK_CALL(K_SCATTER, send, recv, bytes, root, how));
}
int hbsp_coll_allgather(hbsp_env env, const void *send, void *recv, size_t bytes,
                        const hbsp_coll *how) {
  return internal_call(env, BLK_CALL(K_ALLGATHER, send, recv, bytes, 0, how));
}
