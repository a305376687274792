// Names of the backends and the choice of the default one.
#include "cudakit/backend_kind.hpp"

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
  if (text == "cuda" || text == "gpu") return BackendKind::cuda;
  if (text == "cpu") return BackendKind::cpu;
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
                            "set CUDAKIT_BACKEND to 'cuda' or 'cpu', or unset it to choose "
                            "automatically");
      return *parsed;
    }
    return backend_available(BackendKind::cuda) ? BackendKind::cuda : BackendKind::cpu;
  }();
  return chosen;
}

}  // namespace cudakit
