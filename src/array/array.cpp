// Array: storage, queries and the views that need no copy.
#include "cudakit/array.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "array/array_util.hpp"
#include "backend/backend.hpp"
#include "cudakit/memory_pool.hpp"

namespace cudakit {

namespace detail {
// The block goes back while its stream is alive; alloc_stream_keeper is
// released after this body, which may destroy the stream (the pool then moves
// the block to the default stream's list).
ArrayStorage::~ArrayStorage() {
  if (pooled && address != 0) MemoryPool::of(device).deallocate(address, bytes, alloc_stream);
}
}  // namespace detail

using detail::array_error;
using detail::normalize_axis;

std::int64_t shape_size(const Shape& shape) noexcept {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

namespace detail {
std::int64_t checked_shape_size(const Shape& shape, std::size_t itemsize, const char* context) {
  for (auto e : shape)
    if (e < 0)
      array_error(context, "negative dimensions are not allowed: " + shape_to_string(shape));
  // The product skips zero extents, as NumPy's does: the strides are products
  // of the other extents and must fit too, even when the array is empty.
  const auto item = static_cast<std::int64_t>(std::max<std::size_t>(itemsize, 1));
  std::int64_t n = 1;
  bool empty = false;
  for (auto e : shape)
    if (e == 0)
      empty = true;
    else if (__builtin_mul_overflow(n, e, &n) ||
             n > std::numeric_limits<std::int64_t>::max() / item)
      array_error(context,
                  "array is too big: shape " + shape_to_string(shape) + " of " +
                      std::to_string(item) + "-byte elements has more than " +
                      std::to_string(std::numeric_limits<std::int64_t>::max()) + " bytes",
                  "check the shape for a wrong or uninitialised extent");
  return empty ? 0 : n;
}
}  // namespace detail

std::string shape_to_string(const Shape& shape) {
  std::string s = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (k) s += ", ";
    s += std::to_string(shape[k]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

Strides contiguous_strides(const Shape& shape, Order order) {
  Strides s(shape.size());
  std::int64_t acc = 1;
  if (order == Order::C) {
    for (std::size_t k = shape.size(); k-- > 0;) {
      s[k] = acc;
      acc *= std::max<std::int64_t>(shape[k], 1);
    }
  } else {
    for (std::size_t k = 0; k < shape.size(); ++k) {
      s[k] = acc;
      acc *= std::max<std::int64_t>(shape[k], 1);
    }
  }
  return s;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::int64_t ea = k < n - a.size() ? 1 : a[k - (n - a.size())];
    std::int64_t eb = k < n - b.size() ? 1 : b[k - (n - b.size())];
    if (ea != eb && ea != 1 && eb != 1)
      array_error("broadcasting", "operands could not be broadcast together with shapes " +
                                      shape_to_string(a) + " " + shape_to_string(b));
    out[k] = ea == 1 ? eb : ea;
  }
  return out;
}

Shape broadcast_shapes(std::span<const Shape> shapes) {
  Shape out;
  for (const auto& s : shapes) out = broadcast_shapes(out, s);
  return out;
}

Array::Array(std::shared_ptr<detail::ArrayStorage> storage, DType dtype, Shape shape,
             Strides strides, std::int64_t offset, std::optional<Stream> stream, bool readonly)
    : storage_(std::move(storage)),
      dtype_(dtype),
      shape_(std::move(shape)),
      strides_(std::move(strides)),
      offset_(offset),
      stream_(std::move(stream)),
      readonly_(readonly) {}

std::int64_t Array::shape(int axis) const {
  return shape_[static_cast<std::size_t>(normalize_axis(axis, ndim(), "Array::shape"))];
}

std::vector<std::int64_t> Array::strides_bytes() const {
  std::vector<std::int64_t> s(strides_);
  for (auto& v : s) v *= static_cast<std::int64_t>(itemsize());
  return s;
}

std::int64_t Array::size() const noexcept { return shape_size(shape_); }

const Device& Array::device() const {
  detail::check_valid(*this, "Array::device");
  return storage_->device;
}

Stream Array::stream() const {
  if (stream_) return *stream_;
  return device().default_stream();
}

void Array::set_stream(const Stream& stream) {
  if (valid() && !(stream.device() == device()))
    array_error("Array::set_stream", "the stream is on " + stream.device().describe() +
                                         " but the array is on " + device().describe());
  stream_ = stream;
}

bool Array::owns_data() const noexcept { return storage_ && storage_->pooled; }

std::uint64_t Array::address() const {
  detail::check_valid(*this, "Array::address");
  return storage_->address +
         static_cast<std::uint64_t>(offset_ * static_cast<std::int64_t>(itemsize()));
}

bool Array::is_c_contiguous() const noexcept {
  if (size() <= 1) return true;
  std::int64_t expected = 1;
  for (std::size_t k = shape_.size(); k-- > 0;) {
    if (shape_[k] == 1) continue;
    if (strides_[k] != expected) return false;
    expected *= shape_[k];
  }
  return true;
}

bool Array::is_f_contiguous() const noexcept {
  if (size() <= 1) return true;
  std::int64_t expected = 1;
  for (std::size_t k = 0; k < shape_.size(); ++k) {
    if (shape_[k] == 1) continue;
    if (strides_[k] != expected) return false;
    expected *= shape_[k];
  }
  return true;
}

namespace {
// The byte range [lo, hi) an array's elements lie in.
std::pair<std::uint64_t, std::uint64_t> byte_extent(const Array& a) {
  std::int64_t lo = 0, hi = 0;
  for (std::size_t k = 0; k < a.shape().size(); ++k) {
    std::int64_t span = (a.shape()[k] - 1) * a.strides()[k];
    if (span < 0)
      lo += span;
    else
      hi += span;
  }
  auto base = static_cast<std::int64_t>(a.address());
  auto item = static_cast<std::int64_t>(a.itemsize());
  return {static_cast<std::uint64_t>(base + lo * item),
          static_cast<std::uint64_t>(base + (hi + 1) * item)};
}
}  // namespace

bool Array::may_share_memory(const Array& other) const noexcept {
  if (!valid() || !other.valid() || size() == 0 || other.size() == 0) return false;
  if (!(storage_->device == other.storage_->device)) return false;
  auto [a0, a1] = byte_extent(*this);
  auto [b0, b1] = byte_extent(other);
  return a0 < b1 && b0 < a1;
}

// ---- views ---------------------------------------------------------------------

Array Array::index(std::span<const Index> indices) const {
  detail::check_valid(*this, "Array::index");
  int consumed = 0, ellipses = 0;
  for (const auto& ix : indices) {
    if (std::holds_alternative<std::int64_t>(ix) || std::holds_alternative<Slice>(ix)) ++consumed;
    if (std::holds_alternative<Ellipsis>(ix)) ++ellipses;
  }
  if (ellipses > 1) array_error("indexing", "an index can only have a single ellipsis");
  if (consumed > ndim())
    array_error("indexing", "too many indices for array: array is " + std::to_string(ndim()) +
                                "-dimensional, but " + std::to_string(consumed) + " were indexed");
  Shape shape;
  Strides strides;
  std::int64_t offset = offset_;
  std::size_t axis = 0;
  auto take_axis = [&](const Index& ix) {
    std::int64_t n = shape_[axis], st = strides_[axis];
    if (const auto* i = std::get_if<std::int64_t>(&ix)) {
      std::int64_t v = *i < 0 ? *i + n : *i;
      if (v < 0 || v >= n)
        array_error("indexing", "index " + std::to_string(*i) + " is out of bounds for axis " +
                                    std::to_string(axis) + " with size " + std::to_string(n));
      offset += v * st;
    } else {
      const detail::SliceIndices s = detail::slice_indices(std::get<Slice>(ix), n, "indexing");
      if (s.length > 0) offset += s.start * st;
      shape.push_back(s.length);
      // With one element or none the stride is never used, and st * step
      // may not fit (a step near INT64_MAX); otherwise |step| < n, so it does.
      strides.push_back(s.length > 1 ? st * s.step : st);
    }
    ++axis;
  };
  for (const auto& ix : indices) {
    if (std::holds_alternative<NewAxis>(ix)) {
      shape.push_back(1);
      strides.push_back(0);
    } else if (std::holds_alternative<Ellipsis>(ix)) {
      std::size_t skip = static_cast<std::size_t>(ndim() - consumed);
      for (std::size_t k = 0; k < skip; ++k, ++axis) {
        shape.push_back(shape_[axis]);
        strides.push_back(strides_[axis]);
      }
    } else {
      take_axis(ix);
    }
  }
  for (; axis < shape_.size(); ++axis) {
    shape.push_back(shape_[axis]);
    strides.push_back(strides_[axis]);
  }
  return Array(storage_, dtype_, std::move(shape), std::move(strides), offset, stream_, readonly_);
}

Array Array::slice(int axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                   std::int64_t step) const {
  detail::check_valid(*this, "Array::slice");
  int ax = normalize_axis(axis, ndim(), "Array::slice");
  std::vector<Index> ix(static_cast<std::size_t>(ax), Index{Slice()});
  ix.emplace_back(Slice(start, stop, step));
  return index(std::span<const Index>(ix));
}

namespace {
// NumPy's _attempt_nocopy_reshape (C order): new strides for a view, or
// nullopt when the memory layout cannot express the new shape.
std::optional<Strides> nocopy_reshape(const Shape& old_shape_in, const Strides& old_strides_in,
                                      const Shape& new_shape) {
  Shape oldd;
  Strides olds;
  for (std::size_t k = 0; k < old_shape_in.size(); ++k)
    if (old_shape_in[k] != 1) {
      oldd.push_back(old_shape_in[k]);
      olds.push_back(old_strides_in[k]);
    }
  std::size_t oldnd = oldd.size(), newnd = new_shape.size();
  Strides news(newnd, 0);
  std::size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < newnd && oi < oldnd) {
    std::int64_t np = new_shape[ni], op = oldd[oi];
    while (np != op) {
      if (np < op)
        np *= new_shape[nj++];
      else
        op *= oldd[oj++];
    }
    for (std::size_t ok = oi; ok < oj - 1; ++ok)
      if (olds[ok] != oldd[ok + 1] * olds[ok + 1]) return std::nullopt;
    news[nj - 1] = olds[oj - 1];
    for (std::size_t nk = nj - 1; nk > ni; --nk) news[nk - 1] = news[nk] * new_shape[nk];
    ni = nj++;
    oi = oj++;
  }
  std::int64_t last = ni >= 1 ? news[ni - 1] : 1;
  for (std::size_t nk = ni; nk < newnd; ++nk) news[nk] = last;
  return news;
}
}  // namespace

Array Array::reshape(const Shape& shape_in, Order order) const {
  detail::check_valid(*this, "Array::reshape");
  Shape shape = shape_in;
  int unknown = -1;
  std::int64_t known = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == -1) {
      if (unknown >= 0) array_error("Array::reshape", "can only specify one unknown dimension");
      unknown = static_cast<int>(k);
    } else if (shape[k] < 0) {
      array_error("Array::reshape", "negative dimension " + std::to_string(shape[k]) + " in " +
                                        shape_to_string(shape_in));
    } else {
      known *= shape[k];
    }
  }
  if (unknown >= 0) {
    Shape others = shape;
    others.erase(others.begin() + unknown);
    known = detail::checked_shape_size(others, itemsize(), "Array::reshape");
    if (known == 0 || size() % known != 0)
      array_error("Array::reshape", "cannot reshape array of size " + std::to_string(size()) +
                                        " into shape " + shape_to_string(shape_in));
    shape[static_cast<std::size_t>(unknown)] = size() / known;
  }
  if (detail::checked_shape_size(shape, itemsize(), "Array::reshape") != size())
    array_error("Array::reshape", "cannot reshape array of size " + std::to_string(size()) +
                                      " into shape " + shape_to_string(shape_in));
  if (order == Order::F) {
    Shape rev(shape.rbegin(), shape.rend());
    return transpose().reshape(rev, Order::C).transpose();
  }
  if (size() == 0 || is_c_contiguous())
    return Array(storage_, dtype_, shape, contiguous_strides(shape), offset_, stream_, readonly_);
  if (auto s = nocopy_reshape(shape_, strides_, shape))
    return Array(storage_, dtype_, shape, *s, offset_, stream_, readonly_);
  return copy().reshape(shape);
}

