/* hla — libhla_scalapack: a BLACS context -> an hla grid over its processes.
 *
 * BLACS keeps a communicator per context over exactly the grid's processes (blacs_get_ with what =
 * 10 gives its Fortran handle). The grid is made once per context: that communicator split with
 * the keys myrow npcol + mycol (a row-major order, whatever order BLACS placed the processes in),
 * an hbsp environment over it, and hgrid_create(env, nprow, npcol), which then puts every process
 * at its BLACS coordinates. It is kept in an attribute of the context's communicator, so that
 * BLACS's blacs_gridexit (which frees that communicator) frees it, and a context number BLACS
 * gives out again finds a fresh communicator without one.
 */
#include <stdlib.h>
#include "bsp/bsp_impl.h"
#include "scalapack/scalapack_impl.h"

/* The attribute's key. MPI forces it to live in a static: a keyval is process-wide state that
 * MPI hands out once and the callbacks cannot find otherwise. */
static int grid_key = MPI_KEYVAL_INVALID;

/* BLACS's blacs_get what = 10: the context's communicator (SGET_BLACSCONTXT). */
#define SL_BLACS_COMM 10

/* Free a cached grid: when BLACS frees the context's communicator, which every process of the
 * context does together (blacs_gridexit), so the collective frees below match. */
static int grid_delete(MPI_Comm comm, int key, void *val, void *extra) {
  (void)comm, (void)key, (void)extra;
  sl_grid *G = val;
  if (G->lu != NULL) hgrid_free(&G->lu);
  hgrid_free(&G->g);
  hbsp_free(&G->env);
  free(G);
  return MPI_SUCCESS;
}

/* Make G's grid over comm (the context's processes). Collective over comm; errors agreed by the
 * calls (hbsp_init, hgrid_create), HLA_ERR_MPI by the split. */
static int grid_make(MPI_Comm comm, sl_grid *G) {
  MPI_Comm rowmajor;
  if (MPI_Comm_split(comm, 0, G->myrow * G->npcol + G->mycol, &rowmajor) != MPI_SUCCESS)
    return HLA_ERR_MPI;
  int code = hbsp_init(rowmajor, &G->env); /* duplicates it */
  MPI_Comm_free(&rowmajor);
  if (code != HLA_OK) return code;
  code = hgrid_create(G->env, G->nprow, G->npcol, &G->g);
  if (code != HLA_OK) {
    hbsp_free(&G->env);
    return code;
  }
  hbsp_env all, col;
  hgrid_env(G->g, HGRID_ALL, &all);
  hgrid_env(G->g, HGRID_COL, &col);
  G->all = hbsp_comm(all), G->col = hbsp_comm(col);
  int r, c;
  hgrid_shape(G->g, NULL, NULL, &r, &c);
  if (r != G->myrow || c != G->mycol) { /* cannot happen: ranks are row-major by construction */
    hgrid_free(&G->g);
    hbsp_free(&G->env);
    return HLA_ERR_INTERNAL;
  }
  /* HLA_SCALAPACK_REPORT, as this environment's settings read it (rank 0's, on every rank) */
  sl_report_enable(hbsp_settings(G->env)->scalapack_report);
  return HLA_OK;
}

int sl_grid_get(int ctxt, sl_grid **out) {
  *out = NULL;
  const int what = SL_BLACS_COMM;
  int fcomm = 0;
  blacs_get_(&ctxt, &what, &fcomm);
  MPI_Comm comm = MPI_Comm_f2c(fcomm);
  if (comm == MPI_COMM_NULL) return HLA_ERR_MPI;
  if (grid_key == MPI_KEYVAL_INVALID &&
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, grid_delete, &grid_key, NULL) != MPI_SUCCESS)
    return HLA_ERR_MPI;
  void *val;
  int found = 0;
  if (MPI_Comm_get_attr(comm, grid_key, &val, &found) != MPI_SUCCESS) return HLA_ERR_MPI;
  if (found) {
    *out = val;
    return HLA_OK;
  }
  sl_grid *G = sl_malloc("hla_scalapack", sizeof *G);
  *G = (sl_grid){.ctxt = ctxt};
  Cblacs_gridinfo(ctxt, &G->nprow, &G->npcol, &G->myrow, &G->mycol);
  int code = grid_make(comm, G);
  if (code == HLA_OK && MPI_Comm_set_attr(comm, grid_key, G) != MPI_SUCCESS) {
    hgrid_free(&G->g);
    hbsp_free(&G->env);
    code = HLA_ERR_MPI;
  }
  if (code != HLA_OK) {
    free(G);
    return code;
  }
  *out = G;
  return HLA_OK;
}

int sl_lu_grid(sl_grid *G, int *direct, hgrid *g) {
  const int mode = hbsp_settings(G->env)->scalapack_lu_grid;
  *g = G->g;
  if (G->nprow <= G->npcol || mode == HLA_SL_LU_CALLER) return HLA_OK;
  if (G->lu == NULL) HLA_CALL(hgrid_create(G->env, G->npcol, G->nprow, &G->lu));
  *g = G->lu;
  if (mode == HLA_SL_LU_WIDE || G->nprow >= SL_LU_TALL_MOVE) *direct = 0;
  return HLA_OK;
}
