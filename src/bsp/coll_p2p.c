/* hla — point-to-point messages of the collectives: tag HBSP_TAG_COLL on the environment's own
 * communicator, sizes in size_t cut into messages of at most HBSP_COLL_CHUNK (MPI counts are int),
 * every message reported to the profiler. A size of 0 sends nothing: both ends of every transfer
 * derive the size from the same global arguments, so they skip it alike. Collectives on one
 * environment are matched in call order by MPI's non-overtaking rule; no wildcard is used. */
#include "bsp/coll_impl.h"

static size_t piece(size_t bytes) {
  return bytes < HBSP_COLL_CHUNK ? bytes : HBSP_COLL_CHUNK;
}

int hbsp_coll_send(hbsp_env env, int peer, const void *buf, size_t bytes) {
  const char *p = buf;
  while (bytes) {
    size_t n = piece(bytes);
    HBSP_MPI(env, MPI_Send(p, (int)n, MPI_BYTE, peer, HBSP_TAG_COLL, env->comm));
    hbsp_prof_msg(env, peer, n, 1);
    p += n;
    bytes -= n;
  }
  return HLA_OK;
}

int hbsp_coll_recv(hbsp_env env, int peer, void *buf, size_t bytes) {
  char *p = buf;
  while (bytes) {
    size_t n = piece(bytes);
    HBSP_MPI(env, MPI_Recv(p, (int)n, MPI_BYTE, peer, HBSP_TAG_COLL, env->comm, MPI_STATUS_IGNORE));
    hbsp_prof_msg(env, peer, n, 0);
    p += n;
    bytes -= n;
  }
  return HLA_OK;
}

int hbsp_coll_sendrecv(hbsp_env env, int dst, const void *sbuf, size_t sbytes, int src, void *rbuf,
                       size_t rbytes) {
  const char *s = sbuf;
  char *r = rbuf;
  while (sbytes || rbytes) {
    /* Chunk i of each direction travels together; the two sides may have different counts. */
    MPI_Request req[2];
    int nreq = 0;
    size_t ns = piece(sbytes), nr = piece(rbytes);
    if (nr)
      HBSP_MPI(env, MPI_Irecv(r, (int)nr, MPI_BYTE, src, HBSP_TAG_COLL, env->comm, &req[nreq++]));
    if (ns) {
      int e = MPI_Isend(s, (int)ns, MPI_BYTE, dst, HBSP_TAG_COLL, env->comm, &req[nreq]);
      if (e != MPI_SUCCESS) {
        if (nreq) { /* do not leave the receive posted into the caller's buffer */
          MPI_Cancel(&req[0]);
          MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        }
        return HBSP_FAIL(env, HLA_ERR_MPI, "MPI_Isend failed (MPI error %d)", e);
      }
      nreq++;
    }
    HBSP_MPI(env, MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    if (ns) hbsp_prof_msg(env, dst, ns, 1);
    if (nr) hbsp_prof_msg(env, src, nr, 0);
    if (ns) s += ns; /* never offset a NULL buffer of a side that has nothing */
    if (nr) r += nr;
    sbytes -= ns;
    rbytes -= nr;
  }
  return HLA_OK;
}
