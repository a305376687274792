// Separate compilation: relocatable device code from several sources, PTX,
// cubins, fatbins, objects and libraries (libcudadevrt.a for device-side
// launches) linked by the driver's JIT linker into one cubin, loaded as a
// Module. Needs a GPU (the CUDA backend): the CPU backend raises NotSupported.
//
//   cudakit::CompileOptions rdc;
//   rdc.extra_flags = {"-rdc=true"};
//   cudakit::Linker linker(cudakit::Device::current());
//   linker.add_source(outer_source, rdc).add_source(inner_source, rdc);
//   linker.add_library("cudadevrt");
//   cudakit::Module module = linker.link_module();
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cudakit/compile_options.hpp"
#include "cudakit/compiled_code.hpp"
#include "cudakit/device.hpp"
#include "cudakit/link_input.hpp"
#include "cudakit/module.hpp"

namespace cudakit {

class Linker {
 public:
  // Links for `device` (its arch; the module is loaded there).
  explicit Linker(const Device& device, LinkOptions options = {});
  Linker();  // the current device

  // Bytes of `type`. ArgumentError when empty.
  Linker& add_data(std::span<const std::uint8_t> data, LinkInputType type,
                   std::string name = "data");
  // PTX (or other text) as a string.
  Linker& add_data(std::string_view data, LinkInputType type, std::string name = "data");
  // A file read by the linker. ArgumentError naming it when it is not a readable file.
  Linker& add_file(const std::filesystem::path& path, LinkInputType type);
  // Compiled code: PTX or cubin from compile_only (compile with -rdc=true
  // for code that calls or launches across inputs), or a fatbin.
  Linker& add_code(const CompiledCode& code, std::string name = "kernel.ptx");
  // Compiles `source` to relocatable PTX for the device (-rdc=true is added
  // when the options lack it) and adds it. The sources are kept, so the
  // module's kernels get their parameter types from them.
  Linker& add_source(std::string_view source, CompileOptions options = {}, std::string name = {});
  // libNAME.a of the CUDA toolkit ("cudadevrt"), found by find_cuda_library
  // in `directories` first.
  Linker& add_library(std::string_view name,
                      const std::vector<std::filesystem::path>& directories = {});

  // Links everything added into one cubin. LinkError-like CudaError with
  // the linker's error log on failure (an undefined symbol names it).
  CompiledCode link();
  // link(), then loads the cubin on the device.
  Module link_module();

  // The linker's info log from the last link (resources with verbose_log).
  const std::string& info_log() const noexcept { return info_log_; }
  const std::vector<LinkInput>& inputs() const noexcept { return inputs_; }
  const Device& device() const noexcept { return device_; }

 private:
  Device device_;
  LinkOptions options_;
  std::vector<LinkInput> inputs_;
  std::string sources_;  // of add_source, for parameter types
  std::string ptx_;      // PTX inputs, for parameter layouts
  std::string info_log_;
};

// The directories find_cuda_library searches, in order, before `first`:
// $CUDA_PATH, $CUDA_HOME, $CUDA_ROOT (each's lib64, lib and
// targets/<arch>-linux/lib), the nvcc on PATH's ../lib64 (and ../lib,
// ../targets/<arch>-linux/lib), /usr/local/cuda's, and the
// distribution's library directory (/usr/lib/x86_64-linux-gnu).
std::vector<std::filesystem::path> cuda_library_directories();
// The static library libNAME.a ("cudadevrt") of the CUDA toolkit: in
// `first` (tried alone when given) or cuda_library_directories().
// LibraryNotFound listing every path tried, with the fix, when none has it.
std::filesystem::path find_cuda_library(std::string_view name,
                                        const std::vector<std::filesystem::path>& first = {});

}  // namespace cudakit
