# Layers the build enforces. Sources include each other as "<layer>/file.hpp"
# relative to src/; instead of all of src/, each layer compiles against its own
# include root: a directory in the build tree holding links to exactly the
# parts of src/ that layer may use. Including anything else fails to compile
# ("No such file or directory"), so a crossing cannot land unnoticed.
#
#   support       support/                   (the one reader of C type names)
#   platform      platform/                  (dlopen of libcuda, NVRTC, cuBLAS)
#   backend/cpu   backend/backend.hpp, backend/cpu/, platform/, support/
#   backend/cuda  backend/backend.hpp, backend/cuda/, platform/ (+ CUDA headers)
#   core          core/, backend/backend.hpp, the two backends' factories, support/,
#                 platform/library_search.hpp (the one search plan),
#                 platform/curand_library.hpp (cuRAND's host tables, which no backend owns)
#   array         array/, backend/backend.hpp (the backend interface only),
#                 support/ (the one reader of C type names)
#   distributed   distributed/, backend/backend.hpp and backend/comm_backend.hpp
#                 (collectives reach NCCL or the CPU hub through the backend)
#   tools, bench, python  backend/backend.hpp, platform/library_search.hpp (the one
#                 search plan doctor reports), support/, backend/cuda/standard_headers.hpp
#                 (the NVRTC stand-ins compile_bench times) and the public include/
#
# Everything sees the public headers (include/cudakit). Tests are white-box
# and keep all of src/.

# cudakit_include_root(NAME ENTRY...): makes <build>/include_roots/NAME with a
# link for each ENTRY (a path relative to src/: a folder or a file).
function(cudakit_include_root name)
  set(root ${PROJECT_BINARY_DIR}/include_roots/${name})
  file(REMOVE_RECURSE ${root})
  foreach(entry ${ARGN})
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/src/${entry})
      message(FATAL_ERROR "include root ${name}: src/${entry} does not exist")
    endif()
    get_filename_component(parent ${root}/${entry} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${entry} ${root}/${entry} SYMBOLIC)
  endforeach()
endfunction()

# The directory of an include root made by cudakit_include_root.
function(cudakit_include_root_dir out_var name)
  set(${out_var} ${PROJECT_BINARY_DIR}/include_roots/${name} PARENT_SCOPE)
endfunction()

set(_cudakit_backend_interface backend/backend.hpp backend/graph_backend.hpp
                                 backend/comm_backend.hpp)
cudakit_include_root(support support)
cudakit_include_root(platform platform)
cudakit_include_root(backend_cpu ${_cudakit_backend_interface} backend/cpu platform support)
cudakit_include_root(backend_cuda ${_cudakit_backend_interface} backend/cuda platform)
cudakit_include_root(core core ${_cudakit_backend_interface} backend/cpu/cpu_backend.hpp
                     backend/cuda/cuda_backend.hpp support platform/library_loader.hpp
                     platform/library_search.hpp platform/curand_library.hpp)
cudakit_include_root(array array ${_cudakit_backend_interface} support)
cudakit_include_root(distributed distributed ${_cudakit_backend_interface})
cudakit_include_root(tools ${_cudakit_backend_interface} platform/library_loader.hpp
                     platform/library_search.hpp support backend/cuda/standard_headers.hpp)
