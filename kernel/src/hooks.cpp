// The hook registry.
//
// emit() is on the streaming hot path. Handlers live in an immutable Table, rebuilt on every
// (rare) register/unregister and published through an atomic pointer, so an emit reads it
// without a lock; every table ever published stays alive until the registry goes (tables are
// few: one per registration). Each event's list already has the "*" handlers merged in
// priority order, so dispatch is one hash lookup and a loop, and the content-delta list is
// looked up once per table. An emit nobody listens to costs that lookup and nothing else.
//
// The payload is a HookEvent: built only when a handler will run, in the form each handler
// asks for (a typed delta rendered straight to JSON text for module hooks and output writers,
// a DOM for in-kernel handlers that want one).
//
// unregister() must not return while another thread still runs a removed handler (the
// caller may then free what the handler uses). Every entry therefore counts its running
// calls; the removal marks the entry and waits for the count to drain, ignoring the calls
// its own thread is making (a handler may unregister itself or others mid-emit).
#include "amplifier/hooks.hpp"

#include "amplifier/events.hpp"
#include "amplifier/json_fields.hpp"
#include "amplifier/log.hpp"
#include "amplifier_sdk_json.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <stdexcept>

namespace amplifier {
namespace json = boost::json;

// The default fields of a registry's events, in the forms emits need them.
struct HookEvent::Defaults {
  json::object fields;      // as set (session_id, parent_id)
  std::string json_fields;  // the same as `,"k":v,...`, ready to splice before `}`
  std::string session_id;   // the string at "session_id" ("" when absent or not a string)
};

namespace {

constexpr std::string_view kHooksLog = "hooks";

struct HandlerEntry {
  HookRegistry::HandlerId id = 0;
  std::string event;
  int priority = 0;
  std::string name;
  std::uint64_t owner = 0;
  HookEventHandler handler;  // reset by unregister once no thread can call it any more
  std::atomic<int> running{0};
  std::atomic<bool> removed{false};

  std::string label() const { return name.empty() ? fmt::format("#{}", id) : fmt::format("'{}'", name); }
};

using EntryPtr = std::shared_ptr<HandlerEntry>;
using HandlerList = std::vector<HandlerEntry *>;

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept {
    return std::hash<std::string_view>{}(text);
  }
};

// An immutable snapshot of the registry. The raw pointers in the lists point into `entries`.
struct Table {
  std::vector<EntryPtr> entries;  // sorted by (priority, id): the dispatch order
  std::unordered_map<std::string, HandlerList, StringHash, std::equal_to<>> by_event;
  HandlerList wildcard_only;  // for events with no handler of their own
  const HandlerList *content_delta = &wildcard_only;  // handlers_for(content_block:delta)
  HookEvent::Defaults defaults;

