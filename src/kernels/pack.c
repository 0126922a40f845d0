/* hla — packing of strided blocks to and from contiguous buffers (for messages). */
#include <string.h>
#include "prec.h"
#include "kernels/kernels.h"

/* Threads only pay off for copies well beyond the caches. */
#define PACK_OMP_MIN ((int64_t)1 << 18)

void hkern_pack(int64_t m, int64_t n, const hreal *A, int64_t lda, hreal *buf) {
  HKERN_SIM_WORDS((double)m * (double)n);
  if (m <= 0 || n <= 0) return;
  if (lda == m) {
    memcpy(buf, A, (size_t)(m * n) * sizeof(hreal));
    return;
  }
#pragma omp parallel for schedule(static) if (m * n >= PACK_OMP_MIN)
  for (int64_t j = 0; j < n; j++) memcpy(buf + j * m, A + j * lda, (size_t)m * sizeof(hreal));
}

void hkern_unpack(int64_t m, int64_t n, const hreal *buf, hreal *A, int64_t lda) {
  HKERN_SIM_WORDS((double)m * (double)n);
  if (m <= 0 || n <= 0) return;
  if (lda == m) {
    memcpy(A, buf, (size_t)(m * n) * sizeof(hreal));
    return;
  }
#pragma omp parallel for schedule(static) if (m * n >= PACK_OMP_MIN)
  for (int64_t j = 0; j < n; j++) memcpy(A + j * lda, buf + j * m, (size_t)m * sizeof(hreal));
}

/* Length of the run of consecutive indices starting at rows[r]. */
static int64_t run_length(int64_t nr, const int64_t *rows, int64_t r) {
  int64_t len = 1;
  while (r + len < nr && rows[r + len] == rows[r] + len) len++;
  return len;
}

void hkern_pack_idx(int64_t nr, const int64_t *rows, int64_t nc, const int64_t *cols,
                    const hreal *A, int64_t lda, hreal *buf) {
  HKERN_SIM_WORDS((double)nr * (double)nc);
  if (nr <= 0 || nc <= 0) return;
#pragma omp parallel for schedule(static) if (nr * nc >= PACK_OMP_MIN)
  for (int64_t c = 0; c < nc; c++) {
    const hreal *src = A + cols[c] * lda;
    hreal *dst = buf + c * nr;
    for (int64_t r = 0; r < nr;) {
      int64_t len = run_length(nr, rows, r);
      memcpy(dst + r, src + rows[r], (size_t)len * sizeof(hreal));
      r += len;
    }
  }
}

void hkern_unpack_idx(int64_t nr, const int64_t *rows, int64_t nc, const int64_t *cols,
                      const hreal *buf, hreal *A, int64_t lda) {
  HKERN_SIM_WORDS((double)nr * (double)nc);
  if (nr <= 0 || nc <= 0) return;
#pragma omp parallel for schedule(static) if (nr * nc >= PACK_OMP_MIN)
  for (int64_t c = 0; c < nc; c++) {
    hreal *dst = A + cols[c] * lda;
    const hreal *src = buf + c * nr;
    for (int64_t r = 0; r < nr;) {
      int64_t len = run_length(nr, rows, r);
      memcpy(dst + rows[r], src + r, (size_t)len * sizeof(hreal));
      r += len;
    }
  }
}

void hkern_transpose(int64_t m, int64_t n, const hreal *A, int64_t lda, hreal *B, int64_t ldb) {
  HKERN_SIM_WORDS((double)m * (double)n);
  enum { T = 32 };
  for (int64_t j0 = 0; j0 < n; j0 += T) {
    const int64_t j1 = j0 + T < n ? j0 + T : n;
    for (int64_t i0 = 0; i0 < m; i0 += T) {
      const int64_t i1 = i0 + T < m ? i0 + T : m;
      for (int64_t i = i0; i < i1; i++)
        for (int64_t j = j0; j < j1; j++) B[j + i * ldb] = A[i + j * lda];
    }
  }
}
