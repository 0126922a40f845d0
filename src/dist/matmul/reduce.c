/* hla — the row-reduce multiply, for a thin C (few columns: a residual B - A X, a matrix times a
 * block of vectors). SUMMA keeps C where it is and moves A: with C in one process column (n <= its
 * column block) every panel of A crosses the process rows to that column, and only that column
 * computes. Here A stays where it is and everyone computes:
 *   1. op(B) (k x n, small) is gathered whole on every rank (one allgather);
 *   2. each rank multiplies its part of A (mloc x kloc) by the rows of op(B) its columns meet,
 *      giving a partial mloc x n product;
 *   3. the partials are summed along each process row into the process column that holds each
 *      column of C (one reduce per process column with columns of C), where C := beta C + sum.
 * An element file (src/prec.h). Needs op(A) = A in C's row blocks with its first block on process
 * (0, 0) and C's first block there too (the caller sees to both); B's may be anywhere. BSP cost (M
 * x N grid): 2 m k n / P flops; h = k n words (the allgather) + m n / M per reduce; l of one
 * allgather over ALL and of a reduce over the row per process column holding columns of C. Memory:
 * 2 k n + kloc n + mloc n entries per rank. */
#include <stdlib.h>
#include <string.h>
#include "dist/matmul/matmul_impl.h"
#include "kernels/kernels.h"

/* Rank r's process row and column counted from B's first block (B may be wrapped with it
 * elsewhere), and the size of its part of B. */
static int64_t part_of(hmat B, int r, int *pr, int *pc) {
  const int M = B->g->M, N = B->g->N;
  *pr = (r / N - B->rsrc + M) % M, *pc = (r % N - B->csrc + N) % N;
  return hmat_numroc(B->m, B->mb, *pr, M) * hmat_numroc(B->n, B->nb, *pc, N);
}

/* Rank r's part of B, as it comes in the allgather (its local array with lld = its local rows),
 * into Bf (op(B), k x n, leading dimension k). */
static void place(hmat B, char tb, int r, const hreal *part, hreal *Bf, int64_t k) {
  const int M = B->g->M, N = B->g->N;
  int pr, pc;
  part_of(B, r, &pr, &pc);
  const int64_t ml = hmat_numroc(B->m, B->mb, pr, M), nl = hmat_numroc(B->n, B->nb, pc, N);
  for (int64_t jl = 0; jl < nl; jl++) {
    const int64_t j = hmat_idx_l2g(jl, B->nb, pc, N);
    for (int64_t il = 0; il < ml; il++) {
      const int64_t i = hmat_idx_l2g(il, B->mb, pr, M);
      if (tb == 'N')
        Bf[i + j * k] = part[il + jl * ml];
      else
        Bf[j + i * k] = part[il + jl * ml];
    }
  }
}

int mm_reduce(hbsp_env all, char tb, double alpha, hmat A, hmat B, double beta, hmat C) {
  hgrid g = C->g;
  const int M = g->M, N = g->N, P = M * N, me = hbsp_rank(all);
  const int64_t k = A->n, n = C->n, mloc = C->mloc, kloc = A->nloc;
  int *cnt = malloc((size_t)P * sizeof *cnt), *off = malloc((size_t)P * sizeof *off);
  int64_t total = 0, most = 0;
  for (int r = 0; cnt && off && r < P; r++) {
    int pr, pc;
    const int64_t c = part_of(B, r, &pr, &pc);
    off[r] = (int)total, cnt[r] = (int)c, total += c;
  }
  for (int q = 0; q < N; q++) {
    const int64_t c = hmat_numroc(n, C->nb, q, N);
    if (c > most) most = c;
  }
  /* Bf: op(B) whole; in: the gathered parts; sub: my rows of op(B); part: my partial product (and
   * a buffer for one process column's share of it) */
  hreal *Bf = HREAL_TAKE(g, k * n), *in = HREAL_TAKE(g, total), *sub = HREAL_TAKE(g, kloc * n),
        *part = HREAL_TAKE(g, mloc * n + 2 * mloc * most);
  int code = cnt && off && Bf && in && sub && part && total <= INT32_MAX
                 ? HLA_OK
                 : HBSP_FAIL(all, HLA_ERR_NOMEM, "hmatmul: no memory for the row-reduce multiply");
  code = hbsp_agree(all, code);
  if (code == HLA_OK) {
    hreal *mine = in + off[me]; /* my local array, packed */
    hkern_dlacpy('A', B->mloc, B->nloc, HDATA(B), B->lld, mine, B->mloc > 1 ? B->mloc : 1);
    if (MPI_Allgatherv(MPI_IN_PLACE, 0, HREAL_MPI, in, cnt, off, HREAL_MPI, hbsp_comm(all)) !=
        MPI_SUCCESS)
      code = HBSP_FAIL(all, HLA_ERR_MPI, "hmatmul: MPI_Allgatherv failed");
    code = hbsp_agree(all, code);
  }
  if (code == HLA_OK) {
    for (int r = 0; r < P; r++) place(B, tb, r, in + off[r], Bf, k);
    for (int64_t j = 0; j < n; j++)
      for (int64_t l = 0; l < kloc; l++) sub[l + j * kloc] = Bf[hmat_l2g_col(A, l) + j * k];
    if (mloc > 0) {
      if (kloc > 0)
        code = hkern_dgemm('N', 'N', mloc, n, kloc, alpha, HDATA(A), A->lld, sub, kloc, 0.0, part,
                           mloc);
      else
        memset(part, 0, (size_t)(mloc * n) * sizeof *part);
    }
    code = hbsp_agree(all, code);
  }
  /* Every rank of a process row has the same mloc: the whole row skips together. */
  hreal *send = part + mloc * n, *recv = send + mloc * most;
  for (int q = 0; code == HLA_OK && mloc > 0 && q < N; q++) {
    const int64_t nq = hmat_numroc(n, C->nb, q, N);
    if (nq == 0) continue;
    for (int64_t jl = 0; jl < nq; jl++)
      memcpy(send + jl * mloc, part + hmat_idx_l2g(jl, C->nb, q, N) * mloc,
             (size_t)mloc * sizeof *send);
    code = hbsp_reduce(g->row, send, recv, (size_t)(mloc * nq), HREAL_HBSP, HBSP_SUM, q, NULL);
    if (code == HLA_OK && q == g->mycol)
      for (int64_t jl = 0; jl < nq; jl++) {
        hreal *c = HDATA(C) + jl * C->lld;
        const hreal *s = recv + jl * mloc;
        if (beta == 0.0) /* never reads C: NaN goes away */
          memcpy(c, s, (size_t)mloc * sizeof *c);
        else
          for (int64_t i = 0; i < mloc; i++) c[i] = (hreal)(beta * c[i]) + s[i];
      }
  }
  free(cnt), free(off);
  hdist_give(g, Bf), hdist_give(g, in), hdist_give(g, sub), hdist_give(g, part);
  return hbsp_agree(all, code);
}
