// Arrays exchanged with other libraries: DLPack export and import (round
// trips, tensors built by hand as another producer would, ownership and the
// deleter), the DLPack stream handshake, and __cuda_array_interface__ v3.
#include "cudakit/array_interop.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cudakit/error.hpp"
#include "cudakit/event.hpp"
#include "unit/array_test_support.hpp"

using namespace array_test;
using ck::DType;
namespace dl = ck::dlpack;

namespace {

// A tensor built by hand, as another library would hand it over: its
// deleter counts how often it ran.
struct Foreign {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  int deleted = 0;
  dl::DLManagedTensorVersioned versioned{};
  dl::DLManagedTensor legacy{};
};

void count_versioned(dl::DLManagedTensorVersioned* self) {
  ++static_cast<Foreign*>(self->manager_ctx)->deleted;
}
void count_legacy(dl::DLManagedTensor* self) {
  ++static_cast<Foreign*>(self->manager_ctx)->deleted;
}

std::unique_ptr<Foreign> make_foreign(void* data, dl::DLDevice device, dl::DLDataType type,
                                      std::vector<std::int64_t> shape,
                                      std::optional<std::vector<std::int64_t>> strides,
                                      std::uint64_t byte_offset = 0) {
  auto f = std::make_unique<Foreign>();
  f->shape = std::move(shape);
  if (strides) f->strides = *strides;
  dl::DLTensor t{};
  t.data = data;
  t.device = device;
  t.ndim = static_cast<std::int32_t>(f->shape.size());
  t.dtype = type;
  t.shape = f->shape.data();
  t.strides = strides ? f->strides.data() : nullptr;
  t.byte_offset = byte_offset;
  f->versioned.version = {1, 0};
  f->versioned.manager_ctx = f.get();
  f->versioned.deleter = &count_versioned;
  f->versioned.dl_tensor = t;
  f->legacy.dl_tensor = t;
  f->legacy.manager_ctx = f.get();
  f->legacy.deleter = &count_legacy;
  return f;
}

constexpr dl::DLDataType kFloat32{dl::kDLFloat, 32, 1};

class ArrayInterop : public ArrayTest {
 protected:
  // How DLPack names the device under test.
  dl::DLDevice dl_device() const {
    return device().backend_kind() == ck::BackendKind::cuda
               ? dl::DLDevice{dl::kDLCUDA, device().ordinal()}
               : dl::DLDevice{dl::kDLCPU, 0};
  }
  bool on_gpu() const { return device().backend_kind() == ck::BackendKind::cuda; }
  ck::Array random_array(const ck::Shape& shape, DType dtype = DType::float32) {
    return make_array(random_doubles(static_cast<std::size_t>(ck::shape_size(shape))), dtype,
                      shape);
  }
};

// A transposed view with one reversed axis: strides (1, -cols).
ck::Array reversed_transpose(const ck::Array& a) {
  return a.T().slice(1, std::nullopt, std::nullopt, -1);
}

// ---- DLPack export -------------------------------------------------------------

TEST_F(ArrayInterop, VersionedExportDescribesTheArray) {
  ck::Array a = reversed_transpose(random_array({7, 13}));
  dl::DLManagedTensorVersioned* t = ck::to_dlpack_versioned(a);
  EXPECT_EQ(t->version.major, 1u);
  EXPECT_EQ(t->version.minor, 0u);
  EXPECT_EQ(t->flags, 0u);
  EXPECT_EQ(t->dl_tensor.device.device_type, dl_device().device_type);
  EXPECT_EQ(t->dl_tensor.device.device_id, dl_device().device_id);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t->dl_tensor.data), a.address());
  EXPECT_EQ(t->dl_tensor.byte_offset, 0u);
  ASSERT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(std::vector<std::int64_t>(t->dl_tensor.shape, t->dl_tensor.shape + 2), a.shape());
  EXPECT_EQ(std::vector<std::int64_t>(t->dl_tensor.strides, t->dl_tensor.strides + 2),
            (std::vector<std::int64_t>{1, -13}));
  EXPECT_EQ(t->dl_tensor.dtype.code, dl::kDLFloat);
  EXPECT_EQ(t->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(t->dl_tensor.dtype.lanes, 1);
  t->deleter(t);
}

