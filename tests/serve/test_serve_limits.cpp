// amplifier serve and the limit on open descriptors: it raises its soft limit to the hard one
// at start (a thousand sessions need several thousand), and when it runs out anyway it keeps
// the connections it has, waits without spinning, and accepts again once some close.
#include "serve_harness.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace amp_serve_test;

namespace {

// "Max open files" of /proc/<pid>/limits: {soft, hard}.
std::pair<unsigned long, unsigned long> open_file_limits(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Max open files", 0) != 0) continue;
    std::istringstream fields(line.substr(std::string("Max open files").size()));
    unsigned long soft = 0, hard = 0;
    fields >> soft >> hard;
    return {soft, hard};
  }
  return {0, 0};
}

// utime + stime of `pid`, in clock ticks.
long cpu_ticks(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

// A connection that sends nothing: it holds one of the server's descriptors once accepted.
int idle_connection(unsigned short port) { return connect_loopback(port); }

// Whether serve's stderr shows `text` within 10 s (a separate thread collects it).
bool said(const ServeProcess &serve, const std::string &text) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (serve.err().find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

rlim_t hard_open_files() {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  return limit.rlim_max;
}

}  // namespace

TEST_CASE("serve raises its soft limit of open files to the hard limit") {
  Scratch s;
  const unsigned long hard = std::min<rlim_t>(hard_open_files(), 4096);
  const unsigned long soft = std::min<unsigned long>(256, hard);
  ServeProcess serve(s, {"--plan", s.write("quick.yaml", kQuickPlan).string()}, "127.0.0.1:0",
                     ServeSpawn{OpenFileLimit{soft, hard}});
  CHECK(open_file_limits(serve.pid()) == std::pair{hard, hard});
}

TEST_CASE("out of descriptors, serve waits without spinning and accepts again once some close") {
#ifdef AMP_SANITIZER_BUILD
  // The sanitizers' own checks need descriptors (UBSan tests whether memory is readable through
  // a pipe): in a process out of them they report every checked call as invalid. The behaviour
  // is checked in the normal build only.
  MESSAGE("descriptor exhaustion is checked in the normal build only");
  return;
#endif
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("quick.yaml", kQuickPlan).string()}, "127.0.0.1:0",
                     ServeSpawn{OpenFileLimit{64, 64}});
  // More than 64 descriptors' worth: the rest wait in the listen queue.
  std::vector<int> held;
  for (int i = 0; i < 100; ++i) held.push_back(idle_connection(serve.port()));
  INFO("serve's stderr: " << serve.err());
  REQUIRE(said(serve, "cannot accept connections"));

  // An acceptor retrying at once would keep a core busy all this second.
  const long before = cpu_ticks(serve.pid());
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const long spent = cpu_ticks(serve.pid()) - before;
  CHECK(spent < ::sysconf(_SC_CLK_TCK) / 4);

  for (int fd : held) ::close(fd);
  CHECK(request(serve.port(), "GET", "/healthz").status == 200);
  CHECK(said(serve, "accepting connections again"));
}
