// A kernel launch's argument list, built at run time: what a binding or
// generated code fills when the arguments are not known at compile time.
// Kernel::launch(config, args) checks it against the kernel's parameters
// exactly as the variadic launch does (the variadic launch builds one of
// these on the stack). Up to inline_capacity arguments nothing is allocated.
//
// Besides typed values (pointer, scalar<T>, aggregate, host transfers) it
// holds literals, numbers without a C type (a Python int or float): the
// launch gives them the parameter's type when that keeps the value, and
// refuses them with the value and the type otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "cudakit/device_buffer.hpp"
#include "cudakit/host_transfer.hpp"
#include "cudakit/param_layout.hpp"

namespace cudakit {

// The scalar type of a C++ arithmetic type, by its kind and size.
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

// What one launch argument of a C++ type is (KernelArg<T>::info).
struct ArgInfo {
  ParamKind kind = ParamKind::scalar;  // pointer, scalar or aggregate
  ScalarType scalar = ScalarType::unknown;
  std::size_t size = 0;
  const char* type_name = "";  // static text, for error messages
  // For In/Out/InOut: the host data to stage; nullptr otherwise.
  const void* host_data = nullptr;
  std::size_t host_bytes = 0;
  TransferDirection direction = TransferDirection::in;
};

// Customisation point: how a C++ value becomes a kernel argument (what
// KernelArgs::add and the variadic launch accept). info() describes it;
// address() returns where its bytes are (a pointer-like type may write its
// device address into `slot` and return &slot).
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

namespace detail {
// The type name of a DeviceBuffer argument that holds no memory
// (default-constructed, moved-from, or of 0 elements): the launch refuses it,
// by this address, rather than pass the kernel a null pointer.
inline constexpr char empty_device_buffer[] = "DeviceBuffer with no memory";
}  // namespace detail

template <class T>
struct KernelArg<DeviceBuffer<T>> {
  static ArgInfo info(const DeviceBuffer<T>& buffer) noexcept {
    return {ParamKind::pointer, ScalarType::unknown, sizeof(void*),
            buffer.address() == 0 ? detail::empty_device_buffer : "DeviceBuffer"};
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
  // The staging buffer's address is filled in by the launch.
  static const void* address(const HostTransfer<T, D>&, std::uint64_t& slot) noexcept {
    slot = 0;
    return &slot;
  }
};

class KernelArgs {
 public:
  static constexpr std::size_t inline_capacity = 32;  // no heap allocation up to this many args

  // What an argument is, as the launch check sees it.
  enum class Kind : std::uint8_t {
    pointer,           // a device address (8 bytes)
    scalar,            // a value of a fixed C type (`scalar`)
    aggregate,         // a struct by value (`size` bytes)
    integer_literal,   // a long long without a C type
    unsigned_literal,  // an unsigned long long without a C type
    float_literal,     // a double without a C type
    host,              // In/Out/InOut host data, staged in device memory by the launch
  };
  struct Arg {
    const char* type_name;  // static text for messages ("DeviceBuffer", "ArrayView<float32, 2>")
    void* host_data;        // Kind::host: the host memory
    std::size_t host_bytes;
    std::uint32_t offset;  // of the value's bytes in the pack
    std::uint32_t size;    // of the value
    Kind kind;
    ScalarType scalar;  // Kind::scalar
    TransferDirection direction;
  };

  KernelArgs() noexcept : args_(inline_args_), bytes_(inline_bytes_) {}
  KernelArgs(const KernelArgs& other);
  KernelArgs(KernelArgs&& other) noexcept;
  KernelArgs& operator=(const KernelArgs& other);
  KernelArgs& operator=(KernelArgs&& other) noexcept;
  ~KernelArgs() = default;

  void clear() noexcept {
    count_ = 0;
    used_ = 0;
    has_host_ = false;
  }
  std::size_t size() const noexcept { return count_; }

