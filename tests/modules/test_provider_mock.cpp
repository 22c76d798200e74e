// provider-mock through a real Session: streaming, scripts, errors, concurrency, cancellation.
#include "module_test_support.hpp"

#include "amplifier/stream.hpp"

#include <atomic>
#include <fstream>
#include <thread>

using namespace modtest;
using amplifier::CancelLevel;

namespace {

std::string mock_plan(const json::object &config) {
  return plan_with("providers:\n  - module: provider-mock\n    config: " + yaml_json(config) + "\n");
}

// Rebuilds the response from the streamed events, the way an orchestrator does.
json::object assemble(const std::vector<json::object> &events) {
  amplifier::ResponseAssembler assembler;
  for (const auto &event : events) assembler.feed(event);
  return amplifier::to_json(assembler.finish());
}

std::size_t code_points(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

int thread_count() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

const json::object kToolInput{{"path", "README.md"}, {"limit", 5}, {"note", "ünïcödé ✓"}};

}  // namespace

TEST_CASE("provider-mock streams thinking, text and tool-call deltas in order") {
  LogCapture log;
  const std::string thinking = "Let me think about ünïcödé and emoji 🎉 carefully";
  const std::string text = "Hello wörld, this text arrives in small pieces.";
  auto session = open_session(mock_plan(
      {{"chunk_size", 3},
       {"model", "mock-large"},
       {"responses", json::array{json::object{
                         {"thinking", thinking},
                         {"signature", "sig-123"},
                         {"text", text},
                         {"tool_calls", json::array{json::object{
                                            {"id", "call_1"}, {"name", "read_file"}, {"input", kToolInput}}}}}}}}));
  auto call = complete(*session, "provider-mock", user_request("hi"));
  REQUIRE(call->wait_finished());
  CHECK(call->status == AMP_OK);
  CHECK(call->finish_count == 1);

  const auto events = call->parsed_events();
  // Every block's events sit between its start and its end, blocks in index order.
  std::vector<std::string> block_types;
  std::string thinking_seen, signature_seen, text_seen, input_json_seen;
  std::size_t text_deltas = 0, input_deltas = 0;
  std::int64_t open_index = -1;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    const auto &e = events[i];
    const std::string type(e.at("type").as_string());
    const std::int64_t index = e.at("index").as_int64();
    if (type == "content_block_start") {
      CHECK(open_index == -1);
      CHECK(index == static_cast<std::int64_t>(block_types.size()));
      open_index = index;
      block_types.emplace_back(e.at("block").at("type").as_string());
    } else if (type == "content_block_delta") {
      CHECK(index == open_index);
      const auto &delta = e.at("delta").as_object();
      const std::string delta_type(delta.at("type").as_string());
      if (delta_type == "thinking") thinking_seen += delta.at("thinking").as_string();
      if (delta_type == "signature") signature_seen += delta.at("signature").as_string();
      if (delta_type == "text") {
        const std::string piece(delta.at("text").as_string());
        CHECK(code_points(piece) <= 3);
        text_seen += piece;
        ++text_deltas;
      }
      if (delta_type == "tool_input") {
        input_json_seen += delta.at("partial_json").as_string();
        ++input_deltas;
      }
    } else {
      REQUIRE(type == "content_block_end");
      CHECK(index == open_index);
      open_index = -1;
    }
  }
  CHECK(open_index == -1);
  CHECK(events.back().at("type") == "usage");
  CHECK(block_types == std::vector<std::string>{"thinking", "text", "tool_call"});
  CHECK(thinking_seen == thinking);
  CHECK(signature_seen == "sig-123");
  CHECK(text_seen == text);
  CHECK(text_deltas == (code_points(text) + 2) / 3);
  CHECK(input_deltas > 1);
  CHECK(json::parse(input_json_seen) == json::value(kToolInput));

  // The end blocks carry the complete blocks.
  std::vector<json::object> ends;
  for (const auto &e : events)
    if (e.at("type") == "content_block_end") ends.push_back(e.at("block").as_object());
  REQUIRE(ends.size() == 3);
  CHECK(ends[0] == json::object{{"type", "thinking"}, {"thinking", thinking}, {"signature", "sig-123"}});
  CHECK(ends[1] == json::object{{"type", "text"}, {"text", text}});
  CHECK(ends[2].at("id") == "call_1");
  CHECK(ends[2].at("input") == kToolInput);

