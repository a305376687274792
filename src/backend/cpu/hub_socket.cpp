#include "backend/cpu/hub_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "platform/library_loader.hpp"

namespace cudakit::detail::cpu {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint32_t kHelloMagic = 0x31686b63;  // "ckh1"
constexpr std::uint8_t kIdMagic[4] = {'c', 'k', 'h', '1'};
constexpr std::size_t kTokenBytes = 16;
// The hub answers a late rank itself, at the operation's own timeout; the
// rank waits this much longer before it decides the hub is gone.
constexpr std::chrono::seconds kHubGrace{10};
constexpr std::chrono::minutes kTransferDeadline{5};
constexpr std::uint64_t kMaxFrameBytes = std::uint64_t{1} << 40;
constexpr int kMaxRanks = 1 << 20;

// A socket operation that failed: closed by the peer, timed out, or a
// system error. Callers turn it into a CommunicatorError with their context.
struct SocketFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Endpoint {
  std::uint32_t address = 0;  // network order
  std::uint16_t port = 0;     // network order
  std::string describe() const {
    char text[INET_ADDRSTRLEN] = {};
    in_addr a{};
    a.s_addr = address;
    ::inet_ntop(AF_INET, &a, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(port));
  }
};

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

std::string system_error(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Waits for `events` on `fd` until `deadline` (forever when it is max()).
void wait_fd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    int wait_ms = -1;
    if (deadline != Clock::time_point::max()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) throw SocketFailure("timed out");
      wait_ms = static_cast<int>(std::min<long long>(left, 1 << 30));
    }
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready > 0) return;
    if (ready < 0 && errno != EINTR) throw SocketFailure(system_error("poll"));
  }
}

void write_all(int fd, const void* data, std::size_t bytes, Clock::time_point deadline) {
  const auto* p = static_cast<const std::byte*>(data);
  while (bytes) {
    const ssize_t sent = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (sent > 0) {
      p += sent;
      bytes -= static_cast<std::size_t>(sent);
    } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      wait_fd(fd, POLLOUT, deadline);
    } else {
      throw SocketFailure(errno == EPIPE || errno == ECONNRESET ? "the peer closed the connection"
                                                                : system_error("send"));
    }
  }
}

void read_all(int fd, void* data, std::size_t bytes, Clock::time_point deadline) {
  auto* p = static_cast<std::byte*>(data);
  while (bytes) {
    const ssize_t got = ::recv(fd, p, bytes, 0);
    if (got > 0) {
      p += got;
      bytes -= static_cast<std::size_t>(got);
    } else if (got == 0) {
      throw SocketFailure("the peer closed the connection");
    } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      wait_fd(fd, POLLIN, deadline);
    } else {
      throw SocketFailure(errno == ECONNRESET ? "the peer closed the connection"
                                              : system_error("recv"));
    }
  }
}

// Frames: a 64-bit length, then the payload, written field by field in
// this machine's byte order (the ranks of one job share an architecture).
class Writer {
 public:
  template <class T>
  void put(T value) {
    put_bytes(&value, sizeof value);
  }
  void put_bytes(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const std::byte*>(data);
    out_.insert(out_.end(), p, p + bytes);
  }
  void put_string(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    put_bytes(s.data(), s.size());
  }
  void send(int fd, Clock::time_point deadline) const {
    const std::uint64_t length = out_.size();
    write_all(fd, &length, sizeof length, deadline);
    write_all(fd, out_.data(), out_.size(), deadline);
  }

 private:
  std::vector<std::byte> out_;
};

class Reader {
 public:
  // Reads one frame; `first_byte` is when the frame must start arriving.
  Reader(int fd, Clock::time_point first_byte, Clock::time_point deadline) {
    std::uint64_t length = 0;
    wait_fd(fd, POLLIN, first_byte);
    read_all(fd, &length, sizeof length, deadline);
    if (length > kMaxFrameBytes) throw SocketFailure("a malformed message (not a cudakit peer?)");
    data_.resize(length);
    read_all(fd, data_.data(), data_.size(), deadline);
  }
  template <class T>
  T get() {
    T value{};
    get_bytes(&value, sizeof value);
    return value;
  }
  void get_bytes(void* out, std::size_t bytes) {
    if (bytes > data_.size() - at_) throw SocketFailure("a truncated message");
    std::memcpy(out, data_.data() + at_, bytes);
    at_ += bytes;
  }
  std::string get_string() {
    std::string s(get<std::uint32_t>(), '\0');
    get_bytes(s.data(), s.size());
    return s;
  }
  // The rest of the frame.
  std::vector<std::byte> rest() {
    std::vector<std::byte> tail(data_.begin() + static_cast<std::ptrdiff_t>(at_), data_.end());
    at_ = data_.size();
    return tail;
  }

