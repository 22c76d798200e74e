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

  static amp_status on_event(void *self, amp_str event, amp_str data_json, amp_writer *result) noexcept {
    auto *hook = static_cast<RedactionHook *>(self);
    try {
      hook->redact(amp::sdk::from_amp(event), amp::sdk::from_amp(data_json), result);
      return AMP_OK;
    } catch (const std::exception &e) {
      if (!hook->failure_warned_.exchange(true))
        hook->host().warn(std::string("hooks-redaction: could not redact an event: ") + e.what());
    }
    return AMP_ERROR;
  }

  void redact(std::string_view event, std::string_view data_json, amp_writer *result) const {
    for (const auto &pattern : skip_events_)
      if (command_match::wildcard_match(pattern, event)) return;
    json::value data = ms::parse_json(data_json, "event data");
    if (!redactor_.redact(data)) return;  // nothing found: continue, the payload untouched
    amp::sdk::write_to(result, json::serialize(json::object{{"action", "modify"}, {"data", std::move(data)}}));
  }

  const std::vector<std::string> skip_events_;
  Redactor redactor_;
  std::atomic<bool> scan_failure_warned_{false};
  std::atomic<bool> failure_warned_{false};
};

}  // namespace
}  // namespace hooks_redaction

AMP_DEFINE_MODULE(hooks_redaction::RedactionHook, "hooks-redaction", "0.1.0",
                  "Replaces secrets and personal data in event payloads with [REDACTED:...] markers");
