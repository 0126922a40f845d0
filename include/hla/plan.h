/* hla — machine model and planner (hplan_): measure the machine, predict the time of a multiply or
 * an LU for any grid, hierarchy, algorithm and block sizes, and choose the best, with the ranked
 * alternatives so that users can see why.
 *
 * Three parts:
 *   1. The machine model (hplan_machine): per-rank dgemm rate and how it falls with the panel width
 *      and the thread count, the node-local panel LU and copy rates, Hockney alpha/beta inside a
 *      node and across nodes, BSP g and l of the world, node, row and column environments, the
 *      world broadcast per algorithm at three sizes, and how much of a non-blocking broadcast a
 *      dgemm hides. hplan_probe measures it (collective, a few seconds); hplan_save/hplan_load keep
 *      it in a small JSON file keyed by host, P and node count.
 *   2. The cost model (pure functions): every collective algorithm of the BSP layer and its
 *      two-level form, SUMMA, HSUMMA (I x J groups, outer and inner blocks), 3D/2.5D, flat and
 *      hierarchical LU with look-ahead, and the solve, written for the algorithms as implemented in
 *      src/dist (see src/dist/plan/model.c, model_mm.c and model_lu.c for every formula).
 *   3. The planner: hplan_matmul / hplan_lu (the contract of DESIGN.md §2.4) and their ranked forms
 *      hplan_matmul_rank / hplan_lu_rank enumerate grids (every factorisation of P), ranks per node
 *      against threads per rank, HSUMMA groups and outer block, 3D replication within a memory
 *      bound, block sizes and look-ahead, and return the best plan with its predicted time.
 *
 * Automatic use. hmatmul and hlu_factor with opts = NULL (or every algorithm field zero),
 * hgrid_create with M = N = 0 and hmat_create with mb = nb = 0 ask the planner, which takes the
 * machine model cached on the grid (hplan_grid_set), or loads the machine file, or probes once and
 * saves it (that probe leaves out the end-to-end calibration, lu_cal = mm_cal = 0: it would run
 * the library's own LU and multiply from inside the call that asked; it changes no choice on a
 * given placement, only the predicted seconds; hla-plan --probe calibrates). The variables that
 * steer this (read on rank 0, broadcast):
 *   HLA_MACHINE_FILE  path of the machine file (default $XDG_CACHE_HOME/hla/machine.json, else
 *                     $HOME/.cache/hla/machine.json); "none" or "off": no file and no model.
 *                     An entry that fails hplan_check is not used; a file that is not an hla
 *                     machine file is not overwritten; when the file cannot be written the probed
 *                     model is kept for the rest of the process (no second probe). Rank 0 says
 *                     each of these once, one line on stderr.
 *   HLA_PLAN          "auto" (default: load the file, else probe and save), "load" (the file or
 *                     nothing, never probe), "probe" (always probe afresh and save), "off" (no
 *                     planner). Without a model the documented rules of src/dist/matmul/matmul.c,
 *                     lu/lu.c, layout/grid.c and layout/hmat.c apply, unchanged.
 *   HLA_PLAN_N        the matrix order hgrid_create(M = N = 0) plans for (default 4096 sqrt(P)).
 * Whatever was chosen, and the predicted time, are in hla_report (predicted_seconds and why).
 *
 * Units: seconds, bytes, flop/s. Conventions as in hla/bsp.h: "Collective over E", "Local",
 * (global) and (local) arguments.
 */
#ifndef HLA_PLAN_H
#define HLA_PLAN_H

#include <stdint.h>
#include "hla/bsp.h"
#include "hla/dist.h"
#include "hla/error.h"
#include "hla/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Format version of hplan_machine and of the machine file. */
#define HPLAN_VERSION 3
/* Most thread counts whose dgemm rate the model keeps. */
#define HPLAN_MAX_THREADS 64
/* Most dimensions of a torus network (hplan_machine.torus). */
#define HPLAN_TORUS_DIMS 4
/* Most message sizes at which hplan_machine.size_factor says what a message pays. */
#define HPLAN_NSIZE 12
/* Most candidates a ranking keeps (the best ones). */
#define HPLAN_MAX_CAND 48

