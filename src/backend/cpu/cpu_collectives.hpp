// The CPU backend's communicators: each rank's operations are queued on its
// stream (a queue with its own thread, cpu_stream.hpp) and meet the other
// ranks' at a hub (collective_hub.hpp): the hub itself for the virtual
// devices of one process (Communicator::local), a TCP connection to it for
// ranks of other processes (hub_socket.hpp). A collective's posts are
// matched by a per-communicator sequence number assigned when it is called.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "backend/comm_backend.hpp"

namespace cudakit::detail::cpu {

class CpuCollectives final : public CommBackend {
 public:
  // Queues `task` on `stream` of device `ordinal` (null: its default stream).
  using Submit = std::function<void(int ordinal, NativeStream stream, std::function<void()> task)>;
  explicit CpuCollectives(Submit submit) : submit_(std::move(submit)) {}

  UniqueIdBytes unique_id() override;
  NativeComm init_rank(int nranks, const UniqueIdBytes& id, int rank, int ordinal,
                       std::chrono::milliseconds timeout) override;
  std::vector<NativeComm> init_all(const std::vector<int>& ordinals,
                                   std::chrono::milliseconds timeout) override;
  void destroy(NativeComm comm) noexcept override;
  void enqueue(NativeComm comm, const CollectiveRequest& request, NativeStream stream) override;
  void group_start() override;
  void group_end() override;

  struct Comm;

 private:
  std::shared_ptr<Comm> find(NativeComm comm);
  NativeComm keep(std::shared_ptr<Comm> comm);

  Submit submit_;
  std::mutex mutex_;
  std::map<NativeComm, std::shared_ptr<Comm>> comms_;
};

}  // namespace cudakit::detail::cpu
