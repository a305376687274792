# libcudakit_peers.so: cudakit's array operations behind a C ABI, for
# bench/peers/peer_compare.py (cudakit vs CuPy vs PyTorch on the same memory).
add_library(cudakit_peers SHARED ${CMAKE_CURRENT_LIST_DIR}/peers/peer_capi.cpp)
target_link_libraries(cudakit_peers PRIVATE cudakit cudakit_warnings)

# cudakit_peers_nb: the same through nanobind (what a Python binding's call
# costs), built where Python's headers and nanobind are found; peer_compare.py
# falls back to the C ABI without it.
find_package(Python 3.8 COMPONENTS Interpreter Development.Module QUIET)
if(Python_FOUND)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
    OUTPUT_VARIABLE _cudakit_nanobind_dir
    OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _cudakit_nanobind_rc
    ERROR_QUIET)
  if(_cudakit_nanobind_rc EQUAL 0)
    find_package(nanobind CONFIG QUIET PATHS "${_cudakit_nanobind_dir}" NO_DEFAULT_PATH)
  endif()
endif()
if(nanobind_FOUND)
  nanobind_add_module(cudakit_peers_nb NB_STATIC ${CMAKE_CURRENT_LIST_DIR}/peers/peer_module.cpp)
  target_link_libraries(cudakit_peers_nb PRIVATE cudakit cudakit_warnings)
  # nanobind's headers are not written for our warning set (-Wshadow).
  target_include_directories(cudakit_peers_nb SYSTEM PRIVATE "${_cudakit_nanobind_dir}/../include")
  set_target_properties(cudakit_peers_nb PROPERTIES LIBRARY_OUTPUT_DIRECTORY
                                                    ${PROJECT_BINARY_DIR}/lib)
  message(STATUS "cudakit: peer benchmark module through nanobind ${nanobind_VERSION}")
else()
  message(STATUS "cudakit: no nanobind for Python: peer benchmark through ctypes only")
endif()
