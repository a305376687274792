// Finding kernels in a module by every name a user may give.
#include <gtest/gtest.h>

#include "core/kernel_state.hpp"
#include "cudakit/error.hpp"
#include "cudakit/kernel.hpp"
#include "unit/core_fake_module.hpp"

namespace cudakit {
namespace {

using testing::fake;
using testing::FakeKernelSpec;
using testing::FakeModuleSpec;
using testing::load_fake_module;
using testing::make_layout;
using testing::pointer_param;
using testing::scalar_param;

FakeKernelSpec spec_for(std::string symbol, std::vector<Param> params) {
  return {std::move(symbol), make_layout(std::move(params)), {32, 0, 0, 0, 1024, 0, 0, 0}, {}};
}

// Two instantiations of a template and one plain C++ kernel, as NVRTC names them.
FakeModuleSpec cpp_module() {
  FakeModuleSpec spec;
  spec.kernels.push_back(spec_for(
      "_Z7vec_addIfEvPKT_S2_PS0_i",
      {pointer_param(), pointer_param(), pointer_param(), scalar_param(ScalarType::unknown, 4)}));
  spec.kernels.push_back(spec_for(
      "_Z7vec_addIdEvPKT_S2_PS0_i",
      {pointer_param(), pointer_param(), pointer_param(), scalar_param(ScalarType::unknown, 4)}));
  spec.kernels.push_back(
      spec_for("_Z5scalePfm", {pointer_param(), scalar_param(ScalarType::unknown, 8)}));
  return spec;
}

constexpr const char* kCppSource = R"(
template <typename T>
__global__ void vec_add(const T* a, const T* b, T* c, int n) {}
__global__ void scale(float* data, size_t count) {}
)";

CompiledCode with_lowered_names() {
  CompiledCode code;
  code.lowered_names = {{"vec_add<float>", "_Z7vec_addIfEvPKT_S2_PS0_i"},
                        {"vec_add<double>", "_Z7vec_addIdEvPKT_S2_PS0_i"}};
  return code;
}

class ModuleLookup : public ::testing::Test {
 protected:
  void SetUp() override { fake().reset(); }
};

TEST_F(ModuleLookup, FindsAnExternCKernelByName) {
  FakeModuleSpec spec;
  spec.kernels.push_back(spec_for("vec_add", {pointer_param()}));
  auto module = load_fake_module(spec, "__global__ void vec_add(float* x) {}");
  auto k = module.kernel("vec_add");
  EXPECT_EQ(k.name(), "vec_add");
  EXPECT_EQ(k.symbol(), "vec_add");
  EXPECT_EQ(k.params().params[0].name, "x");
}

TEST_F(ModuleLookup, FindsAKernelByNameExpression) {
  auto module = load_fake_module(cpp_module(), kCppSource, with_lowered_names());
  EXPECT_EQ(module.kernel("vec_add<double>").symbol(), "_Z7vec_addIdEvPKT_S2_PS0_i");
  EXPECT_EQ(module.kernel("vec_add< double >").symbol(), "_Z7vec_addIdEvPKT_S2_PS0_i");
}

TEST_F(ModuleLookup, FindsAKernelByMangledSymbol) {
  auto module = load_fake_module(cpp_module(), kCppSource);
  EXPECT_EQ(module.kernel("_Z5scalePfm").symbol(), "_Z5scalePfm");
}

TEST_F(ModuleLookup, FindsAnInstantiationByItsDemangledName) {
  auto module = load_fake_module(cpp_module(), kCppSource);  // no name expressions recorded
  EXPECT_EQ(module.kernel("vec_add<float>").symbol(), "_Z7vec_addIfEvPKT_S2_PS0_i");
}

TEST_F(ModuleLookup, FindsACppKernelByItsPlainNameWhenUnambiguous) {
  auto module = load_fake_module(cpp_module(), kCppSource);
  auto k = module.kernel("scale");
  EXPECT_EQ(k.symbol(), "_Z5scalePfm");
  EXPECT_EQ(k.name(), "scale");
}

TEST_F(ModuleLookup, AmbiguousPlainNameListsTheCandidates) {
  auto module = load_fake_module(cpp_module(), kCppSource);
  try {
    module.kernel("vec_add");
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("ambiguous"), std::string::npos) << what;
    EXPECT_NE(what.find("void vec_add<float>(float const*, float const*, float*, int)"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("vec_add<double>"), std::string::npos) << what;
  }
}

TEST_F(ModuleLookup, MissingKernelListsTheKernelsThatExist) {
  auto module = load_fake_module(cpp_module(), kCppSource);
  try {
    module.kernel("vec_sub");
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("no such kernel"), std::string::npos) << what;
    EXPECT_NE(what.find("scale(float*, unsigned long)"), std::string::npos) << what;
  }
}

