#include "core/regular_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cudakit::detail {

std::string describe_file_type(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::optional<RegularFile> open_regular_file(const std::string& path, std::string* why) {
  RegularFile file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0) {
    if (why) *why = errno == ENOENT ? "does not exist" : std::strerror(errno);
    return std::nullopt;
  }
  if (::fstat(file.fd, &file.status) != 0 || !S_ISREG(file.status.st_mode)) {
    if (why) *why = "is " + describe_file_type(file.status.st_mode) + ", not a regular file";
    ::close(file.fd);
    return std::nullopt;
  }
  // Reads of a regular file never block; clear the flag all the same so the
  // descriptor behaves as an ordinary one.
  const int flags = ::fcntl(file.fd, F_GETFL);
  if (flags >= 0) ::fcntl(file.fd, F_SETFL, flags & ~O_NONBLOCK);
  return file;
}

std::vector<char> read_all(const RegularFile& file) {
  std::vector<char> bytes(static_cast<std::size_t>(file.status.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(file.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace cudakit::detail