  // The terminal ChatResponse is what the events assemble to, plus finish_reason and metadata.
  json::object response = call->result();
  const json::object assembled = assemble(events);
  CHECK(response.at("content") == assembled.at("content"));
  CHECK(response.at("tool_calls") == assembled.at("tool_calls"));
  CHECK(response.at("usage") == assembled.at("usage"));
  CHECK(response.at("finish_reason") == "tool_use");
  CHECK(response.at("metadata").at("model") == "mock-large");
  CHECK(response.at("metadata").at("provider") == "provider-mock");
  const auto &usage = response.at("usage").as_object();
  CHECK(usage.at("input_tokens").as_int64() > 0);
  CHECK(usage.at("output_tokens").as_int64() > 0);
  CHECK(usage.at("total_tokens").as_int64() ==
        usage.at("input_tokens").as_int64() + usage.at("output_tokens").as_int64());
  CHECK(log.containing("protocol violation").empty());
}

TEST_CASE("provider-mock consumes scripted responses in order, then falls back to the default") {
  const json::object scripted_call{{"name", "list_directory"}, {"input", {{"path", "src"}}}};
  const json::array responses{json::object{{"text", "first"}},
                              json::object{{"tool_calls", json::array{scripted_call}}}};
  auto session = open_session(mock_plan({{"responses", responses}}));
  auto first = complete(*session, "provider-mock", user_request("one"));
  REQUIRE(first->wait_finished());
  auto r1 = first->result();
  CHECK(r1.at("content") == json::array{json::object{{"type", "text"}, {"text", "first"}}});
  CHECK(r1.at("finish_reason") == "end_turn");
  CHECK(r1.at("metadata").at("script_index") == 0);

  auto second = complete(*session, "provider-mock", user_request("two"));
  REQUIRE(second->wait_finished());
  auto r2 = second->result();
  REQUIRE(r2.at("tool_calls").as_array().size() == 1);
  const auto &tool_call = r2.at("tool_calls").at(0).as_object();
  CHECK(tool_call.at("name") == "list_directory");
  CHECK(tool_call.at("input") == json::object{{"path", "src"}});
  CHECK(!tool_call.at("id").as_string().empty());  // generated when the script gives none
  CHECK(r2.at("finish_reason") == "tool_use");

  auto third = complete(*session, "provider-mock", user_request("echo me"));
  REQUIRE(third->wait_finished());
  auto r3 = third->result();
  CHECK(r3.at("metadata").at("source") == "default");
  CHECK(std::string(r3.at("content").at(1).at("text").as_string()).find("echo me") != std::string::npos);
}

TEST_CASE("provider-mock default behaviour: a tool call, then an answer quoting its result") {
  auto session = open_session(mock_plan({}));

  SUBCASE("prefers list_directory with path '.'") {
    auto call = complete(*session, "provider-mock",
                         user_request("what is here?", {tool_spec("read_file"), tool_spec("list_directory")}));
    REQUIRE(call->wait_finished());
    auto response = call->result();
    CHECK(response.at("finish_reason") == "tool_use");
    const auto &tool_call = response.at("tool_calls").at(0).as_object();
    CHECK(tool_call.at("name") == "list_directory");
    CHECK(tool_call.at("input") == json::object{{"path", "."}});
    // A thinking block with a signature, so fidelity of thinking blocks can be exercised.
    const auto &first_block = response.at("content").at(0).as_object();
    CHECK(first_block.at("type") == "thinking");
    CHECK(!first_block.at("signature").as_string().empty());
  }

  SUBCASE("otherwise calls the first tool with an empty input") {
    auto call = complete(*session, "provider-mock", user_request("go", {tool_spec("bash")}));
    REQUIRE(call->wait_finished());
    const json::object tool_call = call->result().at("tool_calls").at(0).as_object();
    CHECK(tool_call.at("name") == "bash");
    CHECK(tool_call.at("input") == json::object{});
  }

  SUBCASE("after a tool result, answers with text quoting the output") {
    const json::object tool_call{{"type", "tool_call"}, {"id", "call_7"},
                                 {"name", "list_directory"}, {"input", json::object{}}};
    const json::object user{{"role", "user"}, {"content", "list it"}};
    const json::object assistant{{"role", "assistant"}, {"content", json::array{tool_call}}};
    const json::object result{{"role", "tool"}, {"tool_call_id", "call_7"},
                              {"content", "alpha/\nbeta.txt\ngamma.md\n"}};
    const json::array messages{user, assistant, result};
    json::object request{{"messages", messages},
                         {"tools", json::array{tool_spec("list_directory")}}};
    auto call = complete(*session, "provider-mock", request);
    REQUIRE(call->wait_finished());
    auto response = call->result();
    CHECK(response.at("finish_reason") == "end_turn");
    CHECK(!response.contains("tool_calls"));
    const std::string text(response.at("content").at(1).at("text").as_string());
    CHECK(text.find("list_directory") != std::string::npos);
    CHECK(text.find("alpha/") != std::string::npos);
    CHECK(text.find("beta.txt") != std::string::npos);
  }

  SUBCASE("without tools, echoes the prompt") {
    auto call = complete(*session, "provider-mock", user_request("Tell me a joke"));
    REQUIRE(call->wait_finished());
    const std::string text(call->result().at("content").at(1).at("text").as_string());
    CHECK(text.find("Tell me a joke") != std::string::npos);
  }

  SUBCASE("an invalid request is refused with invalid_request") {
    auto call = complete(*session, "provider-mock", json::object{{"messages", "not a list"}});
    REQUIRE(call->wait_finished());
    CHECK(call->status == AMP_INVALID_ARGUMENT);
    CHECK(call->result().at("kind") == "invalid_request");
  }
}

