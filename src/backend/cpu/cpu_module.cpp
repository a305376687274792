#include "backend/cpu/cpu_module.hpp"

#include <dlfcn.h>
#include <fenv.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "backend/cpu/block_runner.hpp"
#include "backend/cpu/device_memory.hpp"
#include "backend/cpu/fault_guard.hpp"
#include "backend/cpu/host_compiler.hpp"
#include "backend/cpu/static_shared.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail::cpu {
namespace {

const char* kContext = "loading a module on the CPU backend";

bool image_contains(const std::vector<std::uint8_t>& image, std::string_view text) {
  return std::search(image.begin(), image.end(), text.begin(), text.end()) != image.end();
}

Param make_param(const cudakit_cpu::ParamInfo& info) {
  Param p;
  p.size = info.size;
  p.align = info.align;
  p.scalar = static_cast<ScalarType>(info.scalar_kind);
  if (info.is_pointer)
    p.kind = ParamKind::pointer;
  else if (info.scalar_kind != 0)
    p.kind = ParamKind::scalar;
  else
    p.kind = ParamKind::aggregate;
  return p;
}

std::string unqualified(const std::string& name) {
  auto pos = name.rfind("::");
  return pos == std::string::npos ? name : name.substr(pos + 2);
}

}  // namespace

CpuModule::CpuModule(const CompiledCode& code) {
  if (code.format != CodeFormat::host_object)
    throw NotSupported(kContext,
                       std::string("the CPU backend runs host objects, not ") +
                           std::string(to_string(code.format)),
                       "compile the source for the CPU backend (arch \"cpu\")");
  // An object built under CUDAKIT_CPU_DEBUG needs AddressSanitizer's runtime
  // loaded before anything else; dlopen-ing it into a process without one
  // would abort the process.
  if (image_contains(code.image, "libasan.so") && !dlsym(RTLD_DEFAULT, "__asan_init"))
    throw NotSupported(kContext,
                       "this module was built with AddressSanitizer (CUDAKIT_CPU_DEBUG=1), and "
                       "this process does not have the sanitizer runtime loaded",
                       "run it with `cudakit run --sanitize -- PROGRAM`, or preload the "
                       "runtime: LD_PRELOAD=\"$(c++ -print-file-name=libasan.so) "
                       "$(c++ -print-file-name=libstdc++.so)\" ASAN_OPTIONS=detect_leaks=0");

  std::string dir =
      std::getenv("TMPDIR") && *std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  std::string templ = dir + "/cudakit-cpu-module-XXXXXX.so";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  int fd = mkstemps(buf.data(), 3);
  if (fd < 0)
    throw Error(kContext, "cannot create a file in " + dir + ": " + std::strerror(errno),
                "set TMPDIR to a writable directory");
  path_ = buf.data();
  std::size_t written = 0;
  while (written < code.image.size()) {
    ssize_t n = ::write(fd, code.image.data() + written, code.image.size() - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (written != code.image.size()) {
    ::unlink(path_.c_str());
    throw Error(kContext, "cannot write the module to " + path_, "check free space in " + dir);
  }
  // An object built with -ffast-math carries GCC's crtfastmath.o, whose
  // constructor turns on flush-to-zero and denormals-are-zero in the thread
  // that loads it: the host's own float arithmetic (numpy's, the caller's)
  // must not change because a kernel was loaded.
  fenv_t host_fp_env;
  fegetenv(&host_fp_env);
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  fesetenv(&host_fp_env);
  // The mapping keeps the object alive; the file is only needed by
  // symbolizers and debuggers, which read a build's debug information.
  const bool has_debug_info = image_contains(code.image, ".debug_line");
  if (!(debug_enabled() || has_debug_info) || !handle_) {
    ::unlink(path_.c_str());
    path_.clear();
  }
  if (!handle_) {
    const char* why = dlerror();
    throw Error(kContext, std::string("dlopen failed: ") + (why ? why : "unknown error"),
                "the object may come from another machine or compiler; clear the compile cache "
                "(CUDAKIT_CACHE_DIR) and retry");
  }
  using ModuleFn = const cudakit_cpu::ModuleInfo* (*)();
  auto fn = reinterpret_cast<ModuleFn>(dlsym(handle_, CUDAKIT_CPU_MODULE_SYMBOL));
  info_ = fn ? fn() : nullptr;
  if (!info_ || info_->abi_version != cudakit_cpu::kAbiVersion) {
    dlclose(handle_);
    handle_ = nullptr;
    throw Error(kContext,
                info_ ? "the module was built for another version of the CPU backend"
                      : "the object is not a cudakit CPU module",
                "clear the compile cache (CUDAKIT_CACHE_DIR) and compile again");
  }
  info_->init(&runtime_table());
  try {
    check_static_shared(code.image, kContext, {});
  } catch (...) {
    dlclose(handle_);
    handle_ = nullptr;
    throw;
  }
  const TlsSymbols shared_variables = read_tls_symbols(code.image);

  for (unsigned i = 0; i < info_->kernel_count; ++i) {
    const cudakit_cpu::KernelEntry& e = info_->kernels[i];
    auto k = std::make_unique<CpuKernel>();
    k->entry = &e;
    k->module = info_;
    k->name = e.name;
    k->symbol = e.name;
    // The exported symbol at the kernel's address is its real name: the C
    // name for extern "C" kernels, the mangled one for C++ linkage.
    Dl_info where{};
    if (e.address && dladdr(e.address, &where) && where.dli_sname && where.dli_saddr == e.address)
      k->symbol = where.dli_sname;
    k->static_shared = static_shared_bytes(shared_variables, k->symbol);
    for (std::size_t p = 0; p < e.param_count; ++p)
      k->layout.params.push_back(make_param(e.params[p]));
    std::size_t offset = 0;
    for (auto& p : k->layout.params) {
      offset = (offset + p.align - 1) / p.align * p.align;
      p.offset = offset;
      offset += p.size;
    }
    kernels_.push_back(std::move(k));
  }
  announce();
}

void CpuModule::announce() {
  for (unsigned i = 0; i < info_->global_count; ++i)
    DeviceMemory::instance().add_global(info_->globals[i].address, info_->globals[i].size);
  struct link_map* map = nullptr;
  if (dlinfo(handle_, RTLD_DI_LINKMAP, &map) != 0 || !map) return;
  struct Search {
    const struct link_map* map;
    std::vector<std::uintptr_t>* starts;
  } search{map, &code_starts_};
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_addr != s->map->l_addr || !info->dlpi_name ||
            std::strcmp(info->dlpi_name, s->map->l_name) != 0)
          return 0;
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& segment = info->dlpi_phdr[i];
          if (segment.p_type != PT_LOAD || !(segment.p_flags & PF_X)) continue;
          const std::uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
          add_kernel_code(begin, begin + segment.p_memsz);
          s->starts->push_back(begin);
        }
        return 1;
      },
      &search);
}