Array Array::ravel(Order order) const { return reshape({size()}, order); }

Array Array::flatten() const { return copy().reshape({size()}); }

Array Array::transpose() const {
  std::vector<int> axes(static_cast<std::size_t>(ndim()));
  std::iota(axes.rbegin(), axes.rend(), 0);
  return transpose(axes);
}

Array Array::transpose(const std::vector<int>& axes) const {
  detail::check_valid(*this, "Array::transpose");
  if (static_cast<int>(axes.size()) != ndim())
    array_error("Array::transpose", "axes don't match array: got " + std::to_string(axes.size()) +
                                        " axes for an array of dimension " +
                                        std::to_string(ndim()));
  std::vector<bool> seen(axes.size(), false);
  Shape shape;
  Strides strides;
  for (int a : axes) {
    auto k = static_cast<std::size_t>(normalize_axis(a, ndim(), "Array::transpose"));
    if (seen[k]) array_error("Array::transpose", "repeated axis in transpose");
    seen[k] = true;
    shape.push_back(shape_[k]);
    strides.push_back(strides_[k]);
  }
  return Array(storage_, dtype_, shape, strides, offset_, stream_, readonly_);
}

Array Array::swapaxes(int a, int b) const {
  detail::check_valid(*this, "Array::swapaxes");
  std::vector<int> axes(static_cast<std::size_t>(ndim()));
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[static_cast<std::size_t>(normalize_axis(a, ndim(), "Array::swapaxes"))],
            axes[static_cast<std::size_t>(normalize_axis(b, ndim(), "Array::swapaxes"))]);
  return transpose(axes);
}

