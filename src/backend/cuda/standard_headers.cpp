// The stand-in texts. Each is wrapped in extern "C++": PyCUDA's wrapping
// (core/source_text.cpp) puts the whole source, its #includes with it, in
// extern "C" { }, where templates (libcu++'s) may not be declared. The
// libcu++ ones also make the names visible in std:: (libcu++ declares them
// in cuda::std::), as a kernel written for nvcc spells them.
#include "backend/cuda/standard_headers.hpp"

#include <array>

namespace cudakit::detail {
namespace {

// A C++ header's text: libcu++'s header, its names also in std::.
// clang-format off
#define CUDAKIT_LIBCUXX(header)                                                \
  "#pragma once\n"                                                             \
  "extern \"C++\" {\n"                                                         \
  "#include <cuda/std/" header ">\n"                                           \
  "namespace std { using namespace cuda::std; }\n"                             \
  "}\n"
// clang-format on

// NVRTC declares printf (and malloc, free) for device code itself.
constexpr const char* kStdio = "#pragma once\n// NVRTC declares printf for device code.\n";

// NVRTC builds in the math functions (sqrtf, fminf, isnan, ...); what
// <math.h> adds are the constants.
constexpr const char* kMath = R"(#pragma once
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
#ifndef HUGE_VAL
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)
#endif
)";

// libcu++ defines INFINITY and NAN its own way under NVRTC.
constexpr const char* kCmath = R"(#pragma once
#include <math.h>
#undef INFINITY
#undef NAN
extern "C++" {
#include <cuda/std/cmath>
namespace std { using namespace cuda::std; }
}
)";

// Under NVRTC libcu++'s <cuda/std/cstdint> and <cuda/std/climits> declare
// the C names (int32_t, INT_MAX, ...) in the global namespace too.
constexpr const char* kStdint = R"(#pragma once
extern "C++" {
#include <cuda/std/cstdint>
}
)";
constexpr const char* kLimitsH = R"(#pragma once
extern "C++" {
#include <cuda/std/climits>
}
)";

constexpr const char* kStddef = R"(#pragma once
extern "C++" {
#include <cuda/std/cstddef>
}
#ifndef NULL
#define NULL 0
#endif
#ifndef offsetof
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
)";

constexpr const char* kStdlib = R"(#pragma once
extern "C++" {
#include <cuda/std/cstdlib>
}
#ifndef EXIT_SUCCESS
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#endif
)";

constexpr const char* kString = R"(#pragma once
extern "C++" {
#include <cuda/std/cstring>
}
)";

// libcu++'s <cuda/std/cfloat> and <cuda/std/cassert> are empty under NVRTC.
constexpr const char* kFloat = R"(#pragma once
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define LDBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define LDBL_DIG 15
#define FLT_DECIMAL_DIG 9
#define DBL_DECIMAL_DIG 17
#define DECIMAL_DIG 17
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MIN_10_EXP (-37)
#define DBL_MIN_10_EXP (-307)
#define FLT_MAX_10_EXP 38
#define DBL_MAX_10_EXP 308
#define FLT_MAX 3.40282346638528859811704183484516925e+38F
#define DBL_MAX 1.79769313486231570814527423731704357e+308
#define FLT_MIN 1.17549435082228750796873653722224568e-38F
#define DBL_MIN 2.22507385850720138309023271733240406e-308
#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F
#define DBL_EPSILON 2.22044604925031308084726333618164062e-16
#define FLT_TRUE_MIN 1.40129846432481707092372958328991613e-45F
#define DBL_TRUE_MIN 4.94065645841246544176568792868221372e-324
#define FLT_EVAL_METHOD 0
)";

// No include guard: like the C library's, it follows NDEBUG at each include.
constexpr const char* kAssert = R"(#undef assert
#ifdef NDEBUG
#define assert(expression) ((void)0)
#else
#define assert(expression) \
  ((expression) ? (void)0 : __assertfail(#expression, __FILE__, __LINE__, __func__, sizeof(char)))
#endif
)";

constexpr const char* kAlgorithm = R"(#pragma once
extern "C++" {
#include <cuda/std/__algorithm/clamp.h>
#include <cuda/std/__algorithm/max.h>
#include <cuda/std/__algorithm/min.h>
#include <cuda/std/__algorithm/minmax.h>
#include <cuda/std/utility>
namespace std { using namespace cuda::std; }
}
)";