/* The environments whose BSP parameters the model keeps. */
enum { HPLAN_WORLD = 0, HPLAN_NODE, HPLAN_ROW, HPLAN_COL, HPLAN_NENV };
/* The two levels of links. */
enum { HPLAN_INTRA = 0, HPLAN_INTER = 1 };
/* Sizes (bytes) of the world broadcasts kept per algorithm in hplan_machine.bcast. */
#define HPLAN_BCAST_SIZES                                                                          \
  { 8.0, 65536.0, 1048576.0 }
#define HPLAN_NBCAST 3
/* How many of each are timed back to back (one tiny broadcast alone is within the barrier's skew):
 * the segmented chain stays full from one to the next, which the calibration's model follows. */
#define HPLAN_BCAST_INNER                                                                          \
  { 20, 4, 1 }
/* MPI's non-blocking broadcast (what the multiply overlaps) measured on three environments: the
 * world, every row of the probe's grid at once, every column at once; HPLAN_IBCAST_BYTES each. */
enum { HPLAN_IB_WORLD = 0, HPLAN_IB_ROWS, HPLAN_IB_COLS, HPLAN_NIBCAST };
#define HPLAN_IBCAST_BYTES 1048576.0

/** A point-to-point link in the Hockney model: a message of m bytes takes alpha + m beta. */
typedef struct {
  double alpha; /* seconds per message */
  double beta;  /* seconds per byte */
} hplan_link;

