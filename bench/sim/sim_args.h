/* sim_args.h — the command line of the simulation programs of bench/sim: "--name value" pairs
 * into typed variables, from a table each program gives. Names not in the table are skipped, so a
 * script may pass options a program does not take. Local; no MPI. */
#ifndef HLA_BENCH_SIM_ARGS_H
#define HLA_BENCH_SIM_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SIM_INT, SIM_I64, SIM_DBL, SIM_STR, SIM_GRID } sim_kind;

typedef struct {
  const char *name; /* "--n" */
  sim_kind kind;    /* SIM_GRID: "MxN" into int[2] */
  void *to;
  size_t size; /* SIM_STR: the buffer's size */
} sim_arg;

static inline void sim_args(int argc, char **argv, const sim_arg *a, int n) {
  for (int i = 1; i + 1 < argc; i += 2)
    for (int j = 0; j < n; j++) {
      if (strcmp(argv[i], a[j].name)) continue;
      const char *v = argv[i + 1];
      switch (a[j].kind) {
      case SIM_INT:
        *(int *)a[j].to = atoi(v);
        break;
      case SIM_I64:
        *(int64_t *)a[j].to = atoll(v);
        break;
      case SIM_DBL:
        *(double *)a[j].to = atof(v);
        break;
      case SIM_STR:
        snprintf((char *)a[j].to, a[j].size, "%s", v);
        break;
      case SIM_GRID:
        sscanf(v, "%dx%d", (int *)a[j].to, (int *)a[j].to + 1);
        break;
      }
    }
}

#endif
