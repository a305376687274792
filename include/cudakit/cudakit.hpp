// cudakit: run-time compiled CUDA kernels from C++, with checked launches,
// memory, streams and events, on a GPU or on the CPU backend.
#pragma once

#include "cudakit/backend_kind.hpp"
#include "cudakit/compile_cache.hpp"
#include "cudakit/compile_options.hpp"
#include "cudakit/compiled_code.hpp"
#include "cudakit/device.hpp"
#include "cudakit/device_buffer.hpp"
#include "cudakit/error.hpp"
#include "cudakit/event.hpp"
#include "cudakit/host_transfer.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/launch_config.hpp"
#include "cudakit/memory_pool.hpp"
#include "cudakit/module.hpp"
#include "cudakit/pinned_buffer.hpp"
#include "cudakit/program.hpp"
#include "cudakit/stream.hpp"