/** The machine model. Every field is the same on every rank after hplan_probe or hplan_load. */
typedef struct {
  int version;   /* HPLAN_VERSION */
  char host[64]; /* host name of rank 0 (the key of the machine file, with P and nodes) */
  int P;         /* ranks it was measured with */
  int nodes;     /* nodes those ranks spanned (hbsp_node: shared memory or HLA_VIRTUAL_NODES) */
  int ranks_per_node;  /* most ranks on one real shared-memory node during the probe */
  int cores_per_node;  /* cores of one node */
  int threads;         /* BLAS threads per rank during the probe (hla's thread policy) */
  double mem_per_node; /* bytes of memory of one node (0: unknown) */
  /* computation, per rank */
  double r;          /* DAXPY pairs, flop/s (BSP r; van Duijn / bspbench) */
  double gemm_rate;  /* dgemm flop/s of one rank (order 1536) with `threads` threads while every
                        rank computes: rate(m, n, k) = gemm_rate / ((1 + khalf/k)(1 + mhalf/m'))
                        with m' = min(m, n) */
  double gemm_khalf; /* inner dimension at which dgemm runs at half its rate */
  double gemm_mhalf; /* smaller outer dimension at which dgemm runs at half its rate */
  int nthreads;      /* entries in gemm_threads */
  double gemm_threads[HPLAN_MAX_THREADS]; /* dgemm flop/s (order 768) of one rank with t + 1
                                             threads while the other ranks of its node sleep */
  double panel_rate; /* asymptotic flop/s of the node-local recursive panel LU, one rank ... */
  double panel_half; /* ... falling as jb / (jb + panel_half) with the panel width jb */
  double copy_rate;  /* bytes/s of a local strided pack (memory bound), every rank at once */
  double getrf_rate; /* flop/s of LAPACK's dgetrf (one process: hlu_factor's path) ... */
  double getrf_half; /* ... falling as n / (n + getrf_half) with the order n */
  double alloc_rate; /* bytes/s of fresh memory (allocated and first touched: page faults) */
  /* communication */
  hplan_link link[2]; /* ping-pong inside a node [HPLAN_INTRA] and across nodes [HPLAN_INTER] */
  /* link[] is measured with every pair of a round at once (hplan_pairwise); intra_alone with one
   * pair a node (0s: not measured). node_bw: bytes/s of messages that a node delivers when all its
   * ranks trade with each other at once: its memory, which every message into, out of and within
   * the node crosses (0: not measured, or one rank a node) */
  hplan_link intra_alone;
  double node_bw;
  int have_inter;        /* link[HPLAN_INTER] was measured; else it is a copy of the intra link */
  int env_p[HPLAN_NENV]; /* ranks of the environments below (0: not measured) */
  double g[HPLAN_NENV];  /* BSP g of hbsp_sync, seconds per 8-byte word (bulk puts) */
  double l[HPLAN_NENV];  /* BSP l of hbsp_sync, seconds */
  double ar[HPLAN_NENV]; /* one small allreduce (an hbsp_dloc max-with-location), seconds */
  int probe_M, probe_N;  /* the grid whose row and column environments were measured */
  double bcast[6][HPLAN_NBCAST]; /* world broadcast seconds per hbsp_alg (index HBSP_NATIVE ..
                                    HBSP_SCATTER_ALLGATHER; [0] unused) at HPLAN_BCAST_SIZES */
  double ibcast[HPLAN_NIBCAST];  /* MPI_Ibcast + MPI_Wait of HPLAN_IBCAST_BYTES from the first rank,
                                    seconds, at HPLAN_IB_* (0: not measured). MPI's non-blocking
                                    broadcast need not be its blocking one (SimGrid's is flat) */
  double overlap;   /* share (0..1) of an MPI_Ibcast hidden behind a dgemm that tests it */
  double sync_load; /* seconds a collective costs beyond its own latency when the ranks computed
                       just before it (skew, and waiting for a descheduled rank when the cores are
                       oversubscribed) */
  double lu_cal;    /* measured / modelled time of the planner's LU of order 2048 on these ranks,
                       the end-to-end calibration of LU predictions in this placement (0: none,
                       as after the automatic paths' probe) */
  double mm_cal;    /* the same for the multiply of order 2048 */
  double seconds;   /* how long the probe took */
  /* the network, where the user knows it (the probe cannot see it; 0s: not a torus) */
  int torus[HPLAN_TORUS_DIMS]; /* nodes on a torus of these dimensions (1 to 4 of them, the first
                                  varying fastest, as BG/P's TXYZ order and SimGrid's TORUS); a
                                  run on fewer nodes takes the first ones, the probe's among them */
  double torus_link[2];        /* one direction of one torus link: seconds per hop, seconds per
                                  byte (model.c: src/dist/plan/torus.c routes the broadcasts) */
  double torus_hop_alpha;      /* the latency a short message (as the probe's ping-pong's) pays
                                  per torus hop; the probe's inter-node alpha is that of its node
                                  pairs' median distance (model.c); 0: not counted */
  double port_beta; /* without a torus: seconds per byte of a node's own port (each direction) into
                       a network that does not block (a full-bisection fat tree); the messages of a
                       node's ranks share it. 0: unknown */
  int leaf_nodes;   /* with port_beta: the nodes under one leaf switch of a two-level tree where
                       the probe ran (the first leaf_nodes nodes, the next ones, ...); 0: one
                       level (every node pair as far apart) */
  double spine_alpha; /* the latency a message between two leaves has beyond one inside a leaf
                         (its hops up to a spine switch and down), seconds. The probe's inter-node
                         alpha is the median over its node pairs: most of them between leaves, it
                         includes this */
  /* 1: a node's ranks got no board from hbsp_board_create (MPI without shared-memory windows, or
   * SimGrid's SMPI, whose ranks are threads), so the LU sends by messages what it would put on
   * one; 0: they did, or a node held one rank (files written before this field read 0) */
  int no_board;
  /* What a message's size changes in what it pays (an MPI's protocols; SimGrid's bandwidth and
   * latency factors): triples (bytes, rate, latency) in ascending bytes; a message of at least
   * bytes (the largest such triple) moves at rate x the long messages' rate (link's beta,
   * torus_link[1], port_beta) after latency x the short messages' latency (link's alpha,
   * torus_hop_alpha, spine_alpha). None, or below the first: 1 and 1. Used where the model
   * prices short messages one by one (model.c: the LU's pivot records) */
  double size_factor[3 * HPLAN_NSIZE];
} hplan_machine;

/* ---------------------------------------------------------------- 1. machine model */