  const HandlerList &handlers_for(std::string_view event) const {
    if (entries.empty()) return wildcard_only;  // the common case in benchmarks and tests
    auto found = by_event.find(event);
    return found == by_event.end() ? wildcard_only : found->second;
  }
};

HookEvent::Defaults make_defaults(json::object fields) {
  HookEvent::Defaults defaults;
  for (const auto &[key, value] : fields) {
    defaults.json_fields.push_back(',');
    amp::sdk::json::append_quoted(defaults.json_fields, key);
    defaults.json_fields.push_back(':');
    defaults.json_fields += json::serialize(value);
  }
  if (const json::value *id = fields.if_contains("session_id"); id && id->is_string())
    defaults.session_id = std::string(id->get_string());
  defaults.fields = std::move(fields);
  return defaults;
}

std::shared_ptr<const Table> build_table(std::vector<EntryPtr> entries, json::object defaults) {
  auto table = std::make_shared<Table>();
  for (const auto &entry : entries) {
    if (entry->event == HookRegistry::kAllEvents) table->wildcard_only.push_back(entry.get());
    else table->by_event.try_emplace(entry->event);
  }
  for (auto &[event, list] : table->by_event)
    for (const auto &entry : entries)
      if (entry->event == event || entry->event == HookRegistry::kAllEvents)
        list.push_back(entry.get());
  table->entries = std::move(entries);
  table->defaults = make_defaults(std::move(defaults));
  table->content_delta = &table->handlers_for(events::kContentBlockDelta);
  return table;
}

// The handler calls the current thread is inside of, innermost first: a linked list of stack
// frames, so tracking costs no allocation.
struct RunningCall {
  const HandlerEntry *entry;
  RunningCall *outer;
};
thread_local RunningCall *t_innermost_call = nullptr;

int calls_on_this_thread(const HandlerEntry &entry) {
  int count = 0;
  for (auto *call = t_innermost_call; call; call = call->outer) count += call->entry == &entry;
  return count;
}

// ---- injections --------------------------------------------------------------------------

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Drops C0 controls except \n and \t, DEL, and the C1 controls (U+0080..U+009F, encoded
// C2 80..C2 9F): injected text reaches the model and terminals, where they can hide content.
std::string sanitise_injection(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7F) continue;
    if (byte == 0xC2 && i + 1 < text.size()) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      if (next >= 0x80 && next <= 0x9F) {
        ++i;
        continue;
      }
    }
    clean.push_back(text[i]);
  }
  return clean;
}

// Cuts to at most `limit` bytes without splitting a UTF-8 sequence.
void truncate_utf8(std::string &text, std::size_t limit) {
  if (text.size() <= limit) return;
  std::size_t cut = limit;
  while (cut > 0 && is_continuation_byte(text[cut])) --cut;
  text.resize(cut);
}

int message_severity(std::string_view level) {
  return level == "error" ? 2 : level == "warning" ? 1 : 0;
}

// Writes `value` as `width` zero-padded digits.
char *put_digits(char *out, unsigned value, int width) {
  for (int i = width - 1; i >= 0; --i, value /= 10) out[i] = static_cast<char>('0' + value % 10);
  return out + width;
}

// Formats without gmtime/strftime: glibc's gmtime_r takes a process-wide lock, and this runs
// for every emitted event.
std::size_t format_iso_timestamp(std::chrono::system_clock::time_point when, char (&out)[32]) {
  using namespace std::chrono;
  const auto ms = floor<milliseconds>(when);
  const auto day = floor<days>(ms);
  const year_month_day date{day};
  const hh_mm_ss time{ms - day};
  char *p = out;
  p = put_digits(p, static_cast<unsigned>(static_cast<int>(date.year())), 4);
  *p++ = '-';
  p = put_digits(p, static_cast<unsigned>(date.month()), 2);
  *p++ = '-';
  p = put_digits(p, static_cast<unsigned>(date.day()), 2);
  *p++ = 'T';
  p = put_digits(p, static_cast<unsigned>(time.hours().count()), 2);
  *p++ = ':';
  p = put_digits(p, static_cast<unsigned>(time.minutes().count()), 2);
  *p++ = ':';
  p = put_digits(p, static_cast<unsigned>(time.seconds().count()), 2);
  *p++ = '.';
  p = put_digits(p, static_cast<unsigned>(time.subseconds().count()), 3);
  *p++ = 'Z';
  return static_cast<std::size_t>(p - out);
}

}  // namespace

