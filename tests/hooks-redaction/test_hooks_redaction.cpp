// hooks-redaction in a real Session: it modifies payloads ahead of the display and the log,
// leaves clean events alone, honours its config, and redacts what the model reads from a tool.
#include "module_test_support.hpp"

using namespace modtest;

namespace {

std::string redaction_hooks(json::object config = {}) {
  return "  - module: hooks-redaction\n    config: " + yaml_json(config) + "\n";
}

// Records what a later hook (priority 500, where the display sits) receives.
class LaterHook {
 public:
  LaterHook(amplifier::Session &session, std::string event) {
    session.hooks().register_handler(std::move(event), [this](std::string_view, const json::object &data) {
      std::lock_guard lock(mutex_);
      seen_.push_back(data);
      return amplifier::HookResult{};
    }, 500);
  }
  json::object last() const {
    std::lock_guard lock(mutex_);
    return seen_.back();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<json::object> seen_;
};

const std::string kKey = "sk-ant-api03-AbCdEf0123456789AbCdEf0123";

}  // namespace

TEST_CASE("later hooks and the event log see the redacted payload") {
  TempDir dir;
  const fs::path log_file = dir / "events.jsonl";
  auto session = open_session(plan_with(
      "hooks:\n" + redaction_hooks() + "  - module: hooks-logging\n    config: " +
      yaml_json(json::object{{"session_log_template", log_file.string()}}) + "\n"));
  REQUIRE(session->load_failures().empty());
  LaterHook display(*session, "tool:pre");

  const auto result = session->hooks().emit(
      "tool:pre", json::object{{"tool_name", "bash"},
                               {"tool_input", {{"command", "curl -H 'x-api-key: " + kKey + "' https://api"}}},
                               {"tool_call_id", "call_1"}});
  CHECK(result.action == amplifier::HookAction::Modify);
  CHECK(display.last().at("tool_input").at("command") ==
        "curl -H 'x-api-key: [REDACTED:api_key]' https://api");
  CHECK(display.last().at("tool_call_id") == "call_1");

  const std::string logged = read_text(log_file);
  CHECK(logged.find(kKey) == std::string::npos);
  CHECK(logged.find("[REDACTED:api_key]") != std::string::npos);
}

TEST_CASE("an event without secrets passes unmodified; streamed text is held back and redacted") {
  auto session = open_session(plan_with("hooks:\n" + redaction_hooks()));
  LaterHook pre(*session, "tool:pre");
  const auto clean = session->hooks().emit(
      "tool:pre", json::object{{"tool_name", "read_file"}, {"tool_input", {{"path", "a.txt"}}}});
  CHECK(clean.action == amplifier::HookAction::Continue);
  CHECK(pre.last().at("tool_input").at("path") == "a.txt");

  // Text deltas carry what is safe to release; the rest comes, redacted, in one more delta just
  // before content_block:end.
  std::vector<std::string> shown;
  session->hooks().register_handler("content_block:delta", [&](std::string_view, const json::object &data) {
    shown.emplace_back(data.at("delta").at("text").as_string());
    return amplifier::HookResult{};
  }, 500);
  const std::string text = "Hello there, 2026-11-22. your key is " + kKey + " and that is all.";
  for (std::size_t at = 0; at < text.size(); at += 7)
    session->hooks().emit("content_block:delta",
                          json::object{{"block_index", 0}, {"delta", {{"type", "text"}, {"text", text.substr(at, 7)}}}});
  session->hooks().emit("content_block:end",
                        json::object{{"block_index", 0}, {"block", {{"type", "text"}, {"text", text}}}});
  std::string joined;
  for (const auto &piece : shown) joined += piece;
  CHECK(joined == "Hello there, 2026-11-22. your key is [REDACTED:api_key] and that is all.");
}

TEST_CASE("a secret split across stream deltas is redacted in what later hooks and the log see") {
  TempDir dir;
  const fs::path log_file = dir / "events.jsonl";
  auto session = open_session(plan_with(
      "hooks:\n" + redaction_hooks() + "  - module: hooks-logging\n    config: " +
      yaml_json(json::object{{"session_log_template", log_file.string()}}) + "\n"));
  REQUIRE(session->load_failures().empty());
  std::string seen;
  session->hooks().register_handler("content_block:delta", [&](std::string_view, const json::object &data) {
    seen += data.at("delta").at("thinking").as_string();
    return amplifier::HookResult{};
  }, 500);
  const std::string half = kKey.substr(0, 16);
  const std::string rest = kKey.substr(16);
  for (const std::string &piece : {std::string("I will use "), half, rest, std::string(" now.")})
    session->hooks().emit("content_block:delta",
                          json::object{{"block_index", 1}, {"delta", {{"type", "thinking"}, {"thinking", piece}}}});
  session->hooks().emit("content_block:end",
                        json::object{{"block_index", 1}, {"block", {{"type", "thinking"}, {"thinking", "I will use " + kKey + " now."}}}});
  CHECK(seen == "I will use [REDACTED:api_key] now.");
  const std::string logged = read_text(log_file);
  CHECK(logged.find(rest) == std::string::npos);
  CHECK(logged.find(half) == std::string::npos);
}

TEST_CASE("config: categories, allowlist, extra patterns and skipped events") {
  auto session = open_session(plan_with(
      "hooks:\n" + redaction_hooks({{"rules", {{"pii", false}, {"email", true}}},
                                    {"allowlist", json::array{"*@example.com"}},
                                    {"extra_patterns", json::array{json::object{{"name", "ticket"}, {"pattern", "ACME-[0-9]+"}}}},
                                    {"skip_events", json::array{"debug:*"}}})));
  REQUIRE(session->load_failures().empty());
  LaterHook later(*session, "*");
  session->hooks().emit("user:notification",
                        json::object{{"text", "ACME-42 from bob@example.com to eve@evil.io, call 415-555-0132"}});
  CHECK(later.last().at("text") == "[REDACTED:ticket] from bob@example.com to [REDACTED:email], call 415-555-0132");
  const auto skipped = session->hooks().emit("debug:dump", json::object{{"text", kKey}});
  CHECK(skipped.action == amplifier::HookAction::Continue);
  CHECK(text_of(later.last().at("text")) == kKey);
}

TEST_CASE("a bad config fails the mount with a message that helps") {
  LogCapture log;
  auto unknown = open_session(plan_with("hooks:\n" + redaction_hooks({{"rules", {{"emial", false}}}})));
  REQUIRE(unknown->load_failures().size() == 1);
  CHECK(unknown->load_failures()[0].error.find("'emial' is not a category (did you mean 'email'?)") != std::string::npos);

  auto bad_pattern = open_session(plan_with("hooks:\n" + redaction_hooks({{"extra_patterns", json::array{"([a-"}}})));
  REQUIRE(bad_pattern->load_failures().size() == 1);
  CHECK(bad_pattern->load_failures()[0].error.find("extra pattern 'custom' (([a-) is not a valid regular expression") !=
        std::string::npos);

  auto typo = open_session(plan_with("hooks:\n" + redaction_hooks({{"allowlst", json::array{}}})));
  CHECK(typo->load_failures().empty());
  CHECK(log.containing("unknown key 'allowlst' is ignored (did you mean 'allowlist'?)").size() == 1);
}

TEST_CASE("a secret a tool returns is redacted in what the model reads") {
  TempDir dir;
  write_file(dir / "work" / ".env", "ANTHROPIC_API_KEY=" + kKey + "\n");
  const json::object mock{
      {"responses", json::array{json::object{
                        {"text", "Reading it."},
                        {"tool_calls", json::array{json::object{{"name", "read_file"}, {"input", {{"path", ".env"}}}}}}}}}};
  auto session = open_session(plan_with(
      "providers:\n  - module: provider-mock\n    config: " + yaml_json(mock) +
      "\ntools:\n  - module: tool-filesystem\n    config: " +
      yaml_json(json::object{{"working_dir", (dir / "work").string()}}) + "\nhooks:\n" + redaction_hooks()));
  REQUIRE(session->load_failures().empty());
  const auto turn = session->execute("show me the env file");
  REQUIRE(turn.status == "success");
  CHECK(turn.response.find(kKey) == std::string::npos);
  CHECK(turn.response.find("ANTHROPIC_API_KEY=[REDACTED:api_key]") != std::string::npos);
}

TEST_CASE("when redaction fails the payload is replaced by a marker, never passed on raw") {
  // 300 levels of nesting: more than the module's JSON reader takes (256), so redacting this
  // event fails. Later hooks and the log must not see the key all the same.
  TempDir dir;
  const fs::path log_file = dir / "events.jsonl";
  auto session = open_session(plan_with(
      "hooks:\n" + redaction_hooks() + "  - module: hooks-logging\n    config: " +
      yaml_json(json::object{{"session_log_template", log_file.string()}}) + "\n"));
  REQUIRE(session->load_failures().empty());
  LaterHook display(*session, "tool:post");
  json::value nested = json::array{json::value("your key is " + kKey)};
  for (int i = 0; i < 300; ++i) nested = json::array{std::move(nested)};
  const auto result = session->hooks().emit(
      "tool:post", json::object{{"tool_name", "bash"}, {"tool_call_id", "call_1"},
                                {"result", {{"success", true}, {"output", std::move(nested)}}}});
  CHECK(result.action == amplifier::HookAction::Modify);
  const std::string seen = json::serialize(display.last());
  CHECK(seen.find(kKey) == std::string::npos);
  CHECK(seen.find("[REDACTED:redaction_failed]") != std::string::npos);
  const std::string logged = read_text(log_file);
  CHECK(logged.find(kKey) == std::string::npos);
}
