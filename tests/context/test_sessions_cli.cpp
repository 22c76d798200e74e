// The real `amplifier` binary: run --resume and the sessions commands, over real files.
#include "context_test_support.hpp"
#include "process.hpp"

#include "amplifier/session_store.hpp"
#include "amplifier/transcript.hpp"

#include <csignal>
#include <future>

using namespace ctxtest;
using amp_test::ProcessOptions;
using amp_test::ProcessResult;

namespace {

const std::string kAmplifier = AMP_BINARY_DIR "/host/amplifier";
const std::string kPersistentPlan = AMP_SOURCE_DIR "/mount-plans/persistent.yaml";

// Persistent context, the mock provider, no tools: the mock answers "Mock response to: <the
// last user prompt>" and reports input tokens from the size of the request it received.
const char *kChatPlan = R"(session:
  orchestrator: loop-basic
  context: context-persistent
providers:
  - module: provider-mock
)";

struct Scratch {
  TempDir dir;
  fs::path store() const { return dir / "data" / "amplifier" / "sessions"; }
  ProcessOptions options() const {
    ProcessOptions o;
    o.working_dir = dir.path().string();
    o.env = {{"HOME", (dir / "home").string()},
             {"XDG_DATA_HOME", (dir / "data").string()},
             {"AMPLIFIER_HOME", (dir / "amphome").string()}};
    o.unset_env = {"AMPLIFIER_MODULE_PATH", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"};
    return o;
  }
  ProcessResult amplifier(std::vector<std::string> args) const {
    args.insert(args.begin(), kAmplifier);
    return amp_test::run_process(args, options());
  }
};

std::vector<json::object> events_of(const std::string &out) {
  std::vector<json::object> events;
  for (const auto &line : amp_test::lines_of(out)) events.push_back(json::parse(line).as_object());
  return events;
}

std::vector<json::object> named(const std::vector<json::object> &events, std::string_view name) {
  std::vector<json::object> found;
  for (const auto &e : events)
    if (e.at("event").as_string() == name) found.push_back(e);
  return found;
}

std::int64_t first_input_tokens(const std::vector<json::object> &events) {
  const auto responses = named(events, "provider:response");
  REQUIRE_FALSE(responses.empty());
  return responses[0].at("data").at("usage").at("input_tokens").to_number<std::int64_t>();
}

std::string final_response(const std::vector<json::object> &events) {
  const auto end = named(events, "execution:end");
  REQUIRE(end.size() == 1);
  return std::string(end[0].at("data").at("response").as_string());
}

}  // namespace

TEST_CASE("run --resume continues a conversation: session:resume, and the earlier messages reach the provider") {
  Scratch s;
  const fs::path plan = s.dir / "chat.yaml";
  write_file(plan, kChatPlan);
  const std::string memorable = "Remember this: " + std::string(4000, 'p') + " pineapple.";

  auto first = s.amplifier({"run", "--plan", plan.string(), "--format", "jsonl", memorable});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const auto first_events = events_of(first.out);
  CHECK(named(first_events, "session:start").size() == 1);
  const std::string id(first_events.front().at("session_id").as_string());

  // The same question in a fresh session: what a request without the earlier turn costs.
  auto fresh = s.amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "What was the word?"});
  REQUIRE(fresh.exit_code == 0);

  auto resumed = s.amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "--resume", id,
                              "What was the word?"});
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  const auto events = events_of(resumed.out);
  CHECK(named(events, "session:resume").size() == 1);
  CHECK(named(events, "session:start").empty());
  for (const auto &e : events) CHECK(e.at("session_id").as_string() == id);
  CHECK(final_response(events) == "Mock response to: What was the word?");
  // The provider saw the first turn too: its request is larger by about the first prompt.
  const std::int64_t extra = first_input_tokens(events) - first_input_tokens(events_of(fresh.out));
  CHECK(extra >= static_cast<std::int64_t>(memorable.size() / 4));

  // Both turns are in the store, in order.
  const auto loaded = amplifier::transcript::load_transcript(
      amplifier::session_store::session_files(s.store(), id).transcript);
  REQUIRE(loaded.records.size() == 4);
  CHECK(loaded.records[0].message.at("content").as_string() == memorable);
  CHECK(loaded.records[2].message.at("content") == "What was the word?");
}

