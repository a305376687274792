#include "backend/cpu/collective_hub.hpp"

#include <cstdio>
#include <cstring>

#include "backend/cpu/element_reduce.hpp"

namespace cudakit::detail::cpu {
namespace {

const char* const kOrderHint =
    "every rank must call the same collectives, with the same count, dtype, op and root, in the "
    "same order";
const char* const kTimeoutHint =
    "every rank must call the same collectives in the same order; a rank that crashed, hangs or "
    "skipped the call never arrives (the timeout is the create()/local() argument, or "
    "CUDAKIT_COMM_TIMEOUT in seconds)";

bool reduces(CollectiveKind kind) {
  return kind == CollectiveKind::all_reduce || kind == CollectiveKind::reduce ||
         kind == CollectiveKind::reduce_scatter;
}

bool has_root(CollectiveKind kind) {
  return kind == CollectiveKind::reduce || kind == CollectiveKind::broadcast;
}

std::shared_ptr<std::vector<std::byte>> reduce_all(
    const std::vector<std::optional<Contribution>>& posts) {
  const Contribution& first = *posts[0];
  auto acc = std::make_shared<std::vector<std::byte>>(first.data);
  const std::size_t elements = acc->size() / scalar_size(first.type);
  for (std::size_t r = 1; r < posts.size(); ++r)
    combine_elements(acc->data(), posts[r]->data.data(), elements, first.type, first.op);
  if (first.op == ReduceOp::avg)
    divide_elements(acc->data(), elements, first.type, static_cast<int>(posts.size()));
  return acc;
}

}  // namespace

std::size_t send_bytes(CollectiveKind kind, std::size_t count, std::size_t itemsize, int nranks) {
  const std::size_t bytes = count * itemsize;
  switch (kind) {
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::all_to_all:
      return bytes * static_cast<std::size_t>(nranks);
    case CollectiveKind::recv:
      return 0;
    default:
      return bytes;
  }
}

std::size_t recv_bytes(CollectiveKind kind, std::size_t count, std::size_t itemsize, int nranks) {
  const std::size_t bytes = count * itemsize;
  switch (kind) {
    case CollectiveKind::all_gather:
    case CollectiveKind::all_to_all:
      return bytes * static_cast<std::size_t>(nranks);
    case CollectiveKind::send:
      return 0;
    default:
      return bytes;
  }
}

std::string describe_post(const Contribution& c) {
  std::string text = std::string(to_string(c.kind)) + " of " + std::to_string(c.count) + " " +
                     std::string(to_string(c.type));
  if (reduces(c.kind)) text += " (" + std::string(to_string(c.op)) + ")";
  if (has_root(c.kind)) text += " with root " + std::to_string(c.peer);
  return text;
}

std::string describe_ranks(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text;
}

// snprintf, not an ostringstream: this runs on a stream's worker thread,
// where formatting a double through an ostringstream crashed inside the
// locale's facets on the GPU machine (Ubuntu 24.04, GCC 13, Python 3.12);
// "%g" prints the same "1 s", "0.25 s".
std::string describe_seconds(std::chrono::milliseconds timeout) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", static_cast<double>(timeout.count()) / 1000.0);
  return text;
}

void CollectiveHub::mark_gone(int rank) {
  {
    std::lock_guard lock(mutex_);
    if (rank >= 0 && rank < nranks_) gone_[static_cast<std::size_t>(rank)] = true;
  }
  cv_.notify_all();
}

Delivery CollectiveHub::exchange(int rank, Contribution c, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (c.kind == CollectiveKind::send) {
    mailboxes_[{rank, c.peer}].push_back(std::move(c));
    lock.unlock();
    cv_.notify_all();
    return {};
  }
  if (c.kind == CollectiveKind::recv) return receive(lock, rank, c, timeout);
  return collective(lock, rank, std::move(c), timeout);
}

std::vector<int> CollectiveHub::missing(const Slot& slot) const {
  std::vector<int> ranks;
  for (int r = 0; r < nranks_; ++r)
    if (!slot.posts[static_cast<std::size_t>(r)]) ranks.push_back(r);
  return ranks;
}

Delivery CollectiveHub::collective(std::unique_lock<std::mutex>& lock, int rank, Contribution c,
                                   std::chrono::milliseconds timeout) {
  const std::uint64_t seq = c.seq;
  const std::string context = std::string(to_string(c.kind)) + " (collective #" +
                              std::to_string(seq) + ") on rank " + std::to_string(rank) + " of " +
                              std::to_string(nranks_);
  Slot& slot = slots_[seq];
  if (slot.posts.empty()) slot.posts.resize(static_cast<std::size_t>(nranks_));
  if (slot.failure) throw *slot.failure;
  slot.posts[static_cast<std::size_t>(rank)] = std::move(c);
  if (++slot.arrived == nranks_) {
    complete(slot);
    cv_.notify_all();
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (slot.failure) throw *slot.failure;
    if (slot.done) break;
    std::vector<int> left;
    for (int r : missing(slot))
      if (gone_[static_cast<std::size_t>(r)]) left.push_back(r);
    if (!left.empty()) {
      slot.failure = CommunicatorError(
          context, describe_ranks(left) + " left the communicator before arriving",
          "a rank's process exited or destroyed its communicator while others still needed it",
          left);
      cv_.notify_all();
      continue;
    }
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && !slot.done && !slot.failure) {
      const std::vector<int> absent = missing(slot);
      slot.failure = CommunicatorError(
          context, describe_ranks(absent) + " did not arrive within " + describe_seconds(timeout),
          kTimeoutHint, absent);
      for (auto& post : slot.posts)
        if (post) post->data = {};
      cv_.notify_all();
    }
  }
  Delivery delivery = std::move(slot.deliveries[static_cast<std::size_t>(rank)]);
  if (++slot.departed == nranks_) slots_.erase(seq);
  return delivery;
}

