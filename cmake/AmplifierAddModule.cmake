# amplifier_add_module(<id> SOURCES ... [LIBS ...] [OUTPUT_DIRECTORY dir] [TARGET name]
#                      [EXPORT_ALL])
#
# Builds module <id> as `<id>.so`, exactly as the modules shipped with amplifier are built:
#   - a MODULE library (dlopen'ed, never linked against) named <id>.so, no "lib" prefix;
#   - hidden visibility, and a linker version script that exports amplifier_module_entry and
#     nothing else, so static libraries linked in stay private to the module;
#   - --no-undefined: every symbol resolves from the module's own libraries at link time, never
#     from the host process at load time.
# C sources get Amplifier::plugin_api (the C header); C++ sources also get Amplifier::sdk
# (the header-only C++ SDK, C++20). EXPORT_ALL skips the version script (only for test modules
# whose fault is their exports). The target is named amplifier_module_<id> unless TARGET says.
#
# This file is shared by the source tree (cmake/) and the installed package
# (lib/cmake/Amplifier/), so in-tree and third-party modules are built the same way.
# It needs AMPLIFIER_MODULE_EXPORTS_MAP (the version script) and the Amplifier:: targets.
function(amplifier_add_module id)
  cmake_parse_arguments(ARG "EXPORT_ALL" "OUTPUT_DIRECTORY;TARGET" "SOURCES;LIBS" ${ARGN})
  if(NOT id MATCHES "^[a-z0-9][a-z0-9._-]*$" OR id MATCHES "\\.\\.")
    message(FATAL_ERROR "amplifier_add_module: '${id}' is not a valid module id "
                        "(lower-case letters, digits, '-', '_', '.'; no '..')")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "amplifier_add_module(${id}): no SOURCES")
  endif()
  set(target amplifier_module_${id})
  if(ARG_TARGET)
    set(target ${ARG_TARGET})
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${id}
    PREFIX ""
    SUFFIX ".so"
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  endif()
  set(api Amplifier::plugin_api)
  foreach(source IN LISTS ARG_SOURCES)
    if(source MATCHES "\\.(cpp|cc|cxx|C)$")
      set(api Amplifier::sdk)
    endif()
  endforeach()
  target_link_libraries(${target} PRIVATE ${api} ${ARG_LIBS})
  # In a sanitizer build (AMP_SANITIZE, in-tree only) g++ links the sanitizer runtime into the
  # module too, so --no-undefined still holds; clang does not (the runtime's symbols come from
  # the sanitized executable at load time), so there, and only there, it is left out.
  if(AMP_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_link_options(${target} PRIVATE -Wl,--exclude-libs,ALL)
  else()
    target_link_options(${target} PRIVATE -Wl,--exclude-libs,ALL -Wl,--no-undefined)
  endif()
  if(NOT ARG_EXPORT_ALL)
    target_link_options(${target} PRIVATE
      "LINKER:--version-script=${AMPLIFIER_MODULE_EXPORTS_MAP}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${AMPLIFIER_MODULE_EXPORTS_MAP})
  endif()
endfunction()
