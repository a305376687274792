// Zero-copy exchange of arrays with other libraries: DLPack (PyTorch, JAX,
// NumPy, CuPy, ...) and __cuda_array_interface__ v3 (CuPy, Numba, PyTorch),
// including their stream rules. The Python binding only converts these C++
// structures to capsules and dicts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cudakit/array.hpp"

namespace cudakit {

// The DLPack ABI (dlpack.h v1.x), declared here so that no DLPack header is
// needed; the layout is checked against dlpack.h below.
namespace dlpack {

inline constexpr std::uint32_t kMajorVersion = 1;
inline constexpr std::uint32_t kMinorVersion = 0;

// DLManagedTensorVersioned::flags.
inline constexpr std::uint64_t kFlagReadOnly = 1ull << 0;  // DLPACK_FLAG_BITMASK_READ_ONLY
inline constexpr std::uint64_t kFlagIsCopied = 1ull << 1;  // DLPACK_FLAG_BITMASK_IS_COPIED

enum DLDeviceType : std::int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
};

enum DLDataTypeCode : std::uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DLPackVersion {
  std::uint32_t major;
  std::uint32_t minor;
};

struct DLDevice {
  DLDeviceType device_type;
  std::int32_t device_id;
};

struct DLDataType {
  std::uint8_t code;  // a DLDataTypeCode
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: C-contiguous
  std::uint64_t byte_offset;
};

// The pre-1.0 form, still what `__dlpack__()` without max_version hands out.
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  std::uint64_t flags;
  DLTensor dl_tensor;
};

static_assert(sizeof(DLDevice) == 8 && sizeof(DLDataType) == 4);
static_assert(sizeof(DLTensor) == 48 && offsetof(DLTensor, device) == 8 &&
              offsetof(DLTensor, ndim) == 16 && offsetof(DLTensor, dtype) == 20 &&
              offsetof(DLTensor, shape) == 24 && offsetof(DLTensor, strides) == 32 &&
              offsetof(DLTensor, byte_offset) == 40);
static_assert(sizeof(DLManagedTensor) == 64 && offsetof(DLManagedTensor, manager_ctx) == 48 &&
              offsetof(DLManagedTensor, deleter) == 56);
static_assert(sizeof(DLManagedTensorVersioned) == 80 &&
              offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
              offsetof(DLManagedTensorVersioned, deleter) == 16 &&
              offsetof(DLManagedTensorVersioned, flags) == 24 &&
              offsetof(DLManagedTensorVersioned, dl_tensor) == 32);

}  // namespace dlpack

// ---- DLPack -------------------------------------------------------------------
// What `__dlpack_device__()` returns: {kDLCUDA, ordinal} for GPU arrays,
// {kDLCPU, 0} for CPU-backend arrays (their memory is host memory).
dlpack::DLDevice dlpack_device(const Array& array);
// The DLPack code, bits and lanes of a dtype (bool: kDLBool, 8 bits).
dlpack::DLDataType dlpack_dtype(DType dtype) noexcept;
// The dtype of a DLPack type; NotSupported for types cudakit has no dtype
// for (float8, opaque handles), ArgumentError for lanes != 1.
DType dtype_from_dlpack(dlpack::DLDataType type);

// Exports a view of the array's memory (no copy). The returned tensor owns a
// copy of the Array, so the memory stays alive until the consumer calls its
// deleter (exactly once). Shape and strides are in elements; strides are
// always given. GPU arrays export kDLCUDA with the device's ordinal, CPU-
// backend arrays kDLCPU. byte_offset is 0 and data is element [0, ..., 0].
// Read-only arrays carry kFlagReadOnly. With `copy` (`__dlpack__(copy=True)`)
// the tensor views a new C-contiguous copy (queued on the array's stream),
// flagged kFlagIsCopied and writable. No synchronisation happens here: see
// prepare_export().
dlpack::DLManagedTensorVersioned* to_dlpack_versioned(const Array& array, bool copy = false);
// The legacy form. Read-only arrays are refused (ArgumentError), as NumPy
// does, because this form cannot say that the memory must not be written.
dlpack::DLManagedTensor* to_dlpack(const Array& array);

