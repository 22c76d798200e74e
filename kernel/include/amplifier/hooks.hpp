// The hook registry: ordered handlers per event, combined results, failure isolation.
#pragma once
#include "amplifier_plugin.h"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
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

// A handler. May throw: the registry logs the failure and skips the handler.
using HookHandler = std::function<HookResult(std::string_view event, const boost::json::object &data)>;

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

  // Emits `content_block:delta` for one typed stream delta (ABI 1.2): the data is
  // {"block_index":N,"delta":{...}} ({"block_index":N,"partial_json":...} for tool input),
  // built only when a handler is registered. The combined result is discarded.
  void emit_content_delta(std::uint32_t index, amp_delta_kind kind, std::string_view text);

  // True when at least one handler would run for `event` (lets callers skip building payloads).
  bool has_handlers(std::string_view event) const;

  std::size_t handler_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Current time as ISO 8601 UTC with milliseconds, e.g. 2026-11-22T01:02:03.456Z.
std::string iso_timestamp_now();

}  // namespace amplifier
