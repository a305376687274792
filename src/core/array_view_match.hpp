// Whether an ArrayView argument (view_arg<N>(array): "ArrayView<float32, 2>")
// fits the kernel's ArrayView parameter as its source declares it
// ("ArrayView<const float, 2>"): the struct's size says nothing about the
// element type, so a float kernel would otherwise read an int32 array's bits.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cudakit::detail {

// The dtype name ("float32") of the elements of an ArrayView parameter as
// its source declares it ("ArrayView<const float, 2>"); empty when the type
// is not an ArrayView or its element type is not known (a typedef, a user
// struct). Found once per kernel (Kernel::State::view_dtypes): a launch
// compares names only.
std::string array_view_param_dtype(std::string_view param_type);

// A hint naming both element types when they are known and differ; nullopt
// when they match or either is not known. `param_dtype` is
// array_view_param_dtype(param_type).
std::optional<std::string> array_view_element_mismatch(std::string_view param_type,
                                                       std::string_view param_dtype,
                                                       std::string_view argument_type);

}  // namespace cudakit::detail