/** Measure the machine on env (see hplan_machine; src/dist/plan/probe.c says how). Robust
 *  statistics: every timing is the maximum over ranks of a repetition, repetitions go on until
 *  their median is stable (or a cap), and the median is used. Last, the planner's best LU and
 *  multiply of order 2048 run on env as a user would run them, and measured / predicted becomes
 *  the calibration of the predictions in this placement (lu_cal, mm_cal; src/dist/calibrate.c).
 *  Applies hla's thread policy for the time of the probe and restores the BLAS thread count after.
 * Runs on a split of env, so env's pending requests are untouched.
 *  @param env (global) the ranks to measure.  @param m (local, out) the model, equal on every rank.
 *  @return HLA_ERR_ARG (NULL argument), HLA_ERR_NOMEM, HLA_ERR_MPI; agreed.
 *  @par Collective over env. Cost: about 1-3 s at P = 2 on one node; grows with log P and P
 *  (the pairwise part is limited to 64 rounds). */
HLA_API int hplan_probe(hbsp_env env, hplan_machine *m);

/** Add or replace m in the machine file at path (a JSON object with one entry per host, P and
 *  node count; the entries of other keys are kept), written to a temporary file in the same
 *  directory and renamed so that readers never see half a file; the directory is created if need
 *  be. A file at path that is not an hla machine file (not a JSON object, or one without hla's
 *  "format" marker whose entries do not look like machine entries) is never overwritten.
 *  Local (call it on one rank). Cost: reading and writing the file (at most 4 MiB are read).
 *  @return HLA_ERR_ARG for a NULL argument or an m that fails hplan_check, HLA_ERR_STATE if the
 *  file cannot be written or holds something else, HLA_ERR_NOMEM. */
HLA_API int hplan_save(const hplan_machine *m, const char *path);

/** Read the entry of path for host, P and nodes (host NULL: any host; P <= 0 or nodes <= 0: any)
 *  into m: the first one whose fields all have their JSON types and pass hplan_check (the others
 *  count as absent). Local. Cost: reading the file (at most 4 MiB).
 *  @return HLA_ERR_ARG (NULL argument), HLA_ERR_STATE (no file, no valid matching entry, or a
 *  malformed or older-version file; m is then untouched), HLA_ERR_NOMEM. */
HLA_API int hplan_load(hplan_machine *m, const char *path, const char *host, int P, int nodes);

/** Whether m is a model the planner can use: version HPLAN_VERSION, a host that fits, 1 <= nodes
 *  <= P, every count in its range (threads 1..max(HPLAN_MAX_THREADS, cores_per_node), cores
 *  1..2^20, nthreads 0..HPLAN_MAX_THREADS, env_p and probe_M/N 0..P, ...), every double finite
 *  and within bounds that keep predictions finite, gemm_rate and the used gemm_threads positive,
 *  the other rates 0 ("not measured") or positive, the links positive where they were measured
 *  (intra with P > 1, inter with have_inter), overlap in [0, 1]. The first bad field and why go
 *  into why (len bytes; may be NULL). Local, pure, O(size of the model).
 *  @return HLA_OK, or HLA_ERR_ARG (NULL m, or a bad field). */
HLA_API int hplan_check(const hplan_machine *m, char *why, size_t len);

/** The machine file path: HLA_MACHINE_FILE, else the default of the header comment, into buf
 *  (size bytes). Returns 0 when there is none ("none"/"off", or no home directory). Local. */
HLA_API int hplan_default_path(char *buf, size_t size);

/** A model of a uniform machine from a few numbers (for tests, tools and planning machines that
 *  are not at hand): P ranks on `nodes` nodes of `cores` cores, dgemm at rate flop/s per core
 *  (threads scale linearly, khalf = 32, mhalf = 16), alpha/beta inside and across nodes, g and l
 *  derived from those. Local, pure. */
HLA_API void hplan_machine_synthetic(hplan_machine *m, int P, int nodes, int cores, double rate,
                                     hplan_link intra, hplan_link inter);

/** What the model takes from m's measured world broadcasts (src/dist/plan/model.c): in kappa the
 *  calibration per hbsp_alg, measured / modelled (1 where nothing was measured; [HBSP_AUTO] is
 *  [HBSP_NATIVE]'s), and in *native_as the library's algorithm that MPI_Bcast measured as (within
 *  5 % at every size), else 0 (MPI's then modelled as the cheapest of three shapes). Local, pure.
 */
HLA_API void hplan_bcast_calibration(const hplan_machine *m, double kappa[6], int *native_as);

