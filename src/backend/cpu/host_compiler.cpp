#include "backend/cpu/host_compiler.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "backend/cpu/cpu_module.hpp"
#include "backend/cpu/kept_sources.hpp"
#include "backend/cpu/kernel_scanner.hpp"
#include "backend/cpu/prelude/cudakit_cpu_abi.h"
#include "backend/cpu/static_shared.hpp"
#include "cudakit/error.hpp"
#include "platform/file_identity.hpp"
#include "support/include_lines.hpp"

extern char** environ;

namespace cudakit::detail::cpu {
namespace fs = std::filesystem;
namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : std::string(fallback);
}

// Runs argv[0] (looked up in PATH) with stdout and stderr into `log_path`.
// Returns the exit status, or -1 when it could not be started.
int run_process(const std::vector<std::string>& argv, const std::string& log_path) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_text(const fs::path& p, std::string_view text) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out)
    throw Error("compiling for the CPU backend", "cannot write " + p.string(),
                "check that TMPDIR names a writable directory");
}

// A private directory for one compile, removed when done.
class TempDir {
 public:
  TempDir() {
    std::string base = env_or("TMPDIR", "/tmp");
    std::string templ = base + "/cudakit-cpu-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
      throw Error("compiling for the CPU backend",
                  "cannot create a temporary directory in " + base + ": " + std::strerror(errno),
                  "set TMPDIR to a writable directory");
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// CUDA headers kernels commonly include: the prelude already declares what
// they would, so they are empty here.
constexpr const char* kStubHeaders[] = {"cuda_runtime.h",
                                        "cuda.h",
                                        "cuda_runtime_api.h",
                                        "device_launch_parameters.h",
                                        "cuda_fp16.h",
                                        "cuda_bf16.h",
                                        "math_constants.h",
                                        "device_functions.h",
                                        "sm_60_atomic_functions.h",
                                        "cooperative_groups.h",
                                        "texture_types.h",
                                        "surface_types.h",
                                        "texture_fetch_functions.h",
                                        "texture_indirect_functions.h",
                                        "surface_functions.h",
                                        "surface_indirect_functions.h",
                                        "cuda/std/cstdint"};

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// g++ 13's libstdc++ spells __attribute__((__noinline__)), which CUDA's
// __noinline__ macro (the prelude's) turns into a nested attribute it
// rejects. The C++ standard headers the source and the compile's headers
// (the user's and the built-in ones: cub, complex, cuRAND) include are
// therefore read first, in module.cpp, with the macro set aside; their own
// #include of them is then a no-op (the include guards).
std::string standard_headers_first(std::string_view source, const CompileOptions& options) {
  std::string includes;
  auto add = [&](std::string_view text) {
    for (const IncludeLine& include : include_lines(text)) {
      if (!include.angled || !is_standard_cxx_header(include.name)) continue;
      const std::string line_text = "#include <" + std::string(include.name) + ">\n";
      if (includes.find(line_text) == std::string::npos) includes += line_text;
    }
  };
  add(source);
  for (const auto& header : options.headers) add(header.second);
  if (includes.empty()) return {};
  return "#pragma push_macro(\"__noinline__\")\n#undef __noinline__\n" + includes +
         "#pragma pop_macro(\"__noinline__\")\n";
}

// The base name of a name expression's function: "ns::k<float, 2>" -> "k".
std::string expression_base(std::string_view expr) {
  std::string s(expr.substr(0, expr.find('<')));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  auto colon = s.rfind("::");
  return colon == std::string::npos ? s : s.substr(colon + 2);
}

// The kernels a source instantiates explicitly, as name expressions:
// `template __global__ void ns::axpy<float>(float, const float*, float*, int);`
// gives "ns::axpy<float>". PyCUDA programs instantiate their template kernels
// so and look them up by name (NVRTC keeps every instantiation's symbol); the
// table then has an entry for each, as for a name expression.
std::vector<std::string> explicit_kernel_instantiations(std::string_view source) {
  // Comments blanked, so an instantiation in one is not taken.
  std::string text(source);
  for (std::size_t at = 0; at + 1 < text.size();) {
    if (text[at] == '/' && text[at + 1] == '/') {
      const std::size_t end = std::min(text.find('\n', at), text.size());
      std::fill(text.begin() + at, text.begin() + end, ' ');
      at = end;
    } else if (text[at] == '/' && text[at + 1] == '*') {
      const std::size_t end = std::min(text.find("*/", at + 2), text.size() - 2) + 2;
      for (std::size_t i = at; i < end; ++i)
        if (text[i] != '\n') text[i] = ' ';
      at = end;
    } else {
      ++at;
    }
  }
  auto is_word = [](char c) { return c == '_' || std::isalnum(static_cast<unsigned char>(c)); };
  std::vector<std::string> out;
  for (std::size_t at = text.find("template"); at != std::string::npos;
       at = text.find("template", at + 1)) {
    if ((at > 0 && is_word(text[at - 1])) || (at + 8 < text.size() && is_word(text[at + 8])))
      continue;
    const std::size_t next = text.find_first_not_of(" \t\r\n", at + 8);
    if (next == std::string::npos || text[next] == '<') continue;  // a definition
    const std::size_t end = text.find_first_of(";{", next);
    if (end == std::string::npos || text[end] != ';') continue;
    const std::string declaration = text.substr(next, end - next);
    const std::size_t global = declaration.find("__global__");
    if (global == std::string::npos) continue;
    const std::size_t void_at = declaration.find("void", global);
    if (void_at == std::string::npos) continue;
    // The name runs to the parameter list's '(' outside the template arguments.
    int depth = 0;
    std::size_t open = std::string::npos;
    for (std::size_t i = void_at + 4; i < declaration.size() && open == std::string::npos; ++i) {
      if (declaration[i] == '<') ++depth;
      if (declaration[i] == '>') --depth;
      if (declaration[i] == '(' && depth == 0) open = i;
    }
    if (open == std::string::npos) continue;
    std::string name = declaration.substr(void_at + 4, open - void_at - 4);
    name.erase(0, name.find_first_not_of(" \t\r\n"));
    name.erase(name.find_last_not_of(" \t\r\n") + 1);
    if (name.find('<') != std::string::npos) out.push_back(name);
  }
  return out;
}

// The code appended after the user's source: one entry per kernel (and per
// name expression) and one per global, and the module's exported table.
// Plain string appends and std::to_string, no iostreams: the number
// formatting of iostreams has crashed an extension module that links its own
// copy of libstdc++ into a process that loads another one.
std::string generate_tail(const ScanResult& scan, const CompileOptions& options) {
  std::string out =
      "\n// ---- cudakit CPU backend: entry points ----\n"
      "namespace {\n"
      "const ::cudakit_cpu::KernelEntry cudakit_cpu_kernel_table[] = {\n";
  std::set<std::string> seen;
  // A kernel or global under an #if the scan could not tell goes under the
  // same condition here, so the table names only what was compiled.
  auto guarded = [](const std::string& condition, const std::string& entry) {
    return condition.empty() ? entry : "#if " + condition + "\n" + entry + "#endif\n";
  };
  for (const auto& k : scan.kernels) {
    if (k.is_template) continue;
    seen.insert(k.qualified);
    out +=
        guarded(k.condition, "  ::cudakit_cpu::KernelTraits<&::" + k.qualified + ">::entry(" +
                                 quote(k.qualified) + ", " + (k.uses_barrier ? "1" : "0") + "),\n");
  }
  for (const auto& expr : options.name_expressions) {
    if (!seen.insert(expr).second) continue;
    std::string base = expression_base(expr);
    bool known = false;
    bool uses = true;  // unknown: the safe (fiber) path
    for (const auto& k : scan.kernels)
      if (k.name == base) {
        known = true;
        uses = k.uses_barrier;
      }
    if (!known && !scan.function_barriers.empty()) uses = scan.any_barrier;
    out += "  ::cudakit_cpu::KernelTraits<&" + expr + ">::entry(" + quote(expr) + ", " +
           (uses ? "1" : "0") + "),\n";
  }
  out +=
      "  ::cudakit_cpu::KernelEntry{nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr}};\n"
      "const ::cudakit_cpu::GlobalEntry cudakit_cpu_global_table[] = {\n";
  for (const auto& g : scan.globals)
    out += guarded(g.condition, "  {" + quote(g.qualified) + ", (void*)&::" + g.qualified +
                                    ", sizeof(::" + g.qualified + ")},\n");
  out +=
      "  {nullptr, nullptr, 0}};\n"
      "}  // namespace\n"
      "extern \"C\" __attribute__((visibility(\"default\"))) const ::cudakit_cpu::ModuleInfo*\n";
  out += CUDAKIT_CPU_MODULE_SYMBOL;
  out +=
      "() {\n"
      "  static const ::cudakit_cpu::ModuleInfo info = {::cudakit_cpu::kAbiVersion,\n"
      "      cudakit_cpu_kernel_table,\n"
      "      sizeof(cudakit_cpu_kernel_table) / sizeof(cudakit_cpu_kernel_table[0]) - 1,\n"
      "      cudakit_cpu_global_table,\n"
      "      sizeof(cudakit_cpu_global_table) / sizeof(cudakit_cpu_global_table[0]) - 1,\n"
      "      &::cudakit_cpu::module_init, &::cudakit_cpu::module_thread_state};\n"
      "  return &info;\n}\n";
  return out;
}

// The text of line `number` (1-based) of `source`, trimmed.
std::string source_line(std::string_view source, int number) {
  std::size_t begin = 0;
  for (int n = 1; n < number && begin != std::string_view::npos; ++n) {
    begin = source.find('\n', begin);
    if (begin != std::string_view::npos) ++begin;
  }
  if (begin == std::string_view::npos) return {};
  std::string_view line = source.substr(begin, source.find('\n', begin) - begin);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '{'))
    line.remove_suffix(1);
  return std::string(line);
}

