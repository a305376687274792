// The CPU backend's CUDA arrays, texture and surface objects: records
// over device memory (cpu_array.hpp, cpu_texture.hpp), destroyed only after
// the work queued before on the streams.
#include "backend/cpu/cpu_backend_impl.hpp"

namespace cudakit::detail::cpu {

NativeArray CpuBackend::create_array(int ordinal, const CudaArrayDescriptor& descriptor) {
  device(ordinal, "creating a CUDA array");
  mark_used(ordinal);
  return create_cpu_array(descriptor);
}

void CpuBackend::destroy_array(NativeArray array) noexcept {
  if (backend_alive.load()) wait_all(-1, WaitMode::patient);  // queued copies may use it
  destroy_cpu_array(static_cast<CpuArray*>(array));
}

std::uint64_t CpuBackend::create_texture_object(int ordinal, const TextureRequest& request) {
  device(ordinal, "creating a texture object");
  return create_cpu_texture(request);
}

void CpuBackend::destroy_texture_object(std::uint64_t handle) noexcept {
  if (backend_alive.load()) wait_all(-1, WaitMode::patient);
  destroy_cpu_texture(handle);
}

std::uint64_t CpuBackend::create_surface_object(int ordinal, NativeArray array,
                                                const CudaArrayDescriptor&) {
  device(ordinal, "creating a surface object");
  return create_cpu_surface(array);
}

void CpuBackend::destroy_surface_object(std::uint64_t handle) noexcept {
  destroy_texture_object(handle);
}

void CpuBackend::bind_texture_reference(DevicePtr record, const TextureRequest* request,
                                        bool surface) {
  if (record) write_cpu_reference(record, request, surface);
}

}  // namespace cudakit::detail::cpu