TEST_F(ArrayInterop, EveryDtypeHasItsDlpackCode) {
  struct Row {
    DType dtype;
    std::uint8_t code, bits;
  };
  const Row rows[] = {
      {DType::bool_, dl::kDLBool, 8},          {DType::int8, dl::kDLInt, 8},
      {DType::int16, dl::kDLInt, 16},          {DType::int32, dl::kDLInt, 32},
      {DType::int64, dl::kDLInt, 64},          {DType::uint8, dl::kDLUInt, 8},
      {DType::uint16, dl::kDLUInt, 16},        {DType::uint32, dl::kDLUInt, 32},
      {DType::uint64, dl::kDLUInt, 64},        {DType::float16, dl::kDLFloat, 16},
      {DType::bfloat16, dl::kDLBfloat, 16},    {DType::float32, dl::kDLFloat, 32},
      {DType::float64, dl::kDLFloat, 64},      {DType::complex64, dl::kDLComplex, 64},
      {DType::complex128, dl::kDLComplex, 128}};
  ASSERT_EQ(std::size(rows), static_cast<std::size_t>(ck::dtype_count));
  for (const Row& r : rows) {
    SCOPED_TRACE(std::string(ck::to_string(r.dtype)));
    const dl::DLDataType t = ck::dlpack_dtype(r.dtype);
    EXPECT_EQ(t.code, r.code);
    EXPECT_EQ(t.bits, r.bits);
    EXPECT_EQ(t.lanes, 1);
    EXPECT_EQ(ck::dtype_from_dlpack(t), r.dtype);
  }
}

TEST_F(ArrayInterop, ExportKeepsTheMemoryAliveUntilTheDeleterRuns) {
  ck::Array a = random_array({1001});
  std::weak_ptr<ck::detail::ArrayStorage> storage = a.storage();
  dl::DLManagedTensorVersioned* t = ck::to_dlpack_versioned(a);
  a = ck::Array();
  EXPECT_FALSE(storage.expired());
  t->deleter(t);
  EXPECT_TRUE(storage.expired());
}

TEST_F(ArrayInterop, ReadOnlyArrayExportsTheReadOnlyFlag) {
  ck::Array a = random_array({5});
  a.set_readonly(true);
  dl::DLManagedTensorVersioned* t = ck::to_dlpack_versioned(a);
  EXPECT_EQ(t->flags & dl::kFlagReadOnly, dl::kFlagReadOnly);
  t->deleter(t);
}

TEST_F(ArrayInterop, CopyExportViewsAFreshContiguousCopy) {
  ck::Array a = reversed_transpose(random_array({6, 10}));
  a.set_readonly(true);
  dl::DLManagedTensorVersioned* t = ck::to_dlpack_versioned(a, true);
  EXPECT_EQ(t->flags, dl::kFlagIsCopied);
  EXPECT_NE(reinterpret_cast<std::uintptr_t>(t->dl_tensor.data), a.address());
  EXPECT_EQ(std::vector<std::int64_t>(t->dl_tensor.strides, t->dl_tensor.strides + 2),
            (std::vector<std::int64_t>{6, 1}));
  ck::Array b = ck::from_dlpack(t);
  EXPECT_FALSE(b.readonly());
  EXPECT_FALSE(b.may_share_memory(a));
  EXPECT_EQ(host_doubles(b), host_doubles(a));
}

TEST_F(ArrayInterop, DlpackDeviceNamesTheArraysDevice) {
  ck::Array a = random_array({3});
  EXPECT_EQ(ck::dlpack_device(a).device_type, dl_device().device_type);
  EXPECT_EQ(ck::dlpack_device(a).device_id, dl_device().device_id);
  ck::Device cpu = ck::Device::get(ck::BackendKind::cpu, 0);
  EXPECT_EQ(ck::dlpack_device(ck::zeros({2}, DType::int8, cpu.default_stream())).device_type,
            dl::kDLCPU);
}

TEST_F(ArrayInterop, LegacyExportOfAReadOnlyArrayIsAnError) {
  ck::Array a = random_array({5});
  a.set_readonly(true);
  EXPECT_THROW(ck::to_dlpack(a), ck::ArgumentError);
}

TEST_F(ArrayInterop, ExportOfANullArrayIsAnError) {
  EXPECT_THROW(ck::to_dlpack_versioned(ck::Array()), ck::ArgumentError);
  EXPECT_THROW(ck::to_dlpack(ck::Array()), ck::ArgumentError);
}

// ---- DLPack round trips --------------------------------------------------------