TEST_CASE("the shipped persistent plan runs, prints how to resume, and resumes without --plan") {
  Scratch s;
  auto first = s.amplifier({"run", "--plan", kPersistentPlan, "list the files"});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.err.find("--resume") != std::string::npos);
  const auto sessions = amplifier::session_store::list_sessions(s.store());
  REQUIRE(sessions.size() == 1);

  // Without --plan the built-in plan is used with context-persistent on the default store.
  auto resumed = s.amplifier({"run", "--format", "jsonl", "--resume", sessions[0].id, "and again"});
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(named(events_of(resumed.out), "session:resume").size() == 1);
  CHECK(amplifier::session_store::list_sessions(s.store())[0].turn_count == 2);
}

TEST_CASE("run --resume fails clearly when it cannot resume") {
  Scratch s;
  SUBCASE("no such session") {
    auto r = s.amplifier({"run", "--resume", "0b7c3a52-0000-4000-8000-000000000000", "hi"});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("no session '0b7c3a52-0000-4000-8000-000000000000' in " + s.store().string()) !=
          std::string::npos);
  }
  SUBCASE("an id that is not one") {
    auto r = s.amplifier({"run", "--resume", "../../etc", "hi"});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("not a valid session id") != std::string::npos);
  }
  SUBCASE("a plan whose context keeps no transcript") {
    write_file(amplifier::session_store::session_files(s.store(), "s1").transcript,
               jsonl({R"({"role":"user","content":"hi"})"}));
    const fs::path plan = s.dir / "simple.yaml";
    write_file(plan, "session: {orchestrator: loop-basic, context: context-simple}\n"
                     "providers: [{module: provider-mock}]\n");
    auto r = s.amplifier({"run", "--plan", plan.string(), "--resume", "s1", "hi"});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("does not keep transcripts") != std::string::npos);
  }
}

TEST_CASE("sessions list, show and migrate") {
  Scratch s;
  const std::string legacy_id = "legacy-session";
  const auto files = amplifier::session_store::session_files(s.store(), legacy_id);
  const std::string legacy = jsonl({
      R"({"role":"user","content":"an old question"})",
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","name":"list_directory","arguments":"{\"path\":\".\"}"}]})",
      R"({"role":"tool","tool_call_id":"call_1","content":"a.txt"})",
      R"({"role":"assistant","content":"One file."})",
  });
  write_file(files.transcript, legacy);
  const fs::path plan = s.dir / "chat.yaml";
  write_file(plan, kChatPlan);
  REQUIRE(s.amplifier({"run", "--plan", plan.string(), "a newer question"}).exit_code == 0);

  auto list = s.amplifier({"sessions", "list"});
  INFO(list.err);
  REQUIRE(list.exit_code == 0);
  const auto lines = amp_test::lines_of(list.out);
  REQUIRE(lines.size() == 3);  // header, newest first
  CHECK(lines[1].find("a newer question") != std::string::npos);
  CHECK(lines[2].find(legacy_id) != std::string::npos);
  CHECK(lines[2].find("an old question") != std::string::npos);

  auto json_list = s.amplifier({"sessions", "list", "--json"});
  REQUIRE(json_list.exit_code == 0);
  CHECK(json::parse(json_list.out).as_array().size() == 2);

  auto show = s.amplifier({"sessions", "show", legacy_id});
  REQUIRE(show.exit_code == 0);
  CHECK(show.out.find("2 in the legacy format") != std::string::npos);
  CHECK(show.out.find("-> list_directory {\"path\":\".\"} [call_1]") != std::string::npos);
  CHECK(show.out.find("<- [call_1] a.txt") != std::string::npos);

  auto show_json = s.amplifier({"sessions", "show", "--json", legacy_id});
  REQUIRE(show_json.exit_code == 0);
  CHECK(json::parse(show_json.out).as_array()[2].at("content").as_array()[0].at("type") == "tool_result");

  auto migrate = s.amplifier({"sessions", "migrate", legacy_id});
  INFO(migrate.err);
  REQUIRE(migrate.exit_code == 0);
  CHECK(migrate.out.find("2 converted from the legacy format") != std::string::npos);
  CHECK(read_text(fs::path(files.transcript.string() + ".bak")) == legacy);
  CHECK(amplifier::transcript::load_transcript(files.transcript).legacy_records == 0);
  auto again = s.amplifier({"sessions", "migrate", legacy_id});
  REQUIRE(again.exit_code == 0);
  CHECK(again.out.find("nothing to do") != std::string::npos);

  auto missing = s.amplifier({"sessions", "show", "no-such-session"});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("no session 'no-such-session'") != std::string::npos);
  auto other_store = s.amplifier({"sessions", "list", "--store", (s.dir / "elsewhere").string()});
  CHECK(other_store.exit_code == 0);
  CHECK(other_store.err.find("no sessions in") != std::string::npos);
}

