// Compiling CUDA C with NVRTC. Needs no driver and no GPU: the arch always
// comes with the request (the core resolves "the device's arch" before).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/standard_headers.hpp"
#include "cudakit/error.hpp"
#include "platform/file_identity.hpp"
#include "platform/nvrtc_library.hpp"

namespace cudakit::detail {
namespace {

struct ArchSpec {
  bool virtual_arch = false;  // compute_XX: PTX only
  int number = 0;             // 90
  std::string suffix;         // "a" / "f" for arch-specific targets
};

ArchSpec parse_arch(const std::string& arch) {
  ArchSpec spec;
  std::string_view rest;
  if (arch.rfind("sm_", 0) == 0) {
    rest = std::string_view(arch).substr(3);
  } else if (arch.rfind("compute_", 0) == 0) {
    spec.virtual_arch = true;
    rest = std::string_view(arch).substr(8);
  } else {
    throw ArgumentError("compiling for arch '" + arch + "'",
                        "not a CUDA arch: expected sm_XX (machine code) or compute_XX (PTX)",
                        "use e.g. \"sm_90\" for an H100/H200, or leave the arch empty to target "
                        "the current device");
  }
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), spec.number);
  if (ec != std::errc() || spec.number <= 0)
    throw ArgumentError("compiling for arch '" + arch + "'", "the arch has no number",
                        "use e.g. \"sm_90\" or \"compute_90\"");
  spec.suffix.assign(end, rest.data() + rest.size());
  if (!(spec.suffix.empty() || spec.suffix == "a" || spec.suffix == "f"))
    throw ArgumentError("compiling for arch '" + arch + "'",
                        "unknown arch suffix '" + spec.suffix + "'",
                        "use e.g. \"sm_90\" or \"sm_90a\"");
  return spec;
}

std::string arch_list(const std::vector<int>& archs) {
  std::string text;
  for (int arch : archs) text += (text.empty() ? "sm_" : ", sm_") + std::to_string(arch);
  return text;
}

