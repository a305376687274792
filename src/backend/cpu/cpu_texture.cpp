#include "backend/cpu/cpu_texture.hpp"

#include <cstring>

#include "backend/cpu/cpu_array.hpp"
#include "backend/cpu/prelude/cudakit_cpu_abi.h"

namespace cudakit::detail::cpu {
namespace {

using cudakit_cpu::TextureRecord;

void fill_from_array(TextureRecord& r, const CpuArray& a) {
  r.data = reinterpret_cast<std::uintptr_t>(a.data);
  r.pitch = a.row_pitch;
  r.slice_pitch = a.slice_pitch;
  r.width = static_cast<unsigned>(a.descriptor.width);
  r.height = static_cast<unsigned>(a.rows);
  r.depth = static_cast<unsigned>(a.slices);
  r.layered = (a.descriptor.flags & array_flags::layered) ? 1u : 0u;
  r.format = static_cast<unsigned>(a.descriptor.format);
  r.channels = a.descriptor.channels;
  r.kind = 3;
  r.surface = (a.descriptor.flags & array_flags::surface_ldst) ? 1u : 0u;
  r.array_3d = a.descriptor.depth > 0 && !r.layered ? 1u : 0u;
}

std::uint64_t publish(const TextureRecord& r) {
  auto* record = new TextureRecord(r);
  record->magic = cudakit_cpu::kTextureMagic;
  return reinterpret_cast<std::uintptr_t>(record);
}

TextureRecord texture_record(const TextureRequest& request) {
  TextureRecord r;
  std::memset(&r, 0, sizeof r);
  const CudaArrayDescriptor& layout = request.layout;
  if (request.kind == TextureResource::Kind::array) {
    fill_from_array(r, *static_cast<const CpuArray*>(request.array));
  } else {
    r.data = request.device;
    r.format = static_cast<unsigned>(layout.format);
    r.channels = layout.channels;
    r.width = static_cast<unsigned>(layout.width);
    r.height =
        request.kind == TextureResource::Kind::pitch_2d ? static_cast<unsigned>(layout.height) : 1u;
    r.depth = 1;
    r.pitch = request.pitch;
    r.slice_pitch = request.pitch * r.height;
    r.kind = request.kind == TextureResource::Kind::linear ? 1u : 2u;
  }
  const TextureDescriptor& d = request.descriptor;
  for (int i = 0; i < 3; ++i) r.address_mode[i] = static_cast<unsigned>(d.address_mode[i]);
  r.filter = static_cast<unsigned>(d.filter);
  r.flags = (d.read_as_integer ? 1u : 0u) | (d.normalized_coordinates ? 2u : 0u);
  for (int i = 0; i < 4; ++i) r.border_color[i] = d.border_color[i];
  return r;
}

TextureRecord surface_record(NativeArray array) {
  TextureRecord r;
  std::memset(&r, 0, sizeof r);
  fill_from_array(r, *static_cast<const CpuArray*>(array));
  for (unsigned& mode : r.address_mode) mode = 1;
  r.flags = 1;  // surfaces read bytes as they are
  return r;
}

}  // namespace

std::uint64_t create_cpu_texture(const TextureRequest& request) {
  return publish(texture_record(request));
}

std::uint64_t create_cpu_surface(NativeArray array) { return publish(surface_record(array)); }

void write_cpu_reference(DevicePtr address, const TextureRequest* request, bool surface) {
  TextureRecord r;
  std::memset(&r, 0, sizeof r);
  if (request) {
    r = surface ? surface_record(request->array) : texture_record(*request);
    r.magic = cudakit_cpu::kTextureMagic;
  }
  std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)), &r, sizeof r);
}

void destroy_cpu_texture(std::uint64_t handle) noexcept {
  auto* record = reinterpret_cast<TextureRecord*>(static_cast<std::uintptr_t>(handle));
  if (!record) return;
  record->magic = 0;
  delete record;
}

}  // namespace cudakit::detail::cpu
