/* hla — libhla_scalapack: ScaLAPACK's argument checks, ported so that every illegal argument gets
 * the INFO ScaLAPACK gives it (TOOLS/chk1mat.f, TOOLS/pchkxmat.f, PBLAS/SRC/PTOOLS/PB_Cchkmat.c),
 * and the agreement that makes it the same on every process.
 */
#include <string.h>
#include "scalapack/scalapack_impl.h"

int sl_info(int code) {
  if (code == SL_BIGNUM) return 0;
  return code % SL_DESCMULT == 0 ? -(code / SL_DESCMULT) : -code;
}

int sl_code(int info) {
  if (info >= 0) return SL_BIGNUM;
  return info < -SL_DESCMULT ? -info : -info * SL_DESCMULT;
}

static int min_int(int a, int b) {
  return a < b ? a : b;
}

/* ---------------------------------------------------------------- CHK1MAT */

/* ScaLAPACK's 9-entry descriptor, 1-based entries (as the positions count them). */
enum { D_DTYPE = 1, D_CTXT, D_M, D_N, D_MB, D_NB, D_RSRC, D_CSRC, D_LLD };

void sl_chk1mat(int ma, int mapos0, int na, int napos0, int ia, int ja, const int *desc,
                int descpos0, int *code) {
  const int mapos = mapos0 * SL_DESCMULT, napos = napos0 * SL_DESCMULT;
  const int iapos = (descpos0 - 2) * SL_DESCMULT, japos = (descpos0 - 1) * SL_DESCMULT;
  const int dpos = descpos0 * SL_DESCMULT;
#define E(k) desc[(k)-1]
  int nprow, npcol, myrow, mycol, info = *code;
  Cblacs_gridinfo(E(D_CTXT), &nprow, &npcol, &myrow, &mycol);
  if (E(D_DTYPE) != SL_BLOCK_CYCLIC_2D)
    info = min_int(info, dpos + D_DTYPE);
  else if (ma < 0)
    info = min_int(info, mapos);
  else if (na < 0)
    info = min_int(info, napos);
  else if (ia < 1)
    info = min_int(info, iapos);
  else if (ja < 1)
    info = min_int(info, japos);
  else if (E(D_MB) < 1)
    info = min_int(info, dpos + D_MB);
  else if (E(D_NB) < 1)
    info = min_int(info, dpos + D_NB);
  else if (E(D_RSRC) < 0 || E(D_RSRC) >= nprow)
    info = min_int(info, dpos + D_RSRC);
  else if (E(D_CSRC) < 0 || E(D_CSRC) >= npcol)
    info = min_int(info, dpos + D_CSRC);
  else if (E(D_LLD) < 1)
    info = min_int(info, dpos + D_LLD);
  else if (E(D_LLD) < sl_numroc(E(D_M), E(D_MB), E(D_MB), myrow, E(D_RSRC), nprow) &&
           sl_numroc(E(D_N), E(D_NB), E(D_NB), mycol, E(D_CSRC), npcol) > 0)
    info = min_int(info, dpos + D_LLD);
  if (ma == 0 || na == 0) { /* an empty matrix: fewer checks */
    if (E(D_M) < 0) info = min_int(info, dpos + D_M);
    if (E(D_N) < 0) info = min_int(info, dpos + D_N);
  } else if (E(D_M) < 1) {
    info = min_int(info, dpos + D_M);
  } else if (E(D_N) < 1) {
    info = min_int(info, dpos + D_N);
  } else if (ia > E(D_M)) {
    info = min_int(info, iapos);
  } else if (ja > E(D_N)) {
    info = min_int(info, japos);
  } else {
    if (ia + ma - 1 > E(D_M)) info = min_int(info, mapos);
    if (ja + na - 1 > E(D_N)) info = min_int(info, napos);
  }
#undef E
  *code = info;
}

/* ---------------------------------------------------------------- PB_Cchkmat */

/* PBLAS's 11-entry descriptor, 0-based (PB_Cchkmat adds 1 to name an entry). */
enum { P_DTYPE = 0, P_CTXT, P_M, P_N, P_IMB, P_INB, P_MB, P_NB, P_RSRC, P_CSRC, P_LLD };

