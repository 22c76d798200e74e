// amplifier_sdk.hpp: a thin, header-only C++20 SDK over amplifier_plugin.h.
//
// A module derives from one of ProviderModule, ToolModule, OrchestratorModule, ContextModule
// or HookModule, gives its class a constructor `(amp::sdk::Host host, std::string_view config)`
// and exports it with one line:
//
//     AMP_DEFINE_MODULE(MyProvider, "provider-example", "1.0.0", "What it does");
//
// Every exception is caught at the ABI boundary and turned into an error result: a throwing
// constructor becomes a failed create, a throwing asynchronous start becomes a terminal error
// event, a throwing synchronous function becomes AMP_ERROR. Nothing here depends on anything
// but the C++ standard library, so third parties can use it with any toolchain.
#ifndef AMPLIFIER_SDK_HPP
#define AMPLIFIER_SDK_HPP

#include "amplifier_plugin.h"
#include "amplifier_sdk_json.hpp"

#include <atomic>
#include <concepts>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace amp::sdk {

inline amp_str to_amp(std::string_view s) noexcept { return amp_str{s.data(), s.size()}; }
inline std::string_view from_amp(amp_str s) noexcept {
  return s.data ? std::string_view(s.data, s.len) : std::string_view();
}

// An amp_writer that appends into a std::string it owns.
struct StringWriter : amp_writer {
  std::string text;
  StringWriter() noexcept : amp_writer{this, &StringWriter::append} {}
  StringWriter(const StringWriter &) = delete;
  StringWriter &operator=(const StringWriter &) = delete;

 private:
  static void append(amp_writer *self, const char *data, size_t len) {
    auto *w = static_cast<StringWriter *>(self->host_data);
    try {
      w->text.append(data, len);
    } catch (...) {  // out of memory: drop the bytes rather than unwind into C
    }
  }
};

inline void write_to(amp_writer *out, std::string_view s) noexcept {
  if (out && out->write) out->write(out, s.data(), s.size());
}

// Escapes `s` as a JSON string literal, quotes included (see amplifier_sdk_json.hpp), so
// the SDK needs no JSON library.
inline std::string json_quote(std::string_view s) { return json::quoted(s); }

// The kernel error shape carried by a failed call's terminal event.
inline std::string error_json(std::string_view kind, std::string_view message,
                              bool retryable = false) {
  return std::string("{\"kind\":") + json_quote(kind) + ",\"message\":" + json_quote(message) +
         ",\"retryable\":" + (retryable ? "true" : "false") + "}";
}

// The host API table, received by the entry point. One per loaded library. Atomic: the host
// enters the library again for each instance it mounts, while other instances run.
inline std::atomic<const amp_host_api *> &host_api_slot() noexcept {
  static std::atomic<const amp_host_api *> api{nullptr};
  return api;
}

// The host functions reached by name (ABI 1.2+, amp_host_api.get_proc), looked up once when
// the host enters the library. A NULL member: this host does not have the function, and the
// Host helpers fall back to what older hosts offer. Atomic members: the host enters the
// library again (the same functions, written again) for each instance it mounts, while the
// instances already running read them.
struct HostProcs {
  std::atomic<amp_call_delta_fn> call_delta{nullptr};
  std::atomic<amp_emit_content_delta_fn> emit_content_delta{nullptr};
  std::atomic<amp_hook_has_handlers_fn> hook_has_handlers{nullptr};
  std::atomic<amp_work_submit_fn> work_submit{nullptr};
  std::atomic<amp_session_spawn_fn> session_spawn{nullptr};  // 1.3
  std::atomic<amp_tools_changed_fn> tools_changed{nullptr};
  std::atomic<amp_hook_register_delta_fn> hook_register_delta{nullptr};  // 1.5
};

inline HostProcs &host_procs() noexcept {
  static HostProcs procs;
  return procs;
}

