/* hla — element types and reduction operators of the BSP collectives.
 *
 * HBSP_BYTE is uint8_t (sums wrap modulo 256), HBSP_INT int, HBSP_INT64 int64_t, HBSP_DOUBLE
 * double, HBSP_FLOAT float, all with SUM, MAX and MIN; integer sums wrap (two's complement)
 * instead of overflowing; a floating MAX/MIN propagates NaN and orders -0 < +0.
 * HBSP_DOUBLE_INDEX is hbsp_dloc with MAXLOC (largest value) and MAXABSLOC (largest |value|, the
 * value keeps its sign). Both order elements totally: by key, then the lowest index wins, and a
 * NaN key beats every number (so a NaN pivot is seen, not skipped). The selection is therefore
 * commutative and associative and the winner does not depend on P, the tree or the algorithm.
 */
#include <math.h>
#include <string.h>
#include "bsp/coll_impl.h"

size_t hbsp_coll_type_size(hbsp_type type) {
  switch (type) {
  case HBSP_BYTE:
    return 1;
  case HBSP_INT:
    return sizeof(int);
  case HBSP_INT64:
    return sizeof(int64_t);
  case HBSP_DOUBLE:
    return sizeof(double);
  case HBSP_FLOAT:
    return sizeof(float);
  case HBSP_DOUBLE_INDEX:
    return sizeof(hbsp_dloc);
  }
  return 0;
}

int hbsp_coll_valid_op(hbsp_type type, hbsp_op op) {
  if (hbsp_coll_type_size(type) == 0) return 0;
  if (type == HBSP_DOUBLE_INDEX) return op == HBSP_MAXLOC || op == HBSP_MAXABSLOC;
  return op == HBSP_SUM || op == HBSP_MAX || op == HBSP_MIN;
}

int hbsp_dloc_wins(const hbsp_dloc *a, const hbsp_dloc *b, int absval) {
  double ka = absval ? fabs(a->value) : a->value, kb = absval ? fabs(b->value) : b->value;
  int na = isnan(ka), nb = isnan(kb);
  if (na != nb) return na;
  if (!na && ka != kb) return ka > kb;
  return a->index < b->index;
}

static void dloc_combine(hbsp_dloc *io, const hbsp_dloc *in, size_t n, int absval) {
  for (size_t i = 0; i < n; i++)
    if (hbsp_dloc_wins(&in[i], &io[i], absval)) io[i] = in[i];
}

/* SUM/MAX/MIN on a floating type; MAX and MIN made symmetric (a op b and b op a give the same
 * bits, so butterfly allreduces agree on every rank): a NaN wins, and +0 beats -0 for MAX, -0
 * beats +0 for MIN. */
#define HBSP_FLOAT_OPS(name, T)                                                                    \
  static void name(T *io, const T *in, size_t n, hbsp_op op) {                                     \
    if (op == HBSP_SUM) {                                                                          \
      for (size_t i = 0; i < n; i++) io[i] += in[i];                                               \
      return;                                                                                      \
    }                                                                                              \
    const int max = op == HBSP_MAX;                                                                \
    for (size_t i = 0; i < n; i++) {                                                               \
      T a = io[i], b = in[i];                                                                      \
      int take;                                                                                    \
      if (isnan(a) || isnan(b))                                                                    \
        take = isnan(b) && !isnan(a);                                                              \
      else if (a == b)                                                                             \
        take = max ? signbit(a) && !signbit(b) : signbit(b) && !signbit(a);                        \
      else                                                                                         \
        take = max ? b > a : b < a;                                                                \
      if (take) io[i] = b;                                                                         \
    }                                                                                              \
  }
HBSP_FLOAT_OPS(double_ops, double)
HBSP_FLOAT_OPS(float_ops, float)

/* SUM/MAX/MIN on an integer type; sums go through the unsigned type U so that they wrap instead
 * of overflowing (undefined behaviour in C). */
#define HBSP_INT_OPS(name, T, U)                                                                   \
  static void name(T *io, const T *in, size_t n, hbsp_op op) {                                     \
    if (op == HBSP_SUM)                                                                            \
      for (size_t i = 0; i < n; i++) io[i] = (T)((U)io[i] + (U)in[i]);                             \
    else if (op == HBSP_MAX)                                                                       \
      for (size_t i = 0; i < n; i++) io[i] = in[i] > io[i] ? in[i] : io[i];                        \
    else                                                                                           \
      for (size_t i = 0; i < n; i++) io[i] = in[i] < io[i] ? in[i] : io[i];                        \
  }