// What the registry does to an event that the handlers may not: set its payload's source.
struct HookEventAccess {
  // A DOM payload: the default fields the emitter did not set, then the timestamp.
  static void set_data(HookEvent &e, json::object data) {
    e.standard_fields_ = !data.contains("session_id") && !data.contains("timestamp");
    data.reserve(data.size() + e.defaults_->fields.size() + 1);
    for (const auto &[key, value] : e.defaults_->fields) data.emplace(key, value);
    const std::string_view stamp = e.timestamp();
    data.emplace("timestamp", json::string_view(stamp.data(), stamp.size()));
    e.dom_ = std::move(data);
  }
  // A JSON object as text, which holds none of the default fields nor a timestamp.
  static void set_text(HookEvent &e, std::string_view text) { e.text_ = text; }
  static void set_delta(HookEvent &e, std::uint32_t index, amp_delta_kind kind,
                        std::string_view text) {
    e.delta_ = HookEvent::Delta{index, kind, text};
    e.has_delta_ = true;
  }
  // A `modify` result: the payload handlers see from now on.
  static void replace(HookEvent &e, json::object data) {
    e.dom_ = std::move(data);
    e.json_.reset();
    e.has_delta_ = false;
    e.text_ = {};
    e.standard_fields_ = false;
  }
  static json::object take_data(HookEvent &e) {
    (void)e.data();
    return std::move(*e.dom_);
  }
};

HookEvent::HookEvent(std::string_view name, const Defaults &defaults)
    : name_(name), defaults_(&defaults) {}

std::string_view HookEvent::timestamp() const noexcept {
  if (timestamp_length_ == 0)
    timestamp_length_ = format_iso_timestamp(std::chrono::system_clock::now(), timestamp_);
  return {timestamp_, timestamp_length_};
}

std::string_view HookEvent::session_id() const noexcept { return defaults_->session_id; }

const json::object &HookEvent::data() {
  if (!dom_) dom_ = json::parse(data_json()).as_object();  // only a typed delta has no DOM yet
  return *dom_;
}

std::string_view HookEvent::data_json() {
  if (json_) return *json_;
  std::string &text = json_.emplace();
  if (dom_) {
    text = json::serialize(*dom_);
  } else if (!text_.empty()) {
    // The members as they came, then the default fields and the timestamp, as emplacing them
    // into the parsed object would have added them.
    const std::size_t close = text_.find_last_of('}');
    const std::size_t open = text_.find('{');
    const bool empty = text_.find_first_not_of(" \t\r\n", open + 1) == close;
    std::string_view defaults = defaults_->json_fields;
    text.reserve(close + defaults.size() + 64);  // one allocation: the payload may be megabytes
    text.assign(text_.substr(0, close));
    if (empty && !defaults.empty()) defaults.remove_prefix(1);  // no member before: no comma
    text += defaults;
    text += (empty && defaults.empty()) ? R"("timestamp":)" : R"(,"timestamp":)";
    amp::sdk::json::append_quoted(text, timestamp());
    text.push_back('}');
  } else if (has_delta_) {
    // What serialising the DOM path's payload would give: the delta's fields, the default
    // fields in their order, then the timestamp.
    amp::sdk::json::append_delta_hook_data(text, delta_.index, delta_.kind, delta_.text);
    text.pop_back();  // the closing brace
    text += defaults_->json_fields;
    text += R"(,"timestamp":)";
    amp::sdk::json::append_quoted(text, timestamp());
    text.push_back('}');
  } else {
    text = "{}";
  }
  return text;
}

std::optional<HookEvent::Delta> HookEvent::typed_delta() {
  if (has_delta_) return delta_;
  const json::object &payload = data();
  const json::value *index = payload.if_contains("block_index");
  if (!index || !index->is_number()) return std::nullopt;
  json::error_code ec;
  const auto block = index->to_number<std::uint32_t>(ec);
  if (ec) return std::nullopt;
  const json::value *delta = payload.if_contains("delta");
  if (!delta) {
    const json::value *fragment = payload.if_contains("partial_json");
    if (!fragment || !fragment->is_string()) return std::nullopt;
    return Delta{block, AMP_DELTA_TOOL_INPUT, fragment->get_string()};
  }
  if (!delta->is_object()) return std::nullopt;
  const json::value *type = delta->get_object().if_contains("type");
  if (!type || !type->is_string()) return std::nullopt;
  for (amp_delta_kind kind : {AMP_DELTA_TEXT, AMP_DELTA_THINKING, AMP_DELTA_SIGNATURE,
                              AMP_DELTA_REDACTED_THINKING}) {
    if (type->get_string() != amp::sdk::json::delta_type(kind)) continue;
    const json::value *text = delta->get_object().if_contains(amp::sdk::json::delta_field(kind));
    if (!text || !text->is_string()) return std::nullopt;
    return Delta{block, kind, text->get_string()};
  }
  return std::nullopt;
}

