/* hla — libhla_scalapack: descriptors.
 *
 * ScaLAPACK's descriptor (DTYPE 1): DTYPE, CTXT, M, N, MB, NB, RSRC, CSRC, LLD; PBLAS's
 * (DTYPE 2, BLOCK_CYCLIC_2D_INB): DTYPE, CTXT, M, N, IMB, INB, MB, NB, RSRC, CSRC, LLD, whose
 * first block is IMB x INB and whose RSRC or CSRC may be -1 (the rows or columns replicated on
 * every process row or column). The LAPACK-level routines take type 1 only (CHK1MAT); pdgemm both.
 */
#include "scalapack/scalapack_impl.h"

void sl_desc_read(const int *desc, sl_desc *d) {
  if (desc[0] == SL_BLOCK_CYCLIC_2D) {
    *d = (sl_desc){SL_BLOCK_CYCLIC_2D_INB,
                   desc[1],
                   desc[2],
                   desc[3],
                   desc[4],
                   desc[5],
                   desc[4],
                   desc[5],
                   desc[6],
                   desc[7],
                   desc[8]};
  } else if (desc[0] == SL_BLOCK_CYCLIC_2D_INB) {
    *d = (sl_desc){desc[0], desc[1], desc[2], desc[3], desc[4], desc[5],
                   desc[6], desc[7], desc[8], desc[9], desc[10]};
  } else { /* PB_CargFtoC: the type and context kept, the checks then stop at the type */
    *d = (sl_desc){desc[0], desc[1], 0, 0, 1, 1, 1, 1, 0, 0, 1};
  }
}

int64_t sl_numroc(int64_t n, int64_t ib, int64_t nb, int proc, int src, int nprocs) {
  if (src < 0 || nprocs == 1) return n;
  int dist = (proc - src + nprocs) % nprocs;
  if (n <= ib) return dist == 0 ? n : 0;
  /* the first block on src, then blocks of nb from src + 1 on: process proc is (dist - 1) mod P
   * places from the first of those */
  return (dist == 0 ? ib : 0) + hmat_numroc(n - ib, nb, (dist - 1 + nprocs) % nprocs, nprocs);
}
