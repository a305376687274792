# The headers cudakit provides to kernels (PyCUDA's pycuda-complex.hpp and
# pycuda-helpers.hpp) ship inside the library as text.
set(_builtin_headers_dir ${CMAKE_CURRENT_LIST_DIR}/builtin_headers)
file(READ ${_builtin_headers_dir}/pycuda_complex.hpp CUDAKIT_PYCUDA_COMPLEX_TEXT)
file(READ ${_builtin_headers_dir}/pycuda_helpers.hpp CUDAKIT_PYCUDA_HELPERS_TEXT)
# The CPU backend's portable cub, cuda::std::complex, thrust::complex, cuComplex.h,
# cuRAND's device API.
set(_cpu_builtin_headers cub_cpu.hpp cub_cpu_sort.hpp cuda_std_complex_cpu.hpp thrust_complex_cpu.hpp
  cucomplex_cpu.hpp curand_kernel_cpu.h curand_kernel_cpu_distributions.h curand_kernel_cpu_sobol.h)
file(READ ${_builtin_headers_dir}/cub_cpu.hpp CUDAKIT_CUB_CPU_TEXT)
file(READ ${_builtin_headers_dir}/cub_cpu_sort.hpp CUDAKIT_CUB_CPU_SORT_TEXT)
file(READ ${_builtin_headers_dir}/cuda_std_complex_cpu.hpp CUDAKIT_CUDA_STD_COMPLEX_CPU_TEXT)
file(READ ${_builtin_headers_dir}/thrust_complex_cpu.hpp CUDAKIT_THRUST_COMPLEX_CPU_TEXT)
file(READ ${_builtin_headers_dir}/cucomplex_cpu.hpp CUDAKIT_CUCOMPLEX_CPU_TEXT)
file(READ ${_builtin_headers_dir}/curand_kernel_cpu.h CUDAKIT_CURAND_KERNEL_CPU_TEXT)
file(READ ${_builtin_headers_dir}/curand_kernel_cpu_distributions.h
     CUDAKIT_CURAND_KERNEL_CPU_DISTRIBUTIONS_TEXT)
file(READ ${_builtin_headers_dir}/curand_kernel_cpu_sobol.h CUDAKIT_CURAND_KERNEL_CPU_SOBOL_TEXT)
list(TRANSFORM _cpu_builtin_headers PREPEND ${_builtin_headers_dir}/)
configure_file(${_builtin_headers_dir}/builtin_headers.cpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/core_builtin_headers_text.cpp @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${_builtin_headers_dir}/pycuda_complex.hpp ${_builtin_headers_dir}/pycuda_helpers.hpp
  ${_builtin_headers_dir}/builtin_headers.cpp.in ${_cpu_builtin_headers})

list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/builtin_headers.cpp
  ${CMAKE_CURRENT_BINARY_DIR}/core_builtin_headers_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/backend_kind.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quasi_random.cpp
  ${CMAKE_CURRENT_LIST_DIR}/backend_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_library_search.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compiled_code.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_attribute.cpp
  ${CMAKE_CURRENT_LIST_DIR}/copy_3d.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_array.cpp
  ${CMAKE_CURRENT_LIST_DIR}/texture_object.cpp
  ${CMAKE_CURRENT_LIST_DIR}/texture_reference.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_buffer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dim3.cpp
  ${CMAKE_CURRENT_LIST_DIR}/error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/event.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fork_guard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_registration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ipc_memory_handle.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_args.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_signature_scanner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_arguments.cpp
  ${CMAKE_CURRENT_LIST_DIR}/array_view_match.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_profiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/link_input.cpp
  ${CMAKE_CURRENT_LIST_DIR}/linker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvtx_ranges.cpp
  ${CMAKE_CURRENT_LIST_DIR}/module.cpp
  ${CMAKE_CURRENT_LIST_DIR}/module_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/occupancy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/param_layout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pinned_buffer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profile_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/regular_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scalar_convert.cpp
  ${CMAKE_CURRENT_LIST_DIR}/source_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream.cpp
)
# Graphs: stream capture, the replayable graph, the guard that keeps a capture valid.
list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/capture_guard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph_capture.cpp
)
# Compile cache: key, settings from the environment, entry format, the two levels.
list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/compile_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compile_cache_key.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compile_cache_settings.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compiled_code_format.cpp
)
# NVTX ranges: the toolkit's header-only NVTX3, in nvtx_ranges.cpp alone
# (as a system header: it is not written for our warning set).
if(CUDAKIT_NVTX)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/nvtx_ranges.cpp PROPERTIES
    COMPILE_DEFINITIONS CUDAKIT_HAVE_NVTX=1
    COMPILE_OPTIONS "-isystem;${CUDAKIT_NVTX3_INCLUDE_DIR}")
endif()
