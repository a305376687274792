// The checked launch: the configuration against the device's limits, each
// argument against the kernel's parameter, scalars converted where nothing
// is lost. Everything here runs on every launch, so the path that succeeds
// only compares fields cached in Kernel::State; messages are built only when
// something is wrong.
#include <cstring>
#include <string>
#include <vector>

#include "core/array_view_match.hpp"
#include "cudakit/error.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/memory_pool.hpp"
#include "kernel_state.hpp"

namespace cudakit::detail {
namespace {

std::string launch_context(const Kernel::State& k, const LaunchConfig& c) {
  return "launching kernel " + k.name + " (" + c.describe() + ") on " + k.device.describe();
}

[[noreturn]] void config_error(const Kernel::State& k, const LaunchConfig& c, const char* limit,
                               long long requested, long long device_value, std::string hint) {
  throw LaunchConfigError(launch_context(k, c), limit, requested, device_value, std::move(hint));
}

void check_dim(const Kernel::State& k, const LaunchConfig& c, unsigned value, unsigned max,
               const char* limit, const char* hint) {
  if (max != 0 && value > max) config_error(k, c, limit, value, max, hint);
}

void check_config(const Kernel::State& k, const LaunchConfig& c) {
  const Dim3 b = c.block, g = c.grid;
  if (b.x == 0 || b.y == 0 || b.z == 0)
    config_error(k, c, "block extent (every dimension at least 1)", 0, 1,
                 "a block of " + b.to_string() + " has no threads; use e.g. block 256x1x1");
  if (g.x == 0 || g.y == 0 || g.z == 0)
    config_error(k, c, "grid extent (every dimension at least 1)", 0, 1,
                 "a grid of " + g.to_string() + " has no blocks; grid_for(n, block) computes one");
  const auto threads = b.volume();
  if (k.max_threads_per_block != 0 && threads > k.max_threads_per_block)
    config_error(k, c, "max threads per block", static_cast<long long>(threads),
                 k.max_threads_per_block,
                 "use at most " + std::to_string(k.max_threads_per_block) +
                     " threads per block (e.g. 256) and more blocks: grid_for(n, 256)");
  if (k.kernel_max_threads_per_block != 0 && threads > k.kernel_max_threads_per_block)
    config_error(k, c, "max threads per block for this kernel", static_cast<long long>(threads),
                 k.kernel_max_threads_per_block,
                 "the kernel's registers or __launch_bounds__ allow at most " +
                     std::to_string(k.kernel_max_threads_per_block) +
                     " threads per block; launch smaller blocks");
  check_dim(k, c, b.x, k.max_block_dim.x, "max block dimension x", "use a smaller block.x");
  check_dim(k, c, b.y, k.max_block_dim.y, "max block dimension y", "use a smaller block.y");
  check_dim(k, c, b.z, k.max_block_dim.z, "max block dimension z", "use a smaller block.z");
  check_dim(k, c, g.x, k.max_grid_dim.x, "max grid dimension x",
            "use larger blocks or a grid-stride loop");
  check_dim(k, c, g.y, k.max_grid_dim.y, "max grid dimension y",
            "put the largest extent in x (up to 2^31-1 blocks) or loop over y in the kernel");
  check_dim(k, c, g.z, k.max_grid_dim.z, "max grid dimension z",
            "put the largest extent in x (up to 2^31-1 blocks) or loop over z in the kernel");

  const std::size_t dynamic = c.shared_bytes;
  const std::size_t raised = k.max_dynamic_shared_bytes.load(std::memory_order_relaxed);
  if (raised != 0) {
    if (dynamic > raised)
      config_error(k, c, "max dynamic shared memory per block (as raised for this kernel)",
                   static_cast<long long>(dynamic), static_cast<long long>(raised),
                   "call set_max_dynamic_shared_memory(" + std::to_string(dynamic) +
                       ") on the kernel first, or request less");
  } else if (k.shared_per_block != 0 && dynamic + k.static_shared_bytes > k.shared_per_block) {
    const std::size_t total = dynamic + k.static_shared_bytes;
    std::string hint =
        k.shared_per_block_optin != 0 && total <= k.shared_per_block_optin
            ? "above " + std::to_string(k.shared_per_block) +
                  " bytes a kernel must opt in: call set_max_dynamic_shared_memory(" +
                  std::to_string(dynamic) + ") on it (the device allows up to " +
                  std::to_string(k.shared_per_block_optin) + " bytes per block)"
            : "even with an opt-in the device allows " +
                  std::to_string(k.shared_per_block_optin ? k.shared_per_block_optin
                                                          : k.shared_per_block) +
                  " bytes per block; use smaller tiles";
    config_error(k, c, "shared memory per block (static + dynamic)", static_cast<long long>(total),
                 static_cast<long long>(k.shared_per_block), std::move(hint));
  }
}

bool is_integer(ScalarType t) {
  return t == ScalarType::i8 || t == ScalarType::u8 || t == ScalarType::i16 ||
         t == ScalarType::u16 || t == ScalarType::i32 || t == ScalarType::u32 ||
         t == ScalarType::i64 || t == ScalarType::u64;
}
bool is_signed_integer(ScalarType t) {
  return t == ScalarType::i8 || t == ScalarType::i16 || t == ScalarType::i32 ||
         t == ScalarType::i64;
}
bool is_floating(ScalarType t) {
  return t == ScalarType::f16 || t == ScalarType::bf16 || t == ScalarType::f32 ||
         t == ScalarType::f64;
}
std::size_t integer_size(ScalarType t) {
  switch (t) {
    case ScalarType::i8:
    case ScalarType::u8:
      return 1;
    case ScalarType::i16:
    case ScalarType::u16:
      return 2;
    case ScalarType::i32:
    case ScalarType::u32:
      return 4;
    default:
      return 8;
  }
}

// The C spelling of a scalar type, for messages.
const char* c_name(ScalarType t) {
  switch (t) {
    case ScalarType::boolean:
      return "bool";
    case ScalarType::i8:
      return "int8_t";
    case ScalarType::u8:
      return "uint8_t";
    case ScalarType::i16:
      return "short";
    case ScalarType::u16:
      return "unsigned short";
    case ScalarType::i32:
      return "int";
    case ScalarType::u32:
      return "unsigned int";
    case ScalarType::i64:
      return "int64_t";
    case ScalarType::u64:
      return "uint64_t";
    case ScalarType::f16:
      return "__half";
    case ScalarType::bf16:
      return "__nv_bfloat16";
    case ScalarType::f32:
      return "float";
    case ScalarType::f64:
      return "double";
    case ScalarType::unknown:
      break;
  }
  return "value";
}

// Converts where every value of `from` is kept by `to`: integer widening,
// integers of the same size and other signedness, float to double.
bool convert(ScalarType from, const void* src, ScalarType to, std::uint64_t* slot) {
  if (from == ScalarType::f32 && to == ScalarType::f64) {
    float f;
    std::memcpy(&f, src, sizeof f);
    double d = f;
    std::memcpy(slot, &d, sizeof d);
    return true;
  }
  if (!is_integer(from) || !is_integer(to)) return false;
  const std::size_t fs = integer_size(from), ts = integer_size(to);
  if (ts < fs) return false;
  std::uint64_t bits = 0;
  if (is_signed_integer(from)) {
    std::int64_t v = 0;
    switch (fs) {
      case 1: {
        std::int8_t x;
        std::memcpy(&x, src, 1);
        v = x;
        break;
      }
      case 2: {
        std::int16_t x;
        std::memcpy(&x, src, 2);
        v = x;
        break;
      }
      case 4: {
        std::int32_t x;
        std::memcpy(&x, src, 4);
        v = x;
        break;
      }
      default:
        std::memcpy(&v, src, 8);
    }
    // A negative value has no unsigned counterpart: -1 would arrive as 2^32 - 1.
    if (v < 0 && !is_signed_integer(to)) return false;
    bits = static_cast<std::uint64_t>(v);
  } else {
    switch (fs) {
      case 1: {
        std::uint8_t x;
        std::memcpy(&x, src, 1);
        bits = x;
        break;
      }
      case 2: {
        std::uint16_t x;
        std::memcpy(&x, src, 2);
        bits = x;
        break;
      }
      case 4: {
        std::uint32_t x;
        std::memcpy(&x, src, 4);
        bits = x;
        break;
      }
      default:
        std::memcpy(&bits, src, 8);
    }
    // An unsigned value past the signed parameter's maximum would turn negative.
    if (is_signed_integer(to) && ts == fs && (bits >> (8 * ts - 1)) != 0) return false;
  }
  *slot = 0;
  // Little-endian: the low `ts` bytes of `bits` are the value in the narrower type.
  std::memcpy(slot, &bits, ts);
  return true;
}

std::string describe_arg(const ArgInfo& a) {
  switch (a.kind) {
    case ParamKind::pointer:
      return std::string(a.type_name) == "pointer" ? "a pointer"
                                                   : std::string("a ") + a.type_name + " (pointer)";
    case ParamKind::scalar:
      return std::string("a ") + c_name(a.scalar) + " (" + std::to_string(a.size) + " bytes)";
    default:
      return std::string("a ") + std::to_string(a.size) + "-byte " + a.type_name;
  }
}

std::string mismatch_hint(const Param& p, const ArgInfo& a) {
  if (p.kind == ParamKind::pointer)
    return "pass a DeviceBuffer, a device pointer, or In/Out/InOut(host data) for a pointer "
           "parameter";
  if (p.kind == ParamKind::pointer_or_u64)
    return "pass a device pointer / DeviceBuffer, or a 64-bit integer";
  if (p.kind == ParamKind::aggregate)
    return "pass a struct of exactly " + std::to_string(p.size) +
           " bytes with the same members and padding as the kernel's parameter type";
  // A scalar parameter.
  if (a.kind != ParamKind::scalar)
    return "the parameter is a value, not a pointer or struct: pass a " +
           std::string(c_name(p.scalar));
  if (p.scalar == ScalarType::f32 && a.scalar == ScalarType::f64)
    return "pass 1.0f, not 1.0, for a float parameter (or static_cast<float>(x))";
  if (is_integer(p.scalar) && is_floating(a.scalar))
    return "the parameter is an integer: pass one, e.g. static_cast<" +
           std::string(c_name(p.scalar)) + ">(x)";
  if (is_floating(p.scalar) && is_integer(a.scalar))
    return "the parameter is floating point: pass 2.0f (float) or 2.0 (double), not 2, or cast";
  if (is_integer(p.scalar) && is_integer(a.scalar))
    return "the value does not fit the parameter's type (wider than it, or a negative value for "
           "an unsigned parameter, or an unsigned one past the signed maximum): pass a value of "
           "the parameter's type, e.g. static_cast<" +
           std::string(c_name(p.scalar)) + ">(n) after checking its range";
  return "pass a " + std::string(c_name(p.scalar));
}

[[noreturn]] void argument_error(const Kernel::State& k, const LaunchConfig& c, std::size_t i,
                                 const ArgInfo& a) {
  const Param& p = k.params.params[i];
  throw ArgumentError(launch_context(k, c),
                      p.describe(i) + ": passed " + describe_arg(a) + "; the kernel is " + k.name +
                          k.params.signature(),
                      mismatch_hint(p, a));
}

void check_args(const Kernel::State& k, const LaunchConfig& c, std::span<const ArgInfo> infos,
                const void** values, std::uint64_t* slots) {
  const auto& params = k.params.params;
  if (infos.size() != params.size())
    throw ArgumentError(launch_context(k, c),
                        "expected " + std::to_string(params.size()) + " argument" +
                            (params.size() == 1 ? "" : "s") + ", got " +
                            std::to_string(infos.size()) + "; the kernel is " + k.name +
                            k.params.signature(),
                        "pass one argument per kernel parameter, in order");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    const ArgInfo& a = infos[i];
    if (a.null_buffer) [[unlikely]]
      throw ArgumentError(launch_context(k, c),
                          p.describe(i) +
                              ": passed a DeviceBuffer that holds no memory (default-constructed, "
                              "moved-from, or of 0 elements); the kernel would get a null pointer",
                          "allocate the buffer first (DeviceBuffer<T>(count) with count > 0), "
                          "and do not use a buffer after moving it away");
    switch (p.kind) {
      case ParamKind::pointer:
        if (a.kind != ParamKind::pointer) argument_error(k, c, i, a);
        break;
      case ParamKind::pointer_or_u64:
        if (a.kind == ParamKind::pointer) break;
        if (a.kind == ParamKind::scalar && a.size == 8 && is_integer(a.scalar)) break;
        argument_error(k, c, i, a);
      case ParamKind::scalar:
        if (p.scalar == ScalarType::unknown || p.scalar == ScalarType::f16 ||
            p.scalar == ScalarType::bf16) {
          // Host code has no standard half type: any 2-byte value type
          // (__half, a uint16_t with its bits) passes, as does any value of
          // the size of a parameter whose type is not known.
          if (a.kind == ParamKind::pointer || a.size != p.size) argument_error(k, c, i, a);
          break;
        }
        if (a.kind != ParamKind::scalar) argument_error(k, c, i, a);
        if (a.scalar == p.scalar) break;
        if (!convert(a.scalar, values[i], p.scalar, &slots[i])) argument_error(k, c, i, a);
        values[i] = &slots[i];
        break;
      case ParamKind::aggregate:
        if (a.size != p.size) argument_error(k, c, i, a);
        // A value of the right size is accepted for a parameter whose type the
        // source did not name; a named struct takes a struct.
        if (a.kind != ParamKind::aggregate && !p.type.empty()) argument_error(k, c, i, a);
        if (a.type_name && !p.type.empty())
          if (auto hint = array_view_element_mismatch(p.type, a.type_name))
            throw ArgumentError(launch_context(k, c),
                                p.describe(i) + ": passed " + describe_arg(a) + "; the kernel is " +
                                    k.name + k.params.signature(),
                                *hint);
        break;
    }
  }
}

void* as_pointer(std::uint64_t address) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
}

}  // namespace

