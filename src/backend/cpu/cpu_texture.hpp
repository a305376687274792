// Texture and surface objects on the CPU backend: a TextureRecord
// (prelude/cudakit_cpu_abi.h) on the heap, whose address is the handle the
// kernel's cudaTextureObject_t / cudaSurfaceObject_t carries.
#pragma once

#include <cstdint>

#include "backend/backend.hpp"

namespace cudakit::detail::cpu {

std::uint64_t create_cpu_texture(const TextureRequest& request);
std::uint64_t create_cpu_surface(NativeArray array);
// Writes a module's texture<>/surface<> reference (a record at `address`):
// bound to `request`, or zeros (unbound) when it is null.
void write_cpu_reference(DevicePtr address, const TextureRequest* request, bool surface);
// Clears the record's magic first, so a kernel that still uses the handle
// faults with a message instead of reading freed memory's contents.
void destroy_cpu_texture(std::uint64_t handle) noexcept;

}  // namespace cudakit::detail::cpu