TEST_CASE("provider-mock refuses a thinking block whose signature was dropped or altered") {
  auto session = open_session(mock_plan({}));
  auto first = complete(*session, "provider-mock", user_request("think first"));
  REQUIRE(first->wait_finished());
  json::object thinking = first->result().at("content").at(0).as_object();
  REQUIRE(thinking.at("type") == "thinking");

  auto follow_up = [&](json::object block) {
    json::array messages{
        json::object{{"role", "user"}, {"content", "think first"}},
        json::object{{"role", "assistant"},
                     {"content", json::array{block, json::object{{"type", "text"}, {"text", "ok"}}}}},
        json::object{{"role", "user"}, {"content", "and now?"}}};
    auto call = complete(*session, "provider-mock", json::object{{"messages", messages}});
    REQUIRE(call->wait_finished());
    return call;
  };

  CHECK(follow_up(thinking)->status == AMP_OK);

  json::object dropped = thinking;
  dropped.erase("signature");
  auto refused = follow_up(dropped);
  CHECK(refused->status == AMP_INVALID_ARGUMENT);
  CHECK(refused->result().at("kind") == "invalid_request");
  CHECK(std::string(refused->result().at("message").as_string()).find("signature") != std::string::npos);

  json::object altered = thinking;
  altered["thinking"] = "a different thought";
  CHECK(follow_up(altered)->status == AMP_INVALID_ARGUMENT);
}

TEST_CASE("provider-mock turns a scripted error into a typed error") {
  const json::object rate_limit{{"kind", "rate_limit"}, {"message", "slow down"},
                                {"retryable", true}, {"retry_after", 2}};
  const json::object broken_stream{{"kind", "stream"}, {"message", "connection reset"}};
  const json::array responses{json::object{{"error", rate_limit}},
                              json::object{{"text", "partial answer"}, {"error", broken_stream}},
                              json::object{{"text", "recovered"}}};
  auto session = open_session(mock_plan({{"responses", responses}}));

  auto limited = complete(*session, "provider-mock", user_request("a"));
  REQUIRE(limited->wait_finished());
  CHECK(limited->status == AMP_ERROR);
  auto error = limited->result();
  CHECK(error.at("kind") == "rate_limit");
  CHECK(error.at("message") == "slow down");
  CHECK(error.at("retryable") == true);
  CHECK(error.at("retry_after").to_number<double>() == 2.0);
  CHECK(error.at("provider") == "provider-mock");
  CHECK(limited->events.empty());

  auto broken = complete(*session, "provider-mock", user_request("b"));
  REQUIRE(broken->wait_finished());
  CHECK(broken->status == AMP_ERROR);
  CHECK(broken->result().at("kind") == "stream");
  CHECK(!broken->events.empty());  // the content streamed before the stream broke

  auto recovered = complete(*session, "provider-mock", user_request("c"));
  REQUIRE(recovered->wait_finished());
  CHECK(recovered->status == AMP_OK);
}

