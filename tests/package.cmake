# cudakit from outside: an installed package found with find_package, and a
# parent project that adds cudakit with add_subdirectory. Each runs cmake on a
# small project in tests/package/ with the compiler cudakit was built with.
set(_cudakit_package_test_args
  -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
  -DCXX_COMPILER=${CMAKE_CXX_COMPILER} -DCXX_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
  -DBOOST_DIR=${Boost_DIR} -DBOOST_CONTEXT_DIR=${boost_context_DIR} -DXXHASH_INCLUDE_DIR=${XXHASH_INCLUDE_DIR})
if(CUDAKIT_INSTALL)
  add_test(NAME package.find_package_consumer
    COMMAND ${CMAKE_COMMAND} -DMODE=install -DWORK_DIR=${PROJECT_BINARY_DIR}/package-test/install
            ${_cudakit_package_test_args} -P ${CMAKE_CURRENT_LIST_DIR}/package/run_package_test.cmake)
  set_tests_properties(package.find_package_consumer PROPERTIES LABELS unit TIMEOUT 600)
endif()
add_test(NAME package.add_subdirectory
  COMMAND ${CMAKE_COMMAND} -DMODE=subdirectory
          -DWORK_DIR=${PROJECT_BINARY_DIR}/package-test/subdirectory
          ${_cudakit_package_test_args} -P ${CMAKE_CURRENT_LIST_DIR}/package/run_package_test.cmake)
set_tests_properties(package.add_subdirectory PROPERTIES LABELS unit TIMEOUT 600)
