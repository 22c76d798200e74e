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

TEST_CASE("an event without secrets passes unmodified, deltas included") {
  auto session = open_session(plan_with("hooks:\n" + redaction_hooks()));
  LaterHook display(*session, "content_block:delta");
  const json::object delta{{"block_index", 0}, {"delta", {{"type", "text"}, {"text", "Hello there, 2026-11-22."}}}};
  const auto clean = session->hooks().emit("content_block:delta", delta);
  CHECK(clean.action == amplifier::HookAction::Continue);
  CHECK(display.last().at("delta").at("text") == "Hello there, 2026-11-22.");

  const auto secret = session->hooks().emit(
      "content_block:delta",
      json::object{{"block_index", 0}, {"delta", {{"type", "text"}, {"text", "your key is " + kKey}}}});
  CHECK(secret.action == amplifier::HookAction::Modify);
  CHECK(display.last().at("delta").at("text") == "your key is [REDACTED:api_key]");
  CHECK(display.last().at("delta").at("type") == "text");
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
