// KernelArgs, the run-time built argument list: every
// kind of argument reaches the kernel with the parameter's type and value,
// literals are converted only where the value is kept, and every refusal
// names the parameter, the value and the type. Runs on every backend
// (tests/backend_fixture.hpp): the CPU (label unit) and a GPU (label gpu;
// skipped without one), where the parameter layout comes from the PTX.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backend_fixture.hpp"
#include "cudakit/cudakit.hpp"

namespace cudakit {
namespace {

const BackendKind kBackend = test::backend_under_test();

bool have_device() { return backend_available(kBackend); }
Device cpu_device() { return Device::get(kBackend, 0); }
#define SKIP_WITHOUT_DEVICE()                  \
  if (!have_device())                          \
  GTEST_SKIP() << "no " << to_string(kBackend) \
               << " device here (no NVIDIA driver or no GPU); runs on a machine with one"

// Every scalar type, each written to `bits` as unsigned long long (integers)
// or to `real` as double (floating point).
// C++ linkage (no extern "C" wrapping), so the half headers can be included.
constexpr const char* kSource = R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
struct Pair { int a; float b; };
__global__ void store_all(bool b, signed char i8, unsigned char u8, short i16,
                          unsigned short u16, int i32, unsigned int u32, long long i64,
                          unsigned long long u64, float f32, double f64,
                          unsigned long long* bits, double* real) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  bits[0] = b; bits[1] = (unsigned long long)i8; bits[2] = u8; bits[3] = (unsigned long long)i16;
  bits[4] = u16; bits[5] = (unsigned long long)i32; bits[6] = u32;
  bits[7] = (unsigned long long)i64; bits[8] = u64;
  real[0] = f32; real[1] = f64;
}
__global__ void halves(__half h, __nv_bfloat16 b, float* out) {
  out[0] = __half2float(h);
  out[1] = __bfloat162float(b);
}
__global__ void pair(Pair p, float* out) { out[0] = p.a + p.b; }
__global__ void transfer(const float* a, float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
    b[i] = 2.0f * b[i];
  }
}
)";

// Parameter positions of store_all.
enum Slot { kBool, kI8, kU8, kI16, kU16, kI32, kU32, kI64, kU64, kF32, kF64, kCount };
constexpr const char* kNames[kCount] = {"b",   "i8",  "u8",  "i16", "u16", "i32",
                                        "u32", "i64", "u64", "f32", "f64"};
constexpr const char* kTypes[kCount] = {
    "bool",         "signed char", "unsigned char",      "short", "unsigned short", "int",
    "unsigned int", "long long",   "unsigned long long", "float", "double"};

class KernelArgsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    CompileOptions options;
    options.no_extern_c = true;
    if (have_device()) module_ = new Module(compile(kSource, options, cpu_device()));
  }
  void SetUp() override {
    SKIP_WITHOUT_DEVICE();
    bits_.emplace(cpu_device(), 9);
    real_.emplace(cpu_device(), 2);
  }
  static void TearDownTestSuite() {
    delete module_;
    module_ = nullptr;
  }
  Kernel kernel(const char* name) const { return module_->kernel(name); }

  // store_all with `set(k, args)` supplying parameter k (literal zeros elsewhere).
  template <class Fill>
  void run_store_all(Fill fill) {
    KernelArgs args;
    for (int k = 0; k < kCount; ++k) fill(k, args);
    args.add(*bits_).add(*real_);
    kernel("store_all").launch(grid_for(1, 1), args);
    cpu_device().synchronize();
  }
  std::vector<unsigned long long> bits() const {
    std::vector<unsigned long long> out(9);
    bits_->copy_to(out);
    return out;
  }
  std::vector<double> reals() const {
    std::vector<double> out(2);
    real_->copy_to(out);
    return out;
  }
  // The message of the ArgumentError that launching store_all with literal
  // zeros and `value` at parameter `slot` throws.
  template <class Put>
  std::string store_all_error(int slot, Put put) {
    try {
      run_store_all([&](int k, KernelArgs& a) {
        if (k == slot)
          put(a);
        else
          a.integer_literal(0);
      });
    } catch (const ArgumentError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no ArgumentError for parameter " << slot;
    return {};
  }

  static Module* module_;
  std::optional<DeviceBuffer<unsigned long long>> bits_;
  std::optional<DeviceBuffer<double>> real_;
};
Module* KernelArgsTest::module_ = nullptr;

