// Format sniffing for Module::load_file. The signatures:
// - cubin: an ELF file whose e_machine is EM_CUDA (190). Its arch is in
//   e_flags: bits 8-15 from ELF ABI version 8 (CUDA 12.8 on), bits 0-7 before.
// - CPU backend object: an ELF shared object (ET_DYN) for any other machine.
// - fatbin: the fatbin header's magic 0xBA55ED50, little endian, at offset 0
//   (what nvcc -fatbin writes and cuModuleLoadData accepts; the
//   FATBINC_MAGIC of fatbinary_section.h, 0x466243B1, marks the wrapper
//   struct inside a host object, not a file format).
// - PTX: text whose first token after comments and blank space is .version.
#include "module_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "core/regular_file.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

constexpr std::uint16_t em_cuda = 190;
constexpr std::uint16_t et_rel = 1, et_exec = 2, et_dyn = 3;
constexpr std::uint32_t fatbin_magic = 0xBA55ED50u;

std::uint32_t read_le(std::span<const std::uint8_t> b, std::size_t at, int n) {
  std::uint32_t v = 0;
  for (int i = n; i-- > 0;) v = (v << 8) | b[at + static_cast<std::size_t>(i)];
  return v;
}
std::uint32_t read_be(std::span<const std::uint8_t> b, std::size_t at, int n) {
  std::uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | b[at + static_cast<std::size_t>(i)];
  return v;
}

std::string machine_name(std::uint16_t machine) {
  switch (machine) {
    case 3:
      return "x86";
    case 62:
      return "x86-64";
    case 183:
      return "AArch64";
    case 21:
      return "PowerPC64";
    case 243:
      return "RISC-V";
    default:
      return "machine " + std::to_string(machine);
  }
}

std::string elf_type_name(std::uint16_t type) {
  switch (type) {
    case et_rel:
      return "relocatable object";
    case et_exec:
      return "executable";
    case et_dyn:
      return "shared object";
    default:
      return "file of type " + std::to_string(type);
  }
}

void sniff_elf(std::span<const std::uint8_t> b, SniffedFormat& out) {
  if (b.size() < 20) {
    out.found = "a truncated ELF file (" + std::to_string(b.size()) + " bytes)";
    out.rejected = true;
    return;
  }
  const bool little = b[5] != 2;  // EI_DATA
  auto rd = [&](std::size_t at, int n) { return little ? read_le(b, at, n) : read_be(b, at, n); };
  const auto type = static_cast<std::uint16_t>(rd(16, 2));
  const auto machine = static_cast<std::uint16_t>(rd(18, 2));
  if (machine == em_cuda) {
    out.format = CodeFormat::cubin;
    const std::size_t flags_at = b[4] == 2 ? 48 : 36;  // EI_CLASS: ELF64 or ELF32
    if (b.size() >= flags_at + 4) {
      const std::uint32_t flags = rd(flags_at, 4);
      const std::uint32_t sm = b[8] >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
      if (sm != 0) out.arch = "sm_" + std::to_string(sm);
    }
    out.found = "an ELF cubin" + (out.arch.empty() ? std::string() : " for " + out.arch);
    return;
  }
  out.found = "an ELF " + elf_type_name(type) + " for " + machine_name(machine);
  if (type == et_dyn) {
    out.format = CodeFormat::host_object;
    out.arch = "cpu";
  } else {
    out.rejected = true;
  }
}

// Skips blank space and // or /* */ comments from `i`.
std::size_t skip_comments(std::string_view t, std::size_t i) {
  while (i < t.size()) {
    if (std::isspace(static_cast<unsigned char>(t[i]))) {
      ++i;
    } else if (t.compare(i, 2, "//") == 0) {
      i = t.find('\n', i);
      if (i == std::string_view::npos) return t.size();
    } else if (t.compare(i, 2, "/*") == 0) {
      i = t.find("*/", i + 2);
      if (i == std::string_view::npos) return t.size();
      i += 2;
    } else {
      break;
    }
  }
  return i;
}

bool is_text(std::span<const std::uint8_t> b) {
  const std::size_t n = std::min<std::size_t>(b.size(), 4096);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char c = b[i];
    if (c == 0 && i + 1 == b.size()) break;  // a C string's terminator
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v') return false;
  }
  return true;
}

void sniff_text(std::span<const std::uint8_t> b, SniffedFormat& out) {
  std::string_view t(reinterpret_cast<const char*>(b.data()), b.size());
  std::size_t i = skip_comments(t, 0);
  if (t.compare(i, 8, ".version") == 0) {
    out.format = CodeFormat::ptx;
    out.found = "PTX text";
    if (auto at = t.find(".target"); at != std::string_view::npos) {
      std::size_t p = at + 7;
      while (p < t.size() && (t[p] == ' ' || t[p] == '\t')) ++p;
      std::size_t end = p;
      while (end < t.size() && (std::isalnum(static_cast<unsigned char>(t[end])) || t[end] == '_'))
        ++end;
      std::string target(t.substr(p, end - p));
      if (target.starts_with("sm_")) out.arch = "compute_" + target.substr(3);
      if (!out.arch.empty()) out.found += " for " + out.arch;
    }
    return;
  }
  if (i == t.size()) {
    out.found = "text with nothing but blank space and comments";
    return;
  }
  std::string line(t.substr(i, std::min<std::size_t>(t.find('\n', i) - i, 40)));
  out.found = "text beginning \"" + line + "\"";
  if (t.find("__global__") != std::string_view::npos) out.found += " (CUDA C source, not compiled)";
}

