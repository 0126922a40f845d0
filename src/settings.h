/* hla — the HLA_* environment variables: every one the library reads, parsed and checked here and
 * nowhere else (the table is README.md's "Settings"). Local and pure: the BSP layer's hbsp_init
 * reads them on every rank, takes rank 0's values everywhere and reports once (src/bsp/env.c); the
 * other layers get them from their environment (hbsp_settings). Never included by a public
 * header. */
#ifndef HLA_SETTINGS_H
#define HLA_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

/* HLA_PLAN */
enum { HLA_PLAN_AUTO = 0, HLA_PLAN_LOAD, HLA_PLAN_PROBE, HLA_PLAN_OFF };
/* HLA_SCALAPACK_LU_GRID: the grid libhla_scalapack's LU runs on when the BLACS grid is taller than
 * wide (scalapack/context.c, sl_lu_grid) */
enum { HLA_SL_LU_AUTO = 0, HLA_SL_LU_CALLER, HLA_SL_LU_WIDE };

/* Most threads per rank HLA_NUM_THREADS may ask for where the node's cores are unknown (else they
 * are the limit). */
#define HLA_SETTINGS_MAX_THREADS 4096
/* Largest HLA_PLAN_N: beyond, the planner's search takes seconds and no machine holds the matrix.
 */
#define HLA_SETTINGS_MAX_PLAN_N ((int64_t)1 << 24)
/* Longest path HLA_PROFILE or HLA_MACHINE_FILE may give. */
#define HLA_SETTINGS_PATH 1024

typedef struct {
  int trace;                       /* HLA_TRACE: 1 prints a file:line trace of errors */
  int quiet;                       /* HLA_QUIET: 1 gives no advice on stderr (idle cores) */
  int virtual_nodes;               /* HLA_VIRTUAL_NODES: k consecutive virtual nodes; 0: real */
  int num_threads;                 /* HLA_NUM_THREADS: BLAS/OpenMP threads per rank; 0: policy */
  int plan;                        /* HLA_PLAN: HLA_PLAN_AUTO, _LOAD, _PROBE or _OFF */
  int64_t plan_n;                  /* HLA_PLAN_N: order hgrid_create(0, 0) plans for; 0: default */
  char profile[HLA_SETTINGS_PATH]; /* HLA_PROFILE: JSON profile path; "": none */
  char machine[HLA_SETTINGS_PATH]; /* HLA_MACHINE_FILE: path, "none"/"off"; "": the default */
  int scalapack_report;  /* HLA_SCALAPACK_REPORT: 1 has libhla_scalapack print its calls at exit */
  int scalapack_lu_grid; /* HLA_SCALAPACK_LU_GRID: HLA_SL_LU_AUTO, _CALLER or _WIDE */
  int sim_model;         /* HLA_SIM: 1 = model (kernels charge their time; SMPI builds only) */
} hla_settings;

/* Where the values come from: getenv when get is NULL. */
typedef const char *(*hla_getenv_fn)(const char *name, void *ctx);

/* Parse every variable into s. A bad value (syntax, range) falls back to the variable's default
 * and appends one line to msg (NUL-terminated, cut to len): "hla: error: ..." for a value that
 * would change what is computed or written (HLA_VIRTUAL_NODES: the nodes the algorithms see;
 * HLA_MACHINE_FILE, HLA_PROFILE: a path too long), counted in *errors; "hla: warning: ..." for one
 * that only changes speed or diagnostics, counted in *warnings. cores: the node's cores, which
 * HLA_NUM_THREADS is cut to (0: not cut). Local, pure (no state; reads only through get). */
void hla_settings_parse(hla_settings *s, hla_getenv_fn get, void *ctx, int cores, char *msg,
                        size_t len, int *errors, int *warnings);

/* HLA_TRACE alone, for the error trace, which has no environment at hand. Local. */
int hla_settings_trace(void);

#endif
