// Config reading (both flavours), where requests go and with which headers, and the mapping of
// ChatRequests to Responses API bodies. Pure functions: no network.
#include "openai_test_support.hpp"

#include "responses_endpoint.hpp"
#include "responses_info.hpp"
#include "responses_request.hpp"
#include "responses_config.hpp"

#include <map>

using namespace openai_test;
using namespace openai_responses;
namespace ms = amplifier::module_support;

namespace {

amplifier::provider::EnvLookup env_of(std::map<std::string, std::string, std::less<>> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

ResponsesConfig openai(std::string_view json_text,
                       const amplifier::provider::EnvLookup &env = env_of({})) {
  ms::ConfigReader reader(json_text, "provider-openai config");
  return ResponsesConfig::read_openai(reader, env);
}

ResponsesConfig azure(std::string_view json_text,
                      const amplifier::provider::EnvLookup &env = env_of({})) {
  ms::ConfigReader reader(json_text, "provider-azure-openai config");
  return ResponsesConfig::read_azure(reader, env);
}

std::string config_error(const std::function<void()> &read) {
  try {
    read();
  } catch (const ms::ConfigError &e) {
    return e.what();
  }
  return "(no error)";
}

json::object mapped_body(std::string_view request_json, const ResponsesConfig &config) {
  return map_request(chat_request(request_json), config).body;
}

}  // namespace

TEST_CASE("provider-openai config: defaults, the environment, and bad values named") {
  const ResponsesConfig defaults = openai("{}");
  CHECK(defaults.api_key.empty());
  CHECK(defaults.base_url == "https://api.openai.com/v1");
  CHECK(defaults.reasoning_summary == "auto");
  CHECK(!defaults.store);
  CHECK(defaults.max_continuations == 5);
  CHECK(defaults.debug_level == amplifier::provider::DebugLevel::summary);
  CHECK(!missing_setting(defaults).empty());

  const ResponsesConfig from_env = openai(
      "{}", env_of({{"OPENAI_API_KEY", "sk-env"}, {"OPENAI_BASE_URL", "http://proxy:8080/v1/"}}));
  CHECK(from_env.api_key == "sk-env");
  CHECK(from_env.base_url == "http://proxy:8080/v1");
  CHECK(missing_setting(from_env).empty());
  // The config wins over the environment; "${OPENAI_API_KEY}" of an unset variable is "".
  CHECK(openai(R"({"api_key":"sk-config"})", env_of({{"OPENAI_API_KEY", "sk-env"}})).api_key ==
        "sk-config");
  CHECK(openai(R"({"api_key":""})", env_of({{"OPENAI_API_KEY", "sk-env"}})).api_key == "sk-env");

  const ResponsesConfig full = openai(R"({"organization":"org-1","project":"proj-1",
      "default_model":"gpt-5-mini","max_tokens":900,"temperature":0.5,"reasoning_effort":"high",
      "reasoning_summary":"detailed","store":true,"max_continuations":2,"raw":true,"timeout":30,
      "max_retries":1,"min_retry_delay":0.5,"max_retry_delay":4})");
  CHECK(full.organization == "org-1");
  CHECK(full.default_model == "gpt-5-mini");
  CHECK(full.max_tokens == 900);
  CHECK(full.reasoning_effort == "high");
  CHECK(full.store);
  CHECK(full.max_continuations == 2);
  CHECK(full.timeout == std::chrono::seconds(30));
  CHECK(full.max_retry_delay == std::chrono::seconds(4));
  CHECK(full.debug_level == amplifier::provider::DebugLevel::raw);  // raw: the older name

  CHECK(config_error([] {
          openai(R"({"reasoning_effort":"extreme"})");
        }).find("reasoning_effort") != std::string::npos);
  CHECK(config_error([] { openai(R"({"reasoning_summary":"long"})"); }).find("reasoning_summary") !=
        std::string::npos);
  CHECK(config_error([] { openai(R"({"base_url":"api.openai.com"})"); }).find("base_url") !=
        std::string::npos);
  CHECK(config_error([] { openai(R"({"max_continuations":-1})"); }).find("max_continuations") !=
        std::string::npos);
}

