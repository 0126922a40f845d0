/* hla — the network of the machine model: where the messages of one step of a broadcast go on a
 * torus network of nodes (or through the ports of a non-blocking one), and how many of them share
 * a link.
 *
 * Why: on a torus the rows (or columns) of a grid broadcast at once over links that their
 * messages share, and the ranks of a node, which sit in different columns, send over the same
 * links. A ping-pong sees none of that; the multiply at 4,096 and 16,384 simulated ranks of a
 * Blue Gene/P-like torus spent 2 to 3 x longer in its broadcasts than the probe's links predict
 * (bench/results/sim/README.md). Routes are dimension-ordered: the first dimension first, each ring
 * the shorter way (half way round: the way that SimGrid's TorusZone takes), every direction of a
 * link its own channel. The step's time is then that of its slowest message: its latency, its hops,
 * and its bytes at the link's rate divided among the messages on the busiest link of its route.
 * That is max-min sharing's answer for the message that finishes last when the messages start
 * together and are as long; it is not a simulation of the network.
 * The same counts serve a non-blocking network (a full-bisection fat tree) given by its nodes'
 * ports (hp_torus.ports): a message leaves by its node's port and enters by its target's, so the
 * ranks of a node share their port as they share a torus node's links. A node's memory is counted
 * as one more such resource: every message within the node, into it and out of it goes through
 * it (a copy), which 64 ranks of a node receiving a panel each at once can fill. */
#include <math.h>
#include <string.h>
#include "dist/plan/plan_impl.h"

/* The message `i` of the step between relative ranks *s -> *d; 0 when there is none, and none
 * after it. */
static int step_msg(int kind, int dist, int p, int i, int *s, int *d) {
  switch (kind) {
  case HP_STEP_TREE:
    *s = 2 * dist * i, *d = *s + dist;
    return dist > 0 && *d < p;
  case HP_STEP_FLAT_ALL:
    *s = 0, *d = i + 1;
    return *d < p;
  case HP_STEP_FLAT_ONE:
    *s = 0, *d = dist;
    return i == 0 && dist > 0 && dist < p;
  case HP_STEP_CHAIN:
    *s = i, *d = i + 1;
    return *d < p;
  case HP_STEP_EXCHANGE: { /* coll_reduce.c's recursive doubling (rab_make, rab_v) */
    const int top = p > 0 ? 1 << (31 - __builtin_clz((unsigned)p)) : 0, r = p - top;
    if (dist == 0) { /* the fold: 2i + 1 hands over to 2i */
      *s = 2 * i + 1, *d = 2 * i;
      return i < r;
    }
    const int j = i ^ dist; /* new ranks i, j: old 2 i where i < r, else i + r */
    *s = i < r ? 2 * i : i + r, *d = j < r ? 2 * j : j + r;
    return dist < top && i < top;
  }
  default: /* HP_STEP_RING */
    *s = i, *d = (i + 1) % p;
    return p > 1 && i < p;
  }
}

/* The hops from coordinate my to `to` on a ring of n, and the way (*up): SimGrid's rule, from the
 * source's coordinate: upward when the target is at most half way round upward without
 * wrapping, or with wrapping from the upper half (my + n / 2 < 2 n; >= n where my > n / 2). */
static inline int ring_way(int n, int my, int to, int *up) {
  *up = (to > my && to <= my + n / 2) || (my > n / 2 && my + n / 2 - n >= to);
  return *up ? (to >= my ? to - my : to - my + n) : (my >= to ? my - to : my - to + n);
}

/* The route from node a to node b: adds `add` to the load of each of its links and returns its
 * hops; *most gets the largest load on it. A link is the channel out of a node in one dimension
 * and direction: work[(node nd + d) 2 + dir], dir 0 upward from node, 1 downward into node. */
