/* HPL's waits for a panel under SimGrid, for bench/sim/hpl.sh. HPL finds each L panel of its ring
 * broadcast by MPI_Iprobe (HPL_1rinM.c): between the slices of its update, between the steps of
 * its row swaps, and, once it has nothing left to do, in a loop of probes until the panel is
 * there, then MPI_Recv. SimGrid charges each probe smpi/iprobe of simulated time (a real one takes
 * about a microsecond) and real time too, so that waiting ranks' loops of probes at 1 us made the
 * 256-rank runs take 1,521 s of simulation, and at 10 us 4,096 ranks simulated 0.44 s of HPL in an
 * hour (bench/results/sim/README.md, "HPL's probes"). A loop that only probes ends when the
 * message arrives, as a blocking receive does: so once WAIT_AFTER probes in a row have found
 * nothing with nothing between (no BLAS call, fake_blas.c; no message, below; no simulated time,
 * by simgrid_get_clock, as MPI_Wtime moves the clock), the next answers "here" and HPL's MPI_Recv
 * waits for the panel. The swaps probe once a step, a step with no message for some ranks, so
 * fewer in a row than log2 of the process rows and a few more; a rank that blocked there would hold
 * its column's swaps (HPL on 16 x 16 ranks took 1.37 x as long that way). HPL_SPIN=probe keeps
 * SimGrid's loop of probes (the runs before 2026-11-30's, and to compare). No part of hla. */
#include <mpi.h>
#include <simgrid/engine.h>
#include <stdlib.h>
#include <string.h>

enum { WAIT_AFTER = 64 };

/* This rank's probes that found nothing, in a row with nothing between, and the last one's
 * arguments and end (per rank: hpl.sh privatizes globals) */
static struct {
  int failed, source, tag;
  MPI_Comm comm;
  double when;
} last;

/* This rank did something since its last probe: a BLAS call (fake_blas.c) or a message (below). */
void probe_wait_work(void) {
  last.failed = 0;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  static int spin = -1;
  if (spin < 0) spin = getenv("HPL_SPIN") && !strcmp(getenv("HPL_SPIN"), "probe");
  const int again = last.failed > 0 && source == last.source && tag == last.tag &&
                    comm == last.comm && simgrid_get_clock() == last.when;
  if (!spin && again && last.failed >= WAIT_AFTER && source != MPI_ANY_SOURCE) {
    last.failed = 0;
    *flag = 1;
    if (status != MPI_STATUS_IGNORE) {
      status->MPI_SOURCE = source;
      status->MPI_TAG = tag;
      status->MPI_ERROR = MPI_SUCCESS;
    }
    return MPI_SUCCESS;
  }
  int rc = PMPI_Iprobe(source, tag, comm, flag, status);
  last.failed = rc == MPI_SUCCESS && !*flag ? (again ? last.failed : 0) + 1 : 0;
  last.source = source, last.tag = tag, last.comm = comm, last.when = simgrid_get_clock();
  return rc;
}

/* HPL's point-to-point calls (grep MPI_ in its src/) */
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm) {
  probe_wait_work();
  return PMPI_Send(buf, count, type, dst, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm) {
  probe_wait_work();
  return PMPI_Ssend(buf, count, type, dst, tag, comm);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm,
               MPI_Request *req) {
  probe_wait_work();
  return PMPI_Issend(buf, count, type, dst, tag, comm, req);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
             MPI_Status *status) {
  probe_wait_work();
  return PMPI_Recv(buf, count, type, src, tag, comm, status);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
              MPI_Request *req) {
  probe_wait_work();
  return PMPI_Irecv(buf, count, type, src, tag, comm, req);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status) {
  probe_wait_work();
  return PMPI_Wait(req, status);
}
