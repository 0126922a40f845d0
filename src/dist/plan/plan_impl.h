/* hla — private interface of the machine model (model.c, model_mm.c, model_lu.c: pure), the planner
 * (planner.c: pure), the relabelling (relabel.c: pure) and the machine file (machine_file.c); the
 * probe's side, which talks to the BSP layer, is plan/probe.h. The entries of the other rooms
 * (hgrid_create, hmat_create, hmatmul, hlu_factor, hlu_solve, hla_gesv) call the functions of the
 * last two sections below to resolve their automatic choices; nothing here knows a grid or a
 * matrix, only their sizes.
 *
 * Layout of the ranks assumed by the model: P ranks on `nodes` nodes, ranks_per_node consecutive
 * ranks per node (rank r on node r / ranks_per_node), as mpiexec places them by default and as
 * HLA_VIRTUAL_NODES cuts them. Grid rank = prow N + pcol (row-major, as hgrid). */
#ifndef HLA_DIST_PLAN_IMPL_H
#define HLA_DIST_PLAN_IMPL_H

#include <math.h>
#include <stdint.h>
#include "dist/cyclic.h"
#include "dist/plan/thresholds.h"
#include "hla/ops.h"
#include "hla/plan.h"

/* ---------------------------------------------------------------- model context (model.c) */

/* The network of nodes as one placement sees it, where the machine model knows it: a torus
 * (hplan_machine.torus), or (ports) each node's port into a network that does not block
 * (hplan_machine.port_beta: a message crosses its source's port out and its target's port in, one
 * hop, nd = 1 and dim[0] = nodes); nd = 0: none. */
typedef struct {
  int nd, dim[HPLAN_TORUS_DIMS];
  int nodes;        /* the product of the dimensions */
  double hop, beta; /* per hop: seconds (ports: between leaves); per byte of one link direction */
  int ports;        /* 1: the ports of a non-blocking network, not a torus */
  int leaf;         /* ports: nodes under one leaf switch (0: one level) */
  double alpha;     /* the latency of a message between nodes one hop apart (ports: in a leaf) */
  double hop_alpha; /* torus: a short message's latency per hop (0: none) */
  double at_hops; /* torus: the hops between the probe's nodes whose latency alpha is (ports: 1) */
} hp_torus;

/* A shape of MPI_Ibcast beside the hbsp_alg ones: the root sends to every rank at once (SimGrid's
 * MPI_Ibcast). Only a network tells it from FLAT, one message after the other. */
#define HP_FLAT_ALL 6

/* Where the ranks are and what each gets: the effective parameters of one placement. */
typedef struct {
  const hplan_machine *m;
  int P, nodes, rpn, threads;
  double rate; /* asymptotic dgemm flop/s per rank in this placement */
  double khalf, mhalf;
  double panel_rate, panel_half; /* node-local panel LU, per rank in this placement */
  double getrf_rate, getrf_half; /* LAPACK dgetrf of one rank in this placement */
  double copy;                   /* bytes/s of a pack per rank */
  double alloc;                  /* bytes/s of fresh (page-faulting) memory per rank */
  hplan_link intra, inter;
  /* bytes/s of messages through a node's memory, where the model routes them (the network known)
   * and the probe measured it; 0: not charged */
  double mem_bw;
  double kappa[6];       /* measured / modelled world broadcast per hbsp_alg (calibration) */
  int native_alg;        /* the library's algorithm that MPI_Bcast measured as, or 0 (model.c) */
  int ib_alg;            /* the shape (hbsp_alg, HP_FLAT_ALL) that fits MPI_Ibcast's ... */
  double ib_kappa;       /* ... and its level: hp_ibcast = ib_kappa x that algorithm's model */
  double ovl;            /* share of a non-blocking broadcast hidden by a dgemm */
  double sync_load;      /* extra seconds of a collective right after computing */
  double lu_cal, mm_cal; /* end-to-end calibration factors (1: none, other placement) */
  double l0, l1;         /* hbsp_sync on p ranks of one node: l0 + l1 (p - 1) */
  double gw;             /* g per 8-byte word, over all the probe's environments */
  double gw_node;        /* g per 8-byte word of the probe's environments inside one node */
  double ar0, ar1;       /* small allreduce on p ranks of one node: ar0 + ar1 ceil(log2 p) */
  hp_torus net;          /* the torus this placement's nodes lie on (net.nd = 0: none) */
  struct hp_memo *memo;  /* the caller's, for this placement and network only; NULL: none */
} hp_ctx;

