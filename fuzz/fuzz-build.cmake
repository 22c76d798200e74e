# Included by the top-level CMakeLists.txt when AMP_FUZZ=ON. Every library is compiled with
# libFuzzer coverage plus ASan and UBSan; the kernel and the modules are added EXCLUDE_FROM_ALL,
# so only what the fuzz targets link is built (no module .so, no host, no tests).
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "AMP_FUZZ=ON needs clang (CC=clang-15 CXX=clang++-15); see scripts/fuzz.sh")
endif()
set(AMP_FUZZ_SANITIZERS "-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer")
string(APPEND CMAKE_C_FLAGS " ${AMP_FUZZ_SANITIZERS}")
string(APPEND CMAKE_CXX_FLAGS " ${AMP_FUZZ_SANITIZERS}")
string(APPEND CMAKE_SHARED_LINKER_FLAGS " -fsanitize=address,undefined")
# -O1 -g1, as in the sanitizer trees: line tables are all a finding's stack needs, and the tree
# builds in a fraction of -O2 -g's time (CI builds it cold; issue 31).
set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O1 -g1 -DNDEBUG")
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 -g1 -DNDEBUG")
add_subdirectory(plugin-api)
add_subdirectory(kernel EXCLUDE_FROM_ALL)
add_subdirectory(libs EXCLUDE_FROM_ALL)
add_subdirectory(modules EXCLUDE_FROM_ALL)
add_subdirectory(fuzz)
