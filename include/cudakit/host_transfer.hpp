// In / Out / InOut: host memory passed straight to a kernel launch, as in
// PyCUDA (drv.In(a), drv.Out(c)). The launch copies In and InOut data to a
// temporary device buffer before the kernel, copies Out and InOut back after
// it, and returns when the data is on the host.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

namespace cudakit {

enum class TransferDirection : unsigned char { in, out, in_out };

template <class T, TransferDirection D>
struct HostTransfer {
  static_assert(std::is_trivially_copyable_v<std::remove_const_t<T>>);
  std::span<T> data;
};

template <class T>
HostTransfer<const T, TransferDirection::in> In(std::span<const T> data) {
  return {data};
}
template <class T>
HostTransfer<const T, TransferDirection::in> In(const std::vector<T>& data) {
  return {std::span<const T>(data)};
}
template <class T>
HostTransfer<T, TransferDirection::out> Out(std::span<T> data) {
  return {data};
}
template <class T>
HostTransfer<T, TransferDirection::out> Out(std::vector<T>& data) {
  return {std::span<T>(data)};
}
template <class T>
HostTransfer<T, TransferDirection::in_out> InOut(std::span<T> data) {
  return {data};
}
template <class T>
HostTransfer<T, TransferDirection::in_out> InOut(std::vector<T>& data) {
  return {std::span<T>(data)};
}

}  // namespace cudakit