/* An environment of the grid as the model sees it: p ranks spanning `spans` nodes, at most
 * per_node of them on one node. Where known (n1 > 0), its ranks are start + i stride, and it
 * broadcasts at once with its translates by a f1 + b f2 (a < n1, b < n2): every row of the grid,
 * say, which is what a torus's links carry together. Its broadcasts come from relative rank root
 * (0 unless set). */
typedef struct {
  int p, spans, per_node;
  int start, stride, f1, n1, f2, n2;
  int root;
} hp_env;

/* Fill ctx for P ranks on nodes nodes with rpn ranks per node and threads threads per rank (0s:
 * as the model was measured / derived). Local, pure. */
void hp_ctx_make(hp_ctx *ctx, const hplan_machine *m, int P, int nodes, int rpn, int threads);

/* ctx's nodes on a torus of dims (with m's torus_link) instead of m's own torus (dims[0] = 0: no
 * change), or on m's non-blocking network in leaves of `leaf` nodes (0: m's leaves). */
void hp_ctx_torus(hp_ctx *ctx, const hplan_machine *m, const int dims[HPLAN_TORUS_DIMS], int leaf);

/* The environment of count ranks start, start + stride, ... under ctx's placement, alone. */
hp_env hp_env_of(const hp_ctx *ctx, int start, int stride, int count);
/* e with its family: it runs at once with its translates by a f1 + b f2, a < n1, b < n2. */
hp_env hp_env_family(hp_env e, int f1, int n1, int f2, int n2);

/* ---------------------------------------------------------------- the torus (torus.c)
 * One step of a broadcast as point-to-point messages between relative ranks of an environment,
 * sent at once by every environment of its family: TREE the binomial tree's messages over `dist`
 * (v -> v + dist, v a multiple of 2 dist), FLAT_ALL the root to every rank at once, FLAT_ONE the
 * root to rank dist, CHAIN v -> v + 1, RING v -> v + 1 mod p, EXCHANGE a step of the library's
 * recursive doubling (coll_reduce.c: every rank of the largest power of two 2^k <= p sends, its
 * partner at dist > 0, the r = p - 2^k ranks 1, 3, ..., 2r - 1 folded into their left
 * neighbours first; dist = 0: that fold, 2i + 1 -> 2i). */
enum {
  HP_STEP_TREE,
  HP_STEP_FLAT_ALL,
  HP_STEP_FLAT_ONE,
  HP_STEP_CHAIN,
  HP_STEP_RING,
  HP_STEP_EXCHANGE
};
typedef struct {
  int intra, inter; /* messages inside a node (loopback), across nodes */
  int hops;         /* most links one message crosses */
  int load;         /* most messages of the step on one link of the slowest message's route */
  int mem;          /* most messages through one node's memory: within it, into it, out of it */
} hp_tstep;

/* What the model routed before, kept by the planner while it ranks the candidates of one
 * placement (its network and ranks per node fixed): the LU's block steps ask for the same steps
 * of the same environments again and again, and the multiply's candidates that differ only in
 * HSUMMA's outer block stream the same panels one after the other. Routing is most of the model's
 * time on a network: without the memo the planner took 396 s for a multiply at 16,384 ranks of a
 * torus, 50 s with it (7 s since the routes go as ranges and runs: torus.c;
 * bench/results/sim/README.md, "The planner's own time"). */
enum { HP_STREAM_MAX = 384, HP_STEP_MEMO = 65536 };
typedef struct { /* the last streaming volume (model_mm.c); n = 0: none */
  int n, kind, rc;
  hp_env e[HP_STREAM_MAX];
  double bytes[HP_STREAM_MAX];
  double most, mem;
} hp_stream_memo;
typedef struct { /* an answer of hp_torus_step; used = 0: empty */
  hp_env e;
  int kind, dist, used, rc;
  hp_tstep s;
} hp_step_memo;
typedef struct hp_memo {
  hp_stream_memo stream;
  hp_step_memo step[HP_STEP_MEMO]; /* direct-mapped by (e, kind, dist) */
} hp_memo;
/* Doubles of the work space of hp_torus_step and hp_torus_volume on t: a load per link and
 * direction and one per node's memory, then as many more for hp_torus_volume. */
size_t hp_torus_work(const hp_torus *t);
/* The step's messages routed on t (ranks rpn per node, nodes in t's order) with dimension-ordered
 * shortest routes, as SimGrid's TORUS and BG/P's deterministic routing. work: hp_torus_work(t)
 * doubles of zeros, zeros again on return. HLA_OK; HLA_ERR_DIM: a rank beyond t's nodes, or e's
 * ranks unknown. Local, pure. */
