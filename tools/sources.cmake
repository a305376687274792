# Files of the cudakit CLI (tools/CMakeLists.txt builds them into `cudakit`).
set(CUDAKIT_CLI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/main.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ptx_resources.cpp
  ${CMAKE_CURRENT_LIST_DIR}/probe/cuda_probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bench/conv_bench.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bench/launch_bench.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bench/warp_times.cpp
  ${CMAKE_CURRENT_LIST_DIR}/commands/bench.cpp
  ${CMAKE_CURRENT_LIST_DIR}/commands/compile_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/commands/demo.cpp
  ${CMAKE_CURRENT_LIST_DIR}/commands/doctor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/commands/info.cpp
  ${CMAKE_CURRENT_LIST_DIR}/commands/profile_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/debug/program_search.cpp
  ${CMAKE_CURRENT_LIST_DIR}/debug/sanitize_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/debug/sanitizer_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/debug/sanitizer_report.cpp)
