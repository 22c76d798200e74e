# amp_add_module(<id> SOURCES ... [LIBS ...] [TEST] [EXPORT_ALL])
# The in-tree form of amplifier_add_module (cmake/AmplifierAddModule.cmake, the same function
# third parties get from find_package(Amplifier)): target amp_module_<id>, output in
# ${AMP_MODULE_OUTPUT_DIR}, installed to ${AMP_INSTALL_MODULE_DIR}; or, with TEST, output in
# ${AMP_TEST_MODULE_OUTPUT_DIR} (deliberately broken modules for the tests; never installed,
# never on the default search path).
set(AMPLIFIER_MODULE_EXPORTS_MAP ${CMAKE_CURRENT_LIST_DIR}/module-exports.map)
include(${CMAKE_CURRENT_LIST_DIR}/AmplifierAddModule.cmake)

function(amp_add_module id)
  cmake_parse_arguments(ARG "TEST;EXPORT_ALL" "" "SOURCES;LIBS" ${ARGN})
  set(out_dir ${AMP_MODULE_OUTPUT_DIR})
  if(ARG_TEST)
    set(out_dir ${AMP_TEST_MODULE_OUTPUT_DIR})
  endif()
  set(export_all)
  if(ARG_EXPORT_ALL)
    set(export_all EXPORT_ALL)
  endif()
  amplifier_add_module(${id} TARGET amp_module_${id} OUTPUT_DIRECTORY ${out_dir} ${export_all}
                       SOURCES ${ARG_SOURCES} LIBS ${ARG_LIBS})
  if(NOT ARG_TEST)
    install(TARGETS amp_module_${id} LIBRARY DESTINATION ${AMP_INSTALL_MODULE_DIR})
    # The installed modules, for whatever must build all of them (tests/install).
    set_property(GLOBAL APPEND PROPERTY AMP_INSTALLED_MODULES amp_module_${id})
  endif()
endfunction()
