/* The layouts of ABI 1.0 to 1.5 as released, on LP64 (64-bit Linux, macOS): where each field
 * of each struct is (offset, size), and how large each struct was in each minor (what a table
 * of that minor carries in struct_size). A module built against any of these minors reads
 * exactly these bytes, so they may never change: test_abi_frozen.cpp compares the header and
 * plugin-api/abi.json with them.
 *
 * Never edit a line. When a minor is released, append its new fields' O() lines and one Z()
 * line per struct for it (the test says which are missing). */
#ifndef AMP_TEST_ABI_FROZEN_LAYOUTS_H
#define AMP_TEST_ABI_FROZEN_LAYOUTS_H

/* The newest minor frozen here. */
#define AMP_ABI_FROZEN_MINOR 5

/* O(type, field, offset, size) */
#define AMP_ABI_FROZEN_OFFSETS(O) \
  O(amp_str, data, 0, 8) \
  O(amp_str, len, 8, 8) \
  O(amp_writer, host_data, 0, 8) \
  O(amp_writer, write, 8, 8) \
  O(amp_call_sink, struct_size, 0, 8) \
  O(amp_call_sink, user_data, 8, 8) \
  O(amp_call_sink, on_event, 16, 8) \
  O(amp_call_sink, on_finish, 24, 8) \
  O(amp_call_sink, on_delta, 32, 8) \
  O(amp_host_api, struct_size, 0, 8) \
  O(amp_host_api, abi_major, 8, 4) \
  O(amp_host_api, abi_minor, 12, 4) \
  O(amp_host_api, log, 16, 8) \
  O(amp_host_api, config_get, 24, 8) \
  O(amp_host_api, session_info, 32, 8) \
  O(amp_host_api, emit, 40, 8) \
  O(amp_host_api, hook_register, 48, 8) \
  O(amp_host_api, hook_unregister, 56, 8) \
  O(amp_host_api, capability_register, 64, 8) \
  O(amp_host_api, capability_get, 72, 8) \
  O(amp_host_api, channel_contribute, 80, 8) \
  O(amp_host_api, channel_collect, 88, 8) \
  O(amp_host_api, call_event, 96, 8) \
  O(amp_host_api, call_finish, 104, 8) \
  O(amp_host_api, call_cancel_state, 112, 8) \
  O(amp_host_api, providers_list, 120, 8) \
  O(amp_host_api, tools_list, 128, 8) \
  O(amp_host_api, provider_complete, 136, 8) \
  O(amp_host_api, tool_execute, 144, 8) \
  O(amp_host_api, call_cancel, 152, 8) \
  O(amp_host_api, context_add_message, 160, 8) \
  O(amp_host_api, context_get_messages, 168, 8) \
  O(amp_host_api, context_get_messages_for_request, 176, 8) \
  O(amp_host_api, context_set_messages, 184, 8) \
  O(amp_host_api, context_clear, 192, 8) \
  O(amp_host_api, request_approval, 200, 8) \
  O(amp_host_api, get_proc, 208, 8) \
  O(amp_provider_vtable, struct_size, 0, 8) \
  O(amp_provider_vtable, get_info, 8, 8) \
  O(amp_provider_vtable, list_models, 16, 8) \
  O(amp_provider_vtable, complete, 24, 8) \
  O(amp_provider_vtable, cancel, 32, 8) \
  O(amp_tool_vtable, struct_size, 0, 8) \
  O(amp_tool_vtable, list_tools, 8, 8) \
  O(amp_tool_vtable, execute, 16, 8) \
  O(amp_tool_vtable, cancel, 24, 8) \
  O(amp_orchestrator_vtable, struct_size, 0, 8) \
  O(amp_orchestrator_vtable, execute, 8, 8) \
  O(amp_orchestrator_vtable, cancel, 16, 8) \
  O(amp_context_vtable, struct_size, 0, 8) \
  O(amp_context_vtable, add_message, 8, 8) \
  O(amp_context_vtable, get_messages, 16, 8) \
  O(amp_context_vtable, get_messages_for_request, 24, 8) \
  O(amp_context_vtable, set_messages, 32, 8) \
  O(amp_context_vtable, clear, 40, 8) \
  O(amp_context_vtable, sessions_query, 48, 8) \
  O(amp_hook_vtable, struct_size, 0, 8) \
  O(amp_module_descriptor, struct_size, 0, 8) \
  O(amp_module_descriptor, abi_major, 8, 4) \
  O(amp_module_descriptor, abi_minor, 12, 4) \
  O(amp_module_descriptor, id, 16, 8) \
  O(amp_module_descriptor, version, 24, 8) \
  O(amp_module_descriptor, description, 32, 8) \
  O(amp_module_descriptor, kind, 40, 4) \
  O(amp_module_descriptor, create, 48, 8) \
  O(amp_module_descriptor, session_ready, 56, 8) \
  O(amp_module_descriptor, destroy, 64, 8) \
  O(amp_module_descriptor, kind_table, 72, 8) \
  O(amp_module_descriptor, min_host_minor, 80, 4) \
  O(amp_hook_delta, struct_size, 0, 8) \
  O(amp_hook_delta, block_index, 8, 4) \
  O(amp_hook_delta, kind, 12, 4) \
  O(amp_hook_delta, text, 16, 16)

