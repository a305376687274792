// The CPU backend's compile stage: a CUDA C source becomes a shared object
// built by the host C++ compiler (CUDAKIT_CXX, else CXX, else c++), with the
// prelude that turns the device language into host C++ and a generated
// table of the module's kernels and globals.
#pragma once

#include <string>
#include <string_view>

#include "backend/backend.hpp"
#include "cudakit/compiled_code.hpp"

namespace cudakit::detail::cpu {

// The compiler command as configured (CUDAKIT_CXX, CXX or c++).
const std::string& host_compiler();
// "c++ (Debian 12.2.0-14) 12.2.0; prelude 1a2b..; asan": changes whenever the
// output could change for the same source and options (compile-cache key).
const std::string& host_compiler_identity();
// CUDAKIT_CPU_DEBUG=1: -O0 -g with AddressSanitizer and UBSan.
bool debug_enabled();

// Throws CompileError with the compiler's output, or naming the construct
// the CPU backend cannot run.
CompiledCode compile_host_module(const CompileRequest& request);

// The prelude as shipped in the library (for tests and `--show-source`).
std::string_view prelude_text();
std::string_view abi_text();

}  // namespace cudakit::detail::cpu
