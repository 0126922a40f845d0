/* hla BSP layer — the board: slots in node shared memory that the other ranks read in place.
 *
 * One MPI-3 shared window (MPI_Win_allocate_shared over the ranks of env, which must share a
 * node). Every rank's segment holds, per slot, two counters on cache lines of their own (posts,
 * written by the owner; reads, added to by the readers) and then the slots' data, each slot
 * starting on a page. The counters are C11 atomics in the shared pages: the owner writes its slot
 * and adds one to posts with release order, a reader waits for posts with acquire order and then
 * reads the data where it lies; after its last read it adds one to reads. MPI_Win_sync is called
 * as well where the MPI standard's separate memory model asks for it (a memory barrier in Open
 * MPI's shared-memory windows).
 *
 * Why: a large message between processes of one node moves only while both sides are inside MPI
 * when MPI has no single-copy transport (containers often have none), so a broadcast that leaves
 * while its root computes stalls until the root calls MPI again. A post needs nothing from the
 * poster afterwards.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "bsp/bsp_impl.h"

#define LINE     64   /* one counter per cache line: the owner's and the readers' writes apart */
#define PAGE     4096 /* each slot on a page of its own */
#define SPIN     4096 /* polls before a waiting rank starts yielding its core */
#define PROGRESS 64   /* polls between two calls into MPI's progress engine */

/* Under SimGrid SMPI (HLA_SMPI) there is no board, and the callers use messages: the ranks are
 * cooperative threads of one process, so a rank waiting on a counter keeps the poster from
 * running, and SMPI does not implement MPI_Win_sync. */
#ifdef HLA_SMPI
#define BOARD_POSSIBLE 0
#else
#define BOARD_POSSIBLE 1
#endif

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the board needs lock-free 64-bit atomics");

struct hbsp_board_s {
  hbsp_env env; /* borrowed: where errors are recorded */
  MPI_Comm comm;
  MPI_Win win;
  int P, rank, slots, locked;
  size_t bytes, head, stride; /* slot size asked; counters' bytes; bytes from slot to slot */
  char **seg;                 /* seg[r]: rank r's segment as mapped in this process */
  long long *seen;            /* [r * slots + s]: posts of rank r's slot s this rank waited for */
  long long *posted;          /* [s]: this rank's posts of its slot s */
};

static _Atomic long long *posts_of(hbsp_board b, int r, int s) {
  return (_Atomic long long *)(b->seg[r] + (size_t)s * 2 * LINE);
}

static _Atomic long long *reads_of(hbsp_board b, int r, int s) {
  return (_Atomic long long *)(b->seg[r] + (size_t)s * 2 * LINE + LINE);
}

static size_t round_up(size_t x, size_t to) {
  return (x + to - 1) / to * to;
}

/* Wait until *ctr >= target. Calls into MPI now and then, so that this rank's own non-blocking
 * messages move while it waits (without single-copy they need it: a peer may wait for them before
 * it posts what this rank waits for), and yields its core after a while (oversubscribed ranks). */
static void spin_until(hbsp_board b, _Atomic long long *ctr, long long target) {
  for (long i = 0; atomic_load_explicit(ctr, memory_order_acquire) < target; i++) {
    if (i % PROGRESS == PROGRESS - 1) {
      int flag;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, b->comm, &flag, MPI_STATUS_IGNORE);
    }
    if (i >= SPIN) sched_yield();
  }
  MPI_Win_sync(b->win);
}

static void board_destroy(hbsp_board b) {
  if (b == NULL) return;
  if (b->locked) MPI_Win_unlock_all(b->win);
  if (b->win != MPI_WIN_NULL) MPI_Win_free(&b->win);
  if (b->comm != MPI_COMM_NULL) MPI_Comm_free(&b->comm);
  free(b->seg);
  free(b->seen);
  free(b->posted);
  free(b);
}

/* The window over b->comm: HLA_OK; HLA_ERR_NOMEM where MPI cannot map it (every rank of b->comm
 * returns it); HLA_ERR_MPI (local) if MPI fails after that. */
