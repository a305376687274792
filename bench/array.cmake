# array_bench: fused array expressions against a copy and a raw-kernel ceiling (P4, P5).
add_executable(array_bench ${CMAKE_CURRENT_LIST_DIR}/array_bench.cpp)
target_include_directories(array_bench PRIVATE ${PROJECT_BINARY_DIR}/include_roots/tools)
target_link_libraries(array_bench PRIVATE cudakit cudakit_warnings)

# array_overhead_bench: host time per array expression call (the part of P4 at 10M no kernel hides).
add_executable(array_overhead_bench ${CMAKE_CURRENT_LIST_DIR}/array_overhead_bench.cpp)
target_link_libraries(array_overhead_bench PRIVATE cudakit cudakit_warnings)
