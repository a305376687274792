// The CUDA C of a function that reads a value another block wrote, past L1
// (not coherent between multiprocessors), for any value type: the single-
// launch reductions and scans read other blocks' partials with it.
#pragma once

#include <string>

namespace cudakit::detail {

// `type fn(const type* p)`: on a GPU 4-byte words through __ldcg into a union
// (or bytes through a volatile pointer), so no object is written through a
// pointer of another type, which optimising compilers assume never happens
// (GCC did: the CPU backend read stale partials of 24-byte accumulators).
// On the CPU backend, whose caches are coherent, a plain load.
inline std::string coherent_load_source(const std::string& fn, const std::string& type) {
  return "// Reads a value another block wrote, past L1 (not coherent between\n"
         "// multiprocessors).\n"
         "__device__ __forceinline__ " +
         type + " " + fn + "(const " + type + "* p) {\n" +
         "#if defined(__CUDA_ARCH__) && !defined(__CUDAKIT_CPU__)\n"
         "  if (sizeof(" +
         type + ") % 4 == 0) {\n" +
         // (sizeof + 3) / 4: never a zero-length array, which NVRTC refuses
         // for 1- and 2-byte types even in this branch they never take.
         "    union { " + type + " v; unsigned int w[(sizeof(" + type + ") + 3) / 4]; } u;\n" +
         "    const unsigned int* src = (const unsigned int*)p;\n"
         "    for (int k = 0; k < (int)(sizeof(" +
         type + ") / 4); ++k) u.w[k] = __ldcg(src + k);\n" +
         "    return u.v;\n"
         "  }\n"
         "  " +
         type + " v;\n" +
         "  const volatile unsigned char* src = (const volatile unsigned char*)p;\n" +
         "  unsigned char* dst = (unsigned char*)&v;\n" + "  for (int k = 0; k < (int)sizeof(" +
         type + "); ++k) dst[k] = src[k];\n" +
         "  return v;\n"
         "#else\n"
         "  return *p;\n"
         "#endif\n"
         "}\n";
}

}  // namespace cudakit::detail
