// The generated kernels behind the random functions: one kernel per
// distribution and output type, each thread turning one Philox counter into
// a few consecutive output elements.
#pragma once

#include <string>
#include <string_view>

namespace cudakit::detail {

enum class RandomDistribution { uniform, normal, lognormal, integers32, integers64 };

struct RandomKernelSource {
  std::string name;    // kernel name
  std::string source;  // complete CUDA C source (extern "C" is added by the compile path)
  unsigned elements_per_counter = 4;  // how far one draw of n advances the counter: ceil(n / this)
};

// `out_ctype` is the C type written ("float", "double", "int", "long long", ...).
// uniform / normal / lognormal: generated in float when out_ctype is "float",
// in double otherwise. Parameters:
//   uniform:            (T* out, long long n, unsigned long long seed, unsigned long long offset,
//   double low, double high) normal, lognormal:  (..., double mean, double stddev) integers32/64:
//   (..., long long low, unsigned long long range)   range = high - low
RandomKernelSource random_kernel_source(RandomDistribution distribution,
                                        std::string_view out_ctype);

}  // namespace cudakit::detail