  // A device address; `what` (static text) names it in errors.
  KernelArgs& pointer(std::uint64_t device_address, const char* what = "pointer") {
    push(Kind::pointer, ScalarType::unknown, &device_address, sizeof device_address, what);
    return *this;
  }
  // A value of a fixed C type: converted to the parameter's type only where
  // no value is lost (int -> long long, float -> double), as the variadic launch does.
  template <class T>
  KernelArgs& scalar(T value) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>,
                  "scalar() takes an arithmetic or enum value; use aggregate() for a struct");
    if constexpr (std::is_enum_v<T>)
      push(Kind::scalar, scalar_type_of<std::underlying_type_t<T>>(), &value, sizeof value, "enum");
    else
      push(Kind::scalar, scalar_type_of<T>(), &value, sizeof value, "scalar");
    return *this;
  }
  // The raw bytes of a value of `type` (scalar_size(type) of them; for f16
  // and bf16 the 16-bit pattern). ArgumentError for ScalarType::unknown.
  KernelArgs& scalar(ScalarType type, const void* bytes);
  // A number with no C type (a Python int): any integer parameter whose range
  // holds it takes it, as does a floating-point one that holds it exactly.
  KernelArgs& integer_literal(long long value) {
    push(Kind::integer_literal, ScalarType::i64, &value, sizeof value, "integer");
    return *this;
  }
  // The same for values above LLONG_MAX.
  KernelArgs& unsigned_literal(unsigned long long value) {
    push(Kind::unsigned_literal, ScalarType::u64, &value, sizeof value, "integer");
    return *this;
  }
  // A floating-point number with no C type (a Python float): a double
  // parameter takes it, a float (or half) one the nearest value when that is
  // finite (inf and nan pass as themselves); an integer parameter refuses it.
  KernelArgs& float_literal(double value) {
    push(Kind::float_literal, ScalarType::f64, &value, sizeof value, "float");
    return *this;
  }
  // A struct by value: `size` bytes laid out as the kernel's parameter type;
  // `type_name` (static text) names it in errors. The bytes are copied.
  KernelArgs& aggregate(const void* bytes, std::size_t size, const char* type_name);
  // Host memory passed to a pointer parameter (In/Out/InOut): the launch
  // copies it to a temporary device buffer before the kernel (in, in_out),
  // back after it (out, in_out), and returns when the data is on the host.
  // The memory must stay valid until the launch.
  KernelArgs& host(void* data, std::size_t bytes, TransferDirection direction);
  // Whatever KernelArg<T> accepts: DeviceBuffer, In/Out/InOut, Array,
  // ArrayView arguments, pointers, arithmetic values, trivially copyable structs.
  template <class T>
  KernelArgs& add(const T& value) {
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
      return scalar(value);
    } else {
      // Inline for the common kinds: the variadic launch runs this per argument.
      const ArgInfo info = KernelArg<T>::info(value);
      std::uint64_t slot;
      const void* bytes = KernelArg<T>::address(value, slot);
      // (An empty In/Out/InOut has no host data: it passes a null pointer.)
      if (info.host_data != nullptr)
        return host(const_cast<void*>(info.host_data), info.host_bytes, info.direction);
      if (info.kind == ParamKind::pointer) {
        std::uint64_t address;
        std::memcpy(&address, bytes, sizeof address);
        return pointer(address, info.type_name);
      }
      if (info.kind == ParamKind::aggregate) {
        push(Kind::aggregate, ScalarType::unknown, bytes, info.size, info.type_name);
        return *this;
      }
      add(info, bytes);
      return *this;
    }
  }
  // An argument described by an ArgInfo, its bytes at `bytes`.
  void add(const ArgInfo& info, const void* bytes);
  // Appends every argument of `other`.
  KernelArgs& append(const KernelArgs& other);

  // What was added, in order, and where each value's bytes are.
  std::span<const Arg> args() const noexcept { return {args_, count_}; }
  const void* value(const Arg& arg) const noexcept { return bytes_ + arg.offset; }
  // Whether any argument is host data (the launch then stages and synchronizes).
  bool has_host_transfers() const noexcept { return has_host_; }

 private:
  static constexpr std::size_t inline_bytes = inline_capacity * 16;
  // Where a value of `size` bytes starts: 16-byte aligned for anything larger than 8.
  static std::size_t aligned(std::size_t at, std::size_t size) noexcept {
    const std::size_t align = size > 8 ? 16 : 8;
    return (at + align - 1) & ~(align - 1);
  }
  Arg& push(Kind kind, ScalarType scalar, const void* bytes, std::size_t size, const char* what) {
    const std::size_t at = aligned(used_, size);
    if (count_ == arg_capacity_ || at + size > byte_capacity_) grow(at + size);
    Arg& a = args_[count_++];
    a.type_name = what != nullptr ? what : "value";
    a.host_data = nullptr;
    a.host_bytes = 0;
    a.offset = static_cast<std::uint32_t>(at);
    a.size = static_cast<std::uint32_t>(size);
    a.kind = kind;
    a.scalar = scalar;
    a.direction = TransferDirection::in;
    if (size != 0) std::memcpy(bytes_ + at, bytes, size);
    used_ = at + size;
    return a;
  }
  // Moves the arguments to the heap with room for one more and `bytes` of values.
  void grow(std::size_t bytes);
  void copy_from(const KernelArgs& other);
  void move_from(KernelArgs& other) noexcept;

  struct alignas(16) Chunk {
    std::byte bytes[16];
  };

  std::size_t count_ = 0;
  std::size_t used_ = 0;
  std::size_t arg_capacity_ = inline_capacity;
  std::size_t byte_capacity_ = inline_bytes;
  bool has_host_ = false;
  Arg* args_;
  std::byte* bytes_;
  std::vector<Arg> heap_args_;
  std::vector<Chunk> heap_bytes_;
  Arg inline_args_[inline_capacity];
  alignas(16) std::byte inline_bytes_[inline_bytes];
};

}  // namespace cudakit
