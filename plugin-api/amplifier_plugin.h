/*
 * amplifier_plugin.h: the stable C ABI between the amplifier host and its modules.
 *
 * This is the product's most important contract. Third parties compile against it with
 * other compilers and in other languages, so it is pure C11 and nothing C++ ever crosses it.
 *
 * Naming families (after Envoy's dynamic-module ABI):
 *   amp_*            types, constants and enums;
 *   amp_*_vtable     tables of functions a MODULE implements and the host calls;
 *   amp_host_api     the table of functions the HOST implements and modules call.
 *
 * Rules that hold for every function unless its comment says otherwise:
 *   - Strings are UTF-8 with an explicit length (amp_str). They are not NUL-terminated unless
 *     documented. Payloads are JSON documents in the unified message format (see README).
 *   - OWNERSHIP: data passed into a call is BORROWED for the duration of that call only. The
 *     receiver copies what it keeps. Neither side ever frees memory allocated by the other.
 *     Results travel back through an amp_writer, which the host owns and which copies.
 *   - Tables start with `struct_size` and only ever grow at the end. A reader must check
 *     `struct_size` before touching a field added in a later minor version (AMP_HAS_FIELD).
 *   - Functions never unwind: a C++ module must catch every exception at the boundary (the
 *     C++ SDK in amplifier_sdk.hpp does it for you).
 *
 * Versioning: the host loads a module when the module's ABI major equals the host's and the
 * module's ABI minor is <= the host's. A minor release only appends fields to tables.
 */
#ifndef AMPLIFIER_PLUGIN_H
#define AMPLIFIER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AMP_ABI_VERSION_MAJOR 1
#define AMP_ABI_VERSION_MINOR 1

/* The single symbol every module exports. */
#define AMP_ENTRY_SYMBOL "amplifier_module_entry"

#if defined(_WIN32)
#define AMP_EXPORT __declspec(dllexport)
#else
#define AMP_EXPORT __attribute__((visibility("default")))
#endif