TEST_F(ArrayInterop, VersionedRoundTripKeepsAddressShapeStridesAndDtype) {
  for (DType d : {DType::float32, DType::int16, DType::complex128, DType::bfloat16, DType::bool_}) {
    SCOPED_TRACE(std::string(ck::to_string(d)));
    ck::Array a = reversed_transpose(random_array({9, 17}, d));
    ck::Array b = ck::from_dlpack(ck::to_dlpack_versioned(a));
    EXPECT_EQ(b.address(), a.address());
    EXPECT_EQ(b.shape(), a.shape());
    EXPECT_EQ(b.strides(), a.strides());
    EXPECT_EQ(b.dtype(), d);
    EXPECT_EQ(b.device(), a.device());
    EXPECT_FALSE(b.readonly());
    EXPECT_EQ(host_doubles(b), host_doubles(a));
  }
}

TEST_F(ArrayInterop, LegacyRoundTripKeepsAddressShapeStridesAndDtype) {
  ck::Array a = random_array({6, 11}, DType::float64).slice(1, 1, std::nullopt, 3);
  ck::Array b = ck::from_dlpack(ck::to_dlpack(a));
  EXPECT_EQ(b.address(), a.address());
  EXPECT_EQ(b.shape(), a.shape());
  EXPECT_EQ(b.strides(), a.strides());
  EXPECT_EQ(b.dtype(), DType::float64);
  EXPECT_EQ(host_doubles(b), host_doubles(a));
}

TEST_F(ArrayInterop, RoundTripDataIsVisibleBothWays) {
  ck::Array a = random_array({4, 129});
  ck::Array b = ck::from_dlpack(ck::to_dlpack_versioned(a));
  b.fill(3.5);
  for (double x : host_doubles(a)) ASSERT_EQ(x, 3.5);
  a.index({ck::Index{2}}).fill(-1.0);
  auto got = host_doubles(b);
  for (std::size_t k = 0; k < got.size(); ++k) ASSERT_EQ(got[k], k / 129 == 2 ? -1.0 : 3.5) << k;
}

TEST_F(ArrayInterop, RoundTripOfAReadOnlyArrayStaysReadOnly) {
  ck::Array a = random_array({8});
  a.set_readonly(true);
  ck::Array b = ck::from_dlpack(ck::to_dlpack_versioned(a));
  EXPECT_TRUE(b.readonly());
  EXPECT_THROW(b.fill(1.0), ck::ArgumentError);
}

TEST_F(ArrayInterop, ZeroSizeArrayRoundTrips) {
  ck::Array a = ck::empty({3, 0, 2}, DType::int32);
  ck::Array b = ck::from_dlpack(ck::to_dlpack_versioned(a));
  EXPECT_EQ(b.shape(), (ck::Shape{3, 0, 2}));
  EXPECT_EQ(b.size(), 0);
  EXPECT_EQ(b.dtype(), DType::int32);
}

TEST_F(ArrayInterop, ZeroDimensionalArrayRoundTrips) {
  ck::Array a = ck::full({}, 2.75, DType::float64);
  ck::Array b = ck::from_dlpack(ck::to_dlpack(a));
  EXPECT_EQ(b.ndim(), 0);
  EXPECT_EQ(b.item().as_double(), 2.75);
}

TEST_F(ArrayInterop, TheLastViewOfAnImportReleasesTheExportOnce) {
  ck::Array a = random_array({50});
  std::weak_ptr<ck::detail::ArrayStorage> storage = a.storage();
  ck::Array b = ck::from_dlpack(ck::to_dlpack_versioned(a));
  ck::Array c = b.slice(0, 10, 20);
  a = ck::Array();
  b = ck::Array();
  EXPECT_FALSE(storage.expired());
  c = ck::Array();
  EXPECT_TRUE(storage.expired());
}

// ---- DLPack import of tensors built by hand --------------------------------------

TEST_F(ArrayInterop, ForeignTensorDeleterRunsOnceWhenTheLastViewGoes) {
  ck::Array backing = random_array({23, 5});
  auto f = make_foreign(backing.data(), dl_device(), kFloat32, {23, 5}, std::nullopt);
  ck::Array a = ck::from_dlpack(&f->versioned);
  ck::Array view = a.T();
  ck::Array copy_of_view = view;
  EXPECT_EQ(host_doubles(a), host_doubles(backing));
  a = ck::Array();
  view = ck::Array();
  EXPECT_EQ(f->deleted, 0);
  copy_of_view = ck::Array();
  EXPECT_EQ(f->deleted, 1);
}

