# array_reduce_bench: sum and dot of 2^28 float32 against a copy ceiling (P6),
# matmul 4096 float32 through cuBLAS, TF32 and the generated kernel (P7).
add_executable(array_reduce_bench ${CMAKE_CURRENT_LIST_DIR}/array_reduce_bench.cpp)
target_include_directories(array_reduce_bench PRIVATE ${PROJECT_BINARY_DIR}/include_roots/tools)
target_link_libraries(array_reduce_bench PRIVATE cudakit cudakit_warnings)
