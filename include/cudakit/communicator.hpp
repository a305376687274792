// Collectives across devices and processes, as NCCL gives them: a
// Communicator is one rank of a group of ranks, each on one device; its
// all_reduce, reduce, broadcast, all_gather, reduce_scatter, all_to_all,
// send and recv are queued on a stream of that device. On the CUDA backend
// they are NCCL's (libnccl, loaded on first use); on the CPU backend the
// same calls run between its virtual devices (CUDAKIT_CPU_DEVICES=N) and,
// through a TCP hub in the process that made the unique id, between
// processes. Guide: docs/guide/multi-gpu.md.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/backend_kind.hpp"
#include "cudakit/device.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/dtype.hpp"
#include "cudakit/reduce_op.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {

// What every rank of a communicator is given to find the others (NCCL's
// ncclUniqueId): 128 opaque bytes, made once by get_unique_id() and passed
// to the other processes (as bytes or hex text) by any means.
class UniqueId {
 public:
  static constexpr std::size_t size = 128;
  UniqueId() = default;
  // ArgumentError unless `bytes` has exactly 128 bytes.
  static UniqueId from_bytes(std::span<const std::uint8_t> bytes);
  // From to_hex()'s 256 hex digits; ArgumentError for anything else.
  static UniqueId from_hex(std::string_view hex);
  const std::array<std::uint8_t, size>& bytes() const noexcept { return bytes_; }
  std::string to_hex() const;
  friend bool operator==(const UniqueId&, const UniqueId&) = default;

 private:
  std::array<std::uint8_t, size> bytes_{};
};

// A new id for Communicator::create. On the CPU backend the calling process
// hosts the hub the ranks connect to (listening on CUDAKIT_COMM_ADDRESS,
// 127.0.0.1 when unset): it must live until the ranks are done.
UniqueId get_unique_id(BackendKind kind = default_backend_kind());

namespace detail {
// A buffer as the collectives see it: a device address, its size in
// elements of `dtype`, and its device (null: unknown, a raw address).
struct CommBuffer {
  std::uint64_t address = 0;
  std::size_t elements = 0;
  DType dtype = DType::float32;
  const Device* device = nullptr;
};
template <class T>
CommBuffer comm_buffer(const DeviceBuffer<T>& b) {
  return {b.address(), b.size(), dtype_of<T>(), &b.device()};
}
// ArgumentError for an array that is not C-contiguous.
CommBuffer comm_buffer(const Array& a, const char* role);
}  // namespace detail

// One rank of a communicator. A shared handle: copies refer to the same
// rank, and the last copy destroys it (after its queued work).
//
// Every rank must call the same collectives, with the same count, dtype, op
// and root, in the same order. Counts are in elements. Send and receive
// buffers may be the same (in place). Operations are queued on `stream`,
// which must belong to the communicator's device; their errors (ranks that
// disagree, a rank that never arrives within timeout()) surface when the
// stream is synchronized, as a CommunicatorError naming the ranks (on the
// CPU backend; NCCL checks neither: on a GPU an operation not complete
// within timeout() after it was queued gets the communicator aborted, and
// the error, naming the operation, is raised by the synchronize of its
// stream or device and by every later call on the aborted ranks).
// Arguments are checked at the call: buffers on another device, a root or
// peer outside 0..size()-1, an op a dtype does not have (avg of integers;
// prod, max, min of complex numbers; any reduction of int16, uint16, bool)
// are ArgumentErrors.
class Communicator {
 public:
  // Rank `rank` of `nranks` on `device`, one process per rank (on one
  // machine or several): returns once every rank has joined, or throws
  // CommunicatorError naming the absent ranks after `timeout`.
  // timeout zero: CUDAKIT_COMM_TIMEOUT (seconds) if set, else 60 s.
  static Communicator create(int nranks, const UniqueId& id, int rank, const Device& device,
                             std::chrono::milliseconds timeout = {});
  // One rank per device, all in this process (rank i on devices[i]). On a
  // GPU, call the ranks' collectives between group_start() and group_end()
  // (or in a Group), as NCCL requires of one thread driving several ranks.
  static std::vector<Communicator> local(std::span<const Device> devices,
                                         std::chrono::milliseconds timeout = {});
  // CUDAKIT_COMM_TIMEOUT in seconds, else 60 s; ArgumentError for a value
  // that is not a positive number.
  static std::chrono::milliseconds default_timeout();

