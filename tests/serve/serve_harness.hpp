// Runs the real `amplifier serve` (port 0) in a scratch directory and talks HTTP to it.
#pragma once
#include "temp_files.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace amp_serve_test {

// A plan whose mock answers at once, "hello from the mock".
inline constexpr const char *kQuickPlan =
    R"(session: {orchestrator: loop-streaming, context: context-simple}
providers:
  - module: provider-mock
    config:
      responses:
        - text: "hello from the mock"
)";

namespace fs = std::filesystem;

// A scratch directory with its own HOME and XDG folders (so a token file lands there).
struct Scratch : amp_test::TempDir {
  const fs::path dir = path();
  Scratch();
  fs::path write(const std::string &name, const std::string &text) const;
};

// RLIMIT_NOFILE for the child, set before it starts.
struct OpenFileLimit {
  unsigned long soft = 0;
  unsigned long hard = 0;
};

// How the child starts, beyond its arguments.
struct ServeSpawn {
  std::optional<OpenFileLimit> open_files;
  std::string binary;  // empty: this tree's amplifier (a benchmark may compare another build's)
};

// `amplifier serve ARGS --listen ...` as a child process. Its stderr is collected; the
// constructor returns once it printed its address.
class ServeProcess {
 public:
  ServeProcess(const Scratch &scratch, std::vector<std::string> args,
               std::string listen = "127.0.0.1:0", ServeSpawn spawn = {});
  ~ServeProcess();  // SIGKILL if still running
  ServeProcess(const ServeProcess &) = delete;
  ServeProcess &operator=(const ServeProcess &) = delete;

  unsigned short port() const { return port_; }
  int pid() const { return pid_; }  // -1 once it ended
  std::string err() const;
  void signal(int signal);
  // Waits for the process to end: its exit code (-1 on timeout or a signal).
  int wait(std::chrono::seconds limit = std::chrono::seconds(60));

 private:
  void end();  // SIGKILL if still running; joins the stderr reader

  int pid_ = -1;
  int err_fd_ = -1;
  unsigned short port_ = 0;
  mutable std::mutex mutex_;
  std::string err_;
  std::thread reader_;
};

struct Reply {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// An HTTP response as read from the socket; a chunked body decoded (throws when its framing
// is broken).
Reply parse_reply(const std::string &raw);

// A TCP connection to 127.0.0.1:port (its fd); throws std::runtime_error when refused.
int connect_loopback(unsigned short port);

// Requests to `port` (a load balancer in front of servers) carry the token of the server on
// `server_port` (servers started in one Scratch share theirs).
void use_token_of(unsigned short port, unsigned short server_port);

// A header that makes request() send no token (it is sent too, and means nothing to serve).
inline const std::string kNoToken = "X-Amp-Test: no-token";

// One request on a fresh connection, read to the end (a stream until its last chunk). Sends
// Host: 127.0.0.1, Content-Type: application/json on POST and DELETE, and the token of the
// server on `port` (read from its scratch HOME when it started), unless `headers` has its own
// Host, Content-Type or Authorization, or kNoToken.
Reply request(unsigned short port, const std::string &method, const std::string &target,
              const std::string &body = "", const std::vector<std::string> &headers = {});

// A request whose response is read a piece at a time (an event stream, mid-turn).
class StreamingRequest {
 public:
  StreamingRequest(unsigned short port, const std::string &method, const std::string &target,
                   const std::string &body, const std::vector<std::string> &headers = {});
  ~StreamingRequest();
  // Reads until `needle` is in what came so far (or the connection ends / 30 s pass).
  bool read_until(const std::string &needle);
  void read_to_end();
  const std::string &raw() const { return raw_; }
  void close();

 private:
  int fd_ = -1;
  std::string raw_;
};

std::string read_text(const fs::path &file);

// The `event:` names of an SSE text, in order.
std::vector<std::string> event_names(const std::string &sse);
// The JSON of the `data:` line of each event named `name`, in order.
std::vector<std::string> event_data(const std::string &sse, const std::string &name);
// The JSON of the last `data:` line of the event named `name`.
std::string last_data(const std::string &sse, const std::string &name);
// The approval_id of the first approval request in an SSE text ("" when there is none).
std::string first_approval_id(const std::string &sse);

}  // namespace amp_serve_test
