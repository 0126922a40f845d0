/* hla — BSP machine probe (private): the computation rate r, g and l of an environment measured
 * with full h-relations (bspbench, seed 002 §5.1 and seed 000 §3), and the MPI floor they are
 * compared with. Used by bench/bspbench.c and by the planner (hplan_probe).
 *
 * Units: h counts words of 8 bytes (doubles) sent and received per rank; g is seconds per word, l
 * seconds; the *_flops fields are the same in flop units (times r), as BSP parameters are usually
 * quoted. Every probe is collective and returns the same numbers and the same code on every rank.
 */
#ifndef HLA_BSP_PROBE_H
#define HLA_BSP_PROBE_H

#include <stdint.h>
#include "hla/bsp.h"

/* Most h values one fit uses. */
#define HBSP_PROBE_MAXPTS 64

/** Ordinary least squares fit of t = h g + l to n points (h[i], t[i]). Local, pure, O(n).
 *  Centred form: g = Σ(h−h̄)(t−t̄) / Σ(h−h̄)², l = t̄ − h̄ g. For h = h0..h1 in steps of one,
 *  Σ(h−h̄)² = (h1−h0)(h1−h0+1)(h1−h0+2)/12; seed 002 prints (h1−h0−2) there, which is wrong.
 *  HLA_ERR_ARG if n < 2, a pointer is NULL, or all h are equal (g undetermined). */
int hbsp_ols(const double *h, const double *t, int n, double *g, double *l);

/* Computation rate of one vector length: flop/s over the ranks. */
typedef struct {
  int64_t n;               /* vector length */
  double rmin, ravg, rmax; /* flop/s, minimum, average and maximum over the ranks */
} hbsp_rate;

/** Rate r of interleaved DAXPY pairs y += αx, z −= βx (4n flops per pair; seed bspbench) for n =
 *  1, 2, 4, ..., nmax (a power of two), each repeated until it ran at least min_seconds. Every rank
 *  computes at once. table (optional, NULL or log2(nmax)+1 entries) gets every length; *r gets the
 *  largest, whose average is "r" (van Duijn). Collective over env: one allreduce per length. */
int hbsp_probe_rate(hbsp_env env, int64_t nmax, double min_seconds, hbsp_rate *table, hbsp_rate *r);

/* How an h-relation is made. */
typedef enum {
  HBSP_HREL_WORDS = 0, /* h puts of one word each, word i to rank (s+1+i mod (P−1)) mod P, as
                          bspbench: g includes the cost per put */
  HBSP_HREL_BULK,      /* the same words, one hbsp_put per destination: g is bandwidth */
  HBSP_HREL_BULK_HP    /* the same with hbsp_hpput (no copy at the put) */
} hbsp_hrel_mode;

/* What to measure. Zero fields take the defaults in brackets. */
typedef struct {
  int h0, h1;          /* range of h, inclusive [0, 64] */
  int npoints;         /* h values, evenly spread over the range; at most HBSP_PROBE_MAXPTS
                          and h1−h0+1 [min(h1−h0+1, 16)] */
  int reps;            /* repetitions per h; the median is fitted [5] */
  int inner;           /* h-relations timed back to back in one repetition [2] */
  hbsp_hrel_mode mode; /* [HBSP_HREL_WORDS] */
} hbsp_hrel_opts;

/* Result of one fit. */
typedef struct {
  double g, l;             /* seconds per word, seconds */
  double g_flops, l_flops; /* g r and l r (0 when r was not given) */
  int npoints;
  double h[HBSP_PROBE_MAXPTS], t[HBSP_PROBE_MAXPTS]; /* the fitted points: h, median seconds */
} hbsp_gl;

/** g and l of env by full h-relations: for each h, every rank puts h words (8 bytes) spread
 *  evenly over the other ranks (all to itself when P = 1) and syncs; the time of a repetition is
 *  the maximum over ranks, started together after a barrier; the median over repetitions is
 *  fitted with hbsp_ols. r (flop/s, 0 = unknown) converts to flop units. o NULL = defaults.
 *  Collective over env. Cost: about reps·inner·npoints syncs of up to h1 words, plus barriers. */
int hbsp_probe_gl(hbsp_env env, const hbsp_hrel_opts *o, double r, hbsp_gl *out);

/** As hbsp_probe_gl, but every rank of parent whose active flag is set runs the h-relations in
 *  its subset environment sub (e.g. its row) at the same time as the other active subsets; the
 *  others only join the barriers. active must be equal within each sub, and sub may be NULL where
 *  active is 0. With one subset active this measures it alone; with all active, concurrent subset
 *  syncs (which share the network). Times are maxima over the active ranks. Collective over
 *  parent. */
int hbsp_probe_gl_sub(hbsp_env parent, hbsp_env sub, int active, const hbsp_hrel_opts *o, double r,
                      hbsp_gl *out);

/* The MPI floor of a sync. */
typedef struct {
  int count_bytes; /* bytes per peer in the count exchange */
  double alltoall; /* median seconds of one MPI_Alltoall of count_bytes per peer */
  double barrier;  /* median seconds of one MPI_Barrier */
  double floor;    /* median seconds of MPI_Alltoall followed by MPI_Barrier */
} hbsp_floor;

/** Time what any sync must at least do: one MPI_Alltoall of count_bytes per peer (the count
 *  exchange; 0 = the 72 bytes hbsp_sync exchanges) and one MPI_Barrier, each repeated reps times
 *  (0 = 50), maximum over ranks, median. Collective over env. */
int hbsp_probe_floor(hbsp_env env, int count_bytes, int reps, hbsp_floor *out);

/** g and l of MPI_Alltoallv on env's communicator moving the same words as the HBSP_HREL_BULK
 *  h-relation (o->mode is ignored): the bandwidth a sync is compared with. Collective over env. */
int hbsp_probe_alltoallv(hbsp_env env, const hbsp_hrel_opts *o, double r, hbsp_gl *out);

#endif
