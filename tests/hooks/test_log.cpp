// Kernel log: default stderr format, level filter, replaceable sink, thread safety.
#include "amplifier/log.hpp"
#include "log_capture.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace amplifier;

namespace {

// Runs `body` with stderr redirected to a temporary file and returns what it wrote.
template <class Body>
std::string capture_stderr(Body body) {
  std::fflush(stderr);
  std::FILE *file = std::tmpfile();
  REQUIRE(file != nullptr);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(::fileno(file), STDERR_FILENO);
  body();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text.push_back(static_cast<char>(c));
  std::fclose(file);
  return text;
}

}  // namespace

TEST_CASE("level names") {
  CHECK(to_string(LogLevel::Debug) == "debug");
  CHECK(to_string(LogLevel::Info) == "info");
  CHECK(to_string(LogLevel::Warning) == "warning");
  CHECK(to_string(LogLevel::Error) == "error");
}

TEST_CASE("the default sink writes warnings and errors to stderr") {
  set_log_sink(nullptr);
  set_log_level(LogLevel::Warning);
  const std::string written = capture_stderr([] {
    log(LogLevel::Info, "loader", "not shown");
    log(LogLevel::Warning, "loader", "module provider-x not found");
    log(LogLevel::Error, "hooks", "handler failed");
  });
  CHECK(written ==
        "amplifier: warning: [loader] module provider-x not found\n"
        "amplifier: error: [hooks] handler failed\n");
}

TEST_CASE("the default sink shows a module's control characters instead of obeying them") {
  set_log_sink(nullptr);
  set_log_level(LogLevel::Warning);
  // What an MCP server's stderr once put on the terminal: clear the screen, set the clipboard.
  const std::string written = capture_stderr([] {
    log(LogLevel::Warning, "tool-mcp\x1b[2J", "stderr: \x1b]52;c;cm0gLXJmIH4=\x07" "done\rover");
  });
  CHECK(written ==
        "amplifier: warning: [tool-mcp^[[2J] stderr: ^[]52;c;cm0gLXJmIH4=^Gdone^Mover\n");
  CHECK(written.find('\x1b') == std::string::npos);
  // A line break cannot start a line that passes for the host's own message.
  const std::string spoof = capture_stderr([] {
    log(LogLevel::Warning, "tool-mcp", "ok\namplifier: error: [loader] your key expired\n");
  });
  CHECK(spoof ==
        "amplifier: warning: [tool-mcp] ok\n    amplifier: error: [loader] your key expired\n");
}

TEST_CASE("a replacement sink receives messages at or above the level") {
  LogCapture capture(LogLevel::Info);
  log(LogLevel::Debug, "session", "too chatty");
  log(LogLevel::Info, "session", "mounted 3 modules");
  log(LogLevel::Error, "session", "orchestrator failed");
  const auto lines = capture.lines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].level == LogLevel::Info);
  CHECK(lines[0].component == "session");
  CHECK(lines[0].message == "mounted 3 modules");
  CHECK(lines[1].level == LogLevel::Error);
}

TEST_CASE("a sink may log itself and a throwing sink does not propagate") {
  int depth = 0;
  set_log_level(LogLevel::Debug);
  set_log_sink([&](LogLevel, std::string_view, std::string_view) {
    if (++depth == 1) log(LogLevel::Info, "nested", "from inside the sink");  // must not deadlock
    throw std::runtime_error("sink broke");
  });
  CHECK_NOTHROW(log(LogLevel::Warning, "test", "message"));
  CHECK(depth == 2);
  set_log_sink(nullptr);
  set_log_level(LogLevel::Warning);
}

TEST_CASE("sinks can be replaced while other threads log") {
  std::atomic<bool> stop{false};
  std::vector<std::thread> loggers;
  for (int t = 0; t < 3; ++t)
    loggers.emplace_back([&] {
      while (!stop.load()) log(LogLevel::Debug, "stress", "line");
    });
  std::atomic<long> received{0};
  for (int i = 0; i < 200; ++i) {
    set_log_level(LogLevel::Debug);
    set_log_sink([&](LogLevel, std::string_view, std::string_view) { ++received; });
  }
  // Wait for some deliveries through the last sink before tearing down.
  while (received.load() == 0) std::this_thread::yield();
  stop = true;
  for (auto &thread : loggers) thread.join();
  set_log_sink(nullptr);
  set_log_level(LogLevel::Warning);
  CHECK(received.load() > 0);
}
