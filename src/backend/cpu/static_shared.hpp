// Static __shared__ memory of CPU-backend kernels. The prelude makes each
// `__shared__` variable a function-local `static thread_local`, so the host
// compiler leaves one TLS symbol per variable in the module, mangled inside
// its function ("_ZZ3k40PfE3big" for `big` in `k40(float*)`). Their sizes,
// summed per kernel, are what ptxas reports as the kernel's static shared
// memory, and the same limits apply to them as on a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace cudakit::detail::cpu {

// The TLS symbols of a shared object's image: name and size.
using TlsSymbols = std::vector<std::pair<std::string, std::size_t>>;
TlsSymbols read_tls_symbols(std::span<const std::uint8_t> elf_image);

// The bytes of the static shared variables declared in the kernel whose
// symbol is `kernel_symbol` ("k" for extern "C", "_Z3k40Pf" otherwise).
// Variables at namespace scope or in functions the kernel calls are not
// counted (they cannot be attributed to one kernel from the symbols).
std::size_t static_shared_bytes(const TlsSymbols& symbols, const std::string& kernel_symbol);

// The symbols of the module's kernels (functions the module exports).
std::vector<std::string> exported_functions(std::span<const std::uint8_t> elf_image);

// CompileError, as ptxas gives, when a kernel of the module declares more
// than 48 KiB of static shared memory. Run after compiling and again at
// load, for modules compiled before the check existed (from a cache).
void check_static_shared(std::span<const std::uint8_t> image, const std::string& context,
                         const std::string& source);

}  // namespace cudakit::detail::cpu
