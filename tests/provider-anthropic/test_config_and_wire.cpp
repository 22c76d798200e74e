// Config reading, HTTP settings derived from it, redaction of wire payloads, ProviderInfo.
#include "anthropic_test_support.hpp"

#include "anthropic_config.hpp"
#include "http_settings.hpp"
#include "provider_info.hpp"
#include "amplifier/provider/wire_log.hpp"

using namespace anthropic_test;
using namespace provider_anthropic;
using namespace amplifier::provider;
namespace ms = amplifier::module_support;
namespace transport = amplifier::transport;

namespace {

AnthropicConfig::EnvLookup env_of(std::map<std::string, std::string, std::less<>> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

AnthropicConfig read(std::string_view json_text,
                     const AnthropicConfig::EnvLookup &env = env_of({})) {
  ms::ConfigReader reader(json_text, "provider-anthropic config");
  return AnthropicConfig::read(reader, env);
}

}  // namespace

TEST_CASE("config defaults, and api_key / base_url from the environment") {
  const AnthropicConfig defaults = read("{}");
  CHECK(defaults.api_key.empty());
  CHECK(defaults.base_url == "https://api.anthropic.com");
  CHECK(defaults.default_model == "claude-sonnet-4-5");
  CHECK(defaults.enable_prompt_caching);
  CHECK(defaults.verify_tls);
  CHECK(!defaults.extended_thinking);

  const auto env =
      env_of({{"ANTHROPIC_API_KEY", "env-key"}, {"ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"}});
  const AnthropicConfig from_env = read("{}", env);
  CHECK(from_env.api_key == "env-key");
  CHECK(from_env.base_url == "http://127.0.0.1:9");  // trailing slash dropped
  // An explicit value wins; an empty one (an unset "${ANTHROPIC_API_KEY}") falls back to the env.
  CHECK(read(R"({"api_key":"cfg"})", env).api_key == "cfg");
  CHECK(read(R"({"api_key":""})", env).api_key == "env-key");

  const AnthropicConfig full =
      read(R"({"max_tokens":100,"temperature":0.3,"timeout":2.5,"max_retries":1,
      "min_retry_delay":0.1,"max_retry_delay":0.2,"extended_thinking":true,"thinking_budget_tokens":2048,
      "reasoning_effort":"high","enable_prompt_caching":false,"beta_headers":["a-1","b-2"],"raw":true,
      "priority":3,"verify_tls":false,"ca_file":"/tmp/ca.pem","default_model":"claude-haiku-4-5"})");
  CHECK(full.timeout == std::chrono::milliseconds(2500));
  CHECK(full.min_retry_delay == std::chrono::milliseconds(100));
  CHECK(full.thinking_budget_tokens == 2048);
  CHECK(full.beta_headers == std::vector<std::string>{"a-1", "b-2"});
  CHECK(full.ca_file == "/tmp/ca.pem");
  CHECK(!full.verify_tls);
}

TEST_CASE("config: unknown keys are warned about with a suggestion, bad values are refused") {
  ms::ConfigReader reader(R"({"max_token":5,"extended_thinkng":true})",
                          "provider-anthropic config");
  AnthropicConfig::read(reader, env_of({}));
  const auto messages = reader.unknown_key_messages();
  REQUIRE(messages.size() == 2);
  CHECK(messages[0].find("did you mean 'extended_thinking'") != std::string::npos);
  CHECK(messages[1].find("did you mean 'max_tokens'") != std::string::npos);

  CHECK_THROWS_WITH_AS(read(R"({"reasoning_effort":"extreme"})"),
                       doctest::Contains("reasoning_effort"), ms::ConfigError);
  CHECK_THROWS_AS(read(R"({"temperature":3})"), ms::ConfigError);
  CHECK_THROWS_AS(read(R"({"base_url":"api.anthropic.com"})"), ms::ConfigError);
  CHECK_THROWS_AS(read(R"({"thinking_budget_tokens":10})"), ms::ConfigError);
  CHECK_THROWS_AS(read(R"({"min_retry_delay":5,"max_retry_delay":1})"), ms::ConfigError);
}

