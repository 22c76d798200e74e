// The web chat page of `amplifier serve` in a real browser: Debian's headless Chromium, driven
// by puppeteer-core (tests/serve/browser/drive.mjs), against the real server on port 0.
// Screenshots land in BUILD/artifacts/.
#include "process.hpp"
#include "serve_harness.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <cstdlib>

using namespace amp_serve_test;
namespace json = boost::json;

namespace {

const fs::path kBrowserDir = AMP_SOURCE_DIR "/tests/serve/browser";
const fs::path kArtifacts = AMP_BINARY_DIR "/artifacts";

// The first answer thinks, says a line and asks for list_directory, which hooks-approval puts to
// the user; the second streams its text slowly enough (about 1.5 s) to be seen growing. The
// answer carries markup that must show as text.
const char *kChatPlan = R"(session: {orchestrator: loop-streaming, context: context-simple}
providers:
  - module: provider-mock
    config:
      chunk_size: 3
      delay_ms: 40
      responses:
        - thinking: "The user wants the folder's contents: I should look at the files first."
          signature: "sig-web-1"
          text: "Let me look at the folder."
          tool_calls: [{id: call_web_1, name: list_directory, input: {path: "."}}]
        - text: "The folder is empty. Markup stays text: <b>not bold</b> & <script>alert(1)</script>. END-OF-ANSWER"
tools: [{module: tool-filesystem}]
hooks:
  - {module: hooks-approval, config: {rules: [{tool: list_directory, action: ask}]}}
)";

constexpr std::string_view kAnswer =
    "The folder is empty. Markup stays text: <b>not bold</b> & <script>alert(1)</script>. "
    "END-OF-ANSWER";

std::string chromium() {
  const char *given = std::getenv("CHROMIUM");
  return given && *given ? given : "/usr/bin/chromium";
}

// Missing pieces fail the test, naming the fix: the browser test is part of the suite.
void require_browser() {
  if (!fs::exists(chromium())) {
    const std::string missing = "no Chromium at " + chromium() +
                                ": install Debian's chromium package (scripts/install-deps.sh)";
    FAIL(missing);
  }
  if (!fs::exists(kBrowserDir / "node_modules/puppeteer-core"))
    FAIL(
        "puppeteer-core is not installed: run scripts/install-test-deps.sh (npm ci in "
        "tests/serve/browser)");
}

std::string text(const json::value &value) { return std::string(value.as_string()); }

// Runs drive.mjs and returns the JSON summary it prints last.
json::object drive(const std::vector<std::string> &args) {
  std::vector<std::string> argv{"node", (kBrowserDir / "drive.mjs").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  amp_test::ProcessOptions options;
  options.timeout = std::chrono::seconds(90);
  options.env = {{"CHROMIUM", chromium()}};
  const auto result = amp_test::run_process(argv, options);
  INFO("drive.mjs stdout: ", result.out);
  INFO("drive.mjs stderr: ", result.err);
  REQUIRE_FALSE(result.timed_out);
  const auto lines = amp_test::lines_of(result.out);
  REQUIRE_FALSE(lines.empty());
  json::object summary = json::parse(lines.back()).as_object();
  if (const auto *error = summary.if_contains("error")) {
    const std::string message = "drive.mjs: " + text(*error);
    FAIL(message);
  }
  REQUIRE(result.exit_code == 0);
  return summary;
}

std::string url_of(const ServeProcess &serve) {
  return "http://127.0.0.1:" + std::to_string(serve.port()) + "/";
}

// The URL serve prints for the page: the page takes its token from the fragment.
std::string login_url_of(const Scratch &s, const ServeProcess &serve) {
  std::string token = read_text(s.dir / "home/config/amplifier/serve-token");
  token.erase(token.find_last_not_of("\n") + 1);
  const std::string url = url_of(serve) + "#token=" + token;
  REQUIRE(serve.err().find("open " + url) != std::string::npos);
  return url;
}

// Nothing went wrong in the page: no script error, console error or CSP violation.
void check_no_problems(const json::object &summary) {
  for (const auto &problem : summary.at("problems").as_array()) FAIL_CHECK(text(problem));
}

}  // namespace

