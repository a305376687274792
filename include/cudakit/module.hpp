// Loaded code on one device, and the way to its kernels and globals. A Module
// is a shared handle; kernels keep their module alive.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cudakit/compiled_code.hpp"
#include "cudakit/device.hpp"

namespace cudakit {

class Kernel;
class TextureReference;
class SurfaceReference;
namespace detail {
struct ModuleAccess;  // the core's own constructors (src/core/module_state.hpp)
}

// A __device__ or __constant__ variable of a module.
struct GlobalVariable {
  Device device;
  std::uint64_t address = 0;
  std::size_t bytes = 0;
  // ArgumentError when n exceeds the variable's size.
  void copy_from_host(const void* src, std::size_t n) const;
  void copy_to_host(void* dst, std::size_t n) const;
};

class Module {
 public:
  // Loads compiled code (cubin / PTX / fatbin / host object) on `device`.
  static Module load(const CompiledCode& code, const Device& device);
  static Module load(const CompiledCode& code);
  // Loads code compiled from `source` (e.g. taken from a compile cache), kept
  // for source() and for reading the kernels' parameter lists.
  static Module load(const CompiledCode& code, const Device& device, std::string source);
  // From a file holding a cubin, fatbin, PTX or (CPU backend) shared object,
  // told apart by content (the extension only when the content is none of
  // them); ArgumentError naming the file and what it holds otherwise.
  // NoKernelImage with an explanation when it has no code for the device's arch.
  static Module load_file(const std::filesystem::path& path, const Device& device);
  static Module load_file(const std::filesystem::path& path);
  // From bytes in memory (a cubin, fatbin, PTX or shared object, told apart
  // by content); ArgumentError saying what they hold otherwise.
  static Module load_image(std::span<const std::uint8_t> image, const Device& device);

  const Device& device() const;
  const CompiledCode& code() const;
  // The compiler's warnings (empty when clean or loaded from a file).
  const std::string& log() const;
  // The source it was compiled from (after extern "C" wrapping); empty if loaded from code.
  const std::string& source() const;

  // By extern "C" name, by name expression ("vec_add<float>"), by mangled
  // symbol, or by the plain name of a C++-linkage kernel when that is
  // unambiguous. ArgumentError listing the kernels that exist otherwise.
  Kernel kernel(std::string_view name) const;
  // Names of every kernel (demangled where they have C++ linkage).
  std::vector<std::string> kernel_names() const;
  // ArgumentError when there is no such variable.
  GlobalVariable get_global(std::string_view name) const;
  // The source's `texture<...> name;` / `surface<void, ...> name;`
  // (include/cudakit/texture_reference.hpp). NotSupported on a GPU: CUDA 12
  // removed references; ArgumentError when the module declares none of that
  // name.
  TextureReference texture_reference(std::string_view name) const;
  SurfaceReference surface_reference(std::string_view name) const;

  void* native() const;

  struct State;  // what the handles share; opaque outside the library

 private:
  friend class Kernel;
  friend struct detail::ModuleAccess;
  explicit Module(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace cudakit
