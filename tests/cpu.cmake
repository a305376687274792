# The CPU backend, through the backend seam and through the public API. All
# run here (label unit): they need a host C++ compiler, no GPU.
cudakit_add_test(cpu_compile_test SOURCES unit/cpu_compile_test.cpp LABELS unit)
# Sources with #if regions: what the preprocessor drops is not scanned.
cudakit_add_test(cpu_conditional_test SOURCES unit/cpu_conditional_test.cpp LABELS unit)
cudakit_add_test(cpu_execution_test SOURCES unit/cpu_execution_test.cpp LABELS unit)
# The GPU's approximate sine, cosine and 2^x tables and the rules around them.
cudakit_add_test(cpu_approx_tables_test SOURCES unit/cpu_approx_tables_test.cpp LABELS unit)
# The tutorials' kernels, as the examples and the demo use them.
target_include_directories(cpu_execution_test PRIVATE ${PROJECT_SOURCE_DIR}/tools)
cudakit_add_test(cpu_streams_test SOURCES unit/cpu_streams_test.cpp LABELS unit)
cudakit_add_test(cpu_debug_test SOURCES unit/cpu_debug_test.cpp LABELS unit)
cudakit_add_test(cpu_public_api_test SOURCES unit/cpu_public_api_test.cpp LABELS unit)
# The same warp and barrier kernels on the CPU backend and a GPU, compared bit
# for bit (runs where there is a GPU).
cudakit_add_test(cpu_gpu_parity_test SOURCES gpu/cpu_gpu_parity_test.cpp LABELS gpu)
# Faults in kernels as KernelFault, GPU-like integer division, kernels in headers.
cudakit_add_test(cpu_fault_test SOURCES unit/cpu_fault_test.cpp LABELS unit)
# Guard pages and canaries after device allocations, copies to no memory,
# async copies to pageable memory, the device's memory size, Out after a fault.
cudakit_add_test(cpu_memory_guard_test SOURCES unit/cpu_memory_guard_test.cpp LABELS unit)
# Interrupting a wait for an endless kernel (Ctrl-C), and a forked child.
cudakit_add_test(cpu_interrupt_test SOURCES unit/cpu_interrupt_test.cpp LABELS unit)
# Debug builds for gdb (kept sources), the printf buffer's limit, context limits.
cudakit_add_test(cpu_debugging_test SOURCES unit/cpu_debugging_test.cpp LABELS unit)
# Several devices on one host: the CPU backend presents two (CUDAKIT_CPU_DEVICES=2).
cudakit_add_test_executable(cpu_multi_device_test unit/cpu_multi_device_test.cpp)
gtest_discover_tests(cpu_multi_device_test DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
  TEST_PREFIX "cpu_multi_device_test/"
  PROPERTIES LABELS unit ENVIRONMENT "CUDAKIT_CPU_DEVICES=2" SKIP_REGULAR_EXPRESSION "SKIPPED"
             TIMEOUT 300)
