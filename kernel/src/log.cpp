// Process-wide kernel log: one replaceable sink and a minimum level.
#include "amplifier/log.hpp"
#include "amplifier/terminal_text.hpp"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

namespace amplifier {
namespace {

void write_to_stderr(LogLevel level, std::string_view component, std::string_view message) {
  // One fprintf per line so concurrent writers do not interleave inside a line.
  std::string line = "amplifier: ";
  line += to_string(level);
  line += ": [";
  // Modules' text (an MCP server's stderr, a vendor's error) is not trusted with the terminal:
  // its controls are made visible (OSC 52 would set the clipboard, ESC[2J clear the screen).
  line += terminal_safe(component);
  line += "] ";
  // A message's own line breaks start indented lines, so a module cannot begin a line of its
  // own that reads as another "amplifier: error: ..." message.
  std::string_view rest = message;
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r')) rest.remove_suffix(1);
  const std::string safe = terminal_safe(rest);
  for (char c : safe) {
    line += c;
    if (c == '\n') line += "    ";
  }
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

struct LogState {
  std::mutex mutex;
  // Shared so that log() can call the sink outside the lock (a sink may itself log or block)
  // while set_log_sink() replaces it.
  std::shared_ptr<const LogSink> sink = std::make_shared<const LogSink>(write_to_stderr);
  std::atomic<int> minimum{static_cast<int>(LogLevel::Warning)};
};

LogState &state() {
  // Never destroyed: threads may still log during static destruction.
  static LogState *instance = new LogState;
  return *instance;
}

}  // namespace

void set_log_sink(LogSink sink) {
  // An empty sink restores the default rather than silencing the kernel by accident.
  auto replacement = sink ? std::make_shared<const LogSink>(std::move(sink))
                          : std::make_shared<const LogSink>(write_to_stderr);
  auto &s = state();
  std::lock_guard lock(s.mutex);
  s.sink = std::move(replacement);
}

void set_log_level(LogLevel minimum) {
  state().minimum.store(static_cast<int>(minimum), std::memory_order_relaxed);
}

void log(LogLevel level, std::string_view component, std::string_view message) {
  auto &s = state();
  if (static_cast<int>(level) < s.minimum.load(std::memory_order_relaxed)) return;
  std::shared_ptr<const LogSink> sink;
  {
    std::lock_guard lock(s.mutex);
    sink = s.sink;
  }
  try {
    (*sink)(level, component, message);
  } catch (...) {
    // Logging is called from error paths; a failing sink must not turn into a second failure.
  }
}

std::string_view to_string(LogLevel level) {
  switch (level) {
    case LogLevel::Debug: return "debug";
    case LogLevel::Info: return "info";
    case LogLevel::Warning: return "warning";
    case LogLevel::Error: return "error";
  }
  return "unknown";
}

}  // namespace amplifier