std::string program_log(const Nvrtc& api, nvrtcProgram program) {
  std::size_t size = 0;
  if (api.nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (api.nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

struct ProgramDeleter {
  const Nvrtc* api;
  void operator()(nvrtcProgram* program) const {
    if (*program) api->nvrtcDestroyProgram(program);
    delete program;
  }
};

// Where `text` (the source or a given header) includes `file` (as NVRTC
// names it: the name included, or a path ending in it): its line, or 0.
int include_line(const std::string& text, const std::string& file, bool wrapped_source) {
  const std::string base = file.substr(file.rfind('/') + 1);
  // The wrapped source counts from its `#line 1` (core/source_text.cpp);
  // the includes before it are copies of the user's.
  bool counting = !wrapped_source || text.find("\n#line 1\n") == std::string::npos;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (wrapped_source && line == "#line 1") {
      counting = true;
      number = 0;
      continue;
    }
    const auto at = line.find_first_not_of(" \t");
    if (!counting || at == std::string::npos || line[at] != '#' ||
        line.find("include") == std::string::npos)
      continue;
    const auto open = line.find_first_of("\"<"), close = line.find_last_of("\">");
    if (open == std::string::npos || close == std::string::npos || close <= open) continue;
    const std::string named = line.substr(open + 1, close - open - 1);
    if (named == file || named == base || file.ends_with("/" + named)) return number;
  }
  return 0;
}

// For NVRTC's "cannot open source file" (which names the file and line of
// the #include, not the files that included that one): where the include
// came from, through the source and the headers given with the compile, and
// every place that was searched.
std::string missing_header_hint(const std::string& log, const CompileRequest& request,
                                const std::vector<std::string>& include_flags) {
  // FILE(LINE): catastrophic error: cannot open source file "HEADER"
  // (read by hand: std::regex is slow, and its compile has crashed in this
  // library where another libstdc++ was loaded first).
  static constexpr std::string_view marker = "): catastrophic error: cannot open source file \"";
  const auto at = log.find(marker);
  if (at == std::string::npos) return {};
  const auto name_begin = at + marker.size();
  const auto name_end = log.find('"', name_begin);
  const auto open = log.rfind('(', at);
  const auto line_start = log.find_last_of(" \t\r\n", open == std::string::npos ? 0 : open);
  const auto file_begin = line_start == std::string::npos ? 0 : line_start + 1;
  if (name_end == std::string::npos || open == std::string::npos || open < file_begin ||
      open + 1 >= at || log.find_first_not_of("0123456789", open + 1) != at)
    return {};
  const std::string header = log.substr(name_begin, name_end - name_begin);
  const std::string where = log.substr(file_begin, open - file_begin);
  const std::string line_number = log.substr(open + 1, at - open - 1);
  std::string chain = "\"" + header + "\" is included at " + where + " line " + line_number;
  std::string file = where;
  for (int depth = 0; depth < 16 && file != request.source_name; ++depth) {
    std::string includer;
    int line = include_line(request.source, file, true);
    if (line > 0) includer = request.source_name;
    for (const auto& [name, content] : request.options.headers) {
      if (line > 0) break;
      if (name == file) continue;
      if ((line = include_line(content, file, false)) > 0) includer = name;
    }
    if (line == 0) break;
    chain += ", included from " + includer + " line " + std::to_string(line);
    file = includer;
  }
  std::string given;
  for (const auto& [name, content] : request.options.headers)
    given += (given.empty() ? "" : ", ") + name;
  std::string stand_ins;
  for (const StandardHeader& standard : standard_headers())
    stand_ins += (stand_ins.empty() ? "" : " ") + std::string(standard.name);
  std::string dirs;
  for (const auto& flag : include_flags) dirs += (dirs.empty() ? "" : ", ") + flag.substr(2);
  return chain + ". Searched: the headers given with the compile (" +
         (given.empty() ? "none" : given) + "), the built-in stand-ins for standard headers (" +
         stand_ins + "), the include directories in order (" + (dirs.empty() ? "none" : dirs) +
         "), and for #include \"...\" the current directory. Give the header's text in the "
         "compile options' headers, or its directory in include_dirs";
}

// A binary output of NVRTC (cubin, LTO-IR) through its size / data pair.
std::vector<std::uint8_t> binary_output(nvrtcProgram program,
                                        nvrtcResult (*size_of)(nvrtcProgram, std::size_t*),
                                        nvrtcResult (*data_of)(nvrtcProgram, char*),
                                        const std::string& what, const std::string& context,
                                        const std::string& source) {
  std::vector<std::uint8_t> image;
  std::size_t bytes = 0;
  nvrtcResult status = size_of(program, &bytes);
  if (status == NVRTC_SUCCESS && bytes > 0) {
    image.resize(bytes);
    status = data_of(program, reinterpret_cast<char*>(image.data()));
  }
  if (status != NVRTC_SUCCESS || image.empty())
    throw CompileError(context, "NVRTC produced no " + what, source, {}, static_cast<int>(status),
                       nvrtc_error_name(status));
  return image;
}

}  // namespace

// The identity is part of every cache key, so it is needed on a cache hit,
// where loading the ~100 MB libnvrtc (5-8 ms) would cost more than the hit
// itself. The file NVRTC would be loaded from, with its size and
// modification time, identifies its version without loading it; only when
// the dynamic loader alone knows the file (a bare soname) is it loaded.
std::string CudaBackend::compiler_identity() {
  static const std::string identity = [] {
    for (const std::string& candidate : nvrtc_search_plan().candidates) {
      if (candidate.empty() || candidate.front() != '/') break;
      if (std::string id = file_identity(candidate); !id.empty()) return "nvrtc " + id;
    }
    const Nvrtc& api = nvrtc();
    return "nvrtc " + std::to_string(api.major) + "." + std::to_string(api.minor) + " " +
           file_identity(api.path);
  }();
  return identity;
}

GpuCompilerInfo CudaBackend::gpu_compiler_info() {
  const Nvrtc& api = nvrtc();
  return {api.major, api.minor, api.archs, api.nvrtcGetLTOIR != nullptr, api.path};
}

std::string CudaBackend::default_arch(int ordinal) {
  return "sm_" + std::to_string(attribute(ordinal, DeviceAttribute::compute_capability_major)) +
         std::to_string(attribute(ordinal, DeviceAttribute::compute_capability_minor));
}

CompiledCode CudaBackend::compile(const CompileRequest& request) {
  const Nvrtc& api = nvrtc();
  const CompileOptions& options = request.options;
  const std::string identity =
      "NVRTC " + std::to_string(api.major) + "." + std::to_string(api.minor);

  ArchSpec spec = parse_arch(options.arch);
  bool emit_ptx = spec.virtual_arch || options.ptx_only;
  if (options.lto_ir && !api.nvrtcGetLTOIRSize)
    throw NotSupported("compiling " + request.source_name + " to LTO-IR",
                       identity + " (" + api.path + ") has no nvrtcGetLTOIR",
                       "use the NVRTC of CUDA 12.0 or newer (set CUDAKIT_NVRTC), or compile to "
                       "PTX");
  std::string note;
  const bool known = api.archs.empty() ||
                     std::find(api.archs.begin(), api.archs.end(), spec.number) != api.archs.end();
  if (!known) {
    // The newest virtual arch at or below the target still runs there: the
    // driver JIT-compiles the PTX for the real device at load.
    auto older = std::find_if(api.archs.rbegin(), api.archs.rend(),
                              [&](int arch) { return arch <= spec.number; });
    if (older == api.archs.rend())
      throw NotSupported("compiling " + request.source_name + " for " + options.arch,
                         identity + " cannot compile for " + options.arch + ": it supports " +
                             arch_list(api.archs),
                         "use an older CUDA toolkit's NVRTC (set CUDAKIT_NVRTC) for this GPU");
    note = "cudakit: " + identity + " does not know " + options.arch +
           "; compiled PTX for compute_" + std::to_string(*older) +
           ", which the driver compiles for the device when it loads";
    spec.number = *older;
    spec.suffix.clear();
    emit_ptx = true;
  }
  const std::string target =
      (emit_ptx ? "compute_" : "sm_") + std::to_string(spec.number) + spec.suffix;
  const std::string context =
      "compiling " + request.source_name + " for " + target + " with " + identity;

  std::vector<std::string> flags;
  flags.push_back("-arch=" + target);
  if (!options.std.empty()) flags.push_back("-std=" + options.std);
  for (const auto& [name, value] : options.defines)
    flags.push_back(value.empty() ? "-D" + name : "-D" + name + "=" + value);
  for (const auto& dir : options.include_dirs) flags.push_back("-I" + dir);
  if (!api.include_dir.empty()) {
    flags.push_back("-I" + api.include_dir);
    // CUDA 13 keeps libcu++ (cuda/std/..., which <cooperative_groups.h>
    // includes) in include/cccl.
    std::error_code ignored;
    if (std::filesystem::is_directory(api.include_dir + "/cccl", ignored))
      flags.push_back("-I" + api.include_dir + "/cccl");
  }
  if (options.debug) {
    flags.push_back("-G");
    flags.push_back("-lineinfo");
  } else if (options.line_info) {
    flags.push_back("-lineinfo");
  }
  if (options.fast_math) flags.push_back("--use_fast_math");
  if (options.lto_ir) flags.push_back("-dlto");
  for (const auto& flag : options.extra_flags) flags.push_back(flag);

  std::vector<const char*> header_sources, header_names;
  for (const auto& [name, content] : options.headers) {
    header_names.push_back(name.c_str());
    header_sources.push_back(content.c_str());
  }
  // NVRTC has no C library headers: the stand-ins for the standard headers
  // (standard_headers.cpp), each unless the user gave a header of that name.
  // NVRTC reads one only where the source includes it.
  for (const StandardHeader& header : standard_headers()) {
    const bool given = std::any_of(options.headers.begin(), options.headers.end(),
                                   [&](const auto& user) { return user.first == header.name; });
    if (given) continue;
    header_names.push_back(header.name);
    header_sources.push_back(header.text);
  }
  // nvcc's implicit typedefs (uint, ...), pre-included: no line of the
  // source moves.
  header_names.push_back(kNvccTypedefsHeader);
  header_sources.push_back(nvcc_typedefs_text());
  flags.push_back(std::string("-include=") + kNvccTypedefsHeader);

  std::vector<const char*> flag_ptrs;
  std::vector<std::string> include_flags;
  for (const auto& flag : flags) {
    flag_ptrs.push_back(flag.c_str());
    if (flag.starts_with("-I")) include_flags.push_back(flag);
  }

  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram(nullptr),
                                                        ProgramDeleter{&api});
  nvrtcResult status = api.nvrtcCreateProgram(
      program.get(), request.source.c_str(), request.source_name.c_str(),
      static_cast<int>(header_sources.size()), header_sources.data(), header_names.data());
  if (status != NVRTC_SUCCESS) {
    *program = nullptr;  // nothing to destroy
    throw CompileError(context, api.nvrtcGetErrorString(status), request.source, {},
                       static_cast<int>(status), nvrtc_error_name(status));
  }
  for (const auto& expression : options.name_expressions) {
    status = api.nvrtcAddNameExpression(*program, expression.c_str());
    if (status != NVRTC_SUCCESS)
      throw ArgumentError(context, "NVRTC rejected the name expression '" + expression + "'", {},
                          static_cast<int>(status), nvrtc_error_name(status));
  }

  status = api.nvrtcCompileProgram(*program, static_cast<int>(flag_ptrs.size()), flag_ptrs.data());
  std::string log = program_log(api, *program);
  if (status != NVRTC_SUCCESS) {
    std::string hint;
    if (status == NVRTC_ERROR_INVALID_OPTION) {
      std::string list;
      for (const auto& flag : flags) list += (list.empty() ? "" : " ") + flag;
      hint = "NVRTC rejected an option; the options were: " + list;
    } else if (std::string missing = missing_header_hint(log, request, include_flags);
               !missing.empty()) {
      hint = missing;
    } else if (log.find("uses too much shared data") != std::string::npos) {
      // The same words as the CPU backend's check (static_shared.cpp).
      hint =
          "static __shared__ memory is limited to 48 KiB per block on a GPU: use "
          "`extern __shared__` (dynamic) memory and set_max_dynamic_shared_memory for more, or "
          "smaller tiles";
    }
    if (log.empty()) log = api.nvrtcGetErrorString(status);
    throw CompileError(context, log, request.source, hint, static_cast<int>(status),
                       nvrtc_error_name(status));
  }

  CompiledCode code;
  code.arch = target;
  code.log = note.empty() ? log : (log.empty() ? note : log + "\n" + note);

  std::size_t ptx_size = 0;
  if (api.nvrtcGetPTXSize(*program, &ptx_size) == NVRTC_SUCCESS && ptx_size > 0) {
    code.ptx.assign(ptx_size, '\0');
    if (api.nvrtcGetPTX(*program, code.ptx.data()) != NVRTC_SUCCESS) code.ptx.clear();
    while (!code.ptx.empty() && code.ptx.back() == '\0') code.ptx.pop_back();
  }
  if (options.lto_ir) {
    code.image = binary_output(*program, api.nvrtcGetLTOIRSize, api.nvrtcGetLTOIR, "LTO-IR",
                               context, request.source);
    code.format = CodeFormat::ltoir;
  } else if (emit_ptx) {
    if (code.ptx.empty()) throw CompileError(context, "NVRTC produced no PTX", request.source);
    code.format = CodeFormat::ptx;
    // The driver reads PTX as a C string: the image keeps its terminator.
    code.image.assign(code.ptx.begin(), code.ptx.end());
    code.image.push_back(0);
  } else {
    code.image = binary_output(*program, api.nvrtcGetCUBINSize, api.nvrtcGetCUBIN, "cubin", context,
                               request.source);
    code.format = CodeFormat::cubin;
  }

  for (const auto& expression : options.name_expressions) {
    const char* lowered = nullptr;
    status = api.nvrtcGetLoweredName(*program, expression.c_str(), &lowered);
    if (status != NVRTC_SUCCESS || !lowered)
      throw ArgumentError(context, "no lowered name for the name expression '" + expression + "'",
                          "a name expression must name a __global__ function or __device__ "
                          "variable the source defines, e.g. \"vec_add<float>\"",
                          static_cast<int>(status), nvrtc_error_name(status));
    code.lowered_names.emplace_back(expression, lowered);
  }
  return code;
}

}  // namespace cudakit::detail