// `name`'s function from `api` (null when the host lacks get_proc or the name).
template <class Fn>
Fn host_proc(const amp_host_api *api, const char *name) noexcept {
  if (!api || !AMP_HAS_FIELD(api, amp_host_api, get_proc) || !api->get_proc) return nullptr;
  // Casting between function pointer types is how get_proc is meant to be used (the C header
  // documents each name's type); -Wcast-function-type does not apply to amp_proc.
  return reinterpret_cast<Fn>(api->get_proc(name));
}

inline void resolve_host_procs(const amp_host_api *api) noexcept {
  HostProcs &procs = host_procs();
  constexpr auto release = std::memory_order_release;
  procs.call_delta.store(host_proc<amp_call_delta_fn>(api, AMP_PROC_CALL_DELTA), release);
  procs.emit_content_delta.store(
      host_proc<amp_emit_content_delta_fn>(api, AMP_PROC_EMIT_CONTENT_DELTA), release);
  procs.hook_has_handlers.store(
      host_proc<amp_hook_has_handlers_fn>(api, AMP_PROC_HOOK_HAS_HANDLERS), release);
  procs.work_submit.store(host_proc<amp_work_submit_fn>(api, AMP_PROC_WORK_SUBMIT), release);
  procs.session_spawn.store(host_proc<amp_session_spawn_fn>(api, AMP_PROC_SESSION_SPAWN),
                            release);
  procs.tools_changed.store(host_proc<amp_tools_changed_fn>(api, AMP_PROC_TOOLS_CHANGED),
                            release);
  procs.hook_register_delta.store(
      host_proc<amp_hook_register_delta_fn>(api, AMP_PROC_HOOK_REGISTER_DELTA), release);
}

// Thrown by Host helpers when the host answers with an error status.
class HostError : public std::runtime_error {
 public:
  HostError(amp_status s, const std::string &what) : std::runtime_error(what), status(s) {}
  amp_status status;
};

// A copyable handle on the instance's host context: typed wrappers of amp_host_api.
class Host {
 public:
  Host() = default;
  Host(amp_host *h, const amp_host_api *api) noexcept : h_(h), api_(api) {}

  amp_host *raw() const noexcept { return h_; }
  const amp_host_api *api() const noexcept { return api_; }

  void log(amp_log_level level, std::string_view msg) const noexcept {
    api_->log(h_, level, to_amp(msg));
  }
  void info(std::string_view msg) const noexcept { log(AMP_LOG_INFO, msg); }
  void warn(std::string_view msg) const noexcept { log(AMP_LOG_WARNING, msg); }
  void error(std::string_view msg) const noexcept { log(AMP_LOG_ERROR, msg); }

  std::optional<std::string> config(std::string_view key = {}) const {
    StringWriter w;
    if (api_->config_get(h_, to_amp(key), &w) != AMP_OK) return std::nullopt;
    return std::move(w.text);
  }
  std::string session_info() const { return fetch("session_info", api_->session_info); }

