#include "cudakit/pinned_buffer.hpp"

#include "backend/backend.hpp"
#include "cudakit/backend_kind.hpp"

namespace cudakit::detail {

// Pinned memory belongs to the default backend: page-locked through the
// driver on a GPU machine, plain aligned memory on the CPU backend.
void* allocate_pinned_bytes(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  return backend(default_backend_kind()).allocate_pinned(bytes);
}

void free_pinned_bytes(void* ptr) noexcept {
  if (!ptr) return;
  try {
    backend(default_backend_kind()).deallocate_pinned(ptr);
  } catch (...) {
    // The backend was created when the memory was allocated; this cannot fail.
  }
}

}  // namespace cudakit::detail
