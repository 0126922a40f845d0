/* hla — one- and two-level collectives of the LU over a process row or column (see lu_impl.h).
 *
 * The two-level forms keep the traffic that crosses groups (nodes) to one message per group:
 *   broadcast         root's group  ->  leaders (one per group)  ->  every other group;
 *   record allreduce  inside groups  ->  among leaders  ->  back inside groups (the panel's pivot
 *                     search, lu/panel.c).
 * Groups are made once per factorisation or solve (hlu_level_make) and may have unequal sizes,
 * so this does not need hbsp_coll.groups (which wants G equal groups of consecutive ranks). */
#include <stdlib.h>
#include "dist/lu/lu_impl.h"

int hlu_level_make(hbsp_env env, const int64_t *key, hlu_level *lv) {
  int P = hbsp_size(env), me = hbsp_rank(env), code = HLA_OK;
  *lv = (hlu_level){env, NULL, NULL, NULL, NULL, 1};
  int *group = malloc((size_t)P * sizeof *group), *lrank = malloc((size_t)P * sizeof *lrank);
  int ngroups = 0;
  if (group == NULL || lrank == NULL) {
    code = HBSP_FAIL(env, HLA_ERR_NOMEM, "LU: out of memory for the groups of %d ranks", P);
  } else {
    /* Groups numbered by first appearance, so that the leaders' ranks are the group numbers. */
    for (int i = 0; i < P; i++) {
      group[i] = -1;
      lrank[i] = 0;
      for (int q = 0; q < i; q++)
        if (key[q] == key[i]) {
          if (group[i] < 0) group[i] = group[q];
          lrank[i]++;
        }
      if (group[i] < 0) group[i] = ngroups++;
    }
  }
  code = hbsp_agree(env, code);
  if (code != HLA_OK || ngroups <= 1 || ngroups >= P) { /* one level: the plain collectives */
    free(group);
    free(lrank);
    return code;
  }
  lv->group = group, lv->lrank = lrank, lv->ngroups = ngroups;
  int rc = hbsp_split_named(env, group[me], me, "group", &lv->local);
  if (rc == HLA_OK)
    rc = hbsp_split_named(env, lrank[me] == 0 ? 0 : HBSP_UNDEFINED, group[me], "leaders",
                          &lv->leaders);
  if (rc != HLA_OK) hlu_level_free(lv); /* both splits are agreed: every rank is here */
  return rc;
}

int hlu_level_free(hlu_level *lv) {
  int rc = HLA_OK, e;
  if (lv->leaders && (e = hbsp_free(&lv->leaders)) != HLA_OK) rc = e;
  if (lv->local && (e = hbsp_free(&lv->local)) != HLA_OK && rc == HLA_OK) rc = e;
  free(lv->group);
  free(lv->lrank);
  lv->group = lv->lrank = NULL;
  lv->ngroups = 1;
  return rc;
}

int hlu_groups_in_runs(const int *group, int P, int ngroups) {
  if (group == NULL) return 1;
  int changes = 0;
  for (int i = 0; i < P; i++) changes += group[i] != group[(i + 1) % P];
  return changes <= ngroups;
}

/* how for one environment of P ranks: Hasanov groups only where they divide P. */
static const hbsp_coll *fit(const hbsp_coll *how, int P, hbsp_coll *tmp) {
  if (how == NULL || how->groups <= 1 || (how->groups < P && P % how->groups == 0)) return how;
  *tmp = *how;
  tmp->groups = 0;
  return tmp;
}

int hlu_bcast(const hlu_level *lv, void *buf, size_t bytes, int root, const hbsp_coll *how) {
  hbsp_coll tmp;
  if (bytes == 0 || hbsp_size(lv->env) == 1) return HLA_OK;
  if (lv->local == NULL)
    return hbsp_coll_bcast(lv->env, buf, bytes, root, fit(how, hbsp_size(lv->env), &tmp));
  /* Two levels: the groups are the hierarchy, so the per-level collectives run without groups. */
  if (how) tmp = *how, tmp.groups = 0, how = &tmp;
  int me = hbsp_rank(lv->env), rg = lv->group[root];
  if (lv->group[me] == rg) HLA_CALL(hbsp_coll_bcast(lv->local, buf, bytes, lv->lrank[root], how));
  if (lv->leaders) HLA_CALL(hbsp_coll_bcast(lv->leaders, buf, bytes, rg, how));
  if (lv->group[me] != rg) HLA_CALL(hbsp_coll_bcast(lv->local, buf, bytes, 0, how));
  return HLA_OK;
}

int hlu_allreduce_rec(const hlu_level *lv, void *rec, void *ws, size_t bytes, hbsp_rec_combine f,
                      void *arg, const hbsp_coll *how) {
  hbsp_coll tmp;
  if (lv->local == NULL) return hbsp_coll_allreduce_rec(lv->env, rec, ws, bytes, f, arg);
  if (how) tmp = *how, tmp.groups = 0, how = &tmp;
  /* f is associative and commutative (lu/panel.c), so the two-level result is the flat one bit
   * for bit. */
  HLA_CALL(hbsp_coll_allreduce_rec(lv->local, rec, ws, bytes, f, arg));
  if (lv->leaders) HLA_CALL(hbsp_coll_allreduce_rec(lv->leaders, rec, ws, bytes, f, arg));
  return hbsp_coll_bcast(lv->local, rec, bytes, 0, how);
}