  // Emits through the hook registry; returns the combined HookResult JSON.
  std::string emit(std::string_view event, std::string_view data_json) const {
    StringWriter w;
    amp_status s = api_->emit(h_, to_amp(event), to_amp(data_json), &w);
    if (s != AMP_OK) throw HostError(s, "emit of " + std::string(event) + " was rejected");
    return std::move(w.text);
  }
  // Emits an event whose combined result the caller does not need (an observation): with no
  // handler for it the host returns at once. Returns the host's status.
  amp_status notify(std::string_view event, std::string_view data_json) const noexcept {
    return api_->emit(h_, to_amp(event), to_amp(data_json), nullptr);
  }
  amp_status hook_register(std::string_view event, int32_t priority, std::string_view name,
                           amp_hook_fn fn, void *user_data) const noexcept {
    return api_->hook_register(h_, to_amp(event), priority, to_amp(name), fn, user_data);
  }
  // A content_block:delta handler that takes each delta typed (ABI 1.5, "hook_register_delta"
  // in amplifier_plugin.h): `on_delta` for the deltas with a typed form, `on_json` (may be
  // null) for the others. On an older host every delta goes to `on_json` through
  // hook_register (AMP_UNSUPPORTED when it is null). unregister by `name`.
  amp_status hook_register_delta(int32_t priority, std::string_view name,
                                 amp_hook_delta_fn on_delta, amp_hook_fn on_json,
                                 void *user_data) const noexcept {
    if (auto fn = host_procs().hook_register_delta.load(std::memory_order_acquire))
      return fn(h_, priority, to_amp(name), on_delta, on_json, user_data);
    if (!on_json) return AMP_UNSUPPORTED;
    return hook_register("content_block:delta", priority, name, on_json, user_data);
  }
  amp_status hook_unregister(std::string_view name) const noexcept {
    return api_->hook_unregister(h_, to_amp(name));
  }
  amp_status capability_register(std::string_view name, std::string_view value_json) const {
    return api_->capability_register(h_, to_amp(name), to_amp(value_json));
  }
  std::optional<std::string> capability(std::string_view name) const {
    StringWriter w;
    if (api_->capability_get(h_, to_amp(name), &w) != AMP_OK) return std::nullopt;
    return std::move(w.text);
  }
  amp_status contribute(std::string_view channel, std::string_view name, amp_contributor_fn fn,
                        void *user_data) const noexcept {
    return api_->channel_contribute(h_, to_amp(channel), to_amp(name), fn, user_data);
  }
  std::string collect(std::string_view channel) const {
    StringWriter w;
    amp_status s = api_->channel_collect(h_, to_amp(channel), &w);
    if (s != AMP_OK) throw HostError(s, "channel_collect failed");
    return std::move(w.text);
  }

  // Reporting on calls this module serves.
  void call_event(amp_call_id call, std::string_view event_json) const noexcept {
    api_->call_event(h_, call, to_amp(event_json));
  }
  void call_finish(amp_call_id call, amp_status status, std::string_view payload) const noexcept {
    api_->call_finish(h_, call, status, to_amp(payload));
  }
  void call_fail(amp_call_id call, std::string_view kind, std::string_view message,
                 amp_status status = AMP_ERROR) const noexcept {
    try {
      call_finish(call, status, error_json(kind, message));
    } catch (...) {
      call_finish(call, status, "{\"kind\":\"internal\",\"message\":\"out of memory\"}");
    }
  }
  amp_cancel_level cancel_state(amp_call_id call) const noexcept {
    return api_->call_cancel_state(h_, call);
  }
  // A tool module's tools changed: the host lists them again (amplifier_plugin.h,
  // "tools_changed"). False when the host cannot (older than 1.3) or refused the new list.
  bool tools_changed() const noexcept {
    auto fn = host_procs().tools_changed.load(std::memory_order_acquire);
    return fn && fn(h_) == AMP_OK;
  }

  // Typed stream deltas for a call this module serves: every provider reports its deltas
  // through these. On a 1.2+ host a delta crosses as (index, kind, text) with no JSON; on an
  // older host the same delta goes as its JSON content_block_delta event.
  void emit_delta(amp_call_id call, uint32_t index, amp_delta_kind kind,
                  std::string_view text) const noexcept {
    if (auto fn = host_procs().call_delta.load(std::memory_order_acquire))
      return fn(h_, call, index, kind, to_amp(text));
    try {
      std::string event;
      json::append_delta_event(event, index, kind, text);
      call_event(call, event);
    } catch (...) {  // out of memory: the delta is lost, the terminal event still carries it
    }
  }
  void emit_text_delta(amp_call_id call, uint32_t index, std::string_view text) const noexcept {
    emit_delta(call, index, AMP_DELTA_TEXT, text);
  }
  void emit_thinking_delta(amp_call_id call, uint32_t index, std::string_view text) const noexcept {
    emit_delta(call, index, AMP_DELTA_THINKING, text);
  }
  void emit_signature_delta(amp_call_id call, uint32_t index,
                            std::string_view signature) const noexcept {
    emit_delta(call, index, AMP_DELTA_SIGNATURE, signature);
  }
  void emit_tool_input_delta(amp_call_id call, uint32_t index,
                             std::string_view partial_json) const noexcept {
    emit_delta(call, index, AMP_DELTA_TOOL_INPUT, partial_json);
  }
  void emit_redacted_thinking_delta(amp_call_id call, uint32_t index,
                                    std::string_view data) const noexcept {
    emit_delta(call, index, AMP_DELTA_REDACTED_THINKING, data);
  }

