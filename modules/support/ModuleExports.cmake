# amp_module_exports_only_entry(<target>): links module <target> with module-exports.map, so
# its shared library exports amplifier_module_entry and nothing else (see the map for why
# hidden visibility is not enough). Include this file from a module's CMakeLists.txt: the
# sibling folders are added in alphabetical order, so a function defined by support/'s own
# CMakeLists.txt would not exist yet when most modules are configured.
include_guard(GLOBAL)

function(amp_module_exports_only_entry target)
  set(map ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/module-exports.map)
  target_link_options(${target} PRIVATE "LINKER:--version-script=${map}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
endfunction()
