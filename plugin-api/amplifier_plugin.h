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
 * Versioning (how the ABI grows without breaking anyone):
 *   - A minor release only appends: fields at the end of tables and structs, enum values,
 *     and, from 1.2 on, host functions reached by name through amp_host_api.get_proc (as
 *     GDExtension does), so the host table itself no longer has to grow.
 *   - A module states the oldest host minor it can run on in its descriptor
 *     (min_host_minor, added in 1.2). A host loads a module when the majors are equal and the
 *     host's minor is at least that minimum. A module that does not state it (built before
 *     1.2) needs its own abi_minor, as before.
 *   - So a module built with newer headers loads on an older 1.2+ host as long as it uses
 *     nothing newer than it declares, and it detects optional newer features at run time
 *     (AMP_HAS_FIELD on structs, get_proc returning NULL for functions). Hosts of ABI 1.0 and
 *     1.1 predate min_host_minor and still refuse any module stamped with a newer minor.
 *
 * Threads and re-entrancy, in general (each function's comment adds its own facts):
 *   - A call's sink callbacks (amp_call_sink) run on whatever thread the serving module
 *     reports from: for providers, their I/O thread. Never block in them.
 *   - `cancel` of any vtable may arrive on another thread while `complete` / `execute` for the
 *     same call is still running, and may race with the call's natural end.
 *   - on_finish may run nested inside on_event or on_delta (a module that fails mid-stream
 *     finishes the call from inside its own reporting), and may run before the function that
 *     started the call has returned.
 *   - Hook handlers run on the emitting thread, which for stream events is the provider's
 *     I/O thread.
 */
#ifndef AMPLIFIER_PLUGIN_H
#define AMPLIFIER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AMP_ABI_VERSION_MAJOR 1
#define AMP_ABI_VERSION_MINOR 5

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
  AMP_BUSY = 7,              /* (1.5) held by another user right now: a session another host has
                              * open, say; the same request may succeed later. A host older
                              * than 1.5 treats it as AMP_ERROR. */
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

/* The kinds of typed stream delta (ABI 1.2): the hot path of a stream, carried as plain text
 * instead of a JSON event. Each is exactly one JSON content_block_delta event (see
 * "Asynchronous calls"), with `text` as the delta's one string field:
 *   AMP_DELTA_TEXT              {"type":"text","text":text}              (text block)
 *   AMP_DELTA_THINKING          {"type":"thinking","thinking":text}      (thinking block)
 *   AMP_DELTA_SIGNATURE         {"type":"signature","signature":text}    (thinking block)
 *   AMP_DELTA_TOOL_INPUT        {"type":"tool_input","partial_json":text} (tool_call block; a
 *                               fragment of the input's JSON text, not valid JSON by itself)
 *   AMP_DELTA_REDACTED_THINKING {"type":"redacted_thinking","data":text} (redacted block)
 * `text` is UTF-8 (tool input fragments may split a code point only where the vendor did).
 * Reasoning deltas, which are structured, stay JSON events. */
typedef enum amp_delta_kind {
  AMP_DELTA_TEXT = 1,
  AMP_DELTA_THINKING = 2,
  AMP_DELTA_SIGNATURE = 3,
  AMP_DELTA_TOOL_INPUT = 4,
  AMP_DELTA_REDACTED_THINKING = 5,
  AMP_DELTA_FORCE_32BIT = 0x7fffffff
} amp_delta_kind;

/* A generic function pointer, as returned by amp_host_api.get_proc: cast it to the type
 * documented for the name before calling it. */
typedef void (*amp_proc)(void);

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

  /* --- Added in ABI 1.2 (the host checks struct_size before reading it) ---------------- */

  /* One typed delta of block `index` (see amp_delta_kind). May be NULL, and older sinks lack
   * it: the host then delivers the same delta to on_event as its JSON content_block_delta
   * event, so a caller sees every delta exactly once, in order, whichever way the serving
   * module reported it. Deltas a module reported as JSON arrive as JSON (on_event) even when
   * on_delta is set. `text` is borrowed for the callback only.
   * THREADS: as on_event (never concurrently with on_event or on_finish of the same call). */
  void (*on_delta)(void *user_data, amp_call_id call, uint32_t index, amp_delta_kind kind,
                   amp_str text);
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

  /* Writes {"session_id","parent_id","mount_name"} of the session the instance is mounted
   * in, "labels" (an object) when the host attached some to the session, and (1.5)
   * "workspace": {"folder": PATH, "confined": true} when the host confined the session to a
   * folder: a module that touches files or runs commands then works in that folder and never
   * outside it, whatever its config says (tool-filesystem and tool-bash do), and
   * "state_folder": PATH when the host gave the session a folder of its own for per-session
   * state (tool-filesystem keeps its rewind checkpoints there; absent: keep none). A module
   * reads the field when present and does not depend on the minor version for it. */
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
   * once, possibly before this returns. On any other status no callback is made.
   * The host hands the request to the provider as it is, without parsing it (a long history
   * must cost a copy at most): a request that is not a valid ChatRequest ends the call with
   * an invalid_request error from the provider. AMP_INVALID_ARGUMENT only for text that is
   * plainly not a JSON object. */
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

  /* --- Added in ABI 1.2 (check with AMP_HAS_FIELD before use) ------------------------ */

  /* Looks up the host function called `name` (NUL-terminated; see "Host functions by name"
   * below for the names and their types). Returns NULL when this host does not have it, so a
   * module can use a newer function where it exists and fall back where it does not.
   * The table stops growing here: every host function added from 1.2 on is reached this way.
   * OWNERSHIP: the returned function is host-owned and valid while the module is loaded.
   * THREADS: any thread; cheap, but meant to be called once (in create) and cached. */
  amp_proc (*get_proc)(const char *name);
} amp_host_api;

