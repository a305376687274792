// prepare_source and numbered_source: the source as compiled, and as shown
// in compile errors.
#include "source_text.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "cudakit/program.hpp"
#include "support/include_lines.hpp"

namespace cudakit {

namespace {
// Headers of the CUDA toolkit that hold C++ templates (and include guards).
bool is_toolkit_cxx_header(std::string_view name) {
  for (std::string_view prefix :
       {"cooperative_groups", "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda/", "cub/",
        "thrust/", "mma.h", "cuda_pipeline", "curand_kernel.h"})
    if (name.starts_with(prefix)) return true;
  return false;
}

// The C++ standard headers declare templates, which the host compiler (the
// CPU backend's, and nvcc's host pass) refuses with C linkage. NVRTC's
// stand-ins for them (backend/cuda/standard_headers.cpp) have guards; a
// header of the user's of the same name may not, and stays where it is.
bool is_standard_template_header(std::string_view name, const CompileOptions& options) {
  if (!detail::is_standard_cxx_header(name)) return false;
  return std::none_of(options.headers.begin(), options.headers.end(),
                      [&](const auto& header) { return header.first == name; });
}
}  // namespace

std::string prepare_source(std::string_view source, const CompileOptions& options) {
  if (options.no_extern_c) return std::string(source);
  // PyCUDA's wrapping, whole source included. `#line 1` makes the compiler
  // count lines as the user wrote them, so the log and the numbered source agree.
  std::string out;
  out.reserve(source.size() + 32);
  // The toolkit's C++ headers (cooperative_groups.h, cuda_fp16.h, cuda/...,
  // curand_kernel.h) hold templates, which may not have C linkage: include them once before
  // the block, where the user's own #include inside it is then a no-op (the
  // toolkit's include guards). PyCUDA makes such sources need
  // no_extern_c=True. Other headers stay where the user put them: a header
  // of the user's may have no guard.
  for (const detail::IncludeLine& include : detail::include_lines(source)) {
    if (include.angled && (is_toolkit_cxx_header(include.name) ||
                           is_standard_template_header(include.name, options))) {
      out += "#include <";
      out += include.name;
      out += ">\n";
    }
  }
  out += "extern \"C\" {\n#line 1\n";
  out += source;
  if (!source.empty() && source.back() != '\n') out += '\n';
  out += "}\n";
  return out;
}

std::string numbered_source(std::string_view source, int line, int context_lines) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= source.size()) {
    auto end = source.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < source.size()) lines.push_back(source.substr(start));
      break;
    }
    lines.push_back(source.substr(start, end - start));
    start = end + 1;
  }
  if (lines.empty() || line < 1 || line > static_cast<int>(lines.size())) return {};
  context_lines = std::max(context_lines, 0);
  int first = std::max(1, line - context_lines);
  int last = std::min(static_cast<int>(lines.size()), line + context_lines);
  int width = static_cast<int>(std::to_string(last).size());
  std::string out;
  for (int i = first; i <= last; ++i) {
    std::string number = std::to_string(i);
    out += i == line ? ">>" : "  ";
    out.append(static_cast<std::size_t>(width) - number.size(), ' ');
    out += number;
    out += " | ";
    std::string_view text = lines[static_cast<std::size_t>(i - 1)];
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    out += text;
    out += '\n';
  }
  return out;
}

namespace detail {
namespace {

// The line number in one log line: "name(13): ..." or "name:13:5: ...".
int line_number_in(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '(' && c != ':') continue;
    std::size_t j = i + 1;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j == i + 1 || j >= text.size()) continue;
    char close = text[j];
    if ((c == '(' && close == ')') || (c == ':' && close == ':')) {
      try {
        return std::stoi(std::string(text.substr(i + 1, j - i - 1)));
      } catch (...) {
        return 0;
      }
    }
  }
  return 0;
}

}  // namespace

int first_error_line(std::string_view log) {
  int first_any = 0;
  std::size_t start = 0;
  while (start < log.size()) {
    auto end = log.find('\n', start);
    std::string_view text =
        log.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    int n = line_number_in(text);
    if (n > 0) {
      if (text.find("error") != std::string_view::npos) return n;
      if (first_any == 0) first_any = n;
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return first_any;
}

}  // namespace detail
}  // namespace cudakit
