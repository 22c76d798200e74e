#include "ollama_provider.hpp"

#include "ollama_call.hpp"
#include "ollama_request.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "amplifier/module_support/json_util.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace ollama {

namespace json = boost::json;
namespace transport = amplifier::transport;
namespace provider = amplifier::provider;
using amplifier::ErrorKind;
using amplifier::KernelError;
using amplifier::module_support::array_at;
using amplifier::module_support::count_at;
using amplifier::module_support::object_at;
using amplifier::module_support::string_at;

namespace {

constexpr auto kRetryWindowLookupAfter = std::chrono::minutes(1);
constexpr double kShowTimeoutSeconds = 3.0;

json::array config_fields(const OllamaConfig &config) {
  json::array fields;
  json::object host = provider::config_field("host", "Host", "text", "The Ollama server",
                                             json::string(config.host));
  host["env_var"] = kHostEnv;
  fields.push_back(std::move(host));
  fields.push_back(provider::config_field("default_model", "Model", "text",
                                          "Model used when a request names none",
                                          json::string(config.default_model)));
  fields.push_back(provider::config_field("enable_thinking", "Thinking", "boolean",
                                          "Ask thinking models to think (think: true)",
                                          config.enable_thinking));
  fields.push_back(provider::config_field("keep_alive", "Keep alive", "text",
                                          "How long the model stays loaded (\"5m\", 0, -1)"));
  fields.push_back(provider::config_field("options", "Options", "text",
                                          "Model options passed through (num_ctx, temperature)"));
  fields.push_back(provider::config_field("auto_pull", "Pull missing models", "boolean",
                                          "Download a model the server does not have", false));
  fields.push_back(provider::config_field("api_key", "API key", "secret",
                                          "A Bearer token, for hosted Ollama only"));
  provider::append_http_config_fields(config, fields);
  return fields;
}

transport::CallSpec blocking_spec(const OllamaConfig &config, std::string method, std::string path,
                                  std::string body) {
  transport::ErrorMappingOptions errors;
  errors.provider = std::string(kModuleId);
  const bool with_body = !body.empty();
  return provider::whole_request(config, std::move(method), config.host + path,
                                 ollama_headers(config, with_body, "application/json"), errors,
                                 std::move(body));
}

}  // namespace

std::optional<std::int64_t> context_length_of(const json::object &show) {
  const json::object *info = object_at(show, "model_info");
  if (!info) return std::nullopt;
  const std::string architecture(string_at(*info, "general.architecture"));
  if (architecture.empty()) return std::nullopt;
  return count_at(*info, architecture + ".context_length");
}

json::object provider_info(const OllamaConfig &config, std::optional<std::int64_t> context_window) {
  json::object defaults{{"model", config.default_model},
                        {"timeout", static_cast<double>(config.timeout.count()) / 1000.0}};
  if (context_window) defaults["context_window"] = *context_window;
  return json::object{
      {"id", kModuleId},
      {"display_name", "Ollama"},
      {"credential_env_vars", json::array{}},
      {"capabilities",
       {{"streaming", true},
        {"tools", true},
        {"thinking", true},
        {"vision", true},
        {"modalities", {{"input", json::array{"text", "image"}}, {"output", json::array{"text"}}}},
        {"response_format", json::array{"text", "json_object", "json_schema"}}}},
      {"defaults", std::move(defaults)},
      {"config_fields", config_fields(config)},
  };
}

OllamaProvider::OllamaProvider(amp::sdk::Host host, std::string_view config_json)
    : ProviderModule(host),
      config_(provider::read_module_config<OllamaConfig>(
          host, kModuleId, config_json,
          [](auto &reader) { return OllamaConfig::read(reader, provider::process_env); })),
      calls_(host, std::string(kModuleId), provider::client_options(*config_, {})) {}

std::optional<std::int64_t> OllamaProvider::context_window(const std::string &model) {
  if (model.empty()) return std::nullopt;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(windows_mutex_);
    auto it = windows_.find(model);
    if (it != windows_.end() &&
        (it->second.tokens || now - it->second.asked < kRetryWindowLookupAfter))
      return it->second.tokens;
  }
  std::optional<std::int64_t> tokens;
  transport::CallSpec spec =
      blocking_spec(*config_, "POST", "/api/show", json::serialize(json::object{{"model", model}}));
  // A hint asked at mount: never worth a wait, so a short bound and no retry.
  spec.retry.max_retries = 0;
  spec.request.timeouts = provider::timeouts_for(*config_, kShowTimeoutSeconds, false);
  transport::CallResult result = calls_.run_blocking(std::move(spec));
  if (!result.error) {
    json::error_code ec;
    const json::value show = json::parse(result.body, ec);
    if (!ec && show.is_object()) tokens = context_length_of(show.get_object());
  }
  std::lock_guard lock(windows_mutex_);
  windows_[model] = Window{tokens, now};
  return tokens;
}

std::string OllamaProvider::info() {
  return json::serialize(provider_info(*config_, context_window(config_->default_model)));
}

void OllamaProvider::complete(amp_call_id call, std::string_view request_json) {
  auto request = calls_.accept_request(call, request_json);
  if (!request) return;
  MappedChat mapped = map_request(*request, *config_);
  if (mapped.model.empty())
    return calls_.finish_at_once(
        call,
        KernelError::make(ErrorKind::configuration,
                          "no model to send: name one in the request or set default_model"),
        AMP_ERROR);
  calls_.start_http(call, std::make_shared<OllamaCall>(host(), call, config_, std::move(mapped),
                                                       request->timeout));
}

void OllamaProvider::cancel(amp_call_id call, amp_cancel_level level) {
  calls_.cancel(call, level);
}

std::string OllamaProvider::list_models() {
  transport::CallResult result =
      calls_.run_blocking(blocking_spec(*config_, "GET", "/api/tags", ""));
  if (result.error) throw amplifier::KernelException(std::move(*result.error));
  const json::value page = amplifier::parse_json(result.body);
  const json::array *listed = page.is_object() ? array_at(page.get_object(), "models") : nullptr;
  if (!listed) throw std::runtime_error("GET /api/tags did not return {models: [...]}");
  json::array models;
  for (const json::value &item : *listed) {
    if (!item.is_object()) continue;
    const std::string name(string_at(item.get_object(), "name"));
    if (name.empty()) continue;
    json::object model{
        {"id", name}, {"display_name", name}, {"capabilities", json::array{"tools", "streaming"}}};
    if (auto window = context_window(name)) model["context_window"] = *window;
    models.push_back(std::move(model));
  }
  return json::serialize(models);
}

}  // namespace ollama
