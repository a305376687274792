// `cudakit compile`: NVRTC (or the CPU backend's host compiler) from the
// command line, with no GPU needed.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "cli_support.hpp"
#include "commands/commands.hpp"
#include "cudakit/cudakit.hpp"
#include "ptx_resources.hpp"

namespace cudakit::cli {
namespace {

// The source file: a regular file, or a pipe (`<(generate)`), read up to a
// cap; a directory or a device (/dev/zero never ends) is refused.
std::string read_file(const std::string& path) {
  constexpr std::size_t max_source_bytes = std::size_t(64) << 20;
  const std::string context = "reading " + path;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || status.type() == std::filesystem::file_type::not_found)
    throw ArgumentError(context, "cannot open the file: " + (ec ? ec.message() : "not found"),
                        "check the path");
  const auto type = status.type();
  if (type == std::filesystem::file_type::directory)
    throw ArgumentError(context, "it is a directory, not a CUDA C source file",
                        "pass the .cu file itself");
  if (type != std::filesystem::file_type::regular && type != std::filesystem::file_type::fifo)
    throw ArgumentError(context, "it is a device or socket, not a CUDA C source file",
                        "pass a .cu file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ArgumentError(context, "cannot open the file", "check its permissions");
  std::string text(max_source_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_source_bytes)
    throw ArgumentError(context, "the file is larger than " + format_bytes(max_source_bytes),
                        "pass a CUDA C source file");
  return text;
}

// A NUL byte or other control characters: an executable, an object file or
// an image, which the compiler would answer with pages of errors.
void check_is_text(const std::string& source, const std::string& path) {
  for (std::size_t k = 0; k < source.size(); ++k) {
    const auto c = static_cast<unsigned char>(source[k]);
    const bool control =
        c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' && c != 0x1b;
    if (control || c == 0x7f)
      throw ArgumentError("reading " + path,
                          "it is binary data, not CUDA C source text (byte " + std::to_string(c) +
                              " at offset " + std::to_string(k) + ")",
                          "pass the .cu source file; `cudakit compile` does not take compiled "
                          "code or other binaries");
  }
}

// The target the user asked for, as the compiled code names it: "sm_90",
// "compute_90" (PTX), "cpu".
std::string requested_target(const CompileCommandOptions& o) {
  if (o.ptx && o.arch.rfind("sm_", 0) == 0) return "compute_" + o.arch.substr(3);
  return o.arch;
}

void print_numbered(std::ostream& out, const std::string& source) {
  std::istringstream lines(source);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    std::string number = std::to_string(n);
    out << std::string(number.size() < 4 ? 4 - number.size() : 0, ' ') << number << " | " << line
        << '\n';
  }
}

CompileOptions to_compile_options(const CompileCommandOptions& o, const std::string& arch) {
  CompileOptions options;
  options.arch = arch;
  options.std = o.std;
  for (const auto& d : o.defines) {
    auto eq = d.find('=');
    if (eq == std::string::npos)
      options.defines.emplace_back(d, "");
    else
      options.defines.emplace_back(d.substr(0, eq), d.substr(eq + 1));
  }
  options.include_dirs = o.include_dirs;
  options.no_extern_c = o.no_extern_c;
  options.name_expressions = o.name_expressions;
  options.ptx_only = o.ptx;
  return options;
}

std::string ptx_text(const CompiledCode& code) {
  if (!code.ptx.empty()) return code.ptx;
  if (code.format == CodeFormat::ptx) {
    std::string text(code.image.begin(), code.image.end());
    while (!text.empty() && text.back() == '\0') text.pop_back();
    return text;
  }
  return {};
}

void print_ptx_resources(std::ostream& out, const std::string& ptx) {
  auto kernels = parse_ptx_resources(ptx);
  out << "resource usage (from the PTX; registers are virtual, ptxas allocates the real ones):\n";
  Table table({"kernel", "virtual regs", "pred regs", "static shared", "local", "params"});
  for (const auto& k : kernels)
    table.add({k.name, std::to_string(k.virtual_registers), std::to_string(k.predicate_registers),
               format_bytes(k.shared_bytes) + (k.uses_dynamic_shared ? " + dynamic" : ""),
               format_bytes(k.local_bytes), format_bytes(k.param_bytes)});
  table.print(out);
}

void print_loaded_resources(std::ostream& out, const Module& module) {
  out << "resource usage (from the loaded code on " << module.device().describe() << "):\n";
  Table table(
      {"kernel", "registers", "static shared", "local/thread", "const", "max threads/block"});
  for (const auto& name : module.kernel_names()) {
    auto a = module.kernel(name).attributes();
    table.add({name, std::to_string(a.registers), format_bytes(a.static_shared_bytes),
               format_bytes(a.local_bytes), format_bytes(a.const_bytes),
               std::to_string(a.max_threads_per_block)});
  }
  table.print(out);
}

}  // namespace