TEST_F(ArrayInterop, ForeignLegacyTensorDeleterRunsOnce) {
  ck::Array backing = random_array({31});
  auto f = make_foreign(backing.data(), dl_device(), kFloat32, {31}, std::nullopt);
  {
    ck::Array a = ck::from_dlpack(&f->legacy);
    EXPECT_EQ(host_doubles(a), host_doubles(backing));
    EXPECT_FALSE(a.readonly());
  }
  EXPECT_EQ(f->deleted, 1);
}

TEST_F(ArrayInterop, ForeignHostTensorImportsToTheCpuBackend) {
  std::vector<float> host(37);
  for (std::size_t k = 0; k < host.size(); ++k) host[k] = static_cast<float>(k) * 0.5f + 1.0f;
  auto f = make_foreign(host.data(), {dl::kDLCPU, 0}, kFloat32, {37}, std::nullopt);
  {
    ck::Array a = ck::from_dlpack(&f->versioned);
    EXPECT_EQ(a.device().backend_kind(), ck::BackendKind::cpu);
    EXPECT_EQ(a.to_host<float>(), host);
  }
  EXPECT_EQ(f->deleted, 1);
}

TEST_F(ArrayInterop, ForeignTensorWithNegativeStridesAndByteOffset) {
  // Rows reversed: element [i][j] of the import is backing[rows - 1 - i][j].
  const std::int64_t rows = 6, cols = 19;
  ck::Array backing = random_array({rows, cols}, DType::float64);
  auto f = make_foreign(backing.data(), dl_device(), {dl::kDLFloat, 64, 1}, {rows, cols},
                        std::vector<std::int64_t>{-cols, 1},
                        static_cast<std::uint64_t>((rows - 1) * cols * 8));
  ck::Array a = ck::from_dlpack(&f->versioned);
  EXPECT_EQ(a.strides(), (ck::Strides{-cols, 1}));
  EXPECT_EQ(a.address(), backing.address() + static_cast<std::uint64_t>((rows - 1) * cols * 8));
  auto want = host_doubles(backing), got = host_doubles(a);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      ASSERT_EQ(got[static_cast<std::size_t>(i * cols + j)],
                want[static_cast<std::size_t>((rows - 1 - i) * cols + j)]);
}

TEST_F(ArrayInterop, ForeignTensorWithoutStridesIsCContiguous) {
  ck::Array backing = random_array({3, 4, 5}, DType::int64);
  auto f = make_foreign(backing.data(), dl_device(), {dl::kDLInt, 64, 1}, {3, 4, 5}, std::nullopt);
  ck::Array a = ck::from_dlpack(&f->versioned);
  EXPECT_EQ(a.strides(), (ck::Strides{20, 5, 1}));
  EXPECT_TRUE(a.is_c_contiguous());
  EXPECT_EQ(host_doubles(a), host_doubles(backing));
}

TEST_F(ArrayInterop, ForeignReadOnlyTensorGivesAReadOnlyArray) {
  ck::Array backing = random_array({12});
  auto f = make_foreign(backing.data(), dl_device(), kFloat32, {12}, std::nullopt);
  f->versioned.flags = dl::kFlagReadOnly | dl::kFlagIsCopied;
  ck::Array a = ck::from_dlpack(&f->versioned);
  EXPECT_TRUE(a.readonly());
  EXPECT_THROW(a.fill(0.5), ck::ArgumentError);
}

TEST_F(ArrayInterop, ForeignZeroSizeTensorWithNullDataImports) {
  auto f = make_foreign(nullptr, dl_device(), kFloat32, {0, 4}, std::nullopt);
  {
    ck::Array a = ck::from_dlpack(&f->versioned);
    EXPECT_EQ(a.shape(), (ck::Shape{0, 4}));
    EXPECT_EQ(a.size(), 0);
  }
  EXPECT_EQ(f->deleted, 1);
}

TEST_F(ArrayInterop, ForeignTensorOfAMinorVersionAboveOursImports) {
  ck::Array backing = random_array({3});
  auto f = make_foreign(backing.data(), dl_device(), kFloat32, {3}, std::nullopt);
  f->versioned.version = {1, 3};
  EXPECT_EQ(host_doubles(ck::from_dlpack(&f->versioned)), host_doubles(backing));
}

// ---- DLPack import errors: the tensor stays the caller's --------------------------