  // The `content_block:delta` hook event for a typed delta an orchestrator received (see
  // "emit_content_delta" in amplifier_plugin.h); on an older host, the same event through emit.
  void emit_content_delta(uint32_t index, amp_delta_kind kind, std::string_view text) const {
    if (auto fn = host_procs().emit_content_delta.load(std::memory_order_acquire)) {
      fn(h_, index, kind, to_amp(text));
      return;
    }
    std::string data;
    json::append_delta_hook_data(data, index, kind, text);
    api_->emit(h_, to_amp("content_block:delta"), to_amp(data), nullptr);
  }

  // Whether any hook would see `event` (always true on a host that cannot tell).
  bool has_hook_handlers(std::string_view event) const noexcept {
    if (auto fn = host_procs().hook_has_handlers.load(std::memory_order_acquire))
      return fn(h_, to_amp(event)) != 0;
    return true;
  }

  // Runs fn(user_data) on the host's worker pool after `delay_ms` (see "work_submit"). Returns
  // false when the host cannot (it lacks the function, or refused): the caller must then run
  // the work some other way.
  bool submit_work(uint32_t delay_ms, void (*fn)(void *), void *user_data) const noexcept {
    auto submit = host_procs().work_submit.load(std::memory_order_acquire);
    return submit && submit(h_, delay_ms, fn, user_data) == AMP_OK;
  }

  // Orchestration.
  std::string providers() const { return fetch("providers_list", api_->providers_list); }
  std::string tools() const { return fetch("tools_list", api_->tools_list); }
  amp_status provider_complete(std::string_view provider, std::string_view request_json,
                               const amp_call_sink &sink, amp_call_id *out) const noexcept {
    return api_->provider_complete(h_, to_amp(provider), to_amp(request_json), &sink, out);
  }
  amp_status tool_execute(std::string_view tool, std::string_view input_json,
                          const amp_call_sink &sink, amp_call_id *out) const noexcept {
    return api_->tool_execute(h_, to_amp(tool), to_amp(input_json), &sink, out);
  }
  // ABI 1.3: starts a child session and runs one turn in it (see "session_spawn").
  // AMP_UNSUPPORTED on a host that cannot.
  amp_status spawn_session(std::string_view request_json, const amp_call_sink &sink,
                           amp_call_id *out) const noexcept {
    auto spawn = host_procs().session_spawn.load(std::memory_order_acquire);
    if (!spawn) return AMP_UNSUPPORTED;
    return spawn(h_, to_amp(request_json), &sink, out);
  }
  amp_status cancel_call(amp_call_id call, amp_cancel_level level) const noexcept {
    return api_->call_cancel(h_, call, level);
  }
  void context_add(std::string_view message_json) const {
    check(api_->context_add_message(h_, to_amp(message_json)), "context_add_message");
  }
  std::string context_messages() const {
    return fetch("context_get_messages", api_->context_get_messages);
  }
  std::string context_for_request(std::string_view request_json) const {
    StringWriter w;
    check(api_->context_get_messages_for_request(h_, to_amp(request_json), &w),
          "context_get_messages_for_request");
    return std::move(w.text);
  }
  void context_set(std::string_view messages_json) const {
    check(api_->context_set_messages(h_, to_amp(messages_json)), "context_set_messages");
  }
  void context_clear() const { check(api_->context_clear(h_), "context_clear"); }

  // ABI 1.1: asks the user (see amp_host_api.request_approval). On an older host, or when the
  // host fails, the answer is a deny whose reason says why.
  std::string request_approval(std::string_view request_json) const {
    if (!AMP_HAS_FIELD(api_, amp_host_api, request_approval) || !api_->request_approval)
      return R"({"decision":"deny","reason":"the host cannot ask for approval"})";
    StringWriter w;
    if (api_->request_approval(h_, to_amp(request_json), &w) != AMP_OK || w.text.empty())
      return R"({"decision":"deny","reason":"the approval request failed"})";
    return std::move(w.text);
  }

