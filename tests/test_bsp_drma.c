/* Tests of BSPlib communication on one environment: registration, put, hpput, get, messages.
 * @procs 1 2 3 4 6 8
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "bsp/bsp_impl.h" /* the message buffers, to see what a superstep keeps */

/* The seed's inner product: sum of 1/i^2 for i = 1..n, cyclic, partial sums exchanged by puts. */
static void test_inprod_put(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  const int64_t n = 100000;
  double part = 0;
  for (int64_t i = s + 1; i <= n; i += P) part += 1.0 / ((double)i * (double)i);
  double *sums = calloc((size_t)P, sizeof *sums);
  CU_ASSERT_EQUAL(hbsp_push_reg(e, sums, (size_t)P * sizeof *sums), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  for (int t = 0; t < P; t++)
    CU_ASSERT_EQUAL(hbsp_put(e, t, &part, sums, (size_t)s * sizeof(double), sizeof(double)),
                    HLA_OK);
  part = -1; /* buffered: the value at call time travels */
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  /* Sum in rank order so every rank gets the same bits. */
  double alpha = 0;
  for (int t = 0; t < P; t++) alpha += sums[t];
  CU_ASSERT_DOUBLE_EQUAL(alpha, 1.6449240668982423, 1e-12);
  CU_ASSERT_EQUAL(hbsp_pop_reg(e, sums), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  free(sums);
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
  CU_ASSERT_PTR_NULL(e);
}

/* The same with messages: each rank sends its partial sum, tagged by its rank, to everyone. */
static void test_inprod_send(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  double part = 0;
  for (int64_t i = s + 1; i <= 100000; i += P) part += 1.0 / ((double)i * (double)i);
  size_t ts = sizeof(int);
  CU_ASSERT_EQUAL(hbsp_set_tagsize(e, &ts), HLA_OK);
  CU_ASSERT_EQUAL(ts, 0);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  for (int t = 0; t < P; t++) CU_ASSERT_EQUAL(hbsp_send(e, t, &s, &part, sizeof part), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  size_t nm = 0, nb = 0;
  CU_ASSERT_EQUAL(hbsp_qsize(e, &nm, &nb), HLA_OK);
  CU_ASSERT_EQUAL(nm, (size_t)P);
  CU_ASSERT_EQUAL(nb, (size_t)P * sizeof(double));
  double *sums = calloc((size_t)P, sizeof *sums);
  for (size_t k = 0; k < nm; k++) {
    int tag = -1;
    double v;
    size_t b = 0;
    CU_ASSERT_EQUAL(hbsp_move(e, &tag, &v, sizeof v, &b), HLA_OK);
    CU_ASSERT_EQUAL(b, sizeof v);
    if (tag >= 0 && tag < P) sums[tag] = v;
  }
  double alpha = 0;
  for (int t = 0; t < P; t++) alpha += sums[t];
  CU_ASSERT_DOUBLE_EQUAL(alpha, 1.6449240668982423, 1e-12);
  free(sums);
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

/* T1/T2: a put is buffered at call time and not visible before the sync; self-puts work. */
static void test_put_buffered(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  int64_t y[2] = {-1, -1}, x = 100 + s;
  hbsp_push_reg(e, y, sizeof y);
  hbsp_sync(e);
  CU_ASSERT_EQUAL(hbsp_put(e, (s + 1) % P, &x, y, 0, sizeof x), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_put(e, s, &x, y, sizeof x, sizeof x), HLA_OK); /* self */
  x = 7;
  CU_ASSERT_EQUAL(y[0], -1); /* not before the sync */
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  CU_ASSERT_EQUAL(y[0], 100 + (s + P - 1) % P);
  CU_ASSERT_EQUAL(y[1], 100 + s);
  hbsp_free(&e);
}

/* T3: the LU row swap: two ranks exchange rows by puts into each other's registered buffer, and a
 * rank swaps two of its own rows. */
static void test_put_swap(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  double a[2][4];
  for (int r = 0; r < 2; r++)
    for (int j = 0; j < 4; j++) a[r][j] = 1000 * s + 10 * r + j;
  hbsp_push_reg(e, a, sizeof a);
  hbsp_sync(e);
  int partner = s ^ 1;
  if (partner < P)
    hbsp_put(e, partner, a[0], a, 0, sizeof a[0]);
  else
    hbsp_put(e, s, a[0], a, 0, sizeof a[0]);
  hbsp_put(e, s, a[1], a, 0, 0); /* zero bytes: a no-op */
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  int from = partner < P ? partner : s;
  for (int j = 0; j < 4; j++) {
    CU_ASSERT_EQUAL(a[0][j], 1000 * from + j);
    CU_ASSERT_EQUAL(a[1][j], 1000 * s + 10 + j);
  }
  /* Local swap of rows 0 and 1 through puts to itself. */
  double r0[4], r1[4];
  memcpy(r0, a[0], sizeof r0);
  memcpy(r1, a[1], sizeof r1);
  hbsp_put(e, s, a[0], a, sizeof a[0], sizeof a[0]);
  hbsp_put(e, s, a[1], a, 0, sizeof a[0]);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  CU_ASSERT_EQUAL(memcmp(a[0], r1, sizeof r1), 0);
  CU_ASSERT_EQUAL(memcmp(a[1], r0, sizeof r0), 0);
  hbsp_free(&e);
}

/* T4/T5: a get returns the value at the end of the superstep, before that superstep's puts land. */
static void test_get_semantics(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  int64_t x = 5, z = -1;
  hbsp_push_reg(e, &x, sizeof x);
  hbsp_sync(e);
  int src = (s + 1) % P;
  CU_ASSERT_EQUAL(hbsp_get(e, src, &x, 0, &z, sizeof z), HLA_OK);
  x = 10 + s; /* changed after the get was issued, still in the superstep: this value is read */
  int64_t v = 99;
  hbsp_put(e, (s + P - 1) % P, &v, &x, 0, sizeof v); /* lands after the gets read x */
  CU_ASSERT_EQUAL(z, -1);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  CU_ASSERT_EQUAL(z, 10 + src);
  CU_ASSERT_EQUAL(x, 99);
  /* A get of oneself and a get from a rank with no registration data (size-0 NULL elsewhere). */
  z = -1;
  hbsp_get(e, s, &x, 0, &z, sizeof z);
  hbsp_sync(e);
  CU_ASSERT_EQUAL(z, 99);
  hbsp_free(&e);
}

/* T7/T8: registration identity is the order, pops come in any order, a pushed area is usable
 * from the next superstep, and a pop takes effect after the superstep's communication. */
static void test_registration(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  /* Different addresses per rank, and NULL/0 on odd ranks for the middle one. */
  int64_t *A = calloc(4 + (size_t)s, sizeof *A), *B = calloc(4, sizeof *B),
          *C = calloc(8 + 2 * (size_t)s, sizeof *C);
  int64_t *Bptr = s % 2 ? NULL : B;
  hbsp_push_reg(e, A, 4 * sizeof *A);
  hbsp_push_reg(e, Bptr, s % 2 ? 0 : 4 * sizeof *B);
  hbsp_push_reg(e, C, 8 * sizeof *C);
  /* Not registered yet: a put now is refused and changes nothing. */
  int64_t v = 1;
  CU_ASSERT_EQUAL(hbsp_put(e, 0, &v, A, 0, sizeof v), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  int t = (s + 1) % P;
  v = 1000 + s;
  hbsp_put(e, t, &v, C, 8, sizeof v);
  if (!(s % 2)) hbsp_put(e, t, &v, B, 0, sizeof v); /* only ranks with a local B know its address */
  CU_ASSERT_EQUAL(hbsp_pop_reg(e, A), HLA_OK);      /* the pop lands after this superstep's puts */
  v = 2000 + s;
  CU_ASSERT_EQUAL(hbsp_put(e, t, &v, A, 0, sizeof v), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  int from = (s + P - 1) % P;
  CU_ASSERT_EQUAL(C[1], 1000 + from);
  CU_ASSERT_EQUAL(A[0], 2000 + from);
  if (!(s % 2) && !(from % 2)) CU_ASSERT_EQUAL(B[0], 1000 + from);
  /* A is gone now. */
  CU_ASSERT_EQUAL(hbsp_put(e, t, &v, A, 0, sizeof v), HLA_ERR_ARG);
  /* Pop C before B; then a new registration reuses a slot and still maps correctly. */
  CU_ASSERT_EQUAL(hbsp_pop_reg(e, C), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_pop_reg(e, C), HLA_ERR_ARG); /* already being popped */
  hbsp_sync(e);
  int64_t *D = calloc(2, sizeof *D);
  hbsp_push_reg(e, D, 2 * sizeof *D);
  hbsp_pop_reg(e, Bptr);
  hbsp_sync(e);
  v = 3000 + s;
  hbsp_put(e, t, &v, D, sizeof v, sizeof v);
  hbsp_sync(e);
  CU_ASSERT_EQUAL(D[1], 3000 + from);
  hbsp_pop_reg(e, D);
  hbsp_sync(e);
  free(A), free(B), free(C), free(D);
  hbsp_free(&e);
}

/* T11: hpput delivers like put when the source is left alone until the sync. */
static void test_hpput(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  enum { N = 1000 };
  double *src = malloc(N * sizeof *src), *dst = calloc((size_t)P * N, sizeof *dst);
  for (int i = 0; i < N; i++) src[i] = s * 1e6 + i;
  hbsp_push_reg(e, dst, (size_t)P * N * sizeof *dst);
  hbsp_sync(e);
  for (int t = 0; t < P; t++) {
    /* Two pieces per target so the zero-copy datatype has several blocks. */
    hbsp_hpput(e, t, src, dst, (size_t)s * N * sizeof *dst, 300 * sizeof *dst);
    hbsp_hpput(e, t, src + 300, dst, ((size_t)s * N + 300) * sizeof *dst, (N - 300) * sizeof *dst);
  }
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  int bad = 0;
  for (int r = 0; r < P; r++)
    for (int i = 0; i < N; i++) bad += dst[(size_t)r * N + i] != r * 1e6 + i;
  CU_ASSERT_EQUAL(bad, 0);
  free(src), free(dst);
  hbsp_free(&e);
}

/* T15: buffers grow for a large superstep (past the huge-page size, with a message already in the
 * queue that must survive the move), then small supersteps still work. */
static void test_growth(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  size_t n = (size_t)3 << 20; /* 24 MiB of doubles: more than one MPI chunk */
  double *big = malloc(n * sizeof *big), *in = calloc(n, sizeof *in);
  for (size_t i = 0; i < n; i++) big[i] = (double)(i % 1000003) + s;
  hbsp_push_reg(e, in, n * sizeof *in);
  hbsp_sync(e);
  int64_t note = 1000 + s, got = -1;
  CU_ASSERT_EQUAL(hbsp_send(e, (s + 1) % P, NULL, &note, sizeof note), HLA_OK);
  hbsp_put(e, (s + 1) % P, big, in, 0, n * sizeof *big);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  int from = (s + P - 1) % P;
  CU_ASSERT_EQUAL(hbsp_move(e, NULL, &got, sizeof got, NULL), HLA_OK);
  CU_ASSERT_EQUAL(got, 1000 + from);
  size_t bad = 0;
  for (size_t i = 0; i < n; i += 4099) bad += in[i] != (double)(i % 1000003) + from;
  bad += in[n - 1] != (double)((n - 1) % 1000003) + from;
  CU_ASSERT_EQUAL(bad, 0);
  /* A large get, then a 1-byte put. */
  memset(in, 0, n * sizeof *in);
  hbsp_sync(e);
  hbsp_get(e, (s + 1) % P, in, 0, big, n * sizeof *big); /* reads zeros */
  hbsp_sync(e);
  CU_ASSERT_EQUAL(big[0], 0.0);
  CU_ASSERT_EQUAL(big[n - 1], 0.0);
  char c = (char)(1 + s);
  hbsp_put(e, (s + 1) % P, &c, in, 5, 1);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  CU_ASSERT_EQUAL(((char *)in)[5], (char)(1 + from));
  free(big), free(in);
  hbsp_free(&e);
}

/* A large superstep gives its message buffers back (the send streams at the sync, the receive
 * buffer once every message is copied out, or at the next sync when hbsp_hpmove lent pointers into
 * it that must stay valid until then); small supersteps keep theirs. */
static void test_release(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e), to = (s + 1) % P, from = (s + P - 1) % P;
  size_t n = HBSP_BUF_KEEP / sizeof(int64_t) + 4096; /* past what a buffer keeps */
  int64_t *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
  for (size_t i = 0; v && i < n; i++) v[i] = (int64_t)s * 1000003 + (int64_t)i;
  int64_t small = 7 + s, got = -1;
  for (int pass = 0; pass < 2; pass++) { /* 0: hbsp_move, 1: hbsp_hpmove */
    CU_ASSERT_EQUAL(hbsp_send(e, to, NULL, v, n * sizeof *v), HLA_OK);
    CU_ASSERT_EQUAL(hbsp_send(e, to, NULL, &small, sizeof small), HLA_OK);
    CU_ASSERT(e->peer[to].stream.cap >= n * sizeof *v);
    CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
    CU_ASSERT_EQUAL(e->peer[to].stream.cap, 0); /* given back at the sync */
    CU_ASSERT(e->rbuf.cap >= n * sizeof *v);
    size_t bad = 0, big = 0, b = 0;
    const int64_t *lent = NULL; /* the large message's payload in the queue (pass 1) */
    for (int k = 0; k < 2; k++) {
      if (pass == 0) {
        CU_ASSERT_EQUAL(hbsp_peek(e, &b, NULL), HLA_OK);
        CU_ASSERT_EQUAL(hbsp_move(e, NULL, b > sizeof got ? (void *)w : &got, b, &b), HLA_OK);
        if (k == 0) CU_ASSERT(e->rbuf.cap > 0); /* one message still to come */
      } else {
        const void *pl = NULL;
        CU_ASSERT_EQUAL(hbsp_hpmove(e, NULL, &pl, &b), HLA_OK);
        if (b > sizeof got) lent = pl;
        memcpy(b > sizeof got ? (void *)w : &got, pl, b > sizeof got ? b : sizeof got);
      }
      big += b > sizeof got;
    }
    CU_ASSERT_EQUAL(big, 1);
    CU_ASSERT_EQUAL(got, 7 + from);
    for (size_t i = 0; i < n; i += 4097) bad += w[i] != (int64_t)from * 1000003 + (int64_t)i;
    CU_ASSERT_EQUAL(bad, 0);
    if (pass == 0) {
      CU_ASSERT_EQUAL(e->rbuf.cap, 0); /* every message copied out: given back */
    } else {                           /* the lent pointers stay valid until the next sync */
      CU_ASSERT(e->rbuf.cap >= n * sizeof *v);
      CU_ASSERT(lent != NULL && lent[n - 1] == (int64_t)from * 1000003 + (int64_t)(n - 1));
    }
  }
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  CU_ASSERT_EQUAL(e->rbuf.cap, 0); /* the next sync ended the lent pointers */
  /* The steady state of small supersteps allocates nothing: their buffers stay. */
  CU_ASSERT_EQUAL(hbsp_send(e, to, NULL, &small, sizeof small), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  CU_ASSERT(e->peer[to].stream.cap > 0);
  CU_ASSERT_EQUAL(hbsp_move(e, NULL, &got, sizeof got, NULL), HLA_OK);
  CU_ASSERT(e->rbuf.cap > 0);
  CU_ASSERT_EQUAL(got, 7 + from);
  free(v), free(w);
  hbsp_free(&e);
}

/* T10: messages arrive as a multiset; unread ones are dropped at the next sync; tag size changes
 * apply from the next superstep. */
static void test_bsmp(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  size_t ts = 2 * sizeof(int);
  hbsp_set_tagsize(e, &ts);
  hbsp_sync(e);
  enum { K = 3 };
  for (int t = 0; t < P; t++)
    for (int k = 0; k < K; k++) {
      int tag[2] = {s, k};
      int64_t payload[3] = {s, k, t};
      CU_ASSERT_EQUAL(hbsp_send(e, t, tag, payload, (size_t)(k + 1) * sizeof(int64_t)), HLA_OK);
    }
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  size_t nm, nb;
  hbsp_qsize(e, &nm, &nb);
  CU_ASSERT_EQUAL(nm, (size_t)(K * P));
  CU_ASSERT_EQUAL(nb, (size_t)P * (1 + 2 + 3) * sizeof(int64_t));
  int *seen = calloc((size_t)(K * P), sizeof *seen), bad = 0;
  for (size_t m = 0; m < nm; m++) {
    int tag[2], ptag[2] = {-1, -1};
    int64_t pl[3] = {-1, -1, -1};
    size_t b, pb = 0;
    CU_ASSERT_EQUAL(hbsp_peek(e, &pb, ptag), HLA_OK); /* the same message, left in the queue */
    hbsp_move(e, tag, pl, sizeof pl, &b);
    bad += pb != b || ptag[0] != tag[0] || ptag[1] != tag[1];
    if (tag[0] < 0 || tag[0] >= P || tag[1] < 0 || tag[1] >= K) {
      bad++;
      continue;
    }
    seen[tag[0] * K + tag[1]]++;
    /* Message k carries the first k + 1 of (sender, k, receiver); the rest stays untouched. */
    bad += b != (size_t)(tag[1] + 1) * sizeof(int64_t) || pl[0] != tag[0];
    bad += tag[1] >= 1 ? pl[1] != tag[1] : pl[1] != -1;
    bad += tag[1] == 2 ? pl[2] != s : pl[2] != -1;
  }
  for (int i = 0; i < K * P; i++) bad += seen[i] != 1;
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(hbsp_move(e, NULL, NULL, 0, NULL), HLA_ERR_STATE); /* empty now */
  CU_ASSERT_EQUAL(hbsp_peek(e, NULL, NULL), HLA_ERR_STATE);
  free(seen);
  /* Truncated move; unread messages dropped at the next sync; new tag size. */
  int tag[2] = {s, 0};
  double big[4] = {1, 2, 3, 4};
  hbsp_send(e, (s + 1) % P, tag, big, sizeof big);
  hbsp_send(e, (s + 1) % P, tag, big, sizeof big);
  ts = 0;
  hbsp_set_tagsize(e, &ts);
  CU_ASSERT_EQUAL(ts, 2 * sizeof(int));
  hbsp_sync(e);
  double two[2] = {0, 0};
  size_t b = 0;
  int got[2] = {-1, -1};
  CU_ASSERT_EQUAL(hbsp_move(e, got, two, sizeof two, &b), HLA_OK);
  CU_ASSERT_EQUAL(b, sizeof big);
  CU_ASSERT_EQUAL(two[1], 2.0);
  CU_ASSERT_EQUAL(got[0], (s + P - 1) % P);
  hbsp_send(e, s, NULL, NULL, 0); /* tag size 0 now: an empty message to itself */
  hbsp_sync(e);
  hbsp_qsize(e, &nm, &nb);
  CU_ASSERT_EQUAL(nm, 1); /* the second unread message is gone */
  CU_ASSERT_EQUAL(nb, 0);
  hbsp_sync(e);
  hbsp_qsize(e, &nm, &nb);
  CU_ASSERT_EQUAL(nm, 0);
  /* Without copies: the sender fills queue space, the receiver reads it in place; each rank sends
   * k + 1 words to rank s + k for k < 3 (several messages to one peer when P < 3). */
  for (int k = 0; k < 3; k++) {
    void *space = NULL;
    CU_ASSERT_EQUAL(hbsp_send_buf(e, (s + k) % P, NULL, (size_t)(k + 1) * 8, &space), HLA_OK);
    CU_ASSERT_EQUAL((uintptr_t)space % 8, 0);
    for (int i = 0; i <= k; i++) ((int64_t *)space)[i] = 100 * s + 10 * k + i;
  }
  CU_ASSERT_EQUAL(hbsp_send_buf(e, P, NULL, 8, &(void *){NULL}), HLA_ERR_ARG);
  hbsp_sync(e);
  int count = 0;
  bad = 0;
  for (;;) {
    const void *pl = NULL;
    size_t b = 0;
    if (hbsp_hpmove(e, NULL, &pl, &b) != HLA_OK) break;
    const int64_t *v = pl;
    int k = (int)(b / 8) - 1, from = (int)(v[0] / 100);
    bad += k < 0 || k > 2 || (uintptr_t)pl % 8 != 0 || (from + k) % P != s;
    for (int i = 0; i <= k && k <= 2; i++) bad += v[i] != 100 * from + 10 * k + i;
    count++;
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(count, 3); /* one message per k arrives here, from rank s - k */
  CU_ASSERT_EQUAL(hbsp_hpmove(e, NULL, NULL, NULL), HLA_ERR_STATE); /* empty */
  hbsp_sync(e);
  /* The space of a message stays put while messages to other ranks are queued: open one of 4096
   * words to every rank, then fill them all. */
  enum { W = 4096 };
  int64_t **sp = calloc((size_t)P, sizeof *sp);
  for (int d = 0; d < P; d++) CU_ASSERT_EQUAL(hbsp_send_buf(e, d, NULL, W * 8, (void **)&sp[d]), 0);
  for (int d = 0; d < P; d++)
    for (int i = 0; sp[d] && i < W; i++) sp[d][i] = (int64_t)s * W + i;
  free(sp);
  hbsp_sync(e);
  bad = count = 0;
  for (const void *pl; hbsp_hpmove(e, NULL, &pl, &(size_t){0}) == HLA_OK; count++) {
    const int64_t *v = pl;
    for (int i = 0; i < W; i++) bad += v[i] != v[0] + i || v[0] % W != 0;
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(count, P);
  hbsp_sync(e);
  hbsp_free(&e);
}

/* hbsp_sync_known: a superstep whose every rank knows what each peer sends it. Rank s sends rank
 * d (s + d) % 3 messages (none for some pairs) of s + d + k words (k-th message), with a tag, so
 * both ends derive the sizes alike; the messages arrive as a counted hbsp_sync's would, and the
 * superstep counts. Then what its checks are: a put queued on one rank is refused there (the
 * caller's error), and a regular sync afterwards still works. */
static void test_sync_known(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  size_t ts = sizeof(int);
  hbsp_set_tagsize(e, &ts);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync_known_prepare(e), HLA_OK);
  uint64_t *in = calloc((size_t)P, sizeof *in);
  int64_t buf[64];
  for (int round = 0; round < 2; round++) { /* the second on buffers kept from the first */
    for (int d = 0; d < P; d++)
      for (int k = 0; k < (s + d) % 3; k++) {
        for (int i = 0; i < s + d + k; i++) buf[i] = 1000 * s + 10 * k + i;
        CU_ASSERT_EQUAL(hbsp_send(e, d, &k, buf, (size_t)(s + d + k) * sizeof *buf), HLA_OK);
      }
    int want = 0;
    for (int r = 0; r < P; r++) {
      in[r] = 0;
      for (int k = 0; k < (r + s) % 3; k++, want++)
        in[r] += hbsp_sync_msg_bytes(e, (size_t)(r + s + k) * sizeof *buf);
    }
    int64_t step = hbsp_superstep(e);
    CU_ASSERT_EQUAL(hbsp_sync_known(e, in), HLA_OK);
    CU_ASSERT_EQUAL(hbsp_superstep(e), step + 1);
    size_t nm = 0, bytes;
    int bad = 0, tag;
    hbsp_qsize(e, &nm, NULL);
    CU_ASSERT_EQUAL(nm, (size_t)want);
    for (size_t m = 0; m < nm; m++) {
      hbsp_move(e, &tag, buf, sizeof buf, &bytes);
      int from = (int)(buf[0] / 1000), w = (int)(bytes / sizeof *buf);
      bad += from < 0 || from >= P || w != from + s + tag || tag >= (from + s) % 3;
      for (int i = 0; i < w && i < 64; i++) bad += buf[i] != 1000 * from + 10 * tag + i;
    }
    CU_ASSERT(ht_all(MPI_COMM_WORLD, bad == 0));
  }
  /* Only messages: a put on this rank is refused before anything moves (nothing was sent, so
   * the others' supersteps take nothing from this rank either way). */
  int64_t x = 0, one = 1;
  CU_ASSERT_EQUAL(hbsp_push_reg(e, &x, sizeof x), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  if (s == 0) {
    CU_ASSERT_EQUAL(hbsp_put(e, 0, &one, &x, 0, sizeof one), HLA_OK);
    for (int r = 0; r < P; r++) in[r] = 0;
    CU_ASSERT_EQUAL(hbsp_sync_known(e, in), HLA_ERR_INTERNAL);
    CU_ASSERT(strstr(hbsp_errmsg(e), "only messages") != NULL);
  }
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK); /* rank 0's put, in an ordinary superstep */
  CU_ASSERT_EQUAL(x, s == 0 ? 1 : 0);
  CU_ASSERT_EQUAL(hbsp_pop_reg(e, &x), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  free(in);
  hbsp_free(&e);
}

/* Bad arguments: HLA_ERR_ARG with a message, nothing queued, nothing changed. */
static void test_bad_args(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  int64_t x[4] = {1, 2, 3, 4}, y = 42, unreg = 0;
  hbsp_push_reg(e, x, sizeof x);
  hbsp_sync(e);
  CU_ASSERT_EQUAL(hbsp_put(NULL, 0, &y, x, 0, 8), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_put(e, -1, &y, x, 0, 8), HLA_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(hbsp_errmsg(e), "rank -1"));
  CU_ASSERT_EQUAL(hbsp_put(e, P, &y, x, 0, 8), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_put(e, 0, NULL, x, 0, 8), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_put(e, 0, &y, x, 32, 8), HLA_ERR_ARG); /* past the end */
  CU_ASSERT_PTR_NOT_NULL(strstr(hbsp_errmsg(e), "outside"));
  CU_ASSERT_EQUAL(hbsp_put(e, 0, &y, x, SIZE_MAX, 8), HLA_ERR_ARG); /* overflow */
  CU_ASSERT_EQUAL(hbsp_put(e, 0, &y, &unreg, 0, 8), HLA_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(hbsp_errmsg(e), "not registered"));
  CU_ASSERT_EQUAL(hbsp_hpput(e, 0, &y, x, 28, 8), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_get(e, 0, x, 0, NULL, 8), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_get(e, -3, x, 0, &y, 8), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_send(e, P, NULL, &y, 8), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_push_reg(e, NULL, 8), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_pop_reg(e, &unreg), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_set_tagsize(e, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_sync(NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_free(NULL), HLA_ERR_ARG);
  /* Nothing was queued: the sync moves nothing and x is intact. */
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK);
  CU_ASSERT(x[0] == 1 && x[1] == 2 && x[2] == 3 && x[3] == 4);
  size_t nm;
  hbsp_qsize(e, &nm, NULL);
  CU_ASSERT_EQUAL(nm, 0);
  (void)s;
  hbsp_free(&e);
}

/* A put that fits this rank's registration but not the target's is dropped by the target and
 * reported by the next sync on every rank. */
static void test_remote_bounds(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), s = hbsp_rank(e);
  enum { N = 8192 }; /* 64 KiB: large enough for the separate zero-copy payload path */
  int64_t *x = calloc(N, sizeof *x), *y = malloc(N * sizeof *y);
  for (int i = 0; i < N; i++) y[i] = i + 1;
  size_t mine = s == 0 ? sizeof(int64_t) : N * sizeof(int64_t);
  hbsp_push_reg(e, x, mine);
  hbsp_sync(e);
  if (s == P - 1) {
    /* Both fit here but not on rank 0: a small put and a large one. */
    hbsp_put(e, 0, y, x, 2 * sizeof *y, sizeof *y);
    hbsp_put(e, 0, y, x, 8 * sizeof *y, (N / 2) * sizeof *y);
  }
  int rc = hbsp_sync(e);
  CU_ASSERT_EQUAL(rc, HLA_OK);
  if (s == 0) CU_ASSERT(x[0] == 0 && x[2] == 0 && x[8] == 0); /* nothing written past the area */
  rc = hbsp_sync(e);
  /* P = 1: refused at the call, so nothing to report. */
  CU_ASSERT(ht_all(MPI_COMM_WORLD, rc == (P > 1 ? HLA_ERR_ARG : HLA_OK)));
  /* rank 0, which had queued nothing of its own, named as the one that dropped them, everywhere */
  CU_ASSERT(ht_all(MPI_COMM_WORLD, P == 1 || strstr(hbsp_errmsg(e), "served by rank 0") != NULL));
  CU_ASSERT_EQUAL(hbsp_sync(e), HLA_OK); /* reported once */
  free(x), free(y);
  hbsp_free(&e);
}

void hla_test_register(void) {
  HT_SUITE("bsp_drma", test_inprod_put, test_inprod_send, test_put_buffered, test_put_swap,
           test_get_semantics, test_registration, test_hpput, test_growth, test_release, test_bsmp,
           test_sync_known, test_bad_args, test_remote_bounds);
}