TEST_CASE("HTTP settings: headers, URL, timeouts and retries come from the config") {
  AnthropicConfig config = read(R"({"api_key":"sk-test","beta_headers":["x-1","y-2"],"timeout":3,
                                    "max_retries":4,"min_retry_delay":0.5,"max_retry_delay":9})");
  const transport::Headers headers = anthropic_headers(config, true);
  CHECK(headers.find("x-api-key") == "sk-test");
  CHECK(headers.find("anthropic-version") == "2023-06-01");
  CHECK(headers.find("anthropic-beta") == "x-1,y-2");
  CHECK(headers.find("content-type") == "application/json");
  CHECK(headers.find("accept") == "text/event-stream");
  CHECK(!anthropic_headers(read("{}"), false).contains("anthropic-beta"));
  CHECK(messages_url(config) == "https://api.anthropic.com/v1/messages");

  const auto streamed = timeouts_for(config, std::nullopt, true);
  CHECK(streamed.stream_idle == std::chrono::milliseconds(3000));
  CHECK(streamed.total == std::chrono::milliseconds(0));
  CHECK(timeouts_for(config, std::nullopt, false).total == std::chrono::milliseconds(3000));
  CHECK(timeouts_for(config, 0.25, true).read ==
        std::chrono::milliseconds(250));  // the request's own

  const auto retry = retry_options(config);
  CHECK(retry.max_retries == 4);
  CHECK(retry.min_retry_delay == std::chrono::milliseconds(500));
  CHECK(retry.max_retry_delay == std::chrono::milliseconds(9000));
  CHECK(retry.overloaded_delay_multiplier == 10.0);
}

TEST_CASE("raw wire payloads never carry the API key") {
  const std::string key = "sk-ant-secret-123";
  AnthropicConfig config = read(R"({"api_key":"sk-ant-secret-123"})");
  const transport::Headers headers = anthropic_headers(config, true);
  json::object body{
      {"model", "m"},
      {"messages", json::array{json::object{{"role", "user"}, {"content", "my key is " + key}}}}};
  const json::object payload = llm_request_payload({"provider-anthropic", "m", true, 1, 0, false},
                                                   true, messages_url(config), headers, body, key);
  const std::string text = json::serialize(payload);
  CHECK(text.find(key) == std::string::npos);
  CHECK(payload.at("request").at("headers").at("x-api-key").as_string() == kRedacted);
  CHECK(payload.at("request").at("headers").at("anthropic-version") == "2023-06-01");
  CHECK(payload.at("request").at("body").at("messages").at(0).at("content") ==
        "my key is [REDACTED]");
  // Without raw, only the summary.
  CHECK(!llm_request_payload({"provider-anthropic", "m", true, 1, 0, false}, false, "u", headers,
                             body, key)
             .contains("request"));
  CHECK(is_secret_header("Authorization"));
  CHECK(is_secret_header("Proxy-Authorization"));
  CHECK(!is_secret_header("anthropic-version"));
}

TEST_CASE("ProviderInfo names the credential, capabilities, defaults and config fields") {
  const json::object info = provider_info(read(R"({"default_model":"claude-opus-4-1"})"));
  CHECK(info.at("id") == "provider-anthropic");
  CHECK(info.at("credential_env_vars") == json::array{"ANTHROPIC_API_KEY"});
  CHECK(info.at("defaults").at("model") == "claude-opus-4-1");
  CHECK(info.at("capabilities").at("thinking") == true);
  std::map<std::string, json::object> fields;
  for (const auto &f : info.at("config_fields").as_array())
    fields[std::string(f.at("id").as_string())] = f.as_object();
  REQUIRE(fields.contains("api_key"));
  CHECK(fields["api_key"].at("field_type") == "secret");
  CHECK(fields["api_key"].at("env_var") == "ANTHROPIC_API_KEY");
  CHECK(fields["api_key"].at("required") == true);
  CHECK(fields["extended_thinking"].at("field_type") == "boolean");
  CHECK(fields["reasoning_effort"].at("field_type") == "choice");
  CHECK(fields["base_url"].at("default") == "https://api.anthropic.com");
}

TEST_CASE("model pages map to ModelInfo and say where to continue") {
  json::array models;
  const auto next = append_model_page(
      json::parse(
          R"({"data":[{"type":"model","id":"claude-sonnet-4-5-20250929","display_name":"Claude Sonnet 4.5"},
                               {"type":"model","id":"claude-3-5-haiku-20241022","display_name":"Claude Haiku 3.5"}],
                      "has_more":true,"first_id":"a","last_id":"claude-3-5-haiku-20241022"})")
          .as_object(),
      models);
  CHECK(next == "claude-3-5-haiku-20241022");
  REQUIRE(models.size() == 2);
  CHECK(models[0].at("display_name") == "Claude Sonnet 4.5");
  CHECK(models[0].at("max_output_tokens") == 64000);
  CHECK(models[1].at("max_output_tokens") == 8192);
  CHECK(models[0].at("context_window") == 200000);
  CHECK(append_model_page(json::parse(R"({"data":[],"has_more":false})").as_object(), models)
            .empty());
}
