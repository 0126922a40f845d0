/* Tests of the board (node shared memory read in place): posts read in order by every rank, the
 * owner's claim, boards on coexisting subset environments, reset after unread posts, bad input.
 * The tests run on one machine, so every board exists.
 * @procs 1 2 3 4 8
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

#define WORDS 1000 /* words per slot: more than a page, so that a torn read is visible */

/* The content of post `round` of rank r: every word differs between rounds and ranks. */
static int64_t word(int r, int64_t round, int i) {
  return ((int64_t)r << 40) + (round << 16) + i;
}

/* Rounds of: every rank claims its slot (round % slots), writes the round and posts it; every rank
 * reads every other rank's post of that round and checks all of it. With 2 slots the owner
 * writes round t + 2 while slow readers may still read round t + 1, which the claim allows; a
 * missing claim lets a fast owner overwrite round t before some reader has checked it. */
static int rounds_on(hbsp_env e, int slots, int rounds) {
  hbsp_board b = NULL;
  int P = hbsp_size(e), me = hbsp_rank(e), bad = 0;
  CU_ASSERT_EQUAL(hbsp_board_create(e, WORDS * sizeof(int64_t), slots, &b), HLA_OK);
  CU_ASSERT_PTR_NOT_NULL(b);
  if (b == NULL) return 1;
  CU_ASSERT_EQUAL(hbsp_board_bytes(b), WORDS * sizeof(int64_t));
  for (int64_t t = 0; t < rounds; t++) {
    int s = (int)(t % slots);
    CU_ASSERT_EQUAL(hbsp_board_claim(b, s), HLA_OK);
    int64_t *mine = hbsp_board_slot(b, me, s);
    for (int i = 0; i < WORDS; i++) mine[i] = word(me, t, i);
    CU_ASSERT_EQUAL(hbsp_board_post(b, s), HLA_OK);
    for (int d = 1; d < P; d++) { /* staggered, so that every rank reads in another order */
      int r = (me + d) % P;
      const void *p = NULL;
      CU_ASSERT_EQUAL(hbsp_board_wait(b, r, s, &p), HLA_OK);
      CU_ASSERT_PTR_EQUAL(p, hbsp_board_slot(b, r, s));
      const int64_t *w = p;
      for (int i = 0; i < WORDS && w; i++) bad += w[i] != word(r, t, i);
      CU_ASSERT_EQUAL(hbsp_board_done(b, r, s), HLA_OK);
    }
  }
  CU_ASSERT_EQUAL(hbsp_board_free(&b), HLA_OK);
  CU_ASSERT_PTR_NULL(b);
  return bad;
}

