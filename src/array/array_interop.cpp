#include "cudakit/array_interop.hpp"

#include <charconv>
#include <memory>
#include <new>
#include <utility>

#include "array/array_util.hpp"
#include "cudakit/backend_kind.hpp"
#include "cudakit/error.hpp"
#include "cudakit/event.hpp"

namespace cudakit {
namespace {

using detail::array_error;
using namespace dlpack;

// What a DLPack export owns: the tensor handed out, the Array that keeps the
// memory alive, and the shape and strides the tensor points into.
template <class Managed>
struct ExportContext {
  Managed tensor{};
  Array array;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
};

template <class Managed>
void delete_export(Managed* self) {
  // The deleter may run on any thread, after the producer's objects are gone.
  delete static_cast<ExportContext<Managed>*>(self->manager_ctx);
}

template <class Managed>
ExportContext<Managed>* make_export(const Array& array, const char* context) {
  detail::check_valid(array, context);
  auto owned = std::make_unique<ExportContext<Managed>>();
  auto* ctx = owned.get();
  ctx->array = array;
  ctx->shape = array.shape();
  ctx->strides = array.strides();
  DLTensor& t = ctx->tensor.dl_tensor;
  t.data = array.data();
  t.device = dlpack_device(array);
  t.ndim = array.ndim();
  t.dtype = dlpack_dtype(array.dtype());
  // A 0-d tensor may have null shape and strides; pointing into empty
  // vectors is equally valid and simpler for consumers.
  t.shape = ctx->shape.data();
  t.strides = ctx->strides.data();
  t.byte_offset = 0;
  ctx->tensor.manager_ctx = ctx;
  ctx->tensor.deleter = &delete_export<Managed>;
  return owned.release();
}

std::string device_type_name(std::int32_t type) {
  switch (type) {
    case kDLCPU:
      return "kDLCPU";
    case kDLCUDA:
      return "kDLCUDA";
    case kDLCUDAHost:
      return "kDLCUDAHost";
    case kDLOpenCL:
      return "kDLOpenCL";
    case kDLVulkan:
      return "kDLVulkan";
    case kDLMetal:
      return "kDLMetal";
    case kDLVPI:
      return "kDLVPI";
    case kDLROCM:
      return "kDLROCM";
    case kDLROCMHost:
      return "kDLROCMHost";
    case kDLExtDev:
      return "kDLExtDev";
    case kDLCUDAManaged:
      return "kDLCUDAManaged";
    case kDLOneAPI:
      return "kDLOneAPI";
    case kDLWebGPU:
      return "kDLWebGPU";
    case kDLHexagon:
      return "kDLHexagon";
    case kDLMAIA:
      return "kDLMAIA";
    default:
      return "device type " + std::to_string(type);
  }
}

// The cudakit device a DLPack device names.
Device device_of(const DLDevice& d, const char* context) {
  const std::string what =
      device_type_name(d.device_type) + " device " + std::to_string(d.device_id);
  switch (d.device_type) {
    case kDLCUDA:
    case kDLCUDAManaged:
      if (!backend_available(BackendKind::cuda))
        array_error(context, "the tensor is on " + what + ", and there is no CUDA device here",
                    "copy it to host memory (kDLCPU) for the CPU backend");
      if (d.device_id < 0 || d.device_id >= Device::count(BackendKind::cuda))
        array_error(context, "the tensor is on " + what + ", and there are " +
                                 std::to_string(Device::count(BackendKind::cuda)) +
                                 " CUDA devices");
      return Device::get(BackendKind::cuda, d.device_id);
    case kDLCPU:
      return Device::get(BackendKind::cpu, 0);
    case kDLCUDAHost:
      array_error(context,
                  "the tensor is in pinned host memory (kDLCUDAHost), which cudakit arrays do "
                  "not view",
                  "copy it to the GPU (kDLCUDA) or export it as host memory (kDLCPU)");
    default:
      array_error(context, "the tensor is on " + what + ", which is neither a CUDA GPU nor the CPU",
                  "cudakit imports kDLCUDA, kDLCUDAManaged and kDLCPU tensors");
  }
}

std::string dlpack_type_string(DLDataType t) {
  return "(code " + std::to_string(t.code) + ", bits " + std::to_string(t.bits) + ", lanes " +
         std::to_string(t.lanes) + ")";
}

// Everything about a producer's tensor that can be checked before taking it
// over; throws without touching it.
Array view_of(const DLTensor& t, bool readonly, const char* context) {
  const Device device = device_of(t.device, context);
  const DType dtype = dtype_from_dlpack(t.dtype);
  if (t.ndim < 0) array_error(context, "negative ndim " + std::to_string(t.ndim));
  if (t.ndim > 0 && t.shape == nullptr) array_error(context, "the tensor has no shape array");
  Shape shape(t.shape, t.shape + t.ndim);
  std::vector<std::int64_t> strides_bytes;
  if (t.strides != nullptr && t.ndim > 0) {
    const auto item = static_cast<std::int64_t>(itemsize(dtype));
    for (int k = 0; k < t.ndim; ++k) strides_bytes.push_back(t.strides[k] * item);
  }
  const std::uint64_t base = reinterpret_cast<std::uintptr_t>(t.data);
  const std::int64_t count = detail::checked_shape_size(shape, itemsize(dtype), context);
  if (base == 0 && count > 0)
    array_error(context, "the tensor's data pointer is null and it has " + std::to_string(count) +
                             " elements");
  // A zero-size tensor may come with a null pointer; its offset means nothing.
  const std::uint64_t address = base == 0 ? 0 : base + t.byte_offset;
  return from_pointer(address, shape, strides_bytes, dtype, device, {}, readonly);
}

// The native handle of a stream named by a DLPack / CAI integer on `device`.
// 1 (the legacy default stream) is cudakit's null stream.
void* native_stream(const Device& device, std::intptr_t value, const char* context) {
  if (value == 0)
    array_error(context,
                "stream 0 is not allowed (ambiguous between the legacy and per-thread "
                "default streams)",
                "pass 1 for the legacy default stream or 2 for the per-thread default stream");
  if (value < 0) array_error(context, "invalid stream " + std::to_string(value));
  if (value == 1) return nullptr;
  if (value == 2 && device.backend_kind() == BackendKind::cpu)
    array_error(context, "the CPU backend has no per-thread default stream (2)");
  return reinterpret_cast<void*>(value);
}

// Work queued later on `consumer` waits for the work queued so far on `producer`.
void order_after(const Device& device, void* consumer, void* producer) {
  if (consumer == producer) return;
  DeviceScope scope(device);
  Event event(device, false);
  event.record(Stream::wrap(device, producer));
  Stream::wrap(device, consumer).wait(event);
}

}  // namespace

// ---- dtypes --------------------------------------------------------------------

DLDataType dlpack_dtype(DType dtype) noexcept {
  const auto bits = static_cast<std::uint8_t>(itemsize(dtype) * 8);
  if (is_bool(dtype)) return {kDLBool, 8, 1};
  if (is_signed_integer(dtype)) return {kDLInt, bits, 1};
  if (is_unsigned_integer(dtype)) return {kDLUInt, bits, 1};
  if (dtype == DType::bfloat16) return {kDLBfloat, 16, 1};
  if (is_complex(dtype)) return {kDLComplex, bits, 1};
  return {kDLFloat, bits, 1};
}

DType dtype_from_dlpack(DLDataType t) {
  const char* context = "reading a DLPack dtype";
  if (t.lanes != 1)
    array_error(context,
                "vector types (lanes " + std::to_string(t.lanes) + ") are not supported " +
                    dlpack_type_string(t),
                "export one element per lane: an array with a trailing axis of that length");
  for (int k = 0; k < dtype_count; ++k) {
    const auto d = static_cast<DType>(k);
    const DLDataType m = dlpack_dtype(d);
    if (m.code == t.code && m.bits == t.bits) return d;
  }
  throw NotSupported(context, "cudakit has no dtype for the DLPack type " + dlpack_type_string(t),
                     "convert it to a supported dtype (bool, int8-64, uint8-64, float16, "
                     "bfloat16, float32, float64, complex64, complex128) first");
}

// ---- DLPack --------------------------------------------------------------------

DLDevice dlpack_device(const Array& array) {
  detail::check_valid(array, "dlpack_device");
  return array.device().backend_kind() == BackendKind::cuda
             ? DLDevice{kDLCUDA, array.device().ordinal()}
             : DLDevice{kDLCPU, 0};
}

DLManagedTensorVersioned* to_dlpack_versioned(const Array& array, bool copy) {
  const char* context = "to_dlpack_versioned";
  detail::check_valid(array, context);
  const Array exported = copy ? array.copy() : array;
  auto* ctx = make_export<DLManagedTensorVersioned>(exported, context);
  ctx->tensor.version = {kMajorVersion, kMinorVersion};
  ctx->tensor.flags = copy ? kFlagIsCopied : array.readonly() ? kFlagReadOnly : 0;
  return &ctx->tensor;
}

DLManagedTensor* to_dlpack(const Array& array) {
  detail::check_valid(array, "to_dlpack");
  if (array.readonly())
    array_error("to_dlpack",
                "cannot export a read-only array through legacy DLPack, which cannot mark it "
                "read-only",
                "use to_dlpack_versioned (DLPack 1.0, `__dlpack__(max_version=(1, 0))`), or "
                "export a copy");
  return &make_export<DLManagedTensor>(array, "to_dlpack")->tensor;
}

Array from_dlpack(DLManagedTensorVersioned* tensor) {
  const char* context = "from_dlpack (DLPack 1.x)";
  if (tensor == nullptr) array_error(context, "null tensor");
  if (tensor->version.major != kMajorVersion)
    array_error(context,
                "the tensor is DLPack " + std::to_string(tensor->version.major) + "." +
                    std::to_string(tensor->version.minor) + "; cudakit reads major version " +
                    std::to_string(kMajorVersion),
                "ask the producer for DLPack 1.x (max_version=(1, 0))");
  Array array = view_of(tensor->dl_tensor, (tensor->flags & kFlagReadOnly) != 0, context);
  // Taken over only now that nothing can fail: the producer's deleter runs
  // when the last view of the memory goes.
  array.storage()->owner = std::shared_ptr<void>(tensor, [](void* p) {
    auto* t = static_cast<DLManagedTensorVersioned*>(p);
    if (t->deleter) t->deleter(t);
  });
  return array;
}

Array from_dlpack(DLManagedTensor* tensor) {
  const char* context = "from_dlpack (legacy DLPack)";
  if (tensor == nullptr) array_error(context, "null tensor");
  Array array = view_of(tensor->dl_tensor, false, context);
  array.storage()->owner = std::shared_ptr<void>(tensor, [](void* p) {
    auto* t = static_cast<DLManagedTensor*>(p);
    if (t->deleter) t->deleter(t);
  });
  return array;
}

void prepare_export(const Array& array, std::optional<std::intptr_t> consumer_stream) {
  const char* context = "preparing a DLPack export";
  detail::check_valid(array, context);
  const Device& device = array.device();
  if (device.backend_kind() == BackendKind::cpu) {
    if (consumer_stream)
      array_error(context,
                  "stream " + std::to_string(*consumer_stream) +
                      " given for a CPU-backend array, exported as kDLCPU memory, which takes "
                      "no stream",
                  "pass no stream (None) for host memory");
    array.stream().synchronize();
    return;
  }
  const std::intptr_t value = consumer_stream.value_or(1);
  if (value == -1) return;
  void* consumer = native_stream(device, value, context);
  order_after(device, consumer, array.stream_ref().native);
}

// ---- __cuda_array_interface__ ----------------------------------------------------

std::string typestr(DType dtype) {
  if (dtype == DType::bfloat16)
    throw NotSupported("typestr",
                       "bfloat16 has no __cuda_array_interface__ typestr (NumPy has "
                       "no such type)",
                       "exchange bfloat16 arrays through DLPack, or view the bits as uint16");
  char kind = 'f';
  if (is_bool(dtype))
    kind = 'b';
  else if (is_signed_integer(dtype))
    kind = 'i';
  else if (is_unsigned_integer(dtype))
    kind = 'u';
  else if (is_complex(dtype))
    kind = 'c';
  const std::size_t size = itemsize(dtype);
  return std::string(1, size == 1 ? '|' : '<') + kind + std::to_string(size);
}

DType dtype_from_typestr(std::string_view text) {
  const std::string context = "reading the typestr '" + std::string(text) + "'";
  auto malformed = [&]() -> DType {
    array_error(context, "not a NumPy typestr (byte order, kind, size: e.g. '<f4', '|b1')");
  };
  if (text.size() < 3) return malformed();
  const char order = text[0], kind = text[1];
  if (order != '<' && order != '>' && order != '|' && order != '=') return malformed();
  int size = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data() + 2, end, size);
  if (ec != std::errc() || ptr != end || size <= 0) return malformed();
  std::optional<DType> dtype;
  switch (kind) {
    case 'b':
      if (size == 1) dtype = DType::bool_;
      break;
    case 'i':
      if (size == 1 || size == 2 || size == 4 || size == 8)
        dtype = parse_dtype("int" + std::to_string(size * 8));
      break;
    case 'u':
      if (size == 1 || size == 2 || size == 4 || size == 8)
        dtype = parse_dtype("uint" + std::to_string(size * 8));
      break;
    case 'f':
      if (size == 2 || size == 4 || size == 8)
        dtype = parse_dtype("float" + std::to_string(size * 8));
      break;
    case 'c':
      if (size == 8 || size == 16) dtype = parse_dtype("complex" + std::to_string(size * 8));
      break;
    case 'M':
    case 'm':
    case 'O':
    case 'S':
    case 'U':
    case 'V':
      throw NotSupported(context, std::string("kind '") + kind + "' has no cudakit dtype",
                         "cudakit arrays hold bool, integer, floating and complex numbers");
    default:
      return malformed();
  }
  if (!dtype)
    throw NotSupported(context, "no cudakit dtype of kind '" + std::string(1, kind) + "' has " +
                                    std::to_string(size) + " bytes");
  if (order == '>' && size > 1)
    array_error(context, "big-endian data is not supported (the GPU is little-endian)",
                "byte-swap it first (numpy: a.astype(a.dtype.newbyteorder('<')))");
  return *dtype;
}

