# Installing and packaging: `cmake --install build --prefix P` lays out
#   P/bin/amplifier
#   P/<libdir>/amplifier/modules/*.so
#   P/include/amplifier/{amplifier_plugin.h, amplifier_sdk.hpp, amplifier_sdk_json.hpp}
#   P/<libdir>/cmake/Amplifier/{AmplifierConfig.cmake, AmplifierConfigVersion.cmake, ...}
#   P/<libdir>/pkgconfig/amplifier-plugin.pc
# and `cpack -G DEB` (in the build folder) makes a Debian package of the same tree under /usr.
# The SDK is header only, so there is no library for module authors to link.
#
# The build tree also gets an SDK prefix of its own (${AMP_BUILD_SDK_PREFIX}: the same config
# and .pc files pointing at the source tree), so a host run from the build tree can build
# modules from source (`amplifier module install`, git sources) without being installed.
include(CMakePackageConfigHelpers)

file(STRINGS ${PROJECT_SOURCE_DIR}/plugin-api/amplifier_plugin.h abi_lines
     REGEX "^#define AMP_ABI_VERSION_(MAJOR|MINOR) [0-9]+")
string(REGEX REPLACE ".*MAJOR ([0-9]+).*" "\\1" abi_major "${abi_lines}")
string(REGEX REPLACE ".*MINOR ([0-9]+).*" "\\1" abi_minor "${abi_lines}")
set(AMP_ABI_VERSION "${abi_major}.${abi_minor}")

set(AMP_SDK_CMAKE_FILES ${PROJECT_SOURCE_DIR}/cmake/AmplifierAddModule.cmake
                        ${PROJECT_SOURCE_DIR}/cmake/module-exports.map)

# amp_write_sdk_files(<prefix dir> <install-style?>): the config, version and .pc files.
function(amp_write_sdk_files out_dir installed)
  if(installed)
    set(AMP_PACKAGE_INCLUDE_DIR ${CMAKE_INSTALL_INCLUDEDIR}/amplifier)
    set(AMP_PACKAGE_MODULE_DIR ${AMP_INSTALL_MODULE_DIR})
    set(AMP_PC_PREFIX "\${pcfiledir}/../..")  # relocatable: wherever the tree is unpacked
    set(AMP_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}/amplifier")
    set(AMP_PC_MODULEDIR "\${prefix}/${AMP_INSTALL_MODULE_DIR}")
    set(AMP_PC_EXPORTS_MAP "\${prefix}/${AMP_INSTALL_CMAKE_DIR}/module-exports.map")
    set(prefix_for_config ${CMAKE_INSTALL_PREFIX})
  else()
    set(AMP_PACKAGE_INCLUDE_DIR ${PROJECT_SOURCE_DIR}/plugin-api)
    set(AMP_PACKAGE_MODULE_DIR ${AMP_MODULE_OUTPUT_DIR})
    set(AMP_PC_PREFIX ${out_dir})
    set(AMP_PC_INCLUDEDIR ${PROJECT_SOURCE_DIR}/plugin-api)
    set(AMP_PC_MODULEDIR ${AMP_MODULE_OUTPUT_DIR})
    set(AMP_PC_EXPORTS_MAP ${PROJECT_SOURCE_DIR}/cmake/module-exports.map)
    set(prefix_for_config ${out_dir})
  endif()
  set(cmake_dir ${out_dir}/${AMP_INSTALL_CMAKE_DIR})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/package/AmplifierConfig.cmake.in
    ${cmake_dir}/AmplifierConfig.cmake
    INSTALL_DESTINATION ${AMP_INSTALL_CMAKE_DIR}
    INSTALL_PREFIX ${prefix_for_config}
    PATH_VARS AMP_PACKAGE_INCLUDE_DIR AMP_PACKAGE_MODULE_DIR)
  write_basic_package_version_file(${cmake_dir}/AmplifierConfigVersion.cmake
    VERSION ${AMP_ABI_VERSION} COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/package/amplifier-plugin.pc.in
                 ${out_dir}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/amplifier-plugin.pc @ONLY)
  if(NOT installed)
    foreach(file IN LISTS AMP_SDK_CMAKE_FILES)
      configure_file(${file} ${cmake_dir} COPYONLY)
    endforeach()
  endif()
endfunction()

set(install_staging ${CMAKE_BINARY_DIR}/package-staging)
amp_write_sdk_files(${install_staging} TRUE)
install(FILES ${install_staging}/${AMP_INSTALL_CMAKE_DIR}/AmplifierConfig.cmake
              ${install_staging}/${AMP_INSTALL_CMAKE_DIR}/AmplifierConfigVersion.cmake
              ${AMP_SDK_CMAKE_FILES}
        DESTINATION ${AMP_INSTALL_CMAKE_DIR} COMPONENT sdk)
install(FILES ${install_staging}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/amplifier-plugin.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT sdk)

amp_write_sdk_files(${AMP_BUILD_SDK_PREFIX} FALSE)

# cpack -G DEB: one package with the host, the modules and the SDK, installed under /usr.
set(CPACK_PACKAGE_NAME amplifier)
set(CPACK_PACKAGE_VENDOR "amplifier native")
set(CPACK_PACKAGE_CONTACT "amplifier maintainers <amplifier@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Plugin-host runtime for LLM agents, with its modules and module SDK")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Runtime libraries (Boost, yaml-cpp, OpenSSL, fmt, libedit) found by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Without debug info: a package of a RelWithDebInfo build would be ten times larger.
set(CPACK_STRIP_FILES TRUE)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cmake, g++, pkg-config, git")
include(CPack)
