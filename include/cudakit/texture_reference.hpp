// Texture and surface references (CUDA 11's `texture<float, 2> tex;` and
// `surface<void, cudaSurfaceType2D> surf;` in a module's source), bound by
// name: Module::texture_reference / surface_reference. CUDA 12 removed them,
// so NVRTC cannot compile them for a GPU and the CUDA backend refuses them
// (NotSupported); the CPU backend compiles kernels with the host compiler
// and has them. Each set_* call binds the reference again at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudakit/cuda_array.hpp"
#include "cudakit/module.hpp"
#include "cudakit/texture.hpp"

namespace cudakit {

// The driver's CU_TRSF_* flags of set_flags.
namespace texture_flags {
inline constexpr unsigned read_as_integer = 0x01;
inline constexpr unsigned normalized_coordinates = 0x02;
}  // namespace texture_flags

class TextureReference {
 public:
  // The memory it reads: the array (which must outlive the binding), linear
  // device memory (tex1Dfetch) or pitch-2-D memory; ArgumentError as
  // TextureObject rules.
  void set_array(const CudaArray& array);
  void set_address(std::uint64_t device, std::size_t bytes);
  void set_address_2d(std::uint64_t device, ArrayFormat format, unsigned channels,
                      std::size_t width, std::size_t height, std::size_t pitch);
  // The element format of linear / pitch memory (an array has its own).
  void set_format(ArrayFormat format, unsigned channels);
  void set_address_mode(int dimension, AddressMode mode);  // dimension 0, 1 or 2
  void set_filter_mode(FilterMode mode);
  void set_flags(unsigned flags);  // texture_flags
  unsigned flags() const noexcept;
  const TextureDescriptor& descriptor() const noexcept { return descriptor_; }
  const TextureResource& resource() const noexcept { return resource_; }

 private:
  friend class Module;
  TextureReference(GlobalVariable global, std::string name);
  void bind();

  GlobalVariable global_;
  std::string name_;
  TextureResource resource_;
  bool bound_ = false;
  TextureDescriptor descriptor_{{AddressMode::clamp, AddressMode::clamp, AddressMode::clamp}};
};

class SurfaceReference {
 public:
  // ArgumentError for an array made without array_flags::surface_ldst.
  void set_array(const CudaArray& array);

 private:
  friend class Module;
  SurfaceReference(GlobalVariable global, std::string name);

  GlobalVariable global_;
  std::string name_;
};

}  // namespace cudakit
