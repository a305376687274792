#include "platform/file_identity.hpp"

#include <limits.h>
#include <sys/stat.h>

#include <cstdlib>

namespace cudakit::detail {

std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  char real[PATH_MAX];
  const char* resolved = ::realpath(path.c_str(), real) ? real : path.c_str();
  return std::string(resolved) + " " + std::to_string(st.st_size) + " " +
         std::to_string(static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL +
                        st.st_mtim.tv_nsec);
}

}  // namespace cudakit::detail