namespace {

// Folds handler results, in handler order, into `combined` (the caller's return value, so
// the large HookResult is built in place rather than moved out at the end). The payload lives
// in the event, where a modify replaces it for the handlers that follow.
class ResultCombiner {
 public:
  ResultCombiner(HookEvent &event, HookResult &combined) : event_(event), combined_(combined) {}

  // Returns true when the emit must stop here (deny).
  bool add(HookResult &&result, const HandlerEntry &from) {
    switch (result.action) {
      case HookAction::Deny:
        combined_ = std::move(result);  // the denial replaces whatever was gathered
        denied_ = true;
        return true;
      case HookAction::Modify: apply_modify(std::move(result.data), from); break;
      case HookAction::InjectContext: add_injection(result, from); break;
      case HookAction::AskUser: keep_first_question(result); break;
      case HookAction::Continue: break;
    }
    merge_user_facing_fields(result);
    return false;
  }

  // Settles the final action; with `with_payload`, also moves the final payload into the
  // result (as a DOM: callers that discard the result skip building one).
  void finish(bool with_payload) {
    HookResult &out = combined_;
    if (!denied_) {
      out.action = asked_                    ? HookAction::AskUser
                   : !out.injections.empty() ? HookAction::InjectContext
                   : modified_               ? HookAction::Modify
                                             : HookAction::Continue;
      if (!out.injections.empty()) summarise_injections(out);
    }
    if (with_payload) out.data = HookEventAccess::take_data(event_);
  }

 private:
  void apply_modify(json::value &&data, const HandlerEntry &from) {
    if (!data.is_object()) {
      log(LogLevel::Warning, kHooksLog,
          fmt::format("handler {} returned modify for '{}' without an object `data`; ignored",
                      from.label(), event_.name()));
      return;
    }
    HookEventAccess::replace(event_, std::move(data.get_object()));
    modified_ = true;
  }

  void add_injection(const HookResult &result, const HandlerEntry &from) {
    ContextInjection injection{sanitise_injection(result.context_injection),
                               result.context_injection_role, result.ephemeral,
                               result.append_to_last_tool_result};
    const std::size_t limit = std::min(HookRegistry::kMaxInjectionBytes,
                                       HookRegistry::kMaxInjectionBytesPerEmit - injected_bytes_);
    if (injection.text.size() > limit) {
      const std::size_t original = injection.text.size();
      truncate_utf8(injection.text, limit);
      log(LogLevel::Warning, kHooksLog,
          fmt::format("injection from handler {} for '{}' truncated from {} to {} bytes "
                      "(limits: {} per injection, {} per emit)",
                      from.label(), event_.name(), original, injection.text.size(),
                      HookRegistry::kMaxInjectionBytes, HookRegistry::kMaxInjectionBytesPerEmit));
    }
    if (injection.text.empty()) return;
    injected_bytes_ += injection.text.size();
    combined_.injections.push_back(std::move(injection));
  }

  void keep_first_question(const HookResult &result) {
    if (asked_) return;
    asked_ = true;
    combined_.approval_prompt = result.approval_prompt;
    combined_.approval_options = result.approval_options;
    combined_.approval_timeout = result.approval_timeout;
    combined_.approval_default = result.approval_default;
    combined_.reason = result.reason;
  }