TEST_CASE("provider-mock carries 1,000 concurrent calls on one instance, each finishing once") {
  LogCapture log;
  auto session = open_session(mock_plan({{"chunk_size", 4}, {"delay_ms", 5}}));
  constexpr int kCalls = 1000;
  std::vector<std::shared_ptr<CallRecorder>> calls(kCalls);
  const int threads_before = thread_count();

  // Started from four threads at once, as several orchestrators would.
  const auto started_at = std::chrono::steady_clock::now();
  std::vector<std::thread> starters;
  for (int t = 0; t < 4; ++t) {
    starters.emplace_back([&, t] {
      for (int i = t; i < kCalls; i += 4)
        calls[i] = complete(*session, "provider-mock", user_request("prompt #" + std::to_string(i)));
    });
  }
  for (auto &s : starters) s.join();
  const auto start_time = std::chrono::steady_clock::now() - started_at;
  const int threads_during = thread_count();

  int unfinished_right_after_start = 0;
  for (auto &c : calls) {
    std::lock_guard lock(c->mutex);
    unfinished_right_after_start += c->finish_count == 0;
  }
  for (auto &c : calls) REQUIRE(c->wait_finished(30s));

  // complete() returned at once: the calls were still running when all had been started,
  // and no thread was created per call.
  CHECK(unfinished_right_after_start > kCalls / 2);
  CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(start_time).count() < 5000);
  CHECK(threads_during - threads_before < 10);

  for (int i = 0; i < kCalls; ++i) {
    auto &c = calls[i];
    CHECK(c->finish_count == 1);
    CHECK(c->status == AMP_OK);
    // Each call's stream belongs to it alone.
    const std::string text(c->result().at("content").at(1).at("text").as_string());
    CHECK(text.find("prompt #" + std::to_string(i)) != std::string::npos);
    CHECK(assemble(c->parsed_events()).at("content") == c->result().at("content"));
  }
  std::this_thread::sleep_for(50ms);  // a late duplicate would be logged by now
  CHECK(log.containing("protocol violation").empty());
}

TEST_CASE("provider-mock cancellation") {
  LogCapture log;
  const std::string long_text(200, 'x');
  auto session = open_session(mock_plan(
      {{"chunk_size", 1}, {"delay_ms", 10}, {"responses", json::array{json::object{{"text", long_text}}, json::object{{"text", "short"}}}}}));

  SUBCASE("an immediate cancel ends the stream midway with AMP_CANCELLED") {
    auto call = complete(*session, "provider-mock", user_request("go"));
    REQUIRE(call->wait_events(4));
    CHECK(session->coordinator().cancel_call(call->id, CancelLevel::Immediate));
    REQUIRE(call->wait_finished(2s));
    CHECK(call->status == AMP_CANCELLED);
    CHECK(call->result().at("kind") == "cancelled");
    std::this_thread::sleep_for(50ms);
    std::lock_guard lock(call->mutex);
    CHECK(call->finish_count == 1);
    CHECK(call->events.size() < long_text.size());
  }

  SUBCASE("a graceful cancel lets the running completion finish") {
    const json::object config{{"chunk_size", 1}, {"delay_ms", 2},
                              {"responses", json::array{json::object{{"text", "abcdefghij"}}}}};
    auto graceful = open_session(mock_plan(config));
    auto call = complete(*graceful, "provider-mock", user_request("go"));
    REQUIRE(call->wait_events(2));
    graceful->coordinator().cancel_call(call->id, CancelLevel::Graceful);
    REQUIRE(call->wait_finished());
    CHECK(call->status == AMP_OK);
    CHECK(call->result().at("content").at(0).at("text") == "abcdefghij");
  }

  SUBCASE("a session-wide immediate cancel stops a call waiting out its delay") {
    const json::object config{{"responses", json::array{json::object{{"text", "late"}, {"delay_ms", 5000}}}}};
    auto slow = open_session(mock_plan(config));
    auto call = complete(*slow, "provider-mock", user_request("go"));
    std::this_thread::sleep_for(30ms);
    const auto before = std::chrono::steady_clock::now();
    slow->cancel(CancelLevel::Immediate);
    REQUIRE(call->wait_finished(2s));
    CHECK(call->status == AMP_CANCELLED);
    CHECK(std::chrono::steady_clock::now() - before < 1s);
  }
  CHECK(log.containing("protocol violation").empty());
}