TEST_F(ArrayInterop, UnknownDeviceTypeIsAnErrorNamingIt) {
  float x[4] = {1, 2, 3, 4};
  auto f = make_foreign(x, {dl::kDLOpenCL, 0}, kFloat32, {4}, std::nullopt);
  try {
    (void)ck::from_dlpack(&f->versioned);
    FAIL() << "expected ArgumentError";
  } catch (const ck::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("kDLOpenCL"), std::string::npos) << e.what();
  }
  EXPECT_EQ(f->deleted, 0);
}

TEST_F(ArrayInterop, PinnedHostTensorIsAnError) {
  float x[4] = {1, 2, 3, 4};
  auto f = make_foreign(x, {dl::kDLCUDAHost, 0}, kFloat32, {4}, std::nullopt);
  EXPECT_THROW((void)ck::from_dlpack(&f->legacy), ck::ArgumentError);
  EXPECT_EQ(f->deleted, 0);
}

TEST_F(ArrayInterop, CudaTensorOfAMissingDeviceIsAnError) {
  float x[4] = {1, 2, 3, 4};
  auto f = make_foreign(x, {dl::kDLCUDA, 999}, kFloat32, {4}, std::nullopt);
  EXPECT_THROW((void)ck::from_dlpack(&f->versioned), ck::ArgumentError);
  EXPECT_EQ(f->deleted, 0);
}

TEST_F(ArrayInterop, VectorLanesAreAnError) {
  ck::Array backing = random_array({8});
  auto f = make_foreign(backing.data(), dl_device(), {dl::kDLFloat, 32, 4}, {2}, std::nullopt);
  EXPECT_THROW((void)ck::from_dlpack(&f->versioned), ck::ArgumentError);
  EXPECT_EQ(f->deleted, 0);
}

TEST_F(ArrayInterop, DtypeWithoutACudakitTypeIsNotSupported) {
  ck::Array backing = random_array({8});
  auto f = make_foreign(backing.data(), dl_device(), {dl::kDLFloat, 8, 1}, {8}, std::nullopt);
  EXPECT_THROW((void)ck::from_dlpack(&f->versioned), ck::NotSupported);
  f->versioned.dl_tensor.dtype = {dl::kDLOpaqueHandle, 64, 1};
  EXPECT_THROW((void)ck::from_dlpack(&f->versioned), ck::NotSupported);
  EXPECT_EQ(f->deleted, 0);
}

TEST_F(ArrayInterop, AnotherMajorVersionIsAnError) {
  ck::Array backing = random_array({8});
  auto f = make_foreign(backing.data(), dl_device(), kFloat32, {8}, std::nullopt);
  f->versioned.version = {2, 0};
  EXPECT_THROW((void)ck::from_dlpack(&f->versioned), ck::ArgumentError);
  EXPECT_EQ(f->deleted, 0);
}

TEST_F(ArrayInterop, NullDataWithElementsIsAnError) {
  auto f = make_foreign(nullptr, dl_device(), kFloat32, {5}, std::nullopt);
  EXPECT_THROW((void)ck::from_dlpack(&f->versioned), ck::ArgumentError);
  EXPECT_EQ(f->deleted, 0);
}

TEST_F(ArrayInterop, NullTensorIsAnError) {
  EXPECT_THROW((void)ck::from_dlpack(static_cast<dl::DLManagedTensorVersioned*>(nullptr)),
               ck::ArgumentError);
  EXPECT_THROW((void)ck::from_dlpack(static_cast<dl::DLManagedTensor*>(nullptr)),
               ck::ArgumentError);
}

// ---- the DLPack stream handshake ---------------------------------------------------

TEST_F(ArrayInterop, PrepareExportOrdersTheConsumerStreamAfterTheArrays) {
  ck::Stream producer = device().create_stream();
  ck::Stream consumer = device().create_stream();
  auto values = random_doubles(100003);
  ck::Array a = ck::from_host(values.data(), {100003}, DType::float64, producer);
  ck::Array b = ck::empty({100003}, DType::float64, producer);
  b.assign(a * 3.0 + 1.0);  // queued on the producer's stream
  if (on_gpu())
    ck::prepare_export(b, reinterpret_cast<std::intptr_t>(consumer.native()));
  else
    ck::prepare_export(b, std::nullopt);
  // The consumer reads on its own stream.
  ck::Array seen =
      ck::from_pointer(b.address(), b.shape(), {}, b.dtype(), device(), {}, true, consumer);
  auto got = host_doubles(seen.copy());
  // (The GPU may fuse the multiply-add: one rounding instead of two.)
  for (std::size_t k = 0; k < values.size(); ++k) {
    const double want = values[k] * 3.0 + 1.0;
    ASSERT_NEAR(got[k], want, 4e-16 * (1.0 + std::fabs(want))) << k;
  }
}

