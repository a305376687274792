// take / put through small ElementwiseKernels; indices are checked on the
// host first so a bad index is an error, never a wild read or write. Both
// read and write views of any layout directly (the kernels index them in C
// order), and put resolves repeated indices on the host as NumPy does.
#include "cudakit/array_indexing.hpp"

#include <unordered_set>
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
  const Array& src = a;  // any layout: the kernel reads src[k] in C order
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
  std::vector<std::int64_t> idx = host_indices(indices, a.size(), "put");
  if (idx.empty()) return;
  if (values.size() == 0) array_error("put", "cannot put an empty array of values");
  Array v = values.astype(a.dtype()).ravel();
  // NumPy assigns in order, so the last value for a repeated index stays:
  // keep only the last write to each target (targets and the value each
  // takes), which also makes the kernel's writes independent.
  const std::int64_t nvalues = v.size();
  std::vector<std::int64_t> targets, sources;
  targets.reserve(idx.size());
  sources.reserve(idx.size());
  std::unordered_set<std::int64_t> seen;
  seen.reserve(idx.size());
  for (std::size_t k = idx.size(); k-- > 0;)
    if (seen.insert(idx[k]).second) {
      targets.push_back(idx[k]);
      sources.push_back(static_cast<std::int64_t>(k) % nvalues);
    }
  const Shape count{static_cast<std::int64_t>(targets.size())};
  Array dev_targets = from_host(targets.data(), count, DType::int64, a.stream());
  Array dev_sources = from_host(sources.data(), count, DType::int64, a.stream());
  const std::string t = elem(a.dtype());
  ElementwiseKernel scatter(
      t + " *dst, const long long *target, const " + t + " *values, const long long *source",
      "dst[target[i]] = values[source[i]]", "cudakit_put");
  // `values` (and so `v`) may live on another stream than `a`, where the
  // scatter runs.
  detail::order_after_operands(a.stream(), a, v);
  scatter.run({a, dev_targets, v, dev_sources},
              ElementwiseKernel::Range{0, static_cast<std::int64_t>(targets.size()), 1});
}

}  // namespace cudakit
