// Transcript files and the session store: line format, torn tails, appends, atomic rewrites,
// ids, store location, listing and migration.
#include "context_test_support.hpp"

#include "amplifier/session_store.hpp"
#include "amplifier/transcript.hpp"

#include <cstdlib>

using namespace ctxtest;
namespace transcript = amplifier::transcript;
namespace store = amplifier::session_store;

namespace {

const char *kLegacyAssistant =
    R"({"role":"assistant","content":"Looking.","tool_calls":[{"id":"c1","name":"ls","arguments":"{\"path\":\".\"}"}]})";
const char *kLegacyTool = R"({"role":"tool","tool_call_id":"c1","content":"a.txt"})";

std::string v1_line(const json::value &message) { return transcript::encode_line(message, std::nullopt, "t"); }

// Sets an environment variable for one scope (the tests in this file run on one thread).
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char *name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("a message written as a line reads back identical, with its origin") {
  const json::value message = json::parse(
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"é ☃","signature":"AbC+/="},)"
      R"({"type":"text","text":"line\nbreak \"quoted\""}],"x_unknown":{"n":[1,2]}})");
  const transcript::Origin origin{"claude", "provider-anthropic", "claude-sonnet-4-5"};
  const std::string line = transcript::encode_line(message, origin, "2025-01-01T00:00:00.000Z");
  CHECK(line.back() == '\n');
  CHECK(std::count(line.begin(), line.end(), '\n') == 1);  // one line, whatever the content
  CHECK(json::parse(line).at("v") == transcript::kFormatVersion);

  const transcript::Transcript read = transcript::parse_transcript(line + line);
  REQUIRE(read.records.size() == 2);
  CHECK(read.skipped.empty());
  CHECK(read.records[0].message == message);
  REQUIRE(read.records[0].origin);
  CHECK(read.records[0].origin->module == "provider-anthropic");
  CHECK(read.records[0].origin->model == "claude-sonnet-4-5");
  CHECK(read.records[0].timestamp == "2025-01-01T00:00:00.000Z");
  CHECK(read.records[1].line == 2);
}

TEST_CASE("a file mixing legacy lines and current records loads, converted on read") {
  const std::string text = jsonl({R"({"role":"user","content":"list files"})", kLegacyAssistant,
                                  kLegacyTool}) +
                           v1_line(json::parse(R"({"role":"assistant","content":[{"type":"text","text":"done"}]})"));
  const transcript::Transcript read = transcript::parse_transcript(text);
  CHECK(read.skipped.empty());
  REQUIRE(read.records.size() == 4);
  CHECK(read.legacy_records == 2);  // the user line has the same shape in both formats
  CHECK(read.records[1].converted_from_legacy);
  CHECK(read.records[1].message.at("content").as_array()[1].at("input") == json::parse(R"({"path":"."})"));
  CHECK(read.records[2].message.at("content").as_array()[0].at("type") == "tool_result");
  CHECK_FALSE(read.records[3].converted_from_legacy);
}

TEST_CASE("a torn last line is reported and skipped, never read as data") {
  const std::string good = v1_line(json::parse(R"({"role":"user","content":"one"})"));
  SUBCASE("cut in the middle") {
    const std::string whole = v1_line(json::parse(R"({"role":"user","content":"two"})"));
    const auto read = transcript::parse_transcript(good + whole.substr(0, whole.size() / 2));
    CHECK(read.records.size() == 1);
    CHECK(read.torn_tail);
    REQUIRE(read.skipped.size() == 1);
    CHECK(read.skipped[0].line == 2);
    CHECK(read.skipped[0].reason.find("incomplete last line") != std::string::npos);
    CHECK(read.intact_bytes == good.size());
  }
  SUBCASE("complete JSON but no newline: still an unfinished write") {
    const std::string whole = v1_line(json::parse(R"({"role":"user","content":"two"})"));
    const auto read = transcript::parse_transcript(good + whole.substr(0, whole.size() - 1));
    CHECK(read.records.size() == 1);
    CHECK(read.torn_tail);
  }
}

