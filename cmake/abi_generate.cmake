# Writes amplifier_abi_description.h, the ABI as X-macros, from plugin-api/abi.json.
#   cmake -DINPUT=plugin-api/abi.json -DOUTPUT=.../amplifier_abi_description.h -P abi_generate.cmake
# Run by the build (kernel/CMakeLists.txt) whenever abi.json or this script changes. The
# output is a build product, never checked in: what compiles is always what the file says.
# A malformed description stops the build with the member it could not read.
if(NOT INPUT OR NOT OUTPUT)
  message(FATAL_ERROR "abi_generate.cmake: pass -DINPUT=abi.json -DOUTPUT=header")
endif()
file(READ "${INPUT}" abi)

# json_get(<out> <path...>): the value at path, or a fatal error naming the path.
macro(json_get out)
  string(JSON ${out} ERROR_VARIABLE json_error GET "${abi}" ${ARGN})
  if(json_error)
    message(FATAL_ERROR "${INPUT}: cannot read ${ARGN}: ${json_error}")
  endif()
endmacro()
# json_optional(<out> <default> <path...>): the value at path, or default when absent.
macro(json_optional out default)
  string(JSON ${out} ERROR_VARIABLE json_error GET "${abi}" ${ARGN})
  if(json_error)
    set(${out} "${default}")
  endif()
endmacro()
macro(json_length out)
  string(JSON ${out} ERROR_VARIABLE json_error LENGTH "${abi}" ${ARGN})
  if(json_error)
    message(FATAL_ERROR "${INPUT}: cannot read ${ARGN}: ${json_error}")
  endif()
endmacro()
function(check_token value what)
  if(NOT value MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${INPUT}: ${what} '${value}' is not a C identifier")
  endif()
endfunction()
function(check_wire value what)
  if(NOT value MATCHES "^(request|notify|local)$")
    message(FATAL_ERROR "${INPUT}: ${what}: wire '${value}' is not request, notify or local")
  endif()
endfunction()

# The description's identity: the module process says it in its hello, and the host refuses a
# helper built from another description (its wire codes would differ).
string(SHA256 digest "${abi}")
string(SUBSTRING "${digest}" 0 16 digest)

json_get(major major)
json_get(minor minor)

set(types "")
foreach(list IN ITEMS enums scalars)
  json_length(count ${list})
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    json_get(name ${list} ${i})
    check_token("${name}" "${list}[${i}]")
    string(APPEND types " \\\n  S(${name})")
  endforeach()
endforeach()

set(fields "")
set(pairs "")
set(ends "")
set(starts "")
set(host_functions "")
json_length(struct_count structs)
math(EXPR last_struct "${struct_count} - 1")
foreach(s RANGE ${last_struct})
  json_get(struct structs ${s} name)
  check_token("${struct}" "structs[${s}].name")
  string(APPEND types " \\\n  S(${struct})")
  json_length(field_count structs ${s} fields)
  math(EXPR last_field "${field_count} - 1")
  set(previous "")
  set(previous_since 0)
  foreach(f RANGE ${last_field})
    json_get(field structs ${s} fields ${f} name)
    check_token("${field}" "${struct}.fields[${f}]")
    json_optional(since 0 structs ${s} fields ${f} since)
    if(since LESS previous_since OR since GREATER minor)
      message(FATAL_ERROR "${INPUT}: ${struct}.${field} says since ${since}: a field comes "
                          "after the ones it follows and no later than minor ${minor}")
    endif()
    set(previous_since ${since})
    string(APPEND fields " \\\n  X(${struct}, ${field}, ${since})")
    if(previous)
      string(APPEND pairs " \\\n  P(${struct}, ${previous}, ${field})")
    else()
      string(APPEND starts " \\\n  F(${struct}, ${field})")
    endif()
    set(previous ${field})
    json_optional(is_function OFF structs ${s} fields ${f} host_function)
    if(is_function)
      json_get(wire structs ${s} fields ${f} wire)
      check_wire("${wire}" "${struct}.${field}")
      string(APPEND host_functions " \\\n  H(${field}, ${since}, ${wire})")
    endif()
  endforeach()
  string(APPEND ends " \\\n  L(${struct}, ${previous})")
endforeach()

set(procs "")
json_length(proc_count procs)
math(EXPR last_proc "${proc_count} - 1")
foreach(p RANGE ${last_proc})
  json_get(name procs ${p} name)
  json_get(macro procs ${p} macro)
  json_get(type procs ${p} type)
  json_get(since procs ${p} since)
  json_get(wire procs ${p} wire)
  check_token("${name}" "procs[${p}].name")
  check_token("${macro}" "procs[${p}].macro")
  check_token("${type}" "procs[${p}].type")
  check_wire("${wire}" "procs[${p}] (${name})")
  string(APPEND procs " \\\n  P(${name}, ${macro}, ${type}, ${since}, ${wire})")
endforeach()

set(text "/* Generated from plugin-api/abi.json by cmake/abi_generate.cmake: do not edit.
 * The ABI of amplifier_plugin.h as X-macros; see abi.json for what each list means. */
#ifndef AMPLIFIER_ABI_DESCRIPTION_H
#define AMPLIFIER_ABI_DESCRIPTION_H

#define AMP_ABI_DESCRIBED_MAJOR ${major}
#define AMP_ABI_DESCRIBED_MINOR ${minor}
/* The first 64 bits of abi.json's SHA-256. */
#define AMP_ABI_DESCRIPTION_DIGEST 0x${digest}ULL

/* S(type): every type whose size is part of the ABI. */
#define AMP_ABI_TYPES(S)${types}

/* X(type, field, since): every field of every struct, in declaration order. */
#define AMP_ABI_FIELDS(X)${fields}

/* P(type, field, next): each field and the one declared right after it. */
#define AMP_ABI_FIELD_PAIRS(P)${pairs}

/* F(type, field): each struct's first field. */
#define AMP_ABI_STRUCT_STARTS(F)${starts}

/* L(type, field): each struct's last field. */
#define AMP_ABI_STRUCT_ENDS(L)${ends}

/* H(name, since, wire): the functions of amp_host_api, in order (wire: request | notify |
 * local, how a module in its own process reaches it). */
#define AMP_ABI_HOST_FUNCTIONS(H)${host_functions}

/* P(name, NAME_MACRO, fn_type, since, wire): the host functions reached through get_proc. */
#define AMP_ABI_HOST_PROCS(P)${procs}

#endif /* AMPLIFIER_ABI_DESCRIPTION_H */
")
# Written only when it changed, so an unchanged description rebuilds nothing.
file(WRITE "${OUTPUT}.tmp" "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