int run_compile(const CompileCommandOptions& o) {
  if (o.cubin && o.arch.rfind("compute_", 0) == 0)
    throw ArgumentError("compiling " + o.file + " for " + o.arch,
                        o.arch + " is a virtual arch: it yields PTX, not a cubin",
                        "use --arch sm_" + o.arch.substr(8) + " for a cubin, or --ptx");
  if (o.ptx && o.arch == "cpu")
    throw ArgumentError("compiling " + o.file + " for cpu", "the CPU backend makes no PTX",
                        "use --arch sm_90 --ptx for PTX");
  const std::string source = read_file(o.file);
  check_is_text(source, o.file);
  // With -o - the compiled code owns stdout; everything else goes to stderr.
  std::ostream& report = o.output == "-" ? std::cerr : std::cout;

  std::string arch = o.arch;
  const bool gpu = backend_available(BackendKind::cuda);
  if (arch.empty()) {
    if (gpu) {
      arch = default_arch(BackendKind::cuda);
    } else {
      arch = offline_gpu_arch;
      std::cerr << "note: no GPU found: compiling for " << arch
                << " (choose another target with --arch)\n";
    }
  }
  const BackendKind backend = arch == "cpu" ? BackendKind::cpu : BackendKind::cuda;
  CompileOptions options = to_compile_options(o, arch);

  if (o.show_source) {
    report << "source as compiled (" << o.file << "):\n";
    print_numbered(report, prepare_source(source, options));
  }

  CompiledCode code;
  const auto before = CompileCache::global().stats();
  Stopwatch clock;
  try {
    code = compile_only(source, options, backend);
  } catch (const CompileError& e) {
    std::cerr << "error: " << o.file << " failed to compile for " << arch << "\n"
              << e.what() << '\n';
    return 1;
  }
  const double ms = clock.ms();
  // NVRTC falls back to PTX for an arch it does not know (right for a device
  // newer than it); an arch named on the command line must be met exactly.
  if (!o.arch.empty() && code.arch != requested_target(o)) {
    std::cerr << "error: " << o.file << " was not compiled for " << o.arch << ": the compiler "
              << "produced " << to_string(code.format) << " for " << code.arch << " instead\n";
    if (!code.log.empty()) std::cerr << code.log << '\n';
    std::cerr << "hint: choose an arch this compiler supports (cudakit doctor lists them), e.g. "
                 "--arch sm_90\n";
    return 1;
  }
  const auto after = CompileCache::global().stats();
  const bool cached = CompileCache::global().enabled() && after.misses == before.misses;
  report << "compiled " << o.file << " for " << code.arch << ": " << to_string(code.format) << ", "
         << format_bytes(code.image.size()) << ", " << format_ms(ms) << " ms"
         << (cached ? " (from the compile cache)" : "") << "\n";
  for (const auto& [expression, lowered] : code.lowered_names)
    report << "  name expression " << expression << " -> " << lowered << '\n';
  if (!code.log.empty()) report << "compiler log:\n" << code.log << '\n';

  if (!o.output.empty()) {
    std::string bytes(code.image.begin(), code.image.end());
    if (code.format == CodeFormat::ptx)
      while (!bytes.empty() && bytes.back() == '\0') bytes.pop_back();
    if (o.output == "-") {
      std::cout.write(bytes.data(), std::streamsize(bytes.size()));
      std::cout.flush();
    } else {
      std::ofstream out(o.output, std::ios::binary);
      if (!out.write(bytes.data(), std::streamsize(bytes.size())))
        throw ArgumentError("writing " + o.output, "cannot write the output file",
                            "check that the directory exists and is writable");
      report << "wrote " << o.output << '\n';
    }
  } else {
    report << "(a check only: nothing written; -o FILE writes the " << to_string(code.format)
           << ", -o - prints it)\n";
  }

  if (o.resource_usage) {
    bool on_device = false;
    if (backend == BackendKind::cpu) {
      print_loaded_resources(report, Module::load(code, Device::get(BackendKind::cpu, 0)));
      on_device = true;
    } else if (gpu && code.format == CodeFormat::cubin) {
      Device device = Device::get(BackendKind::cuda, 0);
      if (device.arch() == code.arch) {
        print_loaded_resources(report, Module::load(code, device));
        on_device = true;
      }
    }
    if (!on_device) {
      std::string ptx = ptx_text(code);
      if (ptx.empty()) {
        // The cubin path kept no PTX: compile once more to PTX to read it.
        CompileOptions ptx_options = options;
        ptx_options.ptx_only = true;
        ptx = ptx_text(compile_only(source, ptx_options, backend));
      }
      print_ptx_resources(report, ptx);
    }
  }
  return 0;
}

}  // namespace cudakit::cli
