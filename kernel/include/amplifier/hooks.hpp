// The hook registry: ordered handlers per event, combined results, failure isolation.
#pragma once
#include "amplifier_plugin.h"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace amplifier {

enum class HookAction { Continue, Deny, Modify, InjectContext, AskUser };

std::string_view to_string(HookAction action);
// Throws std::invalid_argument naming the unknown action.
HookAction hook_action_from_string(std::string_view name);

// One context injection, kept separately in combined results so that merging never loses
// a per-injection role or ephemeral flag.
struct ContextInjection {
  std::string text;
  std::string role = "system";  // system | user | assistant
  bool ephemeral = false;
  bool append_to_last_tool_result = false;
};

struct HookResult {
  HookAction action = HookAction::Continue;
  boost::json::value data;  // for modify: the replacement payload (null when absent)
  std::string reason;
  std::string context_injection;
  std::string context_injection_role = "system";
  bool ephemeral = false;
  bool append_to_last_tool_result = false;
  std::string approval_prompt;
  std::vector<std::string> approval_options;
  double approval_timeout = 300.0;
  std::string approval_default = "deny";
  bool suppress_output = false;
  std::string user_message;
  std::string user_message_level = "info";
  // Combined results only: every injection, in handler order (sanitised, size-limited).
  std::vector<ContextInjection> injections;
  boost::json::object extra;  // unknown fields, preserved

  // Parses a handler's JSON result. An empty object or null means continue.
  // Throws std::invalid_argument with a clear message on a malformed result.
  static HookResult from_json(const boost::json::value &v);
  boost::json::object to_json() const;
};

class HookEvent;

// A handler of the payload as a DOM. May throw: the registry logs the failure and skips it.
using HookHandler = std::function<HookResult(std::string_view event, const boost::json::object &data)>;

// A handler of the event itself: it reads the payload in whichever form it needs (a DOM, JSON
// text, or the typed delta it came from) and returns nullopt for "continue". The hot-path
// consumers (module hooks, which take JSON text; output writers) use this form so that a
// stream delta is never turned into a DOM for them. May throw, as above.
using HookEventHandler = std::function<std::optional<HookResult>(HookEvent &event)>;

// One emitted event, as the handlers of one emit see it. The payload exists in up to three
// forms, each made on first use and kept for the handlers after: a DOM, its JSON text (exactly
// what boost::json::serialize writes for the DOM), and, for content deltas, the typed delta
// itself. A `modify` result replaces the payload for the handlers that follow.
// Lives for one emit, on the emitting thread; handlers must not keep references to it.
class HookEvent {
 public:
  struct Delta {
    std::uint32_t index;
    amp_delta_kind kind;
    std::string_view text;
  };

  std::string_view name() const noexcept { return name_; }
  // The payload, default fields and timestamp included.
  const boost::json::object &data();
  // The same payload as JSON text.
  std::string_view data_json();
  // The typed delta this event was emitted from, while no handler has replaced the payload.
  const Delta *delta() const noexcept { return has_delta_ ? &delta_ : nullptr; }
  // The payload as a typed delta: the one it was emitted from, or read from a JSON payload of
  // exactly a typed delta's shape ({"block_index":N,"delta":{"type":T,<field>:text}} or
  // {"block_index":N,"partial_json":text}; other members ignored), such as one a hook
  // modified. nullopt for any other payload (a reasoning delta, another event). The text
  // points into the event: valid while it lives and no handler replaces the payload.
  std::optional<Delta> typed_delta();
  // True while session_id and timestamp are the registry's own (the emitter did not set them
  // and no handler replaced the payload): then session_id() and timestamp() are the values
  // the payload holds, at no cost.
  bool has_standard_fields() const noexcept { return standard_fields_; }
  std::string_view session_id() const noexcept;
  // When the event was emitted: read from the clock and written out on first use, within the
  // emit (a text printer never pays for it).
  std::string_view timestamp() const noexcept;

