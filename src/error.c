/* hla — error strings and the HLA_CALL trace. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "hla_private.h"
#include "settings.h"

const char *hla_strerror(int code) {
  switch (code) {
  case HLA_OK:
    return "success";
  case HLA_ERR_ARG:
    return "invalid argument";
  case HLA_ERR_DIM:
    return "dimensions do not conform";
  case HLA_ERR_DIST:
    return "distributions or grids do not match";
  case HLA_ERR_SINGULAR:
    return "matrix is singular (zero pivot)";
  case HLA_ERR_NONFINITE:
    return "non-finite value (Inf or NaN) in the input";
  case HLA_ERR_NOMEM:
    return "out of memory or over the memory bound";
  case HLA_ERR_MPI:
    return "MPI call failed";
  case HLA_ERR_STATE:
    return "ranks disagree on the state of the environment";
  case HLA_ERR_INTERNAL:
    return "internal error in hla";
  default:
    return "unknown error code";
  }
}

void hla_trace(const char *file, int line, int code) {
  if (hla_settings_trace())
    fprintf(stderr, "hla: %s:%d: %s (%d)\n", file, line, hla_strerror(code), code);
}

void *hla_alloc(size_t bytes) {
  size_t align = bytes >= HLA_HUGE ? HLA_HUGE : 64;
  if (bytes > SIZE_MAX - align) return NULL;
  bytes = (bytes + align - 1) & ~(align - 1); /* aligned_alloc wants a multiple of the alignment */
  void *p = aligned_alloc(align, bytes ? bytes : align);
#ifdef MADV_HUGEPAGE
  if (p && align == HLA_HUGE) (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: may fail */
#endif
  return p;
}

int hla_buf_reserve(hla_buf *b, size_t more) {
  if (b->n + more <= b->cap) return HLA_OK;
  if (more > SIZE_MAX / 2 - b->n) return HLA_ERR_NOMEM;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + more) cap += cap / 2 + 64; /* x1.5, as BSPlib arenas */
  char *p;
  if (cap >= HLA_HUGE) { /* a new block (realloc would lose the alignment), the content copied */
    cap = (cap + HLA_HUGE - 1) & ~(HLA_HUGE - 1);
    p = hla_alloc(cap);
    if (p && b->n) memcpy(p, b->p, b->n);
    if (p) free(b->p);
  } else {
    p = realloc(b->p, cap);
  }
  if (!p) return HLA_ERR_NOMEM;
  b->p = p;
  b->cap = cap;
  return HLA_OK;
}

void *hla_buf_append(hla_buf *b, const void *src, size_t bytes) {
  if (hla_buf_reserve(b, bytes) != HLA_OK) return NULL;
  void *dst = b->p + b->n;
  if (src && bytes) memcpy(dst, src, bytes);
  b->n += bytes;
  return dst;
}

void hla_buf_free(hla_buf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}
