# Builds an outside project against cudakit and runs it (cmake -P).
#   MODE=install       install cudakit's library component from BUILD_DIR into
#                      WORK_DIR/prefix, then find_package(cudakit) from
#                      tests/package/consumer, build it and run it.
#   MODE=subdirectory  configure tests/package/subproject, which adds cudakit
#                      with add_subdirectory and checks what it may not do;
#                      with BUILD_SUBPROJECT=ON also build and run it.
# The outside project uses the same compiler and launcher (ccache) as cudakit.
foreach(required MODE BUILD_DIR SOURCE_DIR WORK_DIR CXX_COMPILER)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "run_package_test.cmake needs -D${required}=...")
  endif()
endforeach()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
endfunction()

set(common_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(CXX_LAUNCHER)
  list(APPEND common_args -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER})
endif()
if(BOOST_DIR)
  list(APPEND common_args -DBoost_DIR=${BOOST_DIR})
endif()
# Where Boost.Context's package configuration was found when it is not beside
# Boost's own (a library unpacked outside the system prefix).
if(BOOST_CONTEXT_DIR)
  list(APPEND common_args -Dboost_context_DIR=${BOOST_CONTEXT_DIR})
endif()
# The kernels compiled while testing go to a private cache.
set(run_env ${CMAKE_COMMAND} -E env CUDAKIT_CACHE_DIR=${WORK_DIR}/kernel-cache)

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE ${WORK_DIR}/prefix)
  run_step("cmake --install"
    ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                     --component cudakit_Development)
  foreach(leak xxhash.h)
    file(GLOB_RECURSE leaked ${WORK_DIR}/prefix/${leak})
    if(leaked)
      message(FATAL_ERROR "the installed package carries a private header: ${leaked}")
    endif()
  endforeach()
  run_step("configure the consumer"
    ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package/consumer -B ${WORK_DIR}/consumer-build
                     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
                     ${common_args})
  run_step("build the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer-build)
  run_step("run the consumer" ${run_env} ${WORK_DIR}/consumer-build/consumer)
elseif(MODE STREQUAL "subdirectory")
  file(REMOVE_RECURSE ${WORK_DIR}/parent-build)
  set(subproject_args -DCUDAKIT_SOURCE=${SOURCE_DIR})
  if(XXHASH_INCLUDE_DIR)
    list(APPEND subproject_args -DXXHASH_INCLUDE_DIR=${XXHASH_INCLUDE_DIR})
  endif()
  run_step("configure a parent project that adds cudakit"
    ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package/subproject -B ${WORK_DIR}/parent-build
                     ${subproject_args} ${common_args})
  if(BUILD_SUBPROJECT)
    run_step("build the parent project" ${CMAKE_COMMAND} --build ${WORK_DIR}/parent-build)
    run_step("run the parent's program" ${run_env} ${WORK_DIR}/parent-build/consumer)
  endif()
else()
  message(FATAL_ERROR "MODE must be install or subdirectory, not '${MODE}'")
endif()
