// Printing arrays the way NumPy does: array([[1., 2.],\n       [3., 4.]], dtype=float32),
// summarised with "..." past 1000 elements.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "array/array_util.hpp"
#include "cudakit/array.hpp"

namespace cudakit {
namespace {

constexpr std::int64_t kThreshold = 1000;
constexpr std::int64_t kEdge = 3;
constexpr std::size_t kLineWidth = 75;

std::string format_real(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e16) {
    std::snprintf(buf, sizeof buf, "%.0f.", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.8g", v);
  return buf;
}

std::string format_value(const Scalar& s, DType dtype) {
  if (is_bool(dtype)) return s.as_bool() ? "True" : "False";
  if (is_unsigned_integer(dtype)) return std::to_string(s.as_uint64());
  if (is_integer(dtype)) return std::to_string(s.as_int64());
  if (is_complex(dtype)) {
    auto c = s.as_complex();
    std::string im = format_real(std::fabs(c.imag()));
    return format_real(c.real()) + (c.imag() < 0 || std::signbit(c.imag()) ? "-" : "+") + im + "j";
  }
  return format_real(s.as_double());
}

struct Printer {
  const Array& a;
  bool summarise;
  std::vector<unsigned char> host;  // every element, C order, when it is small
  std::vector<std::string> cells;   // C-order values of the elements shown
  std::size_t next = 0;
  std::size_t width = 0;

  // Positions along one axis that are shown (-1 marks the "..." gap).
  std::vector<std::int64_t> shown(std::int64_t n) const {
    std::vector<std::int64_t> v;
    if (!summarise || n <= 2 * kEdge) {
      for (std::int64_t k = 0; k < n; ++k) v.push_back(k);
    } else {
      for (std::int64_t k = 0; k < kEdge; ++k) v.push_back(k);
      v.push_back(-1);
      for (std::int64_t k = n - kEdge; k < n; ++k) v.push_back(k);
    }
    return v;
  }

  void gather(std::size_t axis, std::int64_t flat) {
    if (axis == a.shape().size()) {
      Scalar v = host.empty()
                     ? a.item(flat)
                     : detail::scalar_from_bytes(
                           host.data() + static_cast<std::size_t>(flat) * a.itemsize(), a.dtype());
      cells.push_back(format_value(v, a.dtype()));
      width = std::max(width, cells.back().size());
      return;
    }
    for (std::int64_t k : shown(a.shape()[axis]))
      if (k >= 0) gather(axis + 1, flat * a.shape()[axis] + k);
  }

  // NumPy lines floats up on the decimal point: [ 0.5 , -1.25].
  void align_decimal_points() {
    if (!is_floating(a.dtype())) return;
    std::size_t left = 0, right = 0;
    for (const auto& c : cells) {
      auto dot = c.find('.');
      left = std::max(left, dot == std::string::npos ? c.size() : dot);
      right = std::max(right, dot == std::string::npos ? 0 : c.size() - dot);
    }
    for (auto& c : cells) {
      auto dot = c.find('.');
      std::size_t l = dot == std::string::npos ? c.size() : dot;
      std::size_t r = dot == std::string::npos ? 0 : c.size() - dot;
      c = std::string(left - l, ' ') + c + std::string(right - r, ' ');
    }
    width = left + right;
  }

  std::string render(std::size_t axis, std::size_t indent) {
    if (axis == a.shape().size()) {
      std::string c = cells[next++];
      return std::string(width - c.size(), ' ') + c;
    }
    std::string s = "[";
    bool last_axis = axis + 1 == a.shape().size();
    std::string sep = last_axis ? ", "
                                : "," + std::string(a.shape().size() - axis - 1, '\n') +
                                      std::string(indent + 1, ' ');
    bool first = true;
    for (std::int64_t k : shown(a.shape()[axis])) {
      if (!first) s += sep;
      first = false;
      s += k < 0 ? "..." : render(axis + 1, indent + 1);
    }
    return s + "]";
  }
};

bool default_dtype_shown_bare(DType d) {
  return d == DType::float64 || d == DType::int64 || d == DType::bool_ || d == DType::complex128;
}

}  // namespace

std::string Array::to_string() const {
  if (!valid()) return "array(<null>)";
  // The trailing extras follow NumPy 2.2+ repr: the shape when it cannot be read
  // off the printed values (an empty array other than (0,), or a summarised
  // one), the dtype when it is not a default one or the array is empty.
  std::vector<std::string> extras;
  bool summarise = size() > kThreshold;
  if ((size() == 0 && shape_ != Shape{0}) || summarise)
    extras.push_back("shape=" + shape_to_string(shape_));
  if (!default_dtype_shown_bare(dtype_) || size() == 0)
    extras.push_back("dtype=" + std::string(cudakit::to_string(dtype_)));
  std::string body = "[]";
  if (size() > 0) {
    // Small arrays come to the host in one copy; big ones element by element
    // for the few that are shown.
    Printer p{*this, summarise, {}, {}, 0, 0};
    if (!p.summarise) {
      p.host.resize(nbytes());
      copy_to_host(p.host.data(), p.host.size());
    }
    p.gather(0, 0);
    p.align_decimal_points();
    body = p.render(0, 6);
  }
  std::string out = "array(" + body;
  if (extras.empty()) return out + ")";
  std::string extra = extras[0];
  for (std::size_t k = 1; k < extras.size(); ++k) extra += ", " + extras[k];
  extra += ")";
  out += ",";
  // Like NumPy, the extras go on a line of their own when they would push
  // the last line past 75 characters.
  std::size_t newline = out.rfind('\n');
  std::size_t last_line = newline == std::string::npos ? out.size() : out.size() - newline - 1;
  return out + (last_line + extra.size() + 1 > kLineWidth ? "\n      " : " ") + extra;
}

std::ostream& operator<<(std::ostream& os, const Array& array) { return os << array.to_string(); }

}  // namespace cudakit
