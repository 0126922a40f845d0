/* hla — the simulation's model mode (HLA_SIM=model, SimGrid builds): the node kernels charge the
 * simulated time of their work instead of doing it.
 *
 * Under SMPI the ranks are threads of one process and the simulator charges each burst of real
 * computation between two MPI calls to the rank's simulated clock (scaled by smpi/host-speed). In
 * model mode every kernel of blas.c, lapack.c and pack.c returns at once after charging its
 * operation count to the platform's host (smpi_execute_flops: flops at the host's `speed`; a copy
 * of w words counts as w operations, a crude price for memory traffic that is small beside the
 * multiplies'), so that 1,024-16,384 simulated ranks run on one machine. The matrices are then
 * meaningless (SMPI's shared memory, layout/workspace.c): what the model keeps is every message of
 * the algorithms, with the sizes and partners of the real run.
 *
 * The switch is process-wide, as the BLAS's thread count is (threads.c): set once from HLA_SIM by
 * the first grid (layout/grid.c) and the same for every rank of the simulation. */
#include "kernels/kernels.h"
#ifdef HLA_SMPI
#include <smpi/smpi.h>
#endif

static int sim_model; /* the one process-wide switch (see above) */

void hkern_sim_set(int model) {
  sim_model = model;
}

int hkern_sim_model(void) {
  return sim_model;
}

void hkern_sim_charge(double ops) {
#ifdef HLA_SMPI
  if (ops > 0) smpi_execute_flops(ops);
#else
  (void)ops;
#endif
}
