// The one #include reader: what it takes for an include line and what not,
// and the one list of C++ standard headers.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "support/include_lines.hpp"

namespace cudakit::detail {
namespace {

using Found = std::vector<std::pair<std::string, bool>>;

Found read(std::string_view text) {
  Found found;
  for (const IncludeLine& include : include_lines(text))
    found.emplace_back(std::string(include.name), include.angled);
  return found;
}

TEST(IncludeLines, AngledAndQuotedInOrderWithBlanksAnywhere) {
  EXPECT_EQ(read("#include <cmath>\n  #  include \"my.h\"\n#include<limits>\n\t#include\t<a/b.h> "
                 "// c\n"),
            (Found{{"cmath", true}, {"my.h", false}, {"limits", true}, {"a/b.h", true}}));
}

TEST(IncludeLines, WhatIsNotAnIncludeLine) {
  EXPECT_TRUE(read("// #include <cmath>\n"
                   "int x; #include <cmath>\n"
                   "#include_next <cmath>\n"
                   "#include MACRO\n"
                   "#include <unclosed\n"
                   "#include \"unclosed\n"
                   "#define include <x>\n")
                  .empty());
}

TEST(IncludeLines, LastLineWithoutNewlineAndEmptyText) {
  EXPECT_EQ(read("#include <cstdint>"), (Found{{"cstdint", true}}));
  EXPECT_TRUE(read("").empty());
}

TEST(IncludeLines, StandardHeaders) {
  for (const char* name : {"cmath", "type_traits", "complex", "utility", "algorithm", "limits"})
    EXPECT_TRUE(is_standard_cxx_header(name)) << name;
  for (const char* name : {"math.h", "cuda_fp16.h", "cub/cub.cuh", "my_header", ""})
    EXPECT_FALSE(is_standard_cxx_header(name)) << name;
}

}  // namespace
}  // namespace cudakit::detail