/** Attach a copy of rank 0's m to grid g (NULL detaches); the automatic calls on g then plan with
 *  it. Collective over HGRID_ALL of g. BSP cost: one broadcast of the model.
 *  @return HLA_ERR_ARG (agreed) if rank 0's m fails hplan_check, HLA_ERR_NOMEM, HLA_ERR_MPI. */
HLA_API int hplan_grid_set(hgrid g, const hplan_machine *m);

/** The model the automatic calls on g use: the attached one, or (first call) the machine file, or
 *  a probe, as HLA_PLAN and HLA_MACHINE_FILE say. *m is NULL when there is none (planning off).
 *  The model stays owned by the grid. Collective over HGRID_ALL of g; errors of the probe agreed.
 */
HLA_API int hplan_grid_machine(hgrid g, const hplan_machine **m);

/* ---------------------------------------------------------------- 2. pairwise benchmark */

/** The ping-pong partner of rank s in round i (0 <= i < q, q = the power of two >= P) by van
 *  Duijn's XOR function (5.6): s XOR i if that is < P, else s (no partner). Local, pure. Every
 *  round is a pairing (an involution), and over the q rounds s meets every rank. */
HLA_API int hplan_partner_xor(int i, int s, int P);

/** The randomised partner (5.7)-(5.8): t = (((s + b) mod q) XOR a XOR i) - b mod q, and t if
 *  t < P, else s; a, b in [0, q). The same properties for every a, b; b changes which pairs meet
 *  in a round. Local, pure. */
HLA_API int hplan_partner_random(int i, int s, int P, unsigned a, unsigned b);

/** P x P latency (seconds, half a round trip of 8 bytes) and inverse bandwidth (seconds per byte,
 *  from a round trip of `bytes`) matrices by ping-pong in rounds of the partner function: sweeps
 *  = 0 uses the XOR function once, sweeps > 0 the randomised one that many times with (a, b)
 *  drawn from seed (the minimum over sweeps is kept). Pairs of a round run at the same time (as
 *  in the seed). lat and invbw (P*P, row-major, may be NULL) are equal on every rank; the
 *  diagonal is 0. bytes = 0 means 256 KiB, reps = 0 means 5 repetitions per measurement.
 *  @par Collective over env. Cost: q rounds (q >= P) per sweep, each reps round trips per size. */
HLA_API int hplan_pairwise(hbsp_env env, int sweeps, uint64_t seed, size_t bytes, int reps,
                           double *lat, double *invbw);

/** Relabel P ranks so that expensive pairs fall between subsets: the positions 0..P-1 are cut into
 *  nsub subsets of P/nsub consecutive positions (nsub divides P) and order[pos] = the rank placed
 *  at pos. Multi-way Kernighan-Lin (van Duijn Alg. 5.1) on the cost matrix D (P x P, symmetric,
 *  higher = slower): for every pair of subsets, a pass of tentative swaps with the classic
 *  D-value updates, keeping the prefix of swaps up to and including the best one (the seed's
 *  "l < k*" loses it: erratum fixed), until no pass improves. It minimises the total cost inside
 *  the subsets directly (the seed's "KL on the inverse cost" made exact). order may start as any
 *  permutation (init = 1) or the identity (init = 0). Local, pure, O(passes nsub^2 (P/nsub)^3). */
HLA_API int hplan_relabel_kl(int P, const double *D, int nsub, int init, int *order);

/** Relabel by randomised hill-climbing with triplet permutations (van Duijn Alg. 5.2) for an
 *  M x N grid of positions (pos = r N + c): the cost is the largest total D inside one subset,
 *  subsets being the process rows (which & 1), the process columns (which & 2) or both. Take the
 *  worst subset and its worst member s, try random triplets (s, s1, s2) -> (s2, s, s1) with s1
 *  outside the worst subset, accept the first that lowers the cost; stop when none does. The
 *  seed's candidate set excluded only {s, s1} from s2's choices; here s2 != s, s1 (the triplet is
 *  then a real 3-cycle or, for s2 = s1's partner position, a swap). order as above. seed (local)
 *  picks the random sequence: run it with different seeds on several ranks and keep the best.
 *  Returns the final cost in *cost (may be NULL). Local, pure. */
