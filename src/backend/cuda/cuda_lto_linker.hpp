// A link that holds LTO-IR: nvJitLink links it (with -lto) and the other
// inputs (PTX, cubins, fatbins, objects, libraries) into one cubin for `arch`.
#pragma once

#include <string>
#include <vector>

#include "cudakit/compiled_code.hpp"
#include "cudakit/link_input.hpp"
#include "cudakit/linker.hpp"

namespace cudakit::detail {

bool holds_lto_ir(const std::vector<LinkInput>& inputs);
// LinkError-like CudaError with nvJitLink's log when the link fails;
// LibraryNotFound (with the fix) when there is no nvJitLink.
CompiledCode link_with_nvjitlink(const std::vector<LinkInput>& inputs, const LinkOptions& options,
                                 const std::string& arch);

}  // namespace cudakit::detail