TEST_CASE("provider-mock: cancels racing the natural end still give exactly one terminal event") {
  LogCapture log;
  // A pause before each chunk, so a cancel sent right after the start always lands before the
  // natural end, even on a loaded machine (the lower bound below counts on it); the later
  // cancels still race the end.
  auto session = open_session(mock_plan({{"chunk_size", 16}, {"delay_ms", 20}}));
  constexpr int kCalls = 300;
  std::vector<std::shared_ptr<CallRecorder>> calls;
  for (int i = 0; i < kCalls; ++i) {
    calls.push_back(complete(*session, "provider-mock", user_request("race " + std::to_string(i))));
    // Cancel some at once, some a little later, some never: every timing against the stream.
    if (i % 3 == 0) session->coordinator().cancel_call(calls.back()->id, CancelLevel::Immediate);
    if (i % 3 == 1 && i >= 3) session->coordinator().cancel_call(calls[i - 3]->id, CancelLevel::Immediate);
  }
  int cancelled = 0, completed = 0;
  for (auto &c : calls) {
    REQUIRE(c->wait_finished());
    cancelled += c->status == AMP_CANCELLED;
    completed += c->status == AMP_OK;
  }
  std::this_thread::sleep_for(50ms);
  for (auto &c : calls) CHECK(c->finish_count == 1);
  CHECK(cancelled + completed == kCalls);
  CHECK(cancelled >= kCalls / 3);
  CHECK(log.containing("protocol violation").empty());
}

TEST_CASE("provider-mock: unmounting with calls in flight ends each of them exactly once") {
  LogCapture log;
  std::vector<std::shared_ptr<CallRecorder>> calls;
  {
    auto session = open_session(mock_plan({{"delay_ms", 50}}));
    for (int i = 0; i < 50; ++i) calls.push_back(complete(*session, "provider-mock", user_request("x")));
    REQUIRE(calls.back()->wait_events(1));
    session->cleanup();
  }
  for (auto &c : calls) {
    REQUIRE(c->wait_finished(1s));
    CHECK(c->status == AMP_CANCELLED);
  }
  std::vector<std::size_t> event_counts;
  for (auto &c : calls) {
    std::lock_guard lock(c->mutex);
    event_counts.push_back(c->events.size());
  }
  std::this_thread::sleep_for(150ms);  // no timer of the destroyed instance may fire now
  for (std::size_t i = 0; i < calls.size(); ++i) {
    std::lock_guard lock(calls[i]->mutex);
    CHECK(calls[i]->finish_count == 1);
    CHECK(calls[i]->events.size() == event_counts[i]);
  }
  CHECK(log.containing("protocol violation").empty());
  CHECK(log.containing("did not end its calls").empty());
}

TEST_CASE("provider-mock describes itself and its model") {
  auto session = open_session(mock_plan({{"model", "mock-xl"}}));
  auto *provider = session->coordinator().provider("provider-mock");
  REQUIRE(provider != nullptr);
  const auto &info = provider->info.as_object();
  CHECK(info.at("id") == "provider-mock");
  CHECK(info.at("credential_env_vars") == json::array{});
  CHECK(info.at("capabilities").at("streaming") == true);
  CHECK(info.at("capabilities").at("tools") == true);
  CHECK(info.at("capabilities").at("thinking") == true);
  CHECK(info.at("defaults").at("model") == "mock-xl");
  CHECK(!info.at("config_fields").as_array().empty());

  amp::sdk::StringWriter out;
  REQUIRE(provider->table<amp_provider_vtable>()->list_models(provider->instance, &out) == AMP_OK);
  auto models = json::parse(out.text).as_array();
  REQUIRE(models.size() == 1);
  CHECK(models[0].at("id") == "mock-xl");
  CHECK(models[0].at("context_window").as_int64() > 0);
  CHECK(models[0].at("max_output_tokens").as_int64() > 0);
}

TEST_CASE("provider-mock config: unknown keys are warned about, bad values refused") {
  SUBCASE("a misspelt key gets a suggestion, also inside a scripted response") {
    LogCapture log;
    auto session = open_session(mock_plan(
        {{"chunk_sise", 4}, {"responses", json::array{json::object{{"txt", "hello"}}}}}));
    CHECK(log.containing("unknown key 'chunk_sise' is ignored (did you mean 'chunk_size'?)").size() == 1);
    CHECK(log.containing("responses[0]: unknown key 'txt' is ignored (did you mean 'text'?)").size() == 1);
  }
  SUBCASE("a value of the wrong type fails the mount with a clear reason") {
    LogCapture log;
    auto session = open_session(mock_plan({{"chunk_size", "big"}}));
    REQUIRE(session->load_failures().size() == 1);
    CHECK(session->load_failures()[0].error.find("'chunk_size' must be an integer, got a string") !=
          std::string::npos);
  }
  SUBCASE("an unknown error kind in the script is refused") {
    LogCapture log;
    auto session = open_session(mock_plan(
        {{"responses", json::array{json::object{{"error", {{"kind", "gremlins"}, {"message", "?"}}}}}}}));
    REQUIRE(session->load_failures().size() == 1);
    CHECK(session->load_failures()[0].error.find("responses[0]: 'error' is not a valid error") !=
          std::string::npos);
  }
}