TEST_CASE("damaged lines in the middle are skipped with a reason; newer formats are counted") {
  const std::string text = jsonl({R"({"role":"user","content":"one"})", R"({"role":"user","cont)",
                                  R"([1,2])", R"({"v":99,"message":{"role":"user","content":"x"}})",
                                  R"({"v":1,"message":{"role":"alien","content":"x"}})", "",
                                  R"({"role":"assistant","content":"two"})"});
  const auto read = transcript::parse_transcript(text);
  REQUIRE(read.records.size() == 2);
  CHECK(read.records[1].line == 7);
  REQUIRE(read.skipped.size() == 4);  // the blank line is not data and not damage
  CHECK(read.skipped[0].reason.find("not valid JSON") != std::string::npos);
  CHECK(read.skipped[1].reason == "not a JSON object");
  CHECK(read.skipped[2].reason.find("newer") != std::string::npos);
  CHECK(read.skipped[3].reason.find("alien") != std::string::npos);
  CHECK(read.newer_format_lines == 1);
  CHECK_FALSE(read.torn_tail);
}

TEST_CASE("the writer cuts a torn tail off before appending, so no line is ever glued to it") {
  TempDir dir;
  const fs::path file = dir / "transcript.jsonl";
  const std::string good = v1_line(json::parse(R"({"role":"user","content":"one"})"));
  write_file(file, good + R"({"v":1,"message":{"role":"us)");
  {
    transcript::TranscriptWriter writer(file, transcript::TranscriptWriter::Sync::each_line);
    CHECK(writer.discarded_tail_bytes() > 0);
    writer.append(v1_line(json::parse(R"({"role":"assistant","content":"two"})")));
    CHECK_THROWS_AS(writer.append("no newline"), std::invalid_argument);
  }
  const auto read = transcript::load_transcript(file);
  CHECK(read.skipped.empty());
  REQUIRE(read.records.size() == 2);
  CHECK(read.records[1].message.at("content") == "two");
}

TEST_CASE("atomic replacement leaves the old or the new file and no temporary behind") {
  TempDir dir;
  const fs::path file = dir / "metadata.json";
  write_file(file, "old");
  transcript::replace_file_atomically(file, "new content");
  CHECK(read_text(file) == "new content");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto &e : fs::directory_iterator(dir.path())) ++entries;
  CHECK(entries == 1);
  CHECK_THROWS_AS(transcript::replace_file_atomically(dir / "missing-dir" / "x", "y"), std::system_error);
}

TEST_CASE("session ids: a strict alphabet, so an id can never steer a path") {
  for (const char *good : {"3f2a9c1e-7b4d-4e8f-9a0b-1c2d3e4f5a6b", "session_1", "A"}) {
    CAPTURE(good);
    CHECK(store::is_valid_session_id(good));
  }
  for (const char *bad : {"", "..", "../etc", "a/b", "a\\b", ".hidden", "-rf", "_x", "a b", "é",
                          "a\nb", "a.b"}) {
    CAPTURE(bad);
    CHECK_FALSE(store::is_valid_session_id(bad));
    CHECK_THROWS_AS(store::session_files("/store", bad), std::invalid_argument);
  }
  CHECK_FALSE(store::is_valid_session_id(std::string(store::kMaxSessionIdLength + 1, 'a')));
  CHECK(store::session_files("/store", "abc").transcript == fs::path("/store/abc/transcript.jsonl"));
}

TEST_CASE("the store lives under XDG_DATA_HOME, else ~/.local/share; store_dir overrides") {
  TempDir dir;
  ScopedEnv home("HOME", (dir / "home").c_str());
  {
    ScopedEnv data("XDG_DATA_HOME", (dir / "data").c_str());
    CHECK(store::default_store_dir() == dir / "data" / "amplifier" / "sessions");
    CHECK(store::resolve_store_dir("") == dir / "data" / "amplifier" / "sessions");
  }
  {
    ScopedEnv data("XDG_DATA_HOME", "relative/path");  // the XDG spec says to ignore it
    CHECK(store::default_store_dir() == dir / "home" / ".local/share/amplifier/sessions");
  }
  ScopedEnv data("XDG_DATA_HOME", nullptr);
  CHECK(store::default_store_dir() == dir / "home" / ".local/share/amplifier/sessions");
  CHECK(store::resolve_store_dir("~/s") == dir / "home" / "s");
  CHECK(store::resolve_store_dir("/abs/s") == fs::path("/abs/s"));
}