TEST_F(ArrayInterop, PrepareExportWithoutSynchronisationWantedDoesNothing) {
  if (!on_gpu()) GTEST_SKIP() << "stream -1 applies to GPU arrays";
  ck::Array a = random_array({10});
  EXPECT_NO_THROW(ck::prepare_export(a, -1));
  EXPECT_NO_THROW(ck::prepare_export(a, 1));
  EXPECT_NO_THROW(ck::prepare_export(a, 2));
  EXPECT_NO_THROW(ck::prepare_export(a, std::nullopt));
}

TEST_F(ArrayInterop, PrepareExportWithStreamZeroIsAnError) {
  if (!on_gpu()) GTEST_SKIP() << "CPU-backend arrays take no stream at all";
  ck::Array a = random_array({10});
  EXPECT_THROW(ck::prepare_export(a, 0), ck::ArgumentError);
  EXPECT_THROW(ck::prepare_export(a, -7), ck::ArgumentError);
}

TEST_F(ArrayInterop, PrepareExportOfACpuArrayWithAStreamIsAnError) {
  ck::Device cpu = ck::Device::get(ck::BackendKind::cpu, 0);
  ck::Array a = ck::zeros({10}, DType::float32, cpu.default_stream());
  EXPECT_THROW(ck::prepare_export(a, 1), ck::ArgumentError);
  EXPECT_NO_THROW(ck::prepare_export(a, std::nullopt));
}

// ---- __cuda_array_interface__: typestr ----------------------------------------------

TEST_F(ArrayInterop, EveryDtypeHasNumpysTypestr) {
  struct Row {
    DType dtype;
    const char* typestr;
  };
  const Row rows[] = {
      {DType::bool_, "|b1"},     {DType::int8, "|i1"},       {DType::int16, "<i2"},
      {DType::int32, "<i4"},     {DType::int64, "<i8"},      {DType::uint8, "|u1"},
      {DType::uint16, "<u2"},    {DType::uint32, "<u4"},     {DType::uint64, "<u8"},
      {DType::float16, "<f2"},   {DType::float32, "<f4"},    {DType::float64, "<f8"},
      {DType::complex64, "<c8"}, {DType::complex128, "<c16"}};
  for (const Row& r : rows) {
    EXPECT_EQ(ck::typestr(r.dtype), r.typestr);
    EXPECT_EQ(ck::dtype_from_typestr(r.typestr), r.dtype) << r.typestr;
  }
}

TEST_F(ArrayInterop, Bfloat16HasNoTypestr) {
  EXPECT_THROW((void)ck::typestr(DType::bfloat16), ck::NotSupported);
}

TEST_F(ArrayInterop, TypestrAcceptsNativeAndNotApplicableByteOrders) {
  EXPECT_EQ(ck::dtype_from_typestr("=f4"), DType::float32);
  EXPECT_EQ(ck::dtype_from_typestr("|i8"), DType::int64);
  EXPECT_EQ(ck::dtype_from_typestr("<b1"), DType::bool_);
  EXPECT_EQ(ck::dtype_from_typestr(">u1"), DType::uint8);  // one byte: no order
}

TEST_F(ArrayInterop, BigEndianTypestrIsAnError) {
  EXPECT_THROW((void)ck::dtype_from_typestr(">f4"), ck::ArgumentError);
  EXPECT_THROW((void)ck::dtype_from_typestr(">i2"), ck::ArgumentError);
}

TEST_F(ArrayInterop, MalformedTypestrIsAnError) {
  for (const char* s : {"", "f4", "<f", "<f4x", "*f4", "<q4", "<f-4"})
    EXPECT_THROW((void)ck::dtype_from_typestr(s), ck::ArgumentError) << s;
}

TEST_F(ArrayInterop, TypestrOfATypeCudakitLacksIsNotSupported) {
  for (const char* s : {"<M8", "|O8", "|S5", "<U3", "|V2", "<f16", "<i3", "|b2"})
    EXPECT_THROW((void)ck::dtype_from_typestr(s), ck::NotSupported) << s;
}

// ---- __cuda_array_interface__: export -------------------------------------------------