// Kernels are found by name, so two __global__ functions of one name (C++
// overloads) leave a launch with no way to say which; the host compiler
// would only say it cannot take the address of an overloaded function.
void check_no_overloads(const ScanResult& scan, const std::string& context,
                        const std::string& source, const std::string& source_name) {
  // The repeated definitions, after the first of each name (definitions in
  // different branches of one #if are alternatives, not repeats).
  std::map<std::string, std::vector<int>> lines;
  for (const auto& [name, line] : scan.repeated_kernels) lines[name].push_back(line);
  for (auto& [name, at] : lines) {
    for (const auto& k : scan.kernels)
      if (!k.is_template && k.qualified == name) at.insert(at.begin(), k.line);
    std::string log;
    for (int line : at)
      log += source_name + ":" + std::to_string(line) + ": " + source_line(source, line) + "\n";
    throw CompileError(context + ": kernel '" + name + "' is overloaded (" +
                           std::to_string(at.size()) + " __global__ functions of that name)",
                       log, source,
                       "a kernel is looked up by its name, so each needs its own: rename the "
                       "overloads (extern \"C\" kernels must have distinct names anyway), or "
                       "write one template kernel and pick an instantiation with a name "
                       "expression (CompileOptions::name_expressions, e.g. \"" +
                           name + "<float>\")");
  }
}