#define EXPECT_CONTAINS(text, part)                                                           \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "missing: " << (part) << "\n" \
                                                             << (text)

TEST_F(KernelArgsTest, EveryTypedScalarReachesItsParameterUnchanged) {
  run_store_all([](int k, KernelArgs& a) {
    switch (k) {
      case kBool:
        a.scalar(true);
        break;
      case kI8:
        a.scalar(static_cast<std::int8_t>(-128));
        break;
      case kU8:
        a.scalar(static_cast<std::uint8_t>(255));
        break;
      case kI16:
        a.scalar(static_cast<std::int16_t>(-32768));
        break;
      case kU16:
        a.scalar(static_cast<std::uint16_t>(65535));
        break;
      case kI32:
        a.scalar(std::numeric_limits<int>::min());
        break;
      case kU32:
        a.scalar(std::numeric_limits<unsigned>::max());
        break;
      case kI64:
        a.scalar(std::numeric_limits<long long>::min());
        break;
      case kU64:
        a.scalar(std::numeric_limits<unsigned long long>::max());
        break;
      case kF32:
        a.scalar(0.1f);
        break;
      case kF64:
        a.scalar(0.1);
        break;
    }
  });
  const auto b = bits();
  EXPECT_EQ(b[0], 1u);
  EXPECT_EQ(b[1], static_cast<unsigned long long>(-128LL));
  EXPECT_EQ(b[2], 255u);
  EXPECT_EQ(b[3], static_cast<unsigned long long>(-32768LL));
  EXPECT_EQ(b[4], 65535u);
  EXPECT_EQ(b[5], static_cast<unsigned long long>(static_cast<long long>(INT32_MIN)));
  EXPECT_EQ(b[6], 4294967295u);
  EXPECT_EQ(b[7], static_cast<unsigned long long>(std::numeric_limits<long long>::min()));
  EXPECT_EQ(b[8], std::numeric_limits<unsigned long long>::max());
  EXPECT_EQ(reals()[0], static_cast<double>(0.1f));
  EXPECT_EQ(reals()[1], 0.1);
}

TEST_F(KernelArgsTest, RawScalarBytesOfEveryType) {
  const ScalarType types[kCount] = {ScalarType::boolean, ScalarType::i8,  ScalarType::u8,
                                    ScalarType::i16,     ScalarType::u16, ScalarType::i32,
                                    ScalarType::u32,     ScalarType::i64, ScalarType::u64,
                                    ScalarType::f32,     ScalarType::f64};
  const bool t = true;
  const std::int8_t i8 = -5;
  const std::uint8_t u8 = 200;
  const std::int16_t i16 = -3000;
  const std::uint16_t u16 = 60000;
  const std::int32_t i32 = -2000000000;
  const std::uint32_t u32 = 4000000000u;
  const std::int64_t i64 = -(1LL << 60);
  const std::uint64_t u64 = (1ULL << 63) + 7;
  const float f32 = -2.5f;
  const double f64 = 1e300;
  const void* values[kCount] = {&t, &i8, &u8, &i16, &u16, &i32, &u32, &i64, &u64, &f32, &f64};
  run_store_all([&](int k, KernelArgs& a) { a.scalar(types[k], values[k]); });
  const auto b = bits();
  EXPECT_EQ(b[0], 1u);
  EXPECT_EQ(b[1], static_cast<unsigned long long>(-5LL));
  EXPECT_EQ(b[2], 200u);
  EXPECT_EQ(b[3], static_cast<unsigned long long>(-3000LL));
  EXPECT_EQ(b[4], 60000u);
  EXPECT_EQ(b[5], static_cast<unsigned long long>(-2000000000LL));
  EXPECT_EQ(b[6], 4000000000u);
  EXPECT_EQ(b[7], static_cast<unsigned long long>(i64));
  EXPECT_EQ(b[8], u64);
  EXPECT_EQ(reals()[0], -2.5);
  EXPECT_EQ(reals()[1], 1e300);
  EXPECT_EQ(scalar_size(ScalarType::unknown), 0u);
  KernelArgs a;
  EXPECT_THROW(a.scalar(ScalarType::unknown, &i32), ArgumentError);
  EXPECT_THROW(a.scalar(ScalarType::i32, nullptr), ArgumentError);
}

