/* hla — the simulation's model mode (HLA_SIM=model, SimGrid builds): the node kernels charge the
 * simulated time of their work instead of doing it.
 *
 * Under SMPI the ranks are threads of one process and the simulator charges each burst of real
 * computation between two MPI calls to the rank's simulated clock (scaled by smpi/host-speed). In
 * model mode every kernel of blas.c, lapack.c and pack.c returns at once after charging its work to
 * the platform's host (smpi_execute_flops), so that 1,024-16,384 simulated ranks run on one
 * machine. The matrices are then meaningless (SMPI's shared memory, layout/workspace.c): what the
 * model keeps is every message of the algorithms, with the sizes and partners of the real run.
 *
 * What a kernel costs. By default its operation count at the host's `speed` (a copy of w words
 * counts as w operations, a crude price for memory traffic that is small beside the multiplies').
 * A platform whose hosts carry the properties below (bench/platforms/from_machine.py writes them
 * from a machine file, so that a simulated node computes as the probed one) prices each kernel as
 * the planner's model does (dist/plan/model_lu.c, model_mm.c), in seconds:
 *   hla_gemm_rate, hla_gemm_khalf, hla_gemm_mhalf   dgemm and dtrsm: flops (1 + khalf / k)
 *                                                   (1 + mhalf / min(m, n)) / rate
 *   hla_panel_rate, hla_panel_half                  the recursive panel LU of jb columns: flops
 *                                                   (jb + half) / (jb rate)
 *   hla_getrf_rate, hla_getrf_half                  LAPACK's dgetrf: flops (1 + half / n) / rate
 *   hla_copy_rate                                   copies, packs, row swaps and the BLAS 1-2
 *                                                   kernels, memory bound: bytes / rate
 * hla_gemm_rate turns the pricing on; a missing other rate falls back as the planner's does (panel
 * and dgetrf at the dgemm rate's half and whole, copies at 2 GB/s, halves 0). The rates are read
 * from the host of the first rank that sets the mode: every host of the platform must give the
 * same (all of bench/platforms' do).
 *
 * The switch is process-wide, as the BLAS's thread count is (threads.c): set once from HLA_SIM by
 * the first grid (layout/grid.c) and the same for every rank of the simulation. */
#include <stdlib.h>
#include "kernels/kernels.h"
#ifdef HLA_SMPI
#include <simgrid/host.h>
#include <smpi/smpi.h>
#endif

/* The one process-wide state (see above): the switch, and the kernel rates (rate 0: by count). */
static struct {
  int model;
  double speed, gemm, khalf, mhalf, panel, phalf, getrf, ghalf, copy;
} sim;

#ifdef HLA_SMPI
static double prop(sg_host_t h, const char *name, double dflt) {
  const char *v = sg_host_get_property_value(h, name);
  char *end;
  double x = v ? strtod(v, &end) : 0.0;
  return v && end != v && *end == '\0' && x >= 0 ? x : dflt;
}
#endif

void hkern_sim_set(int model) {
#ifdef HLA_SMPI
  if (model && !sim.model) {
    sg_host_t h = sg_host_self();
    sim.speed = sg_host_get_speed(h);
    sim.gemm = prop(h, "hla_gemm_rate", 0);
    sim.khalf = prop(h, "hla_gemm_khalf", 0), sim.mhalf = prop(h, "hla_gemm_mhalf", 0);
    sim.panel = prop(h, "hla_panel_rate", 0.5 * sim.gemm), sim.phalf = prop(h, "hla_panel_half", 0);
    sim.getrf = prop(h, "hla_getrf_rate", sim.gemm), sim.ghalf = prop(h, "hla_getrf_half", 0);
    sim.copy = prop(h, "hla_copy_rate", 2e9);
  }
#endif
  sim.model = model;
}

int hkern_sim_model(void) {
  return sim.model;
}

void hkern_sim_charge(hkern_sim_kind kind, double ops, double a, double b) {
#ifdef HLA_SMPI
  if (!(sim.gemm > 0)) {
    if (ops > 0) smpi_execute_flops(ops);
    return;
  }
  double t = 0;
  switch (kind) {
  case HKERN_SIM_GEMM:
    if (a > 0 && b > 0) t = ops * (1 + sim.khalf / a) * (1 + sim.mhalf / b) / sim.gemm;
    break;
  case HKERN_SIM_PANEL:
    if (a > 0) t = ops * (a + sim.phalf) / (a * sim.panel);
    break;
  case HKERN_SIM_GETRF:
    if (a > 0) t = ops * (1 + sim.ghalf / a) / sim.getrf;
    break;
  case HKERN_SIM_MEM:
    t = a / sim.copy;
    break;
  }
  if (t > 0) smpi_execute_flops(t * sim.speed);
#else
  (void)kind, (void)ops, (void)a, (void)b;
#endif
}
