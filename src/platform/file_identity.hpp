// What names one version of a compiler in the compile-cache key without
// loading or running it: its resolved file, size and modification time.
#pragma once

#include <string>

namespace cudakit::detail {

// "<real path> <size> <mtime ns>" of a regular file; empty when there is none.
std::string file_identity(const std::string& path);

}  // namespace cudakit::detail
