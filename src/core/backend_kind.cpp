// Names of the backends and the choice of the default one.
#include "cudakit/backend_kind.hpp"

#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>

#include "backend/backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit {

std::string_view to_string(BackendKind kind) noexcept {
  return kind == BackendKind::cuda ? "cuda" : "cpu";
}

std::optional<BackendKind> parse_backend_kind(std::string_view text) noexcept {
  // Any case: CUDA, GPU and cpu are the same names as cuda, gpu and cpu.
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "cuda" || lower == "gpu") return BackendKind::cuda;
  if (lower == "cpu") return BackendKind::cpu;
  return std::nullopt;
}

bool backend_available(BackendKind kind) {
  if (kind == BackendKind::cpu) return true;
  try {
    return detail::backend(kind).device_count() > 0;
  } catch (const Error&) {
    return false;
  }
}

BackendKind default_backend_kind() {
  static const BackendKind chosen = [] {
    if (const char* env = std::getenv("CUDAKIT_BACKEND"); env && *env) {
      auto parsed = parse_backend_kind(env);
      if (!parsed)
        throw ArgumentError("reading CUDAKIT_BACKEND", std::string("unknown backend '") + env + "'",
                            "set CUDAKIT_BACKEND to 'cuda' (also 'gpu') or 'cpu', in any case, "
                            "or unset it to choose automatically");
      return *parsed;
    }
    return backend_available(BackendKind::cuda) ? BackendKind::cuda : BackendKind::cpu;
  }();
  return chosen;
}

}  // namespace cudakit