static int board_map(hbsp_board b) {
  const size_t seg = b->head + (size_t)b->slots * b->stride;
  MPI_Info info;
  char *base = NULL;
  MPI_Comm_set_errhandler(b->comm, MPI_ERRORS_RETURN);
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true"); /* each segment near its owner */
  int e = MPI_Win_allocate_shared((MPI_Aint)seg, 1, info, b->comm, &base, &b->win);
  MPI_Info_free(&info);
  int bad = e != MPI_SUCCESS, anybad = 1;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, b->comm);
  if (anybad) {
    if (!bad) MPI_Win_free(&b->win);
    b->win = MPI_WIN_NULL;
    return HLA_ERR_NOMEM;
  }
  for (int r = 0; r < b->P; r++) {
    MPI_Aint size;
    int disp;
    void *p;
    if (MPI_Win_shared_query(b->win, r, &size, &disp, &p) != MPI_SUCCESS) return HLA_ERR_MPI;
    b->seg[r] = p;
  }
  MPI_Win_set_errhandler(b->win, MPI_ERRORS_RETURN);
  if (MPI_Win_lock_all(MPI_MODE_NOCHECK, b->win) != MPI_SUCCESS) return HLA_ERR_MPI;
  b->locked = 1;
  memset(base, 0, seg); /* counters at zero; the pages faulted here, by their owner */
  MPI_Win_sync(b->win);
  return HLA_OK;
}

int hbsp_board_create(hbsp_env env, size_t bytes, int slots, hbsp_board *board) {
  if (!env) return HLA_ERR_ARG;
  int rc = HLA_OK;
  if (board == NULL)
    rc = HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_board_create: board is NULL");
  else if (slots < 1 || slots > 64)
    rc = HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_board_create: %d slots (1 to 64)", slots);
  else if (bytes > ((size_t)1 << 40))
    rc = HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_board_create: slots of %zu bytes", bytes);
  HLA_CALL(hbsp_agree(env, rc));
  /* bytes and slots are global: the same on every rank */
  long long v[4] = {(long long)bytes, -(long long)bytes, slots, -slots}, m[4];
  HBSP_MPI(env, MPI_Allreduce(v, m, 4, MPI_LONG_LONG, MPI_MAX, env->comm));
  if (m[0] != -m[1] || m[2] != -m[3])
    return HBSP_FAIL_ALL(env, HLA_ERR_ARG,
                         "hbsp_board_create: bytes or slots differ between ranks (%lld to %lld "
                         "bytes, %lld to %lld slots)",
                         -m[1], m[0], -m[3], m[2]);
  *board = NULL;

  hbsp_board b = calloc(1, sizeof *b);
  rc = b ? HLA_OK : HBSP_FAIL(env, HLA_ERR_NOMEM, "hbsp_board_create: out of memory");
  rc = hbsp_agree(env, rc); /* before the split, which every rank must call */
  if (rc != HLA_OK) {
    free(b);
    return rc;
  }
  b->comm = MPI_COMM_NULL, b->win = MPI_WIN_NULL;
  int e = MPI_Comm_split_type(env->comm, MPI_COMM_TYPE_SHARED, env->rank, MPI_INFO_NULL, &b->comm);
  if (e != MPI_SUCCESS) rc = HBSP_FAIL(env, HLA_ERR_MPI, "hbsp_board_create: MPI_Comm_split_type");
  int shared = 0;
  if (rc == HLA_OK) MPI_Comm_size(b->comm, &shared);
  rc = hbsp_agree(env, rc);
  int all = BOARD_POSSIBLE && shared == env->P, every = 0;
  if (rc == HLA_OK) HBSP_MPI(env, MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, env->comm));
  if (rc != HLA_OK || !every) { /* an error, or no node holds all of env: no board */
    board_destroy(b);
    return rc;
  }
  b->env = env, b->P = env->P, b->rank = env->rank, b->slots = slots, b->bytes = bytes;
  b->head = round_up((size_t)slots * 2 * LINE, PAGE);
  b->stride = round_up(bytes, PAGE);
  b->seg = calloc((size_t)b->P, sizeof *b->seg);
  b->seen = calloc((size_t)b->P * slots, sizeof *b->seen);
  b->posted = calloc((size_t)slots, sizeof *b->posted);
  rc = b->seg && b->seen && b->posted ? HLA_OK
                                      : HBSP_FAIL(env, HLA_ERR_NOMEM, "hbsp_board_create: memory");
  rc = hbsp_agree(env, rc);
  if (rc == HLA_OK) rc = board_map(b);
  if (rc == HLA_ERR_NOMEM) { /* agreed inside: no board, and no error (messages will do) */
    board_destroy(b);
    return HLA_OK;
  }
  if (rc == HLA_ERR_MPI) rc = HBSP_FAIL(env, rc, "hbsp_board_create: MPI failed on the window");
  rc = hbsp_agree(env, rc);
  if (rc != HLA_OK) {
    board_destroy(b);
    return rc;
  }
  HBSP_MPI(env, MPI_Barrier(b->comm)); /* nobody reads a counter before its owner zeroed it */
  *board = b;
  return HLA_OK;
}

