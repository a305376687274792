# Stream capture and graph replay, on every backend.
cudakit_add_backend_test(graph_test SOURCES backends/graph_test.cpp)