void CpuModule::forget() noexcept {
  for (std::uintptr_t begin : code_starts_) remove_kernel_code(begin);
  code_starts_.clear();
  if (!info_) return;
  for (unsigned i = 0; i < info_->global_count; ++i)
    DeviceMemory::instance().remove_global(info_->globals[i].address);
}

CpuModule::~CpuModule() {
  if (handle_) forget();
  if (handle_) dlclose(handle_);
  if (!path_.empty()) ::unlink(path_.c_str());
}

CpuKernel* CpuModule::find(const std::string& name) const {
  for (const auto& k : kernels_)
    if (k->symbol == name) return k.get();
  for (const auto& k : kernels_)
    if (k->name == name) return k.get();
  CpuKernel* match = nullptr;
  for (const auto& k : kernels_)
    if (unqualified(k->name) == name) {
      if (match) return nullptr;  // ambiguous
      match = k.get();
    }
  return match;
}

std::pair<void*, std::size_t> CpuModule::global(const std::string& name) const {
  for (unsigned i = 0; i < info_->global_count; ++i)
    if (name == info_->globals[i].name) return {info_->globals[i].address, info_->globals[i].size};
  for (unsigned i = 0; i < info_->global_count; ++i)
    if (name == unqualified(info_->globals[i].name))
      return {info_->globals[i].address, info_->globals[i].size};
  return {nullptr, 0};
}

}  // namespace cudakit::detail::cpu