HBSP_INT_OPS(u8_ops, uint8_t, unsigned)
HBSP_INT_OPS(int_ops, int, unsigned)
HBSP_INT_OPS(i64_ops, int64_t, uint64_t)

void hbsp_coll_combine(hbsp_type type, hbsp_op op, void *inout, const void *in, size_t count) {
  switch (type) {
  case HBSP_BYTE:
    u8_ops(inout, in, count, op);
    break;
  case HBSP_INT:
    int_ops(inout, in, count, op);
    break;
  case HBSP_INT64:
    i64_ops(inout, in, count, op);
    break;
  case HBSP_DOUBLE:
    double_ops(inout, in, count, op);
    break;
  case HBSP_FLOAT:
    float_ops(inout, in, count, op);
    break;
  case HBSP_DOUBLE_INDEX:
    dloc_combine(inout, in, count, op == HBSP_MAXABSLOC);
    break;
  }
}

/* MPI user operators for hbsp_dloc (MPI's own MAXLOC has no 64-bit index and no |value|). */
static void mpi_maxloc(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  dloc_combine(inout, in, (size_t)*len, 0);
}
static void mpi_maxabsloc(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  dloc_combine(inout, in, (size_t)*len, 1);
}

int hbsp_coll_mpi_prepare(hbsp_env env, hbsp_coll_cache *cache) {
  if (cache->have_dloc) return HLA_OK;
  int lens[2] = {1, 1};
  MPI_Aint displs[2] = {offsetof(hbsp_dloc, value), offsetof(hbsp_dloc, index)};
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT64_T}, t;
  HBSP_MPI(env, MPI_Type_create_struct(2, lens, displs, types, &t));
  int rc = MPI_Type_create_resized(t, 0, (MPI_Aint)sizeof(hbsp_dloc), &cache->dloc_type);
  MPI_Type_free(&t);
  if (rc != MPI_SUCCESS)
    return HBSP_FAIL(env, HLA_ERR_MPI, "MPI_Type_create_resized failed (MPI error %d)", rc);
  if ((rc = MPI_Type_commit(&cache->dloc_type)) != MPI_SUCCESS) {
    MPI_Type_free(&cache->dloc_type);
    return HBSP_FAIL(env, HLA_ERR_MPI, "MPI_Type_commit failed (MPI error %d)", rc);
  }
  if ((rc = MPI_Op_create(mpi_maxloc, 1, &cache->op_maxloc)) != MPI_SUCCESS) {
    MPI_Type_free(&cache->dloc_type);
    return HBSP_FAIL(env, HLA_ERR_MPI, "MPI_Op_create failed (MPI error %d)", rc);
  }
  if ((rc = MPI_Op_create(mpi_maxabsloc, 1, &cache->op_maxabsloc)) != MPI_SUCCESS) {
    MPI_Op_free(&cache->op_maxloc);
    MPI_Type_free(&cache->dloc_type);
    return HBSP_FAIL(env, HLA_ERR_MPI, "MPI_Op_create failed (MPI error %d)", rc);
  }
  cache->have_dloc = 1;
  return HLA_OK;
}

void hbsp_coll_mpi_free(hbsp_coll_cache *cache) {
  if (!cache->have_dloc) return;
  int done = 0;
  MPI_Finalized(&done);
  if (!done) { /* after MPI_Finalize the objects are gone anyway */
    MPI_Op_free(&cache->op_maxloc);
    MPI_Op_free(&cache->op_maxabsloc);
    MPI_Type_free(&cache->dloc_type);
  }
  cache->have_dloc = 0;
}

void hbsp_coll_mpi_op(const hbsp_coll_cache *cache, hbsp_type type, hbsp_op op, MPI_Datatype *dt,
                      MPI_Op *mop) {
  switch (type) {
  case HBSP_BYTE:
    *dt = MPI_UINT8_T;
    break;
  case HBSP_INT:
    *dt = MPI_INT;
    break;
  case HBSP_INT64:
    *dt = MPI_INT64_T;
    break;
  case HBSP_DOUBLE:
    *dt = MPI_DOUBLE;
    break;
  case HBSP_FLOAT:
    *dt = MPI_FLOAT;
    break;
  case HBSP_DOUBLE_INDEX:
    *dt = cache->dloc_type;
    break;
  }
  switch (op) {
  case HBSP_SUM:
    *mop = MPI_SUM;
    break;
  case HBSP_MAX:
    *mop = MPI_MAX;
    break;
  case HBSP_MIN:
    *mop = MPI_MIN;
    break;
  case HBSP_MAXLOC:
    *mop = cache->op_maxloc;
    break;
  case HBSP_MAXABSLOC:
    *mop = cache->op_maxabsloc;
    break;
  }
}
