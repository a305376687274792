// Finding and opening a vendor shared library with dlopen. Each loader
// (libcuda, libnvrtc, libcublas) describes where to look as a SearchPlan; the
// plan is a plain value so tests can build one from a fake environment
// without touching the process-wide loaders.
#pragma once

#include <exception>
#include <mutex>
#include <string>
#include <vector>

namespace cudakit::detail {

struct SearchPlan {
  // What is tried, in order: absolute paths, or bare sonames that the
  // dynamic loader resolves through its own path (LD_LIBRARY_PATH, ld.so.cache).
  std::vector<std::string> candidates;
  // Set when the user named a location explicitly (CUDAKIT_NVRTC=...): then
  // the plan holds only that location, so a wrong setting is an error rather
  // than a silent fall-back to some other copy of the library.
  bool explicit_location = false;
};

// A location given by the user or the environment: a file is taken as it is;
// a directory contributes dir/soname for every soname.
void append_location(SearchPlan& plan, const std::string& location,
                     const std::vector<std::string>& sonames);
// The value of an environment variable, empty when unset.
std::string environment(const char* name);

struct OpenedLibrary {
  void* handle = nullptr;          // from dlopen; never closed (the process keeps it)
  std::string path;                // the candidate that opened
  std::vector<std::string> tried;  // every candidate, with dlerror() for the failed ones
};

// Tries every candidate in order; handle is null when none opened.
OpenedLibrary open_first(const SearchPlan& plan, int dlopen_flags);

// The directory of `path` ("" for a bare soname).
std::string directory_of(const std::string& path);
// Absolute path of the file a handle was loaded from (resolves bare sonames).
std::string loaded_path(void* handle, const char* any_symbol);

// A library's function table, loaded on the first get() (thread-safe); a
// failure to load is kept and thrown again by every later get().
template <class Table>
class LoadedOnce {
 public:
  template <class Load>
  const Table& get(Load&& load) {
    std::call_once(once_, [&] {
      try {
        table_ = load();
      } catch (...) {
        failure_ = std::current_exception();
      }
    });
    if (failure_) std::rethrow_exception(failure_);
    return table_;
  }

 private:
  std::once_flag once_;
  Table table_;
  std::exception_ptr failure_;
};

}  // namespace cudakit::detail
