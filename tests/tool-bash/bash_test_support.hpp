// Helpers for the tool-bash suites: a workspace and plan, running the bash tool through a
// Session, reading /proc independently of the module's own code, and named pipes to learn that
// a command reached a point without sleeping.
#pragma once
#include "module_test_support.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <regex>

namespace bashtest {

using namespace modtest;

struct BashWorkspace {
  TempDir dir;
  fs::path root = dir / "root";
  fs::path outside = dir / "outside";

  BashWorkspace() {
    fs::create_directories(root / "sub");
    fs::create_directories(outside);
  }

  std::string plan(json::object config = {}) const {
    config["working_dir"] = root.string();
    if (!config.contains("kill_grace_seconds")) config["kill_grace_seconds"] = 0.5;
    return plan_with("tools:\n  - module: tool-bash\n    config: " + yaml_json(config) + "\n");
  }
};

using BashOutcome = ToolOutcome;

// A failed result carries its output as the error message too.
inline BashOutcome finish(const std::shared_ptr<CallRecorder> &call) {
  BashOutcome outcome = tool_outcome(call, 60s);
  if (outcome.status == AMP_OK && !outcome.success)
    CHECK(text_of(outcome.result.at("error").at("message")) == outcome.output);
  return outcome;
}

inline BashOutcome bash(amplifier::Session &session, json::object input) {
  return finish(run_tool(session, "bash", json::serialize(input)));
}

inline BashOutcome bash(amplifier::Session &session, std::string command) {
  return bash(session, json::object{{"command", command}});
}

// The state and process group of each process in /proc (read here independently of the
// module's own code).
struct ProcessInfo {
  long pid = 0, parent = 0, group = 0;
  char state = '?';
};

inline std::vector<ProcessInfo> processes() {
  std::vector<ProcessInfo> list;
  DIR *proc = ::opendir("/proc");
  REQUIRE(proc != nullptr);
  while (const dirent *entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + entry->d_name + "/stat");
    std::string text;
    if (!std::getline(in, text)) continue;
    const auto close = text.rfind(')');
    ProcessInfo info;
    info.pid = std::atol(entry->d_name);
    if (std::sscanf(text.c_str() + close + 1, " %c %ld %ld", &info.state, &info.parent,
                    &info.group) == 3)
      list.push_back(info);
  }
  ::closedir(proc);
  return list;
}

// Processes of `group` that are still running (zombies have ended; only their parent's reaping
// is pending, and orphans belong to init).
inline std::size_t live_members(long group) {
  std::size_t count = 0;
  for (const auto &p : processes())
    if (p.group == group && p.state != 'Z' && p.state != 'X') ++count;
  return count;
}

inline std::size_t zombie_children_of_this_process() {
  std::size_t count = 0;
  for (const auto &p : processes())
    if (p.parent == ::getpid() && p.state == 'Z') ++count;
  return count;
}

// The process group the command printed as "pgid=N".
inline long printed_group(const std::string &output) {
  std::smatch match;
  REQUIRE_MESSAGE(std::regex_search(output, match, std::regex("pgid=(\\d+)")), output);
  return std::stol(match[1]);
}

inline constexpr const char *kPrintGroup = R"sh(echo "pgid=$(cut -d' ' -f5 /proc/$$/stat)")sh";

// A named pipe the test reads a line from (with a timeout), to learn that a command reached a
// given point without sleeping.
class Fifo {
 public:
  explicit Fifo(fs::path path) : path_(std::move(path)) {
    REQUIRE(::mkfifo(path_.c_str(), 0600) == 0);
  }
  const fs::path &path() const { return path_; }

  std::string read_line(std::chrono::milliseconds timeout = 20s) const {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK);
    REQUIRE(fd >= 0);
    std::string text;
    pollfd p{fd, POLLIN, 0};
    while (text.find('\n') == std::string::npos &&
           ::poll(&p, 1, static_cast<int>(timeout.count())) > 0) {
      char buffer[256];
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    REQUIRE_MESSAGE(text.find('\n') != std::string::npos, "nothing arrived on " << path_);
    return text.substr(0, text.find('\n'));
  }

  void write_line(const std::string &line) const {
    std::ofstream out(path_);  // blocks until the command opens its end
    out << line << "\n";
  }

 private:
  fs::path path_;
};

}  // namespace bashtest