 private:
  std::vector<std::byte> data_;
  std::size_t at_ = 0;
};

void put_error(Writer& w, const CommunicatorError& e) {
  w.put<std::uint8_t>(1);
  w.put_string(e.context());
  w.put_string(e.message());
  w.put_string(e.hint());
  w.put(static_cast<std::uint32_t>(e.missing_ranks().size()));
  for (int r : e.missing_ranks()) w.put(static_cast<std::int32_t>(r));
}

// Throws the CommunicatorError a reply carries, if it carries one.
void check_reply(Reader& r) {
  if (r.get<std::uint8_t>() == 0) return;
  std::string context = r.get_string();
  std::string message = r.get_string();
  std::string hint = r.get_string();
  std::vector<int> missing(r.get<std::uint32_t>());
  for (int& rank : missing) rank = r.get<std::int32_t>();
  throw CommunicatorError(std::move(context), std::move(message), std::move(hint),
                          std::move(missing));
}

// ---- the hub's side -----------------------------------------------------------------------

class HubServer : public std::enable_shared_from_this<HubServer> {
 public:
  HubServer(Fd listener, std::array<std::uint8_t, kTokenBytes> token)
      : listener_(std::move(listener)), token_(token) {}

  void start() {
    std::thread([self = shared_from_this()] { self->accept_loop(); }).detach();
  }

 private:
  bool all_joined() {
    std::lock_guard lock(mutex_);
    return hub_ && joined_count_ == hub_->size();
  }

  void accept_loop() {
    while (!all_joined()) {
      pollfd p{listener_.get(), POLLIN, 0};
      if (::poll(&p, 1, 200) <= 0) continue;
      const int fd = ::accept(listener_.get(), nullptr, nullptr);
      if (fd < 0) continue;
      set_nonblocking(fd);
      std::thread([self = shared_from_this(), fd] { self->serve(Fd(fd)); }).detach();
    }
  }

  // Admits the rank of a hello; its reply is sent once every rank has joined.
  int admit(int fd) {
    const auto hello_deadline = Clock::now() + std::chrono::seconds(30);
    Reader hello(fd, hello_deadline, hello_deadline);
    std::array<std::uint8_t, kTokenBytes> token{};
    const auto magic = hello.get<std::uint32_t>();
    hello.get_bytes(token.data(), token.size());
    const int nranks = hello.get<std::int32_t>();
    const int rank = hello.get<std::int32_t>();
    const std::chrono::milliseconds timeout(hello.get<std::int64_t>());
    const std::string context = "rank " + std::to_string(rank) + " joining a communicator";
    std::unique_lock lock(mutex_);
    if (magic != kHelloMagic || token != token_)
      throw CommunicatorError(context, "the unique id does not match this hub's",
                              "pass every rank the bytes of one get_unique_id() call");
    if (nranks < 1 || nranks > kMaxRanks)
      throw CommunicatorError(context, "nranks " + std::to_string(nranks) + " is out of range",
                              "pass every rank the same nranks, 1 or more");
    if (!hub_) hub_ = std::make_shared<CollectiveHub>(nranks);
    if (nranks != hub_->size())
      throw CommunicatorError(context,
                              "it was told the communicator has " + std::to_string(nranks) +
                                  " ranks, but ranks that joined earlier were told " +
                                  std::to_string(hub_->size()),
                              "pass every rank the same nranks");
    if (rank < 0 || rank >= nranks || joined_.count(rank))
      throw CommunicatorError(context,
                              rank < 0 || rank >= nranks
                                  ? "the rank is outside 0.." + std::to_string(nranks - 1)
                                  : "another process joined as rank " + std::to_string(rank),
                              "give each process its own rank, 0 to nranks-1");
    joined_.insert(rank);
    ++joined_count_;
    cv_.notify_all();
    if (!cv_.wait_for(lock, timeout, [&] { return joined_count_ == hub_->size(); })) {
      std::vector<int> absent;
      for (int r = 0; r < hub_->size(); ++r)
        if (!joined_.count(r)) absent.push_back(r);
      throw CommunicatorError(
          context, describe_ranks(absent) + " did not join within " + describe_seconds(timeout),
          "start every rank's process with the same unique id; the "
          "timeout is create()'s argument or CUDAKIT_COMM_TIMEOUT (seconds)",
          absent);
    }
    return rank;
  }

