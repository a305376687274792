#include "backend/cpu/approx_tables.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "platform/library_loader.hpp"

namespace cudakit::detail::cpu {

// backend_cpu_approx_tables_data.cpp, generated from approx_tables/*.bin.
extern const unsigned char approx_half_turn_data[], approx_fraction_data[],
    approx_log2_below_data[], approx_log2_above_data[], approx_rsqrt_data[],
    approx_reciprocal_data[];
extern const std::size_t approx_half_turn_size, approx_fraction_size, approx_log2_below_size,
    approx_log2_above_size, approx_rsqrt_size, approx_reciprocal_size;

namespace {

// zlib's uncompress(), from the system's libz.so.1 (opened with dlopen so the
// library needs nothing at link time).
using Uncompress = int (*)(unsigned char* dest, unsigned long* dest_length,
                           const unsigned char* source, unsigned long source_length);

Uncompress find_uncompress() {
  cudakit::detail::SearchPlan plan;
  plan.candidates = {"libz.so.1", "libz.so"};
  const cudakit::detail::OpenedLibrary zlib =
      cudakit::detail::open_first(plan, RTLD_NOW | RTLD_LOCAL);
  if (!zlib.handle) return nullptr;
  return reinterpret_cast<Uncompress>(::dlsym(zlib.handle, "uncompress"));
}

std::uint32_t read_u32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}

// The format of scripts/probes/approx_tables.py: "CKAT", version 1, entries,
// stream length, zlib(stream of second differences). Empty on any mismatch.
std::vector<unsigned> decode(Uncompress uncompress, const unsigned char* blob, std::size_t size) {
  constexpr std::size_t kHeader = 16;
  if (size < kHeader || std::memcmp(blob, "CKAT", 4) != 0 || read_u32(blob + 4) != 1) return {};
  const std::uint32_t entries = read_u32(blob + 8);
  std::vector<unsigned char> stream(read_u32(blob + 12));
  unsigned long length = static_cast<unsigned long>(stream.size());
  if (uncompress(stream.data(), &length, blob + kHeader,
                 static_cast<unsigned long>(size - kHeader)) != 0 ||
      length != stream.size())
    return {};
  std::vector<unsigned> table(entries);
  std::uint32_t before = 0, last = 0;
  std::size_t pos = 0;
  for (std::uint32_t i = 0; i < entries; ++i) {
    if (pos >= stream.size()) return {};
    std::uint32_t difference;
    if (stream[pos] == 0x80) {
      if (pos + 5 > stream.size()) return {};
      difference = read_u32(&stream[pos + 1]);
      pos += 5;
    } else {
      difference = static_cast<std::uint32_t>(
          static_cast<std::int32_t>(static_cast<signed char>(stream[pos])));
      pos += 1;
    }
    const std::uint32_t value = difference + 2 * last - before;
    table[i] = value;
    before = last;
    last = value;
  }
  return pos == stream.size() ? table : std::vector<unsigned>{};
}

struct Embedded {
  const unsigned char* data;
  std::size_t size;
  std::uint32_t entries;
};

// Each table decoded on its first use (the sine's takes about 0.1 s), in
// ApproxTableId's order.
const unsigned* decoded(int which) {
  constexpr int kCount = cudakit_cpu::kApproxTableCount;
  static const Uncompress uncompress = find_uncompress();
  static std::once_flag once[kCount];
  static std::vector<unsigned> tables[kCount];
  static const Embedded embedded[kCount] = {
      {approx_half_turn_data, approx_half_turn_size, 1u << 24},
      {approx_fraction_data, approx_fraction_size, 1u << 23},
      {approx_log2_below_data, approx_log2_below_size, 1u << 23},
      {approx_log2_above_data, approx_log2_above_size, 1u << 23},
      {approx_rsqrt_data, approx_rsqrt_size, 1u << 24},
      {approx_reciprocal_data, approx_reciprocal_size, 1u << 23}};
  if (!uncompress) return nullptr;
  std::call_once(once[which], [which] {
    tables[which] = decode(uncompress, embedded[which].data, embedded[which].size);
    if (tables[which].size() != embedded[which].entries) tables[which].clear();
  });
  return tables[which].empty() ? nullptr : tables[which].data();
}

}  // namespace

const unsigned* approx_table(cudakit_cpu::ApproxTableId which) { return decoded(which); }

const unsigned* approx_table_for_module(int which) {
  if (which < 0 || which >= cudakit_cpu::kApproxTableCount) return nullptr;
  return decoded(which);
}

}  // namespace cudakit::detail::cpu
