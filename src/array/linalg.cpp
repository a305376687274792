#include <atomic>
#include <string>

#include "array/linalg_ops.hpp"
#include "array/stream_order.hpp"
#include "cudakit/array_linalg.hpp"
#include "cudakit/error.hpp"

namespace cudakit {

namespace {

std::atomic<bool> tf32_allowed{false};
std::atomic<MatmulEngine> engine_setting{MatmulEngine::automatic};

detail::MatmulOperand operand_of(const Array& x) {
  detail::MatmulOperand op;
  op.address = x.address();
  const int nd = x.ndim();
  op.row = x.strides()[static_cast<std::size_t>(nd - 2)];
  op.col = x.strides()[static_cast<std::size_t>(nd - 1)];
  op.batch = (nd == 3 && x.shape()[0] > 1) ? x.strides()[0] : 0;
  return op;
}

bool has_unit_stride(const Array& x) {
  const int nd = x.ndim();
  const auto row = x.strides()[static_cast<std::size_t>(nd - 2)];
  const auto col = x.strides()[static_cast<std::size_t>(nd - 1)];
  const auto rows = x.shape()[static_cast<std::size_t>(nd - 2)];
  const auto cols = x.shape()[static_cast<std::size_t>(nd - 1)];
  return (col == 1 && row >= cols) || (row == 1 && col >= rows) || rows <= 1 || cols <= 1;
}

}  // namespace

void set_allow_tf32(bool allow) noexcept { tf32_allowed.store(allow); }
bool allow_tf32() noexcept { return tf32_allowed.load(); }
void set_matmul_engine(MatmulEngine engine) noexcept { engine_setting.store(engine); }
MatmulEngine matmul_engine() noexcept { return engine_setting.load(); }

Array matmul(const Array& a_in, const Array& b_in) {
  const char* what = "cudakit::matmul";
  if (!a_in.valid() || !b_in.valid()) throw ArgumentError(what, "an operand is a null Array");
  for (const Array* x : {&a_in, &b_in})
    if (x->ndim() < 1 || x->ndim() > 3)
      throw ArgumentError(what,
                          "operands must have 1 to 3 dimensions, got " + std::to_string(x->ndim()) +
                              " (shape " + shape_to_string(x->shape()) + ")",
                          x->ndim() == 0 ? "use multiplication for scalars" : "");
  if (!(a_in.device() == b_in.device()))
    throw ArgumentError(what, "operands are on different devices: " + a_in.device().describe() +
                                  " and " + b_in.device().describe());
  const DType dtype = result_type(a_in.dtype(), b_in.dtype());
  if (is_complex(dtype))
    throw ArgumentError(what, "complex matrix products are not supported (dtype " +
                                  std::string(to_string(dtype)) + ")");

  Array a = a_in.dtype() == dtype ? a_in : a_in.astype(dtype);
  Array b = b_in.dtype() == dtype ? b_in : b_in.astype(dtype);
  const bool a_vector = a.ndim() == 1, b_vector = b.ndim() == 1;
  if (a_vector) a = a.expand_dims(0);
  if (b_vector) b = b.expand_dims(1);

  const std::int64_t m = a.shape(-2), k = a.shape(-1), k2 = b.shape(-2), n = b.shape(-1);
  if (k != k2)
    throw ArgumentError(what, "inner dimensions differ: " + shape_to_string(a_in.shape()) + " @ " +
                                  shape_to_string(b_in.shape()) + " (" + std::to_string(k) +
                                  " != " + std::to_string(k2) + ")");
  const std::int64_t batch_a = a.ndim() == 3 ? a.shape(0) : 1;
  const std::int64_t batch_b = b.ndim() == 3 ? b.shape(0) : 1;
  if (batch_a != batch_b && batch_a != 1 && batch_b != 1)
    throw ArgumentError(what, "batch extents " + std::to_string(batch_a) + " and " +
                                  std::to_string(batch_b) + " do not broadcast (" +
                                  shape_to_string(a_in.shape()) + " @ " +
                                  shape_to_string(b_in.shape()) + ")");
  const std::int64_t batch = std::max(batch_a, batch_b);
  const bool batched = a.ndim() == 3 || b.ndim() == 3;

  Shape out_shape;
  if (batched) out_shape.push_back(batch);
  if (!a_vector) out_shape.push_back(m);
  if (!b_vector) out_shape.push_back(n);
  const Stream stream = a.stream();
  Array out = batched ? empty({batch, m, n}, dtype, stream) : empty({m, n}, dtype, stream);
  if (m * n * batch == 0) return out.reshape(out_shape);
  if (k == 0) {
    out.fill(Scalar(0));
    return out.reshape(out_shape);
  }

  const Device& device = a.device();
  const MatmulEngine engine = matmul_engine();
  const bool use_cublas = engine == MatmulEngine::cublas || (engine == MatmulEngine::automatic &&
                                                             detail::cublas_usable(device, dtype));
  if (use_cublas) {
    if (device.backend_kind() != BackendKind::cuda)
      throw ArgumentError(what, "cuBLAS was asked for, but the device is " + device.describe());
    if (!has_unit_stride(a)) a = a.copy();
    if (!has_unit_stride(b)) b = b.copy();
  }
  // b (or a, after a copy) may be on another stream than the launch's.
  detail::order_after_operands(stream, a, b);
  detail::MatmulProblem problem;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  problem.batch = batch;
  problem.a = operand_of(a);
  problem.b = operand_of(b);
  problem.c = out.address();
  problem.dtype = dtype;
  if (use_cublas) {
    detail::matmul_cublas(problem, device, stream, allow_tf32());
  } else {
    if (batch > 65535)
      throw ArgumentError(what, "the generated kernel takes at most 65535 matrices per call, got " +
                                    std::to_string(batch));
    detail::matmul_generated(problem, device, stream);
  }
  return out.reshape(out_shape);
}

}  // namespace cudakit
