/* The ABI structures whose layout the C and C++ compilers must agree on, as X-macros, so
 * abi_header_c11.c (compiled as strict C11) and test_abi_header.cpp list the same fields.
 * Each X(type, field) names one member; S(type) names one type whose size matters. */
#ifndef AMP_TEST_ABI_LAYOUT_H
#define AMP_TEST_ABI_LAYOUT_H

#include "amplifier_plugin.h"

#define AMP_ABI_TYPES(S)                                                                      \
  S(amp_str) S(amp_writer) S(amp_call_sink) S(amp_host_api) S(amp_provider_vtable)            \
  S(amp_tool_vtable) S(amp_orchestrator_vtable) S(amp_context_vtable) S(amp_hook_vtable)      \
  S(amp_module_descriptor) S(amp_status) S(amp_module_kind) S(amp_cancel_level)               \
  S(amp_log_level) S(amp_call_id) S(amp_delta_kind)

#define AMP_ABI_FIELDS(X)                                                                     \
  X(amp_str, data) X(amp_str, len)                                                            \
  X(amp_writer, host_data) X(amp_writer, write)                                               \
  X(amp_call_sink, struct_size) X(amp_call_sink, user_data) X(amp_call_sink, on_event)        \
  X(amp_call_sink, on_finish) X(amp_call_sink, on_delta)                                     \
  X(amp_host_api, struct_size) X(amp_host_api, abi_major) X(amp_host_api, abi_minor)          \
  X(amp_host_api, log) X(amp_host_api, config_get) X(amp_host_api, session_info)              \
  X(amp_host_api, emit) X(amp_host_api, hook_register) X(amp_host_api, hook_unregister)       \
  X(amp_host_api, capability_register) X(amp_host_api, capability_get)                        \
  X(amp_host_api, channel_contribute) X(amp_host_api, channel_collect)                        \
  X(amp_host_api, call_event) X(amp_host_api, call_finish) X(amp_host_api, call_cancel_state) \
  X(amp_host_api, providers_list) X(amp_host_api, tools_list)                                 \
  X(amp_host_api, provider_complete) X(amp_host_api, tool_execute)                            \
  X(amp_host_api, call_cancel) X(amp_host_api, context_add_message)                           \
  X(amp_host_api, context_get_messages) X(amp_host_api, context_get_messages_for_request)     \
  X(amp_host_api, context_set_messages) X(amp_host_api, context_clear)                        \
  X(amp_host_api, request_approval) X(amp_host_api, get_proc)                                 \
  X(amp_provider_vtable, get_info) X(amp_provider_vtable, list_models)                        \
  X(amp_provider_vtable, complete) X(amp_provider_vtable, cancel)                             \
  X(amp_tool_vtable, list_tools) X(amp_tool_vtable, execute) X(amp_tool_vtable, cancel)       \
  X(amp_orchestrator_vtable, execute) X(amp_orchestrator_vtable, cancel)                      \
  X(amp_context_vtable, add_message) X(amp_context_vtable, get_messages)                      \
  X(amp_context_vtable, get_messages_for_request) X(amp_context_vtable, set_messages)         \
  X(amp_context_vtable, clear)                                                                \
  X(amp_module_descriptor, struct_size) X(amp_module_descriptor, abi_major)                   \
  X(amp_module_descriptor, abi_minor) X(amp_module_descriptor, id)                            \
  X(amp_module_descriptor, version) X(amp_module_descriptor, description)                     \
  X(amp_module_descriptor, kind) X(amp_module_descriptor, create)                             \
  X(amp_module_descriptor, session_ready) X(amp_module_descriptor, destroy)                   \
  X(amp_module_descriptor, kind_table) X(amp_module_descriptor, min_host_minor)

/* One measured quantity: "sizeof(T)" or "T.field" with its offset. */
typedef struct amp_test_layout_entry {
  const char *name;
  size_t value;
} amp_test_layout_entry;

#ifdef __cplusplus
extern "C" {
#endif
/* Implemented in abi_header_c11.c: the layout as the C compiler sees it. */
const amp_test_layout_entry *amp_test_c_layout(size_t *count);
#ifdef __cplusplus
}
#endif

#endif /* AMP_TEST_ABI_LAYOUT_H */
