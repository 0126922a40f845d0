/* hla — workspaces of a grid: memory for matrices (hdist_alloc) and the blocks an operation takes
 * and gives back (hdist_take / hdist_give), kept with the grid between operations so that repeated
 * calls do not fault fresh pages (layout_impl.h says why). Local; no communication.
 */
#include <stdlib.h>
#include <string.h>
#include "dist/layout/layout_impl.h"
#include "kernels/kernels.h"
#ifdef HLA_SMPI
#include <smpi/smpi.h>
#endif

/* Zeroed at once: a fresh local matrix or workspace otherwise takes its page faults inside the
 * first computation that touches it (with huge pages: one per 2 MiB, see hla_alloc). */
void *hdist_alloc(int64_t count) {
  if (count < 1) count = 1;
  if ((uint64_t)count > (SIZE_MAX - HLA_HUGE) / 8) return NULL;
  void *p = hla_alloc((size_t)count * 8);
  if (p != NULL) memset(p, 0, (size_t)count * 8);
  return p;
}

/* In the simulation's model mode (kernels/sim.c) the storage of matrices and workspaces is SMPI's
 * shared memory: every allocation of a size maps the same pages for every rank, so that thousands
 * of simulated ranks fit in one machine's memory; the entries mean nothing there. */
void *hdist_store(int64_t count) {
#ifdef HLA_SMPI
  if (hkern_sim_model()) return SMPI_SHARED_MALLOC((size_t)(count < 1 ? 1 : count) * 8);
#endif
  return hdist_alloc(count);
}

void hdist_unstore(void *p) {
#ifdef HLA_SMPI
  if (p != NULL && hkern_sim_model()) {
    SMPI_SHARED_FREE(p);
    return;
  }
#endif
  free(p);
}

static void poison(void *p, int64_t words) {
#ifdef HLA_POISON_WORK
  memset(p, 0xff, (size_t)words * 8); /* all ones: a NaN as double and as float */
#else
  (void)p, (void)words;
#endif
}

/* Free the blocks nobody uses, largest first, until at most keep words of them remain. */
static void cache_trim(hgrid g, int64_t keep) {
  for (;;) {
    int64_t total = 0;
    int big = -1;
    for (int i = 0; i < HDIST_BLOCKS; i++) {
      const hdist_block *b = &g->cache[i];
      if (b->p == NULL || b->lent) continue;
      total += b->words;
      if (big < 0 || b->words > g->cache[big].words) big = i;
    }
    if (total <= keep) return;
    hdist_unstore(g->cache[big].p);
    g->cache[big] = (hdist_block){NULL, 0, 0};
  }
}

void *hdist_take(hgrid g, int64_t count) {
  if (count < 1) count = 1;
  hdist_block *c = g->cache;
  /* Not a block much larger than asked for: the next request of this operation may need it. */
  int best = -1;
  for (int i = 0; i < HDIST_BLOCKS; i++)
    if (c[i].p && !c[i].lent && c[i].words >= count && c[i].words <= 2 * count + HDIST_SLACK &&
        (best < 0 || c[i].words < c[best].words))
      best = i;
  if (best >= 0) {
    c[best].lent = 1;
    poison(c[best].p, c[best].words);
    return c[best].p;
  }
  void *p = hdist_store(count);
  if (p == NULL) {
    cache_trim(g, 0);
    if ((p = hdist_store(count)) == NULL) return NULL;
  }
  poison(p, count);
  /* Tracked in an empty slot, else in place of the smallest free block; untracked (hdist_give
   * frees it) when every slot is lent. */
  int s = -1;
  for (int i = 0; i < HDIST_BLOCKS && s < 0; i++)
    if (c[i].p == NULL) s = i;
  if (s < 0)
    for (int i = 0; i < HDIST_BLOCKS; i++)
      if (!c[i].lent && (s < 0 || c[i].words < c[s].words)) s = i;
  if (s >= 0) {
    hdist_unstore(c[s].p);
    c[s] = (hdist_block){p, count, 1};
  }
  return p;
}

void *hdist_take_part(hgrid g, int64_t count, const int64_t *shared, int nshared) {
#ifdef HLA_SMPI
  if (hkern_sim_model()) {
    if (count < 1) count = 1;
    /* SMPI wants byte ranges in increasing order, each ending before the next begins; it keeps
     * the pages that a range covers only in part private. */
    size_t off[2 * HDIST_PARTS];
    int k = 0;
    for (int i = 0; i < nshared && i < HDIST_PARTS; i++) {
      const int64_t a = shared[2 * i], b = shared[2 * i + 1] < count ? shared[2 * i + 1] : count;
      if (a >= b) continue;
      if (k > 0 && off[2 * k - 1] >= (size_t)a * 8)
        off[2 * k - 1] = (size_t)b * 8; /* adjacent: one range */
      else
        off[2 * k] = (size_t)a * 8, off[2 * k + 1] = (size_t)b * 8, k++;
    }
    if (k == 0) return hdist_alloc(count);
    return SMPI_PARTIAL_SHARED_MALLOC((size_t)count * 8, off, k);
  }
#endif
  (void)shared, (void)nshared;
  return hdist_take(g, count);
}

void hdist_give(hgrid g, void *p) {
  if (p == NULL) return;
  for (int i = 0; i < HDIST_BLOCKS; i++)
    if (g->cache[i].p == p) {
      g->cache[i].lent = 0;
      cache_trim(g, HDIST_KEEP_WORDS);
      return;
    }
  hdist_unstore(p);
}
