/* hla — the thresholds between the algorithms' variants: where the LU's L panels go on a board or
 * by early messages, where its panel fuses the pivot exchange, where U12 is streamed, how the
 * trailing update is sliced, where the solve runs by fan-in, and the multiply's smallest automatic
 * panel. The entries (matmul/matmul.c, lu/lu.c) decide with them, the algorithms run what was
 * decided, and the model (model_lu.c, model_mm.c) prices the same variants: one definition below
 * all three. Constants, and the one rule both the LU and its model apply (the chain's segment).
 * Also the workspace a grid keeps, which the model prices.
 */
#ifndef HLA_DIST_PLAN_THRESHOLDS_H
#define HLA_DIST_PLAN_THRESHOLDS_H

#include <math.h>
#include <stddef.h>

/* Most words of workspace a grid keeps between operations while none is lent (layout/workspace.c:
 * hdist_take); the model charges fresh pages for what is beyond. */
#define HDIST_KEEP_WORDS ((int64_t)32 << 20) /* 256 MiB */

/* Smallest automatic panel width of the multiply: below about 256, a rank-b dgemm update loses
 * speed (hp_mm_default_panel). */
#define HMM_MIN_PANEL 256

/* Process columns up to which the L panels leave early by messages from the root to each where the
 * row has no board (point to point, lu/factor.c); longer rows pass them on round a ring. */
#define HLU_EARLY_MAX 4
/* Process columns beyond which the L panels go on the row's board where the row lies on one node
 * (lu.c: hlu_workspace). */
#define HLU_BOARD_MIN 2

/* Process rows up to which the distributed panel's pivot records go on the column's board where
 * the column lies on one node (each rank reads the M - 1 others' in place); beyond, or across
 * nodes, the binary exchange (lu/panel.c). */
#define HLU_PANEL_FUSE_MAX 8

/* Process rows up to which U12 is streamed or solved in parts over the column (ublock.c;
 * beyond, pr solves all and broadcasts it). Measured at M = 2
 * only (2 cores). The split moves the words of a scatter-allgather broadcast for a solve shared M
 * ways, which the model (model_lu.c) prices as a gain at any M; the limit keeps the longer
 * columns measured on 16 cores (8 and 16 ranks, bench/results/history_16core.md) on the pipelined
 * broadcast they were measured with until a run there compares both. */
#define HLU_USPLIT_MAX 4

/* Bytes from which the LU's L panels and U row blocks that are broadcast go down a segmented
 * chain (lu_impl.h: hlu_big_how); shorter ones go down a binomial tree, whose log2 P hops cost less
 * than the chain's P - 1 where a message is about as long as a hop's latency. MPICH's short
 * broadcast ends at the same size. On 8 x 128 ranks of the simulated torus in panels of 32, the
 * 8 KB U blocks took 0.33 ms down a chain of 8 and the LU 0.268 s; with the tree 0.246 s
 * (bench/results/sim/README.md). */
#define HLU_CHAIN_MIN ((size_t)12 << 10)
/* The chain's segments (hlu_chain_segment, below). A chain of X segments over P ranks takes
 * (X + P - 2)(alpha + (m / X) beta), least at X = sqrt((P - 2) m beta / alpha) (Legrand), where
 * alpha / beta is the message length that costs as much as its latency: HLU_CHAIN_HALF bytes
 * here, a network's few microseconds at a few hundred MB/s to a few GB/s. The segments stay
 * within [HLU_CHAIN_SEG_MIN, 64 KB], the BSP layer's default: on 16 cores the U blocks at
 * n = 16384 (8 MB and more, over 8 or 16 ranks) keep 64 KB; a 128 KB block down a column of 16
 * ranks of the simulated torus goes in 8 KB. There the LU at 256 ranks on 16 x 16 took 0.546 s
 * with 64 KB segments, 0.481 with 16 KB, 0.448 with 8 KB and 0.456 with 4 KB
 * (bench/results/sim/README.md: "The U blocks' chain"). */
#define HLU_CHAIN_HALF    ((size_t)4 << 10)
#define HLU_CHAIN_SEG_MIN ((size_t)8 << 10)
#define HLU_CHAIN_SEG_MAX ((size_t)64 << 10) /* bsp/coll_impl.h: HBSP_COLL_SEGMENT */

/* The segment of the LU's chain of bytes over P ranks (the rule above). */
static inline size_t hlu_chain_segment(size_t bytes, int P) {
  if (P <= 2) return HLU_CHAIN_SEG_MAX;
  const double x = sqrt((double)(P - 2) * (double)bytes / (double)HLU_CHAIN_HALF);
  const double seg = x > 1 ? (double)bytes / x : (double)bytes;
  return seg < (double)HLU_CHAIN_SEG_MIN   ? HLU_CHAIN_SEG_MIN
         : seg > (double)HLU_CHAIN_SEG_MAX ? HLU_CHAIN_SEG_MAX
                                           : (size_t)seg;
}

/* The trailing update goes in four column slices once it is wider than 4 HLU_SLICE_BLOCKS blocks
 * (1024 columns with nb = 128): often enough to move the early broadcast along, seldom enough that
 * dgemm (which packs L21 again for every call) keeps its speed. In blocks rather than columns, so
 * that the small matrices of the tests run the same paths as large ones. One process column
 * (N = 1) has no row broadcast to move: see HLU_PACK_BLOCKS. */
#define HLU_SLICE_BLOCKS 2

/* With look-ahead, the process column that has just factored panel k+1 packs the rows that panel's
 * interchanges send (and moves those that stay inside its rows) right after the update of step k
 * writes them, slice by slice while they are still in cache, instead of reading them back from
 * memory at the start of step k+1 (one cache line per entry: a row is strided). One process column
 * on several process rows updates in slices of this many blocks for it (8 x 128 = 1024 columns).
 * On 2x1 at n = 6000 the packing and local moves take 0.035 s there instead of 0.075 s in the
 * swaps, the slices cost dgemm 0.01-0.02 s, and the swaps (0.16 -> 0.11 s) are now mostly the
 * wait for the rank with one more block row: in all +0.4 % (median of 6 alternating pairs,
 * 0.98-1.02). Narrower slices (256 columns) cost dgemm more than they save. On 1x2 (only moves
 * inside the rows, in the four slices of N > 1) the swaps went 0.065 -> 0.042 s and the update
 * up 0.01-0.02 s: 0.957-1.023 of the time, median 0.993 of 10 alternating pairs. */
#define HLU_PACK_BLOCKS 8

/* The first slice of the rest on one process column of several process rows, in blocks: narrow,
 * since with U12 streamed (ublock.c) the other ranks wait for its solve on pr. */
#define HLU_FIRST_BLOCKS 2

/* Right-hand sides up to which the solve runs by fan-in: below about nb columns the triangle's
 * n^2 / M words dwarf B's, and the fan-in's dgemm calls are as wide as B anyway. */
#define HLU_FANIN_MAX_NRHS 64

#endif
