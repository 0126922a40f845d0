/* hla — partner functions of the pairwise benchmark and relabelling (van Duijn,
 * ../reference/000_synclib_vanduijn.md §3.5 and §3.6): pure functions of the rank count and the
 * measured cost matrix; the benchmark that measures it is pairwise.c.
 *
 * Partner functions: in round i (0 <= i < q, q = the power of two >= P) rank s plays ping-pong
 * with f_i(s). XOR (5.6): f_i(s) = s XOR i if < P, else s. Randomised (5.7)-(5.8):
 * t = (((s + b) mod q) XOR a XOR i) - b mod q, f = t if t < P, else s. Both are involutions with
 * every round a pairing and every pair met once per sweep; random (a, b) change which pairs share a
 * round (and so which pairs load the network together).
 *
 * Relabelling: the cost matrix D (higher = slower) and subsets of positions; a relabelling order
 * (order[pos] = rank) that puts expensive pairs in different subsets.
 *   Kernighan-Lin (Alg. 5.1), errata fixed: the swaps kept are the prefix up to and including the
 *   best one (the listing's "l < k*" drops the best swap: for one improving swap it does nothing,
 *   and it can loop forever); the gains of the remaining candidates are updated after each
 *   tentative swap as in classic KL (the listing recomputes them on the unchanged subsets, so two
 *   tentative swaps of one pass do not see each other). The objective is the total cost inside
 *   the subsets (the seed runs KL on the inverse cost to the same end).
 *   Hill-climbing (Alg. 5.2): cost = the largest total cost inside a subset; triplets moving the
 *   worst member of the worst subset out; accepted when the cost falls, or when it stays and the
 *   total over all subsets falls (a tie-break that lets the climb leave the plateaus where several
 *   subsets share the maximum, on which the seed's rule stops at once).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dist/plan/plan_impl.h"

/* ---------------------------------------------------------------- partner functions */

static int pow2_at_least(int P) {
  int q = 1;
  while (q < P) q <<= 1;
  return q;
}

int hplan_partner_xor(int i, int s, int P) {
  if (P <= 0 || s < 0 || s >= P || i < 0) return s;
  int t = s ^ i;
  return t < P ? t : s;
}

int hplan_partner_random(int i, int s, int P, unsigned a, unsigned b) {
  if (P <= 0 || s < 0 || s >= P || i < 0) return s;
  unsigned q = (unsigned)pow2_at_least(P), mask = q - 1;
  unsigned t = ((((unsigned)s + b) & mask) ^ (a & mask) ^ ((unsigned)i & mask));
  t = (t + q - (b & mask)) & mask;
  return t < (unsigned)P ? (int)t : s;
}

/* ---------------------------------------------------------------- relabelling */

void hplan_order_keys(int P, const int *order, int *key) {
  for (int pos = 0; pos < P; pos++) key[order[pos]] = pos;
}

static int valid_order(int P, const int *order) {
  char *seen = calloc((size_t)P, 1);
  int ok = seen != NULL;
  for (int i = 0; ok && i < P; i++) {
    if (order[i] < 0 || order[i] >= P || seen[order[i]])
      ok = 0;
    else
      seen[order[i]] = 1;
  }
  free(seen);
  return ok;
}

/* One KL pass between the subsets at positions [i0, i0 + q) and [j0, j0 + q). Returns 1 if it
 * improved (and applied the swaps). */
static int kl_pass(int P, const double *D, int *order, int i0, int j0, int q, double *G,
                   char *locked) {
  const int *A = order + i0, *B = order + j0;
  /* G[x] = I_x - E_x: the internal cost x leaves behind minus what it meets on the other side */
  for (int x = 0; x < q; x++) {
    double Ia = 0, Ea = 0, Ib = 0, Eb = 0;
    for (int y = 0; y < q; y++) {
      if (y != x) Ia += D[(size_t)A[x] * P + A[y]], Ib += D[(size_t)B[x] * P + B[y]];
      Ea += D[(size_t)A[x] * P + B[y]], Eb += D[(size_t)B[x] * P + A[y]];
    }
    G[x] = Ia - Ea, G[q + x] = Ib - Eb;
  }
  memset(locked, 0, (size_t)(2 * q));
  int *sa = malloc(sizeof(int) * (size_t)q), *sb = malloc(sizeof(int) * (size_t)q);
  double *gain = malloc(sizeof(double) * (size_t)q);
  if (!sa || !sb || !gain) {
    free(sa), free(sb), free(gain);
    return 0;
  }
  for (int step = 0; step < q; step++) {
    double bg = -HUGE_VAL;
    int ba = -1, bb = -1;
    for (int x = 0; x < q; x++) {
      if (locked[x]) continue;
      for (int y = 0; y < q; y++) {
        if (locked[q + y]) continue;
        double g = G[x] + G[q + y] + 2 * D[(size_t)A[x] * P + B[y]];
        if (g > bg) bg = g, ba = x, bb = y;
      }
    }
    sa[step] = ba, sb[step] = bb, gain[step] = bg;
    locked[ba] = locked[q + bb] = 1;
    int a = A[ba], b = B[bb];
    for (int x = 0; x < q; x++) { /* as if a and b had traded places */
      if (!locked[x]) G[x] += 2 * (D[(size_t)A[x] * P + b] - D[(size_t)A[x] * P + a]);
      if (!locked[q + x]) G[q + x] += 2 * (D[(size_t)B[x] * P + a] - D[(size_t)B[x] * P + b]);
    }
  }
  double sum = 0, bestsum = 0;
  int kstar = -1;
  for (int s = 0; s < q; s++) {
    sum += gain[s];
    if (sum > bestsum + 1e-12 * (fabs(bestsum) + 1)) bestsum = sum, kstar = s;
  }
  for (int s = 0; s <= kstar; s++) { /* up to and including k* (erratum of the listing) */
    int t = order[i0 + sa[s]];
    order[i0 + sa[s]] = order[j0 + sb[s]];
    order[j0 + sb[s]] = t;
  }
  free(sa), free(sb), free(gain);
  return kstar >= 0;
}

