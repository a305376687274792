// The one exception hierarchy of cudakit. Every error says what cudakit was
// doing, what went wrong (with the CUDA / NVRTC status code and its name where
// there is one) and, for the failures users meet in the field, what to do.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudakit {

// Base of every cudakit exception. what() is the full, formatted message:
//   "<context>: <message> [CUDA_ERROR_X (700)]\n  hint: <hint>"
class Error : public std::runtime_error {
 public:
  Error(std::string context, std::string message, std::string hint = {}, int code = 0,
        std::string code_name = {});

  // The CUDA driver / NVRTC / cuBLAS status code, 0 when there is none.
  int code() const noexcept { return code_; }
  // Its symbolic name, e.g. "CUDA_ERROR_ILLEGAL_ADDRESS"; empty when none.
  const std::string& code_name() const noexcept { return code_name_; }
  // What cudakit was doing, e.g. "launching kernel vec_add (grid 4x1x1, block 256x1x1)".
  const std::string& context() const noexcept { return context_; }
  // The failure itself, without context or hint.
  const std::string& message() const noexcept { return message_; }
  // What the user can do about it; may be empty.
  const std::string& hint() const noexcept { return hint_; }

 private:
  std::string context_;
  std::string message_;
  std::string hint_;
  int code_;
  std::string code_name_;
};

// A vendor library could not be loaded. searched() lists every path tried.
class LibraryNotFound : public Error {
 public:
  LibraryNotFound(std::string library, std::vector<std::string> searched, std::string hint);
  const std::string& library() const noexcept { return library_; }
  const std::vector<std::string>& searched() const noexcept { return searched_; }

 private:
  std::string library_;
  std::vector<std::string> searched_;
};

// libcuda.so.1 (the NVIDIA driver) is missing.
class DriverNotFound : public LibraryNotFound {
 public:
  using LibraryNotFound::LibraryNotFound;
};

// libnvrtc (the CUDA run-time compiler) is missing.
class NvrtcNotFound : public LibraryNotFound {
 public:
  using LibraryNotFound::LibraryNotFound;
};

// libcublas is missing.
class CublasNotFound : public LibraryNotFound {
 public:
  using LibraryNotFound::LibraryNotFound;
};

// libnccl (NCCL, for Communicator on the CUDA backend) is missing.
class NcclNotFound : public LibraryNotFound {
 public:
  using LibraryNotFound::LibraryNotFound;
};

// Any CUDA driver error without a more specific class below.
class CudaError : public Error {
 public:
  using Error::Error;
};

// The driver is older than the toolkit cudakit compiles with.
class DriverTooOld : public Error {
 public:
  DriverTooOld(std::string context, int driver_version, int required_version);
  int driver_version() const noexcept { return driver_version_; }
  int required_version() const noexcept { return required_version_; }

 private:
  int driver_version_;
  int required_version_;
};

// The loaded code has no image for this device (wrong arch). cudakit's own
// compile path targets the device's exact arch, so this only comes from
// modules a user loads from files.
class NoKernelImage : public Error {
 public:
  using Error::Error;
};

// The compiler (NVRTC, or the host compiler on the CPU backend) rejected the
// source. message() holds the compiler log followed by the numbered source
// around the first failing line.
class CompileError : public Error {
 public:
  CompileError(std::string context, std::string log, std::string source, std::string hint = {},
               int code = 0, std::string code_name = {});
  const std::string& log() const noexcept { return log_; }
  const std::string& source() const noexcept { return source_; }

 private:
  std::string log_;
  std::string source_;
};

// Launch arguments that do not match the kernel's parameters, or a bad
// argument to any cudakit function.
class ArgumentError : public Error {
 public:
  using Error::Error;
};

// A launch configuration beyond the device's limits.
class LaunchConfigError : public Error {
 public:
  LaunchConfigError(std::string context, std::string limit, long long requested,
                    long long device_value, std::string hint = {});
  // Which limit, e.g. "max threads per block".
  const std::string& limit() const noexcept { return limit_; }
  long long requested() const noexcept { return requested_; }
  long long device_value() const noexcept { return device_value_; }

 private:
  std::string limit_;
  long long requested_;
  long long device_value_;
};

// An allocation the device (or host, for pinned memory) could not satisfy.
class OutOfMemory : public Error {
 public:
  OutOfMemory(std::string context, std::size_t requested, std::size_t free_bytes,
              std::size_t total_bytes, int code = 0, std::string code_name = {});
  std::size_t requested() const noexcept { return requested_; }
  std::size_t free_bytes() const noexcept { return free_; }
  std::size_t total_bytes() const noexcept { return total_; }

 private:
  std::size_t requested_;
  std::size_t free_;
  std::size_t total_;
};

// A kernel faulted (illegal address, misaligned access, trap, ...). The
// context is lost afterwards on a GPU; kernels() names the kernels that were
// in flight on the stream where it surfaced.
class KernelFault : public Error {
 public:
  KernelFault(std::string context, std::string message, std::vector<std::string> kernels,
              std::string hint, int code = 0, std::string code_name = {});
  const std::vector<std::string>& kernels() const noexcept { return kernels_; }

 private:
  std::vector<std::string> kernels_;
};

// A collective or point-to-point operation of a Communicator failed: ranks
// that disagree on what they called (count, dtype, op, root), a rank that
// never arrived within the communicator's timeout (missing_ranks() names
// it), a peer that disconnected, or NCCL's own error (code() and
// code_name() hold its ncclResult_t).
class CommunicatorError : public Error {
 public:
  CommunicatorError(std::string context, std::string message, std::string hint = {},
                    std::vector<int> missing_ranks = {}, int code = 0, std::string code_name = {});
  const std::vector<int>& missing_ranks() const noexcept { return missing_ranks_; }

 private:
  std::vector<int> missing_ranks_;
};

// The selected backend cannot do this (e.g. a PTX module on the CPU backend).
class NotSupported : public Error {
 public:
  using Error::Error;
};

}  // namespace cudakit