TEST_CASE("every sessions command answers --help") {
  Scratch s;
  for (auto args : std::vector<std::vector<std::string>>{{"sessions", "--help"},
                                                        {"sessions", "list", "--help"},
                                                        {"sessions", "show", "--help"},
                                                        {"sessions", "migrate", "--help"}}) {
    auto r = s.amplifier(args);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("Usage") != std::string::npos);
  }
}

namespace {

// A session of one finished turn, written by the real binary; returns its id.
std::string first_session(const Scratch &s, const fs::path &plan) {
  auto first = s.amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "hello"});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  return std::string(events_of(first.out).front().at("session_id").as_string());
}

// A plan whose provider first calls bash to create `started` and wait for `release` (files in
// the working directory), then answers `answer`: a run of it holds its session open for as
// long as the test wants, with no timing involved.
std::string blocking_plan(const std::string &started, const std::string &release,
                          const std::string &answer) {
  return R"(session:
  orchestrator: loop-basic
  context: context-persistent
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls:
            - {id: call_wait, name: bash, input: {command: "touch )" +
         started + " && while [ ! -e " + release + R"( ]; do sleep 0.05; done"}}
        - text: ")" + answer + R"("
tools:
  - module: tool-bash
)";
}

// Waits until `file` exists or `running` has ended (false: it never appeared).
bool wait_for_file(const fs::path &file, std::future<ProcessResult> &running) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(file)) {
    if (running.wait_for(std::chrono::milliseconds(20)) == std::future_status::ready) return false;
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("two processes resuming one session: the second is refused, naming it; the first completes") {
  Scratch s;
  const fs::path chat = s.dir / "chat.yaml";
  write_file(chat, kChatPlan);
  const std::string id = first_session(s, chat);
  const fs::path blocking = s.dir / "blocking.yaml";
  write_file(blocking, blocking_plan("started", "release", "A is done"));

  auto holder = std::async(std::launch::async, [&] {
    return s.amplifier({"run", "--plan", blocking.string(), "--resume", id, "work slowly"});
  });
  REQUIRE_MESSAGE(wait_for_file(s.dir / "started", holder), "the first process never got going");

  auto intruder = s.amplifier({"run", "--plan", chat.string(), "--resume", id, "intrude"});
  CHECK(intruder.exit_code == 1);
  CHECK(intruder.err.find("session " + id + " is in use by another process") != std::string::npos);
  write_file(s.dir / "release", "");
  const ProcessResult first = holder.get();
  INFO(first.err);
  CHECK(first.exit_code == 0);
  CHECK(first.out.find("A is done") != std::string::npos);

  // One writer's lines only, each whole, in its order; the refused process left nothing.
  const auto files = amplifier::session_store::session_files(s.store(), id);
  const auto loaded = amplifier::transcript::load_transcript(files.transcript);
  CHECK(loaded.skipped.empty());
  REQUIRE(loaded.records.size() == 6);  // hello, answer, work slowly, tool call, result, answer
  CHECK(loaded.records[2].message.at("content") == "work slowly");
  CHECK(read_text(files.transcript).find("intrude") == std::string::npos);
  // Once the first has ended, the session is free again.
  auto after = s.amplifier({"run", "--plan", chat.string(), "--resume", id, "now me"});
  INFO(after.err);
  CHECK(after.exit_code == 0);
}

TEST_CASE("a process killed while it holds a session leaves no lock behind") {
  Scratch s;
  const fs::path chat = s.dir / "chat.yaml";
  write_file(chat, kChatPlan);
  const std::string id = first_session(s, chat);
  const fs::path blocking = s.dir / "blocking.yaml";
  write_file(blocking, blocking_plan("started", "release", "never"));
  ProcessOptions options = s.options();
  options.signal_marker = R"("event":"tool:pre")";  // it holds the session now
  options.signal_to_send = SIGKILL;
  const auto killed = amp_test::run_process(
      {kAmplifier, "run", "--plan", blocking.string(), "--format", "jsonl", "--resume", id, "work"},
      options);
  write_file(s.dir / "release", "");  // lets a bash it may have started end
  REQUIRE(killed.signal == SIGKILL);

  auto resumed = s.amplifier({"run", "--plan", chat.string(), "--format", "jsonl", "--resume", id,
                              "after the crash"});
  INFO(resumed.err);
  CHECK(resumed.exit_code == 0);
  CHECK(final_response(events_of(resumed.out)) == "Mock response to: after the crash");
}

TEST_CASE("run --resume of a history over max_history_bytes fails naming the limit; the file stays") {
  Scratch s;
  const fs::path chat = s.dir / "chat.yaml";
  write_file(chat, kChatPlan);
  const std::string id = first_session(s, chat);
  const auto files = amplifier::session_store::session_files(s.store(), id);
  // 1 GiB: the session's lines, then a hole (no disk used) that reads as zero bytes.
  constexpr std::uintmax_t kSize = std::uintmax_t(1) << 30;
  fs::resize_file(files.transcript, kSize);
  ProcessOptions options = s.options();
  options.data_limit_bytes = 512ull << 20;  // reading it whole would not fit
  const auto r = amp_test::run_process(
      {kAmplifier, "run", "--plan", chat.string(), "--resume", id, "more"}, options);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find(files.transcript.string() + " is 1073741824 bytes, more than max_history_bytes "
                                               "(268435456 bytes)") != std::string::npos);
  CHECK(fs::file_size(files.transcript) == kSize);  // nothing cut, nothing lost
}

