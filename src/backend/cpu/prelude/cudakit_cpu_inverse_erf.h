// CUDA's inverse error functions on the host (appended to the CPU backend's
// prelude): erfinv, erfcinv and normcdfinv, double and float. glibc has
// none of them. The normal quantile starts from Acklam's rational
// approximation (relative error below 1.2e-9) and one Halley step on glibc's
// erfc brings it to double precision; erfinv near 0 is refined with Newton on
// erf, so tiny arguments keep their relative precision. The float versions
// round the double result (within CUDA's documented 2 ulp bound).
#ifndef CUDAKIT_CPU_INVERSE_ERF_H
#define CUDAKIT_CPU_INVERSE_ERF_H

namespace cudakit_cpu_inverse_erf {

// The p-quantile of the standard normal distribution for p in (0, 0.5].
static inline double lower_normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                             -2.759285104469687e+02, 1.383577518672690e+02,
                             -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                             -1.556989798598866e+02, 6.680131188771972e+01,
                             -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                             -2.400758277161838e+00, -2.549732539343734e+00,
                             4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                             2.445134137142996e+00, 3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    const double q = sqrt(-2.0 * log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  } else {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  }
  // Halley's step on Phi(x) - p, Phi(x) = erfc(-x / sqrt(2)) / 2.
  const double e = 0.5 * erfc(-x * 0.70710678118654752440) - p;
  const double u = e * 2.50662827463100050242 * exp(0.5 * x * x);
  if (isfinite(u)) x = x - u / (1.0 + 0.5 * x * u);
  return x;
}

static inline double normal_quantile(double p) {
  if (isnan(p) || p < 0.0 || p > 1.0) return NAN;
  if (p == 0.0) return -INFINITY;
  if (p == 1.0) return INFINITY;
  return p <= 0.5 ? lower_normal_quantile(p) : -lower_normal_quantile(1.0 - p);
}

}  // namespace cudakit_cpu_inverse_erf

static inline double normcdfinv(double p) { return cudakit_cpu_inverse_erf::normal_quantile(p); }
static inline float normcdfinvf(float p) { return (float)normcdfinv((double)p); }

static inline double erfcinv(double y) {
  if (isnan(y) || y < 0.0 || y > 2.0) return NAN;
  if (y == 0.0) return INFINITY;
  if (y == 2.0) return -INFINITY;
  // erfc(x) = 2 Phi(-x sqrt(2)); y / 2 is exact.
  return -cudakit_cpu_inverse_erf::normal_quantile(0.5 * y) * 0.70710678118654752440;
}
static inline float erfcinvf(float y) { return (float)erfcinv((double)y); }

static inline double erfinv(double x) {
  if (isnan(x) || x < -1.0 || x > 1.0) return NAN;
  if (x == 0.0) return x;  // keeps the sign of zero
  if (x == 1.0) return INFINITY;
  if (x == -1.0) return -INFINITY;
  const double magnitude = fabs(x);
  double t;
  if (magnitude > 0.5) {
    t = erfcinv(1.0 - magnitude);  // 1 - |x| is exact here
  } else {
    t = -cudakit_cpu_inverse_erf::normal_quantile(0.5 - 0.5 * magnitude) *
        0.70710678118654752440;
    for (int step = 0; step < 3; ++step)  // Newton on erf: relative precision near 0
      t -= (erf(t) - magnitude) / (1.12837916709551257390 * exp(-t * t));
  }
  return x < 0.0 ? -t : t;
}
static inline float erfinvf(float x) { return (float)erfinv((double)x); }

#endif  // CUDAKIT_CPU_INVERSE_ERF_H
