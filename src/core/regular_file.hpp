// Reading files whose path someone else may control (cache entries, included
// headers, module files): opened without blocking, so a named pipe at the
// path cannot hang the reader, and read only when it is a regular file.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cudakit::detail {

// An open regular file: fd (closed by the caller) and its fstat.
struct RegularFile {
  int fd = -1;
  struct stat status {};
};

// Opens `path` read-only with O_NONBLOCK (a FIFO opens at once instead of
// waiting for a writer), then keeps it only if fstat says it is a regular
// file. nullopt otherwise, with `why` (when given) saying what the path is:
// "does not exist", "is a directory", "is a named pipe (FIFO)", ...
std::optional<RegularFile> open_regular_file(const std::string& path, std::string* why = nullptr);

// What a stat mode is, in words ("a directory", "a named pipe (FIFO)", ...).
std::string describe_file_type(mode_t mode);

// Reads the whole of an open regular file (what it holds now, if it shrank).
std::vector<char> read_all(const RegularFile& file);

}  // namespace cudakit::detail
