# amp_add_module(<id> SOURCES ... [LIBS ...] [TEST] [EXPORT_ALL])
# Builds module <id> as a shared library named <id>.so in ${AMP_MODULE_OUTPUT_DIR}, or, with
# TEST, in ${AMP_TEST_MODULE_OUTPUT_DIR} (deliberately broken modules for the tests; never
# installed, never on the default search path). The library exports amplifier_module_entry and
# nothing else (module-exports.map); EXPORT_ALL skips that, for a test module whose fault is
# its exports. Symbols are
# hidden so the module exports only its C entry point; static libraries linked in stay private.
function(amp_add_module id)
  cmake_parse_arguments(ARG "TEST;EXPORT_ALL" "" "SOURCES;LIBS" ${ARGN})
  set(target amp_module_${id})
  set(out_dir ${AMP_MODULE_OUTPUT_DIR})
  if(ARG_TEST)
    set(out_dir ${AMP_TEST_MODULE_OUTPUT_DIR})
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${id}
    PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY ${out_dir}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${target} PRIVATE amplifier::plugin_api ${ARG_LIBS})
  target_link_options(${target} PRIVATE -Wl,--exclude-libs,ALL -Wl,--no-undefined)
  if(NOT ARG_EXPORT_ALL)
    set(map ${PROJECT_SOURCE_DIR}/cmake/module-exports.map)
    target_link_options(${target} PRIVATE "LINKER:--version-script=${map}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
  endif()
  if(NOT ARG_TEST)
    install(TARGETS ${target} LIBRARY DESTINATION ${AMP_INSTALL_MODULE_DIR})
  endif()
endfunction()