Array Array::squeeze() const {
  detail::check_valid(*this, "Array::squeeze");
  Shape shape;
  Strides strides;
  for (std::size_t k = 0; k < shape_.size(); ++k)
    if (shape_[k] != 1) {
      shape.push_back(shape_[k]);
      strides.push_back(strides_[k]);
    }
  return Array(storage_, dtype_, shape, strides, offset_, stream_, readonly_);
}

Array Array::squeeze(int axis) const {
  detail::check_valid(*this, "Array::squeeze");
  auto k = static_cast<std::size_t>(normalize_axis(axis, ndim(), "Array::squeeze"));
  if (shape_[k] != 1)
    array_error("Array::squeeze",
                "cannot select an axis to squeeze out which has size not equal to one (axis " +
                    std::to_string(axis) + " has size " + std::to_string(shape_[k]) + ")");
  Shape shape = shape_;
  Strides strides = strides_;
  shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(k));
  strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(k));
  return Array(storage_, dtype_, shape, strides, offset_, stream_, readonly_);
}

Array Array::expand_dims(int axis) const {
  detail::check_valid(*this, "Array::expand_dims");
  auto k = static_cast<std::size_t>(normalize_axis(axis, ndim() + 1, "Array::expand_dims"));
  Shape shape = shape_;
  Strides strides = strides_;
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(k), 1);
  strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(k), 0);
  return Array(storage_, dtype_, shape, strides, offset_, stream_, readonly_);
}

