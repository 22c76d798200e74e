// hooks-redaction: removes secrets and personal data from every event's payload before the
// hooks that record or show it (hooks-logging at priority 1000, the streaming display at 500)
// see it. It registers on "*" at priority 100 and answers {"action":"modify","data":...} with
// the redacted payload when it found something, and nothing (continue) otherwise. What is
// found and how is described in redactor.hpp.
//
// Config:
//   rules:          {category: bool, ...}; "secrets" and "pii" switch a whole group first,
//                   then single categories override (e.g. {pii: false, email: true}).
//                   Every category is on by default.
//   allowlist:      globs; found text matching one is kept ("*@example.com", "sk-test-*").
//   extra_patterns: [{name, pattern}] or plain pattern strings (named "custom"): further
//                   ECMAScript expressions, each match replaced by "[REDACTED:<name>]".
//   skip_events:    event-name globs left untouched (e.g. "content_block:*").
//
// What a modify changes downstream: the payload later hooks see, and whatever an
// orchestrator takes from a modified payload. loop-basic takes a modified tool:post `result`
// as the tool result, so a secret a tool printed is redacted in what the model reads too.
//
// THREADS: the handler runs on every emitting thread at once; the Redactor is immutable.
#include "redactor.hpp"

#include "amplifier/module_support/command_match.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <atomic>
#include <map>
#include <mutex>

namespace hooks_redaction {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;

constexpr const char *kHandlerName = "hooks-redaction";
// Before the hooks that log (1000) or display (500) events, after policy hooks (< 0).
constexpr std::int32_t kHandlerPriority = 100;

struct RedactionConfig {
  RedactorSettings settings;
  std::vector<std::string> skip_events;
};

void switch_group(std::set<std::string> &enabled, const std::vector<std::string> &group, bool on) {
  for (const auto &name : group) {
    if (on) enabled.insert(name);
    else enabled.erase(name);
  }
}

std::set<std::string> read_categories(ms::ConfigReader &reader) {
  std::set<std::string> enabled(category_names().begin(), category_names().end());
  auto rules = reader.get_object("rules");
  if (!rules) return enabled;
  if (rules->has("secrets")) switch_group(enabled, secret_categories(), rules->get_bool("secrets", true));
  if (rules->has("pii")) switch_group(enabled, pii_categories(), rules->get_bool("pii", true));
  for (const auto &name : category_names()) {
    if (!rules->has(name)) continue;
    if (rules->get_bool(name, true)) enabled.insert(name);
    else enabled.erase(name);
  }
  for (const auto &unknown : rules->unknown_keys()) {
    std::vector<std::string> known = category_names();
    known.push_back("secrets");
    known.push_back("pii");
    std::string message = "is not a category";
    if (auto suggestion = ms::closest_match(unknown, known)) message += " (did you mean '" + *suggestion + "'?)";
    throw rules->error(unknown, message);
  }
  return enabled;
}

std::vector<ExtraPattern> read_extra_patterns(ms::ConfigReader &reader) {
  std::vector<ExtraPattern> patterns;
  const auto *list = reader.get_array("extra_patterns");
  if (!list) return patterns;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json::value &item = (*list)[i];
    const std::string context = reader.context() + ": extra_patterns[" + std::to_string(i) + "]";
    if (item.is_string()) {
      patterns.push_back({"custom", std::string(item.get_string())});
      continue;
    }
    if (!item.is_object()) throw ms::ConfigError(context + " must be a pattern string or {name, pattern}");
    ms::ConfigReader entry(item.get_object(), context);
    ExtraPattern pattern{entry.get_string("name", "custom"), entry.get_string("pattern", "")};
    if (pattern.pattern.empty()) throw entry.error("pattern", "is required");
    for (const auto &message : entry.unknown_key_messages()) throw ms::ConfigError(message);
    patterns.push_back(std::move(pattern));
  }
  return patterns;
}

RedactionConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "hooks-redaction config");
  RedactionConfig config;
  config.settings.enabled = read_categories(reader);
  config.settings.allowlist = reader.get_string_list("allowlist", {});
  config.settings.extra_patterns = read_extra_patterns(reader);
  config.skip_events = reader.get_string_list("skip_events", {});
  reader.warn_unknown_keys(host);
  return config;
}

Redactor make_redactor(const RedactionConfig &config) {
  try {
    return Redactor(config.settings);
  } catch (const std::invalid_argument &e) {
    throw ms::ConfigError(std::string("hooks-redaction config: ") + e.what());
  }
}

class RedactionHook final : public amp::sdk::HookModule {
 public:
  RedactionHook(amp::sdk::Host host, std::string_view config_json)
      : RedactionHook(host, read_config(host, config_json)) {}

 private:
  RedactionHook(amp::sdk::Host host, RedactionConfig config)
      : HookModule(host), skip_events_(std::move(config.skip_events)), redactor_(make_redactor(config)) {
    redactor_.on_scan_failure([this](const std::string &problem) {
      if (!scan_failure_warned_.exchange(true))
        this->host().warn("hooks-redaction: " + problem + "; the string was replaced as a whole");
    });
    // Last: once registered, the host may call the handler with `this` at any time.
    const amp_status status = host.hook_register("*", kHandlerPriority, kHandlerName, &RedactionHook::on_event, this);
    if (status != AMP_OK)
      throw std::runtime_error("hooks-redaction: registering the '*' handler failed (status " +
                               std::to_string(static_cast<int>(status)) + ")");
  }

  // Fails closed: when an event cannot be redacted (its payload does not parse, nests deeper than
  // the reader takes, the matcher throws, memory runs out), its payload is replaced by a marker.
  // Returning an error would make the host skip this handler and hand the raw payload to the
  // hooks that log and display it.
  static amp_status on_event(void *self, amp_str event, amp_str data_json, amp_writer *result) noexcept {
    auto *hook = static_cast<RedactionHook *>(self);
    try {
      std::string answer = hook->redact(amp::sdk::from_amp(event), amp::sdk::from_amp(data_json));
      if (!answer.empty()) amp::sdk::write_to(result, answer);
      return AMP_OK;
    } catch (const std::exception &e) {
      if (!hook->failure_warned_.exchange(true))
        hook->host().warn(std::string("hooks-redaction: could not redact an event, its payload was "
                                      "replaced by a marker: ") +
                          e.what());
    } catch (...) {
    }
    amp::sdk::write_to(result, kFailedAnswer);
    return AMP_OK;
  }

  // The hook's answer: a modify with the redacted payload, or empty (continue, untouched).
  std::string redact(std::string_view event, std::string_view data_json) {
    for (const auto &pattern : skip_events_)
      if (command_match::wildcard_match(pattern, event)) return {};
    json::value data = ms::parse_json(data_json, "event data");
    if (event == "content_block:delta" && data.is_object() && hold_back(data.as_object()))
      return json::serialize(json::object{{"action", "modify"}, {"data", std::move(data)}});
    if ((event == "content_block:start" || event == "content_block:end") && data.is_object())
      flush(data.as_object());
    if (!redactor_.redact(data)) return {};  // nothing found: continue, the payload untouched
    return json::serialize(json::object{{"action", "modify"}, {"data", std::move(data)}});
  }

  // ---- streamed text -------------------------------------------------------------------
  //
  // A secret can arrive split over two deltas ("sk-ant-api03-AbC" + "dEf..."), which neither
  // matches alone. So the text of each streamed block is held back and released redacted in
  // pieces that are safe to cut off: a piece ends after whitespace, at least kHoldBack bytes
  // before the end of what has arrived, and only where redacting the held text in two parts
  // gives what redacting it whole gives (no match crosses the cut). Each delta then carries
  // the released part (maybe empty). What is still held when the block ends (or a new block
  // with its index starts) is released redacted as one more delta, emitted just before the
  // content_block:end, marked "redaction_flush": the display and the log see the whole text,
  // redacted as the assembled text is. content_block:end's own block is redacted whole.

