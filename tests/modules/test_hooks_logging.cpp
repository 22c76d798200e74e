// hooks-logging through a real Session: one valid JSON line per event, truncation, the file
// cap, path templates, concurrency.
#include "module_test_support.hpp"

#include <cstdlib>
#include <thread>

using namespace modtest;

namespace {

std::string logging_plan(const json::object &config) {
  return plan_with("hooks:\n  - module: hooks-logging\n    config: " + yaml_json(config) + "\n");
}

std::vector<json::object> log_lines(const fs::path &file) {
  std::vector<json::object> lines;
  for (const auto &line : read_lines(file)) {
    json::error_code ec;
    json::value v = json::parse(line, ec);
    REQUIRE_MESSAGE(!ec, "not a JSON line: " << line);
    REQUIRE(v.is_object());
    lines.push_back(v.as_object());
  }
  return lines;
}

std::vector<json::object> lines_of(const std::vector<json::object> &lines, std::string_view event) {
  std::vector<json::object> found;
  for (const auto &l : lines)
    if (text_of(l.at("event")) == event) found.push_back(l);
  return found;
}

}  // namespace

TEST_CASE("hooks-logging writes each event as one JSON line, with long strings cut") {
  TempDir dir;
  auto session = open_session(logging_plan(
      {{"session_log_template", (dir.path() / "sessions/{session_id}/events.jsonl").string()},
       {"max_string_bytes", 64}}));
  const fs::path file = dir.path() / "sessions" / session->id() / "events.jsonl";

  const std::string big(1000, 'x');
  const std::string wide = std::string(63, 'a') + "é";  // the cut falls inside "é"
  session->hooks().emit("test:event", json::object{{"big", big},
                                                   {"small", "ok"},
                                                   {"wide", wide},
                                                   {"nested", {{"list", json::array{big, 7}}}}});
  REQUIRE(fs::exists(file));
  auto lines = lines_of(log_lines(file), "test:event");
  REQUIRE(lines.size() == 1);
  const auto &line = lines[0];
  CHECK(text_of(line.at("session_id")) == session->id());
  CHECK(line.at("ts").as_string().size() >= 20);
  const auto &data = line.at("data").as_object();
  CHECK(data.at("small") == "ok");
  CHECK(text_of(data.at("big")) == std::string(64, 'x') + "...[truncated 936 of 1000 bytes]");
  CHECK(data.at("nested").at("list").at(0) == data.at("big"));
  CHECK(data.at("nested").at("list").at(1) == 7);
  CHECK(text_of(data.at("wide")) == std::string(63, 'a') + "...[truncated 2 of 65 bytes]");
  CHECK(text_of(data.at("session_id")) == session->id());  // the host's default fields are logged too
}

TEST_CASE("hooks-logging writes a short payload as exactly its JSON, typed deltas included") {
  TempDir dir;
  auto session = open_session(logging_plan(
      {{"session_log_template", (dir.path() / "sessions/{session_id}/events.jsonl").string()}}));
  const fs::path file = dir.path() / "sessions" / session->id() / "events.jsonl";
  std::string seen;  // what the hooks saw, as the host rendered it for module hooks
  session->hooks().register_event_handler("content_block:delta",
                                          [&](amplifier::HookEvent &e) -> std::optional<amplifier::HookResult> {
                                            seen = std::string(e.data_json());
                                            return std::nullopt;
                                          });
  session->hooks().emit_content_delta(0, AMP_DELTA_TEXT, "caf\xc3\xa9 \"q\"\n");
  auto lines = read_lines(file);
  std::string logged;
  for (const auto &line : lines)
    if (line.find(R"("event":"content_block:delta")") != std::string::npos) logged = line;
  REQUIRE_FALSE(logged.empty());
  // The data is spliced in byte for byte, and the line is what serialising the object gives.
  CHECK(logged.find(R"("data":)" + seen + ",") != std::string::npos);
  const json::object parsed = json::parse(logged).as_object();
  CHECK(json::serialize(parsed) == logged);
  CHECK(text_of(parsed.at("data").at("delta").at("text")) == "caf\xc3\xa9 \"q\"\n");
}

