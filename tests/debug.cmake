# Debugging tools: the sanitizer mode's planted bugs run through
# `cudakit run --sanitize` (CPU backend), `cudakit check`'s report parser and
# its message without compute-sanitizer, and the planted GPU bugs that
# `cudakit check` must find on a GPU (label gpu).
add_executable(planted_bounds ${CMAKE_CURRENT_LIST_DIR}/debug/planted_bounds.cpp)
target_link_libraries(planted_bounds PRIVATE cudakit cudakit_warnings)
add_executable(planted_gpu ${CMAKE_CURRENT_LIST_DIR}/debug/planted_gpu.cpp)
target_link_libraries(planted_gpu PRIVATE cudakit cudakit_warnings)

if(TARGET cudakit_cli)
  cudakit_add_test(sanitizer_report_test
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/sanitizer_report_test.cpp
            ${PROJECT_SOURCE_DIR}/tools/debug/sanitizer_report.cpp
    LABELS unit)
  target_include_directories(sanitizer_report_test PRIVATE ${PROJECT_SOURCE_DIR}/tools)

  # The missing `if (i < n)` (100 floats, 128 threads) is reported with the
  # kernel's file and line however the floats were allocated.
  foreach(mode buffer pooled_buffer array pool)
    add_test(NAME debug.sanitize_run.${mode}
             COMMAND cudakit_cli run --sanitize -- $<TARGET_FILE:planted_bounds> ${mode})
    set_tests_properties(debug.sanitize_run.${mode} PROPERTIES
      LABELS unit TIMEOUT 300
      ENVIRONMENT "CUDAKIT_BACKEND=cpu;CUDAKIT_CPU_THREADS=2"
      PASS_REGULAR_EXPRESSION
        "AddressSanitizer: (heap-buffer-overflow|use-after-poison).*in fill_ones [^\n]*missing_check.cu:3")
  endforeach()

  # Without compute-sanitizer, `cudakit check` says where to get it.
  add_test(NAME debug.check_without_compute_sanitizer
           COMMAND cudakit_cli check -- $<TARGET_FILE:planted_gpu> oob)
  set_tests_properties(debug.check_without_compute_sanitizer PROPERTIES
    LABELS unit TIMEOUT 60
    ENVIRONMENT "CUDAKIT_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer"
    PASS_REGULAR_EXPRESSION
      "compute-sanitizer was not found.*developer.nvidia.com/cuda-downloads.*cudakit run --sanitize")

  # On a GPU: compute-sanitizer finds the planted bugs and the summary names
  # their lines. Skipped without a GPU or without compute-sanitizer.
  add_test(NAME debug.check_gpu.memcheck_out_of_bounds
           COMMAND cudakit_cli check --tool memcheck -- $<TARGET_FILE:planted_gpu> oob)
  add_test(NAME debug.check_gpu.racecheck_shared_race
           COMMAND cudakit_cli check --tool racecheck -- $<TARGET_FILE:planted_gpu> race)
  set_tests_properties(debug.check_gpu.memcheck_out_of_bounds PROPERTIES
    PASS_REGULAR_EXPRESSION "planted_oob.cu:3  write_past_end: Invalid __global__ write")
  set_tests_properties(debug.check_gpu.racecheck_shared_race PROPERTIES
    PASS_REGULAR_EXPRESSION "planted_race.cu:[45]  reverse_block: [^\n]*[Rr]ace")
  set_tests_properties(debug.check_gpu.memcheck_out_of_bounds debug.check_gpu.racecheck_shared_race
    PROPERTIES LABELS gpu TIMEOUT 300
    SKIP_REGULAR_EXPRESSION "no GPU: the planted GPU bugs need one;compute-sanitizer was not found")
endif()

# CUDAKIT_EXACT_ALLOCATIONS=1 (`cudakit check` sets it): pool blocks of
# exactly the requested size, so memcheck sees a write past an array's end.
cudakit_add_test_executable(exact_pool_blocks_test
                            ${CMAKE_CURRENT_LIST_DIR}/unit/exact_pool_blocks_test.cpp)
add_test(NAME debug.exact_pool_blocks COMMAND exact_pool_blocks_test)
set_tests_properties(debug.exact_pool_blocks PROPERTIES
  LABELS unit TIMEOUT 60 ENVIRONMENT "CUDAKIT_EXACT_ALLOCATIONS=1;CUDAKIT_BACKEND=cpu")

# CUDAKIT_PROFILE=1: per-kernel table at exit and a Chrome trace.
cudakit_add_test(launch_profile_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/launch_profile_test.cpp
                 LABELS unit)
# cudakit::benchmark and cudakit::occupancy.
cudakit_add_test(profiler_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/profiler_test.cpp LABELS unit)

# gdb on a CPU-backend kernel: threadIdx and friends are symbols, the source
# is kept, the name is the one CompileOptions::source_name gives. Skipped
# (with the reason) where gdb is not installed.
add_executable(gdb_kernel ${CMAKE_CURRENT_LIST_DIR}/debug/gdb_kernel.cpp)
target_link_libraries(gdb_kernel PRIVATE cudakit cudakit_warnings)
add_test(NAME debug.gdb_kernel
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/debug/gdb_kernel.sh $<TARGET_FILE:gdb_kernel>)
set_tests_properties(debug.gdb_kernel PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77)
# Kernel::occupancy on every backend (the CPU backend's model, the driver's).
cudakit_add_backend_test(occupancy_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/backends/occupancy_test.cpp)
# Device limits (printf FIFO, stack, malloc heap) on every backend.
cudakit_add_backend_test(device_limits_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/backends/device_limits_test.cpp)