TEST_CASE("metadata round-trips and keeps fields it does not know") {
  TempDir dir;
  store::SessionMetadata metadata;
  metadata.session_id = "s1";
  metadata.created = "2025-01-01T00:00:00.000Z";
  metadata.updated = "2025-01-02T00:00:00.000Z";
  metadata.provider = "provider-mock";
  metadata.turn_count = 3;
  metadata.parent_id = "p0";
  metadata.degradations.push_back(amplifier::Degradation{"foreign_thinking", "why", "dropped", {}});
  metadata.extra["future_field"] = json::array{1, 2};
  store::write_metadata(dir / "metadata.json", metadata);
  const auto read = store::read_metadata(dir / "metadata.json");
  REQUIRE(read);
  CHECK(store::to_json(*read) == store::to_json(metadata));
  CHECK_FALSE(store::read_metadata(dir / "absent.json"));
  write_file(dir / "bad.json", R"({"created":"x"})");
  CHECK_THROWS_AS(store::read_metadata(dir / "bad.json"), amplifier::ModelError);
}

TEST_CASE("listing: newest first, legacy sessions without metadata summarised from the transcript") {
  TempDir dir;
  auto metadata_for = [](std::string id, std::string updated, std::string preview) {
    store::SessionMetadata m;
    m.session_id = std::move(id);
    m.created = m.updated = std::move(updated);
    m.preview = std::move(preview);
    m.turn_count = 1;
    return m;
  };
  for (auto [id, updated] : {std::pair{"older", "2025-01-01T00:00:00.000Z"},
                             std::pair{"newer", "2025-03-01T00:00:00.000Z"}}) {
    const auto files = store::session_files(dir.path(), id);
    write_file(files.transcript, jsonl({R"({"role":"user","content":"hi"})"}));
    store::write_metadata(files.metadata, metadata_for(id, updated, std::string("prompt of ") + id));
  }
  write_file(store::session_files(dir.path(), "legacy").transcript,
             jsonl({R"({"role":"user","content":"an old\nmultiline   prompt"})", kLegacyAssistant}));
  fs::create_directories(dir / "not-a-session");             // no transcript: ignored
  write_file(dir / "bad..id" / "transcript.jsonl", "{}\n");  // not an id: ignored

  const auto sessions = store::list_sessions(dir.path());
  REQUIRE(sessions.size() == 3);
  CHECK(sessions[0].id == "legacy");  // its file was just written: the newest
  CHECK(sessions[0].preview == "an old multiline prompt");
  CHECK(sessions[1].id == "newer");
  CHECK(sessions[1].preview == "prompt of newer");
  CHECK(sessions[2].id == "older");
  CHECK(store::list_sessions(dir / "nothing-here").empty());
}

TEST_CASE("migrate rewrites a legacy transcript atomically after keeping a backup") {
  TempDir dir;
  const auto files = store::session_files(dir.path(), "old-session");
  const std::string original =
      jsonl({R"({"role":"user","content":"list"})", kLegacyAssistant, kLegacyTool,
             R"({"role":"assistant","content":"done"})"});
  write_file(files.transcript, original);

  const store::MigrationResult result = store::migrate_session(dir.path(), "old-session");
  CHECK(result.records == 4);
  CHECK(result.converted == 2);
  REQUIRE(result.backup);
  CHECK(read_text(*result.backup) == original);

  const auto migrated = transcript::load_transcript(files.transcript);
  CHECK(migrated.legacy_records == 0);
  REQUIRE(migrated.records.size() == 4);
  const auto before = transcript::parse_transcript(original);
  for (std::size_t i = 0; i < 4; ++i) CHECK(migrated.records[i].message == before.records[i].message);

  // Nothing left to migrate: the file is left alone and no second backup appears.
  const auto again = store::migrate_session(dir.path(), "old-session");
  CHECK_FALSE(again.backup);
  CHECK_FALSE(fs::exists(fs::path(files.transcript.string() + ".bak.1")));
}

