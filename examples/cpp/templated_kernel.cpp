// Templated kernels: name expressions instantiate vec_add<float> and
// vec_add<double> in one compile and find them again by those names. Then the
// PyCUDA tutorial's pattern, a C++-linkage (no_extern_c) kernel asked for by
// its plain name, which fails in PyCUDA and works here.
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <random>
#include <string>
#include <vector>

#include "workloads/vector_add.hpp"

namespace ck = cudakit;

template <class T>
bool run_and_check(const ck::Kernel& kernel, std::size_t n, const ck::Device& device) {
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<T> dist(T(-1), T(1));
  std::vector<T> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = dist(gen), b[i] = dist(gen);
  auto da = ck::to_device(a), db = ck::to_device(b);
  ck::DeviceBuffer<T> dc(device, n);
  kernel.launch(ck::grid_for(n, 128), da, db, dc, static_cast<int>(n));
  std::vector<T> c = dc.to_host();
  for (std::size_t i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) return false;
  std::printf("%s (symbol %s): ok, %zu elements\n", kernel.name().c_str(), kernel.symbol().c_str(),
              n);
  return true;
}

int main() try {
  ck::Device device = ck::Device::current();
  std::printf("templated_kernel on %s\n", device.describe().c_str());

  ck::CompileOptions options;
  options.no_extern_c = true;  // templates need C++ linkage
  options.name_expressions = {"vec_add<float>", "vec_add<double>"};
  ck::Module module = ck::compile(ck::workloads::templated_vec_add_source, options, device);
  bool ok = run_and_check<float>(module.kernel("vec_add<float>"), 10'007, device);
  ok = run_and_check<double>(module.kernel("vec_add<double>"), 10'007, device) && ok;

  // The tutorial generates the source per type and compiles with
  // no_extern_c=True; the kernel's symbol is then mangled, yet the plain name
  // finds it because it is unambiguous.
  std::string type = "double";
  std::string source = "__global__ void vec_add(const " + type + " *a, const " + type + " *b, " +
                       type +
                       " *c, int n) {\n"
                       "    int idx = threadIdx.x + blockIdx.x * blockDim.x;\n"
                       "    if (idx < n) c[idx] = a[idx] + b[idx];\n"
                       "}\n";
  ck::CompileOptions cxx_linkage;
  cxx_linkage.no_extern_c = true;
  ck::Module plain = ck::compile(source, cxx_linkage, device);
  ok = run_and_check<double>(plain.kernel("vec_add"), 5'003, device) && ok;
  return ok ? 0 : 1;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
