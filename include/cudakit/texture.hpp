// Texture objects (cuTexObjectCreate): what a kernel's cudaTextureObject_t
// samples, over a CUDA array, linear device memory or pitch-2-D device
// memory, with the driver's address modes, filtering and read modes. On the
// CPU backend the handle is the address of a record its kernels read
// (backend/cpu/prelude/cudakit_cpu_texture.h samples as the GPU does).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "cudakit/cuda_array.hpp"
#include "cudakit/device.hpp"

namespace cudakit {

// The driver's values (CUaddress_mode, CUfilter_mode).
enum class AddressMode : unsigned { wrap = 0, clamp = 1, mirror = 2, border = 3 };
enum class FilterMode : unsigned { point = 0, linear = 1 };

struct TextureDescriptor {
  // Per dimension (x, y, z). wrap and mirror need normalized coordinates:
  // the GPU clamps otherwise, and so does the CPU backend.
  std::array<AddressMode, 3> address_mode{AddressMode::clamp, AddressMode::clamp,
                                          AddressMode::clamp};
  FilterMode filter = FilterMode::point;
  // 8/16-bit integers read as integers, not as normalized floats
  // (cudaReadModeElementType); linear filtering needs floats.
  bool read_as_integer = false;
  bool normalized_coordinates = false;  // coordinates in [0, 1) span the texture
  std::array<float, 4> border_color{0.0f, 0.0f, 0.0f, 0.0f};
};

// What a texture samples.
struct TextureResource {
  enum class Kind { array, linear, pitch_2d };
  Kind kind = Kind::linear;
  const CudaArray* array = nullptr;           // kind == array: must outlive the texture
  std::uint64_t device = 0;                   // linear / pitch_2d: the address (256-byte aligned)
  ArrayFormat format = ArrayFormat::float32;  // linear / pitch_2d
  unsigned channels = 1;                      // linear / pitch_2d: 1, 2 or 4
  std::size_t bytes = 0;                      // linear: the memory's size
  std::size_t width = 0, height = 0;          // pitch_2d: elements and rows
  std::size_t pitch = 0;                      // pitch_2d: bytes per row

  static TextureResource of_array(const CudaArray& array);
  static TextureResource linear(std::uint64_t device, ArrayFormat format, unsigned channels,
                                std::size_t bytes);
  static TextureResource pitch_2d(std::uint64_t device, ArrayFormat format, unsigned channels,
                                  std::size_t width, std::size_t height, std::size_t pitch);
};

class TextureObject {
 public:
  TextureObject() = default;
  // ArgumentError for: an empty array, channels other than 1/2/4, a
  // misaligned address, a pitch that does not hold a row or is not a
  // multiple of the device's pitch alignment, linear filtering of values
  // read as integers (32-bit integer formats, or read_as_integer).
  TextureObject(const Device& device, const TextureResource& resource,
                const TextureDescriptor& descriptor = {});
  TextureObject(TextureObject&& other) noexcept;
  TextureObject& operator=(TextureObject&& other) noexcept;
  TextureObject(const TextureObject&) = delete;
  TextureObject& operator=(const TextureObject&) = delete;
  ~TextureObject();

  // The cudaTextureObject_t a kernel takes (0 when empty).
  std::uint64_t handle() const noexcept { return handle_; }
  const TextureDescriptor& descriptor() const noexcept { return descriptor_; }
  void reset() noexcept;

 private:
  Device* device_ = nullptr;
  std::uint64_t handle_ = 0;
  TextureDescriptor descriptor_;
};

}  // namespace cudakit