TEST_F(ModuleLookup, UninstantiatedTemplateGetsANameExpressionHint) {
  FakeModuleSpec spec;
  auto module = load_fake_module(spec, "template <class T> __global__ void twice(T* x) {}");
  try {
    module.kernel("twice");
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(e.hint().find("name_expressions"), std::string::npos) << e.hint();
  }
}

TEST_F(ModuleLookup, TypesOfACppKernelComeFromTheDemangledSymbol) {
  auto module = load_fake_module(cpp_module(), kCppSource);
  auto k = module.kernel("vec_add<double>");
  const auto& p = k.params().params;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].type, "double const*");
  EXPECT_EQ(p[0].name, "a");
  EXPECT_EQ(p[3].scalar, ScalarType::i32);
  EXPECT_EQ(p[3].name, "n");
  auto s = module.kernel("scale");
  EXPECT_EQ(s.params().params[1].scalar, ScalarType::u64);
  EXPECT_EQ(s.params().params[1].name, "count");
}

TEST_F(ModuleLookup, KernelNamesAreDemangled) {
  auto module = load_fake_module(cpp_module(), kCppSource);
  auto names = module.kernel_names();
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[2], "scale(float*, unsigned long)");
}

TEST_F(ModuleLookup, TheSameKernelIsResolvedOnce) {
  auto module = load_fake_module(cpp_module(), kCppSource);
  auto a = module.kernel("scale");
  auto b = module.kernel("scale");
  EXPECT_EQ(&detail::KernelAccess::state(a), &detail::KernelAccess::state(b));
}

TEST_F(ModuleLookup, ModuleIsUnloadedWhenTheLastKernelGoes) {
  const int loaded = fake().loaded_modules();
  std::optional<Kernel> k;
  {
    auto module = load_fake_module(cpp_module(), kCppSource);
    k = module.kernel("scale");
    EXPECT_EQ(fake().loaded_modules(), loaded + 1);
  }
  EXPECT_EQ(fake().loaded_modules(), loaded + 1);  // the kernel keeps it
  k.reset();
  EXPECT_EQ(fake().loaded_modules(), loaded);
}

TEST_F(ModuleLookup, GlobalsCopyBothWays) {
  FakeModuleSpec spec;
  spec.globals["table"] = std::vector<std::uint8_t>(16, 0);
  auto module = load_fake_module(spec);
  auto g = module.get_global("table");
  EXPECT_EQ(g.bytes, 16u);
  const int in[4] = {4, -3, 2, 9};
  g.copy_from_host(in, sizeof in);
  int out[4] = {};
  g.copy_to_host(out, sizeof out);
  EXPECT_EQ(out[1], -3);
  EXPECT_EQ(out[3], 9);
  int too_big[5] = {};
  EXPECT_THROW(g.copy_from_host(too_big, sizeof too_big), ArgumentError);
  EXPECT_THROW(module.get_global("missing"), ArgumentError);
}

TEST_F(ModuleLookup, OccupancyAndAttributesComeFromTheBackend) {
  auto module = load_fake_module(cpp_module(), kCppSource);
  auto k = module.kernel("scale");
  EXPECT_EQ(k.attributes().max_threads_per_block, 1024);
  EXPECT_EQ(k.max_active_blocks_per_multiprocessor(256), 2);
  EXPECT_EQ(k.suggest_block_size(), std::make_pair(264, 256));
  EXPECT_THROW(k.max_active_blocks_per_multiprocessor(0), ArgumentError);
}

TEST_F(ModuleLookup, LoadFileRejectsUnknownExtensions) {
  EXPECT_THROW(Module::load_file("kernel.txt", Device::get(0)), ArgumentError);
  EXPECT_THROW(Module::load_file("/nonexistent/kernel.cubin", Device::get(0)), ArgumentError);
}

}  // namespace
}  // namespace cudakit