void CollectiveHub::complete(Slot& slot) {
  const Contribution& first = *slot.posts[0];
  bool agree = true;
  for (const auto& post : slot.posts) {
    const Contribution& p = *post;
    if (p.kind != first.kind || p.count != first.count || p.type != first.type ||
        (reduces(first.kind) && p.op != first.op) || (has_root(first.kind) && p.peer != first.peer))
      agree = false;
  }
  if (!agree) {
    std::string posted;
    for (int r = 0; r < nranks_; ++r)
      posted += (r ? "; rank " : "rank ") + std::to_string(r) + ": " +
                describe_post(*slot.posts[static_cast<std::size_t>(r)]);
    slot.failure = CommunicatorError(std::string(to_string(first.kind)) + " (collective #" +
                                         std::to_string(first.seq) + ") across " +
                                         std::to_string(nranks_) + " ranks",
                                     "the ranks disagree on the operation: " + posted, kOrderHint);
    for (auto& post : slot.posts) post->data = {};
    return;
  }
  const std::size_t itemsize = scalar_size(first.type);
  const std::size_t share = first.count * itemsize;
  const std::size_t n = static_cast<std::size_t>(nranks_);
  slot.deliveries.assign(n, Delivery{});
  auto everyone = [&](std::shared_ptr<const std::vector<std::byte>> buffer, bool slices) {
    for (std::size_t r = 0; r < n; ++r)
      slot.deliveries[r] =
          Delivery{buffer, slices ? r * share : 0, slices ? share : buffer->size()};
  };
  switch (first.kind) {
    case CollectiveKind::all_reduce:
      everyone(reduce_all(slot.posts), false);
      break;
    case CollectiveKind::reduce_scatter:
      everyone(reduce_all(slot.posts), true);
      break;
    case CollectiveKind::reduce: {
      auto result = reduce_all(slot.posts);
      slot.deliveries[static_cast<std::size_t>(first.peer)] = Delivery{result, 0, result->size()};
      break;
    }
    case CollectiveKind::broadcast: {
      auto root = std::make_shared<std::vector<std::byte>>(
          std::move(slot.posts[static_cast<std::size_t>(first.peer)]->data));
      everyone(root, false);
      break;
    }
    case CollectiveKind::all_gather: {
      auto gathered = std::make_shared<std::vector<std::byte>>(share * n);
      for (std::size_t r = 0; r < n; ++r)
        if (share) std::memcpy(gathered->data() + r * share, slot.posts[r]->data.data(), share);
      everyone(gathered, false);
      break;
    }
    case CollectiveKind::all_to_all:
      for (std::size_t r = 0; r < n; ++r) {
        auto mine = std::make_shared<std::vector<std::byte>>(share * n);
        for (std::size_t p = 0; p < n; ++p)
          if (share)
            std::memcpy(mine->data() + p * share, slot.posts[p]->data.data() + r * share, share);
        slot.deliveries[r] = Delivery{mine, 0, mine->size()};
      }
      break;
    default:
      break;
  }
  for (auto& post : slot.posts) post->data = {};
  slot.done = true;
}

Delivery CollectiveHub::receive(std::unique_lock<std::mutex>& lock, int rank, const Contribution& c,
                                std::chrono::milliseconds timeout) {
  const std::string context = "recv on rank " + std::to_string(rank) + " of " +
                              std::to_string(nranks_) + " from rank " + std::to_string(c.peer);
  auto& mailbox = mailboxes_[{c.peer, rank}];
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (mailbox.empty()) {
    if (gone_[static_cast<std::size_t>(c.peer)])
      throw CommunicatorError(
          context, "rank " + std::to_string(c.peer) + " left the communicator without sending",
          "a rank's process exited or destroyed its communicator while "
          "others still needed it",
          {c.peer});
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && mailbox.empty())
      throw CommunicatorError(
          context,
          "rank " + std::to_string(c.peer) + " sent nothing within " + describe_seconds(timeout),
          "each recv needs a send of the peer to this rank; a rank that "
          "crashed, hangs or skipped the send never arrives",
          {c.peer});
  }
  Contribution message = std::move(mailbox.front());
  mailbox.pop_front();
  if (message.count != c.count || message.type != c.type)
    throw CommunicatorError(context,
                            "rank " + std::to_string(c.peer) + " sent " +
                                std::to_string(message.count) + " " +
                                std::string(to_string(message.type)) + " but this rank receives " +
                                std::to_string(c.count) + " " + std::string(to_string(c.type)),
                            "a send and its recv must agree on count and dtype");
  auto buffer = std::make_shared<std::vector<std::byte>>(std::move(message.data));
  return Delivery{buffer, 0, buffer->size()};
}

}  // namespace cudakit::detail::cpu
