// The client side of bench_serve: N sessions against one `amplifier serve`, each on a
// connection of its own, carried by a few io threads (coroutines, no thread per session;
// session i on thread i % client_threads).
// Each session is created, then (at its place in the ramp) posts one prompt and reads the
// event stream to its turn:result, timing what arrives.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bench_serve {

using Clock = std::chrono::steady_clock;

// A steady_clock time as nanoseconds since its epoch (how the vendor stamps its sends).
inline std::int64_t ns_of(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

struct LoadOptions {
  unsigned short port = 0;
  int sessions = 1000;
  double tool_fraction = 0.1;           // sessions whose prompt asks for the tool (every k-th)
  std::string tool_marker;              // put in those sessions' prompts
  std::chrono::milliseconds ramp{500};  // the turns start evenly spread over this
  std::chrono::seconds timeout{180};    // for the whole load
  // One io thread falls behind reading 1,000 streams on a machine serve saturates: its own
  // backlog would then be counted in every latency.
  int client_threads = 2;
  std::string token;  // serve's bearer token; empty: none is sent (a build from before tokens)
};

struct DeltaSample {
  std::int64_t arrived_ns = 0;  // steady_clock, as the vendor's send stamps
  std::int64_t latency_ns = 0;  // vendor send -> the driver read it from serve's stream
};

struct SessionRun {
  bool tool = false;
  std::string error;  // empty: the turn ended with status success
  double create_ms = 0;
  Clock::time_point posted{};                      // the prompt's request written
  Clock::time_point first_event{};                 // the first SSE event read
  Clock::time_point finished{};                    // turn:result read
  Clock::time_point tool_started{}, tool_ended{};  // tool:pre / tool:post read
  std::vector<DeltaSample> deltas;
};

struct LoadRun {
  std::vector<SessionRun> sessions;
  double create_wall_ms = 0;  // every session created
  double turns_wall_ms = 0;   // first prompt posted -> last turn:result
  int peak_streams = 0;       // turns streaming at once, as the driver saw them
};

// Drives the sessions: create_sessions() then run_turns(), each returning once its phase ended
// (or the timeout passed). A session keeps its connection from one phase to the next.
class LoadDriver {
 public:
  explicit LoadDriver(LoadOptions options);
  ~LoadDriver();
  LoadDriver(const LoadDriver &) = delete;
  LoadDriver &operator=(const LoadDriver &) = delete;

  void create_sessions();
  void run_turns();
  const LoadRun &result() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bench_serve
