# The CPU backend: host-compiled kernels run on a thread pool, block threads
# as fibers (Boost.Context's fcontext: measured faster than ucontext, see
# docs/performance.md).
find_package(Boost ${CUDAKIT_BOOST_MIN_VERSION} REQUIRED COMPONENTS context)

# The prelude kernels are compiled with ships inside the library as text.
set(_cpu_prelude_dir ${CMAKE_CURRENT_LIST_DIR}/prelude)
file(READ ${_cpu_prelude_dir}/cudakit_cpu_prelude.h CUDAKIT_CPU_PRELUDE_TEXT)
# Appended to the prelude: the inverse error functions (a concept of their own).
file(READ ${_cpu_prelude_dir}/cudakit_cpu_inverse_erf.h _cpu_inverse_erf_text)
string(APPEND CUDAKIT_CPU_PRELUDE_TEXT "${_cpu_inverse_erf_text}")
# And the texture and surface functions (objects and references), the linear
# filter's arithmetic first.
file(READ ${_cpu_prelude_dir}/cudakit_cpu_texture_filter.h _cpu_texture_filter_text)
string(APPEND CUDAKIT_CPU_PRELUDE_TEXT "${_cpu_texture_filter_text}")
file(READ ${_cpu_prelude_dir}/cudakit_cpu_texture.h _cpu_texture_text)
string(APPEND CUDAKIT_CPU_PRELUDE_TEXT "${_cpu_texture_text}")
# And the GPU's approximate functions (the tables come from the runtime).
file(READ ${_cpu_prelude_dir}/cudakit_cpu_approx_math.h _cpu_approx_math_text)
string(APPEND CUDAKIT_CPU_PRELUDE_TEXT "${_cpu_approx_math_text}")
file(READ ${_cpu_prelude_dir}/cudakit_cpu_abi.h CUDAKIT_CPU_ABI_TEXT)
configure_file(${_cpu_prelude_dir}/embedded_prelude.cpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/backend_cpu_embedded_prelude.cpp @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${_cpu_prelude_dir}/cudakit_cpu_prelude.h ${_cpu_prelude_dir}/cudakit_cpu_abi.h
  ${_cpu_prelude_dir}/cudakit_cpu_inverse_erf.h ${_cpu_prelude_dir}/cudakit_cpu_texture.h
  ${_cpu_prelude_dir}/cudakit_cpu_texture_filter.h ${_cpu_prelude_dir}/cudakit_cpu_approx_math.h
  ${_cpu_prelude_dir}/embedded_prelude.cpp.in)

# The GPU's approximate-function tables (prelude/cudakit_cpu_approx_math.h),
# measured on an H200 by scripts/probes/approx_math.cu, as bytes in the library.
set(_approx_tables_text "// Generated from src/backend/cpu/approx_tables/*.bin.\n#include <cstddef>\nnamespace cudakit::detail::cpu {\n")
foreach(_table half_turn fraction log2_below log2_above rsqrt reciprocal)
  file(READ ${CMAKE_CURRENT_LIST_DIR}/approx_tables/${_table}.bin _table_hex HEX)
  string(LENGTH "${_table_hex}" _table_size)
  math(EXPR _table_size "${_table_size} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _table_bytes "${_table_hex}")
  string(APPEND _approx_tables_text
    "extern const unsigned char approx_${_table}_data[] = {${_table_bytes}};\n"
    "extern const std::size_t approx_${_table}_size = ${_table_size};\n")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${CMAKE_CURRENT_LIST_DIR}/approx_tables/${_table}.bin)
endforeach()
string(APPEND _approx_tables_text "}  // namespace cudakit::detail::cpu\n")
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/backend_cpu_approx_tables_data.cpp
     CONTENT "${_approx_tables_text}")

list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/approx_tables.cpp
  ${CMAKE_CURRENT_BINARY_DIR}/backend_cpu_approx_tables_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/block_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_hub.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_array.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_texture.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_backend_arrays.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_backend_kernels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_collectives.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_devices.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_graph.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_module.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_stream.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/element_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fault_guard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fiber_stack.cpp
  ${CMAKE_CURRENT_LIST_DIR}/grid_barrier.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_compiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hub_socket.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interruptible_wait.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kept_sources.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_scanner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/preprocessor_conditions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/printf_fifo.cpp
  ${CMAKE_CURRENT_LIST_DIR}/static_shared.cpp
  ${CMAKE_CURRENT_LIST_DIR}/thread_pool.cpp
  ${CMAKE_CURRENT_BINARY_DIR}/backend_cpu_embedded_prelude.cpp
)
list(APPEND CUDAKIT_LAYER_LIBS Boost::context)