TEST_F(KernelArgsTest, TypedScalarsWidenLosslesslyAndRefuseNarrowing) {
  // int -> long long, unsigned char -> unsigned int, float -> double: kept.
  run_store_all([](int k, KernelArgs& a) {
    if (k == kI64)
      a.scalar(-7);
    else if (k == kU32)
      a.scalar(static_cast<unsigned char>(9));
    else if (k == kF64)
      a.scalar(0.5f);
    else
      a.integer_literal(0);
  });
  EXPECT_EQ(bits()[7], static_cast<unsigned long long>(-7LL));
  EXPECT_EQ(bits()[6], 9u);
  EXPECT_EQ(reals()[1], 0.5);
  // double -> float, long long -> int, -1 -> unsigned: refused.
  EXPECT_CONTAINS(store_all_error(kF32, [](KernelArgs& a) { a.scalar(1.0); }),
                  "parameter 9 'f32' (float): passed a double (8 bytes)");
  EXPECT_CONTAINS(store_all_error(kI32, [](KernelArgs& a) { a.scalar(5LL); }),
                  "parameter 5 'i32' (int): passed an int64_t (8 bytes)");
  EXPECT_CONTAINS(store_all_error(kU32, [](KernelArgs& a) { a.scalar(-1); }),
                  "parameter 6 'u32' (unsigned int): passed an int (4 bytes)");
}

struct Range {
  int slot;
  long long min;
  unsigned long long max;
};

TEST_F(KernelArgsTest, IntegerLiteralsInRangeArriveExactly) {
  const Range ranges[] = {{kBool, 0, 1},         {kI8, -128, 127},
                          {kU8, 0, 255},         {kI16, -32768, 32767},
                          {kU16, 0, 65535},      {kI32, INT32_MIN, INT32_MAX},
                          {kU32, 0, UINT32_MAX}, {kI64, INT64_MIN, INT64_MAX},
                          {kU64, 0, UINT64_MAX}};
  for (const Range& r : ranges) {
    for (bool at_max : {false, true}) {
      run_store_all([&](int k, KernelArgs& a) {
        if (k != r.slot)
          a.integer_literal(0);
        else if (!at_max)
          a.integer_literal(r.min);
        else if (r.max > static_cast<unsigned long long>(INT64_MAX))
          a.unsigned_literal(r.max);
        else
          a.integer_literal(static_cast<long long>(r.max));
      });
      const unsigned long long want = at_max ? r.max : static_cast<unsigned long long>(r.min);
      EXPECT_EQ(bits()[static_cast<std::size_t>(r.slot)], want) << kNames[r.slot];
    }
  }
}