// Imports a producer's tensor as an Array viewing the same memory. On success
// cudakit owns the tensor and calls its deleter once, when the last view of
// the memory goes. On any error (ArgumentError: wrong device type, no such
// device, lanes != 1, unsupported major version, null data; NotSupported:
// dtypes cudakit lacks) the tensor is left untouched and still belongs to
// the caller. kDLCUDA and kDLCUDAManaged map to the CUDA device with that
// ordinal, kDLCPU to the CPU backend's device. The array lives on its
// device's default stream.
Array from_dlpack(dlpack::DLManagedTensorVersioned* tensor);
Array from_dlpack(dlpack::DLManagedTensor* tensor);

// The producer's half of the DLPack stream protocol (`__dlpack__(stream=s)`):
// orders the consumer's stream after the work queued on the array's stream,
// with an event and a stream wait (no host synchronisation), when the two
// differ. `consumer_stream` follows the DLPack convention for CUDA arrays:
//   nullopt: the legacy default stream (the specification's default),
//   -1: no synchronisation wanted, 1: the legacy default stream,
//   2: the per-thread default stream, > 2: a CUstream handle,
//   0 and other negative values: ArgumentError.
// For CPU-backend arrays (kDLCPU) only nullopt is allowed; it waits until the
// array's stream has finished, because a host consumer reads at once.
void prepare_export(const Array& array, std::optional<std::intptr_t> consumer_stream);

// ---- __cuda_array_interface__ v3 -------------------------------------------------
// NumPy's typestr: "|b1", "|i1", "<i4", "<u8", "<f2", "<f4", "<c8", "<c16", ...
// bfloat16 has none (NumPy lacks the type; PyTorch refuses it here too):
// NotSupported, with the hint to exchange it through DLPack.
std::string typestr(DType dtype);
// Accepts the byte orders '<', '=' and '|' (and '>' for one-byte types);
// '>' for a wider type is an ArgumentError (big-endian data), as is a
// malformed string; kinds cudakit has no dtype for ('M', 'm', 'O', 'S',
// 'U', 'V') are NotSupported.
DType dtype_from_typestr(std::string_view typestr);

// The dict `__cuda_array_interface__` returns, field for field.
struct CudaArrayInterface {
  std::uint64_t data = 0;  // 0 for zero-size arrays
  bool readonly = false;
  std::vector<std::int64_t> shape;
  // In bytes; absent for C-contiguous arrays, as the specification allows.
  std::optional<std::vector<std::int64_t>> strides_bytes;
  std::string typestr;
  int version = 3;
  // The stream the data is ready on: absent (no synchronisation needed), 1
  // for the legacy default stream, 2 for the per-thread default stream, or a
  // CUstream handle. 0 is not allowed.
  std::optional<std::intptr_t> stream;
  // Whether the producer's dict has a `mask` other than None: cudakit arrays
  // have no masks, so importing such an array is NotSupported.
  bool masked = false;
};

// The interface of a GPU array (no copy, no synchronisation: the consumer
// synchronises on `stream`). The stream is the array's own (1 when it is the
// device's default stream). CPU-backend arrays are an ArgumentError: the
// interface describes device memory only.
CudaArrayInterface cuda_array_interface(const Array& array);

// A view of the memory an interface describes; `owner` (the producer's
// object) is kept alive as long as any view of the memory exists. `device` is
// where the memory is (default: the current device). The new array lives on
// `stream` (default: the device's default stream); when the interface names
// a producer stream that differs, the array's stream waits for the producer's
// work through an event, without blocking the host; the array does not adopt
// the producer's stream, whose lifetime cudakit cannot see. Versions 0 to 3
// are accepted (a missing stream is simply no synchronisation).
Array from_cuda_array_interface(const CudaArrayInterface& cai, std::shared_ptr<void> owner,
                                std::optional<Device> device = std::nullopt,
                                std::optional<Stream> stream = std::nullopt);

}  // namespace cudakit