int hp_torus_step(const hp_torus *t, int rpn, hp_env e, int kind, int dist, double *work,
                  hp_tstep *out);
/* The most bytes that one link carries (*most) and that one node's memory moves (*mem) when every
 * environment envs[i] (i < n) and its family broadcast bytes[i] at once, all the steps of kind
 * (HP_STEP_TREE: every step of the tree; else its one step) together: what broadcasts that overlap
 * one another and the computation take per panel at the least, once they stream. work as
 * hp_torus_step's. HLA_OK; HLA_ERR_DIM. */
int hp_torus_volume(const hp_torus *t, int rpn, const hp_env *envs, const double *bytes, int n,
                    int kind, double *work, double *most, double *mem);

/* Seconds of a dgemm of m x n x k on one rank (0 for an empty one). */
double hp_gemm(const hp_ctx *ctx, double m, double n, double k);

/* Broadcast of bytes over environment e with algorithm alg (HBSP_AUTO = HBSP_NATIVE), calibrated.
 */
double hp_bcast(const hp_ctx *ctx, hp_env e, int alg, double bytes);

/* hp_bcast as the LU's L panels and U blocks go (lu_impl.h: hlu_big_how): its chain in the
 * segments of hlu_chain_segment. */
double hp_bcast_lu(const hp_ctx *ctx, hp_env e, int alg, double bytes);

/* MPI_Ibcast (+ wait) of bytes over e: the multiply's overlapped panel broadcasts. */
double hp_ibcast(const hp_ctx *ctx, hp_env e, double bytes);
/* Two-level broadcast over a process row or column cut by nodes (hierarchical LU): inside the
 * root's node, among one leader per node, inside the other nodes. */
double hp_bcast_nodes(const hp_ctx *ctx, hp_env e, int alg, double bytes);
/* A superstep in which relative rank 0 of every environment of e's family trades m bytes with
 * each of the others, routed on ctx's network (model.c); -1 where there is none. */
double hp_torus_trade(const hp_ctx *ctx, hp_env e, double m);
/* hbsp_sync of e moving h words per rank (BSP: h g + l). */
double hp_sync(const hp_ctx *ctx, hp_env e, double h);
/* hbsp_sync_known of e moving h words per rank: h g and one message's latency, no l. */
double hp_sync_known(const hp_ctx *ctx, hp_env e, double h);
/* A small allreduce (max-with-location) over e; nodes = 1: two levels by node. */
double hp_allreduce_small(const hp_ctx *ctx, hp_env e, int nodes);

/* The parts of the collectives' model that the multiply's and the LU's (model_mm.c, model_lu.c)
 * build on; each is documented where it is defined (model.c). Local, pure. */
/* one-level broadcast on one link, uncalibrated */
double hp_bcast1(int alg, double p, double m, double seg, hplan_link lk);
/* broadcast over e (routed where the network is known), uncalibrated, the chain in segments of
 * seg; hp_torus_bcast the routed one alone, -1 where the network cannot tell */
double hp_bcast_seg(const hp_ctx *ctx, hp_env e, int alg, double m, double seg);
double hp_torus_bcast(const hp_ctx *ctx, hp_env e, int alg, double m, double seg);
/* until relative rank 1 of e has the message; what the chain holds a rank it reached */
double hp_bcast_first(const hp_ctx *ctx, hp_env e, int alg, double bytes);
double hp_bcast_busy(const hp_ctx *ctx, hp_env e, int alg, double bytes);
/* e's two levels by node: its ranks in a node and the nodes' leaders; 0 where e has one */
int hp_node_levels(const hp_ctx *ctx, hp_env e, hp_env *in, hp_env *lead);
/* hp_bcast_first and hp_bcast_busy of hp_bcast_nodes */
double hp_bcast_nodes_first(const hp_ctx *ctx, hp_env e, int alg, double bytes);
double hp_bcast_nodes_busy(const hp_ctx *ctx, hp_env e, int alg, double bytes);
/* HPL's binary exchange of m bytes over e alone, routed; -1 where the network cannot tell */
double hp_torus_exchange(const hp_ctx *ctx, hp_env e, double m);

static inline double hp_lg2c(double p) {
  return p <= 1 ? 0.0 : ceil(log2(p) - 1e-12);
}