void sl_pb_chkmat(int ictxt, const char *rout, const char *name, int m, int mpos0, int n, int npos0,
                  int ia, int ja, const sl_desc *d, int dpos0, int *info) {
  const int D[11] = {d->dtype, d->ctxt, d->m,    d->n,    d->imb, d->inb,
                     d->mb,    d->nb,   d->rsrc, d->csrc, d->lld};
  /* errors found with min(): none is SL_BIGNUM; an earlier one keeps its encoded value */
  int I = sl_code(*info);
  const int mpos = mpos0 * SL_DESCMULT, npos = npos0 * SL_DESCMULT;
  const int iapos = (dpos0 - 2) * SL_DESCMULT, japos = (dpos0 - 1) * SL_DESCMULT;
  const int dpos = dpos0 * SL_DESCMULT + 1;
  int nprow, npcol, myrow, mycol;
  Cblacs_gridinfo(ictxt, &nprow, &npcol, &myrow, &mycol);
  if (m < 0) {
    I = min_int(I, mpos);
    sl_pb_warn(ictxt, rout, "Illegal number of rows of sub( %s ) = %d, it must be at least 0", name,
               m);
  }
  if (n < 0) {
    I = min_int(I, npos);
    sl_pb_warn(ictxt, rout, "Illegal number of columns of sub( %s ) = %d, it must be at least 0",
               name, n);
  }
  if (ia < 0) {
    I = min_int(I, iapos);
    sl_pb_warn(ictxt, rout, "Illegal I%s = %d, I%s must be at least 1", name, ia + 1, name);
  }
  if (ja < 0) {
    I = min_int(I, japos);
    sl_pb_warn(ictxt, rout, "Illegal J%s = %d, J%s must be at least 1", name, ja + 1, name);
  }
  if (D[P_DTYPE] != SL_BLOCK_CYCLIC_2D_INB) { /* PB_CargFtoC made type 1 into 2; no further */
    I = min_int(I, dpos + P_DTYPE);
    sl_pb_warn(ictxt, rout, "Illegal descriptor type %d for matrix %s. PBLAS accepts: %d or %d",
               D[P_DTYPE], name, SL_BLOCK_CYCLIC_2D, SL_BLOCK_CYCLIC_2D_INB);
    *info = sl_info(I);
    return;
  }
  if (D[P_CTXT] != ictxt) { /* only operations inside one context */
    I = min_int(I, dpos + P_CTXT);
    sl_pb_warn(ictxt, rout, "DESC%s[CTXT_] = %d does not match other operand's context = %d", name,
               D[P_CTXT], ictxt);
    *info = sl_info(I);
    return;
  }
  static const struct {
    int e;
    const char *what;
  } blocks[4] = {{P_IMB, "IMB_"}, {P_INB, "INB_"}, {P_MB, "MB_"}, {P_NB, "NB_"}};
  for (int k = 0; k < 4; k++)
    if (D[blocks[k].e] < 1) {
      I = min_int(I, dpos + blocks[k].e);
      sl_pb_warn(ictxt, rout, "Illegal DESC%s[%s] = %d, DESC%s[%s] must be at least 1", name,
                 blocks[k].what, D[blocks[k].e], name, blocks[k].what);
    }
  if (D[P_RSRC] < -1 || D[P_RSRC] >= nprow) {
    I = min_int(I, dpos + P_RSRC);
    sl_pb_warn(ictxt, rout,
               "Illegal DESC%s[RSRC_] = %d, DESC%s[RSRC_] must be either -1, or >= 0 "
               "and < %d",
               name, D[P_RSRC], name, nprow);
  }
  if (D[P_CSRC] < -1 || D[P_CSRC] >= npcol) {
    I = min_int(I, dpos + P_CSRC);
    sl_pb_warn(ictxt, rout,
               "Illegal DESC%s[CSRC_] = %d, DESC%s[CSRC_] must be either -1, or >= 0 "
               "and < %d",
               name, D[P_CSRC], name, npcol);
  }
  if (m == 0 || n == 0) { /* an empty matrix: fewer checks */
    if (D[P_M] < 0) {
      I = min_int(I, dpos + P_M);
      sl_pb_warn(ictxt, rout, "DESC%s[M_] = %d, it must be at least 0", name, D[P_M]);
    }
    if (D[P_N] < 0) {
      I = min_int(I, dpos + P_N);
      sl_pb_warn(ictxt, rout, "DESC%s[N_] = %d, it must be at least 0", name, D[P_N]);
    }
    if (D[P_LLD] < 1) {
      I = min_int(I, dpos + P_LLD);
      sl_pb_warn(ictxt, rout, "DESC%s[LLD_] = %d, it must be at least 1", name, D[P_LLD]);
    }
  } else {
    if (D[P_M] < 1) {
      I = min_int(I, dpos + P_M);
      sl_pb_warn(ictxt, rout, "Illegal DESC%s[M_] = %d, it must be at least 1", name, D[P_M]);
    }
    if (D[P_N] < 1) {
      I = min_int(I, dpos + P_N);
      sl_pb_warn(ictxt, rout, "Illegal DESC%s[N_] = %d, it must be at least 1", name, D[P_N]);
    }
    if (D[P_M] >= 1 && D[P_N] >= 1) {
      if (ia + m > D[P_M]) {
        I = min_int(I, iapos);
        sl_pb_warn(ictxt, rout, "Operation out of bounds: M = %d, I%s = %d, DESC%s[M_] = %d", m,
                   name, ia + 1, name, D[P_M]);
      }
      if (ja + n > D[P_N]) {
        I = min_int(I, japos);
        sl_pb_warn(ictxt, rout, "Operation out of bounds: N = %d, J%s = %d, DESC%s[N_] = %d", n,
                   name, ja + 1, name, D[P_N]);
      }
    }
    if (I == SL_BIGNUM) { /* no error so far, in this operand or an earlier one */
      int64_t np = sl_numroc(D[P_M], D[P_IMB], D[P_MB], myrow, D[P_RSRC], nprow);
      if (D[P_LLD] < (np > 1 ? np : 1)) {
        int64_t nq = sl_numroc(D[P_N], D[P_INB], D[P_NB], mycol, D[P_CSRC], npcol);
        if (D[P_LLD] < 1) {
          I = min_int(I, dpos + P_LLD);
          sl_pb_warn(ictxt, rout, "DESC%s[LLD_] = %d, it must be at least 1", name, D[P_LLD]);
        } else if (nq > 0) { /* columns here: LLD must hold the local rows */
          I = min_int(I, dpos + P_LLD);
          sl_pb_warn(ictxt, rout, "DESC%s[LLD_] = %d, it must be at least %lld", name, D[P_LLD],
                     (long long)(np > 1 ? np : 1));
        }
      }
    }
  }
  *info = sl_info(I);
}

