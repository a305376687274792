// The same operations as peer_capi.cpp, as a Python extension module built
// with nanobind: the call costs what a cudakit Python binding's call costs
// (~0.1 us), not what a ctypes call costs (~1-2 us, argument conversion
// included). peer_compare.py uses it when it was built.
#include <nanobind/nanobind.h>

#include <cstdint>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/cudakit.hpp"

namespace nb = nanobind;
namespace ck = cudakit;

namespace {

ck::Array view(std::uint64_t address, std::int64_t n, const ck::Device& device) {
  return ck::from_pointer(address, ck::Shape{n}, {}, ck::DType::float32, device);
}

// The device the arrays live on: the current one when the module is first used.
const ck::Device& device() {
  static const ck::Device d = ck::Device::current();
  return d;
}

}  // namespace

NB_MODULE(cudakit_peers_nb, m) {
  m.doc() = "cudakit array operations on device addresses, for the peer benchmark";
  // out = a + b (C++ exceptions reach Python as RuntimeError with the message).
  m.def("add", [](std::uint64_t a, std::uint64_t b, std::uint64_t out, std::int64_t n) {
    const ck::Device& d = device();
    view(out, n, d).assign(view(a, n, d) + view(b, n, d));
  });
  m.def("mul_add", [](std::uint64_t a, std::uint64_t b, std::uint64_t x, std::uint64_t y,
                      std::uint64_t out, std::int64_t n) {
    const ck::Device& d = device();
    view(out, n, d).assign(view(a, n, d) * view(b, n, d) + view(x, n, d) * view(y, n, d));
  });
  m.def("sum", [](std::uint64_t a, std::int64_t n) {
    return ck::sum(view(a, n, device())).item().as_double();
  });
  m.def("synchronize", [] { device().synchronize(); });
  // Python frees the arrays' memory while it finalizes, before C++'s exit
  // handlers run: finish queued work first.
  nb::module_::import_("atexit").attr("register")(nb::cpp_function([] { device().synchronize(); }));
}
