# Communicators and their collectives (NCCL on the CUDA backend, the CPU
# backend's hub elsewhere), reached through backend/comm_backend.hpp.
list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/collectives.cpp
  ${CMAKE_CURRENT_LIST_DIR}/communicator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unique_id.cpp
)