/* ---------------------------------------------------------------- global values */

void sl_globals_add(sl_globals *gl, int64_t val, int pos) {
  if (gl->n < SL_MAXGLOBALS) gl->val[gl->n] = val, gl->pos[gl->n] = pos, gl->n++;
}

void sl_globals_mat(sl_globals *gl, int ma, int mapos, int na, int napos, int ia, int ja,
                    const int *desc, int descpos) {
  const int dp = descpos * SL_DESCMULT;
  sl_globals_add(gl, ma, mapos * SL_DESCMULT);
  sl_globals_add(gl, na, napos * SL_DESCMULT);
  sl_globals_add(gl, ia, (descpos - 2) * SL_DESCMULT);
  sl_globals_add(gl, ja, (descpos - 1) * SL_DESCMULT);
  static const int entries[7] = {D_DTYPE, D_M, D_N, D_MB, D_NB, D_RSRC, D_CSRC};
  for (int k = 0; k < 7; k++) sl_globals_add(gl, desc[entries[k] - 1], dp + entries[k]);
}

int sl_agree(sl_grid *G, int *code, const sl_globals *gl, int *flags) {
  /* one MPI_MIN over [code, values, -values, -flag bits]: a value differs somewhere iff its
   * minimum is not minus the minimum of its negation */
  enum { FLAG_BITS = 8 };
  long long in[1 + 2 * SL_MAXGLOBALS + FLAG_BITS], out[1 + 2 * SL_MAXGLOBALS + FLAG_BITS];
  const int n = gl ? gl->n : 0, len = 1 + 2 * n + FLAG_BITS;
  in[0] = *code;
  for (int k = 0; k < n; k++) in[1 + k] = gl->val[k], in[1 + n + k] = -gl->val[k];
  for (int b = 0; b < FLAG_BITS; b++) in[1 + 2 * n + b] = flags && (*flags >> b & 1) ? -1 : 0;
  if (MPI_Allreduce(in, out, len, MPI_LONG_LONG, MPI_MIN, G->all) != MPI_SUCCESS)
    return HLA_ERR_MPI;
  int c = (int)out[0];
  for (int k = 0; k < n; k++)
    if (out[1 + k] != -out[1 + n + k]) c = min_int(c, gl->pos[k]);
  *code = c;
  if (flags)
    for (int b = 0; b < FLAG_BITS; b++)
      if (out[1 + 2 * n + b]) *flags |= 1 << b;
  return HLA_OK;
}
