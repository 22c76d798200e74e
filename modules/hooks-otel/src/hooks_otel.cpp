// hooks-otel: the session as OpenTelemetry traces (GenAI semantic conventions), sent to an
// OTLP/HTTP collector with the JSON encoding. See span_tracker.hpp for the spans and
// otlp_exporter.hpp for how they leave.
//
// Trust: the endpoint and its headers (an API key, say) come from the operator's plan; a serve
// client's plan may not set them (plan_trust's granting words: endpoint, headers), and a model
// never reaches them. Spans carry no prompt, answer, tool argument or result unless the plan
// says capture_content: true.
//
// THREADS: the handlers run on whichever thread emits, concurrently; SpanTracker and the
// exporter keep their own locks. The host unregisters the handlers before destroying the
// instance, whose destructor then sends what is left.
#include "otlp_exporter.hpp"
#include "span_tracker.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/module_support/session_facts.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/parse.hpp>

#include <atomic>
#include <memory>

namespace hooks_otel {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;

constexpr const char *kHandlerName = "hooks-otel";
// After the usual priorities: a span records what the other handlers left.
constexpr std::int32_t kHandlerPriority = 900;

struct OtelConfig {
  ExportOptions export_options;
  TrackerOptions tracker;
};

OtelConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "hooks-otel config");
  OtelConfig config;
  ExportOptions &e = config.export_options;
  e.endpoint = reader.get_string("endpoint", e.endpoint);
  if (!e.endpoint.starts_with("http://") && !e.endpoint.starts_with("https://"))
    throw reader.error("endpoint", "must be an http:// or https:// URL (the collector's "
                                   "/v1/traces), got '" + e.endpoint + "'");
  if (auto headers = reader.get_object("headers")) {
    for (const auto &member : headers->object()) {
      if (!member.value().is_string())
        throw reader.error("headers", "each header's value must be a string");
      e.headers.emplace_back(std::string(member.key()), std::string(member.value().get_string()));
    }
  }
  e.max_batch = static_cast<std::size_t>(reader.get_int("max_batch", 512, 1, 100000));
  e.max_queue = static_cast<std::size_t>(reader.get_int("max_queue", 8192, 1, 10000000));
  e.schedule_delay = std::chrono::milliseconds(reader.get_int("schedule_delay_ms", 1000, 1, 3600000));
  e.export_timeout = std::chrono::milliseconds(reader.get_int("export_timeout_ms", 10000, 100, 600000));
  e.shutdown_timeout =
      std::chrono::milliseconds(reader.get_int("shutdown_timeout_ms", 3000, 0, 600000));
  e.resource = {{"service.name", reader.get_string("service_name", "amplifier")},
                {"telemetry.sdk.name", std::string("amplifier-hooks-otel")},
                {"telemetry.sdk.language", std::string("cpp")}};
  config.tracker.capture_content = reader.get_bool("capture_content", false);
  config.tracker.max_content_chars =
      static_cast<std::size_t>(reader.get_int("max_content_chars", 16384, 16, 10000000));
  reader.warn_unknown_keys(host);
  return config;
}

std::string parent_id_of(const amp::sdk::Host &host) {
  json::value info = json::parse(host.session_info());
  const json::value *parent = info.is_object() ? info.as_object().if_contains("parent_id") : nullptr;
  return parent && parent->is_string() ? std::string(parent->get_string()) : std::string();
}

class OtelHook final : public amp::sdk::HookModule {
 public:
  OtelHook(amp::sdk::Host host, std::string_view config_json)
      : HookModule(host),
        config_(read_config(host, config_json)),
        exporter_(config_.export_options,
                  [host](const std::string &message) { host.warn(message); }),
        tracker_(ms::session_id_of(host), parent_id_of(host), config_.tracker,
                 [this](Span span) { exporter_.add(std::move(span)); }) {
    // Last: once registered, the host may call the handlers with `this` at any time.
    for (std::string_view event : SpanTracker::events()) {
      const amp_status status =
          host.hook_register(event, kHandlerPriority, kHandlerName, &OtelHook::on_event, this);
      if (status != AMP_OK)
        throw std::runtime_error("hooks-otel: registering for " + std::string(event) +
                                 " failed (status " + std::to_string(static_cast<int>(status)) + ")");
    }
  }

 private:
  static amp_status on_event(void *self, amp_str event, amp_str data_json, amp_writer *) noexcept {
    auto *hook = static_cast<OtelHook *>(self);
    try {
      json::value data = json::parse(amp::sdk::from_amp(data_json));
      if (data.is_object()) hook->tracker_.on_event(amp::sdk::from_amp(event), data.as_object());
      return AMP_OK;
    } catch (const std::exception &e) {
      if (!hook->event_failure_warned_.exchange(true))
        hook->host().warn(std::string("hooks-otel: an event could not be traced: ") + e.what());
    } catch (...) {
    }
    return AMP_OK;  // tracing never stands in a turn's way
  }

  const OtelConfig config_;
  OtlpExporter exporter_;  // before the tracker: the tracker hands it its last spans
  SpanTracker tracker_;
  std::atomic<bool> event_failure_warned_{false};
};

}  // namespace
}  // namespace hooks_otel

AMP_DEFINE_MODULE(hooks_otel::OtelHook, "hooks-otel", "0.1.0",
                  "Traces the session (turns, LLM calls, tools, child sessions) to an OTLP/HTTP "
                  "collector with the OpenTelemetry GenAI conventions");
