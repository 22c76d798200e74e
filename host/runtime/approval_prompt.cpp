#include "approval_prompt.hpp"

#include "amplifier/terminal_text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace amplifier::host {
namespace json = boost::json;
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kPollSliceMs = 100;  // how soon a cancel is noticed while waiting for a key

std::string string_field(const json::object &o, std::string_view key, std::string fallback = {}) {
  auto *v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : fallback;
}

// `source` says who decided (user | timeout | no-terminal), for audit logs.
json::object decision(std::string_view choice, std::string_view reason, std::string_view source) {
  return json::object{{"decision", choice}, {"reason", reason}, {"source", source}};
}

// Identifies one action: the tool and its exact input.
std::string action_key(const json::object &request) {
  std::string key = string_field(request, "tool_name");
  if (const json::value *details = request.if_contains("details"))
    key += "\n" + json::serialize(*details);
  return key;
}

// Untrusted text (the model's command, a hook's prompt that quotes it) as one line the terminal
// only prints: controls in caret notation, line breaks as \n. Raw, an escape sequence or a
// line break could paint a harmless-looking command over the real one.
// Bidirectional overrides and zero-width characters (U+200B-U+200F, U+202A-U+202E,
// U+2066-U+2069) would let a command show in another order than it runs: they are named.
std::string one_line(std::string_view text) {
  const std::string safe = terminal_safe(text);
  std::string out;
  for (std::size_t i = 0; i < safe.size(); ++i) {
    const auto byte = [&](std::size_t at) { return static_cast<unsigned char>(safe[at]); };
    if (byte(i) == 0xE2 && i + 2 < safe.size()) {
      const unsigned code = 0x2000 | ((byte(i + 1) & 0x3F) << 6) | (byte(i + 2) & 0x3F);
      if ((code >= 0x200B && code <= 0x200F) || (code >= 0x202A && code <= 0x202E) ||
          (code >= 0x2066 && code <= 0x2069)) {
        out += fmt::format("<U+{:04X}>", code);
        i += 2;
        continue;
      }
    }
    if (safe[i] == '\n') out += "\\n";
    else if (safe[i] == '\t') out += "\\t";
    else out += safe[i];
  }
  return out;
}

// The tool's whole input (hooks-approval sends it as details.input, the orchestrator as
// details.tool_input), never cut: what is approved is what is shown.
std::string argument_preview(const json::object &request) {
  const json::value *details = request.if_contains("details");
  if (!details || !details->is_object()) return {};
  const json::value *input = details->as_object().if_contains("tool_input");
  if (!input) input = details->as_object().if_contains("input");
  if (!input) return {};
  return one_line(input->is_string() ? std::string(input->as_string()) : json::serialize(*input));
}

// The controlling terminal, closed on destruction.
class Tty {
 public:
  Tty() : fd_(::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) {}
  ~Tty() {
    if (fd_ >= 0) ::close(fd_);
  }
  Tty(const Tty &) = delete;
  Tty &operator=(const Tty &) = delete;
  bool ok() const { return fd_ >= 0; }

  void write(std::string_view text) const {
    while (!text.empty()) {
      ssize_t n = ::write(fd_, text.data(), text.size());
      if (n <= 0) return;
      text.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // One line typed by the user; nullopt when `deadline` passes or `cancelled` says so first.
  std::optional<std::string> read_line(Clock::time_point deadline,
                                       const std::function<bool()> &cancelled) const {
    std::string line;
    while (Clock::now() < deadline && !cancelled()) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, kPollSliceMs) <= 0) continue;
      char c;
      if (::read(fd_, &c, 1) != 1) return std::nullopt;
      if (c == '\n' || c == '\r') return line;
      line.push_back(c);
    }
    return std::nullopt;
  }

 private:
  int fd_;
};

class TerminalApprover {
 public:
  explicit TerminalApprover(std::function<bool()> cancelled) : cancelled_(std::move(cancelled)) {}

  json::object answer(const json::object &request) {
    if (!can_ask_on_terminal()) return decision("deny", "no terminal to ask", "no-terminal");
    const std::string tool = string_field(request, "tool_name");
    // "Always" covers exactly the action approved (tool and input), never the whole tool:
    // allowing one bash command must not allow every later one.
    const std::string key = action_key(request);
    if (!tool.empty() && always_allowed(key))
      return decision("allow_always", "allowed always earlier in this session", "user");
    Tty tty;
    if (!tty.ok()) return decision("deny", "no terminal to ask", "no-terminal");
    // One question on the terminal at a time in the whole process: sessions that run side by
    // side (a recipe's parallel items, parallel delegates) each have their approver, and an
    // answer typed for one question must not be read by another's.
    static std::timed_mutex one_question;
    std::unique_lock turn(one_question, std::defer_lock);
    while (!turn.try_lock_for(std::chrono::milliseconds(kPollSliceMs)))
      if (cancelled_()) return decision("deny", "the turn was cancelled", "user");
    return ask(tty, request, tool);
  }

 private:
  json::object ask(const Tty &tty, const json::object &request, const std::string &tool) {
    const std::string fallback = string_field(request, "default", "deny");
    double seconds = 300;
    if (auto *t = request.if_contains("timeout_seconds"); t && t->is_number())
      seconds = t->to_number<double>();
    const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long long>(seconds * 1000));

    tty.write(fmt::format("\n[approval] {}\n",
                          one_line(string_field(request, "prompt", "Allow this action?"))));
    if (!tool.empty()) {
      const std::string preview = argument_preview(request);
      tty.write(fmt::format("  tool: {}\n", one_line(tool)));
      if (!preview.empty()) tty.write(fmt::format("  input: {}\n", preview));
    }
    for (;;) {
      tty.write(fmt::format("  [a]llow once / allow al[w]ays / [d]eny ({:.0f}s, then {}): ",
                            seconds, fallback));
      std::optional<std::string> line = tty.read_line(deadline, cancelled_);
      if (!line) {
        tty.write("\n");
        if (cancelled_()) return decision("deny", "the turn was cancelled", "user");
        return decision(fallback, fmt::format("no answer within {:.0f} seconds", seconds),
                        "timeout");
      }
      auto key = line->find_first_not_of(" \t");
      char c = key == std::string::npos ? '\0' : (*line)[key];
      if (c == 'a' || c == 'A') return decision("allow_once", "allowed by the user", "user");
      if (c == 'w' || c == 'W') {
        if (!tool.empty()) remember_always(action_key(request));
        return decision("allow_always", "allowed always by the user", "user");
      }
      if (c == 'd' || c == 'D') return decision("deny", "denied by the user", "user");
    }
  }

  bool always_allowed(const std::string &tool) {
    std::lock_guard lock(mutex_);
    return always_.contains(tool);
  }
  void remember_always(const std::string &tool) {
    std::lock_guard lock(mutex_);
    always_.insert(tool);
  }

  std::function<bool()> cancelled_;
  std::mutex mutex_;
  std::set<std::string> always_;
};

}  // namespace

bool can_ask_on_terminal() {
  const char *ci = std::getenv("CI");
  return ::isatty(STDIN_FILENO) && ::isatty(STDERR_FILENO) && !(ci && *ci);
}

Coordinator::ApprovalHandler terminal_approval_handler(std::function<bool()> cancelled) {
  auto approver = std::make_shared<TerminalApprover>(std::move(cancelled));
  return [approver](const json::object &request) { return approver->answer(request); };
}

}  // namespace amplifier::host
