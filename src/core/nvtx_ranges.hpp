// NVTX ranges in cudakit's words (a launch named by its kernel or array
// expression, "compile scale", "copy 4.0 MB"), for tools such as Nsight
// Systems. Built on the toolkit's header-only NVTX3, which loads the tool's
// injection library with dlopen only when the tool asks for it
// (NVTX_INJECTION64_PATH): nothing is linked. Off in builds without the NVTX
// headers (CUDAKIT_NVTX=OFF), when no tool is attached, and with
// CUDAKIT_NVTX=0 in the environment; then nothing here is called.
#pragma once

#include <memory>

#include "backend/backend.hpp"

namespace cudakit::detail {

// Decided once per process: built with NVTX, a tool attached, not turned off.
bool nvtx_enabled() noexcept;

// A range in the "cudakit" domain around the current scope; no-op when
// `enabled` is false (the caller passes nvtx_enabled()).
class NvtxRange {
 public:
  NvtxRange(bool enabled, const char* name) noexcept;
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  bool active_;
};

// `inner` wrapped so that its compiles, copies and fills run inside ranges.
// Installed only when nvtx_enabled().
std::unique_ptr<Backend> make_nvtx_backend(std::unique_ptr<Backend> inner);

}  // namespace cudakit::detail
