add_library(amp_doctest_main STATIC ${CMAKE_CURRENT_LIST_DIR}/doctest_main.cpp)
target_link_libraries(amp_doctest_main PUBLIC doctest::doctest)

# Sanitizer trees (AMP_SANITIZE, see the top CMakeLists.txt and scripts/test-sanitizers.sh):
# everything runs several times slower, so every ctest TIMEOUT is multiplied by
# AMP_TEST_TIMEOUT_FACTOR. A sanitizer tree labels the suites it runs (`asan`, `tsan`) and
# builds them, with everything they load or start (modules, test modules, the amplifier binary,
# amplifier-module-host), through the target amp_sanitizer_tests.
# ASan + UBSan run every suite of the normal build, the process suites (host, init, terminal,
# validate, install_sdk, the providers, modules, context, tool-bash, hooks-*, isolation,
# sessions) included; AMP_ASAN_EXCLUDE, empty, would name a suite left out, and why. TSan runs
# the threaded suites of AMP_TSAN_TESTS.
set(AMP_TEST_TIMEOUT_FACTOR 1)
set(AMP_SANITIZER_LABEL "")
set(AMP_TSAN_TESTS test_kernel test_transport test_cancellation test_hooks test_loop_streaming
    test_many_sessions test_c_tool test_abi test_serve test_steering test_recipes)
set(AMP_ASAN_EXCLUDE "")
if(AMP_SANITIZE STREQUAL "thread")
  set(AMP_TEST_TIMEOUT_FACTOR 4)
  set(AMP_SANITIZER_LABEL tsan)
  add_custom_target(amp_sanitizer_tests)
elseif(AMP_SANITIZE)
  set(AMP_TEST_TIMEOUT_FACTOR 3)
  set(AMP_SANITIZER_LABEL asan)
  add_custom_target(amp_sanitizer_tests)
endif()

# amp_test_sanitizer_properties(<test> <timeout seconds>): the TIMEOUT, scaled in a sanitizer
# tree, and the sanitizer label where the test runs in that tree. LABELS are appended to.
function(amp_test_sanitizer_properties name seconds)
  math(EXPR timeout "${seconds} * ${AMP_TEST_TIMEOUT_FACTOR}")
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout})
  set(runs FALSE)
  if(AMP_SANITIZER_LABEL STREQUAL "tsan" AND name IN_LIST AMP_TSAN_TESTS)
    set(runs TRUE)
  elseif(AMP_SANITIZER_LABEL STREQUAL "asan" AND NOT name IN_LIST AMP_ASAN_EXCLUDE)
    set(runs TRUE)
  endif()
  if(runs)
    get_test_property(${name} LABELS labels)
    if(NOT AMP_SANITIZER_LABEL IN_LIST labels)
      set_property(TEST ${name} APPEND PROPERTY LABELS ${AMP_SANITIZER_LABEL})
    endif()
    # A test that is not a doctest executable (install_sdk) adds what it needs itself.
    if(TARGET ${name})
      add_dependencies(amp_sanitizer_tests ${name})
    endif()
  endif()
endfunction()

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
  # Longest first under `ctest -j` (AMP_TEST_COST_<name>, tests/CMakeLists.txt).
  if(DEFINED AMP_TEST_COST_${name})
    set_property(TEST ${name} PROPERTY COST ${AMP_TEST_COST_${name}})
  endif()
  amp_test_sanitizer_properties(${name} 300)
endfunction()
