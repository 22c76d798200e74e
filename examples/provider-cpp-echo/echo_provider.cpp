// provider-cpp-echo: a provider that needs no network. It answers the last user message with
// that message, prefixed (config `prefix`), streamed word by word through the SDK's typed
// delta helpers. It also drives tools, so a whole agent turn can run on it offline:
//   "/tool NAME some text"  calls tool NAME with {"text": "some text"} (NAME must be offered);
//   after a tool result      it answers with the tool's output.
// It is an example of a third-party module: it uses only the installed SDK and Boost.JSON.
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace json = boost::json;

namespace {

constexpr std::string_view kModuleId = "provider-cpp-echo";
constexpr std::string_view kModel = "echo-1";
constexpr std::string_view kToolCommand = "/tool ";

std::string string_field(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

// A message's text: a string content, or its text blocks joined.
std::string message_text(const json::object &message) {
  const json::value *content = message.if_contains("content");
  if (!content) return {};
  if (content->is_string()) return std::string(content->get_string());
  std::string text;
  if (content->is_array())
    for (const auto &block : content->get_array())
      if (block.is_object() && string_field(block.get_object(), "type") == "text")
        text += string_field(block.get_object(), "text");
  return text;
}

// The output of the first tool_result block of `message`, as text; nullopt when it has none.
std::optional<std::string> tool_output(const json::object &message) {
  const json::value *content = message.if_contains("content");
  if (!content || !content->is_array()) return std::nullopt;
  for (const auto &block : content->get_array()) {
    if (!block.is_object() || string_field(block.get_object(), "type") != "tool_result") continue;
    const json::value *output = block.get_object().if_contains("output");
    if (!output) return std::string();
    // A ToolResult {"success","output"} or a plain value.
    if (output->is_object() && output->get_object().contains("output"))
      output = output->get_object().if_contains("output");
    return output->is_string() ? std::string(output->get_string()) : json::serialize(*output);
  }
  return std::nullopt;
}

bool offers_tool(const json::object &request, std::string_view name) {
  const json::value *tools = request.if_contains("tools");
  if (!tools || !tools->is_array()) return false;
  for (const auto &tool : tools->get_array())
    if (tool.is_object() && string_field(tool.get_object(), "name") == name) return true;
  return false;
}

class EchoProvider : public amp::sdk::ProviderModule {
 public:
  EchoProvider(amp::sdk::Host host, std::string_view config_json) : ProviderModule(host) {
    json::value config = json::parse(config_json.empty() ? "{}" : config_json);
    if (!config.is_object()) throw std::invalid_argument("config must be an object");
    if (const json::value *prefix = config.get_object().if_contains("prefix")) {
      if (!prefix->is_string()) throw std::invalid_argument("config `prefix` must be a string");
      prefix_ = std::string(prefix->get_string());
    }
  }

  std::string info() override {
    json::object field{{"id", "prefix"},         {"display_name", "Prefix"},
                       {"field_type", "text"},   {"prompt", "Text put before every echo"},
                       {"required", false},      {"default", "echo: "}};
    json::object info{
        {"id", kModuleId},
        {"display_name", "C++ echo (example)"},
        {"credential_env_vars", json::array{}},
        {"capabilities", {{"streaming", true}, {"tools", true}}},
        {"defaults", {{"model", kModel}, {"context_window", 100000}, {"max_tokens", 4096}}},
        {"config_fields", json::array{field}}};
    return json::serialize(info);
  }

  std::string list_models() override {
    return json::serialize(json::array{json::object{{"id", kModel},
                                                    {"display_name", "Echo"},
                                                    {"context_window", 100000},
                                                    {"max_output_tokens", 4096}}});
  }

  // Finishes inside complete: there is no I/O to wait for.
  void complete(amp_call_id call, std::string_view request_json) override {
    json::error_code error;
    json::value request = json::parse(request_json, error);
    if (error || !request.is_object())
      return host().call_fail(call, "invalid_request", "the request is not a JSON object",
                              AMP_INVALID_ARGUMENT);
    const json::value *messages = request.get_object().if_contains("messages");
    if (!messages || !messages->is_array() || messages->get_array().empty())
      return host().call_fail(call, "invalid_request", "the request has no messages",
                              AMP_INVALID_ARGUMENT);
    const json::value &last = messages->get_array().back();
    if (!last.is_object())
      return host().call_fail(call, "invalid_request", "a message is not an object",
                              AMP_INVALID_ARGUMENT);
    respond(call, request.get_object(), last.get_object());
  }

 private:
  void respond(amp_call_id call, const json::object &request, const json::object &last) {
    if (auto output = tool_output(last)) return answer(call, "the tool said: " + *output);
    std::string text = message_text(last);
    if (text.starts_with(kToolCommand)) {
      std::string_view rest = std::string_view(text).substr(kToolCommand.size());
      std::string_view name = rest.substr(0, rest.find(' '));
      std::string_view argument =
          name.size() < rest.size() ? rest.substr(name.size() + 1) : std::string_view();
      if (offers_tool(request, name)) return call_tool(call, name, argument);
      return answer(call, "no tool named " + std::string(name) + " is offered");
    }
    answer(call, prefix_ + text);
  }

  // One text block, streamed a word at a time.
  void answer(amp_call_id call, const std::string &text) {
    host().call_event(call,
                      R"({"type":"content_block_start","index":0,"block":{"type":"text"}})");
    for (std::size_t start = 0; start < text.size();) {
      std::size_t space = text.find(' ', start);
      std::size_t end = space == std::string::npos ? text.size() : space + 1;
      host().emit_text_delta(call, 0, std::string_view(text).substr(start, end - start));
      start = end;
    }
    json::object block{{"type", "text"}, {"text", text}};
    end_block(call, 0, block);
    finish(call, json::array{block}, "end_turn");
  }

  void call_tool(amp_call_id call, std::string_view name, std::string_view argument) {
    std::string id = "echo_call_" + std::to_string(++calls_);
    json::object start{{"type", "tool_call"}, {"id", id}, {"name", name}};
    host().call_event(call, json::serialize(json::object{
                                {"type", "content_block_start"}, {"index", 0}, {"block", start}}));
    json::object input{{"text", argument}};
    host().emit_tool_input_delta(call, 0, json::serialize(input));
    json::object block{{"type", "tool_call"}, {"id", id}, {"name", name}, {"input", input}};
    end_block(call, 0, block);
    finish(call, json::array{block}, "tool_use");
  }

  void end_block(amp_call_id call, int index, const json::object &block) {
    host().call_event(call, json::serialize(json::object{
                                {"type", "content_block_end"}, {"index", index}, {"block", block}}));
  }

  void finish(amp_call_id call, json::array content, std::string_view finish_reason) {
    json::object response{{"content", std::move(content)},
                          {"finish_reason", finish_reason},
                          {"model", kModel},
                          {"usage", {{"input_tokens", 0}, {"output_tokens", 0}}}};
    host().call_finish(call, AMP_OK, json::serialize(response));
  }

  std::string prefix_ = "echo: ";
  std::atomic<unsigned> calls_{0};
};

}  // namespace

AMP_DEFINE_MODULE(EchoProvider, "provider-cpp-echo", "1.0.0",
                  "Example provider in C++: echoes the prompt, calls tools on /tool");