  // Messages for the user from every handler are shown together, at the gravest level.
  void merge_user_facing_fields(const HookResult &result) {
    combined_.suppress_output = combined_.suppress_output || result.suppress_output;
    if (!result.user_message.empty()) {
      if (!combined_.user_message.empty()) combined_.user_message += '\n';
      combined_.user_message += result.user_message;
      if (message_severity(result.user_message_level) > message_severity(combined_.user_message_level))
        combined_.user_message_level = result.user_message_level;
    }
    for (const auto &[key, value] : result.extra)
      if (!combined_.extra.contains(key)) combined_.extra.emplace(key, value);
  }

  // The flat fields describe all injections together for callers that do not read
  // `injections`. Flags hold only when they hold for every injection: calling a mix
  // "ephemeral" would drop the durable parts, so the per-injection flags are the truth.
  static void summarise_injections(HookResult &out) {
    const auto &all = out.injections;
    out.context_injection.clear();
    for (const auto &injection : all) {
      if (!out.context_injection.empty()) out.context_injection += "\n\n";
      out.context_injection += injection.text;
    }
    out.context_injection_role = all.front().role;
    out.ephemeral = std::all_of(all.begin(), all.end(), [](auto &i) { return i.ephemeral; });
    out.append_to_last_tool_result = std::all_of(
        all.begin(), all.end(), [](auto &i) { return i.append_to_last_tool_result; });
  }

  HookEvent &event_;
  HookResult &combined_;
  bool denied_ = false;
  bool modified_ = false;
  bool asked_ = false;
  std::size_t injected_bytes_ = 0;
};

// Lets a DOM handler run as an event handler: it gets the payload as a DOM.
HookEventHandler adapt(HookHandler handler) {
  return [handler = std::move(handler)](HookEvent &event) -> std::optional<HookResult> {
    return handler(event.name(), event.data());
  };
}

}  // namespace

std::string iso_timestamp_now() {
  char buffer[32];
  return std::string(buffer, format_iso_timestamp(std::chrono::system_clock::now(), buffer));
}

struct HookRegistry::Impl {
  // Guards writers (`tables`, `next_id`) while they rebuild and publish; never held by emit.
  mutable std::mutex mutex;
  std::vector<std::shared_ptr<const Table>> tables;  // every table published, newest last
  std::atomic<const Table *> current{nullptr};
  HandlerId next_id = 1;

  // unregister() sleeps here until a removed handler stops running.
  std::mutex idle_mutex;
  std::condition_variable idle;

  Impl() { publish(build_table({}, {})); }

  const Table &snapshot() const { return *current.load(std::memory_order_acquire); }
  const Table &latest() const { return *tables.back(); }  // writers, under `mutex`

  void publish(std::shared_ptr<const Table> table) {
    tables.push_back(std::move(table));
    current.store(tables.back().get(), std::memory_order_release);
  }

  // Marks the call as running unless the entry was removed since the snapshot was taken.
  // Together with wait_until_idle this is a Dekker-style handshake: both sides write one
  // seq_cst atomic and then read the other's, so at least one of them sees the other.
  bool enter(HandlerEntry &entry) {
    entry.running.fetch_add(1);
    if (!entry.removed.load()) return true;
    leave(entry);
    return false;
  }

  void leave(HandlerEntry &entry) {
    entry.running.fetch_sub(1);
    if (entry.removed.load()) {
      { std::lock_guard lock(idle_mutex); }  // orders the wake-up after the waiter's check
      idle.notify_all();
    }
  }

  void wait_until_idle(const HandlerEntry &entry) {
    const int own_calls = calls_on_this_thread(entry);
    std::unique_lock lock(idle_mutex);
    idle.wait(lock, [&] { return entry.running.load() <= own_calls; });
  }

