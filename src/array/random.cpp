#include <algorithm>
#include <string>

#include "array/random_kernels.hpp"
#include "cudakit/array_random.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/error.hpp"

namespace cudakit {

namespace {

void require_real(DType dtype, const char* what) {
  if (dtype != DType::float32 && dtype != DType::float64)
    throw ArgumentError(std::string("cudakit::Generator::") + what,
                        "dtype " + std::string(to_string(dtype)) + " is not supported",
                        "use float32 or float64 (then astype for other types)");
}

}  // namespace

Generator::Generator(std::uint64_t seed) : seed_(seed) {}
Generator::Generator(std::uint64_t seed, const Stream& stream) : seed_(seed), stream_(stream) {}
Generator::Generator(const Generator& other)
    : seed_(other.seed_), offset_(other.offset()), stream_(other.stream_) {}
Generator& Generator::operator=(const Generator& other) {
  if (this != &other) {
    const std::uint64_t offset = other.offset();
    std::lock_guard lock(mutex_);
    seed_ = other.seed_;
    offset_ = offset;
    stream_ = other.stream_;
  }
  return *this;
}

std::uint64_t Generator::offset() const {
  std::lock_guard lock(mutex_);
  return offset_;
}

void Generator::set_offset(std::uint64_t offset) {
  std::lock_guard lock(mutex_);
  offset_ = offset;
}

Array Generator::draw(int distribution, const Shape& shape, DType dtype, const void* p0,
                      const void* p1, bool integer) {
  const auto dist = static_cast<detail::RandomDistribution>(distribution);
  const Stream stream = stream_ ? *stream_ : Device::current().default_stream();
  Array out = empty(shape, dtype, stream);
  const std::int64_t n = out.size();
  if (n == 0) return out;
  const detail::RandomKernelSource source = detail::random_kernel_source(dist, c_type_name(dtype));
  const std::int64_t counters = (n + source.elements_per_counter - 1) / source.elements_per_counter;
  std::uint64_t first_counter;
  {
    std::lock_guard lock(mutex_);
    first_counter = offset_;
    offset_ += static_cast<std::uint64_t>(counters);
  }
  const Device& device = stream.device();
  const Kernel kernel = detail::cached_kernel(device, "random|" + source.name, source.name,
                                              [&] { return source.source; });
  detail::ArgPack args;
  args.push_pointer(out.address());
  args.push_scalar<long long>(n);
  args.push_scalar<unsigned long long>(seed_);
  args.push_scalar<unsigned long long>(first_counter);
  if (integer) {
    args.push_scalar<long long>(*static_cast<const long long*>(p0));
    args.push_scalar<unsigned long long>(*static_cast<const unsigned long long*>(p1));
  } else {
    args.push_scalar<double>(*static_cast<const double*>(p0));
    args.push_scalar<double>(*static_cast<const double*>(p1));
  }
  const int multiprocessors = std::max(1, device.properties().multiprocessor_count);
  LaunchConfig config;
  config.block = Dim3(256);
  config.grid = Dim3(static_cast<unsigned>(
      std::min<std::int64_t>((counters + 255) / 256, std::int64_t{multiprocessors} * 16)));
  config.stream = StreamRef{stream.native()};
  args.launch(kernel, config);
  return out;
}

Array Generator::random(const Shape& shape, DType dtype) { return uniform(0.0, 1.0, shape, dtype); }

Array Generator::uniform(double low, double high, const Shape& shape, DType dtype) {
  require_real(dtype, "uniform");
  return draw(static_cast<int>(detail::RandomDistribution::uniform), shape, dtype, &low, &high,
              false);
}

Array Generator::normal(double mean, double stddev, const Shape& shape, DType dtype) {
  require_real(dtype, "normal");
  if (!(stddev >= 0))
    throw ArgumentError("cudakit::Generator::normal",
                        "stddev must be >= 0, got " + std::to_string(stddev));
  return draw(static_cast<int>(detail::RandomDistribution::normal), shape, dtype, &mean, &stddev,
              false);
}

Array Generator::standard_normal(const Shape& shape, DType dtype) {
  return normal(0.0, 1.0, shape, dtype);
}

Array Generator::lognormal(double mean, double sigma, const Shape& shape, DType dtype) {
  require_real(dtype, "lognormal");
  if (!(sigma >= 0))
    throw ArgumentError("cudakit::Generator::lognormal",
                        "sigma must be >= 0, got " + std::to_string(sigma));
  return draw(static_cast<int>(detail::RandomDistribution::lognormal), shape, dtype, &mean, &sigma,
              false);
}

Array Generator::integers(std::int64_t low, std::int64_t high, const Shape& shape, DType dtype) {
  const char* what = "cudakit::Generator::integers";
  if (!is_integer(dtype))
    throw ArgumentError(what,
                        "dtype " + std::string(to_string(dtype)) + " is not an integer dtype");
  if (high <= low)
    throw ArgumentError(what, "high (" + std::to_string(high) + ") must be greater than low (" +
                                  std::to_string(low) + ")");
  if (!Scalar(low).fits(dtype) || !Scalar(high - 1).fits(dtype))
    throw ArgumentError(what, "[" + std::to_string(low) + ", " + std::to_string(high) +
                                  ") does not fit in " + std::string(to_string(dtype)));
  const long long lo = low;
  const unsigned long long range =
      static_cast<unsigned long long>(high) - static_cast<unsigned long long>(low);
  const auto dist = range <= (1ull << 32) ? detail::RandomDistribution::integers32
                                          : detail::RandomDistribution::integers64;
  return draw(static_cast<int>(dist), shape, dtype, &lo, &range, true);
}

Generator& default_generator() {
  static Generator generator(0);
  return generator;
}

void seed(std::uint64_t value) { default_generator() = Generator(value); }

}  // namespace cudakit