static void test_rounds(void) {
  hbsp_env e = ht_world();
  CU_ASSERT_EQUAL(rounds_on(e, 2, 200), 0);
  CU_ASSERT_EQUAL(rounds_on(e, 1, 50), 0);
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

/* Boards on the rows and on the columns of a 2 x (P/2) arrangement at once, each used in turn
 * between the other's rounds: their counts never mix. */
static void test_subsets(void) {
  hbsp_env e = ht_world(), row = NULL, col = NULL;
  int P = hbsp_size(e), me = hbsp_rank(e), M = P >= 2 ? 2 : 1, N = P / M;
  int in = me < M * N;
  CU_ASSERT_EQUAL(hbsp_split(e, in ? me / N : HBSP_UNDEFINED, me, &row), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_split(e, in ? me % N : HBSP_UNDEFINED, me, &col), HLA_OK);
  if (in) {
    for (int k = 0; k < 3; k++) {
      CU_ASSERT_EQUAL(rounds_on(row, 2, 20), 0);
      CU_ASSERT_EQUAL(rounds_on(col, 2, 20), 0);
    }
    CU_ASSERT_EQUAL(hbsp_free(&row), HLA_OK);
    CU_ASSERT_EQUAL(hbsp_free(&col), HLA_OK);
  }
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

/* Posts nobody read (as an error path may leave them) are forgotten by a reset: the next round
 * reads what was posted after it, and the owner's claim does not wait for the old ones. */
static void test_reset(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), me = hbsp_rank(e);
  hbsp_board b = NULL;
  CU_ASSERT_EQUAL(hbsp_board_create(e, sizeof(int64_t), 1, &b), HLA_OK);
  if (b) {
    int64_t *mine = hbsp_board_slot(b, me, 0);
    for (int t = 0; t < 3; t++) { /* three posts, never read */
      *mine = -1;
      CU_ASSERT_EQUAL(hbsp_board_post(b, 0), HLA_OK);
    }
    CU_ASSERT_EQUAL(hbsp_board_reset(b), HLA_OK);
    CU_ASSERT_EQUAL(hbsp_board_claim(b, 0), HLA_OK);
    *mine = me;
    CU_ASSERT_EQUAL(hbsp_board_post(b, 0), HLA_OK);
    int bad = 0;
    for (int r = 0; r < P; r++) {
      if (r == me) continue;
      const void *p = NULL;
      CU_ASSERT_EQUAL(hbsp_board_wait(b, r, 0, &p), HLA_OK);
      bad += p == NULL || *(const int64_t *)p != r;
      CU_ASSERT_EQUAL(hbsp_board_done(b, r, 0), HLA_OK);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(hbsp_board_claim(b, 0), HLA_OK); /* all have read it */
  }
  CU_ASSERT_EQUAL(hbsp_board_free(&b), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

/* Bad arguments: the same code and message on every rank, no board made. */
static void test_bad(void) {
  hbsp_env e = ht_world();
  int P = hbsp_size(e), me = hbsp_rank(e);
  hbsp_board b = NULL;
  CU_ASSERT_EQUAL(hbsp_board_create(e, 8, 0, &b), HLA_ERR_ARG);
  CU_ASSERT(ht_same_text(hbsp_errmsg(e)));
  CU_ASSERT_PTR_NULL(b);
  CU_ASSERT_EQUAL(hbsp_board_create(e, 8, 2, NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_board_create(NULL, 8, 2, &b), HLA_ERR_ARG);
  int rc = hbsp_board_create(e, me == P - 1 ? 16 : 8, 2, &b); /* bytes differ on one rank */
  CU_ASSERT_EQUAL(rc, P > 1 ? HLA_ERR_ARG : HLA_OK);
  if (P > 1) {
    CU_ASSERT(ht_same_text(hbsp_errmsg(e)));
    CU_ASSERT_PTR_NOT_NULL(strstr(hbsp_errmsg(e), "differ"));
    CU_ASSERT_PTR_NULL(b);
  }
  CU_ASSERT_EQUAL(hbsp_board_free(&b), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_board_create(e, 0, 2, &b), HLA_OK); /* empty slots are fine */
  if (b) {
    CU_ASSERT_EQUAL(hbsp_board_wait(b, me, 0, NULL), HLA_ERR_ARG); /* its own slot */
    CU_ASSERT_EQUAL(hbsp_board_wait(b, P, 0, NULL), HLA_ERR_ARG);
    CU_ASSERT_EQUAL(hbsp_board_done(b, (me + 1) % P, 2), HLA_ERR_ARG);
    CU_ASSERT_EQUAL(hbsp_board_claim(b, -1), HLA_ERR_ARG);
    CU_ASSERT_EQUAL(hbsp_board_post(b, 2), HLA_ERR_ARG);
    CU_ASSERT_PTR_NULL(hbsp_board_slot(b, -1, 0));
    CU_ASSERT_PTR_NULL(hbsp_board_slot(b, 0, 2));
  }
  CU_ASSERT_EQUAL(hbsp_board_free(&b), HLA_OK);
  CU_ASSERT_EQUAL(hbsp_board_free(NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_board_claim(NULL, 0), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_board_reset(NULL), HLA_ERR_ARG);
  CU_ASSERT_EQUAL(hbsp_board_bytes(NULL), 0);
  CU_ASSERT_EQUAL(hbsp_free(&e), HLA_OK);
}

void hla_test_register(void) {
  HT_SUITE("board", test_rounds, test_subsets, test_reset, test_bad);
}
