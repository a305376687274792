// The registry of documentation blocks: each generated translation unit
// registers its blocks under "<file>:<line>", and doc_block_main.cpp runs
// the one a test names.
#pragma once

#include <type_traits>

namespace cudakit_doc {

using BlockRunner = int (*)();

// `gpu_reason`: non-null when the block needs a GPU (it is skipped, with the
// reason, elsewhere). `problem`: non-null when the extractor could not turn
// the block into code; running it then fails with that text.
bool register_block(const char* name, BlockRunner runner, const char* gpu_reason,
                    const char* problem);

// A block's function returns int (a whole program's main) or nothing.
template <auto Function>
BlockRunner as_runner() {
  return [] {
    if constexpr (std::is_void_v<decltype(Function())>) {
      Function();
      return 0;
    } else {
      return static_cast<int>(Function());
    }
  };
}

}  // namespace cudakit_doc
