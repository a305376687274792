#include "debug/program_search.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string_view>

namespace cudakit::cli {

bool is_executable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

std::string find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return is_executable(name) ? name : std::string();
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (!dirs.empty()) {
    auto colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (!dir.empty() && is_executable(dir + "/" + name)) return dir + "/" + name;
    dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
  }
  return {};
}

namespace {

// `CXX -print-file-name=NAME` for the compiler the CPU backend uses; empty
// when the compiler has no such file (it then echoes the bare name back).
std::string compiler_file(const char* name) {
  std::string cxx = "c++";
  if (const char* v = std::getenv("CUDAKIT_CXX"); v && *v)
    cxx = v;
  else if (const char* w = std::getenv("CXX"); w && *w)
    cxx = w;
  std::string out;
  if (FILE* p = popen((cxx + " -print-file-name=" + name + " 2>/dev/null").c_str(), "r")) {
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (out.empty() || out.front() != '/' || ::access(out.c_str(), R_OK) != 0) return {};
  return out;
}

}  // namespace

std::string asan_runtime() { return compiler_file("libasan.so"); }

std::string cxx_runtime() {
  for (const char* name : {"libstdc++.so", "libstdc++.so.6"})
    if (std::string found = compiler_file(name); !found.empty()) return found;
  // The compiler knows none (a toolchain outside the system's): the C++
  // runtime this program itself runs on.
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&std::terminate), &info) != 0 && info.dli_fname &&
      std::string_view(info.dli_fname).find("libstdc++") != std::string_view::npos)
    return info.dli_fname;
  return {};
}

int exec_command(const std::vector<std::string>& command, const char* who) {
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  ::execvp(argv[0], argv.data());
  const int error = errno;
  std::cerr << "cudakit " << who << ": cannot start '" << command.front()
            << "': " << std::strerror(error)
            << (error == ENOENT ? " (not found; give a path or a program on PATH)" : "") << '\n';
  return error == ENOENT ? 127 : 126;
}

}  // namespace cudakit::cli
