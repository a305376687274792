// A process forked after a backend started (its stream and worker threads,
// a GPU's context) cannot use that backend: the threads do not exist in the
// child and a lock one of them held stays held. CUDA refuses such a child at
// its first call; so does cudakit, on both backends, with a message that
// says what to do, instead of a child that hangs in synchronize(). Calls
// that cannot throw (freeing memory, destroying streams, unloading modules,
// the backend's own destruction at exit) do nothing in the child, so it can
// exit cleanly; the memory is the child's copy and goes with it.
#pragma once

#include <memory>

#include "backend/backend.hpp"

namespace cudakit::detail {

// `inner`, refusing every call made in a process forked after this call.
std::unique_ptr<Backend> make_fork_guarded_backend(std::unique_ptr<Backend> inner);

}  // namespace cudakit::detail
