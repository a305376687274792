// A kernel of a loaded module, and the type-checked launch. Every launch is
// checked against the kernel's real parameter layout (count, size, pointer
// or scalar, scalar type) and the device's limits before it reaches the
// driver; the argument array lives on the stack, so a launch allocates nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "cudakit/device_buffer.hpp"
#include "cudakit/event.hpp"
#include "cudakit/host_transfer.hpp"
#include "cudakit/kernel_attributes.hpp"
#include "cudakit/launch_config.hpp"
#include "cudakit/module.hpp"
#include "cudakit/param_layout.hpp"

namespace cudakit {

// What one launch argument is, as seen from the caller's side.
struct ArgInfo {
  ParamKind kind = ParamKind::scalar;  // pointer, scalar or aggregate
  ScalarType scalar = ScalarType::unknown;
  std::size_t size = 0;
  const char* type_name = "";  // for error messages
  // For In/Out/InOut: the host data to stage; nullptr otherwise.
  const void* host_data = nullptr;
  std::size_t host_bytes = 0;
  TransferDirection direction = TransferDirection::in;
  // A DeviceBuffer with no memory (default-constructed, moved-from or of
  // zero elements): the launch refuses it rather than pass a null pointer.
  bool null_buffer = false;
};

template <class T>
constexpr ScalarType scalar_type_of() noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return ScalarType::boolean;
  else if constexpr (std::is_floating_point_v<U> && sizeof(U) == 4)
    return ScalarType::f32;
  else if constexpr (std::is_floating_point_v<U> && sizeof(U) == 8)
    return ScalarType::f64;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    if constexpr (sizeof(U) == 1)
      return ScalarType::i8;
    else if constexpr (sizeof(U) == 2)
      return ScalarType::i16;
    else if constexpr (sizeof(U) == 4)
      return ScalarType::i32;
    else
      return ScalarType::i64;
  } else if constexpr (std::is_integral_v<U>) {
    if constexpr (sizeof(U) == 1)
      return ScalarType::u8;
    else if constexpr (sizeof(U) == 2)
      return ScalarType::u16;
    else if constexpr (sizeof(U) == 4)
      return ScalarType::u32;
    else
      return ScalarType::u64;
  } else
    return ScalarType::unknown;
}

// Customisation point: how a C++ value becomes a kernel argument.
// info() describes it; address() returns where its bytes are (for pointers
// to device memory, `slot` may be used to hold the pointer value).
template <class T, class Enable = void>
struct KernelArg {
  static_assert(std::is_trivially_copyable_v<T>,
                "kernel arguments must be trivially copyable (or have a KernelArg specialisation)");
  static ArgInfo info(const T&) noexcept {
    if constexpr (std::is_pointer_v<T>)
      return {ParamKind::pointer, ScalarType::unknown, sizeof(T), "pointer"};
    else if constexpr (std::is_arithmetic_v<T>)
      return {ParamKind::scalar, scalar_type_of<T>(), sizeof(T), "scalar"};
    else if constexpr (std::is_enum_v<T>)
      return {ParamKind::scalar, scalar_type_of<std::underlying_type_t<T>>(), sizeof(T), "enum"};
    else
      return {ParamKind::aggregate, ScalarType::unknown, sizeof(T), "struct"};
  }
  static const void* address(const T& value, std::uint64_t&) noexcept { return &value; }
};

template <class T>
struct KernelArg<DeviceBuffer<T>> {
  static ArgInfo info(const DeviceBuffer<T>& buffer) noexcept {
    ArgInfo a{ParamKind::pointer, ScalarType::unknown, sizeof(void*), "DeviceBuffer"};
    a.null_buffer = buffer.address() == 0;
    return a;
  }
  static const void* address(const DeviceBuffer<T>& buffer, std::uint64_t& slot) noexcept {
    slot = buffer.address();
    return &slot;
  }
};

template <class T, TransferDirection D>
struct KernelArg<HostTransfer<T, D>> {
  static ArgInfo info(const HostTransfer<T, D>& t) noexcept {
    ArgInfo a{ParamKind::pointer, ScalarType::unknown, sizeof(void*),
              D == TransferDirection::in    ? "In"
              : D == TransferDirection::out ? "Out"
                                            : "InOut"};
    a.host_data = t.data.data();
    a.host_bytes = t.data.size_bytes();
    a.direction = D;
    return a;
  }
  // The staging buffer's address is written into `slot` by the launch.
  static const void* address(const HostTransfer<T, D>&, std::uint64_t& slot) noexcept {
    return &slot;
  }
};

template <class T>
constexpr bool is_host_transfer_v = false;
template <class T, TransferDirection D>
constexpr bool is_host_transfer_v<HostTransfer<T, D>> = true;

class Kernel;

namespace detail {
// Checks the config and the arguments against the kernel, converts scalars
// to the declared type where that loses nothing (writing into `slots`), and
// launches. ArgumentError / LaunchConfigError on mismatch.
void launch_checked(const Kernel& kernel, const LaunchConfig& config,
                    std::span<const ArgInfo> infos, const void** values, std::uint64_t* slots);
// The same with In/Out/InOut staging: copies in, launches, copies out and
// synchronizes the stream.
void launch_with_transfers(const Kernel& kernel, const LaunchConfig& config,
                           std::span<const ArgInfo> infos, const void** values,
                           std::uint64_t* slots);
}  // namespace detail

class Kernel {
 public:
  const std::string& name() const;    // as the user asked for it
  const std::string& symbol() const;  // lowered / mangled symbol
  const ParamLayout& params() const;
  const Device& device() const;
  const Module& module() const;
  KernelAttributes attributes() const;
  // Occupancy: resident blocks per multiprocessor for this block size.
  int max_active_blocks_per_multiprocessor(int block_size, std::size_t dynamic_shared = 0) const;
  // {min grid size for full occupancy, block size}.
  std::pair<int, int> suggest_block_size(std::size_t dynamic_shared = 0) const;
  // Allows more than 48 KiB of dynamic shared memory (up to the device's opt-in limit).
  void set_max_dynamic_shared_memory(std::size_t bytes) const;
  void* native() const;

  template <class... Args>
  void launch(const LaunchConfig& config, const Args&... args) const {
    constexpr std::size_t n = sizeof...(Args);
    std::array<ArgInfo, n> infos{KernelArg<Args>::info(args)...};
    std::array<std::uint64_t, n + 1> slots{};
    std::size_t k = 0;
    std::array<const void*, n + 1> values{};
    ((values[k] = KernelArg<Args>::address(args, slots[k]), ++k), ...);
    if constexpr ((is_host_transfer_v<Args> || ...))
      detail::launch_with_transfers(*this, config, infos, values.data(), slots.data());
    else
      detail::launch_checked(*this, config, infos, values.data(), slots.data());
  }

  // Launches and returns the kernel's device time in milliseconds (events
  // around the launch; waits for it).
  template <class... Args>
  float launch_timed(const LaunchConfig& config, const Args&... args) const {
    Event start(device()), stop(device());
    start.record(Stream::wrap(device(), config.stream.native));
    launch(config, args...);
    stop.record(Stream::wrap(device(), config.stream.native));
    stop.synchronize();
    return elapsed_ms(start, stop);
  }

  struct State;  // src/core/kernel_state.hpp
  explicit Kernel(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  const State& state() const noexcept { return *state_; }

 private:
  std::shared_ptr<const State> state_;
};

}  // namespace cudakit
