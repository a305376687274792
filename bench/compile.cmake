# compile_bench: cold compile vs raw NVRTC, memory and disk cache hits,
# fresh-process disk hit (P3). `cudakit bench compile` runs the same code
# (bench/compile_bench.hpp).
add_executable(compile_bench ${CMAKE_CURRENT_LIST_DIR}/compile_bench.cpp)
target_compile_definitions(compile_bench PRIVATE CUDAKIT_COMPILE_BENCH_MAIN)
target_include_directories(compile_bench PRIVATE ${PROJECT_BINARY_DIR}/include_roots/tools ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(compile_bench PRIVATE cudakit cudakit_warnings)
# fresh_hit_probe: the steps of a fresh-process disk-cache hit, timed one by one.
add_executable(fresh_hit_probe ${CMAKE_CURRENT_LIST_DIR}/experiments/fresh_hit_probe.cpp)
target_include_directories(fresh_hit_probe PRIVATE ${PROJECT_BINARY_DIR}/include_roots/tools)
target_link_libraries(fresh_hit_probe PRIVATE cudakit cudakit_warnings)
