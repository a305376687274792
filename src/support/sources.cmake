# support: what every layer above shares and that needs nothing but the
# public headers (the one reader of C type names).
list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/c_types.cpp
)
