// hooks-logging: appends every event of the session, as one JSON line
// {"event","data","session_id","ts"}, to the session's events.jsonl.
//
// It registers for "*" at a high priority (runs after the other handlers) so what it records
// is the payload as earlier handlers left it. Long strings are cut (max_string_bytes), and the
// file rotates at rotate_bytes, keeping keep_files older files (events.jsonl.1 ... .N), so a
// session that runs for days never fills the disk and never stops being logged. A provider's
// complete payloads (llm:*:raw) are left out unless log_raw_events says otherwise.
//
// THREADS: the handler runs on whichever thread emits, concurrently; EventLogFile serialises
// the writes. The host unregisters the handler before destroying the instance.
#include "event_log_file.hpp"
#include "truncation.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/session_facts.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/module_support/paths.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <atomic>
#include <chrono>
#include <ctime>
#include <memory>

namespace hooks_logging {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;
using ms::now_iso8601;
using ms::session_id_of;

constexpr const char *kHandlerName = "hooks-logging";
// Runs after handlers of the usual priorities (0..100), so it logs what they produced.
constexpr std::int32_t kHandlerPriority = 1000;
// Rotated files are renamed one by one at each rotation: a few hundred is already plenty.
constexpr std::int64_t kMaxKeptFiles = 1000;

struct LoggingConfig {
  std::string session_log_template = "~/.amplifier/sessions/{session_id}/events.jsonl";
  std::uint64_t max_string_bytes = 16 * 1024;        // per string in `data`; 0 = no limit
  RotationPolicy rotation{100ull * 1024 * 1024, 5};  // rotate_bytes (0 = never), keep_files
  // Whether the providers' complete payloads (llm:request:raw, llm:response:raw, at a
  // provider's raw_debug level) are written too: they can be most of a log's bytes, so only
  // when asked.
  bool log_raw_events = false;
};

LoggingConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "hooks-logging config");
  LoggingConfig config;
  config.session_log_template =
      reader.get_string("session_log_template", config.session_log_template);
  config.max_string_bytes = static_cast<std::uint64_t>(
      reader.get_int("max_string_bytes", static_cast<std::int64_t>(config.max_string_bytes), 0));
  config.rotation.rotate_bytes = static_cast<std::uint64_t>(
      reader.get_int("rotate_bytes", static_cast<std::int64_t>(config.rotation.rotate_bytes), 0));
  config.rotation.keep_files = static_cast<std::uint32_t>(
      reader.get_int("keep_files", config.rotation.keep_files, 0, kMaxKeptFiles));
  config.log_raw_events = reader.get_bool("log_raw_events", config.log_raw_events);
  reader.warn_unknown_keys(host);
  if (config.session_log_template.empty()) {
    throw reader.error("session_log_template", "must not be empty");
  }
  return config;
}

class LoggingHook final : public amp::sdk::HookModule {
 public:
  LoggingHook(amp::sdk::Host host, std::string_view config_json)
      : HookModule(host),
        config_(read_config(host, config_json)),
        session_id_(session_id_of(host)),
        file_(ms::expand_path_template(config_.session_log_template, session_id_),
              config_.rotation) {
    // Last: once registered, the host may call the handler with `this` at any time.
    const amp_status status =
        host.hook_register("*", kHandlerPriority, kHandlerName, &LoggingHook::on_event, this);
    if (status != AMP_OK) {
      throw std::runtime_error("hooks-logging: registering the '*' handler failed (status " +
                               std::to_string(static_cast<int>(status)) + ")");
    }
  }

 private:
  static amp_status on_event(void *self, amp_str event, amp_str data_json,
                             amp_writer * /*result: nothing written means continue*/) noexcept {
    auto *hook = static_cast<LoggingHook *>(self);
    try {
      hook->record(amp::sdk::from_amp(event), amp::sdk::from_amp(data_json));
      return AMP_OK;
    } catch (const std::exception &e) {
      hook->warn_once(hook->record_failure_warned_,
                      std::string("hooks-logging: could not log an event: ") + e.what());
    } catch (...) {
      hook->warn_once(hook->record_failure_warned_, "hooks-logging: could not log an event");
    }
    return AMP_ERROR;
  }

  void record(std::string_view event, std::string_view data_json) {
    if (!config_.log_raw_events && event.ends_with(":raw")) return;
    // A payload shorter than the string limit holds no string to cut, and the host hands it
    // over as serialised JSON: it goes into the line as it is, with no parse (every stream
    // delta takes this way).
    if (config_.max_string_bytes == 0 || data_json.size() <= config_.max_string_bytes)
      return report(file_.append(spliced_line(event, data_json)));
    json::value data;
    try {
      data = ms::parse_json(data_json, "event data");
    } catch (const std::invalid_argument &) {
      data = json::string(data_json);  // keep what came, as text (still truncated below)
    }
    truncate_long_strings(data, config_.max_string_bytes);
    json::object line{{"event", event},
                      {"data", std::move(data)},
                      {"session_id", session_id_},
                      {"ts", now_iso8601()}};
    report(file_.append(json::serialize(line)));
  }

  // {"event":...,"data":<data_json>,"session_id":...,"ts":...}: what serialising the object
  // record() builds gives, without building it.
  std::string spliced_line(std::string_view event, std::string_view data_json) const {
    std::string line;
    line.reserve(data_json.size() + event.size() + session_id_.size() + 96);
    line += R"({"event":)";
    amp::sdk::json::append_quoted(line, event);
    line += R"(,"data":)";
    line += data_json;
    line += R"(,"session_id":)";
    amp::sdk::json::append_quoted(line, session_id_);
    line += R"(,"ts":)";
    amp::sdk::json::append_quoted(line, now_iso8601());
    line += '}';
    return line;
  }

  void report(EventLogFile::Outcome outcome) {
    switch (outcome) {
      case EventLogFile::Outcome::rotation_failed:
        warn_once(rotation_failure_warned_,
                  "hooks-logging: rotating " + file_.path().string() + " at rotate_bytes (" +
                      std::to_string(config_.rotation.rotate_bytes) +
                      " bytes) failed: " + file_.last_error() +
                      "; events go on to the current file, and rotation is tried again later");
        break;
      case EventLogFile::Outcome::write_failed:
        warn_once(write_failure_warned_, "hooks-logging: writing " + file_.path().string() +
                                             " failed: " + file_.last_error());
        break;
      case EventLogFile::Outcome::written:
      case EventLogFile::Outcome::rotated:
        break;
    }
  }

  // One warning per kind of failure: a full disk must not turn into one warning per event.
  void warn_once(std::atomic<bool> &flag, const std::string &message) noexcept {
    if (!flag.exchange(true)) host().warn(message);
  }

  const LoggingConfig config_;
  const std::string session_id_;
  EventLogFile file_;
  std::atomic<bool> write_failure_warned_{false};
  std::atomic<bool> rotation_failure_warned_{false};
  std::atomic<bool> record_failure_warned_{false};
};

}  // namespace
}  // namespace hooks_logging

AMP_DEFINE_MODULE(hooks_logging::LoggingHook, "hooks-logging", "0.1.0",
                  "Appends every event as a JSON line to the session's events.jsonl");
