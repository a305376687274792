// A scriptable stand-in for libcuda.so.1, so the CUDA backend's own logic
// (context caching, error mapping, fault reports, launch diagnostics) is
// tested on machines without a GPU. Device memory is host memory; kernels do
// nothing except the one named "faulty", which leaves a sticky illegal-address
// error as a real faulting kernel would. Modules hold the kernels vec_add,
// faulty and busy; with CUDAKIT_FAKE_ANY_KERNEL set, also the kernels of the PTX
// loaded (so a benchmark measures the host side of launching its own). Tests
// reach this control block by dlopen-ing the same file and calling
// fake_cuda_control().
#pragma once

#include <atomic>
#include <cstddef>

struct FakeCudaControl {
  int init_result = 0;  // what cuInit returns (CUresult)
  int driver_version = 13000;
  int device_count = 2;
  int compute_major = 9;
  int compute_minor = 0;
  std::size_t total_bytes = std::size_t(80) << 30;
  std::size_t free_bytes = std::size_t(70) << 30;
  int module_load_result = 0;        // what cuModuleLoadDataEx returns
  bool has_param_info = true;        // cuFuncGetParamInfo answers
  std::atomic<int> sticky_error{0};  // set by a faulting launch; returned by later calls
  std::atomic<int> retain_calls{0};
  std::atomic<int> set_current_calls{0};
  std::atomic<int> launches{0};
  std::atomic<int> cooperative_launches{0};
  std::atomic<int> live_allocations{0};
  std::atomic<int> live_host_registrations{0};  // cuMemHostRegister less cuMemHostUnregister
  int context_cache_config = 0;                 // CUfunc_cache of the current context
  int context_shared_config = 0;                // CUsharedconfig of the current context
  int last_function_cache_config = -1;          // the latest cuFuncSetCacheConfig
  int last_function_carveout = -2;              // the latest preferred shared memory carveout
  // The linker: cuLinkComplete fails with "Undefined reference" when an
  // input holds the text "undefined_function"; otherwise links.
  std::atomic<int> live_links{0};    // cuLinkCreate less cuLinkDestroy
  int last_link_inputs = 0;          // inputs of the latest cuLinkComplete
  int last_link_option_count = 0;    // options given to the latest cuLinkCreate
  bool last_ptx_terminated = false;  // the latest PTX input ended in '\0' within its size
};

extern "C" FakeCudaControl* fake_cuda_control();
extern "C" void fake_cuda_reset();
