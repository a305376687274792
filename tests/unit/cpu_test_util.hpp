// Helpers for the CPU backend's tests: compile a source straight through the
// backend seam (detail::Backend), launch with typed arguments, and draw
// random inputs.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/backend_kind.hpp"
#include "cudakit/program.hpp"

namespace cudakit::test {

inline detail::Backend& cpu() { return detail::backend(BackendKind::cpu); }

// A module compiled and loaded on the CPU backend, unloaded at the end.
class CpuModuleHandle {
 public:
  explicit CpuModuleHandle(const std::string& source, CompileOptions options = {}) {
    options.arch = "cpu";
    detail::CompileRequest request;
    request.source = prepare_source(source, options);
    request.options = options;
    code_ = cpu().compile(request);
    module_ = cpu().load_module(0, code_);
  }
  ~CpuModuleHandle() { cpu().unload_module(module_); }
  CpuModuleHandle(const CpuModuleHandle&) = delete;
  CpuModuleHandle& operator=(const CpuModuleHandle&) = delete;

  detail::NativeModule native() const { return module_; }
  const CompiledCode& code() const { return code_; }
  detail::NativeKernel kernel(const std::string& name) const {
    return cpu().get_kernel(module_, name);
  }

  // Launches `name` with the given argument values and waits for it.
  template <class... Args>
  void run(const std::string& name, Dim3 grid, Dim3 block, Args... args) {
    launch_on(name, grid, block, 0, nullptr, args...);
    cpu().synchronize_stream(nullptr);
  }
  template <class... Args>
  void launch_on(const std::string& name, Dim3 grid, Dim3 block, unsigned shared,
                 detail::NativeStream stream, Args... args) {
    std::tuple<Args...> values(args...);
    void* pointers[sizeof...(Args) + 1] = {};
    std::apply(
        [&](auto&... v) {
          std::size_t i = 0;
          ((pointers[i++] = static_cast<void*>(&v)), ...);
        },
        values);
    cpu().launch(kernel(name), name.c_str(), grid, block, shared, stream, pointers);
  }

 private:
  CompiledCode code_;
  detail::NativeModule module_ = nullptr;
};

// Device memory on the CPU backend holding `n` values of T.
template <class T>
class CpuBuffer {
 public:
  explicit CpuBuffer(std::size_t n) : n_(n) {
    ptr_ = reinterpret_cast<T*>(cpu().allocate(0, n * sizeof(T)));
  }
  explicit CpuBuffer(const std::vector<T>& host) : CpuBuffer(host.size()) {
    cpu().copy(ptr_, host.data(), host.size() * sizeof(T), nullptr, false);
  }
  ~CpuBuffer() { cpu().deallocate(0, reinterpret_cast<detail::DevicePtr>(ptr_)); }
  CpuBuffer(const CpuBuffer&) = delete;
  CpuBuffer& operator=(const CpuBuffer&) = delete;
  T* get() const { return ptr_; }
  std::vector<T> to_host() const {
    std::vector<T> out(n_);
    cpu().copy(out.data(), ptr_, n_ * sizeof(T), nullptr, false);
    return out;
  }

 private:
  std::size_t n_;
  T* ptr_;
};

inline std::mt19937& rng() {
  static std::mt19937 engine(std::random_device{}());
  return engine;
}

// Random values, never all zero: floats in [-1, 1), integers in [lo, hi].
inline std::vector<float> random_floats(std::size_t n) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng());
  return v;
}
template <class T>
std::vector<T> random_ints(std::size_t n, T lo, T hi) {
  std::uniform_int_distribution<long long> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng()));
  return v;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace cudakit::test
