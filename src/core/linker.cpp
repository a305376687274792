// cudakit::Linker: collects link inputs, checks them as they come (empty
// data, unreadable files, the CPU backend), compiles sources to relocatable
// PTX, and has the device's backend link them into one cubin.
#include "cudakit/linker.hpp"

#include <algorithm>
#include <string>
#include <system_error>
#include <utility>

#include "backend/backend.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"
#include "module_state.hpp"

namespace cudakit {
namespace {

void require_linker(const Device& device) {
  if (device.backend_kind() == BackendKind::cpu)
    throw NotSupported(
        "linking device code (separate compilation, dynamic parallelism) on the CPU backend",
        "the CPU backend has no device-code linker and cannot launch kernels from a kernel",
        "separate compilation and device-side launches (kernel<<<...>>> in device code) need a "
        "GPU: run on the CUDA backend; on the CPU backend put the code in one source and launch "
        "the kernels from the host");
}

bool is_rdc_flag(const std::string& flag) {
  return flag == "-rdc=true" || flag == "--relocatable-device-code=true" || flag == "-dc" ||
         flag == "--device-c" || flag == "-rdc" || flag == "--relocatable-device-code";
}

// nvcc's "-lcudadevrt" / "--library=cudadevrt": link this library. Returns its name or "".
std::string library_flag(const std::string& flag) {
  for (std::string_view prefix : {"--library=", "-l"})
    if (flag.starts_with(prefix) && flag.size() > prefix.size()) return flag.substr(prefix.size());
  return {};
}

}  // namespace

Linker::Linker(const Device& device, LinkOptions options)
    : device_(device), options_(std::move(options)) {
  require_linker(device_);
}

Linker::Linker() : Linker(Device::current()) {}

Linker& Linker::add_data(std::span<const std::uint8_t> data, LinkInputType type, std::string name) {
  if (data.empty())
    throw ArgumentError("adding '" + name + "' (" + std::string(to_string(type)) + ") to a link",
                        "the data is empty",
                        "pass the bytes of a PTX, cubin, fatbin, object or library");
  LinkInput input;
  input.type = type;
  input.data.assign(data.begin(), data.end());
  input.name = std::move(name);
  if (type == LinkInputType::ptx) {
    while (!input.data.empty() && input.data.back() == 0) input.data.pop_back();
    ptx_.append(input.data.begin(), input.data.end());
    ptx_ += '\n';
  }
  inputs_.push_back(std::move(input));
  return *this;
}

Linker& Linker::add_data(std::string_view data, LinkInputType type, std::string name) {
  return add_data(std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()), type,
                  std::move(name));
}

Linker& Linker::add_file(const std::filesystem::path& path, LinkInputType type) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw ArgumentError(
        "adding " + path.string() + " (" + std::string(to_string(type)) + ") to a link",
        std::filesystem::exists(path, ec) ? "it is not a regular file" : "the file does not exist",
        "pass the path of a PTX, cubin, fatbin, object or library (.a) file");
  LinkInput input;
  input.type = type;
  input.path = path;
  input.name = path.filename().string();
  inputs_.push_back(std::move(input));
  return *this;
}

Linker& Linker::add_code(const CompiledCode& code, std::string name) {
  switch (code.format) {
    case CodeFormat::ptx:
      return add_data(code.ptx.empty()
                          ? std::string_view(reinterpret_cast<const char*>(code.image.data()),
                                             code.image.size())
                          : std::string_view(code.ptx),
                      LinkInputType::ptx, std::move(name));
    case CodeFormat::cubin:
      add_data(code.image, LinkInputType::cubin, std::move(name));
      if (!code.ptx.empty()) ptx_ += code.ptx + "\n";
      return *this;
    case CodeFormat::fatbin:
      return add_data(code.image, LinkInputType::fatbin, std::move(name));
    case CodeFormat::host_object:
      break;
    case CodeFormat::ltoir:  // (the link then goes through nvJitLink)
      return add_data(code.image, LinkInputType::ltoir, std::move(name));
  }
  throw NotSupported("adding '" + name + "' to a link",
                     "the code was built for the CPU backend (a host shared object)",
                     "compile the source with the CUDA backend (relocatable: -rdc=true)");
}

Linker& Linker::add_source(std::string_view source, CompileOptions options, std::string name) {
  std::vector<std::string> libraries;
  std::vector<std::string> flags;
  bool relocatable = false;
  for (auto& flag : options.extra_flags) {
    if (std::string library = library_flag(flag); !library.empty()) {
      libraries.push_back(std::move(library));
      continue;
    }
    relocatable = relocatable || is_rdc_flag(flag);
    flags.push_back(std::move(flag));
  }
  if (!relocatable) flags.emplace_back("-rdc=true");
  options.extra_flags = std::move(flags);
  if (options.arch.empty()) options.arch = device_.arch();
  // PTX for the device's arch: the linker compiles it with everything else.
  if (options.arch.starts_with("sm_")) options.arch = "compute_" + options.arch.substr(3);
  if (!name.empty() && options.source_name.empty()) options.source_name = name;
  if (name.empty()) name = options.source_name.empty() ? "kernel.ptx" : options.source_name;
  CompiledCode code = compile_only(source, options, device_.backend_kind());
  sources_ += prepare_source(source, options);
  sources_ += '\n';
  add_code(code, std::move(name));
  for (const auto& library : libraries) {
    const bool added = std::any_of(inputs_.begin(), inputs_.end(), [&](const LinkInput& input) {
      return input.type == LinkInputType::library &&
             input.path.filename() == "lib" + library + ".a";
    });
    if (!added) add_library(library);
  }
  return *this;
}

Linker& Linker::add_library(std::string_view name,
                            const std::vector<std::filesystem::path>& directories) {
  return add_file(find_cuda_library(name, directories), LinkInputType::library);
}

CompiledCode Linker::link() {
  CompiledCode code = detail::backend_of(device_).link(device_.ordinal(), inputs_, options_);
  info_log_ = code.log;
  // Parameter layouts are read from the PTX the kernels came from.
  code.ptx = ptx_;
  return code;
}

Module Linker::link_module() {
  return detail::ModuleAccess::load_with_source(link(), device_, sources_);
}

}  // namespace cudakit