TEST_CASE("run --resume loads a 50 MB message; a context configured for less names max_line_bytes") {
  Scratch s;
  const fs::path chat = s.dir / "chat.yaml";
  write_file(chat, kChatPlan);
  const std::string id = "big-message";
  const auto files = amplifier::session_store::session_files(s.store(), id);
  const std::string huge(50'000'000, 'h');
  write_file(files.transcript,
             amplifier::transcript::encode_line(text_message("user", huge), std::nullopt, "") +
                 amplifier::transcript::encode_line(text_message("assistant", "noted"), std::nullopt, ""));

  auto resumed = s.amplifier({"run", "--plan", chat.string(), "--format", "jsonl", "--resume", id,
                              "what did I send?"});
  INFO(resumed.err.substr(0, 2000));
  CHECK(resumed.exit_code == 0);
  const auto loaded = named(events_of(resumed.out), "context:transcript_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0].at("data").at("messages_read") == 2);

  const fs::path strict = s.dir / "strict.yaml";
  write_file(strict, "session:\n  orchestrator: loop-basic\n  context:\n    module: context-persistent\n"
                     "    config: {max_line_bytes: 1000000}\nproviders:\n  - module: provider-mock\n");
  auto refused = s.amplifier({"run", "--plan", strict.string(), "--resume", id, "again"});
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find(files.transcript.string() +
                         ": line 1 is longer than max_line_bytes (1000000 bytes)") != std::string::npos);
}

TEST_CASE("sessions list of a huge session without metadata reads only its start") {
  Scratch s;
  const auto files = amplifier::session_store::session_files(s.store(), "huge-legacy");
  write_file(files.transcript, jsonl({R"({"role":"user","content":"the old question"})",
                                      R"({"role":"assistant","content":"an old answer"})"}));
  fs::resize_file(files.transcript, std::uintmax_t(2) << 30);  // a hole: no disk used
  ProcessOptions options = s.options();
  options.data_limit_bytes = 256ull << 20;
  auto r = amp_test::run_process({kAmplifier, "sessions", "list"}, options);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  const auto lines = amp_test::lines_of(r.out);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].find("huge-legacy") != std::string::npos);
  CHECK(lines[1].find("  ?  ") != std::string::npos);  // turns unknown: not read whole
  CHECK(lines[1].find("the old question") != std::string::npos);
}
