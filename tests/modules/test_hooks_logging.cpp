// hooks-logging through a real Session: one valid JSON line per event, truncation, rotation,
// path templates, concurrency.
#include "module_test_support.hpp"

#include <cstdlib>
#include <thread>

#include <sys/stat.h>

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

TEST_CASE("hooks-logging leaves the providers' complete payloads out unless log_raw_events") {
  for (const bool log_raw : {false, true}) {
    CAPTURE(log_raw);
    TempDir dir;
    json::object config{
        {"session_log_template", (dir.path() / "sessions/{session_id}/events.jsonl").string()}};
    if (log_raw) config["log_raw_events"] = true;
    auto session = open_session(logging_plan(config));
    const fs::path file = dir.path() / "sessions" / session->id() / "events.jsonl";
    for (const char *event : {"llm:request", "llm:request:debug", "llm:request:raw",
                              "llm:response:raw"})
      session->hooks().emit(event, json::object{{"provider", "p"}});
    const auto lines = log_lines(file);
    CHECK(lines_of(lines, "llm:request").size() == 1);
    CHECK(lines_of(lines, "llm:request:debug").size() == 1);
    CHECK(lines_of(lines, "llm:request:raw").size() == (log_raw ? 1 : 0));
    CHECK(lines_of(lines, "llm:response:raw").size() == (log_raw ? 1 : 0));
  }
}

