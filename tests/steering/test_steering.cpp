// Steering through real sessions over provider-mock: when a steered message reaches the model,
// where it is stored, and that none is lost when the turn ends first.
#include "session_harness.hpp"
#include "temp_files.hpp"

#include "amplifier/coordinator.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <fstream>
#include <future>

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

struct SteerWorkspace {
  amp_test::TempDir tmp{"amp-steering"};
  const fs::path dir = tmp.path();
  const fs::path requests = dir / "requests.jsonl";

  std::string plan(const std::string &orchestrator, json::object mock, bool bash = false) const {
    mock["record_requests"] = requests.string();
    return "session:\n  orchestrator: " + orchestrator + "\n  context: context-simple\n"
           "providers:\n  - module: provider-mock\n    config: " + json::serialize(mock) + "\n" +
           (bash ? "tools:\n  - module: tool-bash\n    config: " +
                       json::serialize(json::object{{"working_dir", dir.string()}}) + "\n"
                 : std::string());
  }
  std::vector<std::string> request_lines() const {
    std::vector<std::string> lines;
    std::ifstream in(requests);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
};

// The text of message `i` of `messages` (its string content or its text blocks).
std::string text_at(const json::array &messages, std::size_t i) {
  const json::value &content = messages.at(i).at("content");
  if (content.is_string()) return std::string(content.get_string());
  std::string out;
  for (const auto &block : content.as_array())
    if (const auto *t = block.as_object().if_contains("text"); t && t->is_string()) out += t->get_string();
  return out;
}

// The mock's first answer: a bash call that takes a second, long enough to steer during it.
json::object running_a_tool() {
  return json::object{{"text", "Running it."},
                      {"tool_calls", json::array{json::object{{"id", "call_1"},
                                                              {"name", "bash"},
                                                              {"input", {{"command", "sleep 1; echo built"}}}}}}};
}

struct RunningTurn {
  std::promise<amplifier::TurnResult> promise;
  std::future<amplifier::TurnResult> future = promise.get_future();
  void start(amplifier::Session &session, const std::string &prompt) {
    session.start(prompt, [this](amplifier::TurnResult r) { promise.set_value(std::move(r)); });
  }
  amplifier::TurnResult wait() {
    REQUIRE(future.wait_for(amp_test::kPatience) == std::future_status::ready);
    return future.get();
  }
};

}  // namespace

TEST_CASE("a message steered while a tool runs is stored after its result and read by the next call") {
  SteerWorkspace ws;
  const json::object mock{
      {"responses", json::array{running_a_tool(),
                                json::object{{"text", "Built, and I checked the logs."}}}}};
  for (const char *loop : {"loop-basic", "loop-streaming"}) {
    CAPTURE(loop);
    auto session = amp_test::make_session(ws.plan(loop, mock, true));
    amp_test::EventLog events(session->hooks());
    session->initialize();
    CHECK_FALSE(session->steer("nobody is listening"));  // no turn: start one instead
    RunningTurn turn;
    turn.start(*session, "build it");
    REQUIRE(events.wait_for("tool:pre", amp_test::kPatience));
    REQUIRE(session->steer("also check the logs"));
    const auto result = turn.wait();
    REQUIRE(result.status == "success");
    CHECK(result.steering_not_delivered.empty());
    const json::array messages = amp_test::transcript(*session);
    INFO(amp_test::dump(messages));
    CHECK(amp_test::roles(messages) == std::vector<std::string>{"user", "assistant", "tool", "user", "assistant"});
    CHECK(text_at(messages, 3) == "also check the logs");
    const auto requests = ws.request_lines();
    REQUIRE(requests.size() >= 2);
    CHECK(requests.back().find("also check the logs") != std::string::npos);
    REQUIRE(events.count("steering:delivered") == 1);
    CHECK(events.payloads("steering:delivered")[0].at("at") == "provider:request");
    CHECK(events.index_of("steering:queued") < events.index_of("steering:delivered"));
    fs::remove(ws.requests);
  }
}

