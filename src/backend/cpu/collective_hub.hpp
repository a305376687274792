// Where the CPU backend's ranks meet: each rank posts its part of an
// operation (its contribution) and gets back what it receives. A hub
// matches the ranks' posts of one collective by the communicator's sequence
// number, checks that they agree (kind, count, dtype, op, root), computes
// the result on the host and hands each rank its share; sends wait in a
// mailbox per (sender, receiver) until the receive takes them. One hub
// serves the ranks of one communicator: directly for Communicator::local()
// (the ranks are threads of one process), or through the TCP server of
// hub_socket.hpp for ranks in other processes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/comm_backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail::cpu {

// One rank's part of one operation.
struct Contribution {
  CollectiveKind kind = CollectiveKind::all_reduce;
  std::uint64_t seq = 0;  // the communicator's collective number (0 for send and recv)
  std::uint64_t count = 0;
  ScalarType type = ScalarType::f32;
  ReduceOp op = ReduceOp::sum;
  int peer = 0;                 // root or peer
  std::vector<std::byte> data;  // the bytes this rank sends (empty where it sends none)
};

// What a rank receives: `bytes` bytes at `offset` of a buffer that may be
// shared by all ranks.
struct Delivery {
  std::shared_ptr<const std::vector<std::byte>> buffer;
  std::size_t offset = 0;
  std::size_t bytes = 0;
  const std::byte* data() const { return buffer ? buffer->data() + offset : nullptr; }
};

// How a rank reaches its hub: the hub itself in-process, a socket otherwise.
class HubTransport {
 public:
  virtual ~HubTransport() = default;
  // Blocks until `rank`'s part of the operation is complete; throws
  // CommunicatorError when the ranks disagree, a rank does not arrive
  // within `timeout`, or a rank has left.
  virtual Delivery exchange(int rank, Contribution contribution,
                            std::chrono::milliseconds timeout) = 0;
};

// The bytes rank-side buffers hold for `kind` of `count` elements of
// `itemsize` bytes among `nranks`.
std::size_t send_bytes(CollectiveKind kind, std::size_t count, std::size_t itemsize, int nranks);
std::size_t recv_bytes(CollectiveKind kind, std::size_t count, std::size_t itemsize, int nranks);

// "1001 float32 (sum)", as messages describe a post.
std::string describe_post(const Contribution& c);

class CollectiveHub final : public HubTransport {
 public:
  explicit CollectiveHub(int nranks) : nranks_(nranks), gone_(static_cast<std::size_t>(nranks)) {}
  int size() const noexcept { return nranks_; }
  Delivery exchange(int rank, Contribution contribution,
                    std::chrono::milliseconds timeout) override;
  // `rank` has left (its process exited or closed the communicator): whoever
  // waits for it fails at once instead of at the timeout.
  void mark_gone(int rank);

 private:
  struct Slot {
    std::vector<std::optional<Contribution>> posts;
    int arrived = 0;
    int departed = 0;
    bool done = false;
    std::vector<Delivery> deliveries;
    std::optional<CommunicatorError> failure;
  };
  Delivery collective(std::unique_lock<std::mutex>& lock, int rank, Contribution c,
                      std::chrono::milliseconds timeout);
  Delivery receive(std::unique_lock<std::mutex>& lock, int rank, const Contribution& c,
                   std::chrono::milliseconds timeout);
  void complete(Slot& slot);
  std::vector<int> missing(const Slot& slot) const;

  const int nranks_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::uint64_t, Slot> slots_;
  std::map<std::pair<int, int>, std::deque<Contribution>> mailboxes_;  // (sender, receiver)
  std::vector<bool> gone_;
};

// "rank 1", "ranks 1, 3".
std::string describe_ranks(const std::vector<int>& ranks);
// "1 s", "0.25 s".
std::string describe_seconds(std::chrono::milliseconds timeout);

}  // namespace cudakit::detail::cpu
