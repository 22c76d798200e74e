#include "stdio_channel.hpp"

#include "amplifier/process/environment.hpp"
#include "amplifier/process/run.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tool_mcp {
namespace {

namespace ms = amplifier::module_support;
using namespace std::chrono_literals;

constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::size_t kStderrLinesKept = 5;
constexpr std::size_t kStderrLineMax = 2000;
// A server that does not read its input for this long is stuck: the message is not sent.
constexpr int kWriteStallMs = 10'000;

std::string joined(const std::vector<std::string> &words) {
  std::string out;
  for (const auto &word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

StdioChannel::StdioChannel(ServerConfig config, std::size_t max_message_bytes, LogFn log)
    : config_(std::move(config)), max_message_bytes_(max_message_bytes), log_(std::move(log)) {}

StdioChannel::~StdioChannel() {
  close();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

std::string StdioChannel::describe() const { return joined(config_.command_line); }

void StdioChannel::open(ChannelEvents events) {
  events_ = std::move(events);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
  // Trust: the command is the operator's (a plan or settings entry) or a project's .mcp.json
  // the operator trusted; mcp_config.cpp decides which, before this runs.
  amplifier::process::Spec spec;
  spec.argv = config_.command_line;
  spec.environment = amplifier::process::environment_with(config_.env);
  spec.working_dir = config_.working_dir;
  spec.stdin_stream = amplifier::process::Stream::pipe();
  spec.stdout_stream = amplifier::process::Stream::pipe();
  spec.stderr_stream = amplifier::process::Stream::pipe();
  spec.die_with_host = true;
  // Throws SpawnError with the reason.
  child_ = std::make_unique<amplifier::process::Child>(amplifier::process::Child::spawn(spec));
  reader_ = std::thread([this] { read_loop(); });
}

void StdioChannel::send(std::string message, std::optional<RequestId>) {
  message += '\n';
  std::lock_guard lock(write_mutex_);
  if (!child_ || child_->stdin_fd() < 0 || closing_) return;
  std::string_view rest(message);
  while (!rest.empty()) {
    const ssize_t written = amplifier::process::write_without_sigpipe(child_->stdin_fd(), rest.data(), rest.size());
    if (written > 0) {
      rest.remove_prefix(static_cast<std::size_t>(written));
      continue;
    }
    if (written < 0 && errno == EINTR) continue;
    if (written < 0 && errno == EAGAIN) {
      // Waits in short slices, so a close() (which takes this mutex) is not held up.
      if (wait_writable()) continue;
      if (closing_) return;
      return report_closed("the server has not read its input for " +
                           std::to_string(kWriteStallMs / 1000) + " s");
    }
    return report_closed("writing to the server failed: " + std::string(std::strerror(errno)));
  }
}

// Whether the server's stdin can take more within kWriteStallMs; false at once when closing.
bool StdioChannel::wait_writable() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWriteStallMs);
  while (!closing_ && std::chrono::steady_clock::now() < deadline) {
    pollfd out{child_->stdin_fd(), POLLOUT, 0};
    if (::poll(&out, 1, 100) > 0) return true;
  }
  return false;
}

void StdioChannel::close() {
  closing_ = true;
  if (child_) {
    // Closed under the write mutex: a send() never writes to a descriptor number that is
    // closed under it (and perhaps reused by then).
    std::lock_guard lock(write_mutex_);
    child_->close_stdin();
  }
  if (child_) child_->stop(1000ms);
  if (wake_fd_ >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
  }
  if (reader_.joinable()) reader_.join();
}

void StdioChannel::read_loop() {
  for (;;) {
    // A closed stderr is polled no more (it would report POLLHUP for ever).
    pollfd fds[3] = {{child_->stdout_fd(), POLLIN, 0},
                     {stderr_open_ ? child_->stderr_fd() : -1, POLLIN, 0},
                     {wake_fd_, POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0 && errno != EINTR) break;
    if (closing_) return;
    if (fds[1].revents) read_stderr();
    if (fds[0].revents && !read_stdout()) break;
  }
  read_stderr();  // what it said while dying
  report_closed("the server process ended: " + exit_reason());
}

// False once stdout is closed or the channel failed.
bool StdioChannel::read_stdout() {
  char chunk[kReadChunk];
  const ssize_t got = ::read(child_->stdout_fd(), chunk, sizeof chunk);
  if (got < 0) return errno == EAGAIN || errno == EINTR;
  if (got == 0) return false;
  stdout_buffer_.append(chunk, static_cast<std::size_t>(got));
  take_lines(stdout_buffer_, true);
  if (stdout_buffer_.size() > max_message_bytes_) {
    report_closed("the server sent a message larger than max_message_bytes (" +
                  std::to_string(max_message_bytes_) + " bytes)");
    return false;
  }
  return !closed_reported_;
}

void StdioChannel::read_stderr() {
  char chunk[kReadChunk];
  ssize_t got;
  if (!stderr_open_) return;
  while ((got = ::read(child_->stderr_fd(), chunk, sizeof chunk)) > 0) {
    stderr_buffer_.append(chunk, static_cast<std::size_t>(got));
    take_lines(stderr_buffer_, false);
    // A line without end is logged in pieces rather than held without bound.
    if (stderr_buffer_.size() > kStderrLineMax) {
      stderr_buffer_ += '\n';
      take_lines(stderr_buffer_, false);
    }
  }
  if (got == 0) stderr_open_ = false;
}

void StdioChannel::take_lines(std::string &buffer, bool is_stdout) {
  std::size_t start = 0;
  for (std::size_t end; (end = buffer.find('\n', start)) != std::string::npos; start = end + 1) {
    std::string_view line(buffer.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (is_stdout) {
      if (closed_reported_) break;
      if (events_.on_message) events_.on_message(line);
      continue;
    }
    std::string text(line.substr(0, kStderrLineMax));
    log_(AMP_LOG_DEBUG, "stderr: " + text);
    std::lock_guard lock(stderr_mutex_);
    last_stderr_lines_.push_back(std::move(text));
    if (last_stderr_lines_.size() > kStderrLinesKept) last_stderr_lines_.pop_front();
  }
  buffer.erase(0, start);
}

void StdioChannel::report_closed(const std::string &reason) {
  if (closing_ || closed_reported_.exchange(true)) return;
  if (events_.on_closed) events_.on_closed(reason);
}

// "exited with status 1; its last words on stderr: ...", once the exit is known (a process
// that closed stdout is given a moment to finish dying).
std::string StdioChannel::exit_reason() {
  std::optional<std::string> reason;
  for (int i = 0; i < 100 && !(reason = child_->exit_reason()); ++i)
    std::this_thread::sleep_for(5ms);
  std::string text = reason ? *reason : "closed its output";
  std::lock_guard lock(stderr_mutex_);
  if (!last_stderr_lines_.empty()) {
    text += "; its last lines on stderr:";
    for (const auto &line : last_stderr_lines_) text += "\n  " + line;
  }
  return text;
}

}  // namespace tool_mcp