TEST_CASE("hooks-logging's files are the user's alone: 0600 in 0700 folders it makes") {
  TempDir dir;
  const mode_t was = ::umask(022);  // the usual umask: what it would have given is 0644 / 0755
  auto session = open_session(logging_plan(
      {{"session_log_template", (dir.path() / "logs/sessions/{session_id}/events.jsonl").string()}}));
  ::umask(was);
  session->hooks().emit("test:event", json::object{{"prompt", "private"}});
  const fs::path file = dir.path() / "logs/sessions" / session->id() / "events.jsonl";
  REQUIRE(fs::exists(file));
  auto mode = [](const fs::path &p) {
    struct stat st {};
    ::stat(p.c_str(), &st);
    return st.st_mode & 0777;
  };
  CHECK(mode(file) == 0600);
  CHECK(mode(file.parent_path()) == 0700);
  CHECK(mode(dir.path() / "logs/sessions") == 0700);
  CHECK(mode(dir.path() / "logs") == 0700);
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

namespace {

// The "i" of every test:flood line in `files`, read in the order given.
std::vector<std::int64_t> flood_indices(const std::vector<fs::path> &files) {
  std::vector<std::int64_t> indices;
  for (const auto &file : files)
    for (const auto &line : lines_of(log_lines(file), "test:flood"))
      indices.push_back(line.at("data").at("i").to_number<std::int64_t>());
  return indices;
}

fs::path numbered(const fs::path &file, int n) { return fs::path(file.string() + "." + std::to_string(n)); }

}  // namespace

TEST_CASE("hooks-logging rotates at rotate_bytes and keeps keep_files files, every line whole") {
  LogCapture log;
  TempDir dir;
  const fs::path file = dir.path() / "events.jsonl";
  {
    auto session = open_session(logging_plan(
        {{"session_log_template", file.string()}, {"rotate_bytes", 2000}, {"keep_files", 3}}));
    for (int i = 0; i < 200; ++i)
      session->hooks().emit("test:flood", json::object{{"i", i}, {"filler", std::string(50, 'f')}});
  }
  const std::vector<fs::path> kept{numbered(file, 3), numbered(file, 2), numbered(file, 1), file};
  for (const auto &f : kept) {
    CAPTURE(f);
    REQUIRE(fs::exists(f));
    CHECK(fs::file_size(f) <= 2000);
    CHECK(!log_lines(f).empty());  // and every line is one whole JSON object
  }
  CHECK_FALSE(fs::exists(numbered(file, 4)));  // the oldest went
  // The kept files hold the newest events, oldest file first, with no gap and no repeat.
  const auto indices = flood_indices(kept);
  REQUIRE(indices.size() >= 16);  // about five lines a file
  CHECK(indices.back() == 199);
  for (std::size_t k = 1; k < indices.size(); ++k) CHECK(indices[k] == indices[k - 1] + 1);
  CHECK(fs::file_size(numbered(file, 1)) > 1500);  // filled up to the limit, not rotated early
  CHECK(log.containing("hooks-logging").empty());  // rotating is routine, not a warning
}

TEST_CASE("hooks-logging: an existing log counts toward rotate_bytes; a long line gets a file of its own") {
  TempDir dir;
  const fs::path file = dir.path() / "events.jsonl";
  const std::string earlier = R"({"event":"earlier","data":{},"session_id":"s","ts":"t"})" "\n";
  std::string previous;
  while (previous.size() + earlier.size() <= 900) previous += earlier;
  write_file(file, previous);
  auto session = open_session(logging_plan(
      {{"session_log_template", file.string()}, {"rotate_bytes", 1000}, {"keep_files", 2},
       {"max_string_bytes", 0}}));
  session->hooks().emit("test:big", json::object{{"text", std::string(5000, 'b')}});
  // The earlier lines were rotated out whole before the long line, which is whole too.
  CHECK(read_text(numbered(file, 1)).starts_with(previous));
  auto big = lines_of(log_lines(file), "test:big");
  REQUIRE(big.size() == 1);
  CHECK(big[0].at("data").at("text").as_string().size() == 5000);
  CHECK(log_lines(file).size() == 1);
  // The next event does not fit beside it: another rotation.
  session->hooks().emit("test:after", json::object{});
  CHECK(lines_of(log_lines(file), "test:after").size() == 1);
  CHECK(lines_of(log_lines(numbered(file, 1)), "test:big").size() == 1);
  CHECK(read_text(numbered(file, 2)).starts_with(previous));
}

TEST_CASE("hooks-logging with keep_files 0 starts the log afresh at rotate_bytes") {
  TempDir dir;
  const fs::path file = dir.path() / "events.jsonl";
  auto session = open_session(logging_plan(
      {{"session_log_template", file.string()}, {"rotate_bytes", 1000}, {"keep_files", 0}}));
  for (int i = 0; i < 100; ++i)
    session->hooks().emit("test:flood", json::object{{"i", i}, {"filler", std::string(50, 'f')}});
  CHECK_FALSE(fs::exists(numbered(file, 1)));
  CHECK(fs::file_size(file) <= 1000);
  const auto indices = flood_indices({file});
  REQUIRE_FALSE(indices.empty());
  CHECK(indices.back() == 99);
}

TEST_CASE("hooks-logging: a rotation that fails loses nothing and warns once") {
  LogCapture log;
  TempDir dir;
  const fs::path file = dir.path() / "events.jsonl";
  // A non-empty directory where the first rotated file should go: rename(2) refuses it.
  write_file(numbered(file, 1) / "occupied", "x");
  auto session = open_session(logging_plan(
      {{"session_log_template", file.string()}, {"rotate_bytes", 1000}, {"keep_files", 1}}));
  for (int i = 0; i < 100; ++i)
    session->hooks().emit("test:flood", json::object{{"i", i}, {"filler", std::string(50, 'f')}});
  const auto indices = flood_indices({file});
  REQUIRE(indices.size() == 100);  // every event, in the current file
  for (int i = 0; i < 100; ++i) CHECK(indices[i] == i);
  CHECK(log.containing("rotating " + file.string() + " at rotate_bytes (1000 bytes) failed").size() == 1);
}

TEST_CASE("hooks-logging: two writers rotating one log never split or lose a line") {
  TempDir dir;
  const fs::path file = dir.path() / "shared.jsonl";
  const auto plan = logging_plan(
      {{"session_log_template", file.string()}, {"rotate_bytes", 3000}, {"keep_files", 500}});
  auto first = open_session(plan);
  auto second = open_session(plan);  // its own descriptor, as another process would have
  constexpr int kPerWriter = 300;
  std::vector<std::thread> threads;
  for (auto *session : {first.get(), second.get()}) {
    threads.emplace_back([session] {
      for (int i = 0; i < kPerWriter; ++i)
        session->hooks().emit("test:flood", json::object{{"i", i}, {"filler", std::string(100, 'f')}});
    });
  }
  for (auto &t : threads) t.join();
  std::vector<fs::path> files{file};
  for (int n = 1; fs::exists(numbered(file, n)); ++n) files.push_back(numbered(file, n));
  CHECK(files.size() > 10);
  CHECK(flood_indices(files).size() == 2 * kPerWriter);  // log_lines checks each line is whole
}

TEST_CASE("hooks-logging expands ~ to HOME and warns about unknown keys") {
  LogCapture log;
  TempDir home;
  const char *old_home = std::getenv("HOME");
  const std::string saved = old_home ? old_home : "";
  ::setenv("HOME", home.path().c_str(), 1);
  {
    auto session = open_session(logging_plan(
        {{"session_log_template", "~/logs/{session_id}/events.jsonl"}, {"rotate_byte", 10}}));
    session->hooks().emit("test:home", json::object{});
    CHECK(fs::exists(home.path() / "logs" / session->id() / "events.jsonl"));
    CHECK(log.containing("unknown key 'rotate_byte' is ignored (did you mean 'rotate_bytes'?)").size() == 1);
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
