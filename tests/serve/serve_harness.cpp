#include "serve_harness.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace amp_serve_test {
namespace {

const std::string kAmplifier = AMP_BINARY_DIR "/host/amplifier";
constexpr auto kIoLimit = std::chrono::seconds(30);

void send_all(int fd, const std::string &data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the server may close early (413): what it answered is still read
    sent += static_cast<std::size_t>(n);
  }
}

// Appends what arrives within `limit`; false at end of stream or timeout.
bool receive_some(int fd, std::string &into, std::chrono::milliseconds limit) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0) return false;
  char buffer[16384];
  ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
  if (n <= 0) return false;
  into.append(buffer, static_cast<std::size_t>(n));
  return true;
}

// The tokens of the servers this process started, by port: request() sends a server's own
// unless the caller passes an Authorization header or kNoToken.
std::mutex tokens_mutex;
std::map<unsigned short, std::string> &tokens() {
  static std::map<unsigned short, std::string> by_port;
  return by_port;
}

std::optional<std::string> token_for(unsigned short port) {
  std::lock_guard lock(tokens_mutex);
  const auto it = tokens().find(port);
  if (it == tokens().end()) return std::nullopt;
  return it->second;
}

bool has_header(const std::vector<std::string> &headers, std::string_view name) {
  return std::any_of(headers.begin(), headers.end(), [&](const std::string &h) {
    if (h.size() <= name.size() || h[name.size()] != ':') return false;
    return std::equal(name.begin(), name.end(), h.begin(), [](char a, char b) {
      return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
  });
}

// The request as a well-behaved API client sends it: Host 127.0.0.1, JSON on POST and DELETE,
// the server's token. Headers the caller gives replace those defaults.
std::string request_text(unsigned short port, const std::string &method, const std::string &target,
                         const std::string &body, const std::vector<std::string> &headers) {
  std::string text = method + " " + target + " HTTP/1.1\r\nConnection: close\r\n";
  if (!has_header(headers, "Host")) text += "Host: 127.0.0.1\r\n";
  for (const auto &h : headers) text += h + "\r\n";
  const bool no_token = std::find(headers.begin(), headers.end(), kNoToken) != headers.end();
  if (!no_token && !has_header(headers, "Authorization"))
    if (const auto token = token_for(port)) text += "Authorization: Bearer " + *token + "\r\n";
  if ((method == "POST" || method == "DELETE") && !has_header(headers, "Content-Type"))
    text += "Content-Type: application/json\r\n";
  if (!body.empty() || method == "POST" || method == "DELETE")
    text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return text + "\r\n" + body;
}

// A chunked body decoded, its framing checked: each chunk's data ends in CRLF and the last
// chunk is there. Throws std::runtime_error naming what is wrong.
std::string dechunk(const std::string &body) {
  std::string out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t eol = body.find("\r\n", at);
    if (eol == std::string::npos) throw std::runtime_error("chunked body: no last chunk");
    std::size_t digits = 0;
    const std::size_t size = std::stoul(body.substr(at, eol - at), &digits, 16);
    if (digits != eol - at)
      throw std::runtime_error("chunked body: bad size line at byte " + std::to_string(at));
    if (size == 0) return out;
    if (body.compare(eol + 2 + size, 2, "\r\n") != 0)
      throw std::runtime_error("chunked body: a chunk's data does not end in CRLF at byte " +
                               std::to_string(eol + 2 + size));
    out.append(body, eol + 2, size);
    at = eol + 2 + size + 2;
  }
}

}  // namespace

void use_token_of(unsigned short port, unsigned short server_port) {
  std::lock_guard lock(tokens_mutex);
  const auto it = tokens().find(server_port);
  if (it != tokens().end()) tokens()[port] = it->second;
}

Reply parse_reply(const std::string &raw) {
  Reply reply;
  std::size_t head_end = raw.find("\r\n\r\n");
  if (raw.size() < 12 || head_end == std::string::npos) return reply;
  reply.status = std::stoi(raw.substr(9, 3));
  std::size_t at = raw.find("\r\n") + 2;
  while (at < head_end) {
    std::size_t eol = raw.find("\r\n", at);
    std::string line = raw.substr(at, eol - at);
    std::size_t colon = line.find(':');
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    reply.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
    at = eol + 2;
  }
  reply.body = raw.substr(head_end + 4);
  if (reply.headers["transfer-encoding"] == "chunked") reply.body = dechunk(reply.body);
  return reply;
}

int connect_loopback(unsigned short port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot connect to the server");
  }
  return fd;
}

Scratch::Scratch() : amp_test::TempDir("amp-serve-test") { fs::create_directories(dir / "home"); }

fs::path Scratch::write(const std::string &name, const std::string &text) const {
  fs::path p = dir / name;
  amp_test::write_file(p, text);
  return p;
}

