#include "cudakit/error.hpp"

#include <cstdio>
#include <utility>

#include "cudakit/program.hpp"
#include "source_text.hpp"

namespace cudakit {
namespace {

std::string format_message(const std::string& context, const std::string& message,
                           const std::string& hint, int code, const std::string& code_name) {
  std::string text = context.empty() ? message : context + ": " + message;
  if (!code_name.empty())
    text += " [" + code_name + " (" + std::to_string(code) + ")]";
  else if (code != 0)
    text += " [code " + std::to_string(code) + "]";
  if (!hint.empty()) text += "\n  hint: " + hint;
  return text;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += sep;
    out += item;
  }
  return out;
}

}  // namespace

Error::Error(std::string context, std::string message, std::string hint, int code,
             std::string code_name)
    : std::runtime_error(format_message(context, message, hint, code, code_name)),
      context_(std::move(context)),
      message_(std::move(message)),
      hint_(std::move(hint)),
      code_(code),
      code_name_(std::move(code_name)) {}

LibraryNotFound::LibraryNotFound(std::string library, std::vector<std::string> searched,
                                 std::string hint)
    : Error("loading " + library,
            "could not load " + library + "; searched:\n    " + join(searched, "\n    "),
            std::move(hint)),
      library_(std::move(library)),
      searched_(std::move(searched)) {}

namespace {
std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
}  // namespace

DriverTooOld::DriverTooOld(std::string context, int driver_version, int required_version)
    : Error(std::move(context),
            "the NVIDIA driver supports CUDA " + version_text(driver_version) +
                " but this code needs CUDA " + version_text(required_version),
            "update the NVIDIA driver to one that supports CUDA " + version_text(required_version) +
                " or newer (nvidia-smi shows the supported CUDA version), or compile for an "
                "older arch / with an older toolkit",
            222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"),
      driver_version_(driver_version),
      required_version_(required_version) {}

namespace {
// The log, then the numbered source around the first line it names: the
// user sees the failing line without counting lines in an editor.
std::string compile_message(const std::string& log, const std::string& source) {
  std::string text = "compilation failed:\n" + log;
  int line = detail::first_error_line(log);
  std::string excerpt = line > 0 ? numbered_source(source, line) : std::string();
  if (!excerpt.empty()) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += "source around line " + std::to_string(line) + ":\n" + excerpt;
  }
  return text;
}
}  // namespace

CompileError::CompileError(std::string context, std::string log, std::string source,
                           std::string hint, int code, std::string code_name)
    : Error(std::move(context), compile_message(log, source), std::move(hint), code,
            std::move(code_name)),
      log_(std::move(log)),
      source_(std::move(source)) {}

LaunchConfigError::LaunchConfigError(std::string context, std::string limit, long long requested,
                                     long long device_value, std::string hint)
    : Error(std::move(context),
            limit + ": requested " + std::to_string(requested) + ", the device allows " +
                std::to_string(device_value),
            std::move(hint)),
      limit_(std::move(limit)),
      requested_(requested),
      device_value_(device_value) {}

namespace {
std::string bytes_text(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.2f %s", value, units[unit]);
  return buf;
}
}  // namespace

OutOfMemory::OutOfMemory(std::string context, std::size_t requested, std::size_t free_bytes,
                         std::size_t total_bytes, int code, std::string code_name)
    : Error(std::move(context),
            "out of memory: requested " + bytes_text(requested) + ", " + bytes_text(free_bytes) +
                " free of " + bytes_text(total_bytes),
            "free arrays you no longer need (MemoryPool::free_all() returns cached blocks), "
            "process the data in chunks, or use a device with more memory",
            code, std::move(code_name)),
      requested_(requested),
      free_(free_bytes),
      total_(total_bytes) {}

KernelFault::KernelFault(std::string context, std::string message, std::vector<std::string> kernels,
                         std::string hint, int code, std::string code_name)
    : Error(std::move(context),
            message +
                (kernels.empty() ? std::string() : "; kernel(s) in flight: " + join(kernels, ", ")),
            std::move(hint), code, std::move(code_name)),
      kernels_(std::move(kernels)) {}

CommunicatorError::CommunicatorError(std::string context, std::string message, std::string hint,
                                     std::vector<int> missing_ranks, int code,
                                     std::string code_name)
    : Error(std::move(context), std::move(message), std::move(hint), code, std::move(code_name)),
      missing_ranks_(std::move(missing_ranks)) {}

}  // namespace cudakit
