// Making communicators (create, local), their timeout, and group calls.
#include "cudakit/communicator.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>

#include "backend/comm_backend.hpp"
#include "cudakit/error.hpp"
#include "distributed/communicator_state.hpp"

namespace cudakit {
namespace {

constexpr std::chrono::seconds kDefaultTimeout{60};

std::chrono::milliseconds resolve_timeout(std::chrono::milliseconds timeout, const char* doing) {
  if (timeout.count() < 0)
    throw ArgumentError(doing, "the timeout is negative",
                        "pass a positive timeout, or zero for the default");
  return timeout.count() == 0 ? Communicator::default_timeout() : timeout;
}

}  // namespace

std::chrono::milliseconds Communicator::default_timeout() {
  const char* text = std::getenv("CUDAKIT_COMM_TIMEOUT");
  if (!text || !*text) return kDefaultTimeout;
  errno = 0;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(seconds) || seconds <= 0 || seconds > 1e9)
    throw ArgumentError(
        "reading CUDAKIT_COMM_TIMEOUT",
        std::string("CUDAKIT_COMM_TIMEOUT=") + text + " is not a positive number of seconds",
        "set it to e.g. 60 or 0.5, or unset it for 60 s");
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000.0)));
}

Communicator Communicator::create(int nranks, const UniqueId& id, int rank, const Device& device,
                                  std::chrono::milliseconds timeout) {
  const std::string doing = "creating rank " + std::to_string(rank) + " of a communicator of " +
                            std::to_string(nranks) + " on " + device.describe();
  if (nranks < 1)
    throw ArgumentError(doing, "nranks must be at least 1", "pass the number of ranks");
  if (rank < 0 || rank >= nranks)
    throw ArgumentError(doing, "the rank is outside 0.." + std::to_string(nranks - 1),
                        "give each process its own rank, 0 to nranks-1");
  timeout = resolve_timeout(timeout, doing.c_str());
  detail::CommBackend& comms = detail::comm_backend_of(detail::backend_of(device));
  detail::UniqueIdBytes bytes;
  std::copy(id.bytes().begin(), id.bytes().end(), bytes.begin());
  DeviceScope scope(device);
  detail::NativeComm native = comms.init_rank(nranks, bytes, rank, device.ordinal(), timeout);
  return Communicator(std::make_shared<State>(comms, native, device, rank, nranks, timeout));
}

std::vector<Communicator> Communicator::local(std::span<const Device> devices,
                                              std::chrono::milliseconds timeout) {
  const char* const doing = "creating a communicator over devices of this process";
  if (devices.empty()) throw ArgumentError(doing, "no devices given", "pass one device per rank");
  std::set<int> seen;
  std::vector<int> ordinals;
  for (const Device& d : devices) {
    if (d.backend_kind() != devices[0].backend_kind())
      throw ArgumentError(doing, "the devices belong to different backends",
                          "use devices of one backend");
    if (!seen.insert(d.ordinal()).second)
      throw ArgumentError(doing, d.describe() + " appears twice",
                          "give each rank its own device (NCCL refuses a device twice)");
    ordinals.push_back(d.ordinal());
  }
  timeout = resolve_timeout(timeout, doing);
  detail::CommBackend& comms = detail::comm_backend_of(detail::backend_of(devices[0]));
  DeviceScope scope(devices[0]);  // NCCL switches devices; the caller's comes back
  std::vector<detail::NativeComm> natives = comms.init_all(ordinals, timeout);
  std::vector<Communicator> ranks;
  const int n = static_cast<int>(devices.size());
  for (int r = 0; r < n; ++r)
    ranks.push_back(
        Communicator(std::make_shared<State>(comms, natives[static_cast<std::size_t>(r)],
                                             devices[static_cast<std::size_t>(r)], r, n, timeout)));
  return ranks;
}

int Communicator::rank() const { return state_->rank; }
int Communicator::size() const { return state_->nranks; }
const Device& Communicator::device() const { return state_->device; }
std::chrono::milliseconds Communicator::timeout() const { return state_->timeout; }

void Communicator::group_start(BackendKind kind) {
  detail::comm_backend_of(detail::backend(kind)).group_start();
}

void Communicator::group_end(BackendKind kind) {
  detail::comm_backend_of(detail::backend(kind)).group_end();
}

Communicator::Group::Group(BackendKind kind) : kind_(kind) { group_start(kind_); }

Communicator::Group::~Group() {
  if (!open_) return;
  try {
    group_end(kind_);
  } catch (...) {
    // A destructor cannot report it; end() does.
  }
}

void Communicator::Group::end() {
  if (!open_)
    throw ArgumentError("ending a Communicator::Group", "the group has ended already",
                        "call end() once");
  open_ = false;
  group_end(kind_);
}

}  // namespace cudakit
