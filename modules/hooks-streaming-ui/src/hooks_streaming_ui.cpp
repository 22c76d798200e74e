// hooks-streaming-ui: the session as a person watches it, written to a terminal or a file.
// What it shows and when is described in display.hpp; this file reads the config and
// connects the display to the kernel's events.
//
// Config:
//   show_thinking     true   thinking blocks (and reasoning summaries) shown in full, apart
//                            from the answer
//   show_tool_lines   5      lines of each tool result shown (0: none)
//   show_token_usage  true   the turn's summed token usage at its end
//   output            "stdout" | "stderr" | a path (appended; a FIFO or a terminal device
//                     such as /dev/tty works too)
//
// It registers at priority 500: after hooks-redaction (100), so what it shows is redacted,
// and before hooks-logging (1000). It never changes an event.
#include "display.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier_sdk.hpp"

#include <atomic>

namespace streaming_ui {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;

constexpr const char *kHandlerName = "hooks-streaming-ui";
constexpr std::int32_t kHandlerPriority = 500;

DisplayOptions read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "hooks-streaming-ui config");
  DisplayOptions options;
  options.show_thinking = reader.get_bool("show_thinking", options.show_thinking);
  options.tool_lines = static_cast<std::size_t>(
      reader.get_int("show_tool_lines", static_cast<std::int64_t>(options.tool_lines), 0, 10'000));
  options.show_token_usage = reader.get_bool("show_token_usage", options.show_token_usage);
  options.output = reader.get_string("output", options.output);
  if (options.output.empty()) throw reader.error("output", "must be \"stdout\", \"stderr\" or a path");
  reader.warn_unknown_keys(host);
  return options;
}

class StreamingUiHook final : public amp::sdk::HookModule {
 public:
  StreamingUiHook(amp::sdk::Host host, std::string_view config_json)
      : HookModule(host), display_(read_config(host, config_json)) {
    // Last: once registered, the host may call the handler with `this` at any time. Deltas,
    // the stream's hot path, come typed: no JSON is rendered for this hook nor parsed by it
    // (only reasoning deltas, which are structured, still come as JSON).
    for (const auto &event : Display::events()) {
      const amp_status status =
          event == "content_block:delta"
              ? host.hook_register_delta(kHandlerPriority, kHandlerName, &on_delta, &on_event, this)
              : host.hook_register(event, kHandlerPriority, kHandlerName, &on_event, this);
      if (status != AMP_OK) {
        host.hook_unregister(kHandlerName);
        throw std::runtime_error("hooks-streaming-ui: registering for " + event + " failed (status " +
                                 std::to_string(static_cast<int>(status)) + ")");
      }
    }
  }

 private:
  static amp_status on_delta(void *self, const amp_hook_delta *delta) noexcept {
    auto *hook = static_cast<StreamingUiHook *>(self);
    try {
      hook->display_.handle_delta(delta->block_index, delta->kind, amp::sdk::from_amp(delta->text));
      return AMP_OK;
    } catch (const std::exception &e) {
      if (!hook->failure_warned_.exchange(true))
        hook->host().warn(std::string("hooks-streaming-ui: could not show an event: ") + e.what());
    }
    return AMP_ERROR;
  }

  static amp_status on_event(void *self, amp_str event, amp_str data_json, amp_writer *) noexcept {
    auto *hook = static_cast<StreamingUiHook *>(self);
    try {
      hook->display_.handle(amp::sdk::from_amp(event),
                            ms::parse_json_object(amp::sdk::from_amp(data_json), "event data"));
      return AMP_OK;
    } catch (const std::exception &e) {
      if (!hook->failure_warned_.exchange(true))
        hook->host().warn(std::string("hooks-streaming-ui: could not show an event: ") + e.what());
    }
    return AMP_ERROR;
  }

  Display display_;
  std::atomic<bool> failure_warned_{false};
};

}  // namespace
}  // namespace streaming_ui

AMP_DEFINE_MODULE(streaming_ui::StreamingUiHook, "hooks-streaming-ui", "0.1.0",
                  "Shows the session as it happens: thinking, streamed answers, tool calls, token usage");
