#include "backend/cpu/static_shared.hpp"

#include <elf.h>

#include <cstdio>
#include <cstring>

#include "backend/cpu/cpu_module.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail::cpu {
namespace {

// Copies a T out of the image at `offset`; false when it lies outside.
template <class T>
bool read_at(std::span<const std::uint8_t> image, std::uint64_t offset, T& out) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, image.data() + offset, sizeof(T));
  return true;
}

// Calls `each(symbol, name)` for every symbol of the sections of `type`
// (SHT_SYMTAB or SHT_DYNSYM) of a 64-bit little-endian ELF image; anything
// else, or a damaged image, yields no symbols.
template <class F>
void for_each_symbol(std::span<const std::uint8_t> image, std::uint32_t type, F&& each) {
  Elf64_Ehdr header;
  if (!read_at(image, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr))
    return;
  for (unsigned s = 0; s < header.e_shnum; ++s) {
    Elf64_Shdr section, strings;
    if (!read_at(image, header.e_shoff + std::uint64_t{s} * sizeof(Elf64_Shdr), section) ||
        section.sh_type != type || section.sh_entsize != sizeof(Elf64_Sym) ||
        !read_at(image, header.e_shoff + std::uint64_t{section.sh_link} * sizeof(Elf64_Shdr),
                 strings))
      continue;
    const std::uint64_t count = section.sh_size / sizeof(Elf64_Sym);
    for (std::uint64_t i = 0; i < count; ++i) {
      Elf64_Sym symbol;
      if (!read_at(image, section.sh_offset + i * sizeof(Elf64_Sym), symbol)) break;
      const std::uint64_t at = strings.sh_offset + symbol.st_name;
      if (symbol.st_name >= strings.sh_size || at >= image.size()) continue;
      const char* begin = reinterpret_cast<const char*>(image.data() + at);
      const std::size_t limit = std::min<std::uint64_t>(image.size() - at, strings.sh_size);
      each(symbol, std::string(begin, strnlen(begin, limit)));
    }
  }
}

}  // namespace

TlsSymbols read_tls_symbols(std::span<const std::uint8_t> elf_image) {
  TlsSymbols out;
  for_each_symbol(elf_image, SHT_SYMTAB, [&](const Elf64_Sym& s, std::string name) {
    if (ELF64_ST_TYPE(s.st_info) == STT_TLS && s.st_shndx != SHN_UNDEF)
      out.emplace_back(std::move(name), static_cast<std::size_t>(s.st_size));
  });
  return out;
}

std::size_t static_shared_bytes(const TlsSymbols& symbols, const std::string& kernel_symbol) {
  // A local static's name is _ZZ <the function's encoding> E <its name>: the
  // encoding is the mangled symbol without _Z, or <length><name> for a C name.
  const std::string prefix =
      "_ZZ" +
      (kernel_symbol.rfind("_Z", 0) == 0 ? kernel_symbol.substr(2)
                                         : std::to_string(kernel_symbol.size()) + kernel_symbol) +
      "E";
  std::size_t total = 0;
  for (const auto& [name, size] : symbols)
    if (name.rfind(prefix, 0) == 0) total += size;
  return total;
}

std::vector<std::string> exported_functions(std::span<const std::uint8_t> elf_image) {
  std::vector<std::string> out;
  for_each_symbol(elf_image, SHT_DYNSYM, [&](const Elf64_Sym& s, std::string name) {
    if (ELF64_ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx != SHN_UNDEF)
      out.push_back(std::move(name));
  });
  return out;
}

// ptxas refuses a kernel whose static __shared__ variables exceed 48 KiB
// (only dynamic shared memory may go beyond, after an opt-in); so does the
// CPU backend, so that code it accepts also compiles for a GPU.
void check_static_shared(std::span<const std::uint8_t> image, const std::string& context,
                         const std::string& source) {
  const TlsSymbols variables = read_tls_symbols(image);
  if (variables.empty()) return;
  std::string log;
  for (const auto& symbol : exported_functions(image)) {
    const std::size_t bytes = static_shared_bytes(variables, symbol);
    if (bytes <= kStaticSharedLimit) continue;
    char line[256];
    std::snprintf(line, sizeof line,
                  "error: entry function '%s' uses too much shared data (0x%zx bytes, 0x%zx max)\n",
                  symbol.c_str(), bytes, kStaticSharedLimit);
    log += line;
  }
  if (!log.empty())
    throw CompileError(context, log, source,
                       "static __shared__ memory is limited to 48 KiB per block on a GPU: use "
                       "`extern __shared__` (dynamic) memory and set_max_dynamic_shared_memory "
                       "for more, or smaller tiles");
}

}  // namespace cudakit::detail::cpu