TEST_CASE("the web page runs turns: approval, tool call, folded thinking, streamed answer, stop") {
  require_browser();
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("chat.yaml", kChatPlan).string()});
  const fs::path shot = kArtifacts / "serve-chat.png";
  fs::remove(shot);
  const json::object summary = drive({"chat", login_url_of(s, serve), shot.string()});
  INFO(json::serialize(summary));
  check_no_problems(summary);
  const std::string id = text(summary.at("session_id"));

  // While the approval waits: the thinking is folded away, the tool call shows name and input.
  const auto &thinking = summary.at("thinking").as_object();
  CHECK_FALSE(thinking.at("open").as_bool());
  CHECK_FALSE(thinking.at("text_visible").as_bool());
  CHECK(text(thinking.at("text")).find("look at the files") != std::string::npos);
  const auto &waiting = summary.at("waiting").as_object();
  CHECK(text(waiting.at("name")) == "list_directory");
  CHECK(text(waiting.at("input")) == R"({"path":"."})");
  CHECK(text(waiting.at("state")) == "waiting");
  CHECK(text(waiting.at("prompt")).find("Allow list_directory") != std::string::npos);

  // Allowed: the tool ran, its result is shown, the answer streamed in and stayed text.
  const auto &turn = summary.at("turn").as_object();
  CHECK(text(turn.at("status")) == "success");
  CHECK(text(turn.at("approval_outcome")) == "Allowed");
  CHECK(text(turn.at("tool_state")) == "done");
  CHECK(text(turn.at("tool_output")) == "(. is empty)");
  CHECK_FALSE(turn.at("thinking_open").as_bool());
  REQUIRE(turn.at("answer").as_array().size() == 2);
  CHECK(text(turn.at("answer").as_array()[1]) == kAnswer);
  CHECK(turn.at("markup_in_answer").as_int64() == 0);
  const auto &streamed = summary.at("streamed").as_object();
  CHECK(streamed.at("partials").as_int64() >= 3);  // seen growing, not only whole
  CHECK_FALSE(summary.at("streamed").at("example").is_null());

  // The session is listed under its first prompt, and a reload shows the same history.
  const auto &listed = summary.at("listed").as_array();
  REQUIRE(listed.size() == 1);
  CHECK(text(listed[0].at("id")) == id);
  CHECK(text(listed[0].at("title")) == text(summary.at("prompt")));
  const auto &history = summary.at("history").as_object();
  CHECK(history.at("user").as_array() == json::array{summary.at("prompt")});
  CHECK(history.at("thinking_open").as_array() == json::array{false});
  CHECK(text(history.at("tools").as_array().at(0).at("output")) == "(. is empty)");
  CHECK(text(history.at("answer").as_array().at(1)) == kAnswer);
  CHECK(text(summary.at("title_after_reload")) == text(summary.at("prompt")));

  // Denied in another session: the tool does not run and the turn still answers.
  const auto &denied = summary.at("denied").as_object();
  CHECK(text(denied.at("status")) == "success");
  CHECK(text(denied.at("tool_state")) == "denied");
  CHECK(text(denied.at("approval_outcome")) == "Denied");
  CHECK(text(denied.at("answer").as_array().back()) == kAnswer);

  // Stopped while the approval waited: cancelled, the question withdrawn, Send back.
  const auto &stopped = summary.at("stopped").as_object();
  CHECK(text(stopped.at("status")) == "cancelled");
  CHECK(stopped.at("approval_buttons").as_int64() == 0);
  CHECK(stopped.at("notes").as_array().back() == "Stopped.");
  CHECK(stopped.at("send_shown").as_bool());
  CHECK_FALSE(stopped.at("stop_shown").as_bool());
  CHECK(summary.at("sessions_listed").as_int64() == 3);

  CHECK(fs::file_size(shot) > 10000);
  CHECK(fs::exists(kArtifacts / "serve-chat-approval.png"));
  MESSAGE("screenshots: ", shot.string(), ", ", (kArtifacts / "serve-chat-approval.png").string());
}

