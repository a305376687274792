// The collectives of a Communicator: arguments checked here, once for both
// backends (devices, ranges, sizes, what a dtype supports), then queued by
// the backend's CommBackend.
#include <limits>
#include <string>

#include "backend/comm_backend.hpp"
#include "cudakit/communicator.hpp"
#include "cudakit/error.hpp"
#include "distributed/communicator_state.hpp"

namespace cudakit {
namespace {

using detail::CollectiveKind;
using detail::CommBuffer;

constexpr std::size_t kUnknownSize = std::numeric_limits<std::size_t>::max();

bool reduces(CollectiveKind kind) {
  return kind == CollectiveKind::all_reduce || kind == CollectiveKind::reduce ||
         kind == CollectiveKind::reduce_scatter;
}

bool nccl_type(DType d) {
  switch (d) {
    case DType::int8:
    case DType::uint8:
    case DType::int32:
    case DType::uint32:
    case DType::int64:
    case DType::uint64:
    case DType::float16:
    case DType::bfloat16:
    case DType::float32:
    case DType::float64:
      return true;
    default:
      return false;
  }
}

// What the backend is asked to move: the dtype itself where NCCL has it;
// otherwise, for operations that only move data, its bytes; complex sums
// and averages as sums of their real and imaginary parts.
struct Transported {
  ScalarType type;
  std::size_t scale;  // backend elements per element
};

Transported transported(CollectiveKind kind, DType dtype, ReduceOp op, const std::string& doing) {
  if (!reduces(kind)) {
    if (nccl_type(dtype)) return {scalar_type_of(dtype), 1};
    return {ScalarType::u8, itemsize(dtype)};
  }
  if (is_complex(dtype)) {
    if (op == ReduceOp::sum || op == ReduceOp::avg) return {scalar_type_of(real_dtype(dtype)), 2};
    throw ArgumentError(
        doing, std::string(to_string(op)) + " is not defined for " + std::string(to_string(dtype)),
        "complex numbers have sum and avg only; reduce the real and imaginary "
        "parts yourself for anything else");
  }
  if (!nccl_type(dtype))
    throw ArgumentError(doing, "NCCL has no reductions of " + std::string(to_string(dtype)),
                        "reduce int8, uint8, int32, uint32, int64, uint64, float16, bfloat16, "
                        "float32 or float64 (convert with astype)");
  if (op == ReduceOp::avg && !is_floating(dtype))
    throw ArgumentError(
        doing,
        "avg is defined for floating-point dtypes only, not " + std::string(to_string(dtype)),
        "use sum and divide, or convert to a floating-point dtype first");
  return {scalar_type_of(dtype), 1};
}

void check_rank(const Communicator::State& s, int rank, const char* role,
                const std::string& doing) {
  if (rank < 0 || rank >= s.nranks)
    throw ArgumentError(doing,
                        std::string("the ") + role + " " + std::to_string(rank) +
                            " is outside 0.." + std::to_string(s.nranks - 1),
                        "ranks of this communicator are 0 to " + std::to_string(s.nranks - 1));
}

void check_buffer(const Communicator::State& s, const CommBuffer& b, const char* role,
                  std::size_t needed, bool used, const std::string& doing) {
  if (!used) return;
  if (b.device && !(*b.device == s.device))
    throw ArgumentError(doing,
                        std::string("the ") + role + " buffer is on " + b.device->describe() +
                            ", but this rank's device is " + s.device.describe(),
                        "each rank's buffers must live on its communicator's device");
  if (b.elements != kUnknownSize && b.elements < needed)
    throw ArgumentError(doing,
                        std::string("the ") + role + " buffer holds " + std::to_string(b.elements) +
                            " elements; the operation needs " + std::to_string(needed),
                        "size the buffers as the operation's count says (docs/guide/multi-gpu.md)");
  if (needed > 0 && b.address == 0)
    throw ArgumentError(doing, std::string("the ") + role + " buffer is null",
                        "pass device memory the operation can use");
}

// One operation of this rank: checked, then queued on `stream`.
void issue(const Communicator::State& s, CollectiveKind kind, const CommBuffer& send,
           const CommBuffer& recv, std::size_t count, DType dtype, ReduceOp op, int peer,
           const Stream& stream) {
  std::string doing = std::string(detail::to_string(kind)) + " of " + std::to_string(count) + " " +
                      std::string(to_string(dtype)) + " on rank " + std::to_string(s.rank) +
                      " of " + std::to_string(s.nranks);
  if (!(stream.device() == s.device))
    throw ArgumentError(doing,
                        "the stream belongs to " + stream.device().describe() +
                            ", but this rank's device is " + s.device.describe(),
                        "queue each rank's operations on a stream of its own device");
  if (kind == CollectiveKind::reduce || kind == CollectiveKind::broadcast)
    check_rank(s, peer, "root", doing);
  if (kind == CollectiveKind::send || kind == CollectiveKind::recv)
    check_rank(s, peer, "peer", doing);
  const Transported t = transported(kind, dtype, op, doing);
  const std::size_t n = static_cast<std::size_t>(s.nranks);
  const bool root = peer == s.rank;
  std::size_t send_needed = count, recv_needed = count;
  bool send_used = true, recv_used = true;
  switch (kind) {
    case CollectiveKind::reduce:
      recv_used = root;
      break;
    case CollectiveKind::broadcast:
      send_used = root;
      break;
    case CollectiveKind::all_gather:
      recv_needed = count * n;
      break;
    case CollectiveKind::reduce_scatter:
      send_needed = count * n;
      break;
    case CollectiveKind::all_to_all:
      send_needed = recv_needed = count * n;
      break;
    case CollectiveKind::send:
      recv_used = false;
      break;
    case CollectiveKind::recv:
      send_used = false;
      break;
    default:
      break;
  }
  check_buffer(s, send, "send", send_needed, send_used, doing);
  check_buffer(s, recv, "recv", recv_needed, recv_used, doing);
  detail::CollectiveRequest request;
  request.kind = kind;
  request.send = send_used ? send.address : 0;
  request.recv = recv_used ? recv.address : 0;
  request.count = count * t.scale;
  request.type = t.type;
  request.op = op;
  request.peer = peer;
  DeviceScope scope(s.device);
  s.backend->enqueue(s.native, request, stream.native());
}

CommBuffer raw(std::uint64_t address, DType dtype) {
  return CommBuffer{address, kUnknownSize, dtype, nullptr};
}

// The dtype of a pair of buffers; ArgumentError when they differ.
DType common_dtype(const CommBuffer& send, const CommBuffer& recv, const char* what) {
  if (send.dtype != recv.dtype)
    throw ArgumentError(std::string(what) + " on a communicator",
                        "the send buffer holds " + std::string(to_string(send.dtype)) +
                            " but the recv buffer " + std::string(to_string(recv.dtype)),
                        "use buffers of one dtype");
  return send.dtype;
}

}  // namespace

namespace detail {
CommBuffer comm_buffer(const Array& a, const char* role) {
  if (!a.valid())
    throw ArgumentError("passing an array to a collective",
                        std::string("the ") + role + " array is empty (default-constructed)");
  if (!a.is_c_contiguous())
    throw ArgumentError("passing an array to a collective",
                        std::string("the ") + role + " array is not C-contiguous",
                        "pass a contiguous array (copy() makes one)");
  return CommBuffer{a.address(), static_cast<std::size_t>(a.size()), a.dtype(), &a.device()};
}
}  // namespace detail

// ---- raw addresses --------------------------------------------------------------------------
void Communicator::all_reduce(std::uint64_t send, std::uint64_t recv, std::size_t count,
                              DType dtype, ReduceOp op, const Stream& stream) const {
  issue(*state_, CollectiveKind::all_reduce, raw(send, dtype), raw(recv, dtype), count, dtype, op,
        0, stream);
}
void Communicator::reduce(std::uint64_t send, std::uint64_t recv, std::size_t count, DType dtype,
                          ReduceOp op, int root, const Stream& stream) const {
  issue(*state_, CollectiveKind::reduce, raw(send, dtype), raw(recv, dtype), count, dtype, op, root,
        stream);
}
void Communicator::broadcast(std::uint64_t send, std::uint64_t recv, std::size_t count, DType dtype,
                             int root, const Stream& stream) const {
  issue(*state_, CollectiveKind::broadcast, raw(send, dtype), raw(recv, dtype), count, dtype,
        ReduceOp::sum, root, stream);
}
void Communicator::all_gather(std::uint64_t send, std::uint64_t recv, std::size_t send_count,
                              DType dtype, const Stream& stream) const {
  issue(*state_, CollectiveKind::all_gather, raw(send, dtype), raw(recv, dtype), send_count, dtype,
        ReduceOp::sum, 0, stream);
}
void Communicator::reduce_scatter(std::uint64_t send, std::uint64_t recv, std::size_t recv_count,
                                  DType dtype, ReduceOp op, const Stream& stream) const {
  issue(*state_, CollectiveKind::reduce_scatter, raw(send, dtype), raw(recv, dtype), recv_count,
        dtype, op, 0, stream);
}
void Communicator::all_to_all(std::uint64_t send, std::uint64_t recv, std::size_t count,
                              DType dtype, const Stream& stream) const {
  issue(*state_, CollectiveKind::all_to_all, raw(send, dtype), raw(recv, dtype), count, dtype,
        ReduceOp::sum, 0, stream);
}
void Communicator::send(std::uint64_t buffer, std::size_t count, DType dtype, int peer,
                        const Stream& stream) const {
  issue(*state_, CollectiveKind::send, raw(buffer, dtype), {}, count, dtype, ReduceOp::sum, peer,
        stream);
}
void Communicator::recv(std::uint64_t buffer, std::size_t count, DType dtype, int peer,
                        const Stream& stream) const {
  issue(*state_, CollectiveKind::recv, {}, raw(buffer, dtype), count, dtype, ReduceOp::sum, peer,
        stream);
}

// ---- sized buffers ---------------------------------------------------------------------------
void Communicator::post_all_reduce(const CommBuffer& send, const CommBuffer& recv, ReduceOp op,
                                   const Stream& stream) const {
  const DType d = common_dtype(send, recv, "all_reduce");
  issue(*state_, CollectiveKind::all_reduce, send, recv, send.elements, d, op, 0, stream);
}
void Communicator::post_reduce(const CommBuffer& send, const CommBuffer& recv, ReduceOp op,
                               int root, const Stream& stream) const {
  const DType d = common_dtype(send, recv, "reduce");
  issue(*state_, CollectiveKind::reduce, send, recv, send.elements, d, op, root, stream);
}
void Communicator::post_broadcast(const CommBuffer& send, const CommBuffer& recv, int root,
                                  const Stream& stream) const {
  const DType d = common_dtype(send, recv, "broadcast");
  issue(*state_, CollectiveKind::broadcast, send, recv, recv.elements, d, ReduceOp::sum, root,
        stream);
}
void Communicator::post_all_gather(const CommBuffer& send, const CommBuffer& recv,
                                   const Stream& stream) const {
  const DType d = common_dtype(send, recv, "all_gather");
  issue(*state_, CollectiveKind::all_gather, send, recv, send.elements, d, ReduceOp::sum, 0,
        stream);
}
void Communicator::post_reduce_scatter(const CommBuffer& send, const CommBuffer& recv, ReduceOp op,
                                       const Stream& stream) const {
  const DType d = common_dtype(send, recv, "reduce_scatter");
  issue(*state_, CollectiveKind::reduce_scatter, send, recv, recv.elements, d, op, 0, stream);
}
void Communicator::post_all_to_all(const CommBuffer& send, const CommBuffer& recv,
                                   const Stream& stream) const {
  const DType d = common_dtype(send, recv, "all_to_all");
  const std::size_t n = static_cast<std::size_t>(state_->nranks);
  if (send.elements % n != 0)
    throw ArgumentError(
        "all_to_all on rank " + std::to_string(state_->rank) + " of " + std::to_string(n),
        "the send buffer's " + std::to_string(send.elements) + " elements do not split into " +
            std::to_string(n) + " equal blocks",
        "size the buffers as a multiple of the number of ranks");
  issue(*state_, CollectiveKind::all_to_all, send, recv, send.elements / n, d, ReduceOp::sum, 0,
        stream);
}
void Communicator::post_send(const CommBuffer& buffer, int peer, const Stream& stream) const {
  issue(*state_, CollectiveKind::send, buffer, {}, buffer.elements, buffer.dtype, ReduceOp::sum,
        peer, stream);
}
void Communicator::post_recv(const CommBuffer& buffer, int peer, const Stream& stream) const {
  issue(*state_, CollectiveKind::recv, {}, buffer, buffer.elements, buffer.dtype, ReduceOp::sum,
        peer, stream);
}

}  // namespace cudakit
