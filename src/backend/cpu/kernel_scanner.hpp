// Reads a CUDA C source the way the CPU backend needs before compiling it:
// which __global__ functions it defines (and whether they synchronize, so
// those that do not can skip fibers), which __device__ / __constant__
// variables it defines, which `extern __shared__` arrays it declares, and
// which constructs it uses that the CPU cannot run. A small tokenizer that
// skips comments, strings, preprocessor lines and the regions an #if is
// known to drop; not a C++ parser.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudakit::detail::cpu {

struct ScannedKernel {
  std::string name;       // as written: "vec_add"
  std::string qualified;  // with enclosing namespaces: "ns::vec_add"
  bool is_template = false;
  bool uses_barrier = false;  // __syncthreads / warp operations, directly or through calls
  int line = 0;
  // The #if conditions around the definition that the scan cannot tell
  // (preprocessor text, empty when none): code that names the kernel after
  // the source goes under the same condition.
  std::string condition;
};

struct ScannedGlobal {
  std::string name;
  std::string qualified;
  int line = 0;
  std::string condition;  // as ScannedKernel::condition
};

struct DynamicSharedDecl {
  std::size_t begin = 0;  // byte range of the declaration, `extern` to `;`
  std::size_t end = 0;
  std::string type;  // element type, e.g. "float"
  std::string name;
  bool namespace_scope = false;
};

// `callee<<<config>>>(args)` in the source: a kernel launched from device
// code (dynamic parallelism). Byte offsets into the source.
struct DeviceLaunch {
  std::size_t callee_begin = 0;  // first byte of the callee expression
  std::size_t open = 0;          // the `<<<`
  std::size_t close = 0;         // the `>>>`
  std::string callee;            // the kernel's name as written, without template arguments
  int line = 0;
};

struct UnsupportedUse {
  std::string construct;  // "inline assembly (asm)"
  std::string token;      // what was found
  int line = 0;
};

struct ScanResult {
  std::vector<ScannedKernel> kernels;
  // A second (or later) definition of a non-template kernel name: an
  // overload. Qualified name and line.
  std::vector<std::pair<std::string, int>> repeated_kernels;
  std::vector<ScannedGlobal> globals;
  std::vector<DynamicSharedDecl> dynamic_shared;
  std::vector<UnsupportedUse> unsupported;
  std::vector<DeviceLaunch> device_launches;
  bool any_barrier = false;
  // Whether a function of this name (defined in the source) synchronizes.
  bool function_uses_barrier(std::string_view name) const;
  std::vector<std::pair<std::string, bool>> function_barriers;
};

// `defines`: the compile options' -D NAME[=VALUE], for the #if conditions
// (preprocessor_conditions.hpp): what the preprocessor is known to drop is
// not scanned.
ScanResult scan_kernel_source(std::string_view source,
                              const std::vector<std::pair<std::string, std::string>>& defines = {});

// The source with each `callee<<<config>>>(args)` turned into
// `::cudakit_cpu::device_launch(callee, config)(args)` (the prelude runs the
// child grid there and then); every line keeps its number.
std::string rewrite_device_launches(std::string_view source, const ScanResult& scan);

// The source with each `extern __shared__ T name[];` replaced by a pointer
// to the block's dynamic shared memory; line numbers are unchanged.
std::string rewrite_dynamic_shared(std::string_view source, const ScanResult& scan);

}  // namespace cudakit::detail::cpu