 private:
  static void check(amp_status s, const char *what) {
    if (s != AMP_OK) throw HostError(s, std::string(what) + " failed (status " +
                                            std::to_string(static_cast<int>(s)) + ")");
  }
  std::string fetch(const char *what, amp_status (*fn)(amp_host *, amp_writer *)) const {
    StringWriter w;
    check(fn(h_, &w), what);
    return std::move(w.text);
  }

  amp_host *h_ = nullptr;
  const amp_host_api *api_ = nullptr;
};

// --------------------------------------------------------------------------------------------
// Module base classes. Each is constructed with (Host, config JSON).
// --------------------------------------------------------------------------------------------

class ModuleBase {
 public:
  explicit ModuleBase(Host host) : host_(host) {}
  virtual ~ModuleBase() = default;
  ModuleBase(const ModuleBase &) = delete;
  ModuleBase &operator=(const ModuleBase &) = delete;
  // Runs once all modules of the session are mounted. Throw to report a failure.
  virtual void session_ready() {}
  const Host &host() const noexcept { return host_; }

 private:
  Host host_;
};

class ProviderModule : public ModuleBase {
 public:
  static constexpr amp_module_kind kind = AMP_KIND_PROVIDER;
  using ModuleBase::ModuleBase;
  virtual std::string info() = 0;
  virtual std::string list_models() { return "[]"; }
  // Start the completion; report with host().call_event / call_finish. Throwing here ends the
  // call with an error terminal event.
  virtual void complete(amp_call_id call, std::string_view request_json) = 0;
  virtual void cancel(amp_call_id, amp_cancel_level) {}
};

class ToolModule : public ModuleBase {
 public:
  static constexpr amp_module_kind kind = AMP_KIND_TOOL;
  using ModuleBase::ModuleBase;
  virtual std::string list_tools() = 0;
  virtual void execute(amp_call_id call, std::string_view tool, std::string_view input_json) = 0;
  virtual void cancel(amp_call_id, amp_cancel_level) {}
};

class OrchestratorModule : public ModuleBase {
 public:
  static constexpr amp_module_kind kind = AMP_KIND_ORCHESTRATOR;
  using ModuleBase::ModuleBase;
  virtual void execute(amp_call_id call, std::string_view prompt_json) = 0;
  virtual void cancel(amp_call_id, amp_cancel_level) {}
};

// A failure with the status the host should see: thrown from a module's constructor (create
// returns `status`, with what() as the reason; AMP_BUSY when what the instance needs is held
// elsewhere right now) or from sessions_query. Any other exception is AMP_ERROR.
class StatusError : public std::runtime_error {
 public:
  StatusError(amp_status s, const std::string &what) : std::runtime_error(what), status(s) {}
  amp_status status;
};

// A context that keeps sessions answers amp_context_vtable.sessions_query by defining
//   static std::string sessions_query(std::string_view config_json, std::string_view query_json);
// in its class: the answer's JSON, or a throw of QueryError (its status and reason) or any
// other exception (AMP_ERROR and its what()). Contexts without it leave the function NULL.
using QueryError = StatusError;

class ContextModule : public ModuleBase {
 public:
  static constexpr amp_module_kind kind = AMP_KIND_CONTEXT;
  using ModuleBase::ModuleBase;
  virtual void add_message(std::string_view message_json) = 0;
  virtual std::string get_messages() = 0;
  virtual std::string get_messages_for_request(std::string_view request_json) = 0;
  virtual void set_messages(std::string_view messages_json) = 0;
  virtual void clear() = 0;
};

class HookModule : public ModuleBase {
 public:
  static constexpr amp_module_kind kind = AMP_KIND_HOOK;
  using ModuleBase::ModuleBase;
};