  HookEvent(const HookEvent &) = delete;
  HookEvent &operator=(const HookEvent &) = delete;

  struct Defaults;  // the registry's default fields, opaque outside hooks.cpp
  HookEvent(std::string_view name, const Defaults &defaults);  // the registry makes events

 private:
  friend class HookRegistry;
  friend struct HookEventAccess;

  std::string_view name_;
  const Defaults *defaults_;
  mutable char timestamp_[32];
  mutable std::size_t timestamp_length_ = 0;
  bool has_delta_ = false;
  bool standard_fields_ = true;
  Delta delta_{};
  std::string_view text_;  // a payload that came as JSON text, borrowed for the emit
  std::optional<boost::json::object> dom_;
  std::optional<std::string> json_;
};

class HookRegistry {
 public:
  using HandlerId = std::uint64_t;
  static constexpr std::string_view kAllEvents = "*";
  // Injection limits (per injection and per combined emit), in bytes.
  static constexpr std::size_t kMaxInjectionBytes = 10 * 1024;
  static constexpr std::size_t kMaxInjectionBytesPerEmit = 32 * 1024;

  HookRegistry();
  ~HookRegistry();
  HookRegistry(const HookRegistry &) = delete;
  HookRegistry &operator=(const HookRegistry &) = delete;

  // Lower priority runs first; equal priorities keep registration order. `event` may be "*".
  // `owner` groups handlers for bulk removal (0 = none).
  HandlerId register_handler(std::string event, HookHandler handler, int priority = 0,
                             std::string name = {}, std::uint64_t owner = 0);
  HandlerId register_event_handler(std::string event, HookEventHandler handler, int priority = 0,
                                   std::string name = {}, std::uint64_t owner = 0);

  // Removes handlers by id / by name (optionally only those of `owner`, 0 = any) / by owner.
  // Returns how many were removed. Blocks until no emit on another thread is still running a
  // removed handler; never blocks on the calling thread's own in-progress emits.
  std::size_t unregister(HandlerId id);
  std::size_t unregister(std::string_view name, std::uint64_t owner = 0);
  std::size_t unregister_owner(std::uint64_t owner);

  // Fields added to every payload that lacks them (session_id, parent_id).
  void set_default_fields(boost::json::object fields);

  // Runs the handlers of `event` (and "*") in order and combines their results:
  // deny short-circuits; modify's data replaces the payload for the next handlers;
  // injections merge (texts joined by a blank line; each kept in `injections`);
  // final action by precedence deny > ask_user > inject_context > modify > continue.
  // The result's `data` holds the final payload (after defaults, timestamp and modifies).
  // Adds `timestamp` (ISO 8601 UTC) and the default fields. Thread-safe.
  HookResult emit(std::string_view event, boost::json::object data);

  // The same, for a caller that discards the result: with no handler for `event` it returns
  // at once, without adding fields, stamping time or allocating.
  void notify(std::string_view event, boost::json::object data);

  // notify() for a payload that arrives as JSON text (a module's emit). Handlers that read the
  // text get it as it came with the default fields and timestamp spliced in before its
  // closing brace (a DOM is built only for a handler that asks for one), unless the payload
  // sets one of those fields itself. Throws std::invalid_argument when `data_json` is not a
  // JSON object.
  void notify_json(std::string_view event, std::string_view data_json);

  // Emits `content_block:delta` for one typed stream delta (ABI 1.2): the data is
  // {"block_index":N,"delta":{...}} ({"block_index":N,"partial_json":...} for tool input),
  // made (as text, or a DOM) only for the handlers that ask for it. The result is discarded.
  void emit_content_delta(std::uint32_t index, amp_delta_kind kind, std::string_view text);

  // True when at least one handler would run for `event`. Lock-free: callers ask before
  // building a payload nobody would read.
  bool has_handlers(std::string_view event) const;

  std::size_t handler_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Current time as ISO 8601 UTC with milliseconds, e.g. 2026-11-22T01:02:03.456Z.
std::string iso_timestamp_now();

}  // namespace amplifier
