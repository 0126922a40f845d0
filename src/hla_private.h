/* hla — private helpers shared by every layer: error propagation and growable buffers.
 * Never included by a public header. */
#ifndef HLA_PRIVATE_H
#define HLA_PRIVATE_H

#include <stddef.h>
#include "hla/error.h"

/* Propagate a non-zero error code to the caller, leaving a trace line on stderr when the variable
 * HLA_TRACE is set (a traceback, innermost first). */
#define HLA_CALL(expr)                                                                             \
  do {                                                                                             \
    int hla_e_ = (expr);                                                                           \
    if (hla_e_ != HLA_OK) {                                                                        \
      hla_trace(__FILE__, __LINE__, hla_e_);                                                       \
      return hla_e_;                                                                               \
    }                                                                                              \
  } while (0)

void hla_trace(const char *file, int line, int code);

/* A growable byte buffer: capacity grows geometrically and is kept, so the steady state allocates
 * nothing. */
typedef struct {
  char *p;
  size_t n, cap;
} hla_buf;

/* Make room for `more` bytes past n; HLA_ERR_NOMEM on failure (buffer unchanged). */
int hla_buf_reserve(hla_buf *b, size_t more);
/* Append bytes (src may be NULL to append uninitialised room); returns a pointer to them or NULL.
 */
void *hla_buf_append(hla_buf *b, const void *src, size_t bytes);
void hla_buf_free(hla_buf *b);

#endif
