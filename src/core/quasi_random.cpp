#include "cudakit/quasi_random.hpp"

#include <algorithm>
#include <string>

#include "cudakit/error.hpp"
#include "platform/curand_library.hpp"

namespace cudakit {
namespace {

// curandDirectionVectorSet_t
constexpr int kDirections32 = 101;
constexpr int kScrambledDirections32 = 102;
constexpr int kDirections64 = 103;
constexpr int kScrambledDirections64 = 104;

void check(int status, const char* call) {
  if (status != 0)
    throw Error("reading cuRAND's Sobol tables", std::string(call) + " failed",
                "check that libcurand belongs to a CUDA toolkit", status,
                "curandStatus_t " + std::to_string(status));
}

// `dimensions` rows of `row` words from a table of kSobolDimensions rows,
// repeated from the start past its end.
template <typename Word>
std::vector<Word> repeated_rows(const Word* table, std::size_t dimensions, std::size_t row) {
  std::vector<Word> out(dimensions * row);
  for (std::size_t first = 0; first < dimensions; first += kSobolDimensions) {
    const std::size_t rows = std::min(kSobolDimensions, dimensions - first);
    std::copy(table, table + rows * row, out.begin() + static_cast<std::ptrdiff_t>(first * row));
  }
  return out;
}

}  // namespace

std::vector<std::uint32_t> sobol_direction_vectors32(std::size_t dimensions,
                                                     SobolScrambling scrambling) {
  const auto& lib = detail::curand_library();
  unsigned int(*table)[32] = nullptr;
  check(lib.curandGetDirectionVectors32(
            &table, scrambling == SobolScrambling::none ? kDirections32 : kScrambledDirections32),
        "curandGetDirectionVectors32");
  return repeated_rows<std::uint32_t>(&table[0][0], dimensions, 32);
}

std::vector<std::uint64_t> sobol_direction_vectors64(std::size_t dimensions,
                                                     SobolScrambling scrambling) {
  const auto& lib = detail::curand_library();
  unsigned long long(*table)[64] = nullptr;
  check(lib.curandGetDirectionVectors64(
            &table, scrambling == SobolScrambling::none ? kDirections64 : kScrambledDirections64),
        "curandGetDirectionVectors64");
  return repeated_rows<std::uint64_t>(reinterpret_cast<const std::uint64_t*>(&table[0][0]),
                                      dimensions, 64);
}

std::vector<std::uint32_t> sobol_scramble_constants32(std::size_t dimensions) {
  unsigned int* table = nullptr;
  check(detail::curand_library().curandGetScrambleConstants32(&table),
        "curandGetScrambleConstants32");
  return repeated_rows<std::uint32_t>(table, dimensions, 1);
}

std::vector<std::uint64_t> sobol_scramble_constants64(std::size_t dimensions) {
  unsigned long long* table = nullptr;
  check(detail::curand_library().curandGetScrambleConstants64(&table),
        "curandGetScrambleConstants64");
  return repeated_rows<std::uint64_t>(reinterpret_cast<const std::uint64_t*>(table), dimensions, 1);
}

int curand_version() {
  int version = 0;
  check(detail::curand_library().curandGetVersion(&version), "curandGetVersion");
  return version;
}

}  // namespace cudakit
