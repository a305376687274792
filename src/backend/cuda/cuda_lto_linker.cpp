// Links holding LTO-IR, through nvJitLink (the driver's linker does not take
// LTO-IR): every input is handed to it, LTO-IR optimised together (-lto).
#include "backend/cuda/cuda_lto_linker.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "cudakit/error.hpp"
#include "platform/nvjitlink_library.hpp"

namespace cudakit::detail {
namespace {

int nvjitlink_input(LinkInputType type) {
  switch (type) {
    case LinkInputType::cubin:
      return static_cast<int>(NvJitLinkInput::cubin);
    case LinkInputType::ptx:
      return static_cast<int>(NvJitLinkInput::ptx);
    case LinkInputType::fatbin:
      return static_cast<int>(NvJitLinkInput::fatbin);
    case LinkInputType::object:
      return static_cast<int>(NvJitLinkInput::object);
    case LinkInputType::library:
      return static_cast<int>(NvJitLinkInput::library);
    case LinkInputType::ltoir:
      return static_cast<int>(NvJitLinkInput::ltoir);
  }
  throw ArgumentError("linking device code", "unknown link input type",
                      "use cubin, ptx, fatbin, object, library or ltoir");
}

struct Handle {
  const NvJitLink* library;
  NvJitLink::Handle handle = nullptr;
  ~Handle() {
    if (handle) library->nvJitLinkDestroy(&handle);
  }
  std::string log(bool error) const {
    std::size_t size = 0;
    if ((error ? library->nvJitLinkGetErrorLogSize(handle, &size)
               : library->nvJitLinkGetInfoLogSize(handle, &size)) != 0 ||
        size == 0)
      return {};
    std::string text(size, '\0');
    if ((error ? library->nvJitLinkGetErrorLog(handle, text.data())
               : library->nvJitLinkGetInfoLog(handle, text.data())) != 0)
      return {};
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n' || text.back() == ' '))
      text.pop_back();
    return text;
  }
};

}  // namespace

bool holds_lto_ir(const std::vector<LinkInput>& inputs) {
  return std::any_of(inputs.begin(), inputs.end(),
                     [](const LinkInput& input) { return input.type == LinkInputType::ltoir; });
}

CompiledCode link_with_nvjitlink(const std::vector<LinkInput>& inputs, const LinkOptions& options,
                                 const std::string& arch) {
  const NvJitLink& library = nvjitlink_library();
  std::vector<std::string> flags = {"-arch=" + arch, "-lto"};
  if (options.verbose_log) flags.emplace_back("-verbose");
  if (options.debug) flags.emplace_back("-g");
  if (options.line_info) flags.emplace_back("-lineinfo");
  if (options.optimization_level >= 0)
    flags.push_back("-O" + std::to_string(std::min(options.optimization_level, 3)));
  std::vector<const char*> argv;
  for (const auto& flag : flags) argv.push_back(flag.c_str());

  const std::string where = "linking " + std::to_string(inputs.size()) +
                            " inputs (with LTO-IR) for " + arch + " with nvJitLink";
  Handle link{&library};
  if (int result = library.nvJitLinkCreate(&link.handle, static_cast<std::uint32_t>(argv.size()),
                                           argv.data());
      result != 0)
    throw CudaError(where,
                    "nvJitLinkCreate failed (nvJitLinkResult " + std::to_string(result) + ")",
                    "check that this nvJitLink knows " + arch);
  for (const LinkInput& input : inputs) {
    const std::string what = (input.path.empty() ? "'" + input.name + "'" : input.path.string()) +
                             " (" + std::string(to_string(input.type)) + ")";
    const int type = nvjitlink_input(input.type);
    int result = 0;
    if (input.path.empty()) {
      std::vector<std::uint8_t> bytes = input.data;
      // nvJitLink, as the driver, reads PTX as a C string.
      if (input.type == LinkInputType::ptx && (bytes.empty() || bytes.back() != 0))
        bytes.push_back(0);
      result = library.nvJitLinkAddData(link.handle, type, bytes.data(), bytes.size(),
                                        input.name.c_str());
    } else {
      result = library.nvJitLinkAddFile(link.handle, type, input.path.c_str());
    }
    if (result != 0) {
      const std::string log = link.log(true);
      throw CudaError("adding " + what + " to a link for " + arch + " (nvJitLink)",
                      "nvJitLinkResult " + std::to_string(result) + (log.empty() ? "" : "\n" + log),
                      "the input must be " + std::string(to_string(input.type)) + " for " + arch +
                          " (LTO-IR from the same CUDA version as this nvJitLink, or older)");
    }
  }
  if (int result = library.nvJitLinkComplete(link.handle); result != 0) {
    const std::string log = link.log(true);
    throw CudaError(where,
                    "the linker failed: nvJitLinkResult " + std::to_string(result) +
                        (log.empty() ? "" : "\nlinker log:\n" + log),
                    "a symbol used by one input is defined by none, or an input is not for " +
                        arch +
                        ": every input must be relocatable device code (-rdc=true / -dc, "
                        "or -dlto for LTO-IR)");
  }
  std::size_t size = 0;
  if (library.nvJitLinkGetLinkedCubinSize(link.handle, &size) != 0 || size == 0)
    throw CudaError(where, "nvJitLink made no cubin", "report this with the inputs linked");
  CompiledCode code;
  code.format = CodeFormat::cubin;
  code.arch = arch;
  code.image.resize(size);
  if (library.nvJitLinkGetLinkedCubin(link.handle, code.image.data()) != 0)
    throw CudaError(where, "nvJitLink did not hand over its cubin",
                    "report this with the inputs linked");
  code.log = link.log(false);
  return code;
}

}  // namespace cudakit::detail
