# compile_bench: cold compile vs raw NVRTC, memory and disk cache hits,
# fresh-process disk hit (P3). `cudakit bench compile` runs the same code
# (bench/compile_bench.hpp).
add_executable(compile_bench ${CMAKE_CURRENT_LIST_DIR}/compile_bench.cpp)
target_compile_definitions(compile_bench PRIVATE CUDAKIT_COMPILE_BENCH_MAIN
                                                 CUDAKIT_CUDA_HOME="${CUDAToolkit_LIBRARY_ROOT}")
target_include_directories(compile_bench PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(compile_bench PRIVATE cudakit cudakit_warnings)