  int rank() const;
  int size() const;
  const Device& device() const;
  std::chrono::milliseconds timeout() const;

  // ---- raw device addresses (count in elements of dtype) -------------------------------
  void all_reduce(std::uint64_t send, std::uint64_t recv, std::size_t count, DType dtype,
                  ReduceOp op, const Stream& stream) const;
  // The result lands in `recv` of rank `root` only.
  void reduce(std::uint64_t send, std::uint64_t recv, std::size_t count, DType dtype, ReduceOp op,
              int root, const Stream& stream) const;
  // `send` is read on the root only.
  void broadcast(std::uint64_t send, std::uint64_t recv, std::size_t count, DType dtype, int root,
                 const Stream& stream) const;
  // recv holds send_count x size() elements, rank r's at r x send_count.
  void all_gather(std::uint64_t send, std::uint64_t recv, std::size_t send_count, DType dtype,
                  const Stream& stream) const;
  // send holds recv_count x size() elements; rank r gets the reduction of
  // every rank's block r.
  void reduce_scatter(std::uint64_t send, std::uint64_t recv, std::size_t recv_count, DType dtype,
                      ReduceOp op, const Stream& stream) const;
  // send and recv hold count x size() elements: block p of send goes to rank
  // p, block p of recv comes from rank p.
  void all_to_all(std::uint64_t send, std::uint64_t recv, std::size_t count, DType dtype,
                  const Stream& stream) const;
  void send(std::uint64_t buffer, std::size_t count, DType dtype, int peer,
            const Stream& stream) const;
  void recv(std::uint64_t buffer, std::size_t count, DType dtype, int peer,
            const Stream& stream) const;

  // ---- device buffers: counts from the sizes (send's; recv's for broadcast,
  // reduce_scatter and recv); a receiving buffer too small is an ArgumentError ----
  template <class T>
  void all_reduce(const DeviceBuffer<T>& send, DeviceBuffer<T>& recv, ReduceOp op,
                  const Stream& stream) const {
    post_all_reduce(detail::comm_buffer(send), detail::comm_buffer(recv), op, stream);
  }
  template <class T>
  void all_reduce(DeviceBuffer<T>& buffer, ReduceOp op, const Stream& stream) const {
    all_reduce(buffer, buffer, op, stream);
  }
  template <class T>
  void reduce(const DeviceBuffer<T>& send, DeviceBuffer<T>& recv, ReduceOp op, int root,
              const Stream& stream) const {
    post_reduce(detail::comm_buffer(send), detail::comm_buffer(recv), op, root, stream);
  }
  template <class T>
  void broadcast(const DeviceBuffer<T>& send, DeviceBuffer<T>& recv, int root,
                 const Stream& stream) const {
    post_broadcast(detail::comm_buffer(send), detail::comm_buffer(recv), root, stream);
  }
  template <class T>
  void broadcast(DeviceBuffer<T>& buffer, int root, const Stream& stream) const {
    broadcast(buffer, buffer, root, stream);
  }
  template <class T>
  void all_gather(const DeviceBuffer<T>& send, DeviceBuffer<T>& recv, const Stream& stream) const {
    post_all_gather(detail::comm_buffer(send), detail::comm_buffer(recv), stream);
  }
  template <class T>
  void reduce_scatter(const DeviceBuffer<T>& send, DeviceBuffer<T>& recv, ReduceOp op,
                      const Stream& stream) const {
    post_reduce_scatter(detail::comm_buffer(send), detail::comm_buffer(recv), op, stream);
  }
  template <class T>
  void all_to_all(const DeviceBuffer<T>& send, DeviceBuffer<T>& recv, const Stream& stream) const {
    post_all_to_all(detail::comm_buffer(send), detail::comm_buffer(recv), stream);
  }
  template <class T>
  void send(const DeviceBuffer<T>& buffer, int peer, const Stream& stream) const {
    post_send(detail::comm_buffer(buffer), peer, stream);
  }
  template <class T>
  void recv(DeviceBuffer<T>& buffer, int peer, const Stream& stream) const {
    post_recv(detail::comm_buffer(buffer), peer, stream);
  }