  void serve(Fd fd) {
    int rank = -1;
    try {
      rank = admit(fd.get());
      Writer ok;
      ok.put<std::uint8_t>(0);
      ok.send(fd.get(), Clock::now() + kTransferDeadline);
    } catch (const CommunicatorError& e) {
      try {
        Writer w;
        put_error(w, e);
        w.send(fd.get(), Clock::now() + kTransferDeadline);
      } catch (const SocketFailure&) {
      }
      return;
    } catch (const SocketFailure&) {
      return;
    }
    std::shared_ptr<CollectiveHub> hub;
    {
      std::lock_guard lock(mutex_);
      hub = hub_;
    }
    try {
      for (;;) {
        // A rank may stay idle between operations as long as it likes.
        Reader request(fd.get(), Clock::time_point::max(), Clock::now() + kTransferDeadline);
        Contribution c;
        c.kind = static_cast<CollectiveKind>(request.get<std::uint8_t>());
        c.seq = request.get<std::uint64_t>();
        c.count = request.get<std::uint64_t>();
        c.type = static_cast<ScalarType>(request.get<std::uint8_t>());
        c.op = static_cast<ReduceOp>(request.get<std::uint8_t>());
        c.peer = request.get<std::int32_t>();
        const std::chrono::milliseconds timeout(request.get<std::int64_t>());
        c.data = request.rest();
        // Only ranks holding the id's token get here; still, a request that
        // no cudakit rank sends is refused rather than trusted.
        if (static_cast<int>(c.kind) > static_cast<int>(CollectiveKind::recv) ||
            scalar_size(c.type) == 0 || c.peer < 0 || c.peer >= hub->size())
          throw SocketFailure("a malformed request");
        Writer reply;
        try {
          Delivery d = hub->exchange(rank, std::move(c), timeout);
          reply.put<std::uint8_t>(0);
          if (d.bytes) reply.put_bytes(d.data(), d.bytes);
        } catch (const CommunicatorError& e) {
          reply = Writer();
          put_error(reply, e);
        }
        reply.send(fd.get(), Clock::now() + kTransferDeadline);
      }
    } catch (const SocketFailure&) {
      hub->mark_gone(rank);  // closed by the rank (destroyed, or its process ended)
    }
  }

  Fd listener_;
  const std::array<std::uint8_t, kTokenBytes> token_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::shared_ptr<CollectiveHub> hub_;
  std::set<int> joined_;
  int joined_count_ = 0;
};

// ---- a rank's side ------------------------------------------------------------------------

class SocketTransport final : public HubTransport {
 public:
  SocketTransport(Fd fd, Endpoint hub, int nranks)
      : fd_(std::move(fd)), hub_(hub), nranks_(nranks) {}

  Delivery exchange(int rank, Contribution c, std::chrono::milliseconds timeout) override {
    std::lock_guard lock(mutex_);
    const std::string context = std::string(to_string(c.kind)) + " on rank " +
                                std::to_string(rank) + " of " + std::to_string(nranks_);
    if (!broken_.empty())
      throw CommunicatorError(
          context,
          "the connection to the hub at " + hub_.describe() + " failed earlier: " + broken_,
          kLostHint);
    try {
      Writer w;
      w.put(static_cast<std::uint8_t>(c.kind));
      w.put(c.seq);
      w.put(c.count);
      w.put(static_cast<std::uint8_t>(c.type));
      w.put(static_cast<std::uint8_t>(c.op));
      w.put(static_cast<std::int32_t>(c.peer));
      w.put(static_cast<std::int64_t>(timeout.count()));
      w.put_bytes(c.data.data(), c.data.size());
      w.send(fd_.get(), Clock::now() + timeout + kHubGrace);
      const auto deadline = Clock::now() + timeout + kHubGrace;
      Reader reply(fd_.get(), deadline, deadline + kTransferDeadline);
      check_reply(reply);
      auto data = std::make_shared<std::vector<std::byte>>(reply.rest());
      return Delivery{data, 0, data->size()};
    } catch (const SocketFailure& e) {
      broken_ = e.what();
      throw CommunicatorError(
          context,
          "lost the connection to the communicator's hub at " + hub_.describe() + ": " + e.what(),
          kLostHint);
    }
  }

  static constexpr const char* kLostHint =
      "the hub runs in the process that called get_unique_id(); that process must stay alive "
      "until every rank is done with the communicator";

 private:
  std::mutex mutex_;
  Fd fd_;
  Endpoint hub_;
  int nranks_;
  std::string broken_;
};

