#include "backend/cpu/cpu_array.hpp"

#include <cstdint>
#include <cstring>
#include <memory>

#include "backend/cpu/device_memory.hpp"

namespace cudakit::detail::cpu {

CpuArray* create_cpu_array(const CudaArrayDescriptor& descriptor) {
  auto array = std::make_unique<CpuArray>();
  array->descriptor = descriptor;
  array->element_bytes = descriptor.element_bytes();
  array->rows = descriptor.height ? descriptor.height : 1;
  array->slices = descriptor.depth ? descriptor.depth : 1;
  array->row_pitch = descriptor.width * array->element_bytes;
  array->slice_pitch = array->row_pitch * array->rows;
  const std::size_t bytes = array->slice_pitch * array->slices;
  array->data = DeviceMemory::instance().allocate(bytes, false, "creating a CUDA array");
  std::memset(array->data, 0, bytes);
  return array.release();
}

void destroy_cpu_array(CpuArray* array) noexcept {
  if (!array) return;
  DeviceMemory::instance().free(array->data);
  delete array;
}

char* box_row(const BoxCopyEnd& end, std::size_t y, std::size_t z) {
  const std::size_t row = end.y + y, slice = end.z + z;
  switch (end.kind) {
    case CopyEnd::Kind::array: {
      const auto* array = static_cast<const CpuArray*>(end.array);
      return static_cast<char*>(array->data) + slice * array->slice_pitch + row * array->row_pitch +
             end.x_bytes;
    }
    case CopyEnd::Kind::device:
      return reinterpret_cast<char*>(static_cast<std::uintptr_t>(end.device)) +
             (slice * end.height + row) * end.pitch + end.x_bytes;
    case CopyEnd::Kind::host:
      break;
  }
  return static_cast<char*>(end.host) + (slice * end.height + row) * end.pitch + end.x_bytes;
}

std::size_t box_bytes(const BoxCopy& copy, const BoxCopyEnd& end) {
  return static_cast<std::size_t>(box_row(end, copy.height - 1, copy.depth - 1) -
                                  box_row(end, 0, 0)) +
         copy.width_bytes;
}

void copy_box(const BoxCopy& copy) {
  for (std::size_t z = 0; z < copy.depth; ++z)
    for (std::size_t y = 0; y < copy.height; ++y)
      std::memmove(box_row(copy.dst, y, z), box_row(copy.src, y, z), copy.width_bytes);
}

}  // namespace cudakit::detail::cpu