constexpr const char* kCstdint = R"(#pragma once
#include <stdint.h>
extern "C++" {
namespace std { using namespace cuda::std; }
}
)";

// Device code has no streams; headers that only declare stream operators for
// their types (thrust/complex.h includes <sstream>) need the names, never a
// definition: the class templates declared, and ios_base's state bits.
constexpr const char* kIosfwd = R"(#ifndef CUDAKIT_STAND_IN_IOSFWD
#define CUDAKIT_STAND_IN_IOSFWD
extern "C++" {
namespace std {
template <class CharT> struct char_traits;
template <class CharT, class Traits> class basic_ios;
template <class CharT, class Traits> class basic_istream;
template <class CharT, class Traits> class basic_ostream;
template <class CharT, class Traits> class basic_iostream;
template <class CharT, class Traits, class Allocator> class basic_stringstream;
template <class CharT, class Traits, class Allocator> class basic_istringstream;
template <class CharT, class Traits, class Allocator> class basic_ostringstream;
class ios_base {
 public:
  typedef unsigned int iostate;
  static const iostate goodbit = 0, badbit = 1, eofbit = 2, failbit = 4;
};
}  // namespace std
}
#endif
)";

constexpr std::array kHeaders{
    StandardHeader{"stdio.h", kStdio},
    StandardHeader{"cstdio", kStdio},
    StandardHeader{"math.h", kMath},
    StandardHeader{"cmath", kCmath},
    StandardHeader{"stdint.h", kStdint},
    StandardHeader{"cstdint", kCstdint},
    StandardHeader{"stddef.h", kStddef},
    StandardHeader{"cstddef", "#pragma once\n#include <stddef.h>\n" CUDAKIT_LIBCUXX("cstddef")},
    StandardHeader{"stdlib.h", kStdlib},
    StandardHeader{"cstdlib", "#pragma once\n#include <stdlib.h>\n" CUDAKIT_LIBCUXX("cstdlib")},
    StandardHeader{"assert.h", kAssert},
    StandardHeader{"cassert", "#include <assert.h>\n"},
    StandardHeader{"float.h", kFloat},
    StandardHeader{"cfloat", "#pragma once\n#include <float.h>\n"},
    StandardHeader{"limits.h", kLimitsH},
    StandardHeader{"climits", "#pragma once\n#include <limits.h>\n"},
    StandardHeader{"limits", CUDAKIT_LIBCUXX("limits")},
    StandardHeader{"string.h", kString},
    StandardHeader{"cstring", "#pragma once\n#include <string.h>\n" CUDAKIT_LIBCUXX("cstring")},
    StandardHeader{"type_traits", CUDAKIT_LIBCUXX("type_traits")},
    StandardHeader{"utility", CUDAKIT_LIBCUXX("utility")},
    StandardHeader{"algorithm", kAlgorithm},
    StandardHeader{"complex", CUDAKIT_LIBCUXX("complex")},
    StandardHeader{"iosfwd", kIosfwd},
    StandardHeader{"ios", kIosfwd},
    StandardHeader{"istream", kIosfwd},
    StandardHeader{"ostream", kIosfwd},
    StandardHeader{"iostream", kIosfwd},
    StandardHeader{"sstream", kIosfwd},
};

#undef CUDAKIT_LIBCUXX

}  // namespace

std::span<const StandardHeader> standard_headers() { return kHeaders; }

const char* nvcc_typedefs_text() {
  return "#pragma once\n"
         "typedef unsigned char uchar;\n"
         "typedef unsigned short ushort;\n"
         "typedef unsigned int uint;\n"
         "typedef unsigned long ulong;\n";
}

}  // namespace cudakit::detail
