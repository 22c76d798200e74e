#include "load_balancer.hpp"

#include <arpa/inet.h>
#include <csignal>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace amp_serve_test {
namespace fs = std::filesystem;
namespace {

sockaddr_in loopback(unsigned short port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

std::string config_text(const fs::path &dir, unsigned short listen,
                        const std::vector<unsigned short> &servers) {
  const std::string d = dir.string();
  std::ostringstream c;
  c << "daemon off;\nmaster_process off;\nworker_processes 1;\n"
    << "pid " << d << "/nginx.pid;\nerror_log " << d << "/nginx-error.log warn;\n"
    << "events { worker_connections 4096; }\n"
    << "http {\n  access_log off;\n";
  for (const char *kind : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    c << "  " << kind << "_temp_path " << d << "/nginx-" << kind << ";\n";
  c << "  upstream amplifier {\n";
  // max_fails=0: a server restarting is tried again at once, not left out for 10 s.
  for (auto port : servers) c << "    server 127.0.0.1:" << port << " max_fails=0;\n";
  c << "    keepalive 32;\n  }\n"
    << "  server {\n    listen 127.0.0.1:" << listen << ";\n"
    << "    location / {\n      proxy_pass http://amplifier;\n"
    << "      proxy_http_version 1.1;\n      proxy_set_header Host $http_host;\n"
    << "      proxy_set_header Connection \"\";\n      proxy_buffering off;\n"
    << "      proxy_read_timeout 300s;\n"
    // Connection refused, or 503 from a server that stopped accepting: no turn started there,
    // so the request is safe to send to another, POSTs included.
    << "      proxy_next_upstream error timeout http_503 non_idempotent;\n"
    << "    }\n  }\n}\n";
  return c.str();
}

}  // namespace

unsigned short free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = loopback(0);
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) != 0)
    throw std::runtime_error("cannot find a free loopback port");
  ::close(fd);
  return ntohs(address.sin_port);
}

bool wait_accepting(unsigned short port, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address = loopback(port);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
    ::close(fd);
    if (ok) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

NginxBalancer::NginxBalancer(const fs::path &dir, unsigned short listen,
                             const std::vector<unsigned short> &servers) {
  if (!fs::exists(kNginx))
    throw std::runtime_error(std::string(kNginx) +
                             " is missing: scripts/install-deps.sh installs nginx-light");
  const fs::path config = dir / "nginx.conf";
  const fs::path output = dir / "nginx.out";
  std::ofstream(config) << config_text(dir, listen, servers);
  pid_ = ::fork();
  if (pid_ == 0) {
    const int out = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execl(kNginx, kNginx, "-c", config.c_str(), "-p", dir.c_str(), static_cast<char *>(nullptr));
    ::_exit(127);
  }
  if (pid_ < 0 || !wait_accepting(listen)) {
    std::ifstream in(output);
    std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    stop();
    throw std::runtime_error("nginx did not start: " + said);
  }
}

NginxBalancer::~NginxBalancer() { stop(); }

void NginxBalancer::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace amp_serve_test
