# support: what every layer above shares and that needs nothing but the
# public headers (the one reader of C type names, the one reader of
# #include lines).
list(APPEND CUDAKIT_LAYER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/c_types.cpp
  ${CMAKE_CURRENT_LIST_DIR}/include_lines.cpp
)
