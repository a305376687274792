# libcudakit_peers.so: cudakit's array operations behind a C ABI, for
# bench/peers/peer_compare.py (cudakit vs CuPy vs PyTorch on the same memory).
add_library(cudakit_peers SHARED ${CMAKE_CURRENT_LIST_DIR}/peers/peer_capi.cpp)
target_link_libraries(cudakit_peers PRIVATE cudakit cudakit_warnings)
