// compile(): source -> prepared source -> cache key -> loaded module cache
// -> compile cache (memory, disk) -> the backend's compiler.
#include "cudakit/program.hpp"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "backend/backend.hpp"
#include "builtin_headers.hpp"
#include "cudakit/compile_cache.hpp"
#include "cudakit/error.hpp"
#include "module_state.hpp"

namespace cudakit {
namespace {

// Modules already loaded, per device and compile key: a second compile of
// the same source on the same device costs a map lookup. Kept for the life
// of the process (as CuPy keeps its modules) and never destroyed, so no
// unload runs after the driver has shut down.
struct LoadedModules {
  std::mutex mutex;
  std::map<std::tuple<BackendKind, int, std::string>, std::shared_ptr<Module::State>> modules;
};
LoadedModules& loaded_modules() {
  static auto* instance = new LoadedModules;
  return *instance;
}

// The backend's compile, with the CompileError re-raised against the user's
// own source: the log's line numbers are the user's (`#line 1`), so the
// numbered excerpt must come from the unwrapped text.
// Macro names and include directories become compiler flags ("-DNAME",
// "-IDIR"): an empty one would be a bare "-D" or "-I", and the compiler would
// take the next flag as its value.
void check_flag_values(const CompileOptions& options) {
  auto is_identifier_start = [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  };
  auto is_identifier_char = [&](char c) {
    return is_identifier_start(c) || (c >= '0' && c <= '9');
  };
  for (const auto& [name, value] : options.defines) {
    // NAME or a function-like macro NAME(args).
    std::size_t end = 0;
    while (end < name.size() && is_identifier_char(name[end])) ++end;
    const bool ok = !name.empty() && is_identifier_start(name[0]) &&
                    (end == name.size() || (name[end] == '(' && name.back() == ')'));
    if (!ok)
      throw ArgumentError(
          "compiling with the macro definition '" + name + (value.empty() ? "" : "=" + value) + "'",
          name.empty() ? "the macro has no name"
                       : "the macro name '" + name + "' is not a C identifier",
          "define NAME or NAME=VALUE, NAME a C identifier (cudakit compile -D "
          "NAME=VALUE)");
  }
  for (const auto& dir : options.include_dirs)
    if (dir.empty())
      throw ArgumentError("compiling with an include directory", "the directory name is empty",
                          "give each include directory a path (cudakit compile -I DIR)");
}

CompiledCode run_compiler(detail::Backend& backend, std::string_view source,
                          const std::string& prepared, const CompileOptions& options) {
  check_flag_values(options);
  detail::CompileRequest request;
  request.source = prepared;
  request.options = options;
  if (!options.source_name.empty()) request.source_name = options.source_name;
  try {
    return backend.compile(request);
  } catch (const CompileError& e) {
    throw CompileError(e.context(), e.log(), std::string(source), e.hint(), e.code(),
                       e.code_name());
  }
}

CompiledCode compile_code(detail::Backend& backend, std::string_view source,
                          const std::string& prepared, const CompileOptions& options,
                          CompileCache& cache = CompileCache::global()) {
  const bool cached = options.use_cache && cache.enabled();
  std::string key;
  if (cached) {
    key = CompileCache::key(prepared, options, backend.compiler_identity());
    if (auto hit = cache.load(key)) return std::move(*hit);
  }
  CompiledCode code = run_compiler(backend, source, prepared, options);
  if (cached) cache.store(key, code);
  return code;
}

// CUDAKIT_LINEINFO=1 turns line information on for every compile: tools
// that run a whole program (compute-sanitizer through `cudakit check`)
// cannot change its CompileOptions.
bool line_info_forced() {
  static const bool forced = [] {
    const char* v = std::getenv("CUDAKIT_LINEINFO");
    return v && *v && std::string_view(v) != "0";
  }();
  return forced;
}

}  // namespace

Module compile(std::string_view source, const CompileOptions& options, const Device& device,
               CompileCache& cache) {
  detail::Backend& backend = detail::backend_of(device);
  const bool global = &cache == &CompileCache::global();
  const std::string prepared = prepare_source(source, options);
  CompileOptions resolved = options;
  detail::add_builtin_headers(source, resolved, backend.kind());
  if (line_info_forced()) resolved.line_info = true;
  if (resolved.arch.empty()) resolved.arch = backend.default_arch(device.ordinal());

  std::string key;
  const bool cached = options.use_cache && cache.enabled() && global;
  if (cached) {
    key = CompileCache::key(prepared, resolved, backend.compiler_identity());
    auto& loaded = loaded_modules();
    std::lock_guard lock(loaded.mutex);
    auto it = loaded.modules.find({device.backend_kind(), device.ordinal(), key});
    if (it != loaded.modules.end()) return detail::ModuleAccess::from_state(it->second);
  }

  CompiledCode code = compile_code(backend, source, prepared, resolved, cache);
  auto state = std::make_shared<Module::State>(device, &backend);
  state->code = std::move(code);
  state->source = prepared;
  state->native = backend.load_module(device.ordinal(), state->code);
  if (cached) {
    // Two threads compiling the same source at once: the first stored wins.
    auto& loaded = loaded_modules();
    std::lock_guard lock(loaded.mutex);
    auto [it, inserted] = loaded.modules.emplace(
        std::make_tuple(device.backend_kind(), device.ordinal(), key), state);
    if (!inserted) return detail::ModuleAccess::from_state(it->second);
  }
  return detail::ModuleAccess::from_state(std::move(state));
}

Module compile(std::string_view source, const CompileOptions& options, const Device& device) {
  return compile(source, options, device, CompileCache::global());
}

Module compile(std::string_view source, const CompileOptions& options) {
  return compile(source, options, Device::current());
}

Module compile(const Program& program, const Device& device) {
  return compile(program.source, program.options, device);
}

Module compile(const Program& program) { return compile(program.source, program.options); }

CompiledCode compile_only(const Program& program, BackendKind backend) {
  return compile_only(program.source, program.options, backend);
}

std::string default_arch(BackendKind kind) {
  detail::Backend& backend = detail::backend(kind);
  if (kind == BackendKind::cpu) return backend.default_arch(0);
  int devices = 0;
  try {
    devices = backend.device_count();
  } catch (const Error&) {
    // No driver: the same advice as for a driver without a GPU.
  }
  if (devices == 0)
    throw ArgumentError("compiling without a device",
                        "no arch was given and there is no GPU to take it from",
                        std::string("set CompileOptions::arch, e.g. \"") + offline_gpu_arch +
                            "\" (cubin) or \"compute_" + (offline_gpu_arch + 3) + "\" (PTX)");
  return backend.default_arch(backend.current_device());
}

GpuCompilerInfo gpu_compiler_info() {
  return detail::backend(BackendKind::cuda).gpu_compiler_info();
}

CompiledCode compile_only(std::string_view source, const CompileOptions& options,
                          BackendKind kind) {
  detail::Backend& backend = detail::backend(kind);
  CompileOptions resolved = options;
  detail::add_builtin_headers(source, resolved, backend.kind());
  if (line_info_forced()) resolved.line_info = true;
  if (resolved.arch.empty()) resolved.arch = default_arch(kind);
  return compile_code(backend, source, prepare_source(source, options), resolved);
}

}  // namespace cudakit
