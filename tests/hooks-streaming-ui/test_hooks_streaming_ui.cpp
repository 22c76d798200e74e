// hooks-streaming-ui in a real Session, its output captured: a file or a FIFO (plain text) and
// a pseudo-terminal (styled, with the spinner). Whole turns over provider-mock and
// tool-filesystem, and events emitted directly for the cases a turn does not produce.
#include "module_test_support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <regex>
#include <thread>

using namespace modtest;

namespace {

std::string ui_hooks(json::object config) {
  return "hooks:\n  - module: hooks-streaming-ui\n    config: " + yaml_json(config) + "\n";
}

// Sets (or, with nullopt, removes) an environment variable for the test's duration.
class EnvOverride {
 public:
  EnvOverride(const char *name, std::optional<std::string> value) : name_(name) {
    if (const char *old = std::getenv(name)) previous_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~EnvOverride() {
    if (previous_) ::setenv(name_, previous_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char *name_;
  std::optional<std::string> previous_;
};

// Reads what arrives on `fd` into `seen` until `needle` appears at or after `from` (or
// `timeout` passes).
std::string read_until(int fd, std::string &seen, std::string_view needle, std::size_t from = 0,
                       std::chrono::milliseconds timeout = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (seen.find(needle, from) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  return seen;
}

// A pseudo-terminal in raw mode (so "\n" arrives as written): the module writes to the slave's
// path, the test reads the master.
class PseudoTerminal {
 public:
  PseudoTerminal() {
    char name[256];
    REQUIRE(::openpty(&master_, &slave_, name, nullptr, nullptr) == 0);
    path_ = name;
    termios mode{};
    ::tcgetattr(slave_, &mode);
    ::cfmakeraw(&mode);
    ::tcsetattr(slave_, TCSANOW, &mode);
  }
  ~PseudoTerminal() {
    ::close(master_);
    ::close(slave_);
  }
  const std::string &path() const { return path_; }
  std::string read_until(std::string_view needle, std::size_t from = 0) {
    return ::read_until(master_, seen_, needle, from);
  }
  const std::string &seen() const { return seen_; }

 private:
  int master_ = -1, slave_ = -1;
  std::string path_;
  std::string seen_;
};

// The usage a turn's provider:response events carried, summed as the display should.
struct UsageTotals {
  long long in = 0, out = 0, total = 0;
};

class UsageRecorder {
 public:
  explicit UsageRecorder(amplifier::Session &session) {
    session.hooks().register_handler("provider:response", [this](std::string_view, const json::object &data) {
      std::lock_guard lock(mutex_);
      const auto &usage = data.at("usage").as_object();
      totals_.in += usage.at("input_tokens").to_number<long long>();
      totals_.out += usage.at("output_tokens").to_number<long long>();
      totals_.total += usage.at("total_tokens").to_number<long long>();
      return amplifier::HookResult{};
    });
  }
  UsageTotals totals() const {
    std::lock_guard lock(mutex_);
    return totals_;
  }

 private:
  mutable std::mutex mutex_;
  UsageTotals totals_;
};

std::string with_commas(long long n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

// A turn: the mock thinks (two lines), says something, reads notes.txt (8 lines) and then
// answers quoting the result.
struct TurnWorkspace {
  TempDir dir;
  fs::path work = dir / "work";
  fs::path out = dir / "display.txt";

  TurnWorkspace() {
    std::string notes;
    for (int i = 1; i <= 8; ++i) notes += "line " + std::to_string(i) + "\n";
    write_file(work / "notes.txt", notes);
  }

  std::string plan(json::object ui_config, std::string thinking = "First I consider the notes.\nThen I read them.") {
    if (!ui_config.contains("output")) ui_config["output"] = out.string();
    const json::object mock{
        {"chunk_size", 4},
        {"responses", json::array{json::object{
                          {"thinking", thinking},
                          {"signature", "sig"},
                          {"text", "Let me look."},
                          {"tool_calls", json::array{json::object{{"name", "read_file"}, {"input", {{"path", "notes.txt"}}}}}}}}}};
    return plan_with("providers:\n  - module: provider-mock\n    config: " + yaml_json(mock) +
                     "\ntools:\n  - module: tool-filesystem\n    config: " +
                     yaml_json(json::object{{"working_dir", work.string()}}) + "\n" + ui_hooks(ui_config));
  }
};

}  // namespace

TEST_CASE("a turn on a non-terminal: thinking apart and whole, streamed answer, tool line, usage") {
  TurnWorkspace ws;
  auto session = open_session(ws.plan({}));
  REQUIRE(session->load_failures().empty());
  UsageRecorder usage(*session);
  const auto turn = session->execute("what do the notes say?");
  REQUIRE(turn.status == "success");
  const std::string shown = read_text(ws.out);
  INFO(shown);

  CHECK(shown.starts_with("Thinking\n│ First I consider the notes.\n│ Then I read them.\n\nLet me look.\n"
                          "● read_file(path: \"notes.txt\")\n"
                          "  ⎿      1\tline 1\n"
                          "         2\tline 2\n"));
  CHECK(shown.find("         5\tline 5\n    … +3 lines\n") != std::string::npos);
  CHECK(shown.find("line 6") == std::string::npos);
  // The second response: its own thinking section, then the answer.
  CHECK(shown.find("\nThinking\n│ The tool read_file returned") != std::string::npos);
  CHECK(shown.find("\n\nHere is what read_file returned:\n") != std::string::npos);
  const UsageTotals expected = usage.totals();
  CHECK(expected.in > 0);
  CHECK(shown.ends_with("\ntokens: " + with_commas(expected.in) + " in · " + with_commas(expected.out) + " out · " +
                        with_commas(expected.total) + " total\n"));
  CHECK(shown.find('\x1b') == std::string::npos);  // plain text when not a terminal
}

TEST_CASE("long thinking is shown in full; the options hide what they should") {
  TurnWorkspace ws;
  std::string thinking;
  for (int i = 0; i < 120; ++i) thinking += "Thought number " + std::to_string(i) + " goes on for a while.\n";
  thinking += "The end of the thought";
  auto session = open_session(ws.plan({{"show_tool_lines", 2}, {"show_token_usage", false}}, thinking));
  REQUIRE(session->execute("go").status == "success");
  const std::string shown = read_text(ws.out);

  // Every line of the thinking, each prefixed, in order, nothing cut.
  std::string prefixed;
  for (const auto &line : [&] {
         std::vector<std::string> lines;
         std::size_t start = 0;
         while (start <= thinking.size()) {
           std::size_t end = thinking.find('\n', start);
           if (end == std::string::npos) end = thinking.size();
           lines.push_back(thinking.substr(start, end - start));
           start = end + 1;
         }
         return lines;
       }())
    prefixed += "│ " + line + "\n";
  CHECK(shown.starts_with("Thinking\n" + prefixed + "\nLet me look.\n"));
  CHECK(shown.find("  ⎿      1\tline 1\n         2\tline 2\n    … +6 lines\n") != std::string::npos);
  CHECK(shown.find("tokens:") == std::string::npos);
}

TEST_CASE("show_thinking false leaves thinking out and the answer in") {
  TurnWorkspace ws;
  auto session = open_session(ws.plan({{"show_thinking", false}, {"show_tool_lines", 0}}));
  REQUIRE(session->execute("go").status == "success");
  const std::string shown = read_text(ws.out);
  CHECK(shown.find("Thinking") == std::string::npos);
  CHECK(shown.find("consider") == std::string::npos);
  CHECK(shown.starts_with("Let me look.\n● read_file(path: \"notes.txt\")\nHere is what read_file returned:\n"));
  CHECK(shown.find("⎿") == std::string::npos);
}

TEST_CASE("piped output is plain: no colour, no spinner") {
  TempDir dir;
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  EnvOverride term("TERM", "xterm-256color");
  auto session = open_session(plan_with(ui_hooks({{"output", fifo.string()}})));
  REQUIRE(session->load_failures().empty());
  auto &hooks = session->hooks();
  hooks.emit("provider:request", json::object{{"provider", "mock"}, {"iteration", 1}});
  hooks.emit("content_block:start", json::object{{"block_type", "text"}, {"block_index", 0}});
  hooks.emit("content_block:delta", json::object{{"block_index", 0}, {"delta", {{"type", "text"}, {"text", "Plain answer."}}}});
  hooks.emit("tool:pre", json::object{{"tool_name", "bash"}, {"tool_input", {{"command", "ls\n-la"}}}, {"tool_call_id", "c1"}});
  std::string seen;
  read_until(reader, seen, "(ls⏎-la)\n");
  ::close(reader);
  CHECK(seen == "Plain answer.\n● bash(ls⏎-la)\n");
}

TEST_CASE("on a terminal: a spinner until the first token, dimmed thinking, styled tool lines") {
  PseudoTerminal tty;
  EnvOverride no_color("NO_COLOR", std::nullopt);
  EnvOverride term("TERM", "xterm-256color");
  auto session = open_session(plan_with(ui_hooks({{"output", tty.path()}})));
  REQUIRE(session->load_failures().empty());
  auto &hooks = session->hooks();

  hooks.emit("provider:request", json::object{{"provider", "mock"}, {"iteration", 1}});
  CHECK(tty.read_until("waiting for the model").find("⠋") != std::string::npos);
  hooks.emit("content_block:start", json::object{{"block_type", "thinking"}, {"block_index", 0}});
  hooks.emit("content_block:delta", json::object{{"block_index", 0}, {"delta", {{"type", "thinking"}, {"thinking", "deep\nthought"}}}});
  hooks.emit("content_block:end", json::object{{"block_index", 0}, {"block", {{"type", "thinking"}, {"thinking", "deep\nthought"}}}});
  hooks.emit("content_block:start", json::object{{"block_type", "text"}, {"block_index", 1}});
  hooks.emit("content_block:delta", json::object{{"block_index", 1}, {"delta", {{"type", "text"}, {"text", "Answer."}}}});
  hooks.emit("tool:pre", json::object{{"tool_name", "bash"}, {"tool_input", {{"command", "ls"}}}, {"tool_call_id", "c1"}});
  const std::string shown = tty.read_until("(ls)\x1b[0m\n");
  const std::size_t erased = shown.find("\r\x1b[K\x1b[2mThinking\n\x1b[0m");
  REQUIRE(erased != std::string::npos);  // the spinner's line is cleared before the thinking
  CHECK(shown.find("\x1b[2;3m│ deep\n│ thought\x1b[0m\n\nAnswer.\n", erased) != std::string::npos);
  CHECK(shown.find("\x1b[32m● \x1b[0m\x1b[1mbash\x1b[0m\x1b[2m(ls)\x1b[0m\n", erased) != std::string::npos);

  // The spinner drew nothing while stopped: the next frames come only after the next request.
  const std::size_t before_restart = shown.size();
  hooks.emit("provider:request", json::object{{"provider", "mock"}, {"iteration", 2}});
  const std::string later = tty.read_until("waiting for the model", before_restart);
  CHECK(shown.substr(erased).find("waiting for the model") == std::string::npos);
  CHECK(later.find("waiting for the model", before_restart) != std::string::npos);
  hooks.emit("orchestrator:complete", json::object{{"status", "success"}});
}

TEST_CASE("on a terminal with NO_COLOR set: plain text") {
  PseudoTerminal tty;
  EnvOverride no_color("NO_COLOR", "1");
  auto session = open_session(plan_with(ui_hooks({{"output", tty.path()}})));
  auto &hooks = session->hooks();
  hooks.emit("provider:request", json::object{{"provider", "mock"}, {"iteration", 1}});
  hooks.emit("content_block:end", json::object{{"block_index", 0}, {"block", {{"type", "thinking"}, {"thinking", "hmm"}}}});
  hooks.emit("content_block:end", json::object{{"block_index", 1}, {"block", {{"type", "text"}, {"text", "Whole block."}}}});
  hooks.emit("provider:response", json::object{{"usage", {{"input_tokens", 1200}, {"output_tokens", 30}, {"total_tokens", 1230}}}});
  hooks.emit("orchestrator:complete", json::object{{"status", "success"}});
  const std::string shown = tty.read_until("total\n");
  // Blocks that streamed no deltas are shown whole at their end.
  CHECK(shown == "Thinking\n│ hmm\n\nWhole block.\ntokens: 1,200 in · 30 out · 1,230 total\n");
}

TEST_CASE("tool results: failures, labels for interleaved calls, errors and provider errors") {
  TempDir dir;
  const fs::path out = dir / "display.txt";
  auto session = open_session(plan_with(ui_hooks({{"output", out.string()}, {"show_tool_lines", 1}})));
  auto &hooks = session->hooks();
  hooks.emit("tool:pre", json::object{{"tool_name", "read_file"}, {"tool_input", {{"path", "a"}, {"limit", 5}}}, {"tool_call_id", "c1"}});
  hooks.emit("tool:pre", json::object{{"tool_name", "grep"}, {"tool_input", {{"pattern", "x"}}}, {"tool_call_id", "c2"}});
  hooks.emit("tool:post", json::object{{"tool_name", "grep"}, {"tool_call_id", "c2"},
                                       {"result", {{"success", true}, {"output", "a:1:x\nb:2:x"}}}});
  hooks.emit("tool:post", json::object{{"tool_name", "read_file"}, {"tool_call_id", "c1"},
                                       {"result", {{"success", false}, {"output", "File not found: a"},
                                                   {"error", {{"message", "File not found: a"}}}}}});
  hooks.emit("tool:post", json::object{{"tool_name", "glob"}, {"tool_call_id", "c3"}, {"result", {{"success", true}, {"output", ""}}}});
  hooks.emit("tool:error", json::object{{"tool_name", "nope"}, {"tool_call_id", "c4"},
                                        {"error", {{"type", "tool_not_found"}, {"message", "Error: tool 'nope' is not available."}}}});
  hooks.emit("content_block:delta", json::object{{"block_index", 0}, {"delta", {{"type", "text"}, {"text", "half a line"}}}});
  hooks.emit("approval:required", json::object{{"tool_name", "bash"}});
  hooks.emit("provider:error", json::object{{"provider", "mock"}, {"error", {{"kind", "network"}, {"message", "connection reset"}}}});
  CHECK(read_text(out) ==
        "● read_file(path: \"a\", limit: 5)\n"
        "● grep(pattern: \"x\")\n"
        "  ⎿ a:1:x\n"
        "    … +1 lines\n"
        "  ⎿ read_file: File not found: a\n"
        "  ⎿ glob: (no output)\n"
        "  ⎿ nope failed: Error: tool 'nope' is not available.\n"
        "half a line\n"
        "✗ mock: connection reset\n");
}

TEST_CASE("escape sequences in model text, thinking and tool output are shown, not obeyed") {
  TempDir dir;
  const fs::path out = dir / "display.txt";
  auto session = open_session(plan_with(ui_hooks({{"output", out.string()}, {"show_tool_lines", 3}})));
  auto &hooks = session->hooks();
  const std::string osc52 = "\x1b]52;c;cm0gLXJmIH4=\x07";  // sets the clipboard to "rm -rf ~"
  const std::string cursor = "\x1b[2A\x1b[2K\r";           // two lines up, erase, column 0
  hooks.emit("content_block:start", json::object{{"block_index", 0}, {"block_type", "thinking"}});
  hooks.emit("content_block:delta", json::object{{"block_index", 0}, {"delta", {{"type", "thinking"}, {"thinking", "hm" + cursor}}}});
  hooks.emit("content_block:end", json::object{{"block_index", 0}, {"block", {{"type", "thinking"}, {"thinking", "hm"}}}});
  hooks.emit("content_block:start", json::object{{"block_index", 1}, {"block_type", "text"}});
  hooks.emit("content_block:delta", json::object{{"block_index", 1}, {"delta", {{"type", "text"}, {"text", "Héllo " + osc52 + "wörld\t✓\n"}}}});
  hooks.emit("content_block:end", json::object{{"block_index", 1}, {"block", {{"type", "text"}, {"text", "x"}}}});
  hooks.emit("tool:pre", json::object{{"tool_name", "bash"}, {"tool_input", {{"command", "cat " + cursor}}}, {"tool_call_id", "c1"}});
  hooks.emit("tool:post", json::object{{"tool_name", "bash"}, {"tool_call_id", "c1"},
                                       {"result", {{"success", true}, {"output", "ok" + cursor + "\nsecond " + osc52 + "\xc2\x9b" + "6n"}}}});
  hooks.emit("tool:error", json::object{{"tool_name", "bash"}, {"tool_call_id", "c2"},
                                        {"error", {{"message", "bad" + osc52}}}});
  const std::string shown = read_text(out);
  CHECK(shown.find('\x1b') == std::string::npos);
  CHECK(shown.find('\x07') == std::string::npos);
  CHECK(shown.find('\r') == std::string::npos);
  CHECK(shown.find("\xc2\x9b") == std::string::npos);
  CHECK(shown.find("Héllo ^[]52;c;cm0gLXJmIH4=^Gwörld\t✓\n") != std::string::npos);
  CHECK(shown.find("hm^[[2A^[[2K^M") != std::string::npos);
  CHECK(shown.find("  ⎿ ok^[[2A^[[2K^M\n") != std::string::npos);
  CHECK(shown.find("    second ^[]52;c;cm0gLXJmIH4=^G\xEF\xBF\xBD" "6n\n") != std::string::npos);
  CHECK(shown.find("bad^[]52;c;cm0gLXJmIH4=^G") != std::string::npos);
}

TEST_CASE("OpenAI reasoning summaries are shown as thinking, streamed or whole") {
  TempDir dir;
  const fs::path out = dir / "display.txt";
  auto session = open_session(plan_with(ui_hooks({{"output", out.string()}})));
  auto &hooks = session->hooks();
  auto start = [&](int index, std::string_view type) {
    hooks.emit("content_block:start", json::object{{"block_index", index}, {"block_type", type}});
  };
  auto summary_delta = [&](int index, std::string_view text) {
    hooks.emit("content_block:delta",
               json::object{{"block_index", index},
                            {"delta", {{"type", "reasoning"}, {"summary", text}}}});
  };
  start(0, "reasoning");
  summary_delta(0, "**Planning**");
  summary_delta(0, "\n\nI add first.");
  hooks.emit("content_block:end", json::parse(R"({"block_index":0,"block":{"type":"reasoning",
      "summary":[{"type":"summary_text","text":"**Planning**\n\nI add first."}],
      "encrypted_content":"gAAA"}})").as_object());
  // A reasoning block that arrives whole (a non-streamed response): its summary parts.
  start(1, "reasoning");
  hooks.emit("content_block:end", json::parse(R"({"block_index":1,"block":{"type":"reasoning",
      "summary":[{"type":"summary_text","text":"One."},{"type":"summary_text","text":"Two."}]}})")
                                      .as_object());
  start(2, "text");
  hooks.emit("content_block:delta",
             json::object{{"block_index", 2}, {"delta", {{"type", "text"}, {"text", "42"}}}});
  const std::string shown = read_text(out);
  CHECK(shown.find("│ **Planning**\n│ \n│ I add first.") != std::string::npos);
  CHECK(shown.find("│ One.\n│ \n│ Two.") != std::string::npos);
  CHECK(shown.find("gAAA") == std::string::npos);
  CHECK(shown.find("42") > shown.find("Two."));
}

TEST_CASE("concurrent events never split each other's lines") {
  TempDir dir;
  const fs::path out = dir / "display.txt";
  auto session = open_session(plan_with(ui_hooks({{"output", out.string()}, {"show_tool_lines", 0}})));
  auto &hooks = session->hooks();
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i)
        hooks.emit("tool:pre", json::object{{"tool_name", "tool_" + std::to_string(t)}, {"tool_input", {{"i", i}}},
                                            {"tool_call_id", std::to_string(t) + "-" + std::to_string(i)}});
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 200; ++i)
      hooks.emit("content_block:delta", json::object{{"block_index", 0}, {"delta", {{"type", "text"}, {"text", "word "}}}});
  });
  for (auto &thread : threads) thread.join();
  const std::regex tool_line("● tool_[0-5]\\(i: [0-9]+\\)");
  std::size_t tool_lines = 0, words = 0;
  for (const auto &line : read_lines(out)) {
    if (line.starts_with("●")) {
      CHECK_MESSAGE(std::regex_match(line, tool_line), line);
      ++tool_lines;
    } else {
      for (std::size_t at = line.find("word "); at != std::string::npos; at = line.find("word ", at + 1)) ++words;
      CHECK_MESSAGE(line.find("●") == std::string::npos, line);
    }
  }
  CHECK(tool_lines == 240);
  CHECK(words == 200);
}

TEST_CASE("config problems fail the mount or are warned about") {
  LogCapture log;
  TempDir dir;
  auto unwritable = open_session(plan_with(ui_hooks({{"output", (dir / "missing" / "x.txt").string()}})));
  REQUIRE(unwritable->load_failures().size() == 1);
  CHECK(unwritable->load_failures()[0].error.find("cannot open") != std::string::npos);
  auto negative = open_session(plan_with(ui_hooks({{"show_tool_lines", -1}})));
  REQUIRE(negative->load_failures().size() == 1);
  CHECK(negative->load_failures()[0].error.find("'show_tool_lines' must be between 0") != std::string::npos);
  auto typo = open_session(plan_with(ui_hooks({{"output", (dir / "ok.txt").string()}, {"show_thinkng", false}})));
  CHECK(typo->load_failures().empty());
  CHECK(log.containing("unknown key 'show_thinkng' is ignored (did you mean 'show_thinking'?)").size() == 1);
}
