# amp_add_units(): adds every sub-folder of the current folder that has a CMakeLists.txt (one
# module, test suite or benchmark each). AMP_EXCLUDE_UNITS (a list of folder names) leaves
# units out, e.g. while one is half-written.
function(amp_add_units)
  file(GLOB children LIST_DIRECTORIES true CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*)
  foreach(child IN LISTS children)
    get_filename_component(unit ${child} NAME)
    if(IS_DIRECTORY ${child} AND EXISTS ${child}/CMakeLists.txt AND NOT unit IN_LIST AMP_EXCLUDE_UNITS)
      add_subdirectory(${child})
    endif()
  endforeach()
endfunction()