  HandlerId add(std::string event, HookEventHandler handler, int priority, std::string name,
                std::uint64_t owner) {
    if (event.empty()) throw std::invalid_argument("hook event name must not be empty");
    if (!handler) throw std::invalid_argument("hook handler for '" + event + "' is empty");
    auto entry = std::make_shared<HandlerEntry>();
    entry->event = std::move(event);
    entry->handler = std::move(handler);
    entry->priority = priority;
    entry->name = std::move(name);
    entry->owner = owner;

    std::lock_guard lock(mutex);
    entry->id = next_id++;
    auto entries = latest().entries;
    // After every entry of the same priority: ids grow, so this keeps registration order.
    auto position = std::upper_bound(entries.begin(), entries.end(), priority,
                                     [](int p, const EntryPtr &e) { return p < e->priority; });
    entries.insert(position, entry);
    publish(build_table(std::move(entries), latest().defaults.fields));
    return entry->id;
  }

  template <class Predicate>
  std::size_t remove_where(Predicate matches) {
    std::vector<EntryPtr> removed;
    {
      std::lock_guard lock(mutex);
      std::vector<EntryPtr> kept;
      for (const auto &entry : latest().entries) (matches(*entry) ? removed : kept).push_back(entry);
      if (removed.empty()) return 0;
      for (const auto &entry : removed) entry->removed.store(true);
      publish(build_table(std::move(kept), latest().defaults.fields));
    }
    for (const auto &entry : removed) {
      wait_until_idle(*entry);
      // Nobody can start it any more, so free what it captured now rather than with the
      // registry (maybe after a module library was unloaded). Not while this very thread is
      // still inside it, though.
      if (calls_on_this_thread(*entry) == 0) HookEventHandler().swap(entry->handler);
    }
    return removed.size();
  }

  // One handler call: counted as running (unless removed meanwhile) and recorded as this
  // thread's, for as long as the scope lives.
  class CallScope {
   public:
    CallScope(Impl &registry, HandlerEntry &entry)
        : registry_(registry), entry_(entry), frame_{&entry, t_innermost_call},
          entered_(registry.enter(entry)) {
      if (entered_) t_innermost_call = &frame_;
    }
    ~CallScope() {
      if (!entered_) return;
      t_innermost_call = frame_.outer;
      registry_.leave(entry_);
    }
    CallScope(const CallScope &) = delete;
    CallScope &operator=(const CallScope &) = delete;
    bool entered() const { return entered_; }

   private:
    Impl &registry_;
    HandlerEntry &entry_;
    RunningCall frame_;
    bool entered_;
  };

  static void log_failure(const HandlerEntry &entry, std::string_view event) {
    std::string why = "a non-standard exception";
    try {
      throw;
    } catch (const std::exception &e) {
      why = e.what();
    } catch (...) {
    }
    log(LogLevel::Error, kHooksLog, fmt::format("handler {} for '{}' failed: {}", entry.label(), event, why));
  }

  // Runs `handlers` on `event`, folding their results into `combined`.
  void run(const HandlerList &handlers, HookEvent &event, HookResult &combined,
           bool with_payload) {
    ResultCombiner combiner(event, combined);
    for (HandlerEntry *entry : handlers) {
      CallScope scope(*this, *entry);
      if (!scope.entered()) continue;
      bool handler_returned = false;
      try {
        std::optional<HookResult> result = entry->handler(event);
        handler_returned = true;
        if (result && combiner.add(std::move(*result), *entry)) break;
      } catch (...) {
        if (handler_returned) throw;  // the combiner ran out of memory: not the handler's fault
        log_failure(*entry, event.name());
      }
    }
    combiner.finish(with_payload);
  }
};

HookRegistry::HookRegistry() : impl_(std::make_unique<Impl>()) {}
HookRegistry::~HookRegistry() = default;

HookRegistry::HandlerId HookRegistry::register_handler(std::string event, HookHandler handler,
                                                       int priority, std::string name,
                                                       std::uint64_t owner) {
  if (!handler) throw std::invalid_argument("hook handler for '" + event + "' is empty");
  return impl_->add(std::move(event), adapt(std::move(handler)), priority, std::move(name), owner);
}