std::string file_name_of(const std::string& source_name) {
  std::string name = fs::path(source_name).filename().string();
  if (name.empty()) name = "kernel.cu";
  return name;
}

// Flags meant for NVRTC make no sense to the host compiler; only those a
// host compiler understands the same way are passed on.
bool host_compatible_flag(std::string_view f) {
  for (std::string_view p : {"-D", "-U", "-I", "-W", "-g", "-O"})
    if (f.starts_with(p)) return true;
  return false;
}

std::string compiler_version_line() {
  TempDir dir;
  fs::path log = dir.path() / "version.txt";
  int rc = run_process({host_compiler(), "--version"}, log.string());
  if (rc != 0)
    throw Error("finding the host C++ compiler for the CPU backend",
                "'" + host_compiler() + " --version' failed" +
                    (rc < 0 ? std::string(" to start") : " with status " + std::to_string(rc)),
                "install a C++ compiler (g++ or clang++), or name one with CUDAKIT_CXX");
  std::string text = read_text(log);
  return text.substr(0, text.find('\n'));
}

// The compiler's resolved file with its size and modification time: it
// changes whenever the compiler is replaced, and costs no process start (a
// fresh process that finds its kernel in the disk cache pays only a stat).
// Empty when the compiler cannot be found on PATH.
std::string compiler_file_identity() {
  std::string cmd = host_compiler();
  if (cmd.find(' ') != std::string::npos) return {};
  fs::path found;
  if (cmd.find('/') != std::string::npos) {
    found = cmd;
  } else if (const char* path = std::getenv("PATH")) {
    std::string_view dirs(path);
    while (!dirs.empty() && found.empty()) {
      auto colon = dirs.find(':');
      fs::path candidate = fs::path(std::string(dirs.substr(0, colon))) / cmd;
      if (::access(candidate.c_str(), X_OK) == 0) found = candidate;
      dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
    }
  }
  if (found.empty()) return {};
  std::string identity = file_identity(found.string());
  return identity.empty() ? std::string() : cmd + " -> " + identity;
}

}  // namespace

