// Runs one documentation block: `cudakit_doc_blocks <file>:<line>`, or
// `--list` to print every registered name.
#include <cstdio>
#include <cudakit/backend_kind.hpp>
#include <exception>
#include <map>
#include <string>

#include "doc_block_registry.hpp"

namespace cudakit_doc {
namespace {

struct RegisteredBlock {
  BlockRunner runner = nullptr;
  const char* gpu_reason = nullptr;
  const char* problem = nullptr;
};

std::map<std::string, RegisteredBlock>& registry() {
  static std::map<std::string, RegisteredBlock> blocks;
  return blocks;
}

}  // namespace

bool register_block(const char* name, BlockRunner runner, const char* gpu_reason,
                    const char* problem) {
  registry()[name] = RegisteredBlock{runner, gpu_reason, problem};
  return true;
}

}  // namespace cudakit_doc

int main(int argc, char** argv) {
  using cudakit_doc::registry;
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& [name, block] : registry()) std::printf("%s\n", name.c_str());
    return 0;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <file>:<line> | --list\n", argv[0]);
    return 2;
  }
  const auto found = registry().find(argv[1]);
  if (found == registry().end()) {
    std::fprintf(stderr, "no documentation block %s (re-run cmake after editing the docs)\n",
                 argv[1]);
    return 2;
  }
  const auto& block = found->second;
  if (block.problem != nullptr) {
    std::fprintf(stderr, "%s: %s\n", argv[1], block.problem);
    return 1;
  }
  try {
    if (block.gpu_reason != nullptr &&
        cudakit::default_backend_kind() != cudakit::BackendKind::cuda) {
      std::printf("SKIPPED: %s: %s\n", argv[1], block.gpu_reason);
      return 0;
    }
    const int status = block.runner();
    if (status != 0) std::fprintf(stderr, "%s: the block returned %d\n", argv[1], status);
    return status;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: the block threw: %s\n", argv[1], error.what());
    return 1;
  }
}
