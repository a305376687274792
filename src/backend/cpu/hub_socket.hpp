// The CPU backend's collectives between processes, over TCP (POSIX
// sockets), as NCCL's bootstrap does: get_unique_id() starts a hub in the
// calling process, listening on CUDAKIT_COMM_ADDRESS (an IPv4 address of
// this machine; 127.0.0.1 when unset), and writes its address, port and a
// random token into the id's 128 bytes. Each rank, in whatever process,
// connects to the hub, sends its part of every operation and reads back
// its result; the hub computes (collective_hub.hpp). Every blocking socket
// operation has a deadline, and a lost connection is a CommunicatorError.
#pragma once

#include <chrono>
#include <memory>

#include "backend/comm_backend.hpp"
#include "backend/cpu/collective_hub.hpp"

namespace cudakit::detail::cpu {

// Starts a hub (listening, waiting for ranks) and returns its id.
UniqueIdBytes start_socket_hub();

// Connects rank `rank` of `nranks` to the hub of `id` and returns once all
// ranks have joined; CommunicatorError naming the absent ranks after
// `timeout`, ArgumentError for an id the CPU backend did not make.
std::shared_ptr<HubTransport> join_socket_hub(const UniqueIdBytes& id, int nranks, int rank,
                                              std::chrono::milliseconds timeout);

}  // namespace cudakit::detail::cpu