const std::string& host_compiler() {
  static const std::string cxx = [] {
    if (const char* v = std::getenv("CUDAKIT_CXX"); v && *v) return std::string(v);
    if (const char* v = std::getenv("CXX"); v && *v) return std::string(v);
    return std::string("c++");
  }();
  return cxx;
}

bool debug_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("CUDAKIT_CPU_DEBUG");
    return v && *v && std::string_view(v) != "0";
  }();
  return on;
}

const std::string& host_compiler_identity() {
  static const std::string identity = [] {
    std::string prelude(prelude_text());
    prelude += abi_text();
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx",
                  static_cast<unsigned long long>(XXH64(prelude.data(), prelude.size(), 0)));
    std::string id = compiler_file_identity();
    if (id.empty()) id = compiler_version_line() + " (" + host_compiler() + ")";
    // "instantiations": explicit kernel instantiations get table entries.
    id += std::string("; prelude ") + hash + "; -fno-strict-aliasing; instantiations";
    if (debug_enabled()) id += "; asan+ubsan";
    return id;
  }();
  return identity;
}

// The text of every header `source` includes (transitively), found as the
// compiler will: in-memory headers by name, then files in the including
// file's directory (quoted includes), the source's directory and the -I
// directories. Stub and system headers are not followed.
std::vector<std::string> included_headers(const std::string& source,
                                          const CompileRequest& request) {
  const CompileOptions& options = request.options;
  std::vector<fs::path> dirs;
  if (fs::path(request.source_name).has_parent_path())
    dirs.push_back(fs::path(request.source_name).parent_path());
  for (const auto& d : options.include_dirs) dirs.emplace_back(d);
  for (const auto& f : options.extra_flags)
    if (f.starts_with("-I") && f.size() > 2) dirs.emplace_back(f.substr(2));
  std::vector<std::string> texts;
  std::set<std::string> seen;
  std::vector<std::pair<std::string, fs::path>> work = {{source, fs::path()}};
  while (!work.empty() && seen.size() < 256) {
    auto [text, from_dir] = std::move(work.back());
    work.pop_back();
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t end = std::min(text.find('\n', at), text.size());
      const std::string line = text.substr(at, end - at);
      at = end + 1;
      auto hash = line.find_first_not_of(" \t");
      if (hash == std::string::npos || line[hash] != '#') continue;
      auto inc = line.find("include", hash);
      if (inc == std::string::npos) continue;
      auto open = line.find_first_of("\"<", inc);
      if (open == std::string::npos) continue;
      auto close = line.find(line[open] == '"' ? '"' : '>', open + 1);
      if (close == std::string::npos) continue;
      const std::string name = line.substr(open + 1, close - open - 1);
      std::string found_text, id;
      fs::path found_dir;
      for (const auto& [header, content] : options.headers)
        if (header == name) {
          found_text = content;
          id = "mem:" + name;
        }
      if (id.empty()) {
        std::vector<fs::path> candidates;
        if (line[open] == '"' && !from_dir.empty()) candidates.push_back(from_dir / name);
        for (const auto& d : dirs) candidates.push_back(d / name);
        for (const auto& c : candidates) {
          std::error_code ec;
          if (fs::is_regular_file(c, ec)) {
            found_text = read_text(c);
            id = fs::weakly_canonical(c, ec).string();
            found_dir = c.parent_path();
            break;
          }
        }
      }
      if (id.empty() || !seen.insert(id).second) continue;
      texts.push_back(found_text);
      work.emplace_back(found_text, found_dir);
    }
  }
  return texts;
}