  // Bytes kept back behind the release point: longer than any multi-word secret the
  // categories find (a card number in groups, a phone number, "password = value").
  static constexpr std::size_t kHoldBack = 96;
  // Past this, text without a safe cut is released anyway (redacted whole as it stands).
  static constexpr std::size_t kMaxHeld = 64 * 1024;

  struct HeldText {
    std::string type;   // "text" | "thinking"
    std::string field;  // the delta's field with the text
    std::string text;   // not released yet, raw
    json::value index;
  };

  // Rewrites a text or thinking delta to carry only the released part; false for other deltas.
  bool hold_back(json::object &data) {
    if (data.contains("redaction_flush")) return false;  // ours: redacted already
    json::value *delta = data.if_contains("delta");
    if (!delta || !delta->is_object()) return false;
    json::object &fields = delta->as_object();
    const json::value *type = fields.if_contains("type");
    if (!type || !type->is_string()) return false;
    const std::string field = type->as_string() == "text"       ? "text"
                              : type->as_string() == "thinking" ? "thinking"
                                                                : "";
    json::value *piece = field.empty() ? nullptr : fields.if_contains(field);
    if (!piece || !piece->is_string()) return false;
    const json::value *index = data.if_contains("block_index");
    const std::string key = index ? json::serialize(*index) : std::string();
    std::string released;
    {
      std::lock_guard lock(held_mutex_);
      HeldText &held = held_[key];
      held.type = std::string(type->as_string());
      held.field = field;
      held.index = index ? *index : json::value();
      held.text.append(piece->as_string());
      released = release(held.text);
    }
    *piece = released;
    return true;
  }

  // Takes the safe part off the front of `held` and returns it redacted.
  std::string release(std::string &held) const {
    if (held.size() > kMaxHeld) {
      std::string all = redacted(held);
      held.clear();
      return all;
    }
    if (held.size() <= kHoldBack) return {};
    const std::string whole = redacted(held);
    std::size_t limit = held.size() - kHoldBack;
    for (int tries = 0; tries < 4; ++tries) {
      std::size_t cut = held.find_last_of(" \t\n", limit == 0 ? 0 : limit - 1);
      if (cut == std::string::npos) return {};
      ++cut;  // after the whitespace
      std::string front = redacted(held.substr(0, cut));
      if (front + redacted(held.substr(cut)) == whole) {
        held.erase(0, cut);
        return front;
      }
      if (cut <= 1) return {};
      limit = cut - 1;
    }
    return {};
  }

  std::string redacted(std::string text) const {
    redactor_.redact_string(text);
    return text;
  }

  // Releases what is held for the block `data` names, as a delta emitted now.
  void flush(const json::object &data) {
    const json::value *index = data.if_contains("block_index");
    const std::string key = index ? json::serialize(*index) : std::string();
    HeldText held;
    {
      std::lock_guard lock(held_mutex_);
      auto it = held_.find(key);
      if (it == held_.end()) return;
      held = std::move(it->second);
      held_.erase(it);
    }
    if (held.text.empty()) return;
    const json::object delta{
        {"block_index", held.index},
        {"delta", json::object{{"type", held.type}, {held.field, redacted(held.text)}}},
        {"redaction_flush", true}};
    host().notify("content_block:delta", json::serialize(delta));
  }

  static constexpr std::string_view kFailedAnswer =
      R"({"action":"modify","data":{"redacted":"[REDACTED:redaction_failed]"}})";

  const std::vector<std::string> skip_events_;
  Redactor redactor_;
  std::mutex held_mutex_;
  std::map<std::string, HeldText> held_;  // by block index
  std::atomic<bool> scan_failure_warned_{false};
  std::atomic<bool> failure_warned_{false};
};

}  // namespace
}  // namespace hooks_redaction

AMP_DEFINE_MODULE(hooks_redaction::RedactionHook, "hooks-redaction", "0.1.0",
                  "Replaces secrets and personal data in event payloads with [REDACTED:...] markers");
