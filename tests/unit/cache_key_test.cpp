// CompileCache::key: the same compile gives the same key; anything that can
// change the compiler's output (source, options, compiler, included headers)
// gives another.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

#include "cache_test_util.hpp"
#include "core/compile_cache_key.hpp"
#include "cudakit/compile_cache.hpp"

namespace cudakit {
namespace {

using test::TempDir;
using test::write_text;

constexpr const char* identity = "nvrtc 13.0";

std::string vec_add_source(std::mt19937_64& rng) {
  // A random constant makes every run's source fresh.
  return "__global__ void vec_add(const float* a, const float* b, float* c, int n) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) c[i] = a[i] + b[i] * " +
         std::to_string(rng() % 1000) + ".0f;\n}\n";
}

TEST(CacheKey, SameInputGivesSameKey) {
  std::mt19937_64 rng(std::random_device{}());
  const std::string src = vec_add_source(rng);
  CompileOptions a;
  a.arch = "sm_90";
  a.defines = {{"N", "4"}};
  CompileOptions b = a;
  EXPECT_EQ(CompileCache::key(src, a, identity), CompileCache::key(src, b, identity));
}

TEST(CacheKey, KeyIsThirtyTwoLowercaseHexDigits) {
  std::mt19937_64 rng(std::random_device{}());
  const std::string key = CompileCache::key(vec_add_source(rng), {}, identity);
  ASSERT_EQ(key.size(), 32u);
  for (char c : key) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << key;
}

TEST(CacheKey, SourceChangeChangesKey) {
  std::mt19937_64 rng(std::random_device{}());
  const std::string src = vec_add_source(rng);
  EXPECT_NE(CompileCache::key(src, {}, identity), CompileCache::key(src + " ", {}, identity));
}

TEST(CacheKey, CompilerIdentityChangesKey) {
  std::mt19937_64 rng(std::random_device{}());
  const std::string src = vec_add_source(rng);
  EXPECT_NE(CompileCache::key(src, {}, "nvrtc 13.0"), CompileCache::key(src, {}, "nvrtc 13.1"));
}

TEST(CacheKey, UseCacheFlagDoesNotChangeKey) {
  std::mt19937_64 rng(std::random_device{}());
  const std::string src = vec_add_source(rng);
  CompileOptions off;
  off.use_cache = false;
  EXPECT_EQ(CompileCache::key(src, {}, identity), CompileCache::key(src, off, identity));
}

// One case per CompileOptions field that changes the compiler's output.
struct OptionChange {
  const char* name;
  std::function<void(CompileOptions&)> change;
};

class CacheKeyOption : public testing::TestWithParam<OptionChange> {};

TEST_P(CacheKeyOption, ChangesKey) {
  std::mt19937_64 rng(std::random_device{}());
  const std::string src = vec_add_source(rng);
  CompileOptions base;
  base.arch = "sm_90";
  base.defines = {{"A", "1"}};
  base.include_dirs = {"/nonexistent/one"};
  base.headers = {{"h.cuh", "#define H 1\n"}};
  base.extra_flags = {"-Xptxas=-v"};
  base.name_expressions = {"k<float>", "k<double>"};
  CompileOptions changed = base;
  GetParam().change(changed);
  EXPECT_NE(CompileCache::key(src, base, identity), CompileCache::key(src, changed, identity));
}

INSTANTIATE_TEST_SUITE_P(
    EveryOutputChangingField, CacheKeyOption,
    testing::Values(
        OptionChange{"arch", [](CompileOptions& o) { o.arch = "sm_80"; }},
        OptionChange{"std", [](CompileOptions& o) { o.std = "c++20"; }},
        OptionChange{"define_name", [](CompileOptions& o) { o.defines[0].first = "B"; }},
        OptionChange{"define_value", [](CompileOptions& o) { o.defines[0].second = "2"; }},
        OptionChange{"define_added", [](CompileOptions& o) { o.defines.emplace_back("C", ""); }},
        OptionChange{"include_dir",
                     [](CompileOptions& o) { o.include_dirs.push_back("/nonexistent/two"); }},
        OptionChange{"header_name", [](CompileOptions& o) { o.headers[0].first = "g.cuh"; }},
        OptionChange{"header_content",
                     [](CompileOptions& o) { o.headers[0].second = "#define H 2\n"; }},
        OptionChange{"extra_flag",
                     [](CompileOptions& o) { o.extra_flags.push_back("-maxrregcount=32"); }},
        OptionChange{"debug", [](CompileOptions& o) { o.debug = true; }},
        OptionChange{"line_info", [](CompileOptions& o) { o.line_info = true; }},
        OptionChange{"fast_math", [](CompileOptions& o) { o.fast_math = true; }},
        OptionChange{"no_extern_c", [](CompileOptions& o) { o.no_extern_c = true; }},
        OptionChange{"name_expression",
                     [](CompileOptions& o) { o.name_expressions.push_back("k<int>"); }},
        OptionChange{
            "name_expression_order",
            [](CompileOptions& o) { std::swap(o.name_expressions[0], o.name_expressions[1]); }},
        OptionChange{"ptx_only", [](CompileOptions& o) { o.ptx_only = true; }},
        // Moving a value between fields must not collide: fields are length-prefixed.
        OptionChange{"define_split",
                     [](CompileOptions& o) {
                       o.defines[0] = {"A1", ""};
                     }}),
    [](const testing::TestParamInfo<OptionChange>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(CacheKey, HeaderContentInIncludeDirChangesKey) {
  TempDir dir;
  write_text(dir / "inc/params.cuh", "#define SCALE 2.0f\n");
  CompileOptions opts;
  opts.include_dirs = {(dir / "inc").string()};
  const std::string src =
      "#include \"params.cuh\"\n__global__ void k(float* x) { x[0] *= SCALE; }\n";
  const std::string before = CompileCache::key(src, opts, identity);
  write_text(dir / "inc/params.cuh", "#define SCALE 3.0f\n");
  EXPECT_NE(before, CompileCache::key(src, opts, identity));
}

TEST(CacheKey, AngleIncludeInIncludeDirChangesKey) {
  TempDir dir;
  write_text(dir / "inc/lib/util.cuh", "inline __device__ float f(float x) { return x; }\n");
  CompileOptions opts;
  opts.include_dirs = {(dir / "inc").string()};
  const std::string src = "#include <lib/util.cuh>\n";
  const std::string before = CompileCache::key(src, opts, identity);
  write_text(dir / "inc/lib/util.cuh", "inline __device__ float f(float x) { return -x; }\n");
  EXPECT_NE(before, CompileCache::key(src, opts, identity));
}

TEST(CacheKey, NestedHeaderBesideIncluderChangesKey) {
  TempDir dir;
  write_text(dir / "inc/outer.cuh", "#include \"inner.cuh\"\n");
  write_text(dir / "inc/inner.cuh", "#define V 1\n");
  CompileOptions opts;
  opts.include_dirs = {(dir / "inc").string()};
  const std::string src = "#include \"outer.cuh\"\n";
  const std::string before = CompileCache::key(src, opts, identity);
  write_text(dir / "inc/inner.cuh", "#define V 2\n");
  EXPECT_NE(before, CompileCache::key(src, opts, identity));
}

TEST(CacheKey, HeaderIncludedFromInMemoryHeaderChangesKey) {
  TempDir dir;
  write_text(dir / "inc/deep.cuh", "#define D 1\n");
  CompileOptions opts;
  opts.include_dirs = {(dir / "inc").string()};
  opts.headers = {{"top.cuh", "#include <deep.cuh>\n"}};
  const std::string src = "#include \"top.cuh\"\n";
  const std::string before = CompileCache::key(src, opts, identity);
  write_text(dir / "inc/deep.cuh", "#define D 2\n");
  EXPECT_NE(before, CompileCache::key(src, opts, identity));
}

TEST(CacheKey, HeaderFoundThroughDashIFlagChangesKey) {
  TempDir dir;
  write_text(dir / "flags/f.cuh", "#define F 1\n");
  CompileOptions opts;
  opts.extra_flags = {"-I" + (dir / "flags").string()};
  const std::string src = "#include \"f.cuh\"\n";
  const std::string before = CompileCache::key(src, opts, identity);
  write_text(dir / "flags/f.cuh", "#define F 2\n");
  EXPECT_NE(before, CompileCache::key(src, opts, identity));
}

TEST(CacheKey, UnrelatedFileInIncludeDirDoesNotChangeKey) {
  TempDir dir;
  write_text(dir / "inc/used.cuh", "#define U 1\n");
  write_text(dir / "inc/unused.cuh", "#define X 1\n");
  CompileOptions opts;
  opts.include_dirs = {(dir / "inc").string()};
  const std::string src = "#include \"used.cuh\"\n";
  const std::string before = CompileCache::key(src, opts, identity);
  write_text(dir / "inc/unused.cuh", "#define X 2\n");
  write_text(dir / "inc/new_file.cuh", "#define Y 1\n");
  EXPECT_EQ(before, CompileCache::key(src, opts, identity));
}

TEST(CacheKey, IncludeInsideCommentIsNotFollowed) {
  TempDir dir;
  write_text(dir / "inc/c.cuh", "#define C 1\n");
  CompileOptions opts;
  opts.include_dirs = {(dir / "inc").string()};
  const std::string src =
      "// #include \"c.cuh\"\n/*\n#include \"c.cuh\"\n*/\n__global__ void k() {}\n";
  const std::string before = CompileCache::key(src, opts, identity);
  write_text(dir / "inc/c.cuh", "#define C 2\n");
  EXPECT_EQ(before, CompileCache::key(src, opts, identity));
}

TEST(CacheKey, InMemoryHeaderShadowsIncludeDir) {
  TempDir dir;
  write_text(dir / "inc/h.cuh", "#define H 1\n");
  CompileOptions opts;
  opts.include_dirs = {(dir / "inc").string()};
  opts.headers = {{"h.cuh", "#define H 9\n"}};
  const std::string src = "#include \"h.cuh\"\n";
  const std::string before = CompileCache::key(src, opts, identity);
  // The compiler uses the in-memory header; the file's content is irrelevant.
  write_text(dir / "inc/h.cuh", "#define H 2\n");
  EXPECT_EQ(before, CompileCache::key(src, opts, identity));
}

TEST(CacheKey, HeaderAppearingInIncludeDirChangesKey) {
  TempDir dir;
  std::filesystem::create_directories(dir / "inc");
  CompileOptions opts;
  opts.include_dirs = {(dir / "inc").string()};
  const std::string src = "#include <later.cuh>\n";
  const std::string before = CompileCache::key(src, opts, identity);
  write_text(dir / "inc/later.cuh", "#define L 1\n");
  EXPECT_NE(before, CompileCache::key(src, opts, identity));
}

TEST(CacheKey, CyclicIncludesTerminate) {
  TempDir dir;
  write_text(dir / "inc/a.cuh", "#pragma once\n#include \"b.cuh\"\n");
  write_text(dir / "inc/b.cuh", "#pragma once\n#include \"a.cuh\"\n");
  CompileOptions opts;
  opts.include_dirs = {(dir / "inc").string()};
  opts.headers = {{"m.cuh", "#include \"m.cuh\"\n"}};
  const std::string src = "#include \"a.cuh\"\n#include \"m.cuh\"\n";
  EXPECT_EQ(CompileCache::key(src, opts, identity).size(), 32u);
}

TEST(ScanIncludes, FindsQuotedAndAngleForms) {
  const auto found = detail::scan_includes(
      "#include \"a.h\"\n  #  include <b/c.h>\n#include\t\"d.h\" // trailing\n");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "a.h");
  EXPECT_TRUE(found[0].quoted);
  EXPECT_EQ(found[1].name, "b/c.h");
  EXPECT_FALSE(found[1].quoted);
  EXPECT_EQ(found[2].name, "d.h");
}

TEST(ScanIncludes, SkipsCommentsStringsAndOtherDirectives) {
  const auto found = detail::scan_includes(
      "/* #include \"x.h\" */\n"
      "// #include \"y.h\"\n"
      "const char* s = \"#include <z.h>\";\n"
      "#include_next <n.h>\n"
      "#define I #include <w.h>\n"
      "int a; #include <v.h>\n"
      "/* block */ #include \"ok.h\"\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "ok.h");
}

TEST(ScanIncludes, FindsIncludeOnFirstLineAfterByteOrderMark) {
  const auto found = detail::scan_includes("\xEF\xBB\xBF#include \"bom.h\"\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "bom.h");
}

TEST(ScanIncludes, IncludeSearchDirsReadsFlagForms) {
  CompileOptions opts;
  opts.include_dirs = {"/a"};
  opts.extra_flags = {"-I/b", "-I", "/c", "--include-path=/d", "--include-path", "/e", "-DX"};
  EXPECT_EQ(detail::include_search_dirs(opts),
            (std::vector<std::string>{"/a", "/b", "/c", "/d", "/e"}));
}

}  // namespace
}  // namespace cudakit