/* ------------------------------------------------------------------------------------------ */
/* Host functions by name (ABI 1.2+), looked up with amp_host_api.get_proc.                   */
/* Each entry: the name, the type to cast to, the minor that added it.                        */
/* ------------------------------------------------------------------------------------------ */

/* "call_delta" (1.2): reports one typed stream delta for `call`, which this instance serves:
 * the fast form of call_event with a content_block_delta event, with no JSON on either side.
 * Ignored (and logged) like call_event when `call` is unknown, finished or served by another
 * instance; a `kind` outside amp_delta_kind ends the call with a stream error.
 * OWNERSHIP: `text` is borrowed for the call; the host copies nothing it does not need.
 * THREADS: any thread, but never concurrently with other reports on the same call. */
#define AMP_PROC_CALL_DELTA "call_delta"
typedef void (*amp_call_delta_fn)(amp_host *host, amp_call_id call, uint32_t index,
                                  amp_delta_kind kind, amp_str text);

/* "emit_content_delta" (1.2): emits the canonical `content_block:delta` hook event for one
 * typed delta of block `index`, exactly as emit would with the data
 *   {"block_index":index,"delta":{"type":...,<field>:text}}   (text, thinking, signature,
 *                                                              redacted_thinking)
 *   {"block_index":index,"partial_json":text}                 (tool input)
 * plus the default fields. Hooks that take JSON get that JSON; the host renders it only when
 * a handler is registered, so with none this returns at once without allocating. The
 * combined hook result is discarded (a delta cannot be denied or modified).
 * Returns AMP_INVALID_ARGUMENT for an unknown kind.
 * OWNERSHIP: `text` borrowed for the call. THREADS: any thread; handlers run on it. */
#define AMP_PROC_EMIT_CONTENT_DELTA "emit_content_delta"
typedef amp_status (*amp_emit_content_delta_fn)(amp_host *host, uint32_t index,
                                                amp_delta_kind kind, amp_str text);

/* "hook_has_handlers" (1.2): returns 1 when at least one handler would run for `event` (its
 * own or "*"), else 0: lets a module skip building a payload nobody reads. The answer can
 * change as handlers register, so ask right before emitting.
 * OWNERSHIP: `event` borrowed. THREADS: any thread; lock-free. */
#define AMP_PROC_HOOK_HAS_HANDLERS "hook_has_handlers"
typedef int (*amp_hook_has_handlers_fn)(amp_host *host, amp_str event);

