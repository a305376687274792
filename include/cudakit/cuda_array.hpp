// CUDA arrays: device memory in the layout textures sample and surfaces read
// and write (cuArray3DCreate), of 1, 2 or 3 dimensions or layers of 1-D/2-D
// slices, with 1, 2 or 4 channels of one element format. Filled and read
// with copy_3d (cuMemcpy3D's box copies between host memory, device memory
// and arrays, which also serve plain pitched copies of device memory, as
// PyCUDA's Memcpy2D/Memcpy3D). On the CPU backend an array is host memory,
// dense, x fastest, then y, then z (or the layer).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudakit/device.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {

// The element formats, with the driver's values (CUarray_format).
enum class ArrayFormat : unsigned {
  uint8 = 0x01,
  uint16 = 0x02,
  uint32 = 0x03,
  int8 = 0x08,
  int16 = 0x09,
  int32 = 0x0a,
  half = 0x10,
  float32 = 0x20,
};

// Bytes of one channel of `format`; ArgumentError for a value not listed.
std::size_t array_format_bytes(ArrayFormat format);

// The driver's CUDA_ARRAY3D_* flags (PyCUDA's array3d_flags).
namespace array_flags {
inline constexpr unsigned layered = 0x01;         // depth counts layers of 1-D/2-D slices
inline constexpr unsigned surface_ldst = 0x02;    // surfaces may read and write it
inline constexpr unsigned cubemap = 0x04;         // six square layers (a cube map)
inline constexpr unsigned texture_gather = 0x08;  // tex2Dgather may read it
inline constexpr unsigned all = layered | surface_ldst | cubemap | texture_gather;
}  // namespace array_flags

struct CudaArrayDescriptor {
  std::size_t width = 0;   // elements per row, >= 1
  std::size_t height = 0;  // rows; 0 for a 1-D array
  std::size_t depth = 0;   // slices (the layer count when layered); 0 for 1-D/2-D
  ArrayFormat format = ArrayFormat::float32;
  unsigned channels = 1;  // 1, 2 or 4
  unsigned flags = 0;     // array_flags

  std::size_t element_bytes() const { return array_format_bytes(format) * channels; }
  int dimensions() const { return depth ? 3 : height ? 2 : 1; }
};

class CudaArray {
 public:
  CudaArray() = default;
  // ArgumentError for a zero width, a depth without a height (unless layered),
  // channels other than 1/2/4, unknown flags, sizes past the device's
  // texture limits; OutOfMemory when the device is full.
  CudaArray(const Device& device, const CudaArrayDescriptor& descriptor);
  CudaArray(CudaArray&& other) noexcept;
  CudaArray& operator=(CudaArray&& other) noexcept;
  CudaArray(const CudaArray&) = delete;
  CudaArray& operator=(const CudaArray&) = delete;
  ~CudaArray();

  const CudaArrayDescriptor& descriptor() const noexcept { return descriptor_; }
  const Device& device() const;
  bool empty() const noexcept { return native_ == nullptr; }
  // CUarray, or the CPU backend's array record (backend/cpu/cpu_array.hpp).
  void* native() const noexcept { return native_; }
  // Bytes of the whole array's elements (width * max(height,1) * max(depth,1) * element).
  std::size_t bytes() const noexcept;

  // The whole array from / to dense host memory, x fastest (synchronous).
  void copy_from_host(const void* src);
  void copy_to_host(void* dst) const;
  // Gives the memory back now.
  void reset() noexcept;

 private:
  Device* device_ = nullptr;
  void* native_ = nullptr;
  CudaArrayDescriptor descriptor_;
};

// One end of a box copy: host memory, device memory or a CUDA array, with
// the box's origin (x in bytes; y and z in rows and slices) and, for host and
// device memory, the layout (pitch: bytes from one row to the next; height:
// rows from one slice to the next).
struct CopyEnd {
  enum class Kind { host, device, array };
  Kind kind = Kind::host;
  void* host = nullptr;              // kind == host (read-only when a source)
  std::uint64_t device = 0;          // kind == device
  const CudaArray* array = nullptr;  // kind == array
  std::size_t x_bytes = 0, y = 0, z = 0;
  std::size_t pitch = 0;   // host/device: bytes per row (0: x_bytes + width_bytes)
  std::size_t height = 0;  // host/device: rows per slice (0: y + the box's height)
  // kind == device: the device the memory belongs to (-1: the current one).
  int device_ordinal = -1;
  // kind == host / device: bytes from `host` / `device` that belong to the
  // memory, when the caller knows (0: unknown; device memory is then checked
  // against its allocation where the backend can tell).
  std::size_t bytes = 0;
};

// A box of width_bytes x height x depth (cuMemcpy3D / cuMemcpy3DPeer). Every
// row of the box must lie inside both ends: ArgumentError otherwise, naming
// the end and the overrun. Device memory and arrays of two devices copy as
// cuMemcpy3DPeer.
struct Copy3D {
  CopyEnd src, dst;
  std::size_t width_bytes = 0, height = 1, depth = 1;
};

void copy_3d(const Copy3D& copy);                              // returns when done
void copy_3d_async(const Copy3D& copy, const Stream& stream);  // ordered on stream

}  // namespace cudakit
