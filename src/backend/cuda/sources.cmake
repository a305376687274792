list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cuda_array.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_texture.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_collectives.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_compiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_gemm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_graph.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_launch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_ipc.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_linker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_lto_linker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_managed.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_module.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_history.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nccl_watchdog.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ptx_entry_parser.cpp
  ${CMAKE_CURRENT_LIST_DIR}/standard_headers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream_faults.cpp
)
# cuda.h, nvrtc.h and nccl.h for their types; nothing is linked.
list(APPEND CUDAKIT_LAYER_PRIVATE_INCLUDES ${CUDAToolkit_INCLUDE_DIRS})
