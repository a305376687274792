// take / put through small ElementwiseKernels; indices are checked on the
// host first so a bad index is an error, never a wild read or write.
#include "cudakit/array_indexing.hpp"

#include <vector>

#include "array/array_util.hpp"
#include "array/stream_order.hpp"
#include "cudakit/elementwise_kernel.hpp"

namespace cudakit {

using detail::array_error;

namespace {

std::vector<std::int64_t> host_indices(const Array& indices, std::int64_t extent,
                                       const char* context) {
  detail::check_valid(indices, context);
  if (!is_integer(indices.dtype()) && !is_bool(indices.dtype()))
    array_error(context,
                "indices must be integers, not " + std::string(to_string(indices.dtype())));
  std::vector<std::int64_t> v = indices.astype(DType::int64).to_host<std::int64_t>();
  for (auto& k : v) {
    if (k < -extent || k >= extent)
      array_error(context, "index " + std::to_string(k) + " is out of bounds for size " +
                               std::to_string(extent));
    if (k < 0) k += extent;
  }
  return v;
}

std::string elem(DType d) { return std::string(c_type_name(d)); }

}  // namespace

Array take(const Array& a, const Array& indices, std::optional<int> axis) {
  detail::check_valid(a, "take");
  if (!axis) return take(a.ravel(), indices, 0);
  int ax = detail::normalize_axis(*axis, a.ndim(), "take");
  std::int64_t extent = a.shape()[static_cast<std::size_t>(ax)];
  std::vector<std::int64_t> idx = host_indices(indices, extent, "take");
  if (!(indices.device() == a.device()))
    array_error("take", "the indices are on " + indices.device().describe() + ", the array on " +
                            a.device().describe());
  Array src = a.is_c_contiguous() ? a : a.copy();
  Array dev_idx = from_host(idx.data(), indices.shape(), DType::int64, a.stream());
  Shape shape;
  for (int d = 0; d < ax; ++d) shape.push_back(a.shape()[static_cast<std::size_t>(d)]);
  for (auto e : indices.shape()) shape.push_back(e);
  for (int d = ax + 1; d < a.ndim(); ++d) shape.push_back(a.shape()[static_cast<std::size_t>(d)]);
  Array out = empty(shape, a.dtype(), a.stream());
  if (out.size() == 0) return out;
  std::int64_t inner = 1;
  for (int d = ax + 1; d < a.ndim(); ++d) inner *= a.shape()[static_cast<std::size_t>(d)];
  const std::string t = elem(a.dtype());
  ElementwiseKernel gather(
      t + " *out, const " + t +
          " *src, const long long *idx, long long inner, long long count, long long extent",
      "const long long within = i % inner, rest = i / inner;\n"
      "    out[i] = src[((rest / count) * extent + idx[rest % count]) * inner + within]",
      "cudakit_take");
  gather({out, src, dev_idx, Scalar(inner), Scalar(static_cast<std::int64_t>(idx.size())),
          Scalar(extent)});
  return out;
}

void put(Array& a, const Array& indices, const Array& values) {
  detail::check_valid(a, "put");
  detail::check_valid(values, "put");
  if (a.readonly()) array_error("put", "the array is read-only");
  if (!a.is_c_contiguous())
    array_error("put", "the array must be contiguous", "put into a copy() and assign it back");
  std::vector<std::int64_t> idx = host_indices(indices, a.size(), "put");
  if (idx.empty()) return;
  if (values.size() == 0) array_error("put", "cannot put an empty array of values");
  Array v = values.astype(a.dtype()).ravel();
  Array dev_idx =
      from_host(idx.data(), Shape{static_cast<std::int64_t>(idx.size())}, DType::int64, a.stream());
  const std::string t = elem(a.dtype());
  ElementwiseKernel scatter(
      t + " *dst, const long long *idx, const " + t + " *values, long long nvalues",
      "dst[idx[i]] = values[i % nvalues]", "cudakit_put");
  // `values` (and so `v`) may live on another stream than `a`, where the
  // scatter runs.
  detail::order_after_operands(a.stream(), a, v);
  // Repeated indices: NumPy keeps the last value; here one of them wins.
  scatter.run({a, dev_idx, v, Scalar(v.size())},
              ElementwiseKernel::Range{0, static_cast<std::int64_t>(idx.size()), 1});
}

}  // namespace cudakit
