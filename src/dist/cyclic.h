/* hla — block-cyclic index arithmetic (ScaLAPACK's numroc, indxl2g, indxg2l, indxg2p): pure
 * functions of the sizes, shared by every room of src/dist (the planner's model prices layouts it
 * never builds). The layout's public hmat_numroc, hmat_idx_l2g, hmat_idx_g2l and hmat_idx_owner
 * are these. n indices in blocks of nb dealt over nprocs processes from process 0. */
#ifndef HLA_DIST_CYCLIC_H
#define HLA_DIST_CYCLIC_H

#include <stdint.h>

/* Indices process iproc holds (0 for any argument out of range). */
static inline int64_t hcyc_numroc(int64_t n, int64_t nb, int iproc, int nprocs) {
  if (n <= 0 || nb <= 0 || nprocs <= 0 || iproc < 0 || iproc >= nprocs) return 0;
  int64_t nblocks = n / nb;
  int64_t num = (nblocks / nprocs) * nb, extra = nblocks % nprocs;
  if (iproc < extra)
    num += nb;
  else if (iproc == extra)
    num += n % nb; /* the last, partial block */
  return num;
}

/* Global index of local index iloc of process iproc. */
static inline int64_t hcyc_l2g(int64_t iloc, int64_t nb, int iproc, int nprocs) {
  return ((iloc / nb) * nprocs + iproc) * nb + iloc % nb;
}

/* Local index of global index i on its owner. */
static inline int64_t hcyc_g2l(int64_t i, int64_t nb, int nprocs) {
  return (i / (nb * nprocs)) * nb + i % nb;
}

/* The process that holds global index i. */
static inline int hcyc_owner(int64_t i, int64_t nb, int nprocs) {
  return (int)((i / nb) % nprocs);
}

#endif
