// The stdio transport: the server is a child process (amplifier::process::Child: its own
// process group, killed with the host); messages are single lines of JSON on its stdin and
// stdout. Its stderr is logged line by line, and its last lines say why it died.
#pragma once
#include "channel.hpp"
#include "mcp_config.hpp"

#include "amplifier/process/child.hpp"

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace tool_mcp {

using LogFn = std::function<void(amp_log_level level, const std::string &message)>;

class StdioChannel final : public Channel {
 public:
  StdioChannel(ServerConfig config, std::size_t max_message_bytes, LogFn log);
  ~StdioChannel() override;

  // Spawns the server (any thread: the process library forks children that die with the
  // host from a thread of its own).
  void open(ChannelEvents events) override;
  void send(std::string message, std::optional<RequestId> id) override;
  void close() override;
  std::string describe() const override;

 private:
  bool wait_writable();
  void read_loop();
  bool read_stdout();
  void read_stderr();
  void take_lines(std::string &buffer, bool is_stdout);
  void report_closed(const std::string &reason);
  std::string exit_reason();

  const ServerConfig config_;
  const std::size_t max_message_bytes_;
  const LogFn log_;
  ChannelEvents events_;
  std::unique_ptr<amplifier::process::Child> child_;
  int wake_fd_ = -1;  // an eventfd: close() wakes the reader
  std::thread reader_;
  std::mutex write_mutex_;
  std::atomic<bool> closing_{false};
  std::atomic<bool> closed_reported_{false};
  std::string stdout_buffer_, stderr_buffer_;
  bool stderr_open_ = true;                    // reader thread only
  std::deque<std::string> last_stderr_lines_;  // reader thread only
  std::mutex stderr_mutex_;                    // guards last_stderr_lines_ for exit_reason
};

}  // namespace tool_mcp
