# Communicators (include/cudakit/communicator.hpp). The CPU backend's tests
# run on four virtual devices: every collective on 2 and 4 ranks in one
# process, bad input, and two processes through the TCP hub.
foreach(comm_test comm_cpu_test comm_cpu_errors_test comm_process_test)
  cudakit_add_test_executable(${comm_test} unit/${comm_test}.cpp)
  gtest_discover_tests(${comm_test} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
    TEST_PREFIX "${comm_test}/"
    PROPERTIES LABELS unit ENVIRONMENT "CUDAKIT_CPU_DEVICES=4;CUDAKIT_BACKEND=cpu"
               SKIP_REGULAR_EXPRESSION "SKIPPED" TIMEOUT 300)
endforeach()
# On a GPU: a 1-rank round trip, and local() over every visible GPU.
cudakit_add_test(comm_gpu_test SOURCES gpu/comm_gpu_test.cpp LABELS gpu)
# The NCCL watchdog's bookkeeping, with fake events (no GPU needed).
cudakit_add_test(nccl_watchdog_test SOURCES unit/nccl_watchdog_test.cpp LABELS unit)