CudaArrayInterface cuda_array_interface(const Array& array) {
  const char* context = "cuda_array_interface";
  detail::check_valid(array, context);
  if (array.device().backend_kind() != BackendKind::cuda)
    array_error(context,
                "the array is on the CPU backend; __cuda_array_interface__ describes GPU memory",
                "use DLPack (to_dlpack_versioned), which exports CPU-backend arrays as kDLCPU");
  CudaArrayInterface cai;
  cai.typestr = typestr(array.dtype());
  cai.data = array.size() == 0 ? 0 : array.address();
  cai.readonly = array.readonly();
  cai.shape = array.shape();
  if (!array.is_c_contiguous()) cai.strides_bytes = array.strides_bytes();
  void* native = array.stream_ref().native;
  cai.stream = native == nullptr ? std::intptr_t{1} : reinterpret_cast<std::intptr_t>(native);
  return cai;
}

Array from_cuda_array_interface(const CudaArrayInterface& cai, std::shared_ptr<void> owner,
                                std::optional<Device> device, std::optional<Stream> stream) {
  const char* context = "from_cuda_array_interface";
  if (cai.masked)
    throw NotSupported(context, "masked arrays are not supported (the interface has a mask)",
                       "fill the masked elements and pass the array without its mask");
  if (cai.version < 0 || cai.version > 3)
    array_error(context, "version " + std::to_string(cai.version) +
                             " is not supported; cudakit reads versions 0 to 3");
  const DType dtype = dtype_from_typestr(cai.typestr);
  const Device dev = device ? *device : Device::current();
  std::vector<std::int64_t> strides;
  if (cai.strides_bytes) {
    strides = *cai.strides_bytes;
    if (strides.size() != cai.shape.size())
      array_error(context, std::to_string(strides.size()) + " strides for " +
                               std::to_string(cai.shape.size()) + " dimensions");
  }
  // Zero-size arrays carry data 0; from_pointer accepts that only for them.
  Array array = from_pointer(cai.data, cai.shape, strides, dtype, dev, std::move(owner),
                             cai.readonly, stream);
  if (cai.stream) {
    void* producer = native_stream(dev, *cai.stream, context);
    order_after(dev, array.stream_ref().native, producer);
  }
  return array;
}

}  // namespace cudakit