TEST_F(KernelArgsTest, IntegerLiteralsOutOfRangeNameParameterValueAndType) {
  const Range ranges[] = {{kBool, 0, 1},         {kI8, -128, 127}, {kU8, 0, 255},
                          {kI16, -32768, 32767}, {kU16, 0, 65535}, {kI32, INT32_MIN, INT32_MAX},
                          {kU32, 0, UINT32_MAX}};
  for (const Range& r : ranges) {
    const std::string param = "parameter " + std::to_string(r.slot) + " '" + kNames[r.slot] +
                              "' (" + kTypes[r.slot] + ")";
    const std::string article =
        (kTypes[r.slot][0] == 'i' || kTypes[r.slot][0] == 'u') ? "an " : "a ";
    const long long below = r.min - 1;
    const long long above = static_cast<long long>(r.max) + 1;
    EXPECT_CONTAINS(store_all_error(r.slot, [&](KernelArgs& a) { a.integer_literal(below); }),
                    param + ": passed the integer " + std::to_string(below) +
                        ", which does not fit " + article + kTypes[r.slot]);
    EXPECT_CONTAINS(store_all_error(r.slot, [&](KernelArgs& a) { a.integer_literal(above); }),
                    param + ": passed the integer " + std::to_string(above) +
                        ", which does not fit " + article + kTypes[r.slot]);
  }
  // The example of the interface: 2^32 for an int.
  EXPECT_CONTAINS(
      store_all_error(kI32, [](KernelArgs& a) { a.integer_literal(4294967296LL); }),
      "parameter 5 'i32' (int): passed the integer 4294967296, which does not fit an int");
  // Past LLONG_MAX for a long long; negative for unsigned long long.
  EXPECT_CONTAINS(store_all_error(kI64, [](KernelArgs& a) { a.unsigned_literal(1ULL << 63); }),
                  "passed the integer 9223372036854775808, which does not fit a long long");
  EXPECT_CONTAINS(store_all_error(kU64, [](KernelArgs& a) { a.integer_literal(-1); }),
                  "passed the integer -1, which does not fit an unsigned long long");
}

TEST_F(KernelArgsTest, IntegerLiteralsForFloatingParametersMustBeExact) {
  run_store_all([](int k, KernelArgs& a) {
    if (k == kF32)
      a.integer_literal(16777216);  // 2^24
    else if (k == kF64)
      a.integer_literal(-(1LL << 53));
    else
      a.integer_literal(0);
  });
  EXPECT_EQ(reals()[0], 16777216.0);
  EXPECT_EQ(reals()[1], -9007199254740992.0);
  run_store_all([](int k, KernelArgs& a) {
    if (k == kF32)
      a.unsigned_literal(1ULL << 63);  // a power of two: exact
    else
      a.integer_literal(0);
  });
  EXPECT_EQ(reals()[0], 9223372036854775808.0);
  EXPECT_CONTAINS(store_all_error(kF32, [](KernelArgs& a) { a.integer_literal(16777217); }),
                  "parameter 9 'f32' (float): passed the integer 16777217, which a float cannot "
                  "hold exactly");
  EXPECT_CONTAINS(store_all_error(kF64, [](KernelArgs& a) { a.integer_literal((1LL << 53) + 1); }),
                  "passed the integer 9007199254740993, which a double cannot hold exactly");
  EXPECT_CONTAINS(store_all_error(kF64, [](KernelArgs& a) { a.unsigned_literal(UINT64_MAX); }),
                  "passed the integer 18446744073709551615, which a double cannot hold exactly");
}