/* "work_submit" (1.2): runs `fn(user_data)` once on the host's shared worker pool, after at
 * least `delay_ms` milliseconds (0: as soon as a worker is free). The pool grows when every
 * worker is busy, so `fn` may block (an approval prompt, a slow file system) without stalling
 * other sessions; work that does not block keeps the pool small. This is how a module waits
 * for something without owning a thread: an orchestrator resumes its turn here when a call it
 * awaits finishes. Returns AMP_OK when `fn` will run exactly once; otherwise (the host is
 * shutting down, no memory) it never runs.
 * When the instance is being destroyed, delayed work that has not run yet runs at once
 * (before destroy, which waits for it), so a module's timers never outlive it nor hold up
 * its end: a timer's function must accept firing early.
 * OWNERSHIP: `user_data` stays owned by the module and must stay valid until `fn` has run.
 * THREADS: any thread; `fn` runs on a pool thread, never inside work_submit itself. */
#define AMP_PROC_WORK_SUBMIT "work_submit"
typedef amp_status (*amp_work_submit_fn)(amp_host *host, uint32_t delay_ms,
                                         void (*fn)(void *user_data), void *user_data);

/* "session_spawn" (1.3): starts a child session of the caller's session and runs one turn in
 * it: how a module delegates work to a sub-agent. Asynchronous, with the contract of
 * provider_complete: on AMP_OK `*out_call` holds the call id and `sink`'s on_finish WILL be
 * called exactly once, possibly before this returns; on any other status no callback is made.
 * AMP_UNSUPPORTED when this host cannot spawn sessions (no policy for children); a module
 * behind `isolation: process` spawns as one in the host's process does. AMP_INVALID_ARGUMENT when `request_json` is not a JSON object.
 * `request_json`:
 *   {"agent": "NAME" | "self",          which agent the child runs as; "self" clones the plan
 *    "instruction": "...",               the child's prompt (required)
 *    "context_depth": "none"|"recent"|"all",   how much of the caller's conversation the child
 *    "recent_turns": N,                        starts with (default none; recent: N user turns)
 *    "session_id"?: "...",               resume this earlier child instead of starting one
 *    "exclude_tools"?: [...], "exclude_hooks"?: [...],   modules of the caller's plan the child
 *                                                        does not mount (module ids)
 *    "max_depth"?: N}                    refuse when the child would be nested deeper than N
 *                                        (the top session is depth 0; default 1)
 * The host resolves the agent and builds the child's plan (its own policy); the kernel links
 * the child: parent_id, a cancellation that follows the caller's session, the same approvals.
 * Events (JSON, on_event): {"type":"session_started","session_id","agent","resumed":bool}
 * once the child is mounted, before its turn runs.
 * Terminal payload on AMP_OK: {"session_id","agent","response","status","report"?} with the
 * child's final answer, its turn status (success | incomplete | budget_exceeded) and its
 * orchestrator's report when it gave one (the agent loop's: {"ledger"}). A child turn that failed ends the
 * call with AMP_ERROR and its error object (plus "session_id"); a cancelled one with
 * AMP_CANCELLED. call_cancel on the call cancels the child's turn (graceful: after its
 * running step; immediate: now).
 * OWNERSHIP: `request_json` borrowed; `sink` copied, its user_data must outlive on_finish.
 * THREADS: any thread; returns promptly (mounting the child happens on the worker pool). */
#define AMP_PROC_SESSION_SPAWN "session_spawn"
typedef amp_status (*amp_session_spawn_fn)(amp_host *host, amp_str request_json,
                                           const amp_call_sink *sink, amp_call_id *out_call);

/* "tools_changed" (1.3): a tool module whose tools changed after it was mounted (an MCP
 * server that connected late or sent tools/list_changed) asks the host to call its
 * list_tools again; the tools it lists then replace the ones it had (tools_list, the
 * orchestrator's next turn and schema validation see the new list). Returns AMP_OK, or the
 * error of a list_tools answer the host could not use (the old tools are kept then).
 * Never call it from inside create or list_tools (call it from session_ready on, from a
 * thread of the module's own); a host without it (NULL) keeps the tools listed at mount.
 * THREADS: any thread; the host calls list_tools on the calling thread. */
