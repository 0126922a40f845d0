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
#include <string.h>
#include "dist/plan/plan_impl.h"

/* The message `i` of the step between relative ranks *s -> *d; 0 when there is none. */
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
  case HP_STEP_EXCHANGE:
    *s = i, *d = i ^ dist;
    return dist > 0 && i < p && *d < p;
  default: /* HP_STEP_RING */
    *s = i, *d = (i + 1) % p;
    return p > 1 && i < p;
  }
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
    /* SimGrid's rule, from the source's coordinate: upward when the target is at most half way
     * round upward without wrapping, or with wrapping from the upper half */
    const int up = (to > my && to <= my + n / 2) || (my > n / 2 && (my + n / 2) % n >= to);
    const int steps = up ? (to - my + n) % n : (my - to + n) % n;
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

/* The messages of one step over e's family, one at a time (msg_next): a cursor. */
typedef struct {
  hp_env e;
  int rpn, kind, dist, a, b, i;
} msg_iter;

static msg_iter msg_start(hp_env e, int rpn, int kind, int dist) {
  msg_iter it = {e, rpn, kind, dist, 0, 0, 0};
  return it;
}

/* The nodes *ns -> *nd of the next message; 0 when there is none left. */
static int msg_next(msg_iter *it, int *ns, int *nd) {
  const hp_env *e = &it->e;
  for (int s, d; it->a < e->n1;) {
    if (step_msg(it->kind, it->dist, e->p, it->i++, &s, &d)) {
      int base = e->start + it->a * e->f1 + it->b * e->f2, r = e->root;
      *ns = (base + (s + r) % e->p * e->stride) / it->rpn;
      *nd = (base + (d + r) % e->p * e->stride) / it->rpn;
      return 1;
    }
    it->i = 0;
    if (++it->b == e->n2) it->b = 0, it->a++;
  }
  return 0;
}

size_t hp_torus_work(const hp_torus *t) {
  return (size_t)t->nodes * (2 * (size_t)t->nd + 1);
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
  /* two passes over the messages: loads, then each message's busiest link; a third clears */
  for (int pass = 0; pass < 3; pass++) {
    msg_iter it = msg_start(e, rpn, kind, dist);
    for (int ns, nd; msg_next(&it, &ns, &nd);) {
      double most, in_mem = memory(t, ns, nd, work, pass == 0 ? 1 : pass == 1 ? 0 : -1);
      if (pass == 0 && in_mem > r.mem) r.mem = (int)in_mem;
      if (ns == nd) {
        if (pass == 0) r.intra++;
        continue;
      }
      int hops = route(t, ns, nd, work, pass == 0 ? 1 : pass == 1 ? 0 : -1, &most);
      if (pass == 1) {
        r.inter++;
        if (hops > r.hops) r.hops = hops;
        if (most > r.load) r.load = (int)most;
      }
    }
  }
  *out = r;
  return HLA_OK;
}

int hp_torus_volume(const hp_torus *t, int rpn, const hp_env *envs, const double *bytes, int n,
                    int kind, double *work, double *most, double *mem) {
  *most = *mem = 0;
  for (int i = 0; i < n; i++)
    if (envs[i].p > 1 && !fits(t, rpn, envs[i])) return HLA_ERR_DIM;
  /* the loads only grow, so the largest seen on the way is the largest at the end */
  for (int i = 0; i < n; i++) {
    if (envs[i].p <= 1 || !(bytes[i] > 0)) continue;
    int top = 1;
    while (top < envs[i].p) top <<= 1;
    /* the tree's steps, or the one step of the others */
    for (int dist = kind == HP_STEP_TREE ? top / 2 : 0; dist > 0 || kind != HP_STEP_TREE;
         dist /= 2) {
      msg_iter it = msg_start(envs[i], rpn, kind, dist);
      for (int ns, nd; msg_next(&it, &ns, &nd);) {
        double m = memory(t, ns, nd, work, bytes[i]);
        if (m > *mem) *mem = m;
        if (ns == nd) continue;
        route(t, ns, nd, work, bytes[i], &m);
        if (m > *most) *most = m;
      }
      if (kind != HP_STEP_TREE) break;
    }
  }
  /* whole families load most links: clearing them all is cheaper than routing again */
  memset(work, 0, hp_torus_work(t) * sizeof *work);
  return HLA_OK;
}