TEST_CASE("provider-azure-openai config: endpoint, auth by key or Entra token but never both") {
  const ResponsesConfig by_env =
      azure("{}", env_of({{"AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com/"},
                          {"AZURE_OPENAI_API_KEY", "k-env"}}));
  CHECK(by_env.base_url == "https://res.openai.azure.com");
  CHECK(by_env.api_key == "k-env");
  CHECK(missing_setting(by_env).empty());

  const ResponsesConfig token =
      azure(R"({"azure_endpoint":"https://res.openai.azure.com","azure_ad_token":"eyJ"})");
  CHECK(token.api_key.empty());
  CHECK(token.azure_ad_token == "eyJ");
  const ResponsesConfig token_env = azure(R"({"azure_endpoint":"https://r.example"})",
                                          env_of({{"AZURE_OPENAI_AD_TOKEN", "eyJenv"}}));
  CHECK(token_env.azure_ad_token == "eyJenv");

  const std::string both = config_error([] {
    azure(R"({"azure_endpoint":"https://r.example","api_key":"k","azure_ad_token":"t"})");
  });
  CHECK(both.find("azure_ad_token") != std::string::npos);
  CHECK(both.find("api_key") != std::string::npos);

  CHECK(missing_setting(azure("{}")).find("AZURE_OPENAI_ENDPOINT") != std::string::npos);
  CHECK(missing_setting(azure(R"({"azure_endpoint":"https://r.example"})"))
            .find("AZURE_OPENAI_API_KEY") != std::string::npos);
  CHECK(config_error([] { azure(R"({"deployment_mapping":{"gpt-5":""}})"); }).find("gpt-5") !=
        std::string::npos);
}

TEST_CASE("where requests go: OpenAI, Azure v1, Azure deployments with a dated api-version") {
  const ResponsesConfig plain = openai(R"({"base_url":"https://api.openai.com/v1"})");
  CHECK(responses_url(plain, "gpt-5") == "https://api.openai.com/v1/responses");
  CHECK(models_url(plain) == "https://api.openai.com/v1/models");

  const ResponsesConfig v1 = azure(
      R"({"azure_endpoint":"https://r.openai.azure.com","api_key":"k",
          "deployment_mapping":{"gpt-5":"prod-gpt5"},"default_deployment":"fallback"})");
  CHECK(!v1.azure_deployments_path());
  CHECK(responses_url(v1, "prod-gpt5") == "https://r.openai.azure.com/openai/v1/responses");
  CHECK(resolve_model(v1, std::string("gpt-5")).api_model == "prod-gpt5");
  CHECK(resolve_model(v1, std::string("gpt-5")).model == "gpt-5");
  CHECK(resolve_model(v1, std::string("o3")).api_model == "fallback");
  CHECK(resolve_model(v1, std::nullopt).api_model == "fallback");

  const ResponsesConfig dated = azure(
      R"({"azure_endpoint":"https://r.openai.azure.com","api_key":"k",
          "api_version":"2025-04-01-preview"})");
  CHECK(dated.azure_deployments_path());
  CHECK(responses_url(dated, "my dep") ==
        "https://r.openai.azure.com/openai/deployments/my%20dep/responses"
        "?api-version=2025-04-01-preview");
}

TEST_CASE(
    "headers: Bearer for OpenAI (with organization and project), api-key or Bearer on Azure") {
  const auto openai_headers = request_headers(
      openai(R"({"api_key":"sk-1","organization":"org-9","project":"proj-9"})"), true, true);
  CHECK(openai_headers.find("authorization") == "Bearer sk-1");
  CHECK(openai_headers.find("openai-organization") == "org-9");
  CHECK(openai_headers.find("openai-project") == "proj-9");
  CHECK(openai_headers.find("accept") == "text/event-stream");

  const auto key_headers = request_headers(
      azure(R"({"azure_endpoint":"https://r.example","api_key":"k1"})"), false, true);
  CHECK(key_headers.find("api-key") == "k1");
  CHECK(!key_headers.contains("authorization"));
  const auto token_headers = request_headers(
      azure(R"({"azure_endpoint":"https://r.example","azure_ad_token":"t1"})"), false, true);
  CHECK(token_headers.find("authorization") == "Bearer t1");
  CHECK(!token_headers.contains("api-key"));
}

TEST_CASE("request mapping: instructions, developer, text, images, tools, limits, reasoning") {
  const ResponsesConfig config =
      openai(R"({"max_tokens":500,"reasoning_effort":"medium","temperature":0.2})");
  const json::object body = mapped_body(R"({
      "messages":[
        {"role":"system","content":"Be brief."},
        {"role":"system","content":"Answer in English."},
        {"role":"developer","content":"Use tools."},
        {"role":"user","content":[{"type":"text","text":"what is this?"},
          {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}]},
        {"role":"assistant","content":"A picture."}],
      "tools":[{"name":"calculator","description":"adds","parameters":{"type":"object"}}],
      "tool_choice":"required"})",
                                        config);
  CHECK(body.at("model") == "gpt-5.1");
  CHECK(body.at("instructions") == "Be brief.\n\nAnswer in English.");
  const auto &input = body.at("input").as_array();
  REQUIRE(input.size() == 3);
  CHECK(
      input[0] ==
      json::parse(R"({"role":"developer","content":[{"type":"input_text","text":"Use tools."}]})"));
  CHECK(input[1].at("content").at(1) ==
        json::parse(R"({"type":"input_image","image_url":"data:image/png;base64,iVBOR"})"));
  CHECK(input[2] ==
        json::parse(
            R"({"role":"assistant","content":[{"type":"output_text","text":"A picture."}]})"));
  CHECK(body.at("tools").at(0) == json::parse(R"({"type":"function","name":"calculator",
      "description":"adds","parameters":{"type":"object"},"strict":false})"));
  CHECK(body.at("tool_choice") == "required");
  CHECK(body.at("max_output_tokens") == 500);
  CHECK(body.at("temperature").to_number<double>() == doctest::Approx(0.2));
  CHECK(body.at("reasoning") == json::parse(R"({"effort":"medium","summary":"auto"})"));
  CHECK(body.at("store") == false);
  CHECK(body.at("include") == json::parse(R"(["reasoning.encrypted_content"])"));
  CHECK(body.at("stream") == true);

  // store: true keeps the reasoning server-side: nothing encrypted is asked for.
  CHECK(
      !mapped_body(R"({"messages":[{"role":"user","content":"hi"}]})", openai(R"({"store":true})"))
           .contains("include"));
}

TEST_CASE("request mapping: reasoning re-sent before its function_call; results in call order") {
  const std::string request = R"({"messages":[
      {"role":"user","content":"compute"},
      {"role":"assistant","content":[
        {"type":"reasoning","summary":[{"type":"summary_text","text":"Plan"}],
         "id":"rs_1","encrypted_content":"gAAA-final"},
        {"type":"tool_call","id":"call_a","name":"calc","input":{"a":1},"item_id":"fc_a"},
        {"type":"tool_call","id":"call_b","name":"calc","input":{"b":2},
         "arguments":"{\"b\": 2}"}]},
      {"role":"tool","tool_call_id":"call_b","content":"2"},
      {"role":"tool","tool_call_id":"call_a","content":[{"type":"tool_result",
        "tool_call_id":"call_a","output":{"sum":1}}]}]})";
  const MappedRequest mapped = map_request(chat_request(request), openai("{}"));
  const auto &input = mapped.body.at("input").as_array();
  REQUIRE(input.size() == 6);
  CHECK(input[1] == json::parse(R"({"type":"reasoning","id":"rs_1",
      "summary":[{"type":"summary_text","text":"Plan"}],"encrypted_content":"gAAA-final"})"));
  CHECK(input[2] == json::parse(R"({"type":"function_call","call_id":"call_a","name":"calc",
      "arguments":"{\"a\":1}","id":"fc_a"})"));
  // Arguments the model wrote differently from their parse go back exactly as written.
  CHECK(input[3].at("arguments") == "{\"b\": 2}");
  CHECK(
      input[4] ==
      json::parse(R"({"type":"function_call_output","call_id":"call_a","output":"{\"sum\":1}"})"));
  CHECK(input[5].at("call_id") == "call_b");
  // The shape the spec gives for a tool result: exactly these fields, output a string.
  const json::object spec_item =
      fixture_json("openai_responses_function_call_output_item_spec.json");
  json::object ours = input[4].as_object();
  for (const auto &field : spec_item) CHECK(ours.contains(field.key()));
  CHECK(ours.size() == spec_item.size());
  CHECK(input[5].at("output") == "2");
  CHECK(mapped.repaired_tool_calls.empty());
}

TEST_CASE("request mapping: repairs and degradations are recorded, never silent") {
  const MappedRequest mapped = map_request(chat_request(R"({"messages":[
      {"role":"user","content":"go"},
      {"role":"assistant","content":[
        {"type":"thinking","thinking":"hmm","signature":"sig"},
        {"type":"reasoning","summary":"from elsewhere"},
        {"type":"tool_call","id":"call_lost","name":"bash","input":{}}]},
      {"role":"tool","tool_call_id":"call_stray","content":"?"},
      {"role":"user","content":"well?"}],
      "stop":["END"],"reasoning_effort":"galaxy-brain"})"),
                                           openai("{}"));
  const auto &input = mapped.body.at("input").as_array();
  CHECK(input[1].at("type") == "function_call");
  CHECK(input[2].at("output").as_string() == kMissingToolOutput);
  REQUIRE(mapped.repaired_tool_calls.size() == 1);
  CHECK(mapped.repaired_tool_calls[0].tool_call_id == "call_lost");
  CHECK(mapped.dropped_tool_results == std::vector<std::string>{"call_stray"});
  std::vector<std::string> features;
  for (const auto &d : mapped.degradations) features.push_back(d.feature);
  CHECK(features ==
        std::vector<std::string>{"thinking_block", "reasoning_block", "reasoning_effort", "stop"});
  CHECK(!mapped.body.contains("reasoning"));
}

TEST_CASE("request mapping on Azure: the deployment is the model the API gets") {
  const ResponsesConfig config = azure(
      R"({"azure_endpoint":"https://r.example","api_key":"k","deployment_mapping":{"gpt-5":"dep5"}})");
  const MappedRequest mapped = map_request(
      chat_request(R"({"model":"gpt-5","messages":[{"role":"user","content":"hi"}]})"), config);
  CHECK(mapped.body.at("model") == "dep5");
  CHECK(mapped.model == "gpt-5");
  CHECK(mapped.api_model == "dep5");
}

TEST_CASE("provider info: the model's limits and every config field, credentials with their "
          "environment variables") {
  auto field_named = [](const json::object &info, std::string_view id) -> json::object {
    for (const auto &field : info.at("config_fields").as_array())
      if (field.at("id").as_string() == id) return field.as_object();
    return {};
  };
  const json::object openai_info = provider_info(openai(R"({"default_model":"gpt-5-mini"})"));
  CHECK(openai_info.at("id") == "provider-openai");
  CHECK(field_named(openai_info, "api_key").at("env_var") == "OPENAI_API_KEY");
  CHECK(field_named(openai_info, "base_url").at("env_var") == "OPENAI_BASE_URL");
  CHECK(!field_named(openai_info, "reasoning_effort").empty());
  CHECK(field_named(openai_info, "azure_endpoint").empty());

  const json::object azure_info = provider_info(azure(R"({"azure_endpoint":"https://r.example"})"));
  CHECK(azure_info.at("id") == "provider-azure-openai");
  CHECK(field_named(azure_info, "azure_endpoint").at("env_var") == "AZURE_OPENAI_ENDPOINT");
  CHECK(field_named(azure_info, "azure_ad_token").at("env_var") == "AZURE_OPENAI_AD_TOKEN");
  CHECK(!field_named(azure_info, "deployment_mapping").empty());
}

TEST_CASE("prompt_cache_key and prompt_cache_retention reach the request when set") {
  const json::object plain = mapped_body(R"({"messages":[{"role":"user","content":"hi"}]})",
                                         openai("{}"));
  CHECK(!plain.contains("prompt_cache_key"));
  CHECK(!plain.contains("prompt_cache_retention"));
  const json::object cached =
      mapped_body(R"({"messages":[{"role":"user","content":"hi"}]})",
                  openai(R"({"prompt_cache_key":"repo-42","prompt_cache_retention":"24h"})"));
  CHECK(cached.at("prompt_cache_key") == "repo-42");
  CHECK(cached.at("prompt_cache_retention") == "24h");
  CHECK(config_error([] { openai(R"({"prompt_cache_retention":"forever"})"); })
            .find("prompt_cache_retention") != std::string::npos);
}