int hbsp_board_free(hbsp_board *board) {
  if (board == NULL) return HLA_ERR_ARG;
  if (*board) MPI_Barrier((*board)->comm); /* the last readers are done */
  board_destroy(*board);
  *board = NULL;
  return HLA_OK;
}

size_t hbsp_board_bytes(hbsp_board b) {
  return b ? b->bytes : 0;
}

void *hbsp_board_slot(hbsp_board b, int r, int s) {
  if (b == NULL || r < 0 || r >= b->P || s < 0 || s >= b->slots) return NULL;
  return b->seg[r] + b->head + (size_t)s * b->stride;
}

/* The local calls check their arguments on this rank only: a wrong rank or slot there is a bug of
 * the caller on this rank, and waiting on it would hang. */
static int local_check(hbsp_board b, int r, int s, const char *fn) {
  if (b == NULL) return HLA_ERR_ARG;
  if (r < 0 || r >= b->P || s < 0 || s >= b->slots)
    return HBSP_FAIL(b->env, HLA_ERR_ARG, "%s: rank %d, slot %d (board of %d ranks x %d slots)", fn,
                     r, s, b->P, b->slots);
  return HLA_OK;
}

int hbsp_board_claim(hbsp_board b, int s) {
  HLA_CALL(local_check(b, b ? b->rank : 0, s, "hbsp_board_claim"));
  spin_until(b, reads_of(b, b->rank, s), b->posted[s] * (b->P - 1));
  return HLA_OK;
}

int hbsp_board_post(hbsp_board b, int s) {
  HLA_CALL(local_check(b, b ? b->rank : 0, s, "hbsp_board_post"));
  MPI_Win_sync(b->win);
  b->posted[s]++;
  atomic_store_explicit(posts_of(b, b->rank, s), b->posted[s], memory_order_release);
  return HLA_OK;
}

int hbsp_board_wait(hbsp_board b, int r, int s, const void **data) {
  HLA_CALL(local_check(b, r, s, "hbsp_board_wait"));
  if (r == b->rank)
    return HBSP_FAIL(b->env, HLA_ERR_ARG, "hbsp_board_wait: slot %d is this rank's own", s);
  long long *seen = &b->seen[(size_t)r * b->slots + s];
  spin_until(b, posts_of(b, r, s), *seen + 1);
  (*seen)++;
  if (data) *data = hbsp_board_slot(b, r, s);
  return HLA_OK;
}

int hbsp_board_done(hbsp_board b, int r, int s) {
  HLA_CALL(local_check(b, r, s, "hbsp_board_done"));
  if (r == b->rank)
    return HBSP_FAIL(b->env, HLA_ERR_ARG, "hbsp_board_done: slot %d is this rank's own", s);
  atomic_fetch_add_explicit(reads_of(b, r, s), 1, memory_order_release);
  return HLA_OK;
}

int hbsp_board_reset(hbsp_board b) {
  if (b == NULL) return HLA_ERR_ARG;
  HBSP_MPI(b->env, MPI_Barrier(b->comm)); /* nobody waits on or reads a slot any more */
  for (int s = 0; s < b->slots; s++) {
    atomic_store_explicit(posts_of(b, b->rank, s), 0, memory_order_relaxed);
    atomic_store_explicit(reads_of(b, b->rank, s), 0, memory_order_relaxed);
  }
  memset(b->seen, 0, (size_t)b->P * b->slots * sizeof *b->seen);
  memset(b->posted, 0, (size_t)b->slots * sizeof *b->posted);
  MPI_Win_sync(b->win);
  HBSP_MPI(b->env, MPI_Barrier(b->comm));
  return HLA_OK;
}
