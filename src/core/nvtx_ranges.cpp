// NvtxRange and nvtx_enabled() over the NVTX3 headers (see nvtx_ranges.hpp);
// the only file that includes them, compiled with CUDAKIT_HAVE_NVTX when the
// build found them.
#include "nvtx_ranges.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/forwarding_backend.hpp"
#include "core/kernel_signature_scanner.hpp"

#ifdef CUDAKIT_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace cudakit::detail {
namespace {

#ifdef CUDAKIT_HAVE_NVTX
nvtxDomainHandle_t cudakit_domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("cudakit");
  return domain;
}
#endif

// "copy 4.00 MB"
std::string sized(const char* what, std::size_t bytes) {
  char text[64];
  if (bytes < 1024)
    std::snprintf(text, sizeof text, "%s %zu B", what, bytes);
  else if (bytes < 1024 * 1024)
    std::snprintf(text, sizeof text, "%s %.2f kB", what, double(bytes) / 1024.0);
  else
    std::snprintf(text, sizeof text, "%s %.2f MB", what, double(bytes) / (1024.0 * 1024.0));
  return text;
}

// "compile scale, shift": the kernels the source defines, else its name.
std::string compile_range_name(const CompileRequest& request) {
  std::string name = "compile";
  try {
    const char* separator = " ";
    for (const KernelSignature& k : scan_kernel_signatures(request.source)) {
      name += separator + k.name;
      separator = ", ";
    }
  } catch (...) {
    // A source the scanner cannot read is the compiler's to report.
  }
  if (name == "compile") name += " " + request.source_name;
  return name;
}

class NvtxBackend final : public ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;

  CompiledCode compile(const CompileRequest& request) override {
    const std::string name = compile_range_name(request);
    NvtxRange range(true, name.c_str());
    return inner().compile(request);
  }
  void copy(void* dst, const void* src, std::size_t bytes, NativeStream stream,
            bool async) override {
    const std::string name = sized("copy", bytes);
    NvtxRange range(true, name.c_str());
    inner().copy(dst, src, bytes, stream, async);
  }
  void fill(DevicePtr dst, std::uint32_t value, unsigned element_bytes, std::size_t count,
            NativeStream stream, bool async) override {
    const std::string name = sized("fill", std::size_t{element_bytes} * count);
    NvtxRange range(true, name.c_str());
    inner().fill(dst, value, element_bytes, count, stream, async);
  }
};

}  // namespace

std::unique_ptr<Backend> make_nvtx_backend(std::unique_ptr<Backend> inner) {
  return std::make_unique<NvtxBackend>(std::move(inner));
}

bool nvtx_enabled() noexcept {
#ifdef CUDAKIT_HAVE_NVTX
  static const bool enabled = [] {
    const char* setting = std::getenv("CUDAKIT_NVTX");
    if (setting && std::string_view(setting) == "0") return false;
    if (setting && *setting) return true;
    // What NVTX itself looks for: an injection library named in the
    // environment, or one preloaded into the process by the tool.
    const char* injection = std::getenv("NVTX_INJECTION64_PATH");
    if (injection && *injection) return true;
    return dlsym(RTLD_DEFAULT, "InitializeInjectionNvtx2Preinject") != nullptr;
  }();
  return enabled;
#else
  return false;
#endif
}

NvtxRange::NvtxRange(bool enabled, const char* name) noexcept : active_(enabled) {
#ifdef CUDAKIT_HAVE_NVTX
  if (!active_) return;
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name;
  nvtxDomainRangePushEx(cudakit_domain(), &attributes);
#else
  (void)name;
  active_ = false;
#endif
}

NvtxRange::~NvtxRange() {
#ifdef CUDAKIT_HAVE_NVTX
  if (active_) nvtxDomainRangePop(cudakit_domain());
#endif
}

}  // namespace cudakit::detail