void launch_checked(const Kernel& kernel, const LaunchConfig& config,
                    std::span<const ArgInfo> infos, const void** values, std::uint64_t* slots) {
  const Kernel::State& k = kernel.state();
  check_config(k, config);
  check_args(k, config, infos, values, slots);
  k.backend->launch(k.native, k.name.c_str(), config.grid, config.block, config.shared_bytes,
                    config.stream.native, const_cast<void**>(values));
}

void launch_with_transfers(const Kernel& kernel, const LaunchConfig& config,
                           std::span<const ArgInfo> infos, const void** values,
                           std::uint64_t* slots) {
  const Kernel::State& k = kernel.state();
  // Check before copying anything, so a wrong call costs no transfer.
  check_config(k, config);
  check_args(k, config, infos, values, slots);

  Backend& backend = *k.backend;
  MemoryPool& pool = MemoryPool::of(k.device);
  void* stream = config.stream.native;

  // Staging buffers go back to the pool tagged with the stream, after the
  // stream has drained (also when something below throws: the host data may
  // still be in flight).
  struct Staging {
    Backend& backend;
    MemoryPool& pool;
    void* stream;
    std::vector<std::pair<std::uint64_t, std::size_t>> blocks;
    ~Staging() {
      if (blocks.empty()) return;
      try {
        backend.synchronize_stream(stream);
      } catch (...) {
        // The error that got us here is the one the user sees.
      }
      for (auto [ptr, bytes] : blocks) pool.deallocate(ptr, bytes, stream);
    }
  } staging{backend, pool, stream, {}};
  staging.blocks.reserve(infos.size());

  for (std::size_t i = 0; i < infos.size(); ++i) {
    const ArgInfo& a = infos[i];
    if (a.host_data == nullptr || a.host_bytes == 0) continue;
    std::uint64_t ptr = pool.allocate(a.host_bytes, stream);
    staging.blocks.emplace_back(ptr, a.host_bytes);
    slots[i] = ptr;
    values[i] = &slots[i];
    if (a.direction != TransferDirection::out)
      backend.copy(as_pointer(ptr), a.host_data, a.host_bytes, stream, true);
  }
  backend.launch(k.native, k.name.c_str(), config.grid, config.block, config.shared_bytes, stream,
                 const_cast<void**>(values));
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const ArgInfo& a = infos[i];
    if (a.host_data == nullptr || a.host_bytes == 0 || a.direction == TransferDirection::in)
      continue;
    backend.copy(const_cast<void*>(a.host_data), as_pointer(slots[i]), a.host_bytes, stream, true);
  }
  backend.synchronize_stream(stream);
}

}  // namespace cudakit::detail