CompiledCode compile_host_module(const CompileRequest& request) {
  const std::string context = "compiling " + request.source_name + " for the CPU backend";
  const CompileOptions& options = request.options;

  ScanResult scan = scan_kernel_source(request.source, options.defines);
  bool header_barrier = false;
  for (const auto& text : included_headers(request.source, request)) {
    ScanResult h = scan_kernel_source(text, options.defines);
    scan.unsupported.insert(scan.unsupported.end(), h.unsupported.begin(), h.unsupported.end());
    for (const auto& launch : h.device_launches)
      scan.unsupported.push_back(
          {"a device-side kernel launch in an included header (the CPU "
           "backend runs launches written in the source itself)",
           "<<<", launch.line});
    // Kernels defined in a header are the module's kernels too, as with NVRTC.
    for (auto& k : h.kernels) {
      bool known = false;
      for (const auto& mine : scan.kernels) known = known || mine.qualified == k.qualified;
      if (!known) scan.kernels.push_back(k);
    }
    for (auto& g : h.globals) {
      bool known = false;
      for (const auto& mine : scan.globals) known = known || mine.qualified == g.qualified;
      if (!known) scan.globals.push_back(g);
    }
    header_barrier = header_barrier || h.any_barrier;
  }
  for (const auto& [name, text] : options.headers)
    header_barrier = header_barrier || scan_kernel_source(text, options.defines).any_barrier;
  // A header's device functions may synchronize for any kernel that
  // includes it: those kernels take the fiber path.
  if (header_barrier) {
    scan.any_barrier = true;
    for (auto& k : scan.kernels) k.uses_barrier = true;
  }
  // A kernel launched from device code runs inline on the launching thread
  // (the prelude's device_launch): it must be defined here and must not wait
  // for the other threads of its block.
  for (const auto& launch : scan.device_launches) {
    const bool defined =
        std::any_of(scan.kernels.begin(), scan.kernels.end(),
                    [&](const ScannedKernel& k) { return k.name == launch.callee; });
    bool synchronizes = scan.function_uses_barrier(launch.callee);
    for (const auto& k : scan.kernels)
      synchronizes = synchronizes || (k.name == launch.callee && k.uses_barrier);
    if (!defined)
      scan.unsupported.push_back(
          {"a device-side launch of '" + launch.callee +
               "', a kernel this source does not define (linking kernels of several sources "
               "needs a GPU)",
           launch.callee, launch.line});
    else if (synchronizes)
      scan.unsupported.push_back(
          {"a device-side launch of '" + launch.callee +
               "', which synchronizes (__syncthreads or warp operations: the CPU backend runs "
               "a child grid one thread after the other)",
           launch.callee, launch.line});
  }
  if (!scan.unsupported.empty()) {
    std::string log;
    for (const auto& u : scan.unsupported)
      log += request.source_name + ":" + std::to_string(u.line) + ": error: " + u.construct +
             " ('" + u.token + "') cannot run on the CPU backend\n";
    const auto& first = scan.unsupported.front();
    throw CompileError(context + ": " + first.construct + " at line " + std::to_string(first.line),
                       log, request.source,
                       "run this kernel on a GPU, or give the CPU backend a portable version "
                       "(#ifdef __CUDAKIT_CPU__)");
  }

  check_no_overloads(scan, context, request.source, request.source_name);

  // Everything the host compiler reads, relative to one directory.
  SourceFiles inputs;
  for (const char* h : kStubHeaders)
    inputs.emplace_back(std::string("include/") + h, "#pragma once\n");
  // assert() as the prelude defines it, even after a kernel includes these
  // (they redefine the macro each time they are included, as C requires).
  for (const char* h : {"assert.h", "cassert"})
    inputs.emplace_back(
        std::string("include/") + h,
        "#undef assert\n#ifdef NDEBUG\n#define assert(e) ((void)0)\n#else\n"
        "#define assert(e) ((e) ? (void)0 : ::cudakit_cpu::assert_failed(#e, __FILE__, "
        "__LINE__))\n#endif\n");
  inputs.emplace_back("include/cudakit_cpu_prelude.h", std::string(prelude_text()));
  inputs.emplace_back("include/cudakit_cpu_abi.h", std::string(abi_text()));
  for (const auto& [name, text] : options.headers) inputs.emplace_back("include/" + name, text);
  const std::string source_file = file_name_of(request.source_name);
  // The source file holds exactly the user's lines, so a debugger showing
  // line N of it shows the user's line N: the extern "C" wrapping's opening
  // (toolkit includes, `extern "C" {`, then `#line 1`) goes into module.cpp
  // before the #include, and the closing brace stays at the file's end.
  std::string user_text;
  if (scan.device_launches.empty()) {
    user_text = rewrite_dynamic_shared(request.source, scan);
  } else {
    // The launches first; the dynamic shared declarations' offsets are then
    // read again from the rewritten text (every line keeps its number).
    const std::string launched = rewrite_device_launches(request.source, scan);
    user_text = rewrite_dynamic_shared(launched, scan_kernel_source(launched, options.defines));
  }
  std::string opening;
  constexpr std::string_view kWrapOpening = "extern \"C\" {\n#line 1\n";
  if (const auto at = user_text.find(kWrapOpening); at != std::string::npos) {
    opening = user_text.substr(0, at) + "extern \"C\" {\n";
    user_text.erase(0, at + kWrapOpening.size());
  }
  inputs.emplace_back(source_file, std::move(user_text));
  // No lowered names: the loader reads each kernel's real symbol (mangled
  // for C++ linkage) back from the module, and the core matches name
  // expressions against the demangled symbols as on the GPU.
  CompileOptions with_instantiations = options;
  for (auto& expression : explicit_kernel_instantiations(request.source)) {
    auto spaceless = [](std::string s) {
      std::erase_if(s, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
      return s;
    };
    const bool named = std::any_of(
        with_instantiations.name_expressions.begin(), with_instantiations.name_expressions.end(),
        [&](const std::string& given) { return spaceless(given) == spaceless(expression); });
    if (!named) with_instantiations.name_expressions.push_back(std::move(expression));
  }
  inputs.emplace_back("module.cpp", standard_headers_first(request.source, options) + opening +
                                        "#include " + quote(source_file) + "\n" +
                                        generate_tail(scan, with_instantiations));

  // A build with debug information reads its sources from a kept directory,
  // so gdb and the sanitizers can show the kernel's lines later; the
  // compiler's outputs always go to a private temporary one.
  const bool debug_info = debug_enabled() || options.debug || options.line_info;
  TempDir dir;
  fs::path source_dir = debug_info ? keep_sources(inputs) : fs::path();
  if (source_dir.empty()) {
    source_dir = dir.path();
    for (const auto& [name, text] : inputs) write_text(source_dir / name, text);
  }
  const fs::path include_dir = source_dir / "include";
  CompiledCode code;
  code.format = CodeFormat::host_object;
  code.arch = "cpu";

  std::string std_flag = options.std.empty() ? "c++17" : options.std;
  if (std_flag == "c++03" || std_flag == "c++11" || std_flag == "c++14") std_flag = "c++17";
  std::vector<std::string> argv = {host_compiler(), "-x", "c++", "-std=" + std_flag, "-fPIC",
                                   "-shared", "-fvisibility=hidden", "-pthread",
                                   // Kernels stay exported (their symbols are read back) yet
                                   // may still inline into the block loop.
                                   "-fno-semantic-interposition",
                                   // CUDA code reads memory through float4 / uint4 casts as a
                                   // matter of course; GCC's aliasing rules miscompiled such a
                                   // kernel (wrong bytes at -O2), nvcc does not assume them.
                                   "-fno-strict-aliasing"};
  // GCC marks inline statics "unique", which would pin modules in memory.
  if (host_compiler_identity().find("clang") == std::string::npos)
    argv.push_back("-fno-gnu-unique");
  if (debug_enabled()) {
    for (const char* f : {"-O0", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer"})
      argv.emplace_back(f);
  } else if (options.debug) {
    argv.emplace_back("-O0");
    argv.emplace_back("-g");
  } else {
    // -O2 and no -march=native: cached objects may be shared across machines.
    argv.emplace_back("-O2");
    if (options.line_info) argv.emplace_back("-g");
  }
  if (options.fast_math) argv.emplace_back("-ffast-math");
  argv.emplace_back("-include");
  argv.emplace_back("cudakit_cpu_prelude.h");
  argv.emplace_back("-I" + include_dir.string());
  if (fs::path(request.source_name).has_parent_path())
    argv.emplace_back("-I" + fs::path(request.source_name).parent_path().string());
  for (const auto& d : options.include_dirs) argv.emplace_back("-I" + d);
  for (const auto& [name, value] : options.defines)
    argv.emplace_back("-D" + name + (value.empty() ? "" : "=" + value));
  for (const auto& f : options.extra_flags)
    if (host_compatible_flag(f)) argv.emplace_back(f);
  argv.emplace_back("-o");
  argv.emplace_back((dir.path() / "module.so").string());
  argv.emplace_back((source_dir / "module.cpp").string());

  const fs::path log_path = dir.path() / "compile.log";
  int rc = run_process(argv, log_path.string());
  std::string log = read_text(log_path);
  // Paths into the compile's directories mean nothing to the user.
  for (const fs::path& d : {dir.path(), source_dir}) {
    const std::string prefix = d.string() + "/";
    for (std::size_t p; (p = log.find(prefix)) != std::string::npos;) log.erase(p, prefix.size());
  }
  if (rc < 0)
    throw Error(context, "cannot run the host compiler '" + host_compiler() + "'",
                "install a C++ compiler (g++ or clang++), or name one with CUDAKIT_CXX");
  if (rc != 0)
    throw CompileError(context, log, request.source,
                       log.find("cudakit_cpu_kernel_table") != std::string::npos
                           ? "a kernel or name expression could not be taken as a function "
                             "address (overloaded kernels are not supported on the CPU backend)"
                           : std::string{});
  std::string image = read_text(dir.path() / "module.so");
  code.image.assign(image.begin(), image.end());
  code.log = log;
  check_static_shared(code.image, context, request.source);
  return code;
}

}  // namespace cudakit::detail::cpu
