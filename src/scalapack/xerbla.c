/* hla — libhla_scalapack: illegal arguments reported as ScaLAPACK's routines report them, and
 * hla's own failures.
 *
 * ScaLAPACK's LAPACK-level routines call PXERBLA(ICTXT, name, -INFO), which prints and returns
 * (a program may have its own, as its testers do). The PBLAS call PB_Cabort(ICTXT, name, INFO),
 * which prints and aborts the job; the PBLAS tester links its own PB_Cabort, which records INFO
 * and returns, so that its error-exit tests can read it. PXERBLA is public ScaLAPACK; PB_Cabort
 * and PB_Cwarn are internal to its PBLAS, so they are looked up when needed (the program's own
 * first, then ScaLAPACK's), with the same behaviour written out here where there is none.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scalapack/scalapack_impl.h"

void sl_xerbla(int ctxt, const char *rout, int info) {
  const int pos = -info;
  pxerbla_(&ctxt, rout, &pos, strlen(rout));
}

typedef void (*pb_abort_fn)(int, char *, int);
typedef void (*pb_warn_fn)(int, int, char *, char *, ...);

void sl_pb_warn(int ctxt, const char *rout, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pb_warn_fn warn = (pb_warn_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PB_Cwarn");
  if (warn) {
    warn(ctxt, -1, (char *)rout, "%s", msg);
    return;
  }
  int nprow, npcol, myrow, mycol;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  fprintf(stderr, "{%5d,%5d}:  On entry to %s( ) %s\n", myrow, mycol, rout, msg);
}

void sl_pb_abort(int ctxt, const char *rout, int info) {
  pb_abort_fn abort_fn = (pb_abort_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "PB_Cabort");
  if (abort_fn) {
    abort_fn(ctxt, (char *)rout, info);
    return;
  }
  if (-info < SL_DESCMULT)
    sl_pb_warn(ctxt, rout, "Parameter number %d had an illegal value", -info);
  else
    sl_pb_warn(ctxt, rout, "Parameter number %d, entry number %d had an illegal value",
               -info / SL_DESCMULT, -info % SL_DESCMULT);
  Cblacs_abort(ctxt, info);
}

void sl_fail(sl_grid *G, const char *rout, int code) {
  if (G->myrow == 0 && G->mycol == 0)
    fprintf(stderr, "hla_scalapack: %s: %s: %s\n", rout, hla_strerror(code), hgrid_errmsg(G->g));
  Cblacs_abort(G->ctxt, code);
  MPI_Abort(G->all, code); /* Cblacs_abort does not return; in case it did */
  abort();
}

void *sl_malloc(const char *rout, size_t bytes) {
  void *p = malloc(bytes > 0 ? bytes : 1);
  if (p == NULL) {
    fprintf(stderr, "hla_scalapack: %s: out of memory for %zu bytes\n", rout, bytes);
    MPI_Abort(MPI_COMM_WORLD, HLA_ERR_NOMEM);
    abort();
  }
  return p;
}