#define AMP_PROC_TOOLS_CHANGED "tools_changed"
typedef amp_status (*amp_tools_changed_fn)(amp_host *host);

/* One `content_block:delta` event in typed form (1.5): what a typed delta hook receives
 * instead of the event's JSON. `block_index` is the block's index; `kind` and `text` mean what
 * they mean for call_delta (amp_delta_kind). `struct_size` is sizeof(amp_hook_delta) as the
 * host built it: read a field only when struct_size covers it (a later minor may append).
 * OWNERSHIP: the struct and `text` are borrowed for the call; copy what you keep. */
typedef struct amp_hook_delta {
  size_t struct_size;
  uint32_t block_index;
  amp_delta_kind kind;
  amp_str text;
} amp_hook_delta;

/* A typed delta hook (1.5). It observes: a delta is never denied or modified. Returning
 * non-AMP_OK marks the handler as failed, as for amp_hook_fn (logged, skipped).
 * THREADS: as amp_hook_fn: the emitting thread, concurrently for different emits. */
typedef amp_status (*amp_hook_delta_fn)(void *user_data, const amp_hook_delta *delta);

/* "hook_register_delta" (1.5): registers a handler of `content_block:delta` that takes each
 * delta typed, so nothing renders JSON for it and it parses none: the form a display or a
 * recorder of streamed text wants. `on_delta` is called for every delta that has a typed form:
 * those reported through call_delta or emit_content_delta, and JSON payloads of exactly their
 * shape ({"block_index":N,"delta":{"type":T,<field>:text}} or {"block_index":N,
 * "partial_json":text}, other fields ignored), which is what a delta an earlier hook modified
 * (hooks-redaction's) looks like. Every other delta (reasoning deltas, which are structured,
 * and payloads of another shape) goes to `on_json` as to a hook_register handler, its result
 * honoured; with `on_json` NULL they are skipped.
 * Priority, order among the event's other handlers, and `name` (hook_unregister) are
 * hook_register's. Returns AMP_INVALID_ARGUMENT when `on_delta` is NULL.
 * OWNERSHIP: `name` copied; `user_data` as hook_register's (valid until unregistered).
 * THREADS: any thread; the handlers run on the emitting thread. A module behind `isolation:
 * process` gets each typed delta as one request, in order with the event's other handlers. */
#define AMP_PROC_HOOK_REGISTER_DELTA "hook_register_delta"
typedef amp_status (*amp_hook_register_delta_fn)(amp_host *host, int32_t priority, amp_str name,
                                                 amp_hook_delta_fn on_delta, amp_hook_fn on_json,
                                                 void *user_data);

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
   * on a thread of its shared worker pool, so a tool may do its work synchronously inside
   * execute (calling call_finish before returning), even for minutes, without stalling other
   * calls or sessions: the pool adds a worker when work waits behind a busy one. The terminal
   * payload on AMP_OK is {"success":bool, "output":any, "error":{"message"}?}. */
  void (*execute)(void *instance, amp_call_id call, amp_str tool, amp_str input_json);
  void (*cancel)(void *instance, amp_call_id call, amp_cancel_level level);
} amp_tool_vtable;

