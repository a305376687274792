// The arguments of one launch from Python, collected in C++ and launched
// through the core's checked launch. The interface is that of
// cudakit::KernelArgs (pointer / scalar / literals / aggregate / host);
// Python literals (int, float) take the type of the parameter they are
// passed for where the value is kept exactly, and pointers that carry an
// element type (In/Out arrays, __cuda_array_interface__) are checked against
// the parameter's pointee type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudakit/kernel.hpp"
#include "driver_types.hpp"

// The core's run-time argument list: literals are given their parameter's
// type by the core's launch.
#include "cudakit/kernel_args.hpp"

namespace cudakit::python {

class LaunchArgs {
 public:
  void clear();
  std::size_t size() const noexcept { return entries_.size(); }
  // In/Out/InOut among the arguments: the launch then copies and waits.
  bool has_host() const noexcept { return has_host_; }

  LaunchArgs& pointer(std::uint64_t device_address, const char* what, ElementType element = {});
  LaunchArgs& scalar(ScalarType type, const void* bytes, std::size_t size);
  LaunchArgs& integer_literal(long long value);
  LaunchArgs& unsigned_literal(unsigned long long value);
  LaunchArgs& float_literal(double value);
  LaunchArgs& aggregate(const void* bytes, std::size_t size, const char* type_name);
  LaunchArgs& host(void* data, std::size_t bytes, TransferDirection direction, ElementType element,
                   const char* what);
  // Prepared calls: an int for a pointer parameter is a device address.
  void set_ints_are_addresses(bool allowed) noexcept { ints_are_addresses_ = allowed; }

  // Checked launch (ArgumentError / LaunchConfigError before anything runs).
  void launch(const Kernel& kernel, const LaunchConfig& config);
  // The same, timed with events around it; milliseconds.
  float launch_timed(const Kernel& kernel, const LaunchConfig& config);

 private:
  enum class Literal : std::uint8_t { none, signed_int, unsigned_int, floating };
  struct Entry {
    ArgInfo info;
    std::uint64_t slot = 0;
    Literal literal = Literal::none;
    long long signed_value = 0;
    unsigned long long unsigned_value = 0;
    double float_value = 0;
    int aggregate_index = -1;
    ElementType element;
  };
  Entry& add();
  void resolve(const Kernel& kernel, const LaunchConfig& config);
  void resolve_literal(const Kernel& kernel, const LaunchConfig& config, std::size_t index);
  void check_pointee(const Kernel& kernel, const LaunchConfig& config, std::size_t index) const;

  void fill(KernelArgs& args) const;
  KernelArgs kernel_args_;
  std::vector<Entry> entries_;
  std::vector<std::string> aggregates_;
  std::vector<ArgInfo> infos_;
  std::vector<const void*> values_;
  std::vector<std::uint64_t> scratch_;
  bool has_host_ = false;
  bool ints_are_addresses_ = false;
};

// "launching kernel NAME (grid ..., block ...)": the context of launch errors.
std::string launch_context(const Kernel& kernel, const LaunchConfig& config);

}  // namespace cudakit::python
