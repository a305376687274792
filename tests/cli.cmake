# The cudakit CLI: its PTX resource parser as a unit test, and the binary
# itself run as a child process (exit codes and output).
if(TARGET cudakit_cli)
  cudakit_add_test(cli_ptx_resources_test
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cli_ptx_resources_test.cpp
            ${PROJECT_SOURCE_DIR}/tools/ptx_resources.cpp
    LABELS unit)
  target_include_directories(cli_ptx_resources_test PRIVATE ${PROJECT_SOURCE_DIR}/tools)

  cudakit_add_test(cli_process_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/unit/cli_process_test.cpp
                   LABELS unit)
  target_compile_definitions(cli_process_test PRIVATE CUDAKIT_CLI_PATH="$<TARGET_FILE:cudakit_cli>")
  add_dependencies(cli_process_test cudakit_cli)
endif()
