// Separate compilation on the CUDA backend: the driver's JIT linker
// (cuLinkCreate / cuLinkAddData / cuLinkAddFile / cuLinkComplete) links
// relocatable PTX and cubins, fatbins, objects and libraries (libcudadevrt.a
// for device-side launches) into one cubin for the current context's arch;
// a link holding LTO-IR goes through nvJitLink instead (cuda_lto_linker.cpp).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_lto_linker.hpp"
#include "cudakit/error.hpp"
#include "platform/cuda_driver.hpp"

namespace cudakit::detail {
namespace {

constexpr std::size_t kLogBytes = 64 * 1024;

CUjitInputType jit_input_type(LinkInputType type) {
  switch (type) {
    case LinkInputType::cubin:
      return CU_JIT_INPUT_CUBIN;
    case LinkInputType::ptx:
      return CU_JIT_INPUT_PTX;
    case LinkInputType::fatbin:
      return CU_JIT_INPUT_FATBINARY;
    case LinkInputType::object:
      return CU_JIT_INPUT_OBJECT;
    case LinkInputType::library:
      return CU_JIT_INPUT_LIBRARY;
    case LinkInputType::ltoir:
      break;  // (linked by nvJitLink: cuda_lto_linker.cpp)
  }
  throw ArgumentError("linking device code", "unknown link input type",
                      "use cubin, ptx, fatbin, object or library");
}

std::string log_text(const std::vector<char>& buffer) {
  std::string text(buffer.data(), strnlen(buffer.data(), buffer.size()));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// The hint for what the linker says most often.
std::string link_hint(const std::string& log) {
  // Device-side launches call the device runtime: cudaGetParameterBuffer /
  // cudaLaunchDevice, __cudaCDP2GetParameterBufferV2 / __cudaCDP2LaunchDeviceV2.
  if (log.find("GetParameterBuffer") != std::string::npos ||
      log.find("LaunchDevice") != std::string::npos || log.find("cudaCDP") != std::string::npos ||
      log.find("cudadevrt") != std::string::npos)
    return "device-side kernel launches need the CUDA device runtime: add libcudadevrt.a "
           "(Linker::add_library(\"cudadevrt\"), DynamicModule.add_stdlib(\"cudadevrt\"))";
  if (log.find("ndefined") != std::string::npos)
    return "a symbol used by one input is defined by none: add the source or library that "
           "defines it, and compile every source with -rdc=true (relocatable device code) so "
           "calls and launches across sources are left to the linker";
  return "the linker's log is above; every input must be relocatable device code "
         "(-rdc=true) or a library built from it, for this GPU's arch or as PTX";
}

struct LinkState {
  const CudaDriver* driver;
  CUlinkState state = nullptr;
  ~LinkState() {
    if (state) driver->cuLinkDestroy(state);
  }
};

}  // namespace

CompiledCode CudaBackend::link(int ordinal, const std::vector<LinkInput>& inputs,
                               const LinkOptions& options) {
  make_current(ordinal);
  const CudaDriver& d = driver();
  const std::string arch = default_arch(ordinal);
  if (inputs.empty())
    throw ArgumentError("linking device code for " + arch, "nothing was added to the link",
                        "add PTX, cubins or sources (compiled with -rdc=true) before linking");
  if (holds_lto_ir(inputs)) return link_with_nvjitlink(inputs, options, arch);

  std::vector<char> error_log(kLogBytes, '\0'), info_log(kLogBytes, '\0');
  std::vector<CUjit_option> keys = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                    CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  std::vector<void*> values = {error_log.data(), reinterpret_cast<void*>(kLogBytes),
                               info_log.data(), reinterpret_cast<void*>(kLogBytes)};
  auto add_option = [&](CUjit_option key, std::uintptr_t value) {
    keys.push_back(key);
    values.push_back(reinterpret_cast<void*>(value));
  };
  if (options.verbose_log) add_option(CU_JIT_LOG_VERBOSE, 1);
  if (options.debug) add_option(CU_JIT_GENERATE_DEBUG_INFO, 1);
  if (options.line_info) add_option(CU_JIT_GENERATE_LINE_INFO, 1);
  if (options.optimization_level >= 0) {
    if (options.optimization_level > 4)
      throw ArgumentError(
          "linking device code for " + arch,
          "optimization level " + std::to_string(options.optimization_level) + " is out of range",
          "use 0 to 4 (4, the default, optimizes most)");
    add_option(CU_JIT_OPTIMIZATION_LEVEL, static_cast<std::uintptr_t>(options.optimization_level));
  }

  LinkState link{&d};
  CUresult result =
      d.cuLinkCreate(static_cast<unsigned>(keys.size()), keys.data(), values.data(), &link.state);
  if (result != CUDA_SUCCESS)
    fail(result, "creating a device-code linker for " + arch, nullptr, false);

  for (const LinkInput& input : inputs) {
    const std::string what = (input.path.empty() ? "'" + input.name + "'" : input.path.string()) +
                             " (" + std::string(to_string(input.type)) + ")";
    const CUjitInputType type = jit_input_type(input.type);
    if (input.path.empty()) {
      std::vector<std::uint8_t> bytes = input.data;
      // The driver reads PTX as a C string.
      if (input.type == LinkInputType::ptx && (bytes.empty() || bytes.back() != 0))
        bytes.push_back(0);
      result = d.cuLinkAddData(link.state, type, bytes.data(), bytes.size(), input.name.c_str(), 0,
                               nullptr, nullptr);
    } else {
      result = d.cuLinkAddFile(link.state, type, input.path.c_str(), 0, nullptr, nullptr);
    }
    if (result != CUDA_SUCCESS) {
      const std::string log = log_text(error_log);
      throw CudaError("adding " + what + " to a link for " + arch,
                      cu_error_string(result) + (log.empty() ? "" : "\n" + log),
                      result == CUDA_ERROR_FILE_NOT_FOUND
                          ? "the file does not exist or cannot be read"
                          : "the input must be " + std::string(to_string(input.type)) +
                                " for this GPU (" + arch + ") or PTX; " + link_hint(log),
                      static_cast<int>(result), cu_error_name(result));
    }
  }

  void* cubin = nullptr;
  std::size_t cubin_size = 0;
  result = d.cuLinkComplete(link.state, &cubin, &cubin_size);
  if (result != CUDA_SUCCESS) {
    const std::string log = log_text(error_log);
    throw CudaError("linking " + std::to_string(inputs.size()) + " inputs for " + arch,
                    "the linker failed: " + cu_error_string(result) +
                        (log.empty() ? "" : "\nlinker log:\n" + log),
                    link_hint(log), static_cast<int>(result), cu_error_name(result));
  }
  CompiledCode code;
  code.format = CodeFormat::cubin;
  code.arch = arch;
  const auto* bytes = static_cast<const std::uint8_t*>(cubin);
  code.image.assign(bytes, bytes + cubin_size);  // owned by the link state until destroyed
  code.log = log_text(info_log);
  return code;
}

}  // namespace cudakit::detail