  // ---- arrays (C-contiguous; counts as for device buffers; dtypes must match) ----
  void all_reduce(const Array& send, const Array& recv, ReduceOp op, const Stream& stream) const {
    post_all_reduce(detail::comm_buffer(send, "send"), detail::comm_buffer(recv, "recv"), op,
                    stream);
  }
  void reduce(const Array& send, const Array& recv, ReduceOp op, int root,
              const Stream& stream) const {
    post_reduce(detail::comm_buffer(send, "send"), detail::comm_buffer(recv, "recv"), op, root,
                stream);
  }
  void broadcast(const Array& send, const Array& recv, int root, const Stream& stream) const {
    post_broadcast(detail::comm_buffer(send, "send"), detail::comm_buffer(recv, "recv"), root,
                   stream);
  }
  void all_gather(const Array& send, const Array& recv, const Stream& stream) const {
    post_all_gather(detail::comm_buffer(send, "send"), detail::comm_buffer(recv, "recv"), stream);
  }
  void reduce_scatter(const Array& send, const Array& recv, ReduceOp op,
                      const Stream& stream) const {
    post_reduce_scatter(detail::comm_buffer(send, "send"), detail::comm_buffer(recv, "recv"), op,
                        stream);
  }
  void all_to_all(const Array& send, const Array& recv, const Stream& stream) const {
    post_all_to_all(detail::comm_buffer(send, "send"), detail::comm_buffer(recv, "recv"), stream);
  }
  void send(const Array& buffer, int peer, const Stream& stream) const {
    post_send(detail::comm_buffer(buffer, "send"), peer, stream);
  }
  void recv(const Array& buffer, int peer, const Stream& stream) const {
    post_recv(detail::comm_buffer(buffer, "recv"), peer, stream);
  }

  // NCCL's group calls, per thread and nestable: the operations between them
  // are issued together at the outer group_end() (one thread driving the
  // ranks of local(); sends and receives that pair up; all_to_all is one).
  static void group_start(BackendKind kind = default_backend_kind());
  static void group_end(BackendKind kind = default_backend_kind());
  // group_start() for a scope; end() issues the group (and reports its
  // errors), the destructor ends a group not ended yet.
  class Group {
   public:
    explicit Group(BackendKind kind = default_backend_kind());
    ~Group();
    Group(const Group&) = delete;
    Group& operator=(const Group&) = delete;
    void end();

   private:
    BackendKind kind_;
    bool open_ = true;
  };

  struct State;

 private:
  explicit Communicator(std::shared_ptr<State> state) : state_(std::move(state)) {}
  void post_all_reduce(const detail::CommBuffer& send, const detail::CommBuffer& recv, ReduceOp op,
                       const Stream& stream) const;
  void post_reduce(const detail::CommBuffer& send, const detail::CommBuffer& recv, ReduceOp op,
                   int root, const Stream& stream) const;
  void post_broadcast(const detail::CommBuffer& send, const detail::CommBuffer& recv, int root,
                      const Stream& stream) const;
  void post_all_gather(const detail::CommBuffer& send, const detail::CommBuffer& recv,
                       const Stream& stream) const;
  void post_reduce_scatter(const detail::CommBuffer& send, const detail::CommBuffer& recv,
                           ReduceOp op, const Stream& stream) const;
  void post_all_to_all(const detail::CommBuffer& send, const detail::CommBuffer& recv,
                       const Stream& stream) const;
  void post_send(const detail::CommBuffer& buffer, int peer, const Stream& stream) const;
  void post_recv(const detail::CommBuffer& buffer, int peer, const Stream& stream) const;
  std::shared_ptr<State> state_;
};

}  // namespace cudakit
