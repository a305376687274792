#include "array/random_kernels.hpp"

#include "array/random_philox.hpp"

namespace cudakit::detail {

namespace {

std::string identifier_of(std::string_view ctype) {
  std::string id;
  for (char c : ctype) id += (c == ' ') ? '_' : c;
  return id;
}

// The per-counter body: `w` holds the four words, element `base + j` is written
// for each j < per with base + j < n.
std::string body_for(RandomDistribution distribution, bool wide) {
  switch (distribution) {
    case RandomDistribution::uniform:
      if (!wide)
        return "    const float lo = (float)low, span = (float)(high - low);\n"
               "    for (int j = 0; j < 4; ++j)\n"
               "      if (base + j < n) out[base + j] = (T)(lo + span * ck_uniform_f32(w.v[j]));\n";
      return "    for (int j = 0; j < 2; ++j)\n"
             "      if (base + j < n)\n"
             "        out[base + j] = (T)(low + (high - low) * ck_uniform_f64(w.v[2 * j], w.v[2 * "
             "j + 1]));\n";
    case RandomDistribution::normal:
    case RandomDistribution::lognormal: {
      const bool log = distribution == RandomDistribution::lognormal;
      if (!wide) {
        std::string value = log ? "expf(m + s * z[j])" : "m + s * z[j]";
        return "    const float m = (float)mean, s = (float)stddev;\n"
               "    float z[4];\n"
               "    for (int pair = 0; pair < 2; ++pair) {\n"
               "      // Box-Muller: two uniforms give two independent normals.\n"
               "      const float u1 = ck_uniform_open_f32(w.v[2 * pair]);\n"
               "      const float u2 = ck_uniform_f32(w.v[2 * pair + 1]);\n"
               "      const float r = sqrtf(-2.0f * logf(u1));\n"
               "      const float theta = 6.28318530717958647692f * u2;\n"
               "      z[2 * pair] = r * cosf(theta);\n"
               "      z[2 * pair + 1] = r * sinf(theta);\n"
               "    }\n"
               "    for (int j = 0; j < 4; ++j)\n"
               "      if (base + j < n) out[base + j] = (T)(" +
               value + ");\n";
      }
      std::string value = log ? "exp(mean + stddev * z[j])" : "mean + stddev * z[j]";
      return "    const double u1 = ck_uniform_open_f64(w.v[0], w.v[1]);\n"
             "    const double u2 = ck_uniform_f64(w.v[2], w.v[3]);\n"
             "    const double r = sqrt(-2.0 * log(u1));\n"
             "    const double theta = 6.283185307179586476925286766559 * u2;\n"
             "    double z[2];\n"
             "    z[0] = r * cos(theta);\n"
             "    z[1] = r * sin(theta);\n"
             "    for (int j = 0; j < 2; ++j)\n"
             "      if (base + j < n) out[base + j] = (T)(" +
             value + ");\n";
    }
    case RandomDistribution::integers32:
      // Lemire's multiply-shift maps a 32-bit word onto [0, range) with a
      // bias below range / 2^32; no rejection loop keeps it counter-based.
      return "    for (int j = 0; j < 4; ++j)\n"
             "      if (base + j < n)\n"
             "        out[base + j] = (T)(low + (long long)(((unsigned long long)w.v[j] * range) "
             ">> 32));\n";
    case RandomDistribution::integers64:
      return "    for (int j = 0; j < 2; ++j)\n"
             "      if (base + j < n) {\n"
             "        const unsigned long long x = ((unsigned long long)w.v[2 * j] << 32) | w.v[2 "
             "* j + 1];\n"
             "        out[base + j] = (T)(low + (long long)ck_mulhi64(x, range));\n"
             "      }\n";
  }
  return {};
}

}  // namespace

RandomKernelSource random_kernel_source(RandomDistribution distribution,
                                        std::string_view out_ctype) {
  const bool is_integer = distribution == RandomDistribution::integers32 ||
                          distribution == RandomDistribution::integers64;
  const bool wide =
      is_integer ? distribution == RandomDistribution::integers64 : out_ctype != "float";
  RandomKernelSource result;
  result.elements_per_counter = wide ? 2 : 4;
  const char* dist_name = "";
  switch (distribution) {
    case RandomDistribution::uniform:
      dist_name = "uniform";
      break;
    case RandomDistribution::normal:
      dist_name = "normal";
      break;
    case RandomDistribution::lognormal:
      dist_name = "lognormal";
      break;
    case RandomDistribution::integers32:
      dist_name = "integers32";
      break;
    case RandomDistribution::integers64:
      dist_name = "integers64";
      break;
  }
  result.name = std::string("ck_random_") + dist_name + "_" + identifier_of(out_ctype);
  const char* params = is_integer ? "long long low, unsigned long long range"
                       : distribution == RandomDistribution::uniform ? "double low, double high"
                                                                     : "double mean, double stddev";
  std::string per = std::to_string(result.elements_per_counter);
  std::string& s = result.source;
  s += std::string(philox_device_source());
  s += "\ntypedef " + std::string(out_ctype) + " T;\n\n";
  s += "// Element e of this draw comes from counter offset + e / " + per + ", word(s) e % " + per +
       ":\n// a pure function of (seed, offset, e), the same on every device.\n";
  s += "extern \"C\" __global__ void " + result.name +
       "(T* out, long long n, unsigned long long seed,\n"
       "    unsigned long long offset, " +
       params + ") {\n";
  s += "  const long long counters = (n + " + per + " - 1) / " + per + ";\n";
  s += "  const long long stride = (long long)gridDim.x * blockDim.x;\n";
  s += "  for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < counters; c += "
       "stride) {\n";
  s += "    const ck_philox_words w = ck_philox4x32_10(offset + (unsigned long long)c, 0ull, "
       "seed);\n";
  s += "    const long long base = c * " + per + ";\n";
  s += body_for(distribution, wide);
  s += "  }\n}\n";
  return result;
}

}  // namespace cudakit::detail