HLA_API int hplan_relabel_climb(int M, int N, const double *D, int which, uint64_t seed, int init,
                                int *order, double *cost);

/** Inverse of a relabelling: key[rank] = position, for hbsp_reorder(env, key[my rank], &out).
 *  Local, pure. */
HLA_API void hplan_order_keys(int P, const int *order, int *key);

/* ---------------------------------------------------------------- 3. planner */

/* Operations. */
enum { HPLAN_OP_MATMUL = 1, HPLAN_OP_LU = 2 };

/** What to plan for, beyond the sizes. Zero fields are free (the planner chooses or derives). */
typedef struct {
  int P;              /* ranks; 0: nodes x ranks_per_node (the planner tries every divisor of the
                         cores as ranks per node when both are 0) */
  int nodes;          /* nodes; 0: the model's if P is the model's P, else ceil(P / cores) */
  int ranks_per_node; /* 0: ceil(P / nodes) */
  int threads;        /* BLAS threads per rank; 0: hla's policy (cores / ranks per node) */
  int M, N;           /* a fixed grid (both or neither) */
  int mb, nb;         /* fixed layout blocks of C (multiply) or A (LU) */
  int a_block_m, a_block_n; /* multiply with fixed operands: A's blocks and op */
  int b_block_m, b_block_n;
  char transa, transb; /* 'N' or 'T' (0 = 'N') */
  double mem_bound;    /* bytes per rank that 3D replication may use; 0: 40 % of the memory share */
  int nrhs;            /* LU: right-hand sides solved after the factorisation (0: none) */
  int algs;            /* bit mask of hla_mm_alg (1 << alg) or hla_lu_alg the planner may use; 0:
                          all */
  int bcast;           /* hbsp_alg of the multiply's panel broadcasts and the LU's broadcasts
                          (hla_opts.bcast.alg); 0 (HBSP_AUTO, the only one the planner picks by
                          itself): the multiply's MPI_Ibcast, overlapped, the LU's own choice */
  int torus[HPLAN_TORUS_DIMS]; /* the target's nodes on a torus of these dimensions, with the
                                  machine's torus_link (0s: the machine's torus, where it has one
                                  that holds the nodes) */
  int groups[2];  /* the multiply's HSUMMA groups I x J (both or neither; 0s: the planner's): HSUMMA
                     only with these, on the grids they divide (with M, N fixed they must); the
                     other algorithms as algs says */
  int leaf_nodes; /* the target's nodes under one leaf switch, with the machine's port_beta and
                     spine_alpha (0: the machine's leaf_nodes) */
} hplan_target;

/** One candidate plan: everything needed to run it, and its predicted time. */
typedef struct {
  int op; /* HPLAN_OP_MATMUL or HPLAN_OP_LU */
  int P, nodes, ranks_per_node, threads;
  int M, N;       /* grid */
  int mb, nb;     /* layout blocks */
  int alg;        /* hla_mm_alg or hla_lu_alg */
  int b, Mo;      /* panel width and HSUMMA outer block (multiply) */
  int gi, gj;     /* HSUMMA / hierarchical LU groups I x J */
  int c;          /* 3D layers */
  int lookahead;  /* LU: 1 on, -1 off */
  int bcast_alg;  /* hbsp_alg of the panel broadcasts (HBSP_AUTO: MPI's, overlapped) */
  double seconds; /* predicted time */
  double compute, comm, exposed; /* seconds of local work and of communication (summed over the
                                    steps: with look-ahead some of the work overlaps), and the
                                    part of `seconds` that is not local work */
  double bytes;                  /* memory per rank the algorithm allocates beyond the matrices */
  char why[96];                  /* short description */
} hplan_cand;

/** A ranking: the best candidates first. */
typedef struct {
  int ncand;       /* kept (<= HPLAN_MAX_CAND) */
  int nconsidered; /* evaluated */
  hplan_cand cand[HPLAN_MAX_CAND];
} hplan_ranking;

/** Rank the plans for C (m x n) := op(A) op(B) (k inner). t may be NULL (P = the model's). Local,
 *  pure. @return HLA_ERR_ARG for bad arguments (a model that fails hplan_check among them: a NaN
 *  model is never ranked), HLA_ERR_DIM if no plan fits (e.g. a fixed grid that is not P). */
