#include "mock_config.hpp"

#include "amplifier/model_base.hpp"

namespace provider_mock {

namespace ms = amplifier::module_support;

namespace {

constexpr std::int64_t kMaxDelayMs = 10 * 60 * 1000;  // ten minutes: beyond that it is a typo
constexpr std::int64_t kMaxChunkSize = 1 << 20;

ms::ConfigReader item_reader(const ms::ConfigReader &parent, std::string_view key,
                             const boost::json::value &item, std::string_view shape) {
  if (!item.is_object()) throw parent.error(key, "must be an object " + std::string(shape));
  return ms::ConfigReader(item.get_object(), parent.context() + ": " + std::string(key));
}

ScriptedToolCall read_tool_call(ms::ConfigReader &item) {
  ScriptedToolCall call;
  call.id = item.get_optional_string("id");
  call.name = item.get_string("name", "");
  if (call.name.empty()) throw item.error("name", "is required (the tool to call)");
  if (auto input = item.get_object("input")) call.input = input->object();
  return call;
}

amplifier::KernelError read_error(const ms::ConfigReader &item, const boost::json::value &raw) {
  if (!raw.is_object()) throw item.error("error", "must be an object {kind, message, retryable}");
  try {
    return amplifier::from_json<amplifier::KernelError>(raw);
  } catch (const amplifier::ModelError &e) {
    throw item.error("error", std::string("is not a valid error: ") + e.what());
  }
}

ScriptedResponse read_response(ms::ConfigReader &item, const amp::sdk::Host &host) {
  ScriptedResponse response;
  response.thinking = item.get_optional_string("thinking");
  response.signature = item.get_optional_string("signature");
  response.text = item.get_optional_string("text");
  response.delay = std::chrono::milliseconds(item.get_int("delay_ms", 0, 0, kMaxDelayMs));
  if (const auto *calls = item.get_array("tool_calls")) {
    for (std::size_t i = 0; i < calls->size(); ++i) {
      auto call_reader = item_reader(item, "tool_calls[" + std::to_string(i) + "]", (*calls)[i],
                                     "{id?, name, input}");
      response.tool_calls.push_back(read_tool_call(call_reader));
      call_reader.warn_unknown_keys(host);
    }
  }
  if (const auto *error = item.get_value("error")) response.error = read_error(item, *error);
  if (const auto *usage = item.get_value("usage")) {
    try {
      response.usage = amplifier::from_json<amplifier::Usage>(*usage);
    } catch (const amplifier::ModelError &e) {
      throw item.error("usage", std::string("is not a valid usage: ") + e.what());
    }
  }
  if (response.signature && !response.thinking) {
    throw item.error("signature", "needs 'thinking' (a signature belongs to a thinking block)");
  }
  return response;
}

}  // namespace

MockConfig MockConfig::read(ms::ConfigReader &reader, const amp::sdk::Host &host) {
  MockConfig config;
  config.model = reader.get_string("model", config.model);
  config.chunk_size = static_cast<std::size_t>(
      reader.get_int("chunk_size", static_cast<std::int64_t>(config.chunk_size), 1, kMaxChunkSize));
  config.delta_delay = std::chrono::milliseconds(reader.get_int("delay_ms", 0, 0, kMaxDelayMs));
  config.record_requests = reader.get_string("record_requests", "");
  if (const auto *responses = reader.get_array("responses")) {
    for (std::size_t i = 0; i < responses->size(); ++i) {
      auto item = item_reader(reader, "responses[" + std::to_string(i) + "]", (*responses)[i],
                              "{thinking?, signature?, text?, tool_calls?, error?, delay_ms?, usage?}");
      config.responses.push_back(read_response(item, host));
      item.warn_unknown_keys(host);
    }
  }
  return config;
}

}  // namespace provider_mock
