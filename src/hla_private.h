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

/* Blocks of HLA_HUGE bytes or more sit on HLA_HUGE boundaries and ask for transparent huge pages:
 * one page fault per 2 MiB instead of 512 on first touch, and fewer TLB misses where rows are
 * scattered through a block (the row interchanges of the LU touch every page of a column, and the
 * message queues that carry those rows). */
#define HLA_HUGE ((size_t)2 << 20)

/* bytes of memory (64-byte aligned; HLA_HUGE-aligned with the huge-page hint from HLA_HUGE bytes
 * on, the size rounded up to a multiple), or NULL. Release with free(). */
void *hla_alloc(size_t bytes);

/* A growable byte buffer: capacity grows geometrically and is kept, so the steady state allocates
 * nothing; from HLA_HUGE bytes on it lives in hla_alloc's huge pages. */
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
