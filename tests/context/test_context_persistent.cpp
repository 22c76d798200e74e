// context-persistent through real sessions: round trips, resume of legacy and interrupted
// transcripts, cross-provider resume, compaction that never edits storage, locking.
#include "context_test_support.hpp"

#include "amplifier/session_store.hpp"
#include "amplifier/transcript.hpp"

using namespace ctxtest;
namespace transcript = amplifier::transcript;
namespace store = amplifier::session_store;

namespace {

const std::string kId = "3f2a9c1e-7b4d-4e8f-9a0b-1c2d3e4f5a6b";

std::size_t line_count(const fs::path &file) {
  const std::string text = read_text(file);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The request provider-mock would receive next, as the orchestrator asks for it.
json::array request_for_mock(ContextHandle &context) {
  return context.for_request(R"({"provider":"provider-mock"})");
}

}  // namespace

TEST_CASE("a session's messages and metadata survive into the next process") {
  TempDir dir;
  const std::string plan = persistent_plan(dir.path(), mock_provider());
  json::array first_messages;
  {
    auto open = open_session(plan, kId);
    auto result = open.session->execute("remember the word pineapple");
    REQUIRE(result.status == "success");
    first_messages = ContextHandle(*open.session).messages();
    CHECK(open.events->payloads("context:transcript_loaded").empty());  // a new session
  }
  REQUIRE(first_messages.size() == 2);
  const auto files = store::session_files(dir.path(), kId);
  const auto metadata = store::read_metadata(files.metadata);
  REQUIRE(metadata);
  CHECK(metadata->session_id == kId);
  CHECK(metadata->provider == "provider-mock");
  CHECK(metadata->provider_module == "provider-mock");
  CHECK(metadata->model == "mock-model");
  CHECK(metadata->turn_count == 1);
  CHECK(metadata->message_count == 2);
  CHECK(metadata->preview == "remember the word pineapple");
  CHECK_FALSE(metadata->created.empty());
  CHECK(metadata->updated >= metadata->created);

  auto open = open_session(plan, kId, true);
  ContextHandle context(*open.session);
  CHECK(context.messages() == first_messages);
  const auto loaded = open.events->payloads("context:transcript_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0].at("messages_read") == 2);
  CHECK(loaded[0].at("repairs").at("closing_messages") == 0);

  auto result = open.session->execute("what was the word?");
  REQUIRE(result.status == "success");
  auto names = open.events->names();
  CHECK(std::count(names.begin(), names.end(), "session:resume") == 1);
  CHECK(std::count(names.begin(), names.end(), "session:start") == 0);
  const json::array messages = context.messages();
  REQUIRE(messages.size() == 4);
  CHECK(messages[0] == first_messages[0]);
  CHECK(line_count(files.transcript) == 4);
  CHECK(store::read_metadata(files.metadata)->turn_count == 2);
}

TEST_CASE("a legacy transcript resumes converted, and stays as it was on disk until migrated") {
  TempDir dir;
  const auto files = store::session_files(dir.path(), kId);
  const std::string legacy = jsonl({
      R"({"role":"user","content":"what is in the folder?"})",
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","name":"list_directory","arguments":"{\"path\":\".\"}"}]})",
      R"({"role":"tool","tool_call_id":"call_1","name":"list_directory","content":"a.txt\nb.txt"})",
      R"({"role":"assistant","content":"Two files: a.txt and b.txt."})",
  });
  write_file(files.transcript, legacy);

  auto open = open_session(persistent_plan(dir.path(), mock_provider()), kId, true);
  ContextHandle context(*open.session);
  const json::array messages = context.messages();
  REQUIRE(messages.size() == 4);
  CHECK(messages[1].at("content") ==
        json::parse(R"([{"type":"tool_call","id":"call_1","name":"list_directory","input":{"path":"."}}])"));
  CHECK(messages[2].at("content").as_array()[0].at("output") == "a.txt\nb.txt");
  // The user and the last assistant line have the same shape in both formats.
  CHECK(open.events->payloads("context:transcript_loaded").at(0).at("legacy_messages") == 2);

  REQUIRE(open.session->execute("thanks").status == "success");
  // New messages are appended in the current format after the untouched legacy lines.
  const std::string text = read_text(files.transcript);
  CHECK(text.substr(0, legacy.size()) == legacy);
  const auto reread = transcript::load_transcript(files.transcript);
  CHECK(reread.records.size() == 6);
  CHECK(reread.legacy_records == 2);
  CHECK_FALSE(reread.records[4].converted_from_legacy);
}