TEST_CASE("answers render as Markdown (headings, lists, tables, links, highlighted code with a copy button); the model's HTML stays inert text") {
  require_browser();
  Scratch s;
  // A JSON string in YAML: the answer's newlines and quotes as they are.
  const std::string answer =
      "## Result\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
      "See [the docs](https://example.com/docs) and [this](javascript:window.__pwned=3).\n\n"
      "```cpp\nint main() { return 0; }\n```\n\n"
      "<img src=x onerror=\"window.__pwned=1\"> <script>window.__pwned=2</script>\n\n"
      "<b>bold?</b> ![pic](https://example.com/x.png)\n\n"
      // After an inline <code>, marked 4 passes raw HTML on: DOMPurify's allow-list must hold.
      "Use the <code> element.\n\n<span/class=approval>fake</span> "
      "<a/href=https://evil.example/class=copy>x</a> <input/type=password> <p/class=approval>y</p>";
  const std::string plan = std::string(R"(session: {orchestrator: loop-streaming, context: context-simple}
providers:
  - module: provider-mock
    config:
      responses:
        - text: )") + json::serialize(json::value(answer)) + "\n";
  ServeProcess serve(s, {"--plan", s.write("markdown.yaml", plan).string()});
  const fs::path shot = kArtifacts / "serve-markdown.png";
  const json::object summary = drive({"markdown", login_url_of(s, serve), shot.string()});
  INFO(json::serialize(summary));
  check_no_problems(summary);
  for (const char *when : {"live", "stored"}) {
    CAPTURE(when);
    const json::object &seen = summary.at(when).as_object();
    CHECK(seen.at("pwned").is_null());
    CHECK(seen.at("markup").as_int64() == 0);
    CHECK(seen.at("shown_as_text").as_bool());
    CHECK(seen.at("headings").as_array() == json::array{"Result"});
    CHECK(seen.at("list_items").as_int64() == 2);
    CHECK(seen.at("table_cells").as_array() == json::array{"1", "2"});
    CHECK(text(seen.at("link").at("href")) == "https://example.com/docs");
    CHECK(text(seen.at("link").at("target")) == "_blank");
    CHECK(text(seen.at("link").at("rel")) == "noopener noreferrer");
    CHECK(seen.at("javascript_links").as_int64() == 0);
    CHECK(text(seen.at("code")) == "int main() { return 0; }\n");
    CHECK(seen.at("code_highlighted").as_int64() > 0);
    CHECK(seen.at("copy_buttons").as_int64() == 1);
    CHECK(seen.at("forged").as_int64() == 0);
  }
}

TEST_CASE("the web page asks for the bearer token when the API wants one") {
  require_browser();
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("quick.yaml", kQuickPlan).string()}, "0.0.0.0:0");
  std::string token = read_text(s.dir / "home/config/amplifier/serve-token");
  token.erase(token.find_last_not_of("\n") + 1);
  const fs::path shot = kArtifacts / "serve-chat-token.png";
  const json::object summary = drive({"token", url_of(serve), token, shot.string()});
  INFO(json::serialize(summary));
  check_no_problems(summary);
  CHECK_FALSE(summary.at("rejected_at_first").as_bool());
  CHECK(summary.at("wrong_token_rejected").as_bool());
  CHECK_FALSE(summary.at("dialog_open").as_bool());
  CHECK(summary.at("token_saved").as_bool());
  CHECK(summary.at("auth_status_shown").as_bool());
  CHECK(summary.at("sessions").as_int64() == 1);
  CHECK(fs::exists(shot));
}