TEST_CASE("migrate refuses a session in use and lines of a newer format") {
  TempDir dir;
  const auto files = store::session_files(dir.path(), "busy");
  write_file(files.transcript, jsonl({kLegacyAssistant}));
  {
    // flock locks belong to open file descriptions, so this lock stops the migration's own
    // open of the directory exactly as another process's lock would.
    auto lock = store::SessionLock::try_acquire(files.directory);
    REQUIRE(lock);
    CHECK_FALSE(store::SessionLock::try_acquire(files.directory));
    CHECK_THROWS_WITH_AS(store::migrate_session(dir.path(), "busy"), doctest::Contains("in use"),
                         std::runtime_error);
  }
  CHECK(store::SessionLock::try_acquire(files.directory));  // released with its holder
  write_file(files.transcript, jsonl({kLegacyAssistant, R"({"v":2,"message":{}})"}));
  CHECK_THROWS_WITH_AS(store::migrate_session(dir.path(), "busy"), doctest::Contains("newer"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(store::migrate_session(dir.path(), "absent"), doctest::Contains("no session"),
                       std::runtime_error);
}

namespace {

// What a read found, comparable field by field.
void check_same(const transcript::Transcript &read, const transcript::Transcript &expected) {
  REQUIRE(read.records.size() == expected.records.size());
  for (std::size_t i = 0; i < read.records.size(); ++i) {
    CAPTURE(i);
    CHECK(read.records[i].message == expected.records[i].message);
    CHECK(read.records[i].line == expected.records[i].line);
  }
  REQUIRE(read.skipped.size() == expected.skipped.size());
  for (std::size_t i = 0; i < read.skipped.size(); ++i) {
    CHECK(read.skipped[i].line == expected.skipped[i].line);
    CHECK(read.skipped[i].reason == expected.skipped[i].reason);
  }
  CHECK(read.torn_tail == expected.torn_tail);
  CHECK(read.intact_bytes == expected.intact_bytes);
  CHECK(read.legacy_records == expected.legacy_records);
}

std::string user_line(std::size_t content_bytes) {
  return v1_line(json::object{{"role", "user"}, {"content", std::string(content_bytes, 'u')}});
}

}  // namespace

TEST_CASE("a file read line by line gives what decoding its whole text gives, across blocks") {
  TempDir dir;
  std::string text;
  for (std::size_t size : {10, 700000, 5, 1500000, 0, 300000, 2500000, 1})
    text += size == 0 ? std::string("\n") : user_line(size);
  text += "not json\n" + std::string(kLegacyTool) + "\n" + user_line(3) + R"({"role":"us)";
  const fs::path file = dir / "transcript.jsonl";
  write_file(file, text);
  const auto read = transcript::load_transcript(file);
  check_same(read, transcript::parse_transcript(text));
  CHECK(read.records.size() == 9);
  CHECK(read.torn_tail);
}

TEST_CASE("a complete line longer than max_line_bytes fails, naming the line and the limit") {
  TempDir dir;
  const fs::path file = dir / "transcript.jsonl";
  // Within one read block, and spread over several.
  for (auto [limit, size] : {std::pair<std::uint64_t, std::size_t>{1000, 2000},
                             std::pair<std::uint64_t, std::size_t>{1 << 20, 3 << 20}}) {
    CAPTURE(limit);
    write_file(file, user_line(10) + user_line(size) + user_line(10));
    try {
      (void)transcript::load_transcript(file, transcript::ReadLimits{limit, 0});
      FAIL("a line over the limit was read");
    } catch (const transcript::TranscriptLimitError &e) {
      CHECK(e.limit() == "max_line_bytes");
      CHECK(e.value() == limit);
      CHECK(std::string(e.what()) ==
            file.string() + ": line 2 is longer than max_line_bytes (" + std::to_string(limit) +
                " bytes), so it is not read into memory; raise max_line_bytes to load it (the "
                "transcript stays as it is)");
    }
    // A limit it fits in reads it.
    CHECK(transcript::load_transcript(file, transcript::ReadLimits{limit * 4, 0}).records.size() == 3);
  }
}

TEST_CASE("a torn tail longer than max_line_bytes is skipped like any torn tail, never held") {
  TempDir dir;
  const fs::path file = dir / "transcript.jsonl";
  const std::string whole = user_line(10) + user_line(10);
  write_file(file, whole + std::string(3 << 20, 't'));
  const auto read = transcript::load_transcript(file, transcript::ReadLimits{1 << 20, 0});
  CHECK(read.records.size() == 2);
  CHECK(read.torn_tail);
  REQUIRE(read.skipped.size() == 1);
  CHECK(read.skipped[0].line == 3);
  CHECK(read.skipped[0].reason.find(std::to_string(3 << 20) + " bytes without a newline") !=
        std::string::npos);
  CHECK(read.intact_bytes == whole.size());
}

TEST_CASE("a history over max_history_bytes fails before it is read, naming the limit") {
  TempDir dir;
  const fs::path file = dir / "transcript.jsonl";
  std::string text;
  for (int i = 0; i < 10; ++i) text += user_line(100);
  write_file(file, text);
  CHECK_THROWS_WITH_AS(
      transcript::load_transcript(file, transcript::ReadLimits{0, 1000}),
      (file.string() + " is " + std::to_string(text.size()) +
       " bytes, more than max_history_bytes (1000 bytes), so it is not loaded into memory; raise "
       "max_history_bytes to load it, or start a new session (the transcript stays as it is)")
          .c_str(),
      transcript::TranscriptLimitError);
  CHECK(transcript::load_transcript(file, transcript::ReadLimits{0, text.size()}).records.size() == 10);
  CHECK(read_text(file) == text);  // a refused read changes nothing
}

TEST_CASE("a reader that has what it needs stops reading") {
  TempDir dir;
  const fs::path file = dir / "transcript.jsonl";
  write_file(file, user_line(1) + user_line(2) + "not json\n" + user_line(3));
  std::size_t seen = 0;
  const auto read = transcript::read_transcript(file, [&](transcript::Record &&) { return ++seen < 2; });
  CHECK(seen == 2);
  CHECK(read.skipped.empty());  // the damaged line after the stop was never reached
}

TEST_CASE("listing a large session without metadata reads its first records only") {
  TempDir dir;
  const auto files = store::session_files(dir.path(), "big-legacy");
  std::string text = jsonl({R"({"role":"system","content":"be brief"})",
                            R"({"role":"user","content":"the first question"})", kLegacyAssistant});
  // Past the first user message: a line no reader may hold (over the default max_line_bytes),
  // which a whole read would fail on.
  text += v1_line(json::object{{"role", "user"},
                               {"content", std::string(transcript::kDefaultMaxLineBytes, 'x')}});
  write_file(files.transcript, text);
  const auto sessions = store::list_sessions(dir.path());
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0].preview == "the first question");
  CHECK_FALSE(sessions[0].turn_count);  // unknown: the file was not read whole
  CHECK_FALSE(sessions[0].problem);

  write_file(files.transcript, jsonl({R"({"role":"user","content":"a"})", kLegacyAssistant,
                                      R"({"role":"user","content":"b"})"}));
  CHECK(store::list_sessions(dir.path())[0].turn_count == 2);  // a small one is counted
}

TEST_CASE("metadata larger than any summary could be is refused, not read") {
  TempDir dir;
  const fs::path file = dir / "metadata.json";
  write_file(file, R"({"session_id":"s","preview":")" + std::string(store::kMaxMetadataBytes, 'p') + "\"}");
  CHECK_THROWS_WITH(store::read_metadata(file), doctest::Contains("not read"));
}
