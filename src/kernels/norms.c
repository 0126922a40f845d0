/* hla — matrix norms and their parts (LAPACK dlange, dlassq), in double only: a float matrix is
 * measured through a double copy (src/dist/layout/hmat.c). */
#include <math.h>
#include "kernels/kernels.h"

/* NaN-propagating maximum. */
static double nanmax(double a, double b) {
  if (a != a) return a;
  return (b != b || b > a) ? b : a;
}

void hkern_lassq_merge(double *scale, double *sumsq, double scale2, double sumsq2) {
  double s1 = *scale, q1 = *sumsq;
  if (s1 != s1 || q1 != q1) return;
  if (scale2 != scale2 || sumsq2 != sumsq2) {
    *scale = NAN, *sumsq = 1.0;
    return;
  }
  if (isinf(s1) || isinf(scale2)) {
    *scale = INFINITY, *sumsq = 1.0;
    return;
  }
  if (scale2 == 0.0) return;
  if (s1 >= scale2) {
    double r = scale2 / s1;
    *sumsq = q1 + sumsq2 * r * r;
  } else {
    double r = s1 / scale2;
    *sumsq = sumsq2 + q1 * r * r;
    *scale = scale2;
  }
}

void hkern_dlassq(int64_t m, int64_t n, const double *A, int64_t lda, double *scale,
                  double *sumsq) {
  double s = *scale, q = *sumsq;
  if (s != s || q != q) return; /* NaN is absorbing */
  for (int64_t j = 0; j < n; j++) {
    const double *c = A + j * lda;
    for (int64_t i = 0; i < m; i++) {
      double a = fabs(c[i]);
      if (a == 0.0) continue;
      if (a != a) {
        *scale = NAN, *sumsq = 1.0;
        return;
      }
      if (isinf(a)) {
        /* keep scanning: a later NaN still wins over Inf */
        s = INFINITY, q = 1.0;
        continue;
      }
      if (isinf(s)) continue;
      if (s < a) {
        double r = s / a;
        q = 1.0 + q * r * r;
        s = a;
      } else {
        double r = a / s;
        q += r * r;
      }
    }
  }
  *scale = s, *sumsq = q;
}

void hkern_colsums_abs(int64_t m, int64_t n, const double *A, int64_t lda, double *s,
                       int accumulate) {
  for (int64_t j = 0; j < n; j++) {
    const double *c = A + j * lda;
    double t = 0.0;
    for (int64_t i = 0; i < m; i++) t += fabs(c[i]);
    s[j] = accumulate ? s[j] + t : t;
  }
}

void hkern_rowsums_abs(int64_t m, int64_t n, const double *A, int64_t lda, double *s,
                       int accumulate) {
  if (!accumulate)
    for (int64_t i = 0; i < m; i++) s[i] = 0.0;
  for (int64_t j = 0; j < n; j++) {
    const double *c = A + j * lda;
    for (int64_t i = 0; i < m; i++) s[i] += fabs(c[i]);
  }
}

double hkern_dlange(char norm, int64_t m, int64_t n, const double *A, int64_t lda, double *work) {
  if (m <= 0 || n <= 0) return 0.0;
  double v = 0.0;
  switch (norm) {
  case 'M':
  case 'm':
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < m; i++) v = nanmax(v, fabs(A[i + j * lda]));
    return v;
  case '1':
  case 'O':
  case 'o':
    for (int64_t j = 0; j < n; j++) {
      double t;
      hkern_colsums_abs(m, 1, A + j * lda, lda, &t, 0);
      v = nanmax(v, t);
    }
    return v;
  case 'I':
  case 'i':
    hkern_rowsums_abs(m, n, A, lda, work, 0);
    for (int64_t i = 0; i < m; i++) v = nanmax(v, work[i]);
    return v;
  case 'F':
  case 'f':
  case 'E':
  case 'e': {
    double s = 0.0, q = 1.0;
    hkern_dlassq(m, n, A, lda, &s, &q);
    return s * sqrt(q);
  }
  default:
    return NAN;
  }
}
