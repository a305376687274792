# Device arrays: dtypes, Array and its views, fused elementwise expressions.
list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/dtype.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scalar.cpp
  ${CMAKE_CURRENT_LIST_DIR}/expr_types.cpp
  ${CMAKE_CURRENT_LIST_DIR}/array.cpp
  ${CMAKE_CURRENT_LIST_DIR}/array_creation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/array_transfer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/array_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/expr.cpp
  ${CMAKE_CURRENT_LIST_DIR}/expr_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/expr_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codegen_prelude.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/elementwise.cpp
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_fast.cpp
  ${CMAKE_CURRENT_LIST_DIR}/elementwise_kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/array_join.cpp
  ${CMAKE_CURRENT_LIST_DIR}/array_indexing.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream_order.cpp
)

# Reductions, scans, random numbers and matrix products.
list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_codegen.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_workspace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scan_codegen.cpp
  ${CMAKE_CURRENT_LIST_DIR}/random.cpp
  ${CMAKE_CURRENT_LIST_DIR}/random_kernels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/random_philox.cpp
  ${CMAKE_CURRENT_LIST_DIR}/linalg.cpp
  ${CMAKE_CURRENT_LIST_DIR}/linalg_cublas.cpp
  ${CMAKE_CURRENT_LIST_DIR}/linalg_kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/array_interop.cpp
)