TEST_F(ArrayInterop, InterfaceOfACpuBackendArrayIsAnError) {
  ck::Device cpu = ck::Device::get(ck::BackendKind::cpu, 0);
  ck::Array a = ck::zeros({10}, DType::float32, cpu.default_stream());
  EXPECT_THROW((void)ck::cuda_array_interface(a), ck::ArgumentError);
}

TEST_F(ArrayInterop, InterfaceOfAContiguousArrayOmitsStrides) {
  if (!on_gpu()) GTEST_SKIP() << "__cuda_array_interface__ describes GPU arrays";
  ck::Array a = random_array({5, 7});
  ck::CudaArrayInterface cai = ck::cuda_array_interface(a);
  EXPECT_EQ(cai.data, a.address());
  EXPECT_EQ(cai.shape, (std::vector<std::int64_t>{5, 7}));
  EXPECT_FALSE(cai.strides_bytes.has_value());
  EXPECT_EQ(cai.typestr, "<f4");
  EXPECT_EQ(cai.version, 3);
  EXPECT_FALSE(cai.readonly);
  EXPECT_FALSE(cai.masked);
  EXPECT_EQ(cai.stream, std::optional<std::intptr_t>(1));  // the legacy default stream
}

TEST_F(ArrayInterop, InterfaceOfAStridedArrayGivesByteStrides) {
  if (!on_gpu()) GTEST_SKIP() << "__cuda_array_interface__ describes GPU arrays";
  ck::Array a = reversed_transpose(random_array({5, 7}, DType::complex64));
  ck::CudaArrayInterface cai = ck::cuda_array_interface(a);
  EXPECT_EQ(cai.data, a.address());
  ASSERT_TRUE(cai.strides_bytes.has_value());
  EXPECT_EQ(*cai.strides_bytes, (std::vector<std::int64_t>{8, -56}));
  EXPECT_EQ(cai.typestr, "<c8");
}

TEST_F(ArrayInterop, InterfaceNamesTheArraysStreamAndReadOnly) {
  if (!on_gpu()) GTEST_SKIP() << "__cuda_array_interface__ describes GPU arrays";
  ck::Stream s = device().create_stream();
  ck::Array a = ck::zeros({4}, DType::int32, s);
  a.set_readonly(true);
  ck::CudaArrayInterface cai = ck::cuda_array_interface(a);
  EXPECT_EQ(cai.stream, std::optional<std::intptr_t>(reinterpret_cast<std::intptr_t>(s.native())));
  EXPECT_TRUE(cai.readonly);
}

TEST_F(ArrayInterop, InterfaceOfAZeroSizeArrayHasDataZero) {
  if (!on_gpu()) GTEST_SKIP() << "__cuda_array_interface__ describes GPU arrays";
  ck::CudaArrayInterface cai = ck::cuda_array_interface(ck::empty({0, 3}, DType::uint16));
  EXPECT_EQ(cai.data, 0u);
  EXPECT_EQ(cai.typestr, "<u2");
}

TEST_F(ArrayInterop, InterfaceRoundTripViewsTheSameMemory) {
  if (!on_gpu()) GTEST_SKIP() << "__cuda_array_interface__ describes GPU arrays";
  ck::Array a = reversed_transpose(random_array({9, 4}, DType::float64));
  ck::Array b = ck::from_cuda_array_interface(ck::cuda_array_interface(a), {}, device());
  EXPECT_EQ(b.address(), a.address());
  EXPECT_EQ(b.strides(), a.strides());
  EXPECT_EQ(host_doubles(b), host_doubles(a));
}

// ---- __cuda_array_interface__: import --------------------------------------------------

// The interface a producer would give for `a`, by hand.
ck::CudaArrayInterface describe(const ck::Array& a, const char* typestr) {
  ck::CudaArrayInterface cai;
  cai.data = a.address();
  cai.shape = a.shape();
  cai.strides_bytes = a.strides_bytes();
  cai.typestr = typestr;
  return cai;
}

TEST_F(ArrayInterop, ImportViewsTheMemoryAndKeepsTheOwnerAlive) {
  ck::Array backing = reversed_transpose(random_array({11, 3}, DType::int32));
  auto owner = std::make_shared<int>(7);
  ck::Array a = ck::from_cuda_array_interface(describe(backing, "<i4"), owner, device());
  EXPECT_EQ(a.address(), backing.address());
  EXPECT_EQ(a.strides(), backing.strides());
  EXPECT_EQ(a.dtype(), DType::int32);
  EXPECT_EQ(host_doubles(a), host_doubles(backing));
  EXPECT_EQ(owner.use_count(), 2);
  a = ck::Array();
  EXPECT_EQ(owner.use_count(), 1);
}

