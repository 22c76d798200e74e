// The built-in plan's choice of vendor by the keys in the environment: the real binary against
// the loopback vendor server.
#include "host_process.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

using amp_host_test::Scratch;

namespace {

std::size_t occurrences(const std::string &text, std::string_view needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

}  // namespace

TEST_CASE("the built-in plan picks Anthropic, then OpenAI, Azure OpenAI, Gemini by their keys") {
  // The vendor answers 401 (never retried): the run fails at once with a typed error, and the
  // request shows where it went and how it authenticated.
  amplifier::loopback::LoopbackServer server;
  server.set_default_response(amplifier::loopback::ScriptedResponse::json(
      401, R"({"error":{"type":"authentication_error","message":"bad key"}})"));
  const std::string url = server.base_url();
  struct Case {
    std::vector<std::pair<std::string, std::string>> env;
    const char *provider;
    const char *path;
    std::pair<const char *, const char *> auth_header;
  };
  const Case cases[] = {
      {{{"ANTHROPIC_API_KEY", "ak"}, {"ANTHROPIC_BASE_URL", url}, {"OPENAI_API_KEY", "sk"}},
       "provider-anthropic", "/v1/messages", {"x-api-key", "ak"}},
      {{{"OPENAI_API_KEY", "sk"}, {"OPENAI_BASE_URL", url + "/v1"},
        {"AZURE_OPENAI_ENDPOINT", url}, {"AZURE_OPENAI_API_KEY", "az"}},
       "provider-openai", "/v1/responses", {"authorization", "Bearer sk"}},
      {{{"AZURE_OPENAI_ENDPOINT", url}, {"AZURE_OPENAI_API_KEY", "az"}},
       "provider-azure-openai", "/openai/v1/responses", {"api-key", "az"}},
      {{{"AZURE_OPENAI_ENDPOINT", url}, {"AZURE_OPENAI_AD_TOKEN", "tok"}},
       "provider-azure-openai", "/openai/v1/responses", {"authorization", "Bearer tok"}},
      {{{"GOOGLE_API_KEY", "gk"}, {"GEMINI_BASE_URL", url}},
       "provider-gemini", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
       {"x-goog-api-key", "gk"}},
  };
  std::size_t seen = 0;
  for (const Case &c : cases) {
    CAPTURE(c.provider);
    Scratch s;
    auto o = s.options();
    for (const auto &[name, value] : c.env) {
      o.unset_env.erase(std::remove(o.unset_env.begin(), o.unset_env.end(), name),
                        o.unset_env.end());
      o.env.emplace_back(name, value);
    }
    auto r = amp_host_test::run_amplifier({"run", "--format", "jsonl", "hi"}, o);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find(std::string("using the built-in plan on ") + c.provider) !=
          std::string::npos);
    CHECK(r.err.find("authentication") != std::string::npos);
    CHECK(occurrences(r.out, R"("event":"provider:error")") == 1);
    CHECK(occurrences(r.out, R"("event":"module:load_failed")") == 0);
    const auto requests = server.requests();
    REQUIRE(requests.size() == seen + 1);
    const auto &request = requests[seen++];
    CHECK(request.target == c.path);
    CHECK(request.header(c.auth_header.first) == c.auth_header.second);
  }
}
