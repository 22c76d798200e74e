# The layers of the code base, checked: every #include of a header that belongs to another
# part of the tree must name a part this one may use. Run by ctest (test_layers):
#   cmake -DROOT=<source dir> -P cmake/check_layers.cmake
# It fails listing each include that crosses a layer the wrong way, with the rule it breaks.
# The table below is the one in libs/README.md; change both together.
#
# A part: its name, the folders whose sources it owns, and the include roots it offers others
# (a header is found by trying the include path under each root).
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  message(FATAL_ERROR "check_layers.cmake: pass -DROOT=<source dir>")
endif()

set(parts plugin-api model process base transport provider-kit openai-responses cost-core context-core
          orchestrator-core todo-core kernel host-runtime host-serve host-validate host-init
          host-cli modules)
set(plugin-api_sources plugin-api)
set(plugin-api_roots plugin-api)
set(model_sources kernel/model)
set(model_roots kernel/model/include)
set(process_sources libs/process)
set(process_roots libs/process/include)
set(base_sources libs/base)
set(base_roots libs/base/include)
set(transport_sources libs/transport)
set(transport_roots libs/transport/include)
set(provider-kit_sources libs/provider-kit)
set(provider-kit_roots libs/provider-kit/include)
set(openai-responses_sources libs/openai-responses)
set(openai-responses_roots libs/openai-responses/src)
set(cost-core_sources libs/cores/cost)
set(cost-core_roots libs/cores/cost/include)
set(context-core_sources libs/cores/context)
set(context-core_roots libs/cores/context/include)
set(orchestrator-core_sources libs/cores/orchestrator)
set(orchestrator-core_roots libs/cores/orchestrator/include)
set(todo-core_sources libs/cores/todo)
set(todo-core_roots libs/cores/todo/include)
set(kernel_sources kernel/include kernel/src kernel/module-host)
set(kernel_roots kernel/include kernel/src)
set(host-runtime_sources host/runtime)
set(host-runtime_roots host/runtime)
set(host-serve_sources host/serve)
set(host-serve_roots host/serve)
set(host-validate_sources host/validate)
set(host-validate_roots host/validate)
set(host-init_sources host/init)
set(host-init_roots host/init)
set(host-cli_sources host/src)
set(host-cli_roots host/src)
set(modules_sources modules)
set(modules_roots "")

# Who may use whom (besides itself). Lower layers never reach up: the libraries and modules
# never see the kernel or the host (a module reaches the host through the C ABI only); the
# kernel never sees a module's code or the host.
set(plugin-api_may "")
set(model_may plugin-api)
set(process_may "")
set(base_may plugin-api model)
set(transport_may model)
set(provider-kit_may plugin-api model base transport)
set(openai-responses_may plugin-api model base transport provider-kit)
set(context-core_may plugin-api model base)
set(cost-core_may "")
set(orchestrator-core_may plugin-api model base cost-core)
set(todo-core_may "")
set(kernel_may plugin-api model process)
# The host: a runtime (plan to session) the others build on, and a command line on top that
# only parses arguments and calls them. serve, validate and init never see the command line
# (CLI11) nor each other.
set(host-runtime_may plugin-api model process base cost-core kernel)
set(host-serve_may plugin-api model process base cost-core kernel host-runtime)
set(host-validate_may plugin-api model process base kernel host-runtime)
set(host-init_may plugin-api model process base kernel host-runtime)
set(host-cli_may plugin-api model process base cost-core kernel host-runtime host-serve host-validate host-init)
set(modules_may plugin-api model process base transport provider-kit openai-responses cost-core
                context-core orchestrator-core todo-core)

# Headers a part may not include (a prefix of the include path): only the command line parses
# arguments (CLI/), and only the process library starts processes (spawn.h: posix_spawn), so
# every child gets the same descriptors, group and signals.
foreach(part IN LISTS parts)
  set(${part}_forbidden "")
  if(NOT part STREQUAL "host-cli")
    list(APPEND ${part}_forbidden "CLI/")
  endif()
  if(NOT part STREQUAL "process")
    list(APPEND ${part}_forbidden "spawn.h")
  endif()
endforeach()

# Which part offers `header` (an include path), or "" for the system and third parties. A path
# with ".." is resolved against the including file's folder and belongs to the part whose
# source folders hold the file it names: "../kernel/src/x.hpp" is the kernel's.
function(owner_of header including_dir out)
  if(header MATCHES "\\.\\.")
    cmake_path(ABSOLUTE_PATH header BASE_DIRECTORY "${including_dir}" NORMALIZE
               OUTPUT_VARIABLE resolved)
    foreach(part IN LISTS parts)
      foreach(folder IN LISTS ${part}_sources)
        set(folder_path "${ROOT}/${folder}")
        cmake_path(IS_PREFIX folder_path "${resolved}" NORMALIZE inside)
        if(inside)
          set(${out} ${part} PARENT_SCOPE)
          return()
        endif()
      endforeach()
    endforeach()
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  foreach(part IN LISTS parts)
    foreach(root IN LISTS ${part}_roots)
      if(EXISTS "${ROOT}/${root}/${header}" AND NOT IS_DIRECTORY "${ROOT}/${root}/${header}")
        set(${out} ${part} PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# A folder the table names and the tree lacks is a table out of date, not a pass.
foreach(part IN LISTS parts)
  foreach(folder IN LISTS ${part}_sources ${part}_roots)
    if(NOT IS_DIRECTORY "${ROOT}/${folder}")
      message(FATAL_ERROR "check_layers.cmake: ${part}'s folder ${folder} does not exist")
    endif()
  endforeach()
endforeach()

set(violations "")
set(checked 0)
foreach(part IN LISTS parts)
  foreach(folder IN LISTS ${part}_sources)
    file(GLOB_RECURSE files "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.hpp"
         "${ROOT}/${folder}/*.h" "${ROOT}/${folder}/*.c")
    foreach(file IN LISTS files)
      math(EXPR checked "${checked} + 1")
      file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
      foreach(line IN LISTS lines)
        string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">].*" "\\1" header
                             "${line}")
        foreach(prefix IN LISTS ${part}_forbidden)
          string(FIND "${header}" "${prefix}" at)
          if(at EQUAL 0)
            file(RELATIVE_PATH where "${ROOT}" "${file}")
            string(APPEND violations "  ${where} includes ${header}: ${part} may not use ${prefix}\n")
          endif()
        endforeach()
        get_filename_component(including_dir "${file}" DIRECTORY)
        owner_of("${header}" "${including_dir}" owner)
        if(owner AND NOT owner STREQUAL part AND NOT owner IN_LIST ${part}_may)
          file(RELATIVE_PATH where "${ROOT}" "${file}")
          string(REPLACE ";" ", " allowed "${${part}_may}")
          string(APPEND violations
                 "  ${where} includes ${header}, which is ${owner}'s: ${part} may use only "
                 "[${allowed}]\n")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "Includes that cross the layers (libs/README.md):\n${violations}")
endif()
message(STATUS "layers: ${checked} files, every include within its layer")