// --------------------------------------------------------------------------------------------
// Boundary adapters: every function below is what crosses the C ABI. None lets an exception
// escape.
// --------------------------------------------------------------------------------------------
namespace detail {

// The oldest host minor an SDK module runs on. The SDK itself needs only ABI 1.0: it checks
// for request_approval and reaches 1.2 functions through get_proc, falling back where they
// are missing. A module that calls something newer directly defines AMP_SDK_MIN_HOST_MINOR.
#ifndef AMP_SDK_MIN_HOST_MINOR
#define AMP_SDK_MIN_HOST_MINOR 0
#endif
inline uint32_t minimum_host_minor() noexcept { return AMP_SDK_MIN_HOST_MINOR; }

inline amp_status report(amp_writer *error, const char *what) noexcept {
  write_to(error, what);
  return AMP_ERROR;
}

// Runs `fn`; turns an exception into AMP_ERROR and logs it through the host.
template <class M, class Fn>
amp_status guarded(void *instance, const char *where, Fn &&fn) noexcept {
  auto *m = static_cast<M *>(instance);
  try {
    return fn(*m);
  } catch (const std::exception &e) {
    m->host().error(std::string(where) + " threw: " + e.what());
  } catch (...) {
    m->host().error(std::string(where) + " threw a non-standard exception");
  }
  return AMP_ERROR;
}

// Runs an asynchronous start; an exception becomes the call's terminal error event.
template <class M, class Fn>
void guarded_call(void *instance, amp_call_id call, const char *where, Fn &&fn) noexcept {
  auto *m = static_cast<M *>(instance);
  try {
    fn(*m);
    return;
  } catch (const std::exception &e) {
    m->host().call_fail(call, "internal", std::string(where) + " threw: " + e.what());
  } catch (...) {
    m->host().call_fail(call, "internal", std::string(where) + " threw a non-standard exception");
  }
}

template <class M>
amp_status create(amp_host *host, amp_str config, void **out, amp_writer *error) noexcept {
  try {
    *out = new M(Host(host, host_api_slot()), from_amp(config));
    return AMP_OK;
  } catch (const StatusError &e) {
    write_to(error, e.what());
    return e.status == AMP_OK ? AMP_ERROR : e.status;
  } catch (const std::exception &e) {
    return report(error, e.what());
  } catch (...) {
    return report(error, "module constructor threw a non-standard exception");
  }
}

template <class M>
amp_status session_ready(void *instance, amp_writer *error) noexcept {
  try {
    static_cast<M *>(instance)->session_ready();
    return AMP_OK;
  } catch (const std::exception &e) {
    return report(error, e.what());
  } catch (...) {
    return report(error, "session_ready threw a non-standard exception");
  }
}

template <class M>
void destroy(void *instance) noexcept {
  try {
    delete static_cast<M *>(instance);
  } catch (...) {  // a destructor that throws: nothing sensible left to do
  }
}

// `Base` is deduced separately from `M`: a member inherited from the SDK base class (say the
// default list_models) has type `R (ProviderModule::*)()`, not `R (M::*)()`.
template <class M, class Base, class R>
amp_status write_result(void *instance, amp_writer *out, const char *where,
                        R (Base::*fn)()) noexcept {
  return guarded<M>(instance, where, [&](M &m) {
    write_to(out, (m.*fn)());
    return AMP_OK;
  });
}

template <class M>
struct Tables;

template <class M>
  requires std::is_base_of_v<ProviderModule, M>
struct Tables<M> {
  static const amp_provider_vtable *table() noexcept {
    static const amp_provider_vtable t = {
        sizeof(amp_provider_vtable),
        [](void *i, amp_writer *o) noexcept { return write_result<M>(i, o, "get_info", &M::info); },
        [](void *i, amp_writer *o) noexcept {
          return write_result<M>(i, o, "list_models", &M::list_models);
        },
        [](void *i, amp_call_id c, amp_str req) noexcept {
          guarded_call<M>(i, c, "complete", [&](M &m) { m.complete(c, from_amp(req)); });
        },
        [](void *i, amp_call_id c, amp_cancel_level l) noexcept {
          guarded<M>(i, "cancel", [&](M &m) { m.cancel(c, l); return AMP_OK; });
        },
    };
    return &t;
  }
};

template <class M>
  requires std::is_base_of_v<ToolModule, M>
struct Tables<M> {
  static const amp_tool_vtable *table() noexcept {
    static const amp_tool_vtable t = {
        sizeof(amp_tool_vtable),
        [](void *i, amp_writer *o) noexcept {
          return write_result<M>(i, o, "list_tools", &M::list_tools);
        },
        [](void *i, amp_call_id c, amp_str tool, amp_str input) noexcept {
          guarded_call<M>(i, c, "execute",
                          [&](M &m) { m.execute(c, from_amp(tool), from_amp(input)); });
        },
        [](void *i, amp_call_id c, amp_cancel_level l) noexcept {
          guarded<M>(i, "cancel", [&](M &m) { m.cancel(c, l); return AMP_OK; });
        },
    };
    return &t;
  }
};

template <class M>
  requires std::is_base_of_v<OrchestratorModule, M>
struct Tables<M> {
  static const amp_orchestrator_vtable *table() noexcept {
    static const amp_orchestrator_vtable t = {
        sizeof(amp_orchestrator_vtable),
        [](void *i, amp_call_id c, amp_str prompt) noexcept {
          guarded_call<M>(i, c, "execute", [&](M &m) { m.execute(c, from_amp(prompt)); });
        },
        [](void *i, amp_call_id c, amp_cancel_level l) noexcept {
          guarded<M>(i, "cancel", [&](M &m) { m.cancel(c, l); return AMP_OK; });
        },
    };
    return &t;
  }
};

template <class M>
  requires std::is_base_of_v<ContextModule, M>
struct Tables<M> {
  static const amp_context_vtable *table() noexcept {
    static const amp_context_vtable t = {
        sizeof(amp_context_vtable),
        [](void *i, amp_str msg) noexcept {
          return guarded<M>(i, "add_message", [&](M &m) {
            m.add_message(from_amp(msg));
            return AMP_OK;
          });
        },
        [](void *i, amp_writer *o) noexcept {
          return write_result<M>(i, o, "get_messages", &M::get_messages);
        },
        [](void *i, amp_str req, amp_writer *o) noexcept {
          return guarded<M>(i, "get_messages_for_request", [&](M &m) {
            write_to(o, m.get_messages_for_request(from_amp(req)));
            return AMP_OK;
          });
        },
        [](void *i, amp_str msgs) noexcept {
          return guarded<M>(i, "set_messages", [&](M &m) {
            m.set_messages(from_amp(msgs));
            return AMP_OK;
          });
        },
        [](void *i) noexcept {
          return guarded<M>(i, "clear", [&](M &m) {
            m.clear();
            return AMP_OK;
          });
        },
        sessions_query(),
    };
    return &t;
  }