typedef struct amp_orchestrator_vtable {
  size_t struct_size;
  /* Runs one turn for `prompt_json` ({"prompt": "...", ...}: a host may add what the turn
   * asks of the loop, e.g. "route": "fast" for a role of the plan's routing; an orchestrator
   * ignores what it does not know). The host calls this on a thread of
   * its shared worker pool. An orchestrator may block inside it until the turn ends (the pool
   * grows around it), but that holds a thread per running turn: one that means to carry many
   * sessions returns as soon as it waits for something and resumes through "work_submit"
   * (the host's own loops do). Either way the turn ends with exactly one call_finish, which
   * may come before or after execute returns. Cancellation arrives through `cancel` (possibly
   * while execute is still running) and call_cancel_state. The terminal payload on AMP_OK is
   * {"response": "...", "status": "success"|"incomplete"|"cancelled"|"budget_exceeded",
   * "report"?: {...}}: an optional report (any object) for the caller, which a host passes on
   * (a child's goes to the delegate tool). Written first in the payload, the host reads it
   * without parsing the answer. */
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

  /* --- Added in ABI 1.4 (check with AMP_HAS_FIELD before use) -------------------------- */

  /* The sessions a persisting context keeps, reached without a session and without an
   * instance, so the host can list, show and import them through whichever module a plan
   * names (`amplifier sessions --plan`, `amplifier serve` continuing a session another host
   * started). `config_json` is the context's config object as the plan gives it;
   * `query_json` is one of
   *   {"op":"list", "limit"?: N}  -> [{"id", "updated", "turns"?, "provider"?, "model"?,
   *                                     "preview", "problem"?}, ...], newest first (N at most)
   *   {"op":"read", "session_id"}
   *        -> {"metadata": object|null, "messages": [message, ...], "origins": [...]}
   *   {"op":"import", "session_id", "metadata": object|null, "messages": [...], "origins"?}
   *        -> {"session_id", "messages": N}; refused (AMP_ERROR) when the session exists
   *   {"op":"delete", "session_id"}  -> {"session_id", "messages": N removed}; refused
   *        (AMP_BUSY from 1.5, AMP_ERROR before) while a live session holds it
   *   {"op":"signal", "session_id", "signal": object}  -> {"session_id", "held": bool}: passes
   *        `signal` to the live instance holding the session, in whichever host it runs,
   *        which emits it there as `context:signal` {"session_id", "signal"}; "held" false
   *        when none holds it (optional: AMP_UNSUPPORTED where a store has no hosts to reach)
   * ("metadata" has the fields of context-persistent's metadata.json; "origins" holds, for
   * each message, the {provider, module?, model?} that produced it, or null). Returns AMP_OK with
   * the answer written to `out`; otherwise a human-readable reason is written to `out`
   * instead: AMP_NOT_FOUND (no such session), AMP_BUSY (a live session holds it),
   * AMP_UNSUPPORTED (an op the module lacks),
   * AMP_INVALID_ARGUMENT (a bad config or query), AMP_ERROR (the store failed).
   * NULL for a context that keeps nothing. Blocks on the store's I/O: the host never calls it
   * on a latency-critical thread. OWNERSHIP: both strings borrowed for the call; `out` is
   * host-owned. THREADS: any thread, concurrently with itself and with live instances. */
  amp_status (*sessions_query)(amp_str config_json, amp_str query_json, amp_writer *out);
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
   * text) into `error` and return an error status: the host reports `module:load_failed`.
   * AMP_BUSY (1.5) says what the instance needs is held elsewhere right now (a context asked
   * to open a session another host has open): the host may try again later, and `serve`
   * answers 409 instead of calling the plan broken. */
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

  /* --- Added in ABI 1.2 ------------------------------------------------------------------ */

  /* The oldest host ABI minor (of the same major) this module runs on: the host refuses the
   * module when its own minor is lower. A module that uses only 1.0 functions and detects the
   * rest at run time says 0. Descriptors too small to hold the field (built before 1.2) are
   * read as needing their own abi_minor. */
  uint32_t min_host_minor;
} amp_module_descriptor;

/* The entry point: `amplifier_module_entry`, the only symbol a module exports.
 * The host passes its ABI version and its API table. Return the module's static descriptor,
 * or NULL to refuse to load (for instance because the host's minor is below the module's
 * min_host_minor). A 1.0 or 1.1 host's table is shorter: check AMP_HAS_FIELD before using
 * request_approval or get_proc. Called once per load, before any other function, from the
 * loading thread. OWNERSHIP: `host_api` is host-owned and valid while the module is loaded;
 * the returned descriptor is module-owned and static. */
typedef const amp_module_descriptor *(*amp_entry_fn)(uint32_t host_abi_major,
                                                     uint32_t host_abi_minor,
                                                     const amp_host_api *host_api);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMPLIFIER_PLUGIN_H */
