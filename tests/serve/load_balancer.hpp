// Debian's nginx as a round-robin load balancer in front of several `amplifier serve`
// processes on loopback, for the tests and the benchmark of "many servers, one service"
// (tests/context-postgres/test_postgres_lb.cpp, bench/serve/bench_serve_lb.cpp). It runs in
// the foreground with a config of its own in a scratch folder, and stops with the object.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <sys/types.h>

namespace amp_serve_test {

inline constexpr const char *kNginx = "/usr/sbin/nginx";

// A loopback port nothing listens on now (bound and released).
unsigned short free_loopback_port();
// Whether `port` on 127.0.0.1 accepts a connection within `seconds`.
bool wait_accepting(unsigned short port, int seconds = 10);

class NginxBalancer {
 public:
  // Listens on 127.0.0.1:`listen` and spreads requests over `servers` (127.0.0.1 ports) in
  // turn. SSE goes through unbuffered. A request a server refuses (connection refused, or 503
  // from a server shutting down: no turn started) goes to the next one, POSTs included.
  // Throws std::runtime_error when nginx is missing or does not start (with its output).
  NginxBalancer(const std::filesystem::path &dir, unsigned short listen,
                const std::vector<unsigned short> &servers);
  ~NginxBalancer();
  NginxBalancer(const NginxBalancer &) = delete;
  NginxBalancer &operator=(const NginxBalancer &) = delete;

 private:
  void stop();
  pid_t pid_ = -1;
};

}  // namespace amp_serve_test