  using SessionsQueryFn = amp_status (*)(amp_str, amp_str, amp_writer *);
  static SessionsQueryFn sessions_query() noexcept {
    if constexpr (requires(std::string_view v) {
                    { M::sessions_query(v, v) } -> std::convertible_to<std::string>;
                  }) {
      return [](amp_str config, amp_str query, amp_writer *out) noexcept {
        try {
          write_to(out, M::sessions_query(from_amp(config), from_amp(query)));
          return AMP_OK;
        } catch (const QueryError &e) {
          write_to(out, e.what());
          return e.status;
        } catch (const std::exception &e) {
          write_to(out, e.what());
          return AMP_ERROR;
        } catch (...) {
          write_to(out, "sessions_query threw a non-standard exception");
          return AMP_ERROR;
        }
      };
    } else {
      return nullptr;
    }
  }
};

template <class M>
  requires std::is_base_of_v<HookModule, M>
struct Tables<M> {
  static const amp_hook_vtable *table() noexcept {
    static const amp_hook_vtable t = {sizeof(amp_hook_vtable)};
    return &t;
  }
};

// Whether a host speaking ABI major.minor can run this module (a function, not an inline
// comparison, so `minor < 0` for ABI x.0 does not trip -Wtype-limits in every module).
inline bool host_can_load(uint32_t host_major, uint32_t host_minor) noexcept {
  return host_major == AMP_ABI_VERSION_MAJOR && host_minor >= minimum_host_minor();
}

template <class M>
const amp_module_descriptor *describe(const char *id, const char *version,
                                      const char *description) noexcept {
  static const amp_module_descriptor d = {
      sizeof(amp_module_descriptor),
      AMP_ABI_VERSION_MAJOR,
      AMP_ABI_VERSION_MINOR,
      id,
      version,
      description,
      M::kind,
      &create<M>,
      &session_ready<M>,
      &destroy<M>,
      Tables<M>::table(),
      minimum_host_minor(),
  };
  return &d;
}

}  // namespace detail