static inline double hp_clamp(double v, double lo, double hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/* Seconds of a pack (a copy) of `bytes` on one rank. */
static inline double hp_pack_t(const hp_ctx *ctx, double bytes) {
  return bytes > 0 ? bytes / ctx->copy : 0.0;
}

/* Workspaces of `words` doubles in all, taken from the grid (hdist_take): a repeated call, which is
 * what is predicted, finds them there and pays nothing, unless they are more than the grid keeps
 * (HDIST_KEEP_WORDS), when they are mapped and faulted afresh at every call. */
static inline double hp_ws_t(const hp_ctx *ctx, double words) {
  return words > (double)HDIST_KEEP_WORDS ? 8.0 * words / ctx->alloc : 0.0;
}

/* A multiply configuration on a fixed grid and layout. */
typedef struct {
  int64_t m, n, k;
  int M, N;
  int mb, nb;         /* C's blocks */
  int kba, kbb;       /* k-blocks of op(A) and op(B) as used (when in place) */
  int a_here, b_here; /* operands used in place (else remapped to blocks of b) */
  int alg;            /* HLA_MM_SUMMA, HLA_MM_HSUMMA, HLA_MM_3D */
  int b;              /* panel width */
  int64_t Mo;         /* HSUMMA outer block */
  int gi, gj;         /* HSUMMA groups I x J */
  int c, split_rows;  /* 3D */
  int bcast_alg;      /* hbsp_alg of the panel broadcasts (HBSP_AUTO: MPI_Ibcast, overlapped) */
} hp_mm;

/* An LU configuration. */
typedef struct {
  int64_t n;
  int M, N, nb;
  int alg;       /* HLA_LU_FLAT or HLA_LU_HIER (groups = nodes) */
  int lookahead; /* 1 or 0 */
  int bcast_alg; /* hbsp_alg (HBSP_AUTO: MPI's) */
  int nrhs;      /* right-hand sides solved after (0: none) */
} hp_lu;

/* The most local indices >= j that one of np processes holds of n in blocks of nb (the LU's
 * active rows or columns after block step j). Local, pure. */
double hp_local_from(int64_t n, int64_t j, int nb, int np);

/* Predicted seconds (and the parts: compute, comm, exposed) of a multiply / an LU. Local, pure. */
double hp_mm_time(const hp_ctx *ctx, const hp_mm *c, double *compute, double *comm,
                  double *exposed);
double hp_lu_time(const hp_ctx *ctx, const hp_lu *c, double *compute, double *comm,
                  double *exposed);
/* The solve alone (both triangles and the permutation) of nrhs right-hand sides. */
double hp_solve_time(const hp_ctx *ctx, int64_t n, int M, int N, int nb, int nrhs);

/* The layer split of 3D for c layers on M x N: 1 cut the process rows, 0 the columns (the squarer
 * layers when both divide), -1 c divides neither. Local, pure. */
int hp_layer_split(int c, int M, int N);

/* Bytes per rank the 3D algorithm (matmul/mm3d.c) allocates with c layers split as
 * hp_layer_split says, panel width `panel`: the largest over ranks. Local, pure. */
double hp_mm3d_bytes(int64_t m, int64_t n, int64_t k, int M, int N, int mb, int nb, int panel,
                     int c, int split_rows);

/* hmatmul's automatic panel width: the k-block of the operands used in place (the larger one;
 * kba of op(A), kbb of op(B)), else max(mb, nb) of C, widened to a multiple of itself of at least
 * HMM_MIN_PANEL. Local, pure. */
int hp_mm_default_panel(int a_here, int b_here, int kba, int kbb, int mb, int nb);

/* HSUMMA's communication on one uniform link with the same broadcast at both levels, no overlap
 * and no compute: *lat the latency part, *bw the bandwidth part (the form of Hasanov (4.3)-(4.4)
 * for a square grid and checkerboard blocks). k inner panels of b, outer of Mo. */
void hp_hsumma_comm(int alg, double m, double n, double k, int M, int N, int gi, int gj, double Mo,
                    double b, hplan_link lk, double *lat, double *bw);

/* SplitMix64: the pseudo-random sequence of the pairwise benchmark's rounds and of the
 * relabelling's climb (seeded by the caller, so every rank draws the same). */
static inline uint64_t hp_splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ---------------------------------------------------------------- the machine file
 * (machine_file.c) Local, pure (files only). hplan_load and hplan_save are these without the
 * reason; the reason (why, len bytes, may be NULL) is one line naming what is wrong: a field, a
 * JSON error's line. */

/* What a machine file's text is: none (no file), empty (nothing but white space), ours (an hla
 * machine file), foreign (anything else: never overwritten), or (hplan_parse) no memory to tell. */
enum { HP_FILE_NONE = 0, HP_FILE_EMPTY, HP_FILE_OURS, HP_FILE_FOREIGN, HP_FILE_NOMEM };

/* The first entry of the machine file's text (n bytes, no NUL needed) for host, P and nodes (as
 * hplan_load) that passes the schema (hplan_check) into *m (may be NULL). *kind (may be NULL)
 * gets what the text is. HLA_OK; HLA_ERR_STATE: none, why names the first bad entry for the key
 * (empty when there is simply none) or the JSON error; HLA_ERR_NOMEM. */
int hplan_parse(const char *text, size_t n, const char *host, int P, int nodes, hplan_machine *m,
                int *kind, char *why, size_t len);

/* hplan_save on a text: the file text (NULL: none) with m added or replacing the entry of its key,
 * into *out (malloc'ed). HLA_ERR_ARG (m fails hplan_check), HLA_ERR_STATE (text is not an hla
 * machine file), HLA_ERR_NOMEM. */
int hplan_merge(const char *text, size_t n, const hplan_machine *m, char **out, char *why,
                size_t len);

/* hplan_load and hplan_save with the reason; *kind as hplan_parse (HP_FILE_FOREIGN also for a
 * path that cannot be read: a directory, a device). */
int hplan_load_why(hplan_machine *m, const char *path, const char *host, int P, int nodes,
                   int *kind, char *why, size_t len);
int hplan_save_why(const hplan_machine *m, const char *path, char *why, size_t len);

/* The machine file's path for the value of HLA_MACHINE_FILE (src/settings.c; "" the default:
 * $XDG_CACHE_HOME/hla/machine.json, else $HOME/.cache/hla/machine.json) into buf; 0 when there is
 * none ("none", "off", no home) or it does not fit. Local (machine_file.c). */
int hplan_machine_path(const char *setting, char *buf, size_t size);

/* ---------------------------------------------------------------- the entries' planner (planner.c)
 * Pure: the same result on every rank from global arguments. A grid is given by its shape M x N
 * and the nodes its ranks span (ranks_per_node consecutive ranks per node, as the model assumes).
 */

/* 1 if opts asks for nothing (NULL, or every algorithm field zero): the planner may choose. */
int hplan_mm_automatic(const hla_opts *o);
int hplan_lu_automatic(const hla_opts *o);

/* What the planner chose for a multiply on a fixed grid and layout. */
typedef struct {
  int alg, b, gi, gj, c, split_rows;
  int64_t Mo;
  double seconds;
  char why[200];
} hplan_mm_choice;

/* The best multiply for the template c (sizes, grid, C's blocks, the operands' k-blocks and
 * here-flags; the algorithm fields are ignored) on a grid spanning `nodes` nodes; mem_bound as
 * opts->mem_bound (0: the planner's default). HLA_ERR_NOMEM, HLA_ERR_DIM (nothing fits). */
int hplan_mm_fixed(const hplan_machine *m, int nodes, const hp_mm *c, double mem_bound,
                   hplan_mm_choice *out);

/* What the planner chose for an LU on a fixed grid and block size. */
typedef struct {
  int alg, lookahead;
  double seconds;
  char why[200];
} hplan_lu_choice;

/* The best LU variant (flat or two levels by node, look-ahead on or off) of order n in nb blocks on
 * an M x N grid spanning `nodes` nodes. */
int hplan_lu_fixed(const hplan_machine *m, int nodes, int64_t n, int M, int N, int nb,
                   hplan_lu_choice *out);

/* Predicted seconds of the configuration c on a grid spanning `nodes` nodes (as it will run). */
double hplan_mm_predict(const hplan_machine *m, int nodes, const hp_mm *c);
double hplan_lu_predict(const hplan_machine *m, int nodes, const hp_lu *c);
/* The solve alone of nrhs right-hand sides. */
double hplan_solve_predict(const hplan_machine *m, int nodes, int64_t n, int M, int N, int nb,
                           int64_t nrhs);

/* hgrid_create(M = N = 0): the grid shape of the best LU of order n on P ranks spanning `nodes`
 * nodes. HLA_ERR_NOMEM. */
int hplan_shape(const hplan_machine *m, int P, int nodes, int64_t n, int *M, int *N);

/* hmat_create(mb = nb = 0): the block size of the best LU of order big on the M x N grid. */
int hplan_block(const hplan_machine *m, int M, int N, int nodes, int64_t big, int *b);

#endif
