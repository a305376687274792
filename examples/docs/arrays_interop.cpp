// The complete program of the C++ fragments in docs/guide/arrays-interop.md: each fragment,
// verbatim between "// ---" lines, in a function named after its section, with
// what it needs before it and checks of its result after it. Runs as the ctest
// test example.docs_arrays_interop (on a GPU where there is one, else on the CPU backend).
#include <cstdio>
#include <cudakit/cudakit.hpp>

#include "doc_sections.hpp"

namespace ck = cudakit;

namespace {

int dlpack() {
  std::optional<std::intptr_t> consumer_stream;
  ck::dlpack::DLManagedTensorVersioned* producer_tensor =
      ck::to_dlpack_versioned(ck::ones({5}, ck::DType::float64));

  // --- docs/guide/arrays-interop.md, "DLPack" ---
  // clang-format off
  namespace ck = cudakit;
  ck::Array a = ck::arange(0.0, 12.0, 1.0, ck::DType::float32).reshape({3, 4});

  // Export (what `__dlpack__` hands out): a view, shape and strides in elements.
  ck::prepare_export(a, consumer_stream);               // the stream handshake, below
  ck::dlpack::DLManagedTensorVersioned* t = ck::to_dlpack_versioned(a.T());
  // ... the consumer calls t->deleter(t) exactly once when it is done.

  // Import (what `from_dlpack` does): cudakit now owns `producer_tensor`.
  ck::Array b = ck::from_dlpack(producer_tensor);       // DLManagedTensorVersioned* or DLManagedTensor*
  // clang-format on
  // ---
  t->deleter(t);
  if (b.size() != 5 || b.item(4).as_double() != 1.0) return 1;
  return 0;
}

int cuda_array_interface_v3() {
  if (ck::default_backend_kind() != ck::BackendKind::cuda) {
    std::puts(
        "cuda_array_interface_v3: skipped, needs a GPU: CPU-backend arrays have no "
        "__cuda_array_interface__ (it describes GPU memory)");
    return 0;
  }
  ck::Array a = ck::arange(0.0, 12.0, 1.0, ck::DType::float32).reshape({3, 4});
  std::shared_ptr<void> owner = std::make_shared<ck::Array>(a);
  ck::Device device = a.device();
  ck::Stream stream = device.create_stream();

  // --- docs/guide/arrays-interop.md, "`__cuda_array_interface__` v3" ---
  // clang-format off
  ck::CudaArrayInterface cai = ck::cuda_array_interface(a);   // the dict's fields
  // cai.data, cai.shape, cai.strides_bytes (absent when C-contiguous),
  // cai.typestr ("<f4"), cai.readonly, cai.version (3), cai.stream

  ck::Array c = ck::from_cuda_array_interface(cai, owner);     // owner: keeps the producer alive
  ck::Array d = ck::from_cuda_array_interface(cai, owner, device, stream);
  // clang-format on
  // ---

  return 0;
}

int arrays_as_view_structs_in_kernels() {
  ck::Array a = ck::arange(0.0, 12.0, 1.0, ck::DType::float32).reshape({3, 4});
  ck::Array out = ck::empty({3, 4}, ck::DType::float32);
  const std::size_t rows = 3, cols = 4;

  // --- docs/guide/arrays-interop.md, "Arrays as view structs in kernels" ---
  // clang-format off
  ck::CompileOptions options;
  ck::add_array_view_header(options);    // or prepend ck::array_view_source() to the source
  ck::Kernel k = ck::compile(R"(
  #include "cudakit/array_view.cuh"
  __global__ void transpose(ArrayView<const float, 2> in, ArrayView<float, 2> out) {
    long long i = blockIdx.y * (long long)blockDim.y + threadIdx.y;
    long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < out.shape[0] && j < out.shape[1]) out(i, j) = in(j, i);
  })", options).kernel("transpose");

  ck::Array v = a.T().slice(0, std::nullopt, std::nullopt, -1);   // negative strides
  k.launch(ck::grid_for_2d(cols, rows), ck::view_arg<const float, 2>(v), ck::view_arg<2>(out));
  // clang-format on
  // ---
  // out(i, j) = v(j, i) = a.T()[3 - j][i] = a[i][3 - j]
  if (out.item(1).as_double() != 2.0 || out.item(4).as_double() != 7.0) return 1;
  return 0;
}

}  // namespace

int main() {
  return run_doc_sections(
      {{"dlpack", &dlpack},
       {"cuda_array_interface_v3", &cuda_array_interface_v3},
       {"arrays_as_view_structs_in_kernels", &arrays_as_view_structs_in_kernels}});
}
