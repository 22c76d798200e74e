// Kernel logging: one process-wide sink, replaceable by the host (thread-safe).
#pragma once
#include <functional>
#include <string_view>

namespace amplifier {
enum class LogLevel { Debug = 0, Info = 1, Warning = 2, Error = 3 };

using LogSink = std::function<void(LogLevel, std::string_view component, std::string_view message)>;

// Replaces the sink (default: lines on stderr at Warning and above). Not for the hot path.
void set_log_sink(LogSink sink);
void set_log_level(LogLevel minimum);
void log(LogLevel level, std::string_view component, std::string_view message);
std::string_view to_string(LogLevel level);
}  // namespace amplifier