TEST_F(ArrayInterop, ImportWithoutStridesIsCContiguous) {
  ck::Array backing = random_array({4, 6}, DType::float16);
  ck::CudaArrayInterface cai = describe(backing, "<f2");
  cai.strides_bytes.reset();
  ck::Array a = ck::from_cuda_array_interface(cai, {}, device());
  EXPECT_TRUE(a.is_c_contiguous());
  EXPECT_EQ(host_doubles(a), host_doubles(backing));
}

TEST_F(ArrayInterop, ImportOfAZeroSizeArrayWithDataZero) {
  ck::CudaArrayInterface cai;
  cai.shape = {0};
  cai.typestr = "<f8";
  ck::Array a = ck::from_cuda_array_interface(cai, {}, device());
  EXPECT_EQ(a.size(), 0);
  EXPECT_EQ(a.dtype(), DType::float64);
}

TEST_F(ArrayInterop, ImportOfAReadOnlyInterfaceIsReadOnly) {
  ck::Array backing = random_array({6});
  ck::CudaArrayInterface cai = describe(backing, "<f4");
  cai.readonly = true;
  ck::Array a = ck::from_cuda_array_interface(cai, {}, device());
  EXPECT_TRUE(a.readonly());
  EXPECT_THROW(a.fill(1.0), ck::ArgumentError);
}

TEST_F(ArrayInterop, ImportOfAMaskedInterfaceIsNotSupported) {
  ck::Array backing = random_array({6});
  ck::CudaArrayInterface cai = describe(backing, "<f4");
  cai.masked = true;
  EXPECT_THROW((void)ck::from_cuda_array_interface(cai, {}, device()), ck::NotSupported);
}

TEST_F(ArrayInterop, ImportOfBigEndianDataIsAnError) {
  ck::Array backing = random_array({6});
  EXPECT_THROW((void)ck::from_cuda_array_interface(describe(backing, ">f4"), {}, device()),
               ck::ArgumentError);
}

TEST_F(ArrayInterop, ImportWithStreamZeroIsAnError) {
  ck::Array backing = random_array({6});
  ck::CudaArrayInterface cai = describe(backing, "<f4");
  cai.stream = 0;
  EXPECT_THROW((void)ck::from_cuda_array_interface(cai, {}, device()), ck::ArgumentError);
}

TEST_F(ArrayInterop, ImportWithAStrideCountMismatchIsAnError) {
  ck::Array backing = random_array({2, 3});
  ck::CudaArrayInterface cai = describe(backing, "<f4");
  cai.strides_bytes = std::vector<std::int64_t>{12};
  EXPECT_THROW((void)ck::from_cuda_array_interface(cai, {}, device()), ck::ArgumentError);
}

TEST_F(ArrayInterop, ImportWithAStrideNotAMultipleOfTheItemsizeIsAnError) {
  ck::Array backing = random_array({2, 3});
  ck::CudaArrayInterface cai = describe(backing, "<f4");
  cai.strides_bytes = std::vector<std::int64_t>{12, 6};
  EXPECT_THROW((void)ck::from_cuda_array_interface(cai, {}, device()), ck::ArgumentError);
}

TEST_F(ArrayInterop, ImportIsOrderedAfterTheProducersStream) {
  ck::Stream producer = device().create_stream();
  ck::Stream consumer = device().create_stream();
  auto values = random_doubles(100003);
  ck::Array a = ck::from_host(values.data(), {100003}, DType::float64, producer);
  ck::Array b = ck::empty({100003}, DType::float64, producer);
  b.assign(a * 2.0 - 5.0);  // queued on the producer's stream
  ck::CudaArrayInterface cai = describe(b, "<f8");
  cai.stream = reinterpret_cast<std::intptr_t>(producer.native());
  ck::Array c = ck::from_cuda_array_interface(cai, {}, device(), consumer);
  EXPECT_EQ(c.stream().native(), consumer.native());
  auto got = host_doubles(c.copy());  // runs on the consumer's stream
  for (std::size_t k = 0; k < values.size(); ++k) ASSERT_EQ(got[k], values[k] * 2.0 - 5.0) << k;
}

}  // namespace
