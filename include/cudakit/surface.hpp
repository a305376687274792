// Surface objects (cuSurfObjectCreate): what a kernel's cudaSurfaceObject_t
// reads and writes (surf2Dread/surf2Dwrite, x in bytes), over a CUDA array
// made with array_flags::surface_ldst.
#pragma once

#include <cstdint>

#include "cudakit/cuda_array.hpp"

namespace cudakit {

class SurfaceObject {
 public:
  SurfaceObject() = default;
  // ArgumentError for an empty array or one made without
  // array_flags::surface_ldst. The array must outlive the surface.
  explicit SurfaceObject(const CudaArray& array);
  SurfaceObject(SurfaceObject&& other) noexcept;
  SurfaceObject& operator=(SurfaceObject&& other) noexcept;
  SurfaceObject(const SurfaceObject&) = delete;
  SurfaceObject& operator=(const SurfaceObject&) = delete;
  ~SurfaceObject();

  // The cudaSurfaceObject_t a kernel takes (0 when empty).
  std::uint64_t handle() const noexcept { return handle_; }
  void reset() noexcept;

 private:
  Device* device_ = nullptr;
  std::uint64_t handle_ = 0;
};

}  // namespace cudakit