Array Array::broadcast_to(const Shape& shape) const {
  detail::check_valid(*this, "Array::broadcast_to");
  if (shape.size() < shape_.size())
    array_error("Array::broadcast_to", "cannot broadcast an array of shape " +
                                           shape_to_string(shape_) + " to the smaller rank shape " +
                                           shape_to_string(shape));
  (void)detail::checked_shape_size(shape, itemsize(), "Array::broadcast_to");
  std::size_t lead = shape.size() - shape_.size();
  Strides strides(shape.size(), 0);
  for (std::size_t k = 0; k < shape_.size(); ++k) {
    std::int64_t have = shape_[k], want = shape[lead + k];
    if (have == want)
      strides[lead + k] = strides_[k];
    else if (have != 1)
      array_error("Array::broadcast_to", "cannot broadcast an array of shape " +
                                             shape_to_string(shape_) + " to shape " +
                                             shape_to_string(shape));
  }
  // Broadcast views repeat elements, so writing through one would race (NumPy makes them read-only
  // too).
  return Array(storage_, dtype_, shape, strides, offset_, stream_, true);
}

Array Array::view(DType dtype) const {
  detail::check_valid(*this, "Array::view");
  if (cudakit::itemsize(dtype) != itemsize())
    array_error("Array::view",
                std::string("cannot view ") + std::string(cudakit::to_string(dtype_)) + " as " +
                    std::string(cudakit::to_string(dtype)) + ": the item sizes differ");
  return Array(storage_, dtype, shape_, strides_, offset_, stream_, readonly_);
}

void Array::check_host_type(DType requested) const {
  detail::check_valid(*this, "Array::to_host");
  if (requested != dtype_)
    array_error("Array::to_host",
                "the array holds " + std::string(cudakit::to_string(dtype_)) +
                    " but the host type is " + std::string(cudakit::to_string(requested)),
                "convert first with astype(), or ask for the matching host type");
}

}  // namespace cudakit
