// The source as compiled (extern "C" wrapping) and as shown in compile errors.
#include <gtest/gtest.h>

#include "core/source_text.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"

namespace cudakit {
namespace {

TEST(PrepareSource, WrapsInExternCWithALineDirective) {
  CompileOptions options;
  std::string out = prepare_source("__global__ void k() {}", options);
  EXPECT_EQ(out, "extern \"C\" {\n#line 1\n__global__ void k() {}\n}\n");
}

TEST(PrepareSource, LeavesSourceAloneWithNoExternC) {
  CompileOptions options;
  options.no_extern_c = true;
  EXPECT_EQ(prepare_source("template <class T> __global__ void k(T) {}", options),
            "template <class T> __global__ void k(T) {}");
}

TEST(PrepareSource, DoesNotDoubleTheFinalNewline) {
  std::string out = prepare_source("int x;\n", CompileOptions{});
  EXPECT_EQ(out, "extern \"C\" {\n#line 1\nint x;\n}\n");
}

TEST(NumberedSource, MarksTheLineAndShowsContext) {
  std::string src = "a\nb\nc\nd\ne\nf\ng\n";
  EXPECT_EQ(numbered_source(src, 4, 1), "  3 | c\n>>4 | d\n  5 | e\n");
}

TEST(NumberedSource, AlignsNumbersOfDifferentWidths) {
  std::string src;
  for (int i = 1; i <= 12; ++i) src += "line" + std::to_string(i) + "\n";
  EXPECT_EQ(numbered_source(src, 10, 1), "   9 | line9\n>>10 | line10\n  11 | line11\n");
}

TEST(NumberedSource, ClampsAtTheEdges) {
  EXPECT_EQ(numbered_source("x\ny", 1, 3), ">>1 | x\n  2 | y\n");
  EXPECT_EQ(numbered_source("x\ny", 2, 3), "  1 | x\n>>2 | y\n");
}

TEST(NumberedSource, EmptyForLinesOutsideTheSource) {
  EXPECT_EQ(numbered_source("x\ny\n", 3), "");
  EXPECT_EQ(numbered_source("x\ny\n", 0), "");
  EXPECT_EQ(numbered_source("", 1), "");
}

TEST(FirstErrorLine, ReadsNvrtcLocations) {
  EXPECT_EQ(detail::first_error_line("kernel.cu(13): error: identifier \"oops\" is undefined"), 13);
}

TEST(FirstErrorLine, ReadsGccLocations) {
  EXPECT_EQ(detail::first_error_line("/tmp/k/kernel.cu:7:5: error: 'oops' was not declared"), 7);
}

TEST(FirstErrorLine, PrefersAnErrorOverAnEarlierWarning) {
  EXPECT_EQ(detail::first_error_line("kernel.cu(2): warning: unused variable\n"
                                     "kernel.cu(9): error: expected a \";\""),
            9);
}

TEST(FirstErrorLine, ZeroWhenNoLineIsNamed) {
  EXPECT_EQ(detail::first_error_line("nvrtc: error: invalid option"), 0);
}

TEST(CompileErrorMessage, HoldsTheLogAndTheNumberedFailingLine) {
  std::string source = "__global__ void k(float* x) {\n  int i = 0;\n  oops;\n}\n";
  CompileError e("compiling kernel.cu", "kernel.cu(3): error: identifier \"oops\" is undefined",
                 source);
  std::string what = e.what();
  EXPECT_NE(what.find("identifier \"oops\" is undefined"), std::string::npos) << what;
  EXPECT_NE(what.find(">>3 |   oops;"), std::string::npos) << what;
  EXPECT_NE(what.find("  2 |   int i = 0;"), std::string::npos) << what;
  EXPECT_EQ(e.log(), "kernel.cu(3): error: identifier \"oops\" is undefined");
}

TEST(PrepareSource, ToolkitTemplateHeadersAreIncludedBeforeTheExternCBlock) {
  // Templates in <cooperative_groups.h> may not have C linkage; the include
  // inside the block is then a no-op through the header's guard. The user's
  // own headers (which may have no guard) stay where they are.
  CompileOptions options;
  const std::string out = prepare_source(
      "  #  include <cooperative_groups.h>\n#include <mine.cuh>\n#include \"mine.h\"\n"
      "__global__ void k() {}\n",
      options);
  EXPECT_EQ(out,
            "#include <cooperative_groups.h>\nextern \"C\" {\n#line 1\n"
            "  #  include <cooperative_groups.h>\n#include <mine.cuh>\n#include \"mine.h\"\n"
            "__global__ void k() {}\n}\n");
}

TEST(PrepareSource, CurandKernelIsIncludedBeforeTheExternCBlock) {
  // <curand_kernel.h> overloads curand_init and curand on the state; a
  // user's own curand_*.h stays where it is.
  CompileOptions options;
  const std::string out = prepare_source(
      "#include <curand_kernel.h>\n#include <curand_seed.h>\n__global__ void k() {}\n", options);
  EXPECT_EQ(out,
            "#include <curand_kernel.h>\nextern \"C\" {\n#line 1\n"
            "#include <curand_kernel.h>\n#include <curand_seed.h>\n__global__ void k() {}\n}\n");
}

TEST(PrepareSource, StandardTemplateHeadersAreIncludedBeforeTheExternCBlockUnlessTheUserGivesOne) {
  // <complex> and <algorithm> declare templates; a header the user gives
  // under such a name (maybe without a guard) stays where it is.
  CompileOptions options;
  options.headers = {{"utility", "int helper();\n"}};
  const std::string out = prepare_source(
      "#include <complex>\n#include <algorithm>\n#include <utility>\n#include <math.h>\n"
      "__global__ void k() {}\n",
      options);
  EXPECT_EQ(out,
            "#include <complex>\n#include <algorithm>\nextern \"C\" {\n#line 1\n"
            "#include <complex>\n#include <algorithm>\n#include <utility>\n#include <math.h>\n"
            "__global__ void k() {}\n}\n");
}

}  // namespace
}  // namespace cudakit
