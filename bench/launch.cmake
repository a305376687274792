# launch_bench: cudakit's checked launch against the raw driver launch (P1).
# The measurement itself lives in tools/bench/ and is shared with `cudakit bench launch`.
add_executable(launch_bench ${CMAKE_CURRENT_LIST_DIR}/launch_bench.cpp
                            ${PROJECT_SOURCE_DIR}/tools/bench/launch_bench.cpp)
target_include_directories(launch_bench PRIVATE ${PROJECT_BINARY_DIR}/include_roots/tools ${PROJECT_SOURCE_DIR}/tools)
target_link_libraries(launch_bench PRIVATE cudakit cudakit_warnings)
