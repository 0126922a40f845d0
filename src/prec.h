/* hla — precision templating (private). The files that hold matrix entries (the kernels of
 * blas.c, lapack.c and pack.c; the LU, the multiply and the redistribution in src/dist) are
 * written once, for `hreal`, and compiled twice: as they are (hreal = double, the names as
 * written) and with HLA_SINGLE defined (hreal = float, every name below renamed to its single
 * twin), so that the double and single code are the same code. CMakeLists.txt builds the second
 * copy (hla_single). Scalars that are not matrix entries (alpha and beta, norms, pivot values
 * in the pivot search's records, times, the model's numbers) stay double in both.
 * This header has the type and the kernels' names; src/dist/prec_dist.h adds the names of
 * src/dist. An element file includes it before any private header, so that the renames apply to
 * the declarations too.
 */
#ifndef HLA_PREC_H
#define HLA_PREC_H

#ifdef HLA_SINGLE
typedef float hreal;
#define HREAL_P     "s" /* BLAS's letter, for messages: HREAL_P "gemm" */
#define HBLAS(f)    cblas_s##f
#define HLAPACKE(f) LAPACKE_s##f

/* kernels (src/kernels/kernels.h) */
#define hkern_dgemm      hkern_sgemm
#define hkern_dtrsm      hkern_strsm
#define hkern_dger       hkern_sger
#define hkern_dgemv      hkern_sgemv
#define hkern_idamax     hkern_isamax
#define hkern_dscal      hkern_sscal
#define hkern_dswap      hkern_sswap
#define hkern_dgetrf     hkern_sgetrf
#define hkern_panel_lu   hkern_panel_lu_s
#define hkern_dlaswp     hkern_slaswp
#define hkern_dlacpy     hkern_slacpy
#define hkern_dlaset     hkern_slaset
#define hkern_pack       hkern_pack_s
#define hkern_unpack     hkern_unpack_s
#define hkern_pack_idx   hkern_pack_idx_s
#define hkern_unpack_idx hkern_unpack_idx_s
#define hkern_transpose  hkern_transpose_s

#else
typedef double hreal;
#define HREAL_P     "d"
#define HBLAS(f)    cblas_d##f
#define HLAPACKE(f) LAPACKE_d##f

#endif

#endif