Endpoint decode(const UniqueIdBytes& id, std::array<std::uint8_t, kTokenBytes>& token) {
  if (std::memcmp(id.data(), kIdMagic, sizeof kIdMagic) != 0)
    throw ArgumentError("joining a communicator on the CPU backend",
                        "the unique id was not made by the CPU backend's get_unique_id()",
                        "make the id with cudakit::get_unique_id() in a process on the same "
                        "backend (an id from NCCL is for the CUDA backend)");
  Endpoint e;
  std::memcpy(&e.port, id.data() + 4, sizeof e.port);
  std::memcpy(&e.address, id.data() + 6, sizeof e.address);
  std::memcpy(token.data(), id.data() + 10, token.size());
  return e;
}

}  // namespace

UniqueIdBytes start_socket_hub() {
  const char* const context = "starting the communicator hub (get_unique_id on the CPU backend)";
  std::string address = environment("CUDAKIT_COMM_ADDRESS");
  if (address.empty()) address = "127.0.0.1";
  sockaddr_in where{};
  where.sin_family = AF_INET;
  if (::inet_pton(AF_INET, address.c_str(), &where.sin_addr) != 1)
    throw ArgumentError(context, "CUDAKIT_COMM_ADDRESS=" + address + " is not an IPv4 address",
                        "set it to an address of this machine the other ranks can reach, e.g. "
                        "10.0.0.5, or unset it for 127.0.0.1 (one machine)");
  Fd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (listener.get() < 0) throw CommunicatorError(context, system_error("socket"));
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&where), sizeof where) != 0)
    throw CommunicatorError(context, system_error(("bind to " + address).c_str()),
                            "CUDAKIT_COMM_ADDRESS must be an address of this machine");
  if (::listen(listener.get(), 128) != 0) throw CommunicatorError(context, system_error("listen"));
  socklen_t length = sizeof where;
  ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&where), &length);

  std::array<std::uint8_t, kTokenBytes> token{};
  std::random_device random;
  for (auto& byte : token) byte = static_cast<std::uint8_t>(random());
  UniqueIdBytes id{};
  std::memcpy(id.data(), kIdMagic, sizeof kIdMagic);
  std::memcpy(id.data() + 4, &where.sin_port, sizeof where.sin_port);
  std::memcpy(id.data() + 6, &where.sin_addr.s_addr, sizeof where.sin_addr.s_addr);
  std::memcpy(id.data() + 10, token.data(), token.size());
  std::make_shared<HubServer>(std::move(listener), token)->start();
  return id;
}

std::shared_ptr<HubTransport> join_socket_hub(const UniqueIdBytes& id, int nranks, int rank,
                                              std::chrono::milliseconds timeout) {
  std::array<std::uint8_t, kTokenBytes> token{};
  const Endpoint hub = decode(id, token);
  const std::string context = "rank " + std::to_string(rank) + " of " + std::to_string(nranks) +
                              " joining the hub at " + hub.describe();
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) throw CommunicatorError(context, system_error("socket"));
  set_nonblocking(fd.get());
  sockaddr_in where{};
  where.sin_family = AF_INET;
  where.sin_port = hub.port;
  where.sin_addr.s_addr = hub.address;
  const auto deadline = Clock::now() + timeout;
  try {
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&where), sizeof where) != 0) {
      if (errno != EINPROGRESS) throw SocketFailure(system_error("connect"));
      wait_fd(fd.get(), POLLOUT, deadline);
      int error = 0;
      socklen_t length = sizeof error;
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length);
      if (error != 0) {
        errno = error;
        throw SocketFailure(system_error("connect"));
      }
    }
    Writer hello;
    hello.put(kHelloMagic);
    hello.put_bytes(token.data(), token.size());
    hello.put(static_cast<std::int32_t>(nranks));
    hello.put(static_cast<std::int32_t>(rank));
    hello.put(static_cast<std::int64_t>(timeout.count()));
    hello.send(fd.get(), deadline);
    Reader reply(fd.get(), deadline + kHubGrace, deadline + kHubGrace + kTransferDeadline);
    check_reply(reply);
  } catch (const SocketFailure& e) {
    throw CommunicatorError(context, std::string("cannot reach the hub: ") + e.what(),
                            "the hub runs in the process that called get_unique_id(); it must "
                            "be running, on an address this process can reach "
                            "(CUDAKIT_COMM_ADDRESS in that process)");
  }
  return std::make_shared<SocketTransport>(std::move(fd), hub, nranks);
}

}  // namespace cudakit::detail::cpu
