add_library(amp_doctest_main STATIC ${CMAKE_CURRENT_LIST_DIR}/doctest_main.cpp)
target_link_libraries(amp_doctest_main PUBLIC doctest::doctest)

function(amp_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  # Every suite gets the shared helpers (tests/support: processes, temp files, call recorders).
  target_link_libraries(${name} PRIVATE amp_doctest_main amp_test_support ${ARG_LIBS})
  target_compile_definitions(${name} PRIVATE
    AMP_TEST_MODULE_DIR="${AMP_TEST_MODULE_OUTPUT_DIR}"
    AMP_MODULE_DIR="${AMP_MODULE_OUTPUT_DIR}"
    AMP_VENDOR_FIXTURE_DIR="${AMP_VENDOR_FIXTURE_DIR}"
    AMP_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    AMP_BINARY_DIR="${PROJECT_BINARY_DIR}")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300)
endfunction()