TEST_F(KernelArgsTest, FloatLiterals) {
  const double inf = std::numeric_limits<double>::infinity();
  run_store_all([&](int k, KernelArgs& a) {
    if (k == kF32)
      a.float_literal(0.1);
    else if (k == kF64)
      a.float_literal(0.1);
    else
      a.integer_literal(0);
  });
  EXPECT_EQ(reals()[0], static_cast<double>(0.1f));  // the nearest float
  EXPECT_EQ(reals()[1], 0.1);
  run_store_all([&](int k, KernelArgs& a) {
    if (k == kF32)
      a.float_literal(-inf);
    else if (k == kF64)
      a.float_literal(std::nan(""));
    else
      a.integer_literal(0);
  });
  EXPECT_EQ(reals()[0], -inf);
  EXPECT_TRUE(std::isnan(reals()[1]));
  run_store_all([&](int k, KernelArgs& a) {
    if (k == kF32)
      a.float_literal(std::nan(""));
    else if (k == kF64)
      a.float_literal(1e300);
    else
      a.integer_literal(0);
  });
  EXPECT_TRUE(std::isnan(reals()[0]));
  EXPECT_EQ(reals()[1], 1e300);
  // The largest float and a value just below where rounding would reach inf.
  run_store_all([&](int k, KernelArgs& a) {
    if (k == kF32)
      a.float_literal(0x1.fffffefffffffp127);
    else
      a.integer_literal(0);
  });
  EXPECT_EQ(reals()[0], static_cast<double>(std::numeric_limits<float>::max()));
  EXPECT_CONTAINS(store_all_error(kF32, [](KernelArgs& a) { a.float_literal(1e300); }),
                  "parameter 9 'f32' (float): passed the float 1e+300, which does not fit a float");
  EXPECT_CONTAINS(store_all_error(kF32, [](KernelArgs& a) { a.float_literal(0x1.ffffffp127); }),
                  "which does not fit a float");
  for (int slot : {kBool, kI8, kU8, kI16, kU16, kI32, kU32, kI64, kU64}) {
    const std::string message = store_all_error(slot, [](KernelArgs& a) { a.float_literal(2.5); });
    EXPECT_CONTAINS(message, "'" + std::string(kNames[slot]) + "' (" + kTypes[slot] +
                                 "): passed the float 2.5, and an integer parameter takes no "
                                 "floating-point value");
    EXPECT_CONTAINS(message, "hint: the parameter is an integer");
  }
}