static int route(const hp_torus *t, int a, int b, double *work, double add, double *most) {
  int hops = 0, cur = a, prod = 1;
  double top = 0;
  if (t->ports) { /* a's port out, b's port in; through a spine switch between leaves */
    double *out = work + 2 * a, *in = work + 2 * b + 1;
    *out += add, *in += add;
    *most = *out > *in ? *out : *in;
    return t->leaf > 0 && a / t->leaf != b / t->leaf ? 2 : 1;
  }
  for (int d = 0; d < t->nd; d++) {
    const int n = t->dim[d], my = a / prod % n, to = b / prod % n;
    int up;
    const int steps = ring_way(n, my, to, &up);
    /* a hop upward leaves cur by its channel 0; one downward enters next by its channel 1 */
    for (int s = 0, c = my; s < steps; s++) {
      int next;
      double *l;
      if (up) {
        next = c + 1 == n ? cur - c * prod : cur + prod, c = c + 1 == n ? 0 : c + 1;
        l = work + ((size_t)cur * t->nd + d) * 2;
      } else {
        next = c == 0 ? cur + (n - 1) * prod : cur - prod, c = c == 0 ? n - 1 : c - 1;
        l = work + ((size_t)next * t->nd + d) * 2 + 1;
      }
      *l += add;
      if (*l > top) top = *l;
      cur = next;
    }
    hops += steps;
    prod *= n;
  }
  *most = top;
  return hops;
}

/* e's ranks known and inside the torus (the largest is the last of the last translate). */
static int fits(const hp_torus *t, int rpn, hp_env e) {
  long long last = e.start + (long long)(e.n1 - 1) * e.f1 + (long long)(e.n2 - 1) * e.f2 +
                   (long long)(e.p - 1) * e.stride;
  return t->nd > 0 && e.n1 > 0 && e.n2 > 0 && rpn > 0 && e.start >= 0 && e.stride >= 0 &&
         e.f1 >= 0 && e.f2 >= 0 && e.root >= 0 && e.root < e.p && last / rpn < t->nodes;
}

/* The messages of one step over e's family as runs of alike ones (runs_next): a cursor. Two
 * shortcuts: consecutive translates whose ranks sit on the same nodes (a stride of whole nodes and
 * the same first node) route alike and go once with their count, and so do consecutive messages
 * between the same two nodes. */
typedef struct {
  hp_env e;
  int rpn, shift, kind, dist, whole; /* shift: log2 rpn where rpn is a power of 2, else -1 */
  int a, b, w, i;                    /* translate (a, b) and w - 1 alike after it; message i */
  int ls, ld, run;                   /* the run so far: run messages ls -> ld (nodes) */
} run_iter;

static run_iter runs_start(hp_env e, int rpn, int kind, int dist) {
  int shift = 0;
  while ((1 << shift) < rpn) shift++;
  if (e.n2 == 1) e.n2 = e.n1, e.f2 = e.f1, e.n1 = 1, e.f1 = 0; /* the translates innermost */
  run_iter it = {
      e,  rpn, (1 << shift) == rpn ? shift : -1, kind, dist, e.stride % rpn == 0, 0, 0, 0, 0, -1,
      -1, 0};
  return it;
}

/* The node of rank r (a division is most of a message's cost). */
static inline int node_of(const run_iter *it, int r) {
  return it->shift >= 0 ? r >> it->shift : r / it->rpn;
}

