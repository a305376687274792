# Install rules and the CMake package: after `cmake --install build --prefix P`
# an outside project does
#   find_package(cudakit CONFIG REQUIRED)   # with P in CMAKE_PREFIX_PATH
#   target_link_libraries(app PRIVATE cudakit::cudakit)
# Components: cudakit_Development (library, headers, package files) and
# cudakit_Runtime (the cudakit command-line program).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CUDAKIT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/cudakit
    CACHE STRING "Where cudakit's CMake package files are installed, relative to the prefix")

install(TARGETS cudakit EXPORT cudakitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT cudakit_Development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT cudakit_Development)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/cudakit ${CUDAKIT_GENERATED_INCLUDE_DIR}/cudakit
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT cudakit_Development
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(EXPORT cudakitTargets NAMESPACE cudakit:: DESTINATION ${CUDAKIT_INSTALL_CMAKEDIR}
        COMPONENT cudakit_Development)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cudakitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cudakitConfig.cmake
                              INSTALL_DESTINATION ${CUDAKIT_INSTALL_CMAKEDIR})
# 0.x: a minor release may change the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cudakitConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cudakitConfig.cmake
              ${PROJECT_BINARY_DIR}/cudakitConfigVersion.cmake
        DESTINATION ${CUDAKIT_INSTALL_CMAKEDIR} COMPONENT cudakit_Development)

if(TARGET cudakit_cli)
  install(TARGETS cudakit_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT cudakit_Runtime)
endif()
