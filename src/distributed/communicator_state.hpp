// What a Communicator handle shares: the backend's communicator and the
// rank's place in it.
#pragma once

#include <chrono>

#include "backend/comm_backend.hpp"
#include "cudakit/communicator.hpp"

namespace cudakit {

struct Communicator::State {
  State(detail::CommBackend& b, detail::NativeComm n, Device d, int r, int size,
        std::chrono::milliseconds t)
      : backend(&b), native(n), device(d), rank(r), nranks(size), timeout(t) {}
  ~State() { backend->destroy(native); }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  detail::CommBackend* backend;
  detail::NativeComm native;
  Device device;
  int rank;
  int nranks;
  std::chrono::milliseconds timeout;
};

}  // namespace cudakit