/* The next run: *w messages from node *ns to node *nd; 0 when there is none left. */
static int runs_next(run_iter *it, int *ns, int *nd, int *w) {
  const hp_env *e = &it->e;
  while (it->a < e->n1) {
    const int base = e->start + it->a * e->f1 + it->b * e->f2;
    if (it->w == 0) /* a new translate: how many after it sit on the same nodes */
      for (it->w = 1; it->whole && it->b + it->w < e->n2 &&
                      node_of(it, base + it->w * e->f2) == node_of(it, base);)
        it->w++;
    int s, d, ms = -1, md = -1;
    const int more = step_msg(it->kind, it->dist, e->p, it->i, &s, &d);
    if (more) {
      it->i++;
      s += e->root, d += e->root; /* s, d and the root are below p */
      ms = node_of(it, base + (s < e->p ? s : s - e->p) * e->stride);
      md = node_of(it, base + (d < e->p ? d : d - e->p) * e->stride);
      if (it->run > 0 && ms == it->ls && md == it->ld) {
        it->run++;
        continue;
      }
    }
    const int done = it->run, times = it->w;
    *ns = it->ls, *nd = it->ld;
    it->ls = ms, it->ld = md, it->run = more;
    if (!more) { /* the translate's end */
      it->b += it->w, it->w = 0, it->i = 0;
      if (it->b >= e->n2) it->b = 0, it->a++;
    }
    if (done > 0) {
      *w = done * times;
      return 1;
    }
  }
  return 0;
}

size_t hp_torus_work(const hp_torus *t) {
  return 2 * (size_t)t->nodes * (2 * (size_t)t->nd + 1);
}

/* The message ns -> nd through the nodes' memories (after the links in work): a message within a
 * node crosses its memory once, one between nodes the source's and the target's. Returns the
 * larger load. */
static double memory(const hp_torus *t, int ns, int nd, double *work, double add) {
  double *mem = work + (size_t)t->nodes * 2 * (size_t)t->nd;
  mem[ns] += add;
  if (nd != ns) mem[nd] += add;
  return mem[ns] > mem[nd] ? mem[ns] : mem[nd];
}

int hp_torus_step(const hp_torus *t, int rpn, hp_env e, int kind, int dist, double *work,
                  hp_tstep *out) {
  hp_tstep r = {0, 0, 0, 0, 0};
  *out = r;
  if (!fits(t, rpn, e)) return HLA_ERR_DIM;
  /* the loads only grow, so the largest on a route as it is added is the largest at the end; a
   * second pass takes the loads off again, or a memset where that is cheaper */
  const size_t links = (size_t)t->nodes * 2 * (size_t)t->nd;
  double top = 0, top_mem = 0;
  size_t walked = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1 && walked > links / 4) {
      memset(work, 0, (links + (size_t)t->nodes) * sizeof *work);
      break;
    }
    run_iter it = runs_start(e, rpn, kind, dist);
    for (int ns, nd, w; runs_next(&it, &ns, &nd, &w);) {
      const double add = pass == 0 ? w : -w, in_mem = memory(t, ns, nd, work, add);
      walked++;
      if (pass == 0) top_mem = fmax(top_mem, in_mem);
      if (ns == nd) {
        r.intra += pass == 0 ? w : 0;
        continue;
      }
      double most;
      const int hops = route(t, ns, nd, work, add, &most);
      if (pass == 1) continue;
      walked += (size_t)hops;
      r.inter += w;
      if (hops > r.hops) r.hops = hops;
      top = fmax(top, most);
    }
  }
  r.load = (int)top, r.mem = (int)top_mem;
  *out = r;
  return HLA_OK;
}

/* The route from node a to node b as ranges of links, one per dimension it crosses: `add` at the
 * first link of each range, -add just past its end, so that summing along each ring (rings_sum)
 * gives every link's load. The links and turns are route's; xyz[node nd + d]: the coordinates. */
static void route_ranges(const hp_torus *t, const double *xyz, int a, int b, double *diff,
                         double add) {
  int cur = a, prod = 1;
  for (int d = 0; d < t->nd; prod *= t->dim[d], d++) {
    const int n = t->dim[d], my = (int)xyz[(size_t)a * t->nd + d],
              to = (int)xyz[(size_t)b * t->nd + d];
    if (to == my) continue;
    int up;
    const int steps = ring_way(n, my, to, &up);
    /* up: channel 0 of positions my, my + 1, ...; down: channel 1 of my - 1, my - 2, ... */
    const int lo = up ? my : my >= steps ? my - steps : my - steps + n, hi = lo + steps;
    const size_t next = (size_t)prod * t->nd * 2; /* a ring's next link */
    double *ring = diff + ((size_t)(cur - my * prod) * t->nd + d) * 2 + (up ? 0 : 1);
    ring[lo * next] += add;
    if (hi < n) {
      ring[hi * next] -= add;
    } else if (hi > n) { /* round past the ring's last position */
      ring[0] += add;
      ring[(hi - n) * next] -= add;
    }
    cur += (to - my) * prod;
  }
}