TEST_F(KernelArgsTest, HalfParametersTakeLiteralsTypedBitsAndRefuseWhatTheyCannotHold) {
  DeviceBuffer<float> out(cpu_device(), 2);
  std::vector<float> host(2);
  auto run = [&](KernelArgs& args) {
    args.add(out);
    kernel("halves").launch(grid_for(1, 1), args);
    out.copy_to(host);
  };
  KernelArgs args;
  args.float_literal(0.333251953125).float_literal(-1.5);  // both exact
  run(args);
  EXPECT_EQ(host[0], 0.333251953125f);
  EXPECT_EQ(host[1], -1.5f);
  args.clear();
  args.integer_literal(2048).integer_literal(-256);
  run(args);
  EXPECT_EQ(host[0], 2048.f);
  EXPECT_EQ(host[1], -256.f);
  args.clear();
  args.float_literal(0.1).float_literal(0.1);  // nearest half / bfloat16
  run(args);
  EXPECT_EQ(host[0], static_cast<float>(Half(0.1f)));
  EXPECT_EQ(host[1], static_cast<float>(BFloat16(0.1f)));
  args.clear();
  args.add(Half(3.0f)).add(BFloat16(-0.5f));  // typed 2-byte values
  run(args);
  EXPECT_EQ(host[0], 3.f);
  EXPECT_EQ(host[1], -0.5f);
  args.clear();
  const std::uint16_t half_bits = Half(7.0f).bits, bf_bits = BFloat16(9.0f).bits;
  args.scalar(ScalarType::f16, &half_bits).scalar(ScalarType::bf16, &bf_bits);
  run(args);
  EXPECT_EQ(host[0], 7.f);
  EXPECT_EQ(host[1], 9.f);

  auto error = [&](auto fill) -> std::string {
    KernelArgs a;
    fill(a);
    a.add(out);
    try {
      kernel("halves").launch(grid_for(1, 1), a);
    } catch (const ArgumentError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_CONTAINS(error([](KernelArgs& a) { a.integer_literal(2049).float_literal(0); }),
                  "parameter 0 'h' (__half): passed the integer 2049, which a __half cannot hold "
                  "exactly");
  EXPECT_CONTAINS(error([](KernelArgs& a) { a.float_literal(70000.0).float_literal(0); }),
                  "passed the float 70000, which does not fit a __half");
  EXPECT_CONTAINS(error([](KernelArgs& a) { a.float_literal(0).integer_literal(257); }),
                  "parameter 1 'b' (__nv_bfloat16): passed the integer 257, which a "
                  "__nv_bfloat16 cannot hold exactly");
}

TEST_F(KernelArgsTest, AggregatesByValueAndTheirSizeIsChecked) {
  struct Pair {
    int a;
    float b;
  } p{20, 0.5f};
  DeviceBuffer<float> out(cpu_device(), 1);
  KernelArgs args;
  args.aggregate(&p, sizeof p, "Pair").add(out);
  kernel("pair").launch(grid_for(1, 1), args);
  std::vector<float> host(1);
  out.copy_to(host);
  EXPECT_EQ(host[0], 20.5f);

  struct Triple {
    int a, b, c;
  } t{1, 2, 3};
  KernelArgs wrong;
  wrong.aggregate(&t, sizeof t, "Triple").add(out);
  try {
    kernel("pair").launch(grid_for(1, 1), wrong);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_CONTAINS(e.what(), "parameter 0 'p' (Pair): passed a 12-byte Triple");
    EXPECT_CONTAINS(e.hint(), "struct of exactly 8 bytes");
  }
  // A number for a struct parameter, a struct for a scalar one.
  KernelArgs literal;
  literal.integer_literal(3).add(out);
  EXPECT_THROW(kernel("pair").launch(grid_for(1, 1), literal), ArgumentError);
  EXPECT_THROW(KernelArgs().aggregate(nullptr, 8, "Pair"), ArgumentError);
}

TEST_F(KernelArgsTest, PointerParametersRefuseNumbersAndStructs) {
  KernelArgs args;
  args.integer_literal(0).pointer(0).pointer(0).integer_literal(1);
  try {
    kernel("transfer").launch(grid_for(1, 1), args);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    // (The type as the demangled symbol spells it: "float const*".)
    EXPECT_CONTAINS(e.what(), "parameter 0 'a' (float const*): passed the integer 0");
    EXPECT_CONTAINS(e.hint(), "pass a DeviceBuffer");
  }
}

TEST_F(KernelArgsTest, WrongCountSaysHowManyAndTheSignature) {
  KernelArgs args;
  args.pointer(0).pointer(0).pointer(0);
  try {
    kernel("transfer").launch(grid_for(1, 1), args);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_CONTAINS(e.what(), "expected 4 arguments, got 3");
    EXPECT_CONTAINS(e.what(), "transfer(float const* a, float* b, float* c, int n)");
  }
  args.pointer(0).integer_literal(1);
  EXPECT_CONTAINS(
      [&] {
        try {
          kernel("transfer").launch(grid_for(1, 1), args);
        } catch (const ArgumentError& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      "expected 4 arguments, got 5");
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-100.f, 100.f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

TEST_F(KernelArgsTest, HostTransfersInOutAndInOutMatchTheReference) {
  const int n = 10007;  // not a multiple of the block
  const auto a = random_floats(n, 1), b0 = random_floats(n, 2);
  std::vector<float> b = b0, c(n, 0.f);
  const auto active_before = MemoryPool::of(cpu_device()).stats().active_bytes;
  KernelArgs args;
  args.host(const_cast<float*>(a.data()), a.size() * sizeof(float), TransferDirection::in)
      .host(b.data(), b.size() * sizeof(float), TransferDirection::in_out)
      .host(c.data(), c.size() * sizeof(float), TransferDirection::out)
      .integer_literal(n);
  EXPECT_TRUE(args.has_host_transfers());
  kernel("transfer").launch(grid_for(n, 128), args);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(c[static_cast<std::size_t>(i)], a[i] + b0[i]) << i;
    ASSERT_EQ(b[static_cast<std::size_t>(i)], 2.0f * b0[i]) << i;
  }
  EXPECT_EQ(MemoryPool::of(cpu_device()).stats().active_bytes, active_before);
  // The same list launched again: b doubles again, a is still only read.
  kernel("transfer").launch(grid_for(n, 128), args);
  for (int i = 0; i < n; ++i) ASSERT_EQ(b[static_cast<std::size_t>(i)], 4.0f * b0[i]) << i;
  // add() of In/Out/InOut does the same as host().
  std::vector<float> c2(n), b2 = b0;
  kernel("transfer")
      .launch(grid_for(n, 128), KernelArgs().add(In(a)).add(InOut(b2)).add(Out(c2)).add(n));
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(c2[static_cast<std::size_t>(i)], a[i] + b0[i]) << i;
    ASSERT_EQ(b2[static_cast<std::size_t>(i)], 2.0f * b0[i]) << i;
  }
  EXPECT_THROW(KernelArgs().host(nullptr, 4, TransferDirection::in), ArgumentError);
}

TEST_F(KernelArgsTest, AHostTransferForAScalarParameterIsRefusedBeforeAnyCopy) {
  std::vector<float> a(4);
  KernelArgs args;
  args.pointer(0).pointer(0).pointer(0).host(a.data(), 16, TransferDirection::in);
  try {
    kernel("transfer").launch(grid_for(1, 1), args);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_CONTAINS(e.what(), "parameter 3 'n' (int): passed an In(host data) transfer");
  }
}

// A kernel of `n` long long parameters writing their sum.
std::string many_params_source(int n) {
  std::string s = "__global__ void many(long long* out";
  for (int i = 0; i < n; ++i) s += ", long long p" + std::to_string(i);
  s += ") { out[0] = 0";
  for (int i = 0; i < n; ++i) s += " + p" + std::to_string(i);
  return s + "; }\n";
}

TEST(KernelArgsMany, MoreThanTheInlineCapacityGoesToTheHeapAndStillLaunches) {
  SKIP_WITHOUT_DEVICE();
  const int n = 45;
  static_assert(45 + 1 > KernelArgs::inline_capacity);
  Module module = compile(many_params_source(n), {}, cpu_device());
  DeviceBuffer<long long> out(cpu_device(), 1);
  KernelArgs args;
  args.add(out);
  long long want = 0;
  for (int i = 0; i < n; ++i) {
    const long long v = (i % 3 == 0 ? -1 : 1) * (1000LL * i + 7);
    want += v;
    if (i % 2 == 0)
      args.integer_literal(v);
    else
      args.scalar(static_cast<int>(v));  // widened to long long
  }
  ASSERT_EQ(args.size(), static_cast<std::size_t>(n + 1));
  module.kernel("many").launch(grid_for(1, 1), args);
  std::vector<long long> host(1);
  out.copy_to(host);
  EXPECT_EQ(host[0], want);

  // Copies, moves and append keep every argument.
  KernelArgs copy = args;
  KernelArgs moved = std::move(copy);
  EXPECT_EQ(moved.size(), args.size());
  out.zero();
  module.kernel("many").launch(grid_for(1, 1), moved);
  out.copy_to(host);
  EXPECT_EQ(host[0], want);
  KernelArgs appended;
  appended.append(args);
  EXPECT_EQ(appended.size(), args.size());
  appended.integer_literal(1);
  try {
    module.kernel("many").launch(grid_for(1, 1), appended);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_CONTAINS(e.what(), "expected 46 arguments, got 47");
  }
}

TEST(KernelArgsMany, LargeAggregatesSpillPastTheInlineBytes) {
  KernelArgs args;
  std::vector<unsigned char> big(300);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<unsigned char>(i);
  for (int k = 0; k < 3; ++k) args.aggregate(big.data(), big.size(), "Big");
  ASSERT_EQ(args.size(), 3u);
  for (const auto& a : args.args()) {
    EXPECT_EQ(a.size, 300u);
    EXPECT_EQ(std::memcmp(args.value(a), big.data(), big.size()), 0);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(args.value(a)) % 16, 0u);
  }
}

}  // namespace
}  // namespace cudakit