int hplan_relabel_kl(int P, const double *D, int nsub, int init, int *order) {
  if (P < 1 || D == NULL || order == NULL || nsub < 1 || P % nsub) return HLA_ERR_ARG;
  if (!init)
    for (int i = 0; i < P; i++) order[i] = i;
  else if (!valid_order(P, order))
    return HLA_ERR_ARG;
  int q = P / nsub;
  double *G = malloc(sizeof(double) * 2 * (size_t)q);
  char *locked = malloc((size_t)(2 * q));
  if (!G || !locked) {
    free(G), free(locked);
    return HLA_ERR_NOMEM;
  }
  int improved = 1, passes = 0;
  while (improved && passes < 1000) {
    improved = 0;
    for (int i = 0; i < nsub - 1; i++)
      for (int j = i + 1; j < nsub; j++)
        if (kl_pass(P, D, order, i * q, j * q, q, G, locked)) improved = 1;
    passes++;
  }
  free(G), free(locked);
  return HLA_OK;
}

/* Cost of the subsets of an M x N layout: the largest internal total (*mx), their sum (*sum), the
 * worst subset (*wk: 0..M-1 rows, M..M+N-1 columns). */
static void climb_cost(int M, int N, const double *D, int which, const int *order, double *mx,
                       double *sum, int *wk) {
  int P = M * N;
  *mx = -1, *sum = 0, *wk = -1;
  for (int dim = 0; dim < 2; dim++) {
    if (!(which & (1 << dim))) continue;
    int nsets = dim ? N : M, len = dim ? M : N;
    for (int s = 0; s < nsets; s++) {
      double c = 0;
      for (int x = 0; x < len; x++) {
        int px = dim ? x * N + s : s * N + x;
        for (int y = x + 1; y < len; y++) {
          int py = dim ? y * N + s : s * N + y;
          c += D[(size_t)order[px] * P + order[py]];
        }
      }
      *sum += c;
      if (c > *mx) *mx = c, *wk = dim ? M + s : s;
    }
  }
}

int hplan_relabel_climb(int M, int N, const double *D, int which, uint64_t seed, int init,
                        int *order, double *cost) {
  if (M < 1 || N < 1 || D == NULL || order == NULL || (which & 3) == 0) return HLA_ERR_ARG;
  int P = M * N;
  if (!init)
    for (int i = 0; i < P; i++) order[i] = i;
  else if (!valid_order(P, order))
    return HLA_ERR_ARG;
  int64_t ncand = (int64_t)P * P;
  int *cand = malloc(sizeof(int) * 2 * (size_t)ncand);
  if (!cand) return HLA_ERR_NOMEM;
  uint64_t st = seed ? seed : 1;
  double mx, sum;
  int wk;
  climb_cost(M, N, D, which, order, &mx, &sum, &wk);
  for (int iter = 0; iter < 100000; iter++) {
    /* the worst subset's positions and its worst member */
    int len = wk < M ? N : M, pos[4096], n = 0;
    if (len > 4096) break;
    for (int x = 0; x < len; x++) pos[n++] = wk < M ? wk * N + x : x * N + (wk - M);
    int smax = pos[0];
    double worst = -1;
    for (int x = 0; x < n; x++) {
      double c = 0;
      for (int y = 0; y < n; y++) c += D[(size_t)order[pos[x]] * P + order[pos[y]]];
      if (c > worst) worst = c, smax = pos[x];
    }
    /* candidates (s1, s2): s1 outside the worst subset, s2 any other position */
    int64_t nc = 0;
    for (int s1 = 0; s1 < P; s1++) {
      int inside = 0;
      for (int x = 0; x < n && !inside; x++) inside = pos[x] == s1;
      if (inside) continue;
      for (int s2 = 0; s2 < P; s2++) {
        if (s2 == smax || s2 == s1) continue;
        cand[2 * nc] = s1, cand[2 * nc + 1] = s2;
        nc++;
      }
    }
    int improved = 0;
    while (nc > 0 && !improved) {
      int64_t r = (int64_t)(hp_splitmix(&st) % (uint64_t)nc);
      int s1 = cand[2 * r], s2 = cand[2 * r + 1];
      cand[2 * r] = cand[2 * (nc - 1)], cand[2 * r + 1] = cand[2 * (nc - 1) + 1];
      nc--;
      /* (smax, s1, s2) -> (s2, smax, s1): smax's place gets s2's rank, s1's place smax's, s2's
       * place s1's */
      int o0 = order[smax], o1 = order[s1], o2 = order[s2];
      order[smax] = o2, order[s1] = o0, order[s2] = o1;
      double m2, s2sum;
      int wk2;
      climb_cost(M, N, D, which, order, &m2, &s2sum, &wk2);
      double eps = 1e-12 * (fabs(mx) + 1);
      if (m2 < mx - eps || (m2 <= mx + eps && s2sum < sum - 1e-12 * (fabs(sum) + 1))) {
        mx = m2, sum = s2sum, wk = wk2, improved = 1;
      } else {
        order[smax] = o0, order[s1] = o1, order[s2] = o2;
      }
    }
    if (!improved) break;
  }
  free(cand);
  if (cost) *cost = mx;
  return HLA_OK;
}
