// context-simple: the conversation as an in-memory list of unified Message JSON objects.
//
// Messages are validated with the model library (Message::from_json) but stored as the JSON
// they arrived as, so nothing the model does not know (extra fields, block types) is lost and
// what get_messages returns is byte-for-byte what was added.
//
// THREADS: every function may run concurrently (the orchestrator adds tool results from
// several threads); one mutex guards the list. Readers copy under the lock and serialise
// outside it.
#include "amplifier/model.hpp"
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace context_simple {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;

struct ContextConfig {
  std::int64_t max_tokens = 200000;   // the budget compaction will keep the request under
  double compact_threshold = 0.92;    // the fraction of max_tokens that will trigger compaction
};

ContextConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "context-simple config");
  ContextConfig config;
  config.max_tokens = reader.get_int("max_tokens", config.max_tokens, 1);
  config.compact_threshold = reader.get_number("compact_threshold", config.compact_threshold, 0.0, 1.0);
  reader.warn_unknown_keys(host);
  return config;
}

// Throws std::invalid_argument naming the problem ("message: role 'robot' is not ...") when
// `message` is not a valid unified Message. The SDK turns that into an error status.
void validate_message(const json::value &message, std::string_view where) {
  try {
    (void)amplifier::from_json<amplifier::Message>(message);
  } catch (const amplifier::ModelError &e) {
    throw std::invalid_argument(std::string(where) + ": " + e.what());
  }
}

// The hints of context_get_messages_for_request ({"provider","model","context_window",
// "max_output_tokens"}); empty text means none.
struct RequestHints {
  std::optional<std::string> provider;
  std::optional<std::string> model;
  std::optional<std::int64_t> context_window;
  std::optional<std::int64_t> max_output_tokens;
};

RequestHints read_hints(std::string_view request_json) {
  RequestHints hints;
  if (request_json.find_first_not_of(" \t\r\n") == std::string_view::npos) return hints;
  const json::object object = ms::parse_json_object(request_json, "request hints");
  auto string_of = [&](std::string_view key) -> std::optional<std::string> {
    const auto *v = object.if_contains(key);
    return v && v->is_string() ? std::optional<std::string>(v->get_string()) : std::nullopt;
  };
  auto int_of = [&](std::string_view key) -> std::optional<std::int64_t> {
    const auto *v = object.if_contains(key);
    return v && ms::is_integral(*v) ? std::optional<std::int64_t>(ms::to_int64(*v)) : std::nullopt;
  };
  hints.provider = string_of("provider");
  hints.model = string_of("model");
  hints.context_window = int_of("context_window");
  hints.max_output_tokens = int_of("max_output_tokens");
  return hints;
}

class SimpleContext final : public amp::sdk::ContextModule {
 public:
  SimpleContext(amp::sdk::Host host, std::string_view config_json)
      : ContextModule(host), config_(read_config(host, config_json)) {}

  void add_message(std::string_view message_json) override {
    json::value message = ms::parse_json(message_json, "message");
    validate_message(message, "message");
    std::lock_guard lock(mutex_);
    messages_.push_back(std::move(message));
  }

  std::string get_messages() override { return json::serialize(snapshot()); }

  std::string get_messages_for_request(std::string_view request_json) override {
    return json::serialize(select_for_request(snapshot(), read_hints(request_json)));
  }

  void set_messages(std::string_view messages_json) override {
    json::value parsed = ms::parse_json(messages_json, "messages");
    if (!parsed.is_array()) {
      throw std::invalid_argument("messages must be a JSON array, got " +
                                  std::string(ms::describe_kind(parsed)));
    }
    json::array &messages = parsed.as_array();
    for (std::size_t i = 0; i < messages.size(); ++i)
      validate_message(messages[i], "messages[" + std::to_string(i) + "]");
    std::lock_guard lock(mutex_);  // replaced all at once, or not at all
    messages_ = std::move(messages);
  }

  void clear() override {
    std::lock_guard lock(mutex_);
    messages_.clear();
  }

 private:
  json::array snapshot() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }

  // The messages to send. Every message for now: compaction (dropping or summarising the
  // oldest turns once the estimate passes compact_threshold * the budget from config_ and
  // `hints`) will slot in here without changing the callers.
  json::array select_for_request(json::array messages, const RequestHints & /*hints*/) const {
    return messages;
  }

  const ContextConfig config_;
  mutable std::mutex mutex_;
  json::array messages_;  // guarded by mutex_
};

}  // namespace
}  // namespace context_simple

AMP_DEFINE_MODULE(context_simple::SimpleContext, "context-simple", "0.1.0",
                  "In-memory conversation context (lossless, thread-safe)");