/* route_ranges' marks summed along every ring, from position 0: each link's load. */
static void rings_sum(const hp_torus *t, double *diff) {
  for (int d = 0, prod = 1; d < t->nd; prod *= t->dim[d], d++)
    for (int s = 0; s < t->nodes; s++) {
      if (s / prod % t->dim[d]) continue; /* not a ring's first node */
      for (int dir = 0; dir < 2; dir++) {
        double run = 0;
        for (int pos = 0; pos < t->dim[d]; pos++) {
          double *c = diff + ((size_t)(s + pos * prod) * t->nd + d) * 2 + dir;
          run += *c, *c = run;
        }
      }
    }
}

/* Adds the bytes of one step of e's family (every translate's messages) to the loads in work,
 * as hp_torus_volume. */
static void volume_step(const hp_torus *t, const double *xyz, int rpn, hp_env e, int kind, int dist,
                        double bytes, double *work) {
  const size_t links = (size_t)t->nodes * 2 * (size_t)t->nd;
  run_iter it = runs_start(e, rpn, kind, dist);
  for (int ns, nd, w; runs_next(&it, &ns, &nd, &w);) {
    const double add = bytes * w;
    work[links + ns] += add; /* the nodes' memories */
    if (nd == ns) continue;
    work[links + nd] += add;
    if (t->ports) /* a's port out, b's port in */
      work[2 * ns] += add, work[2 * nd + 1] += add;
    else
      route_ranges(t, xyz, ns, nd, work, add);
  }
}

int hp_torus_volume(const hp_torus *t, int rpn, const hp_env *envs, const double *bytes, int n,
                    int kind, double *work, double *most, double *mem) {
  *most = *mem = 0;
  for (int i = 0; i < n; i++)
    if (envs[i].p > 1 && !fits(t, rpn, envs[i])) return HLA_ERR_DIM;
  /* work's first half: the loads, as ranges along the rings until rings_sum; then the nodes'
   * memories. Its second half: the nodes' coordinates. A route then costs a range per dimension,
   * not a step per hop. */
  const size_t links = (size_t)t->nodes * 2 * (size_t)t->nd, half = hp_torus_work(t) / 2;
  double *xyz = work + half;
  if (!t->ports)
    for (int s = 0; s < t->nodes; s++)
      for (int d = 0, q = s; d < t->nd; q /= t->dim[d], d++)
        xyz[(size_t)s * t->nd + d] = q % t->dim[d];
  for (int i = 0; i < n; i++) {
    if (envs[i].p <= 1 || !(bytes[i] > 0)) continue;
    int top = 1;
    while (top < envs[i].p) top <<= 1;
    /* the tree's steps, or the one step of the others */
    for (int dist = kind == HP_STEP_TREE ? top / 2 : 0; dist > 0 || kind != HP_STEP_TREE;
         dist /= 2) {
      volume_step(t, xyz, rpn, envs[i], kind, dist, bytes[i], work);
      if (kind != HP_STEP_TREE) break;
    }
  }
  if (!t->ports) rings_sum(t, work);
  for (size_t l = 0; l < links; l++)
    if (work[l] > *most) *most = work[l];
  for (size_t l = links; l < half; l++)
    if (work[l] > *mem) *mem = work[l];
  memset(work, 0, hp_torus_work(t) * sizeof *work);
  return HLA_OK;
}
