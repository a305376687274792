// <cuComplex.h> for cudakit's CPU backend: cuFloatComplex and
// cuDoubleComplex are float2 and double2, and division and magnitude scale
// their operands as the toolkit's header does, so results match the GPU's.
#pragma once

#include <math.h>

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

static inline float cuCrealf(cuFloatComplex x) { return x.x; }
static inline float cuCimagf(cuFloatComplex x) { return x.y; }
static inline cuFloatComplex make_cuFloatComplex(float r, float i) { return make_float2(r, i); }
static inline cuFloatComplex make_cuComplex(float r, float i) { return make_float2(r, i); }
static inline cuFloatComplex cuConjf(cuFloatComplex x) { return make_float2(x.x, -x.y); }
static inline cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y) {
  return make_float2(x.x + y.x, x.y + y.y);
}
static inline cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y) {
  return make_float2(x.x - y.x, x.y - y.y);
}
static inline cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y) {
  return make_float2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
static inline cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y) {
  float s = fabsf(y.x) + fabsf(y.y);
  float oos = 1.0f / s;
  float ars = x.x * oos, ais = x.y * oos;
  float brs = y.x * oos, bis = y.y * oos;
  s = brs * brs + bis * bis;
  oos = 1.0f / s;
  return make_float2((ars * brs + ais * bis) * oos, (ais * brs - ars * bis) * oos);
}
static inline float cuCabsf(cuFloatComplex x) {
  float a = fabsf(x.x), b = fabsf(x.y);
  float v = a > b ? a : b, w = a > b ? b : a;
  float t = w / v;
  t = 1.0f + t * t;
  t = v * sqrtf(t);
  if (v == 0.0f || v > 3.402823466e38f || w > 3.402823466e38f) t = v + w;
  return t;
}
static inline cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y, cuFloatComplex d) {
  float re = (x.x * y.x) + d.x;
  float im = (x.x * y.y) + d.y;
  re = -(x.y * y.y) + re;
  im = (x.y * y.x) + im;
  return make_float2(re, im);
}

static inline double cuCreal(cuDoubleComplex x) { return x.x; }
static inline double cuCimag(cuDoubleComplex x) { return x.y; }
static inline cuDoubleComplex make_cuDoubleComplex(double r, double i) {
  return make_double2(r, i);
}
static inline cuDoubleComplex cuConj(cuDoubleComplex x) { return make_double2(x.x, -x.y); }
static inline cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y) {
  return make_double2(x.x + y.x, x.y + y.y);
}
static inline cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y) {
  return make_double2(x.x - y.x, x.y - y.y);
}
static inline cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y) {
  return make_double2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
static inline cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y) {
  double s = fabs(y.x) + fabs(y.y);
  double oos = 1.0 / s;
  double ars = x.x * oos, ais = x.y * oos;
  double brs = y.x * oos, bis = y.y * oos;
  s = brs * brs + bis * bis;
  oos = 1.0 / s;
  return make_double2((ars * brs + ais * bis) * oos, (ais * brs - ars * bis) * oos);
}
static inline double cuCabs(cuDoubleComplex x) {
  double a = fabs(x.x), b = fabs(x.y);
  double v = a > b ? a : b, w = a > b ? b : a;
  double t = w / v;
  t = 1.0 + t * t;
  t = v * sqrt(t);
  if (v == 0.0 || v > 1.79769313486231570e+308 || w > 1.79769313486231570e+308) t = v + w;
  return t;
}
static inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) {
  double re = (x.x * y.x) + d.x;
  double im = (x.x * y.y) + d.y;
  re = -(x.y * y.y) + re;
  im = (x.y * y.x) + im;
  return make_double2(re, im);
}
static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) {
  return make_double2(static_cast<double>(c.x), static_cast<double>(c.y));
}
static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) {
  return make_float2(static_cast<float>(c.x), static_cast<float>(c.y));
}
