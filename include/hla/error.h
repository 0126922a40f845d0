/* hla — error codes shared by every layer.
 *
 * Every hla function returns one of these codes (HLA_OK = 0) unless it is a pure query.
 * A collective call returns the same code on every rank of its environment, and the message
 * that goes with it (hbsp_errmsg) is the same text on every rank.
 */
#ifndef HLA_ERROR_H
#define HLA_ERROR_H

/* Marks the public functions: the library is built with hidden visibility by default. */
#ifndef HLA_API
#define HLA_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum {
  HLA_OK = 0,
  HLA_ERR_ARG,       /* an argument is invalid (NULL, out of range, unregistered address...) */
  HLA_ERR_DIM,       /* matrix dimensions do not conform */
  HLA_ERR_DIST,      /* distributions or grids do not match what the operation needs */
  HLA_ERR_SINGULAR,  /* exactly zero pivot: the factorisation completed, the matrix is singular */
  HLA_ERR_NONFINITE, /* Inf or NaN in the input */
  HLA_ERR_NOMEM,     /* an allocation failed, or a memory bound in the options would be exceeded */
  HLA_ERR_MPI,       /* an MPI call failed */
  HLA_ERR_STATE, /* ranks disagree on the state of an environment (mismatched collective calls) */
  HLA_ERR_INTERNAL, /* a bug in hla: please report it */
  HLA_ERR_COUNT_    /* number of codes; not an error */
};

/** Short English description of an error code. Local, pure query. */
HLA_API const char *hla_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
