// KernelArgs: the parts that are not on every launch's path (growing past
// the inline capacity, copies, values given as raw bytes, host transfers).
#include "cudakit/kernel_args.hpp"

#include <string>

#include "cudakit/error.hpp"

namespace cudakit {

KernelArgs::KernelArgs(const KernelArgs& other) : args_(inline_args_), bytes_(inline_bytes_) {
  copy_from(other);
}

KernelArgs::KernelArgs(KernelArgs&& other) noexcept : args_(inline_args_), bytes_(inline_bytes_) {
  move_from(other);
}

KernelArgs& KernelArgs::operator=(const KernelArgs& other) {
  if (this != &other) copy_from(other);
  return *this;
}

KernelArgs& KernelArgs::operator=(KernelArgs&& other) noexcept {
  if (this != &other) move_from(other);
  return *this;
}

void KernelArgs::copy_from(const KernelArgs& other) {
  clear();
  if (other.count_ > arg_capacity_ || other.used_ > byte_capacity_) {
    heap_args_.resize(std::max(other.count_, inline_capacity));
    heap_bytes_.resize((std::max(other.used_, inline_bytes) + sizeof(Chunk) - 1) / sizeof(Chunk));
    args_ = heap_args_.data();
    bytes_ = reinterpret_cast<std::byte*>(heap_bytes_.data());
    arg_capacity_ = heap_args_.size();
    byte_capacity_ = heap_bytes_.size() * sizeof(Chunk);
  }
  if (other.count_ != 0) std::memcpy(args_, other.args_, other.count_ * sizeof(Arg));
  if (other.used_ != 0) std::memcpy(bytes_, other.bytes_, other.used_);
  count_ = other.count_;
  used_ = other.used_;
  has_host_ = other.has_host_;
}

void KernelArgs::move_from(KernelArgs& other) noexcept {
  if (other.args_ == other.inline_args_) {
    // Inline storage cannot be taken over; it fits this object's own.
    heap_args_.clear();
    heap_bytes_.clear();
    args_ = inline_args_;
    bytes_ = inline_bytes_;
    arg_capacity_ = inline_capacity;
    byte_capacity_ = inline_bytes;
    if (other.count_ != 0) std::memcpy(args_, other.args_, other.count_ * sizeof(Arg));
    if (other.used_ != 0) std::memcpy(bytes_, other.bytes_, other.used_);
  } else {
    heap_args_ = std::move(other.heap_args_);
    heap_bytes_ = std::move(other.heap_bytes_);
    args_ = heap_args_.data();
    bytes_ = reinterpret_cast<std::byte*>(heap_bytes_.data());
    arg_capacity_ = heap_args_.size();
    byte_capacity_ = heap_bytes_.size() * sizeof(Chunk);
  }
  count_ = other.count_;
  used_ = other.used_;
  has_host_ = other.has_host_;
  other.args_ = other.inline_args_;
  other.bytes_ = other.inline_bytes_;
  other.arg_capacity_ = inline_capacity;
  other.byte_capacity_ = inline_bytes;
  other.heap_args_.clear();
  other.heap_bytes_.clear();
  other.clear();
}

void KernelArgs::grow(std::size_t bytes) {
  if (bytes > UINT32_MAX)
    throw ArgumentError(
        "adding a kernel argument",
        "the arguments would take " + std::to_string(bytes) + " bytes, more than a launch can pass",
        "pass large data through device memory (a DeviceBuffer or Array)");
  const std::size_t arg_capacity = count_ == arg_capacity_ ? 2 * arg_capacity_ : arg_capacity_;
  std::size_t byte_capacity = byte_capacity_;
  while (byte_capacity < bytes) byte_capacity *= 2;
  std::vector<Arg> new_args(arg_capacity);
  std::vector<Chunk> new_bytes(byte_capacity / sizeof(Chunk));
  if (count_ != 0) std::memcpy(new_args.data(), args_, count_ * sizeof(Arg));
  if (used_ != 0) std::memcpy(new_bytes.data(), bytes_, used_);
  heap_args_ = std::move(new_args);
  heap_bytes_ = std::move(new_bytes);
  args_ = heap_args_.data();
  bytes_ = reinterpret_cast<std::byte*>(heap_bytes_.data());
  arg_capacity_ = arg_capacity;
  byte_capacity_ = byte_capacity;
}

KernelArgs& KernelArgs::scalar(ScalarType type, const void* bytes) {
  const std::size_t size = scalar_size(type);
  if (size == 0)
    throw ArgumentError("adding a scalar kernel argument", "the scalar type is unknown",
                        "give the value's type (ScalarType::i32, f32, ...), or pass it with "
                        "aggregate(bytes, size, name)");
  if (bytes == nullptr)
    throw ArgumentError("adding a " + std::string(to_string(type)) + " kernel argument",
                        "the value's address is null");
  push(Kind::scalar, type, bytes, size, "scalar");
  return *this;
}

KernelArgs& KernelArgs::aggregate(const void* bytes, std::size_t size, const char* type_name) {
  if (bytes == nullptr && size != 0)
    throw ArgumentError(
        std::string("adding a ") + (type_name ? type_name : "struct") + " kernel argument",
        "the value's address is null (" + std::to_string(size) + " bytes)");
  push(Kind::aggregate, ScalarType::unknown, bytes, size, type_name ? type_name : "struct");
  return *this;
}

KernelArgs& KernelArgs::host(void* data, std::size_t bytes, TransferDirection direction) {
  const char* what = direction == TransferDirection::in    ? "In"
                     : direction == TransferDirection::out ? "Out"
                                                           : "InOut";
  if (data == nullptr && bytes != 0)
    throw ArgumentError(std::string("adding an ") + what + " host transfer kernel argument",
                        "the host data is null, with " + std::to_string(bytes) + " bytes",
                        "pass the address of the host memory the kernel reads or writes");
  const std::uint64_t staged = 0;  // the launch writes the staging buffer's address
  Arg& a = push(Kind::host, ScalarType::unknown, &staged, sizeof staged, what);
  a.host_data = data;
  a.host_bytes = bytes;
  a.direction = direction;
  if (bytes != 0) has_host_ = true;
  return *this;
}

void KernelArgs::add(const ArgInfo& info, const void* bytes) {
  switch (info.kind) {
    case ParamKind::pointer:
    case ParamKind::pointer_or_u64: {
      std::uint64_t address = 0;
      std::memcpy(&address, bytes, sizeof address);
      pointer(address, info.type_name);
      return;
    }
    case ParamKind::scalar:
      if (info.scalar != ScalarType::unknown && scalar_size(info.scalar) == info.size) {
        push(Kind::scalar, info.scalar, bytes, info.size, info.type_name);
        return;
      }
      // A value type of no known scalar type (a 2-byte half, say): its bytes.
      push(Kind::aggregate, ScalarType::unknown, bytes, info.size, info.type_name);
      return;
    case ParamKind::aggregate:
      push(Kind::aggregate, ScalarType::unknown, bytes, info.size, info.type_name);
      return;
  }
}

KernelArgs& KernelArgs::append(const KernelArgs& other) {
  if (&other == this) {
    const KernelArgs copy(other);
    return append(copy);
  }
  for (const Arg& a : other.args()) {
    Arg& b = push(a.kind, a.scalar, other.value(a), a.size, a.type_name);
    b.host_data = a.host_data;
    b.host_bytes = a.host_bytes;
    b.direction = a.direction;
  }
  has_host_ = has_host_ || other.has_host_;
  return *this;
}

}  // namespace cudakit