/* True when a table of `struct_size` bytes is large enough to hold `field`. */
#define AMP_HAS_FIELD(table_ptr, type, field)                                                  \
  ((table_ptr)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* ------------------------------------------------------------------------------------------ */
/* Basic types                                                                                */
/* ------------------------------------------------------------------------------------------ */

/* A borrowed UTF-8 view. OWNERSHIP: owned by the caller, valid for the current call only. */
typedef struct amp_str {
  const char *data;
  size_t len;
} amp_str;

/* Result codes. Details of a failure travel as JSON (see amp_writer and call errors). */
typedef enum amp_status {
  AMP_OK = 0,
  AMP_ERROR = 1,             /* generic failure; details in the error JSON */
  AMP_NOT_FOUND = 2,         /* no such provider, tool, capability, config key */
  AMP_INVALID_ARGUMENT = 3,  /* malformed JSON or a payload that fails validation */
  AMP_UNSUPPORTED = 4,       /* the function or kind is not offered by this peer */
  AMP_CANCELLED = 5,         /* the operation was cancelled */
  AMP_DENIED = 6,            /* a hook denied the operation */
  AMP_STATUS_FORCE_32BIT = 0x7fffffff
} amp_status;

typedef enum amp_module_kind {
  AMP_KIND_PROVIDER = 1,
  AMP_KIND_ORCHESTRATOR = 2,
  AMP_KIND_CONTEXT = 3,
  AMP_KIND_TOOL = 4,
  AMP_KIND_HOOK = 5,
  AMP_KIND_FORCE_32BIT = 0x7fffffff
} amp_module_kind;

/* Cancellation levels. Graceful: finish the running work, start nothing new.
 * Immediate: abort as soon as possible (close sockets, kill processes). */
typedef enum amp_cancel_level {
  AMP_CANCEL_NONE = 0,
  AMP_CANCEL_GRACEFUL = 1,
  AMP_CANCEL_IMMEDIATE = 2,
  AMP_CANCEL_FORCE_32BIT = 0x7fffffff
} amp_cancel_level;

typedef enum amp_log_level {
  AMP_LOG_DEBUG = 0,
  AMP_LOG_INFO = 1,
  AMP_LOG_WARNING = 2,
  AMP_LOG_ERROR = 3,
  AMP_LOG_FORCE_32BIT = 0x7fffffff
} amp_log_level;

/* Identifies one asynchronous operation (a provider completion, a tool execution, an
 * orchestrator turn). Assigned by the host, unique for the life of the process, never reused.
 * An id, not a pointer: a module that reports on a finished call cannot touch freed memory;
 * the host recognises the stale id, logs the protocol violation and ignores it. */
typedef uint64_t amp_call_id;

/* Opaque host context of one mounted module instance. OWNERSHIP: host-owned; valid from the
 * `create` call that receives it until `destroy` returns for that instance. */
typedef struct amp_host amp_host;

/* A host-owned output: the module appends bytes, the host copies them at once.
 * OWNERSHIP: host-owned, valid for the duration of the call that passed it.
 * THREADS: only from the thread running that call. May be NULL where documented. */
typedef struct amp_writer {
  void *host_data;
  void (*write)(struct amp_writer *self, const char *data, size_t len);
} amp_writer;

/* ------------------------------------------------------------------------------------------ */
/* Asynchronous calls                                                                         */
/*                                                                                            */
/* An asynchronous function returns at once. The module then reports through the host with   */
/* amp_host_api.call_event (zero or more stream events) and exactly one amp_host_api.         */
/* call_finish (the terminal event), from any thread, possibly before the starting function   */
/* returns. A cancelled call still ends with call_finish (status AMP_CANCELLED).              */
/*                                                                                            */
/* Stream events are JSON objects with a "type":                                              */
/*   {"type":"content_block_start","index":N,"block":{...partial block, e.g. {"type":"text"}}}*/
/*   {"type":"content_block_delta","index":N,"delta":{"type":"text","text":"..."}}            */
/*       delta types: text{text}, thinking{thinking}, signature{signature},                   */
/*                    tool_input{partial_json}, redacted_thinking{data}, reasoning{...}       */
/*   {"type":"content_block_end","index":N,"block":{...complete unified block...}}            */
/*   {"type":"usage","usage":{...Usage...}}                                                   */
/*   {"type":"progress", ...}  (tools; free-form)                                             */
/* Terminal payloads: AMP_OK with the result (ChatResponse, ToolResult, turn result);         */
/* otherwise an error object {"kind","message","retryable","status_code","retry_after",...}.  */
/* ------------------------------------------------------------------------------------------ */

/* Callbacks through which the host delivers the events of a call that a module started (an
 * orchestrator calling a provider or a tool).
 * OWNERSHIP: `user_data` stays owned by the caller and must remain valid until on_finish has
 * returned. Payload views are borrowed for the callback only.
 * THREADS: callbacks may run on any thread (the callee module's own threads), concurrently
 * for different calls, but never concurrently for the same call; on_finish comes last, once. */
typedef struct amp_call_sink {
  size_t struct_size;
  void *user_data;
  void (*on_event)(void *user_data, amp_call_id call, amp_str event_json);
  void (*on_finish)(void *user_data, amp_call_id call, amp_status status, amp_str payload_json);
} amp_call_sink;

/* A hook handler registered by a module.
 * `event` and `data_json` are borrowed for the call. Write a HookResult JSON object
 * ({"action":"continue"|"deny"|"modify"|"inject_context"|"ask_user", ...}) into `result`, or
 * write nothing for "continue". Returning non-AMP_OK marks the handler as failed: the host
 * logs it and skips it.
 * THREADS: runs on the thread that emitted the event; may run concurrently for different
 * emits, so the handler must be thread-safe. */
typedef amp_status (*amp_hook_fn)(void *user_data, amp_str event, amp_str data_json,
                                  amp_writer *result);

/* A contributor to a contribution channel: writes one JSON value into `out`.
 * THREADS: runs on the thread that collects the channel. */
typedef amp_status (*amp_contributor_fn)(void *user_data, amp_writer *out);

/* ------------------------------------------------------------------------------------------ */
/* Functions the host offers to modules                                                       */
/*                                                                                            */
/* OWNERSHIP: the table itself is host-owned and static: valid for as long as the module is   */
/* loaded. THREADS: every function may be called from any thread unless noted.                */
/* Every function takes the caller's `amp_host *` (from `create`).                            */
/* ------------------------------------------------------------------------------------------ */
typedef struct amp_host_api {
  size_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;

  /* --- Logging and configuration ------------------------------------------------------ */

  /* Writes one log line attributed to the module. `message` borrowed. */
  void (*log)(amp_host *host, amp_log_level level, amp_str message);

  /* Writes the JSON value at top-level key `key` of the module's config into `out`; an empty
   * key writes the whole config object. AMP_NOT_FOUND when the key is absent. */
  amp_status (*config_get)(amp_host *host, amp_str key, amp_writer *out);

  /* Writes {"session_id","parent_id"} of the session the instance is mounted in. */
  amp_status (*session_info)(amp_host *host, amp_writer *out);

  /* --- Events and hooks ---------------------------------------------------------------- */

  /* Emits `event` with JSON object `data_json` through the hook registry (the host adds
   * session_id, parent_id and timestamp) and writes the combined HookResult JSON into
   * `result` (may be NULL). Returns AMP_INVALID_ARGUMENT when data_json is not a JSON object.
   * Handlers run synchronously on the calling thread before this returns. */
  amp_status (*emit)(amp_host *host, amp_str event, amp_str data_json, amp_writer *result);

  /* Registers `handler` for `event` ("*" for every event). Lower priority runs first; equal
   * priorities keep registration order. `name` identifies it for hook_unregister.
   * OWNERSHIP: `user_data` stays owned by the module and must remain valid until the handler
   * is unregistered; the host unregisters every handler of an instance before its destroy. */
  amp_status (*hook_register)(amp_host *host, amp_str event, int32_t priority, amp_str name,
                              amp_hook_fn handler, void *user_data);

  /* Unregisters every handler this instance registered under `name`. Blocks until no
   * emit is running the handler, so user_data may be freed afterwards. Must not be called
   * from inside the handler being unregistered. */
  amp_status (*hook_unregister)(amp_host *host, amp_str name);

  /* --- Capabilities and contribution channels ------------------------------------------ */

  /* Registers (or replaces) capability `name` with JSON `value_json` (copied). */
  amp_status (*capability_register)(amp_host *host, amp_str name, amp_str value_json);

  /* Writes the JSON value of capability `name` into `out`; AMP_NOT_FOUND if absent. */
  amp_status (*capability_get)(amp_host *host, amp_str name, amp_writer *out);

  /* Adds a contributor to `channel` under `name`. OWNERSHIP as for hook_register; removed
   * automatically when the instance is destroyed. */
  amp_status (*channel_contribute)(amp_host *host, amp_str channel, amp_str name,
                                   amp_contributor_fn contributor, void *user_data);

  /* Writes a JSON array [{"name":..., "value":...}] of every contribution to `channel`, in
   * registration order; failing contributors are logged and skipped. */
  amp_status (*channel_collect)(amp_host *host, amp_str channel, amp_writer *out);

  /* --- Asynchronous call reporting (modules that serve calls) --------------------------- */

  /* Reports one stream event for `call`. Ignored (and logged as a protocol violation) when
   * `call` is unknown or already finished. `event_json` borrowed. */
  void (*call_event)(amp_host *host, amp_call_id call, amp_str event_json);

  /* Reports the terminal event of `call`. Exactly once per call; a second finish is ignored
   * and logged. `payload_json` borrowed. After it returns the module must not report on
   * `call` again. */
  void (*call_finish)(amp_host *host, amp_call_id call, amp_status status,
                      amp_str payload_json);

  /* Returns the cancellation level in force for `call` (its own and its session's, whichever
   * is higher). Cheap; meant to be polled between chunks. */
  amp_cancel_level (*call_cancel_state)(amp_host *host, amp_call_id call);

  /* --- Orchestration (for orchestrators; other kinds may use them too) ------------------ */

  /* Writes a JSON array of mounted providers: [{"name","module","priority","info"}]. */
  amp_status (*providers_list)(amp_host *host, amp_writer *out);

  /* Writes a JSON array of every mounted tool's ToolSpec {name, description, parameters}. */
  amp_status (*tools_list)(amp_host *host, amp_writer *out);

  /* Starts a completion of ChatRequest `request_json` on provider `provider`. Events and the
   * terminal result arrive through `sink` (copied by the host; its user_data must outlive
   * on_finish). On AMP_OK `*out_call` holds the call id and on_finish WILL be called exactly
   * once, possibly before this returns. On any other status no callback is made. */
  amp_status (*provider_complete)(amp_host *host, amp_str provider, amp_str request_json,
                                  const amp_call_sink *sink, amp_call_id *out_call);

  /* Starts tool `tool` with JSON `input_json`; same contract as provider_complete. The
   * terminal payload is a ToolResult {"success", "output", "error"}. */
  amp_status (*tool_execute)(amp_host *host, amp_str tool, amp_str input_json,
                             const amp_call_sink *sink, amp_call_id *out_call);

  /* Requests cancellation of a call this instance started. The call still finishes. */
  amp_status (*call_cancel)(amp_host *host, amp_call_id call, amp_cancel_level level);

  /* Context manager access. Messages are unified Message JSON objects. */
  amp_status (*context_add_message)(amp_host *host, amp_str message_json);
  amp_status (*context_get_messages)(amp_host *host, amp_writer *out);
  /* `request_json` carries hints such as {"provider","model","context_window",
   * "max_output_tokens"}; may be empty. */
  amp_status (*context_get_messages_for_request)(amp_host *host, amp_str request_json,
                                                 amp_writer *out);
  amp_status (*context_set_messages)(amp_host *host, amp_str messages_json);
  amp_status (*context_clear)(amp_host *host);

  /* --- Added in ABI 1.1 (check with AMP_HAS_FIELD before use) ------------------------ */

  /* Asks the user to approve an action and blocks until they answer or the timeout passes.
   * `request_json`: {"prompt": "...", "options": ["allow_once","allow_always","deny"],
   * "timeout_seconds": 300, "default": "deny", "tool_name"?: "...", "details"?: {...}}.
   * Writes {"decision": "allow_once"|"allow_always"|"deny", "reason": "..."} into `out`.
   * When the host has no way to ask (no terminal, non-interactive run) it answers the default,
   * which is "deny" unless the request says otherwise. Requests are serialised: one question
   * at a time. THREADS: any thread; blocks for up to the timeout, so never call it from a
   * thread that delivers stream events. */
  amp_status (*request_approval)(amp_host *host, amp_str request_json, amp_writer *out);
} amp_host_api;

/* ------------------------------------------------------------------------------------------ */
/* Functions modules implement, one table per kind                                            */
/*                                                                                            */
/* `instance` is the module's own pointer returned by `create` (module-owned; freed by        */
/* `destroy`). THREADS: the host may call a table's functions from any thread and            */
/* concurrently, except create/destroy/session_ready, which it serialises.                    */
/* ------------------------------------------------------------------------------------------ */

typedef struct amp_provider_vtable {
  size_t struct_size;
  /* Writes ProviderInfo JSON {id, display_name, credential_env_vars, capabilities, defaults,
   * config_fields}. */
  amp_status (*get_info)(void *instance, amp_writer *out);
  /* Writes a JSON array of ModelInfo {id, display_name, context_window, max_output_tokens,
   * capabilities}. May block on the network; never called on a latency-critical thread. */
  amp_status (*list_models)(void *instance, amp_writer *out);
  /* Starts a completion of ChatRequest `request_json` (borrowed). Asynchronous: report with
   * call_event/call_finish on `call`. Must return promptly and never block on I/O: one
   * provider instance must carry 1,000 concurrent calls without a thread per call. */
  void (*complete)(void *instance, amp_call_id call, amp_str request_json);
  /* Requests cancellation of `call` (may race with its natural end). The module still sends
   * the terminal event, unless it has already done so. */
  void (*cancel)(void *instance, amp_call_id call, amp_cancel_level level);
} amp_provider_vtable;

typedef struct amp_tool_vtable {
  size_t struct_size;
  /* Writes a JSON array of the ToolSpecs {name, description, parameters} this module offers. */
  amp_status (*list_tools)(void *instance, amp_writer *out);
  /* Starts tool `tool` with `input_json`; reports like provider complete. The host calls this
   * on one of its worker threads, so a tool may do its work synchronously inside execute
   * (calling call_finish before returning) without stalling other calls. The terminal
   * payload on AMP_OK is {"success":bool, "output":any, "error":{"message"}?}. */
  void (*execute)(void *instance, amp_call_id call, amp_str tool, amp_str input_json);
  void (*cancel)(void *instance, amp_call_id call, amp_cancel_level level);
} amp_tool_vtable;

typedef struct amp_orchestrator_vtable {
  size_t struct_size;
  /* Runs one turn for `prompt_json` ({"prompt": "..."}). The host calls this on a worker
   * thread dedicated to the turn, so the orchestrator may block inside it until the turn ends
   * (it must still end with call_finish). Cancellation arrives through `cancel` and
   * call_cancel_state. The terminal payload on AMP_OK is
   * {"response": "...", "status": "success"|"incomplete"|"cancelled"}. */
  void (*execute)(void *instance, amp_call_id call, amp_str prompt_json);
  void (*cancel)(void *instance, amp_call_id call, amp_cancel_level level);
} amp_orchestrator_vtable;

typedef struct amp_context_vtable {
  size_t struct_size;
  amp_status (*add_message)(void *instance, amp_str message_json);
  /* Writes the stored messages as a JSON array. */
  amp_status (*get_messages)(void *instance, amp_writer *out);
  /* Writes the messages to send for a request (possibly compacted) as a JSON array;
   * `request_json` as for amp_host_api.context_get_messages_for_request. */
  amp_status (*get_messages_for_request)(void *instance, amp_str request_json, amp_writer *out);
  amp_status (*set_messages)(void *instance, amp_str messages_json);
  amp_status (*clear)(void *instance);
} amp_context_vtable;

/* Hook modules register handlers from `create` / `session_ready` through the host API;
 * the table only carries its size so it can grow. */
typedef struct amp_hook_vtable {
  size_t struct_size;
} amp_hook_vtable;

/* ------------------------------------------------------------------------------------------ */
/* The module descriptor and the entry point                                                  */
/* ------------------------------------------------------------------------------------------ */

typedef struct amp_module_descriptor {
  size_t struct_size;
  uint32_t abi_major;       /* AMP_ABI_VERSION_MAJOR the module was built with */
  uint32_t abi_minor;       /* AMP_ABI_VERSION_MINOR the module was built with */
  const char *id;           /* NUL-terminated, e.g. "provider-mock" */
  const char *version;      /* NUL-terminated semantic version of the module */
  const char *description;  /* NUL-terminated one line; may be NULL */
  amp_module_kind kind;

  /* Creates one instance. `host` is valid until destroy returns. `config_json` (borrowed) is
   * the instance's config object. On success store the module-owned instance pointer in
   * `*out_instance` and return AMP_OK; on failure write a human-readable reason (plain UTF-8
   * text) into `error` and return an error status: the host reports `module:load_failed`. */
  amp_status (*create)(amp_host *host, amp_str config_json, void **out_instance,
                       amp_writer *error);

  /* Called once every module of the session is mounted (the "session ready" phase), for
   * modules that need the others. May be NULL. Errors are reported like create's. */
  amp_status (*session_ready)(void *instance, amp_writer *error);

  /* Frees the instance. Called in reverse mount order, after every call the host started on
   * this instance has finished or been abandoned. Must not call back into the host except
   * log. */
  void (*destroy)(void *instance);

  /* Points to the kind's table (amp_provider_vtable, ...). OWNERSHIP: module-owned, static;
   * valid while the library is loaded. */
  const void *kind_table;
} amp_module_descriptor;

/* The entry point: `amplifier_module_entry`, the only symbol a module exports.
 * The host passes its ABI version and its API table. Return the module's static descriptor,
 * or NULL to refuse to load (for instance because the host's minor is too old for
 * functions the module needs). Called once per load, before any other function, from the
 * loading thread. OWNERSHIP: `host_api` is host-owned and valid while the module is loaded;
 * the returned descriptor is module-owned and static. */
typedef const amp_module_descriptor *(*amp_entry_fn)(uint32_t host_abi_major,
                                                     uint32_t host_abi_minor,
                                                     const amp_host_api *host_api);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMPLIFIER_PLUGIN_H */
