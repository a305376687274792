list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/library_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/library_search.cpp
  ${CMAKE_CURRENT_LIST_DIR}/file_identity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_driver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvrtc_library.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cublas_library.cpp
  ${CMAKE_CURRENT_LIST_DIR}/curand_library.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvjitlink_library.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nccl_library.cpp
)
# cuda.h, nvrtc.h, cublas_api.h and nccl.h for their types; nothing is linked.
list(APPEND CUDAKIT_LAYER_PRIVATE_INCLUDES ${CUDAToolkit_INCLUDE_DIRS})
