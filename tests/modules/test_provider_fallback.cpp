// Routing and fallback: a plan's `routing` lists providers in order; a turn whose provider
// fails in a way safe to fall back on (overloaded, rate limited, 5xx, unreachable), before any
// content reached the user, is completed by the next provider of the route, with a
// provider:fallback event and the answer's metadata saying so. An authentication failure is
// never passed on. Both vendors answer from loopback servers with recorded traffic.
#include "kernel_calls.hpp"
#include "vendor_test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"
#include "amplifier/mount_plan.hpp"

#include <doctest/doctest.h>

namespace json = boost::json;
namespace loopback = amplifier::loopback;
using amp_test::fixture;

namespace {

std::string routed_plan(const std::string &anthropic_url, const std::string &openai_url,
                        const std::string &routing) {
  return "session:\n  orchestrator: loop-basic\n  context: context-simple\n"
         "providers:\n"
         "  - module: provider-anthropic\n    config: {api_key: sk-a, max_retries: 0, base_url: '" +
         anthropic_url + "'}\n" +
         "  - module: provider-openai\n    config: {api_key: sk-o, max_retries: 0, default_model: "
         "gpt-test, base_url: '" + openai_url + "/v1'}\n" + routing;
}

const std::string kRoute = "routing:\n  default: [provider-anthropic, provider-openai]\n";

}  // namespace

TEST_CASE("an overloaded provider's turn completes on the next provider of the route") {
  loopback::LoopbackServer anthropic, openai;
  anthropic.set_default_response(loopback::ScriptedResponse::json(
      529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"));
  openai.enqueue(loopback::ScriptedResponse::sse(fixture("openai_responses_stream_docs.sse"), {11}));
  auto session = amp_test::open_session(routed_plan(anthropic.base_url(), openai.base_url(), kRoute));
  amp_test::EventRecorder events(session->hooks());
  const auto turn = session->execute("hi");
  REQUIRE(turn.status == "success");
  CHECK(!turn.response.empty());
  CHECK(anthropic.requests().size() == 1);
  CHECK(openai.requests().size() == 1);

  const auto fallbacks = events.named("provider:fallback");
  REQUIRE(fallbacks.size() == 1);
  CHECK(fallbacks[0].data.at("from") == "provider-anthropic");
  CHECK(fallbacks[0].data.at("to") == "provider-openai");
  CHECK(fallbacks[0].data.at("reason") == "overloaded");
  CHECK(events.named("provider:error").empty());

  const json::array messages = json::parse(session->coordinator().context_messages()).as_array();
  const json::object &answer = messages.back().as_object();
  CHECK(answer.at("metadata").at("fallback").at("from") == "provider-anthropic");
  CHECK(answer.at("metadata").at("fallback").at("reason") == "overloaded");
}

TEST_CASE("an authentication failure is never passed to the next provider") {
  loopback::LoopbackServer anthropic, openai;
  anthropic.set_default_response(loopback::ScriptedResponse::json(
      401, R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})"));
  auto session = amp_test::open_session(routed_plan(anthropic.base_url(), openai.base_url(), kRoute));
  amp_test::EventRecorder events(session->hooks());
  const auto turn = session->execute("hi");
  CHECK(turn.status == "error");
  CHECK(openai.requests().empty());
  CHECK(events.named("provider:fallback").empty());
}

TEST_CASE("without routing there is no fallback; a route naming no provider is a plan error") {
  loopback::LoopbackServer anthropic, openai;
  anthropic.set_default_response(loopback::ScriptedResponse::json(
      529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"));
  auto session = amp_test::open_session(routed_plan(anthropic.base_url(), openai.base_url(), ""));
  CHECK(session->execute("hi").status == "error");
  CHECK(openai.requests().empty());

  try {
    amplifier::parse_mount_plan(
        routed_plan("http://127.0.0.1:9", "http://127.0.0.1:9",
                    "routing:\n  default: [provider-anthropic, provider-gemini]\n"),
        "test-plan");
    FAIL("the plan was accepted");
  } catch (const amplifier::MountPlanError &e) {
    CHECK(std::string(e.what()).find("routing.default") != std::string::npos);
    CHECK(std::string(e.what()).find("'provider-gemini' is not a provider of this plan") !=
          std::string::npos);
  }
}

TEST_CASE("a turn may ask for a role of the routing; one the plan lacks is an error naming the roles") {
  loopback::LoopbackServer anthropic, openai;
  openai.set_default_response(
      loopback::ScriptedResponse::sse(fixture("openai_responses_stream_docs.sse"), {11}));
  auto session = amp_test::open_session(routed_plan(
      anthropic.base_url(), openai.base_url(),
      "routing:\n  default: [provider-anthropic]\n  fast: [provider-openai]\n"));
  amp_test::EventRecorder events(session->hooks());
  // This turn only: the "fast" role's provider, not the loop's default role.
  const auto fast = session->execute("hi", json::object{{"route", "fast"}});
  REQUIRE(fast.status == "success");
  CHECK(anthropic.requests().empty());
  CHECK(openai.requests().size() == 1);

  const std::size_t stored = json::parse(session->coordinator().context_messages()).as_array().size();
  const auto unknown = session->execute("hi", json::object{{"route", "slow"}});
  CHECK(unknown.status == "error");
  CHECK(unknown.response.find("route 'slow'") != std::string::npos);
  CHECK(unknown.response.find("its roles: default, fast") != std::string::npos);
  CHECK(openai.requests().size() == 1);  // nothing was asked of any provider
  // Nothing of the refused turn was stored.
  CHECK(json::parse(session->coordinator().context_messages()).as_array().size() == stored);
}