std::string hex_prefix(std::span<const std::uint8_t> b) {
  std::string s;
  const std::size_t n = std::min<std::size_t>(b.size(), 8);
  for (std::size_t i = 0; i < n; ++i) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    if (i) s += ' ';
    s += buf;
  }
  return s;
}

std::optional<CodeFormat> format_from_extension(const std::filesystem::path& path) {
  auto ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".cubin") return CodeFormat::cubin;
  if (ext == ".ptx") return CodeFormat::ptx;
  if (ext == ".fatbin" || ext == ".fatbinary") return CodeFormat::fatbin;
  if (ext == ".so") return CodeFormat::host_object;
  return std::nullopt;
}

constexpr const char* formats_hint =
    "load_file takes a cubin (nvcc -cubin, or NVRTC's cubin), a fatbin (nvcc -fatbin), PTX "
    "text (nvcc -ptx), or a shared object built by the CPU backend's compiler";

}  // namespace

SniffedFormat sniff_code_format(std::span<const std::uint8_t> bytes) {
  SniffedFormat out;
  if (bytes.empty()) {
    out.found = "nothing (0 bytes)";
    return out;
  }
  if (bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' &&
      bytes[3] == 'F') {
    sniff_elf(bytes, out);
    return out;
  }
  if (bytes.size() >= 4 && read_le(bytes, 0, 4) == fatbin_magic) {
    out.format = CodeFormat::fatbin;
    out.found = "a fatbin";
    return out;
  }
  if (is_text(bytes)) {
    sniff_text(bytes, out);
    return out;
  }
  out.found = "binary data beginning " + hex_prefix(bytes) + " (not ELF, not a fatbin)";
  return out;
}

CompiledCode read_module_file(const std::filesystem::path& path) {
  const std::string context = "loading module " + path.string();
  // Not a blocking open, and only a regular file: a named pipe would hang
  // the load and a device (/dev/zero) would never end.
  std::string why;
  const auto file = detail::open_regular_file(path.string(), &why);
  if (!file)
    throw ArgumentError(context, "the file cannot be opened: the path " + why,
                        "pass a module file (a cubin, PTX, fatbin or CPU shared object)");
  CompiledCode code;
  const std::vector<char> bytes = detail::read_all(*file);
  ::close(file->fd);
  code.image.assign(bytes.begin(), bytes.end());
  SniffedFormat sniffed = sniff_code_format(code.image);
  if (sniffed.rejected || code.image.empty())
    throw ArgumentError(context, "the file holds " + sniffed.found + ", which cannot be loaded",
                        formats_hint);
  if (sniffed.format) {
    code.format = *sniffed.format;
    code.arch = sniffed.arch;
  } else if (auto by_name = format_from_extension(path)) {
    // Unrecognised content under a known name: the loader's own error will
    // say what is wrong with it.
    code.format = *by_name;
    if (code.format == CodeFormat::host_object) code.arch = "cpu";
  } else {
    throw ArgumentError(context,
                        "the file holds " + sniffed.found +
                            ": none of the module formats, and its name (extension '" +
                            path.extension().string() + "') does not say which it is",
                        formats_hint);
  }
  if (code.format == CodeFormat::ptx) {
    while (!code.image.empty() && code.image.back() == 0) code.image.pop_back();
    code.ptx.assign(code.image.begin(), code.image.end());
    code.image.push_back(0);  // the driver reads PTX as a C string
  }
  return code;
}

CompiledCode code_from_image(std::span<const std::uint8_t> image) {
  const std::string context = "loading a module from " + std::to_string(image.size()) + " bytes";
  CompiledCode code;
  code.image.assign(image.begin(), image.end());
  SniffedFormat sniffed = sniff_code_format(code.image);
  if (sniffed.rejected || code.image.empty() || !sniffed.format)
    throw ArgumentError(context,
                        code.image.empty()
                            ? std::string("the buffer is empty")
                            : "the buffer holds " + sniffed.found + ", which cannot be loaded",
                        formats_hint);
  code.format = *sniffed.format;
  code.arch = sniffed.arch;
  if (code.format == CodeFormat::ptx) {
    while (!code.image.empty() && code.image.back() == 0) code.image.pop_back();
    code.ptx.assign(code.image.begin(), code.image.end());
    code.image.push_back(0);
  }
  return code;
}

}  // namespace cudakit::detail
