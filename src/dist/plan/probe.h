/* hla — private interface of the planner's side that talks to the BSP layer: the probe (probe.c)
 * and the pairwise benchmark (pairwise.c). */
#ifndef HLA_DIST_PLAN_PROBE_H
#define HLA_DIST_PLAN_PROBE_H

#include <stdint.h>
#include <mpi.h>
#include "bsp/bsp_impl.h"
#include "dist/plan/plan_impl.h"

/* Obtain the model for env (P ranks, nodes nodes) as HLA_PLAN / HLA_MACHINE_FILE say: a model this
 * process kept (below), else the machine file's entry (one that passes hplan_check), else (unless
 * HLA_PLAN=load) hplan_measure, saved to the file. A bad entry of the file, a file that cannot be
 * written and a probe whose model fails hplan_check are each reported once, on rank 0 (one line on
 * stderr); a model the file could not take is kept in memory for the rest of the process (on
 * MPI_COMM_SELF), so that later calls do not probe again. *out is a malloc'ed model or NULL
 * (planning off or unavailable). Collective over env; errors agreed. Cost: one broadcast of the
 * configuration and of the model; reading the file on rank 0; a probe (seconds) at most once per
 * host, P, nodes and path in a process whose file cannot take it. */
int hplan_obtain(hbsp_env env, int nodes, hplan_machine **out);

/* hplan_probe without the end-to-end calibration (lu_cal = mm_cal = 0): everything the machine
 * model holds, measured by the BSP layer and the node kernels alone. The automatic paths
 * (hplan_obtain) use it: the calibration runs the library's own LU and multiply, which sit above
 * the planner (src/dist/calibrate.c adds it for hplan_probe). Collective over env. */
int hplan_measure(hbsp_env env, hplan_machine *m);

/* A kernel to time (hplan_timed). */
typedef int (*hplan_probe_fn)(void *arg);

/* Time fn on every rank of comm (prep before each repetition, untimed): after a warm-up, 3 to 9
 * repetitions, each the maximum over ranks of `inner` calls, until the last three are within 5 %
 * of their median (or half a second was spent); *med = that median / inner. An error of fn on any
 * rank is returned on every rank. Collective over comm (active = 0: this rank only takes part). */
int hplan_timed(MPI_Comm comm, int active, int sleepy, hplan_probe_fn fn, hplan_probe_fn prep,
                void *arg, int inner, double *med);

/* The pairwise benchmark limited to max_rounds rounds per sweep (0: all). Collective over env. */
int hplan_pairwise_rounds(hbsp_env env, int sweeps, uint64_t seed, size_t bytes, int reps,
                          int max_rounds, double *lat, double *invbw);

#endif