TEST_CASE("hooks-logging logs the payload as earlier handlers left it") {
  TempDir dir;
  auto session = open_session(logging_plan(
      {{"session_log_template", (dir.path() / "{session_id}.jsonl").string()}}));
  session->hooks().register_handler(
      "test:modified",
      [](std::string_view, const json::object &data) {
        amplifier::HookResult result;
        result.action = amplifier::HookAction::Modify;
        json::object changed = data;
        changed["secret"] = "[redacted]";
        result.data = changed;
        return result;
      },
      0, "redactor");
  session->hooks().emit("test:modified", json::object{{"secret", "hunter2"}});
  auto lines = lines_of(log_lines(dir.path() / (session->id() + ".jsonl")), "test:modified");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].at("data").at("secret") == "[redacted]");
}

TEST_CASE("hooks-logging: concurrent emits never interleave lines") {
  TempDir dir;
  auto session = open_session(logging_plan(
      {{"session_log_template", (dir.path() / "{session_id}/events.jsonl").string()}}));
  constexpr int kThreads = 8, kPerThread = 100;
  const std::string payload(3000, 'p');  // lines longer than a pipe buffer's atomic size
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i)
        session->hooks().emit("test:concurrent", json::object{{"t", t}, {"i", i}, {"p", payload}});
    });
  }
  for (auto &t : threads) t.join();
  auto lines = lines_of(log_lines(dir.path() / session->id() / "events.jsonl"), "test:concurrent");
  CHECK(lines.size() == kThreads * kPerThread);
  for (const auto &l : lines) CHECK(l.at("data").at("p").as_string().size() == payload.size());
}

TEST_CASE("hooks-logging stops at max_file_bytes with one warning") {
  LogCapture log;
  TempDir dir;
  auto session = open_session(logging_plan(
      {{"session_log_template", (dir.path() / "capped.jsonl").string()}, {"max_file_bytes", 2000}}));
  for (int i = 0; i < 100; ++i)
    session->hooks().emit("test:flood", json::object{{"i", i}, {"filler", std::string(50, 'f')}});
  const auto size = fs::file_size(dir.path() / "capped.jsonl");
  CHECK(size <= 2000);
  CHECK(size > 1500);  // filled up to the cap, not stopped early
  auto lines = log_lines(dir.path() / "capped.jsonl");  // and every line is whole
  CHECK(!lines.empty());
  CHECK(log.containing("reached max_file_bytes").size() == 1);
}

TEST_CASE("hooks-logging expands ~ to HOME and warns about unknown keys") {
  LogCapture log;
  TempDir home;
  const char *old_home = std::getenv("HOME");
  const std::string saved = old_home ? old_home : "";
  ::setenv("HOME", home.path().c_str(), 1);
  {
    auto session = open_session(logging_plan(
        {{"session_log_template", "~/logs/{session_id}/events.jsonl"}, {"max_file_byte", 10}}));
    session->hooks().emit("test:home", json::object{});
    CHECK(fs::exists(home.path() / "logs" / session->id() / "events.jsonl"));
    CHECK(log.containing("unknown key 'max_file_byte' is ignored (did you mean 'max_file_bytes'?)").size() == 1);
  }
  if (old_home) ::setenv("HOME", saved.c_str(), 1); else ::unsetenv("HOME");
}

TEST_CASE("hooks-logging fails to mount, visibly, when the log cannot be created") {
  LogCapture log;
  TempDir dir;
  write_file(dir.path() / "blocker", "a file where a directory should be");
  auto session = open_session(logging_plan(
      {{"session_log_template", (dir.path() / "blocker/sub/events.jsonl").string()}}));
  REQUIRE(session->load_failures().size() == 1);
  CHECK(session->load_failures()[0].module == "hooks-logging");
  CHECK(session->load_failures()[0].error.find("cannot open event log") != std::string::npos);
}
