// The complete program of the C++ fragments in docs/guide/errors.md: each fragment,
// verbatim between "// ---" lines, in a function named after its section, with
// what it needs before it and checks of its result after it. Runs as the ctest
// test example.docs_errors (on a GPU where there is one, else on the CPU backend).
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <iostream>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

int errors() {
  ck::Kernel kernel = ck::compile(R"(
    __global__ void saxpy(const float* x, float* y, float alpha, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] += alpha * x[i];
    })")
                          .kernel("saxpy");
  const int n = 1000;
  ck::DeviceBuffer<float> x(n), y(n);

  // --- docs/guide/errors.md, "Errors" ---
  // clang-format off
  try {
    kernel.launch(ck::grid_for(n), x, y, 2.0, n);
  } catch (const ck::ArgumentError& e) {
    std::cerr << e.what() << "\n";   // parameter 2 'alpha' (float): passed a double (8 bytes) ...
  } catch (const ck::Error& e) {
    std::cerr << e.context() << " / " << e.message() << " / " << e.hint() << "\n";
  }
  // clang-format on
  // ---

  return 0;
}

}  // namespace

int main() { return run_doc_sections({{"errors", &errors}}); }