TEST_CASE("a session killed mid-tool resumes with synthetic results and a valid turn order") {
  TempDir dir;
  const auto files = store::session_files(dir.path(), kId);
  const transcript::Origin mock{"provider-mock", "provider-mock", "mock-model"};
  json::object calls = tool_call_message("call_a", "read_file", "Reading both.");
  calls["content"].as_array().push_back(json::object{{"type", "tool_call"}, {"id", "call_b"},
                                                     {"name", "grep"}, {"input", json::object{}}});
  const std::string before = transcript::encode_line(text_message("user", "read a and grep b"), std::nullopt, "t") +
                             transcript::encode_line(calls, mock, "t") +
                             transcript::encode_line(tool_result_message("call_a", "contents of a"), std::nullopt, "t");
  write_file(files.transcript, before);

  auto open = open_session(persistent_plan(dir.path(), mock_provider()), kId, true);
  ContextHandle context(*open.session);
  const json::array messages = context.messages();
  CHECK(roles(messages) == std::vector<std::string>{"user", "assistant", "tool", "tool", "assistant"});
  CHECK(messages[3].at("tool_call_id") == "call_b");
  const auto event = open.events->payloads("context:transcript_loaded").at(0);
  CHECK(event.at("repairs").at("synthetic_tool_results") == 1);
  CHECK(event.at("repairs").at("closing_messages") == 1);
  // The repairs are recorded: the transcript is whole again for every later reader.
  CHECK(line_count(files.transcript) == 5);

  REQUIRE(open.session->execute("try again").status == "success");
  json::array request = request_for_mock(context);
  check_alternation(request);
  CHECK(request.size() == 7);
}

TEST_CASE("resuming on another provider drops what it cannot accept, with degradations") {
  TempDir dir;
  const auto files = store::session_files(dir.path(), kId);
  const transcript::Origin openai{"gpt", "provider-openai", "gpt-5"};
  const transcript::Origin anthropic{"claude", "provider-anthropic", "claude-sonnet-4-5"};
  const json::value from_openai = json::parse(
      R"({"role":"assistant","content":[{"type":"reasoning","content":[],"summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"gAAAA..."},{"type":"text","text":"Hello from GPT"}]})");
  const json::value from_claude = json::parse(
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"EqQBCkYIARgC"},{"type":"redacted_thinking","data":"xyz"},{"type":"text","text":"Hello from Claude"}]})");
  write_file(files.transcript,
             transcript::encode_line(text_message("user", "hi"), std::nullopt, "t") +
                 transcript::encode_line(from_openai, openai, "t") +
                 transcript::encode_line(text_message("user", "again"), std::nullopt, "t") +
                 transcript::encode_line(from_claude, anthropic, "t"));

  auto open = open_session(persistent_plan(dir.path(), mock_provider()), kId, true);
  ContextHandle context(*open.session);
  const json::array request = request_for_mock(context);
  CHECK(request[1].at("content") == json::parse(R"([{"type":"text","text":"Hello from GPT"}])"));
  CHECK(request[3].at("content") == json::parse(R"([{"type":"text","text":"Hello from Claude"}])"));
  CHECK(context.messages()[3] == from_claude);  // the history keeps everything

  (void)request_for_mock(context);  // the same degradations are announced only once
  const auto degraded = open.events->payloads("context:degraded");
  REQUIRE(degraded.size() == 1);
  CHECK(degraded[0].at("module") == "provider-mock");
  std::set<std::string> features;
  for (const auto &d : degraded[0].at("degradations").as_array())
    features.emplace(d.at("feature").as_string());
  CHECK(features == std::set<std::string>{"foreign_reasoning", "foreign_thinking",
                                          "foreign_redacted_thinking"});

  REQUIRE(open.session->execute("and now?").status == "success");
  const auto metadata = store::read_metadata(files.metadata);
  REQUIRE(metadata);
  CHECK(metadata->degradations.size() == 3);
  CHECK(metadata->provider_module == "provider-mock");
}

