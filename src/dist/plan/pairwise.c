/* hla — the pairwise benchmark (van Duijn, ../reference/000_synclib_vanduijn.md §3.5): P x P
 * latency and inverse bandwidth by ping-pong in rounds of the partner functions of relabel.c, every
 * pair of a round at the same time (the pairs load the network together, as in the seed).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dist/plan/probe.h"

static int pow2_at_least(int P) {
  int q = 1;
  while (q < P) q <<= 1;
  return q;
}

/* ---------------------------------------------------------------- ping-pong */

static double med(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      double t = v[j];
      v[j] = v[j - 1], v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define PP_TAG 17

/* reps round trips of bytes between me and peer (the lower rank starts); the median round trip on
 * the starter, 0 on the other. */
static int pingpong(MPI_Comm comm, int me, int peer, char *buf, int bytes, int reps, double *rtt) {
  double t[64];
  if (reps > 64) reps = 64;
  *rtt = 0;
  for (int r = -1; r < reps; r++) { /* -1: warm-up */
    double t0 = MPI_Wtime();
    if (me < peer) {
      if (MPI_Send(buf, bytes, MPI_BYTE, peer, PP_TAG, comm) != MPI_SUCCESS ||
          MPI_Recv(buf, bytes, MPI_BYTE, peer, PP_TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return HLA_ERR_MPI;
    } else {
      if (MPI_Recv(buf, bytes, MPI_BYTE, peer, PP_TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
          MPI_Send(buf, bytes, MPI_BYTE, peer, PP_TAG, comm) != MPI_SUCCESS)
        return HLA_ERR_MPI;
    }
    if (r >= 0) t[r] = MPI_Wtime() - t0;
  }
  if (me < peer) *rtt = med(t, reps);
  return HLA_OK;
}

int hplan_pairwise_rounds(hbsp_env env, int sweeps, uint64_t seed, size_t bytes, int reps,
                          int max_rounds, double *lat, double *invbw) {
  if (env == NULL) return HLA_ERR_ARG;
  int P = hbsp_size(env), me = hbsp_rank(env), q = pow2_at_least(P);
  if (bytes == 0) bytes = (size_t)1 << 18;
  if (bytes > (size_t)1 << 30) bytes = (size_t)1 << 30;
  if (reps <= 0) reps = 5;
  if (max_rounds <= 0 || max_rounds > q) max_rounds = q;
  size_t PP = (size_t)P * (size_t)P;
  hbsp_env own = NULL;
  HLA_CALL(hbsp_split(env, 0, me, &own)); /* private traffic */
  MPI_Comm comm = hbsp_comm(own);
  double *best = malloc(2 * PP * sizeof(double)), *cur = malloc(2 * PP * sizeof(double));
  char *buf = malloc(bytes);
  int code =
      best && cur && buf ? HLA_OK : HBSP_FAIL(own, HLA_ERR_NOMEM, "hplan_pairwise: out of memory");
  code = hbsp_agree(own, code);
  if (code == HLA_OK) {
    memset(buf, 0, bytes);
    for (size_t i = 0; i < 2 * PP; i++) best[i] = HUGE_VAL;
    uint64_t st = seed;
    int nsw = sweeps > 0 ? sweeps : 1;
    for (int sw = 0; sw < nsw && code == HLA_OK; sw++) {
      unsigned a = (unsigned)(hp_splitmix(&st) % (uint64_t)q),
               b = (unsigned)(hp_splitmix(&st) % (uint64_t)q);
      memset(cur, 0, 2 * PP * sizeof(double));
      /* rounds: XOR skips round 0 (everyone alone); a limit keeps the first rounds */
      int first = sweeps > 0 ? 0 : 1, done = 0;
      for (int i = first; i < q && done < max_rounds && code == HLA_OK; i++, done++) {
        int t = sweeps > 0 ? hplan_partner_random(i, me, P, a, b) : hplan_partner_xor(i, me, P);
        int e = HLA_OK;
        if (MPI_Barrier(comm) != MPI_SUCCESS) e = HLA_ERR_MPI;
        if (e == HLA_OK && t != me) {
          double r0, r1;
          e = pingpong(comm, me, t, buf, 8, reps, &r0);
          if (e == HLA_OK) e = pingpong(comm, me, t, buf, (int)bytes, reps, &r1);
          if (e == HLA_OK && me < t) {
            double l = r0 / 2, ib = (r1 / 2 - l) / (double)bytes;
            if (ib < 0) ib = (r1 / 2) / (double)bytes;
            cur[(size_t)me * P + t] = cur[(size_t)t * P + me] = l;
            cur[PP + (size_t)me * P + t] = cur[PP + (size_t)t * P + me] = ib;
          }
        }
        code = hbsp_agree(own,
                          e != HLA_OK ? HBSP_FAIL(own, e, "hplan_pairwise: ping-pong failed") : e);
      }
      if (code == HLA_OK &&
          MPI_Allreduce(MPI_IN_PLACE, cur, (int)(2 * PP), MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
        code = HBSP_FAIL(own, HLA_ERR_MPI, "hplan_pairwise: MPI_Allreduce failed");
      code = hbsp_agree(own, code);
      for (size_t i = 0; code == HLA_OK && i < 2 * PP; i++)
        if (cur[i] > 0 && cur[i] < best[i]) best[i] = cur[i];
    }
    for (size_t i = 0; code == HLA_OK && i < PP; i++) {
      if (lat) lat[i] = isinf(best[i]) ? 0.0 : best[i];
      if (invbw) invbw[i] = isinf(best[PP + i]) ? 0.0 : best[PP + i];
    }
  }
  free(best), free(cur), free(buf);
  int e = hbsp_free(&own);
  if (code != HLA_OK) HBSP_FAIL(env, code, "hplan_pairwise: failed (%s)", hla_strerror(code));
  code = hbsp_agree(env, code != HLA_OK ? code : e);
  return code;
}

int hplan_pairwise(hbsp_env env, int sweeps, uint64_t seed, size_t bytes, int reps, double *lat,
                   double *invbw) {
  return hplan_pairwise_rounds(env, sweeps, seed, bytes, reps, 0, lat, invbw);
}
