/* hla BSP layer — registration of memory for puts and gets.
 *
 * The i-th registration names the same variable on every rank, so the slot index travels in
 * requests and each receiver maps it to its own address. Pushes and pops are queued and applied at
 * the end of the next sync (after that superstep's puts and gets, which may still use a popped
 * area); every registration call is counted and hashed, and the sync checks that all ranks agree.
 */
#include <stdlib.h>
#include "bsp/bsp_impl.h"

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xBF58476D1CE4E5B9ull;
}

int hbsp_reg_find(hbsp_env env, const void *base) {
  for (int s = env->nreg - 1; s >= 0; s--)
    if (env->reg[s].live && env->reg[s].base == base) return s;
  return -1;
}

static int pending_pop(hbsp_env env, int slot) {
  const hbsp_regop *op = (const hbsp_regop *)env->regops.p;
  size_t n = env->regops.n / sizeof *op;
  for (size_t i = 0; i < n; i++)
    if (op[i].pop && op[i].slot == slot) return 1;
  return 0;
}

int hbsp_push_reg(hbsp_env env, void *base, size_t bytes) {
  if (!env) return HLA_ERR_ARG;
  if (!base && bytes > 0)
    return HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_push_reg: NULL base with %zu bytes", bytes);
  /* Reserve the slot now so that applying the push at the sync cannot fail. */
  int need = env->nreg + (int)(env->regops.n / sizeof(hbsp_regop)) + 1;
  if (need > env->capreg) {
    int cap = env->capreg ? 2 * env->capreg : 16;
    while (cap < need) cap *= 2;
    hbsp_reg *r = realloc(env->reg, (size_t)cap * sizeof *r);
    if (!r) return HBSP_FAIL(env, HLA_ERR_NOMEM, "hbsp_push_reg: out of memory");
    env->reg = r;
    env->capreg = cap;
  }
  hbsp_regop op = {0, -1, base, bytes};
  if (!hla_buf_append(&env->regops, &op, sizeof op))
    return HBSP_FAIL(env, HLA_ERR_NOMEM, "hbsp_push_reg: out of memory");
  env->nregops++;
  env->reghash = mix(env->reghash, 1);
  return HLA_OK;
}

int hbsp_pop_reg(hbsp_env env, void *base) {
  if (!env) return HLA_ERR_ARG;
  /* The most recent registration of base that is not already being popped. */
  int slot = -1;
  for (int s = env->nreg - 1; s >= 0 && slot < 0; s--)
    if (env->reg[s].live && env->reg[s].base == base && !pending_pop(env, s)) slot = s;
  if (slot < 0)
    return HBSP_FAIL(env, HLA_ERR_ARG, "hbsp_pop_reg: address %p is not registered", base);
  hbsp_regop op = {1, slot, base, 0};
  if (!hla_buf_append(&env->regops, &op, sizeof op))
    return HBSP_FAIL(env, HLA_ERR_NOMEM, "hbsp_pop_reg: out of memory");
  env->nregops++;
  env->reghash = mix(env->reghash, 2 + (uint64_t)slot);
  return HLA_OK;
}

void hbsp_reg_apply(hbsp_env env) {
  const hbsp_regop *op = (const hbsp_regop *)env->regops.p;
  size_t n = env->regops.n / sizeof *op;
  for (size_t i = 0; i < n; i++)
    if (op[i].pop) env->reg[op[i].slot].live = 0;
  int free_slot = 0;
  for (size_t i = 0; i < n; i++) {
    if (op[i].pop) continue;
    while (free_slot < env->nreg && env->reg[free_slot].live) free_slot++;
    if (free_slot == env->nreg) env->nreg++; /* capacity reserved by hbsp_push_reg */
    env->reg[free_slot] = (hbsp_reg){op[i].base, op[i].bytes, 1};
  }
  /* Trailing dead slots can be forgotten. */
  while (env->nreg > 0 && !env->reg[env->nreg - 1].live) env->nreg--;
  env->regops.n = 0;
}
