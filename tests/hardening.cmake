# Hostile and careless input: each defect found by trying to break the API has
# a test here. The array and launch tests run on every backend
# (cudakit_add_backend_test).
cudakit_add_backend_test(array_hostile_input_test SOURCES backends/array_hostile_input_test.cpp)
# The CLI binary as a child process, given bad input.
if(TARGET cudakit_cli)
  cudakit_add_test(cli_hostile_input_test SOURCES unit/cli_hostile_input_test.cpp LABELS unit)
  target_compile_definitions(cli_hostile_input_test PRIVATE CUDAKIT_CLI_PATH="$<TARGET_FILE:cudakit_cli>")
  add_dependencies(cli_hostile_input_test cudakit_cli)
endif()
# Files that are not regular files where the cache or the module loader reads.
cudakit_add_test(cache_special_file_test SOURCES unit/cache_special_file_test.cpp LABELS unit)
# Launches and kernels, on every backend.
cudakit_add_backend_test(launch_hostile_input_test SOURCES backends/launch_hostile_input_test.cpp)
# Every operation over every dtype it accepts, against a host reference, and
# each kernel it ran compiled with NVRTC for sm_90.
cudakit_add_backend_test(array_dtype_matrix_test SOURCES backends/array_dtype_matrix_test.cpp)