HLA_API int hplan_matmul_rank(const hplan_machine *mach, int64_t m, int64_t n, int64_t k,
                              const hplan_target *t, hplan_ranking *out);

/** Rank the plans for the LU of an n x n matrix (plus the solve of t->nrhs right-hand sides).
 *  Local, pure. Errors as hplan_matmul_rank. */
HLA_API int hplan_lu_rank(const hplan_machine *mach, int64_t n, const hplan_target *t,
                          hplan_ranking *out);

/** DESIGN.md §2.4: the best plan for C (m x n) := A B (k inner) on P ranks (the model's node
 *  layout when P is its P, else nodes of its size). out's algorithm fields are set (mm_alg,
 *  inner_block, outer_block, groups_row/groups_col, replication, bcast; the others zero; report
 *  and info_out kept); if out->report is set, it also gets the grid (M, N), the blocks (mb, nb),
 *  threads, predicted_seconds and why. *predicted_seconds (may be NULL) gets the prediction.
 *  Local, pure. */
HLA_API int hplan_matmul(const hplan_machine *mach, int64_t m, int64_t n, int64_t k, int P,
                         hla_opts *out, double *predicted_seconds);

/** DESIGN.md §2.4: the best plan for the LU of an n x n matrix on P ranks, as hplan_matmul (out:
 *  lu_alg, lookahead, groups_row/groups_col; report: grid, nb, predicted_seconds, why). Local,
 *  pure. */
HLA_API int hplan_lu(const hplan_machine *mach, int64_t n, int P, hla_opts *out,
                     double *predicted_seconds);

/** Write one line per candidate of r (best first, at most max lines; 0 = all) to a FILE *
 *  (passed as void * so that this header needs no stdio.h). Local. */
HLA_API void hplan_print(const hplan_ranking *r, int max, void *file);

/* ---------------------------------------------------------------- cost model (pure) */

/** Seconds of one broadcast of `bytes` over p ranks with algorithm alg (HBSP_NATIVE is modelled as
 *  MPI's own choice: the cheapest of binomial, scatter-allgather and a pipeline of 128 KiB
 *  segments), pipeline segment seg (0: 64 KiB), on one link (Hockney; the formulas of
 *  src/bsp/coll.c). Local, pure. */
HLA_API double hplan_bcast_time(int alg, int p, double bytes, double seg, hplan_link lk);

/** Two-level (Hasanov) broadcast: outer over G groups on link out, inner over p/G on link in.
 *  G <= 1 or G >= p is the one-level cost on link in (G <= 1) or out (G >= p). Local, pure. */
HLA_API double hplan_bcast2_time(int alg, int p, int G, double bytes, double seg, hplan_link out,
                                 hplan_link in);

/** The pipelined broadcast's best segment (Legrand): with r = sqrt(m (p-2) beta / alpha) segments
 *  of m / r bytes, a chain of p ranks takes (sqrt((p-2) alpha) + sqrt(m beta))^2 seconds. Returns
 *  the segment in bytes (m itself when p <= 2). Local, pure. */
HLA_API double hplan_pipeline_segment(int p, double bytes, hplan_link lk);

/** Collective kinds for hplan_coll_time. */
enum {
  HPLAN_BCAST = 0,
  HPLAN_REDUCE,
  HPLAN_ALLREDUCE,
  HPLAN_GATHER,
  HPLAN_SCATTER,
  HPLAN_ALLGATHER
};

/** Seconds of any collective of the BSP layer (kind above, alg an hbsp_alg; bytes per rank for
 *  gather/scatter/allgather, the vector for the others; gamma seconds per byte of combining) with
 *  G groups (1 = one level) on links out (across groups) and in (inside). The formulas are those
 *  of src/bsp/coll.c, with the erratum of Hasanov's gather/scatter fixed (the outer level carries
 *  p/G times the bytes). Local, pure. */
HLA_API double hplan_coll_time(int kind, int alg, int p, int G, double bytes, double seg,
                               double gamma, hplan_link out, hplan_link in);

#ifdef __cplusplus
}
#endif
#endif