ServeProcess::ServeProcess(const Scratch &scratch, std::vector<std::string> args,
                           std::string listen, ServeSpawn spawn) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const std::string binary = spawn.binary.empty() ? kAmplifier : spawn.binary;
  std::vector<std::string> argv{binary, "serve", "--listen", listen};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(pipe_fds[1], STDERR_FILENO);
    if (spawn.open_files) {
      const rlimit limit{spawn.open_files->soft, spawn.open_files->hard};
      if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(126);
    }
    ::chdir(scratch.dir.c_str());
    const std::string home = (scratch.dir / "home").string();
    ::setenv("HOME", home.c_str(), 1);
    ::setenv("XDG_CONFIG_HOME", (home + "/config").c_str(), 1);
    ::setenv("XDG_DATA_HOME", (home + "/data").c_str(), 1);
    ::setenv("AMPLIFIER_HOME", (scratch.dir / "amphome").c_str(), 1);
    for (const char *name : {"AMPLIFIER_MODULE_PATH", "ANTHROPIC_API_KEY", "OPENAI_API_KEY",
                             "AZURE_OPENAI_ENDPOINT", "GEMINI_API_KEY", "GOOGLE_API_KEY"})
      ::unsetenv(name);
    std::vector<char *> c_argv;
    for (auto &a : argv) c_argv.push_back(a.data());
    c_argv.push_back(nullptr);
    ::execv(binary.c_str(), c_argv.data());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  err_fd_ = pipe_fds[0];
  reader_ = std::thread([this] {
    char buffer[4096];
    for (ssize_t n; (n = ::read(err_fd_, buffer, sizeof buffer)) > 0;) {
      std::lock_guard lock(mutex_);
      err_.append(buffer, static_cast<std::size_t>(n));
    }
  });
  const std::string marker = "listening on http://";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string text = err();
    if (auto at = text.find(marker);
        at != std::string::npos && text.find('\n', at) != std::string::npos) {
      std::string address = text.substr(at + marker.size());
      address = address.substr(0, address.find_first_of(" \n"));
      port_ = static_cast<unsigned short>(std::stoi(address.substr(address.rfind(':') + 1)));
      // The token serve made (or found) in the scratch HOME, unless it runs with --no-auth.
      const fs::path token_file = scratch.dir / "home/config/amplifier/serve-token";
      if (std::find(args.begin(), args.end(), "--no-auth") == args.end() && fs::exists(token_file)) {
        std::string token = read_text(token_file);
        token.erase(token.find_last_not_of("\n") + 1);
        std::lock_guard lock(tokens_mutex);
        tokens()[port_] = token;
      }
      return;
    }
    int status;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string why = err();
  end();  // no destructor runs after a constructor throws: the reader thread must be joined here
  throw std::runtime_error("amplifier serve (" + argv.front() + ") did not start: " + why);
}

ServeProcess::~ServeProcess() { end(); }

void ServeProcess::end() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  if (reader_.joinable()) reader_.join();
  if (err_fd_ >= 0) ::close(err_fd_);
  err_fd_ = -1;
}

std::string ServeProcess::err() const {
  std::lock_guard lock(mutex_);
  return err_;
}

void ServeProcess::signal(int signal) {
  if (pid_ > 0) ::kill(pid_, signal);
}

int ServeProcess::wait(std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (pid_ > 0 && std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      if (reader_.joinable()) reader_.join();
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

Reply request(unsigned short port, const std::string &method, const std::string &target,
              const std::string &body, const std::vector<std::string> &headers) {
  StreamingRequest stream(port, method, target, body, headers);
  stream.read_to_end();
  return parse_reply(stream.raw());
}

StreamingRequest::StreamingRequest(unsigned short port, const std::string &method,
                                   const std::string &target, const std::string &body,
                                   const std::vector<std::string> &headers)
    : fd_(connect_loopback(port)) {
  send_all(fd_, request_text(port, method, target, body, headers));
}

StreamingRequest::~StreamingRequest() { close(); }

void StreamingRequest::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool StreamingRequest::read_until(const std::string &needle) {
  const auto deadline = std::chrono::steady_clock::now() + kIoLimit;
  while (raw_.find(needle) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (!receive_some(fd_, raw_, std::chrono::milliseconds(200)) &&
        ::recv(fd_, nullptr, 0, MSG_DONTWAIT | MSG_PEEK) == 0)
      return raw_.find(needle) != std::string::npos;
  }
  return true;
}

void StreamingRequest::read_to_end() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    char buffer[16384];
    ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    raw_.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string read_text(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> event_names(const std::string &sse) {
  std::vector<std::string> names;
  for (std::size_t at = 0; (at = sse.find("event: ", at)) != std::string::npos;) {
    if (at > 0 && sse[at - 1] != '\n') {
      at += 7;
      continue;
    }
    std::size_t eol = sse.find('\n', at);
    names.push_back(sse.substr(at + 7, eol - at - 7));
    at = eol;
  }
  return names;
}

std::vector<std::string> event_data(const std::string &sse, const std::string &name) {
  std::vector<std::string> data;
  const std::string head = "event: " + name + "\ndata: ";
  for (std::size_t at = 0; (at = sse.find(head, at)) != std::string::npos;) {
    const bool whole_line = at == 0 || sse[at - 1] == '\n';
    at += head.size();
    if (whole_line) data.push_back(sse.substr(at, sse.find('\n', at) - at));
  }
  return data;
}

std::string last_data(const std::string &sse, const std::string &name) {
  auto data = event_data(sse, name);
  return data.empty() ? std::string() : data.back();
}

std::string first_approval_id(const std::string &sse) {
  const std::string key = R"("approval_id":")";
  const auto at = sse.find(key);
  if (at == std::string::npos) return {};
  const auto start = at + key.size();
  return sse.substr(start, sse.find('"', start) - start);
}

}  // namespace amp_serve_test
