// Captures kernel log lines for the duration of a test and restores the defaults afterwards.
#pragma once
#include "amplifier/log.hpp"

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

struct CapturedLine {
  amplifier::LogLevel level;
  std::string component;
  std::string message;
};

class LogCapture {
 public:
  explicit LogCapture(amplifier::LogLevel minimum = amplifier::LogLevel::Debug) {
    amplifier::set_log_level(minimum);
    amplifier::set_log_sink([this](amplifier::LogLevel level, std::string_view component,
                                   std::string_view message) {
      std::lock_guard lock(mutex_);
      lines_.push_back({level, std::string(component), std::string(message)});
    });
  }
  ~LogCapture() {
    amplifier::set_log_sink(nullptr);
    amplifier::set_log_level(amplifier::LogLevel::Warning);
  }
  LogCapture(const LogCapture &) = delete;
  LogCapture &operator=(const LogCapture &) = delete;

  std::vector<CapturedLine> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

  // Lines whose message contains every one of `fragments`.
  std::size_t count_containing(std::initializer_list<std::string_view> fragments) const {
    std::lock_guard lock(mutex_);
    return std::count_if(lines_.begin(), lines_.end(), [&](const CapturedLine &line) {
      return std::all_of(fragments.begin(), fragments.end(), [&](std::string_view fragment) {
        return line.message.find(fragment) != std::string::npos;
      });
    });
  }

 private:
  mutable std::mutex mutex_;
  std::vector<CapturedLine> lines_;
};