HookRegistry::HandlerId HookRegistry::register_event_handler(std::string event,
                                                             HookEventHandler handler,
                                                             int priority, std::string name,
                                                             std::uint64_t owner) {
  return impl_->add(std::move(event), std::move(handler), priority, std::move(name), owner);
}

std::size_t HookRegistry::unregister(HandlerId id) {
  return impl_->remove_where([id](const HandlerEntry &e) { return e.id == id; });
}

std::size_t HookRegistry::unregister(std::string_view name, std::uint64_t owner) {
  if (name.empty()) return 0;  // unnamed handlers are removed by id or owner
  return impl_->remove_where(
      [&](const HandlerEntry &e) { return e.name == name && (owner == 0 || e.owner == owner); });
}

std::size_t HookRegistry::unregister_owner(std::uint64_t owner) {
  if (owner == 0) return 0;  // 0 means "no owner", not "everyone"
  return impl_->remove_where([owner](const HandlerEntry &e) { return e.owner == owner; });
}

void HookRegistry::set_default_fields(json::object fields) {
  std::lock_guard lock(impl_->mutex);
  impl_->publish(build_table(impl_->latest().entries, std::move(fields)));
}

HookResult HookRegistry::emit(std::string_view event, json::object data) {
  const Table &table = impl_->snapshot();
  HookEvent payload(event, table.defaults);
  HookEventAccess::set_data(payload, std::move(data));
  HookResult combined;
  impl_->run(table.handlers_for(event), payload, combined, /*with_payload=*/true);
  return combined;
}

void HookRegistry::notify(std::string_view event, json::object data) {
  const Table &table = impl_->snapshot();
  const HandlerList &handlers = table.handlers_for(event);
  if (handlers.empty()) return;
  HookEvent payload(event, table.defaults);
  HookEventAccess::set_data(payload, std::move(data));
  HookResult discarded;
  impl_->run(handlers, payload, discarded, /*with_payload=*/false);
}

void HookRegistry::notify_json(std::string_view event, std::string_view data_json) {
  const Table &table = impl_->snapshot();
  const HandlerList &handlers = table.handlers_for(event);
  if (handlers.empty()) return;
  // One pass validates the text and tells whether it sets a field the registry would add.
  thread_local JsonFieldReader reader;
  thread_local const std::array<JsonFieldReader::Field, 2> stamps = [] {
    return std::array{reader.declare({"timestamp"}), reader.declare({"session_id"})};
  }();
  const auto first = data_json.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || data_json[first] != '{' || !reader.read(data_json))
    throw std::invalid_argument("an event's data must be a JSON object");
  bool sets_own_fields = reader.has(stamps[0]) || reader.has(stamps[1]);
  for (const auto &[key, value] : table.defaults.fields)
    sets_own_fields = sets_own_fields || data_json.find(key) != std::string_view::npos;
  if (sets_own_fields) return notify(event, json::parse(data_json).as_object());
  HookEvent payload(event, table.defaults);
  HookEventAccess::set_text(payload, data_json);
  HookResult discarded;
  impl_->run(handlers, payload, discarded, /*with_payload=*/false);
}

void HookRegistry::emit_content_delta(std::uint32_t index, amp_delta_kind kind,
                                      std::string_view text) {
  const Table &table = impl_->snapshot();
  const HandlerList &handlers = *table.content_delta;
  if (handlers.empty()) return;
  HookEvent payload(events::kContentBlockDelta, table.defaults);
  HookEventAccess::set_delta(payload, index, kind, text);
  HookResult discarded;
  impl_->run(handlers, payload, discarded, /*with_payload=*/false);
}

bool HookRegistry::has_handlers(std::string_view event) const {
  return !impl_->snapshot().handlers_for(event).empty();
}

std::size_t HookRegistry::handler_count() const { return impl_->snapshot().entries.size(); }

}  // namespace amplifier
