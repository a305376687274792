// The complete program of the C++ fragments in docs/guide/compile-cache.md: each fragment,
// verbatim between "// ---" lines, in a function named after its section, with
// what it needs before it and checks of its result after it. Runs as the ctest
// test example.docs_compile_cache (on a GPU where there is one, else on the CPU backend).
#include <cstdio>
#include <cudakit/cudakit.hpp>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

int the_compile_cache() {
  const std::string source = R"(
    __global__ void twice(float* x, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] *= 2.0f;
    })";

  // --- docs/guide/compile-cache.md, "The compile cache" ---
  // clang-format off

  namespace ck = cudakit;

  auto mod = ck::compile(source);               // cached
  ck::CompileOptions fresh;
  fresh.use_cache = false;                      // this compile only: always run the compiler
  auto again = ck::compile(source, fresh);

  auto& cache = ck::CompileCache::global();
  auto s = cache.stats();                       // memory_hits, disk_hits, misses, corrupt_entries, evictions
  cache.clear();                                // both levels
  // clang-format on
  // ---

  return 0;
}

}  // namespace

int main() { return run_doc_sections({{"the_compile_cache", &the_compile_cache}}); }
