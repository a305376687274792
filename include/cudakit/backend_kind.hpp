// Which implementation runs the work: the NVIDIA GPU through the CUDA driver,
// or the CPU backend that runs the same CUDA C kernels on host threads.
#pragma once

#include <optional>
#include <string_view>

namespace cudakit {

enum class BackendKind { cuda, cpu };

std::string_view to_string(BackendKind kind) noexcept;
// "cuda" / "cpu"; nullopt for anything else.
std::optional<BackendKind> parse_backend_kind(std::string_view text) noexcept;

// The backend used when none is named: CUDAKIT_BACKEND=cuda|cpu if set
// (an invalid value is an ArgumentError), else cuda when a driver loads and
// reports at least one device, else cpu. Decided once per process.
BackendKind default_backend_kind();

// Whether a backend can be used at all on this machine (cuda: driver loads and
// a device exists; cpu: always true).
bool backend_available(BackendKind kind);

}  // namespace cudakit
