/* hla — precision templating of src/dist (private): src/prec.h, plus the names of the LU, the
 * multiply and the redistribution that the single copy renames. The public headers come first
 * (included here, before the renames), so that the single copy's entries (hmatmul_s, ...) are not
 * declared with HLA_API and stay hidden: the double entries dispatch to them by element type. */
#ifndef HLA_PREC_DIST_H
#define HLA_PREC_DIST_H

#include "hla.h"
#include "prec.h"

/* The single twins of the public entries, which the double entries dispatch to (the
 * single copy calls them by the public names, renamed below). */
int hmatmul_s(char transa, char transb, double alpha, hmat A, hmat B, double beta, hmat C,
              const hla_opts *opts);
int hlu_factor_s(hmat A, int64_t *ipiv, const hla_opts *opts);
int hlu_solve_s(hmat LU, const int64_t *ipiv, hmat B, const hla_opts *opts);
int hlu_solve_trans_s(char trans, hmat LU, const int64_t *ipiv, hmat B, const hla_opts *opts);
int hla_gesv_s(hmat A, int64_t *ipiv, hmat B, const hla_opts *opts);
int hmat_redistribute_s(hmat src, hmat dst);
int hmat_redistribute_part_s(hmat src, int64_t si, int64_t sj, hmat dst, int64_t di, int64_t dj,
                             int64_t m, int64_t n);

#ifdef HLA_SINGLE
#define HREAL_ELEM HLA_FLOAT
#define HREAL_MPI  MPI_FLOAT
#define HREAL_HBSP HBSP_FLOAT

/* Every function with external linkage in an element file of src/dist is renamed, those without
 * entries in their arguments too (they are compiled twice all the same). */

/* public entries: hidden twins that the double entries call for float operands */
#define hmatmul                hmatmul_s
#define hlu_factor             hlu_factor_s
#define hlu_solve              hlu_solve_s
#define hlu_solve_trans        hlu_solve_trans_s
#define hla_gesv               hla_gesv_s
#define hmat_redistribute      hmat_redistribute_s
#define hmat_redistribute_part hmat_redistribute_part_s
#define hdist_transpose        hdist_transpose_s

/* the LU (src/dist/lu/lu_impl.h) */
#define hlu_opts_check       hlu_opts_check_s
#define hlu_check_matrix     hlu_check_matrix_s
#define hlu_perm_pairs       hlu_perm_pairs_s
#define hlu_setup            hlu_setup_s
#define hlu_workspace        hlu_workspace_s
#define hlu_teardown         hlu_teardown_s
#define hlu_report           hlu_report_s
#define hlu_check_finite     hlu_check_finite_s
#define hlu_check_solve      hlu_check_solve_s
#define hlu_finish           hlu_finish_s
#define hlu_factor_run       hlu_factor_run_s
#define hlu_panel            hlu_panel_s
#define hlu_pivot_local      hlu_pivot_local_s
#define hlu_swap_left        hlu_swap_left_s
#define hlu_rows_open        hlu_rows_open_s
#define hlu_rows_pack        hlu_rows_pack_s
#define hlu_rows_reserve     hlu_rows_reserve_s
#define hlu_rows_close       hlu_rows_close_s
#define hlu_move_rows        hlu_move_rows_s
#define hlu_swap_spread      hlu_swap_spread_s
#define hlu_swap_spread_rest hlu_swap_spread_rest_s
#define hlu_trsolve          hlu_trsolve_s
#define hlu_fanin_words      hlu_fanin_words_s
#define hlu_trsolve_fanin    hlu_trsolve_fanin_s
#define hlu_u_late           hlu_u_late_s
#define hlu_u_wait           hlu_u_wait_s
#define hlu_u_block          hlu_u_block_s
#define hlu_u_rest           hlu_u_rest_s

/* the multiply (src/dist/matmul/matmul_impl.h) */
#define mm_remap      mm_remap_s
#define mm_dim_local  mm_dim_local_s
#define mm_max_pieces mm_max_pieces_s
#define mm_pieces     mm_pieces_s
#define mm_bcast      mm_bcast_s
#define mm_pack_a     mm_pack_a_s
#define mm_pack_bt    mm_pack_bt_s
#define mm_scale      mm_scale_s
#define mm_update     mm_update_s
#define mm_summa      mm_summa_s
#define mm_hsumma     mm_hsumma_s
#define mm_3d         mm_3d_s
#define mm_reduce     mm_reduce_s
#define mm_reqs_init  mm_reqs_init_s
#define mm_reqs_free  mm_reqs_free_s
#define mm_wait       mm_wait_s
#else
#define HREAL_ELEM HLA_DOUBLE
#define HREAL_MPI  MPI_DOUBLE
#define HREAL_HBSP HBSP_DOUBLE
#endif

/* In a double entry: return the single twin's call when X (an hmat, or NULL) holds floats. */
#ifdef HLA_SINGLE
#define HREAL_DISPATCH(X, call) ((void)0)
#else
#define HREAL_DISPATCH(X, call)                                                                    \
  do {                                                                                             \
    if ((X) != NULL && hmat_elem(X) == HLA_FLOAT) return call;                                     \
  } while (0)
#endif

/* hdist_take / hdist_alloc of n entries (they count 8-byte words). */
#define HREAL_TAKE(g, n) hdist_take((g), hdist_words((n), sizeof(hreal)))
#define HREAL_ALLOC(n)   hdist_alloc(hdist_words((n), sizeof(hreal)))

/* hreals in an 8-byte header word of a message (int64_t headers ahead of entries). */
#define HREAL_WORD ((int64_t)(8 / sizeof(hreal)))

/* A matrix's local entries as hreal (the caller has checked its type). */
#define HDATA(X) ((hreal *)(X)->data)

#endif