// --------------------------------------------------------------------------------------------
// Helper for orchestrators: a heap-allocated sink whose callbacks call std::functions.
// The object deletes itself after on_finish, so the caller needs no bookkeeping.
// --------------------------------------------------------------------------------------------
class CallbackSink {
 public:
  using EventFn = std::function<void(amp_call_id, std::string_view)>;
  using FinishFn = std::function<void(amp_call_id, amp_status, std::string_view)>;
  using DeltaFn = std::function<void(amp_call_id, uint32_t index, amp_delta_kind, std::string_view)>;

  // Returns an amp_call_sink bound to a new self-deleting CallbackSink. If the host refuses
  // the call (status != AMP_OK) the caller must call discard(sink) to free it. With
  // `on_delta`, typed deltas (ABI 1.2) arrive there; without it, as JSON events in on_event.
  static amp_call_sink make(EventFn on_event, FinishFn on_finish, DeltaFn on_delta = {}) {
    const bool typed = static_cast<bool>(on_delta);
    auto *self = new CallbackSink{std::move(on_event), std::move(on_finish), std::move(on_delta)};
    return amp_call_sink{sizeof(amp_call_sink), self, &CallbackSink::event, &CallbackSink::finish,
                         typed ? &CallbackSink::delta : nullptr};
  }
  static void discard(const amp_call_sink &sink) noexcept {
    delete static_cast<CallbackSink *>(sink.user_data);
  }

 private:
  CallbackSink(EventFn e, FinishFn f, DeltaFn d)
      : on_event_(std::move(e)), on_finish_(std::move(f)), on_delta_(std::move(d)) {}
  static void event(void *ud, amp_call_id call, amp_str ev) noexcept {
    auto *self = static_cast<CallbackSink *>(ud);
    try {
      if (self->on_event_) self->on_event_(call, from_amp(ev));
    } catch (...) {  // an observer's failure must not break the stream
    }
  }
  static void delta(void *ud, amp_call_id call, uint32_t index, amp_delta_kind kind,
                    amp_str text) noexcept {
    auto *self = static_cast<CallbackSink *>(ud);
    try {
      self->on_delta_(call, index, kind, from_amp(text));
    } catch (...) {  // an observer's failure must not break the stream
    }
  }
  static void finish(void *ud, amp_call_id call, amp_status s, amp_str payload) noexcept {
    std::unique_ptr<CallbackSink> self(static_cast<CallbackSink *>(ud));
    try {
      if (self->on_finish_) self->on_finish_(call, s, from_amp(payload));
    } catch (...) {
    }
  }
  EventFn on_event_;
  FinishFn on_finish_;
  DeltaFn on_delta_;
};

}  // namespace amp::sdk

// Exports class `CLASS` as module `ID`. Use exactly once per module library, at namespace scope.
#define AMP_DEFINE_MODULE(CLASS, ID, VERSION, DESCRIPTION)                                     \
  extern "C" AMP_EXPORT const amp_module_descriptor *amplifier_module_entry(                   \
      uint32_t host_abi_major, uint32_t host_abi_minor, const amp_host_api *host_api) {        \
    if (!::amp::sdk::detail::host_can_load(host_abi_major, host_abi_minor) || !host_api)     \
      return nullptr;                                                                          \
    ::amp::sdk::host_api_slot() = host_api;                                                    \
    ::amp::sdk::resolve_host_procs(host_api);                                                  \
    return ::amp::sdk::detail::describe<CLASS>(ID, VERSION, DESCRIPTION);                      \
  }

#endif  // AMPLIFIER_SDK_HPP