/* Z(type, minor, size) */
#define AMP_ABI_FROZEN_SIZES(Z) \
  Z(amp_call_sink, 0, 32) \
  Z(amp_call_sink, 1, 32) \
  Z(amp_call_sink, 2, 40) \
  Z(amp_call_sink, 3, 40) \
  Z(amp_call_sink, 4, 40) \
  Z(amp_context_vtable, 0, 48) \
  Z(amp_context_vtable, 1, 48) \
  Z(amp_context_vtable, 2, 48) \
  Z(amp_context_vtable, 3, 48) \
  Z(amp_context_vtable, 4, 56) \
  Z(amp_hook_vtable, 0, 8) \
  Z(amp_hook_vtable, 1, 8) \
  Z(amp_hook_vtable, 2, 8) \
  Z(amp_hook_vtable, 3, 8) \
  Z(amp_hook_vtable, 4, 8) \
  Z(amp_host_api, 0, 200) \
  Z(amp_host_api, 1, 208) \
  Z(amp_host_api, 2, 216) \
  Z(amp_host_api, 3, 216) \
  Z(amp_host_api, 4, 216) \
  Z(amp_module_descriptor, 0, 80) \
  Z(amp_module_descriptor, 1, 80) \
  Z(amp_module_descriptor, 2, 88) \
  Z(amp_module_descriptor, 3, 88) \
  Z(amp_module_descriptor, 4, 88) \
  Z(amp_orchestrator_vtable, 0, 24) \
  Z(amp_orchestrator_vtable, 1, 24) \
  Z(amp_orchestrator_vtable, 2, 24) \
  Z(amp_orchestrator_vtable, 3, 24) \
  Z(amp_orchestrator_vtable, 4, 24) \
  Z(amp_provider_vtable, 0, 40) \
  Z(amp_provider_vtable, 1, 40) \
  Z(amp_provider_vtable, 2, 40) \
  Z(amp_provider_vtable, 3, 40) \
  Z(amp_provider_vtable, 4, 40) \
  Z(amp_str, 0, 16) \
  Z(amp_str, 1, 16) \
  Z(amp_str, 2, 16) \
  Z(amp_str, 3, 16) \
  Z(amp_str, 4, 16) \
  Z(amp_tool_vtable, 0, 32) \
  Z(amp_tool_vtable, 1, 32) \
  Z(amp_tool_vtable, 2, 32) \
  Z(amp_tool_vtable, 3, 32) \
  Z(amp_tool_vtable, 4, 32) \
  Z(amp_writer, 0, 16) \
  Z(amp_writer, 1, 16) \
  Z(amp_writer, 2, 16) \
  Z(amp_writer, 3, 16) \
  Z(amp_writer, 4, 16) \
  Z(amp_call_sink, 5, 40) \
  Z(amp_context_vtable, 5, 56) \
  Z(amp_hook_vtable, 5, 8) \
  Z(amp_host_api, 5, 216) \
  Z(amp_module_descriptor, 5, 88) \
  Z(amp_orchestrator_vtable, 5, 24) \
  Z(amp_provider_vtable, 5, 40) \
  Z(amp_str, 5, 16) \
  Z(amp_tool_vtable, 5, 32) \
  Z(amp_writer, 5, 16) \
  Z(amp_hook_delta, 5, 32)

#endif /* AMP_TEST_ABI_FROZEN_LAYOUTS_H */