TEST_CASE("a message steered while the final answer streams keeps the turn going, in order") {
  SteerWorkspace ws;
  const json::object mock{{"chunk_size", 2},
                          {"delay_ms", 20},
                          {"responses", json::array{json::object{{"text", "a final answer that streams for a while"}}}}};
  auto session = amp_test::make_session(ws.plan("loop-streaming", mock));
  amp_test::EventLog events(session->hooks());
  session->initialize();
  RunningTurn turn;
  turn.start(*session, "answer");
  REQUIRE(events.wait_for("content_block:delta", amp_test::kPatience));
  REQUIRE(session->steer("and one more thing"));
  REQUIRE(session->steer("and another"));
  const auto result = turn.wait();
  REQUIRE(result.status == "success");
  const json::array messages = amp_test::transcript(*session);
  INFO(amp_test::dump(messages));
  CHECK(amp_test::roles(messages) == std::vector<std::string>{"user", "assistant", "user", "assistant"});
  CHECK(text_at(messages, 1) == "a final answer that streams for a while");
  CHECK(text_at(messages, 2) == "and one more thing\n\nand another");
  CHECK(result.response == "Mock response to: and one more thing\n\nand another");
  REQUIRE(events.count("steering:delivered") == 1);
  CHECK(events.payloads("steering:delivered")[0].at("at") == "turn:stop");
}

TEST_CASE("a message the turn ended before reading comes back in the result, not in a later turn") {
  SteerWorkspace ws;
  const json::object mock{{"chunk_size", 2},
                          {"delay_ms", 20},
                          {"responses", json::array{json::object{{"text", "a slow answer that will be cut off"}},
                                                    json::object{{"text", "the next turn"}}}}};
  auto session = amp_test::make_session(ws.plan("loop-streaming", mock));
  amp_test::EventLog events(session->hooks());
  session->initialize();
  RunningTurn turn;
  turn.start(*session, "answer");
  REQUIRE(events.wait_for("content_block:delta", amp_test::kPatience));
  REQUIRE(session->steer("too late"));
  session->cancel(amplifier::CancelLevel::Immediate);
  const auto result = turn.wait();
  CHECK(result.status == "cancelled");
  CHECK(result.steering_not_delivered == std::vector<std::string>{"too late"});
  session->cancellation().reset();
  const auto next = session->execute("next");
  REQUIRE(next.status == "success");
  CHECK(amp_test::dump(amp_test::transcript(*session)).find("too late") == std::string::npos);
}

TEST_CASE("a message steered before a call the user then refuses is kept in the conversation") {
  // The steered message rides on provider:request as an injection; an approval asked at that
  // event and refused ends the turn, and the message must not go down with the refused call.
  SteerWorkspace ws;
  const json::object mock{
      {"responses", json::array{running_a_tool(),
                                json::object{{"text", "never asked for"}},
                                json::object{{"text", "the next turn"}}}}};
  for (const char *loop : {"loop-basic", "loop-streaming"}) {
    CAPTURE(loop);
    auto session = amp_test::make_session(ws.plan(loop, mock, true));
    amp_test::EventLog events(session->hooks());
    // The second call of the turn (the one after the tool) needs the user's approval; refused.
    session->hooks().register_handler("provider:request", [](std::string_view, const json::object &data) {
      amplifier::HookResult r;
      const auto *iteration = data.if_contains("iteration");
      if (iteration && iteration->is_int64() && iteration->get_int64() == 2) {
        r.action = amplifier::HookAction::AskUser;
        r.approval_prompt = "Call the model again?";
      }
      return r;
    });
    session->coordinator().set_approval_handler([](const json::object &) {
      return json::object{{"decision", "deny"}, {"reason", "not now"}};
    });
    session->initialize();
    RunningTurn turn;
    turn.start(*session, "build it");
    REQUIRE(events.wait_for("tool:pre", amp_test::kPatience));
    REQUIRE(session->steer("also check the logs"));
    const auto result = turn.wait();
    CHECK(result.status != "success");
    CHECK(events.count("approval:denied") == 1);
    // Announced as delivered, and so in the conversation (not handed back, not lost).
    CHECK(result.steering_not_delivered.empty());
    REQUIRE(events.count("steering:delivered") == 1);
    const json::array messages = amp_test::transcript(*session);
    INFO(amp_test::dump(messages));
    CHECK(amp_test::dump(messages).find("also check the logs") != std::string::npos);
    // The refused call was never made, and the next turn carries the message to the model.
    const auto next = session->execute("go on");
    REQUIRE(next.status == "success");
    const auto requests = ws.request_lines();
    REQUIRE_FALSE(requests.empty());
    CHECK(requests.back().find("also check the logs") != std::string::npos);
    fs::remove(ws.requests);
  }
}