TEST_CASE("compaction shapes the request only: storage never changes") {
  TempDir dir;
  auto open = open_session(persistent_plan(dir.path(), mock_provider(), R"("max_tokens": 3000)"), kId);
  ContextHandle context(*open.session);
  for (int turn = 0; turn < 12; ++turn) {
    const std::string n = std::to_string(turn);
    context.add_ok(text_message("user", "question " + n));
    context.add_ok(tool_call_message("call_" + n, "read_file"));
    context.add_ok(tool_result_message("call_" + n, std::string(2000, 'r')));
    context.add_ok(text_message("assistant", "answer " + n));
  }
  context.add_ok(text_message("user", "the last question"));
  const json::array stored = context.messages();
  const auto files = store::session_files(dir.path(), kId);
  const std::string on_disk = read_text(files.transcript);

  const json::array request = request_for_mock(context);
  CHECK(request.size() < stored.size());
  CHECK(request.back() == stored.back());
  check_alternation(request);
  CHECK(context.messages() == stored);
  CHECK(read_text(files.transcript) == on_disk);

  const auto pre = open.events->payloads("context:pre_compact");
  const auto post = open.events->payloads("context:post_compact");
  REQUIRE(pre.size() == 1);
  REQUIRE(post.size() == 1);
  CHECK(pre[0].at("messages") == stored.size());
  CHECK(post[0].at("messages_before") == stored.size());
  CHECK(post[0].at("messages_after") == request.size());
  CHECK(post[0].at("tokens_after").to_number<std::int64_t>() <
        post[0].at("tokens_before").to_number<std::int64_t>());
  CHECK(post[0].at("tokens_after").to_number<std::int64_t>() <=
        pre[0].at("target_tokens").to_number<std::int64_t>());
}

TEST_CASE("set_messages and clear rewrite the transcript atomically") {
  TempDir dir;
  const std::string plan = persistent_plan(dir.path(), mock_provider());
  const std::string replacement = R"([{"role":"system","content":"be brief"},{"role":"user","content":"x"}])";
  {
    auto open = open_session(plan, kId);
    ContextHandle context(*open.session);
    context.add_ok(text_message("user", "one"));
    REQUIRE(context.set(replacement) == AMP_OK);
    context.add_ok(text_message("assistant", "appended after the rewrite"));
  }
  {
    auto open = open_session(plan, kId, true);
    ContextHandle context(*open.session);
    json::array expected = json::parse(replacement).as_array();
    expected.push_back(text_message("assistant", "appended after the rewrite"));
    CHECK(context.messages() == expected);
    REQUIRE(context.set("[]") == AMP_OK);
  }
  auto open = open_session(plan, kId, true);
  CHECK(ContextHandle(*open.session).messages().empty());
}

TEST_CASE("one session, one process: a second open of the same session is refused") {
  TempDir dir;
  const std::string plan = persistent_plan(dir.path());
  auto first = open_session(plan, kId);
  ContextHandle(*first.session).add_ok(text_message("user", "hello"));
  CHECK_THROWS_WITH_AS(open_session(plan, kId, true), doctest::Contains("in use by another process"),
                       amplifier::SessionError);
}

TEST_CASE("a session id that is not a plain token is refused before any file is touched") {
  TempDir dir;
  for (const char *id : {"../escape", "a/b", ".."}) {
    CAPTURE(id);
    CHECK_THROWS_WITH_AS(open_session(persistent_plan(dir.path()), id), doctest::Contains("session id"),
                         amplifier::SessionError);
  }
  CHECK(fs::is_empty(dir.path()));
}
