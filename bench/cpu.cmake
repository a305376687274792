# cpu_bench: the CPU backend's figures (P9): fiber switch cost (fcontext vs
# ucontext), cold compile and disk-cache hit, tiled matmul, vector add.
add_executable(cpu_bench ${CMAKE_CURRENT_LIST_DIR}/cpu_bench.cpp)
target_include_directories(cpu_bench PRIVATE ${PROJECT_BINARY_DIR}/include_roots/tools ${PROJECT_SOURCE_DIR}/tools)
# Boost.Context (fcontext) comes with cudakit, which links it.
target_link_libraries(cpu_bench PRIVATE cudakit cudakit_warnings)
