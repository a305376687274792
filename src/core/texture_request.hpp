// The check of a texture's resource and descriptor that TextureObject and
// TextureReference share (src/core/texture_object.cpp).
#pragma once

#include <string>

#include "backend/backend.hpp"
#include "cudakit/texture.hpp"

namespace cudakit::detail {

// ArgumentError for an empty array or one made without surface_ldst.
void check_surface_array(const CudaArray& array, const std::string& doing);

// ArgumentError for what cuTexObjectCreate refuses (see TextureObject).
TextureRequest texture_request(const Device& device, const TextureResource& resource,
                               const TextureDescriptor& descriptor);

}  // namespace cudakit::detail
