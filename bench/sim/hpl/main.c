/* The program around hpcc's HPL_main (HPL's own driver, which reads hpccinf.txt and appends its
 * results to hpccoutf.txt in the working directory), for bench/sim/hpl.sh. */
#include <mpi.h>
#include <stdio.h>
#include "hpl.h"

int HPL_main(int argc, char **argv, HPL_RuntimeData *rdata, int *failure);

/* hpcc's fallback for an input file HPL cannot read (hpcc's src/io.c); here that is an error. */
int HPCC_Defaults(HPL_T_test *TEST, int *NS, int *N, int *NBS, int *NB, HPL_T_ORDER *PMAPPIN,
                  int *NPQS, int *P, int *Q, int *NPFS, HPL_T_FACT *PF, int *NBMS, int *NBM,
                  int *NDVS, int *NDV, int *NRFS, HPL_T_FACT *RF, int *NTPS, HPL_T_TOP *TP,
                  int *NDHS, int *DH, HPL_T_SWAP *FSWAP, int *TSWAP, int *L1NOTRAN, int *UNOTRAN,
                  int *EQUIL, int *ALIGN, MPI_Comm comm) {
  fprintf(stderr, "xhpl: hpccinf.txt is not an input HPL can read\n");
  MPI_Abort(comm, 1);
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HPL_RuntimeData rdata;
  int failure = 0;
  HPL_main(argc, argv, &rdata, &failure);
  MPI_Finalize();
  return 0;
}
