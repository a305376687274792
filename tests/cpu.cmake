# The CPU backend, through the backend seam and through the public API. All
# run here (label unit): they need a host C++ compiler, no GPU.
cudakit_add_test(cpu_compile_test SOURCES unit/cpu_compile_test.cpp LABELS unit)
