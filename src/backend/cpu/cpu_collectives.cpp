#include "backend/cpu/cpu_collectives.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>
#include <vector>

#include "backend/cpu/collective_hub.hpp"
#include "backend/cpu/cpu_stream.hpp"
#include "backend/cpu/hub_socket.hpp"

namespace cudakit::detail::cpu {

struct CpuCollectives::Comm {
  int rank = 0;
  int nranks = 0;
  int ordinal = 0;
  std::chrono::milliseconds timeout{0};
  std::shared_ptr<HubTransport> hub;
  std::atomic<std::uint64_t> next_seq{0};
};

namespace {

using Comm = CpuCollectives::Comm;

// One queued operation; `seq` is fixed when it is called, so the ranks'
// posts match by call order whatever order their streams run them in.
struct Pending {
  std::shared_ptr<Comm> comm;
  CollectiveRequest request;
  std::uint64_t seq = 0;
  NativeStream stream = nullptr;
};

void run(const Pending& op) {
  const Comm& comm = *op.comm;
  const CollectiveRequest& r = op.request;
  const std::size_t itemsize = scalar_size(r.type);
  Contribution c;
  c.kind = r.kind;
  c.seq = op.seq;
  c.count = r.count;
  c.type = r.type;
  c.op = r.op;
  c.peer = r.peer;
  // Device memory is host memory here: the posts are copies of it.
  std::size_t sending = send_bytes(r.kind, r.count, itemsize, comm.nranks);
  if (r.kind == CollectiveKind::broadcast && comm.rank != r.peer) sending = 0;
  if (sending) {
    const auto* src = reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(r.send));
    c.data.assign(src, src + sending);
  }
  Delivery d;
  {
    // Waiting for the other ranks: a synchronous copy on another device
    // need not wait for this (its thread may be the one to post a rank).
    CpuStream::Parked parked;
    d = comm.hub->exchange(comm.rank, std::move(c), comm.timeout);
  }
  if (d.bytes)
    std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(r.recv)), d.data(), d.bytes);
}

// Operations queued inside group_start/group_end on this thread.
thread_local int t_group_depth = 0;
thread_local std::vector<Pending> t_group;

}  // namespace

UniqueIdBytes CpuCollectives::unique_id() { return start_socket_hub(); }

NativeComm CpuCollectives::keep(std::shared_ptr<Comm> comm) {
  NativeComm handle = comm.get();
  std::lock_guard lock(mutex_);
  comms_.emplace(handle, std::move(comm));
  return handle;
}

std::shared_ptr<Comm> CpuCollectives::find(NativeComm comm) {
  std::lock_guard lock(mutex_);
  auto it = comms_.find(comm);
  if (it == comms_.end())
    throw ArgumentError("using a communicator on the CPU backend",
                        "the communicator does not exist", "it may have been destroyed already");
  return it->second;
}

NativeComm CpuCollectives::init_rank(int nranks, const UniqueIdBytes& id, int rank, int ordinal,
                                     std::chrono::milliseconds timeout) {
  auto comm = std::make_shared<Comm>();
  comm->rank = rank;
  comm->nranks = nranks;
  comm->ordinal = ordinal;
  comm->timeout = timeout;
  comm->hub = join_socket_hub(id, nranks, rank, timeout);
  return keep(std::move(comm));
}

std::vector<NativeComm> CpuCollectives::init_all(const std::vector<int>& ordinals,
                                                 std::chrono::milliseconds timeout) {
  const int nranks = static_cast<int>(ordinals.size());
  auto hub = std::make_shared<CollectiveHub>(nranks);
  std::vector<NativeComm> handles;
  for (int rank = 0; rank < nranks; ++rank) {
    auto comm = std::make_shared<Comm>();
    comm->rank = rank;
    comm->nranks = nranks;
    comm->ordinal = ordinals[static_cast<std::size_t>(rank)];
    comm->timeout = timeout;
    comm->hub = hub;
    handles.push_back(keep(std::move(comm)));
  }
  return handles;
}

void CpuCollectives::destroy(NativeComm comm) noexcept {
  // Operations still queued hold the communicator until they have run.
  std::shared_ptr<Comm> last;
  std::lock_guard lock(mutex_);
  if (auto it = comms_.find(comm); it != comms_.end()) {
    last = std::move(it->second);
    comms_.erase(it);
  }
}

void CpuCollectives::enqueue(NativeComm handle, const CollectiveRequest& request,
                             NativeStream stream) {
  std::shared_ptr<Comm> comm = find(handle);
  const bool p2p = request.kind == CollectiveKind::send || request.kind == CollectiveKind::recv;
  Pending op{comm, request, p2p ? 0 : ++comm->next_seq, stream};
  if (t_group_depth > 0) {
    t_group.push_back(std::move(op));
    return;
  }
  const int ordinal = comm->ordinal;
  submit_(ordinal, stream, [op = std::move(op)] { run(op); });
}

void CpuCollectives::group_start() { ++t_group_depth; }

void CpuCollectives::group_end() {
  if (t_group_depth == 0)
    throw ArgumentError(
        "ending a group of communicator operations", "group_end() without a group_start()",
        "pair each group_start() with one group_end() (or use Communicator::Group)");
  if (--t_group_depth > 0) return;
  std::vector<Pending> group = std::exchange(t_group, {});
  // One task per stream, in the order the streams were first used. Within
  // it, sends go first: they never wait, so the receives the group pairs
  // with them (an exchange between two ranks, all_to_all) cannot deadlock.
  std::vector<std::pair<std::pair<int, NativeStream>, std::vector<Pending>>> per_stream;
  for (Pending& op : group) {
    const std::pair<int, NativeStream> key{op.comm->ordinal, op.stream};
    auto it = per_stream.begin();
    while (it != per_stream.end() && it->first != key) ++it;
    if (it == per_stream.end()) it = per_stream.insert(per_stream.end(), {key, {}});
    it->second.push_back(std::move(op));
  }
  for (auto& [key, ops] : per_stream) {
    std::stable_partition(ops.begin(), ops.end(), [](const Pending& op) {
      return op.request.kind == CollectiveKind::send;
    });
    submit_(key.first, key.second, [ops = std::move(ops)] {
      for (const Pending& op : ops) run(op);
    });
  }
}

}  // namespace cudakit::detail::cpu
