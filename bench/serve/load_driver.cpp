#include "load_driver.hpp"

#include "anthropic_scripts.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <thread>
#include <cmath>
#include <optional>

namespace bench_serve {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = net::ip::tcp;
constexpr auto kTuple = net::as_tuple(net::use_awaitable);

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

// Whether session `i` of `n` runs the tool: round(n * fraction) of them, evenly spread.
bool runs_tool(int i, double fraction) {
  return std::floor((i + 1) * fraction) > std::floor(i * fraction);
}

http::request<http::string_body> post(std::string target, std::string body,
                                      const std::string &token) {
  http::request<http::string_body> request{http::verb::post, std::move(target), 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::content_type, "application/json");
  if (!token.empty()) request.set(http::field::authorization, "Bearer " + token);
  request.keep_alive(true);
  request.body() = std::move(body);
  request.prepare_payload();
  return request;
}

// Splits an event stream into events as its bytes arrive.
class SseReader {
 public:
  struct Event {
    std::string_view name;
    std::string_view data;
  };

  template <class OnEvent>
  void feed(std::string_view bytes, OnEvent on_event) {
    pending_.append(bytes);
    std::size_t start = 0;
    for (std::size_t end; (end = pending_.find("\n\n", start)) != std::string::npos;
         start = end + 2)
      if (auto event = parse(std::string_view(pending_).substr(start, end - start)))
        on_event(*event);
    pending_.erase(0, start);
  }

 private:
  static std::optional<Event> parse(std::string_view frame) {
    Event event;
    while (!frame.empty()) {
      const std::size_t eol = std::min(frame.find('\n'), frame.size());
      const std::string_view line = frame.substr(0, eol);
      if (line.starts_with("event: ")) event.name = line.substr(7);
      if (line.starts_with("data: ")) event.data = line.substr(6);
      frame.remove_prefix(std::min(eol + 1, frame.size()));
    }
    if (event.name.empty() && event.data.empty()) return std::nullopt;  // a comment
    return event;
  }

  std::string pending_;
};

// The turn:result's error, empty on success.
std::string turn_error(std::string_view data) {
  json::error_code ec;
  const json::value event = json::parse(data, ec);
  if (ec || !event.is_object()) return "unreadable turn:result";
  const json::value *result = event.as_object().if_contains("data");
  const json::value *status =
      result && result->is_object() ? result->as_object().if_contains("status") : nullptr;
  if (status && status->is_string() && status->as_string() == "success") return {};
  return "turn:result " + json::serialize(result ? *result : event);
}

}  // namespace

struct LoadDriver::Impl {
  explicit Impl(LoadOptions o)
      : options(std::move(o)), server(net::ip::address_v4::loopback(), options.port) {
    for (int t = 0; t < std::max(1, options.client_threads); ++t)
      ios.push_back(std::make_unique<net::io_context>(1));
    const auto n = static_cast<std::size_t>(options.sessions);
    run.sessions.resize(n);
    ids.resize(n);
    buffers.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      run.sessions[i].tool = runs_tool(static_cast<int>(i), options.tool_fraction);
      streams.push_back(std::make_unique<beast::tcp_stream>(io_of(i)));
    }
  }
  // Session i's io_context: everything of one session stays on one thread.
  net::io_context &io_of(std::size_t i) { return *ios[i % ios.size()]; }

  net::awaitable<void> create(std::size_t i);
  net::awaitable<void> turn(std::size_t i, Clock::time_point start_at);
  net::awaitable<void> read_events(std::size_t i, http::response_parser<http::buffer_body> &parser);
  void on_event(std::size_t i, const SseReader::Event &event, Clock::time_point now);
  std::string prompt(std::size_t i) const;
  bool run_io();  // false: the timeout passed first (on any thread)

  const LoadOptions options;
  std::vector<std::unique_ptr<net::io_context>> ios;
  const tcp::endpoint server;
  LoadRun run;
  std::vector<std::string> ids;
  std::vector<std::unique_ptr<beast::tcp_stream>> streams;
  std::vector<beast::flat_buffer> buffers;
  std::atomic<int> streaming{0};
  std::atomic<int> peak_streams{0};
};

net::awaitable<void> LoadDriver::Impl::create(std::size_t i) {
  SessionRun &session = run.sessions[i];
  beast::tcp_stream &stream = *streams[i];
  const auto start = Clock::now();
  stream.expires_after(options.timeout);
  if (auto [ec] = co_await stream.async_connect(server, kTuple); ec) {
    session.error = "connect: " + ec.message();
    co_return;
  }
  auto request = post("/v1/sessions", "{}", options.token);
  if (auto [ec, n] = co_await http::async_write(stream, request, kTuple); ec) {
    session.error = "create: " + ec.message();
    co_return;
  }
  http::response<http::string_body> response;
  if (auto [ec, n] = co_await http::async_read(stream, buffers[i], response, kTuple); ec) {
    session.error = "create: " + ec.message();
    co_return;
  }
  if (response.result_int() != 201) {
    session.error = "create: " + std::to_string(response.result_int()) + " " + response.body();
    co_return;
  }
  ids[i] = json::parse(response.body()).at("id").as_string();
  session.create_ms = ms_between(start, Clock::now());
}

std::string LoadDriver::Impl::prompt(std::size_t i) const {
  const std::string text =
      run.sessions[i].tool ? "run the tool " + options.tool_marker : "stream an answer";
  return json::serialize(json::object{{"prompt", text}});
}

net::awaitable<void> LoadDriver::Impl::turn(std::size_t i, Clock::time_point start_at) {
  SessionRun &session = run.sessions[i];
  if (ids[i].empty()) co_return;  // its creation failed
  beast::tcp_stream &stream = *streams[i];
  net::steady_timer ramp(io_of(i), start_at);
  co_await ramp.async_wait(kTuple);
  auto request = post("/v1/sessions/" + ids[i] + "/messages", prompt(i), options.token);
  stream.expires_after(options.timeout);
  session.posted = Clock::now();
  if (auto [ec, n] = co_await http::async_write(stream, request, kTuple); ec) {
    session.error = "post: " + ec.message();
    co_return;
  }
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(boost::none);
  if (auto [ec, n] = co_await http::async_read_header(stream, buffers[i], parser, kTuple); ec) {
    session.error = "post: " + ec.message();
    co_return;
  }
  if (parser.get().result_int() != 200) {
    session.error = "post: status " + std::to_string(parser.get().result_int());
    co_return;
  }
  const int now_streaming = ++streaming;
  for (int peak = peak_streams.load();
       now_streaming > peak && !peak_streams.compare_exchange_weak(peak, now_streaming);)
    ;
  co_await read_events(i, parser);
  --streaming;
}

net::awaitable<void> LoadDriver::Impl::read_events(
    std::size_t i, http::response_parser<http::buffer_body> &parser) {
  SessionRun &session = run.sessions[i];
  SseReader reader;
  char chunk[16 * 1024];
  while (!parser.is_done()) {
    parser.get().body().data = chunk;
    parser.get().body().size = sizeof chunk;
    auto [ec, n] = co_await http::async_read_some(*streams[i], buffers[i], parser, kTuple);
    if (ec && ec != http::error::need_buffer) {
      session.error = "stream: " + ec.message();
      co_return;
    }
    const auto now = Clock::now();
    const std::size_t got = sizeof chunk - parser.get().body().size;
    reader.feed(std::string_view(chunk, got), [&](const auto &event) { on_event(i, event, now); });
  }
  if (session.finished == Clock::time_point{})
    session.error = "the stream ended before turn:result";
}

void LoadDriver::Impl::on_event(std::size_t i, const SseReader::Event &event,
                                Clock::time_point now) {
  SessionRun &session = run.sessions[i];
  if (session.first_event == Clock::time_point{}) session.first_event = now;
  if (event.name == "content_block:delta") {
    if (auto sent = amp_test::send_time_in(event.data))
      session.deltas.push_back({ns_of(now), ns_of(now) - *sent});
  } else if (event.name == "tool:pre") {
    session.tool_started = now;
  } else if (event.name == "tool:post") {
    session.tool_ended = now;
  } else if (event.name == "turn:result") {
    session.finished = now;
    session.error = turn_error(event.data);
  }
}

bool LoadDriver::Impl::run_io() {
  // Each io_context on a thread of its own, the first on this one; each stops at the timeout.
  std::atomic<bool> in_time{true};
  auto run_one = [this, &in_time](net::io_context &io) {
    io.restart();
    io.run_for(options.timeout);
    if (io.stopped()) return;
    io.stop();
    in_time = false;
  };
  std::vector<std::thread> others;
  for (std::size_t t = 1; t < ios.size(); ++t)
    others.emplace_back([&run_one, io = ios[t].get()] { run_one(*io); });
  run_one(*ios.front());
  for (auto &thread : others) thread.join();
  return in_time;
}

LoadDriver::LoadDriver(LoadOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
LoadDriver::~LoadDriver() = default;

void LoadDriver::create_sessions() {
  const auto start = Clock::now();
  for (std::size_t i = 0; i < impl_->streams.size(); ++i)
    net::co_spawn(impl_->io_of(i), impl_->create(i), net::detached);
  if (!impl_->run_io())
    for (std::size_t i = 0; i < impl_->ids.size(); ++i)
      if (impl_->ids[i].empty() && impl_->run.sessions[i].error.empty())
        impl_->run.sessions[i].error = "its creation did not end within the timeout";
  impl_->run.create_wall_ms = ms_between(start, Clock::now());
}

void LoadDriver::run_turns() {
  const auto start = Clock::now();
  const auto n = static_cast<long>(impl_->streams.size());
  for (long i = 0; i < n; ++i)
    net::co_spawn(impl_->io_of(static_cast<std::size_t>(i)),
                  impl_->turn(static_cast<std::size_t>(i), start + impl_->options.ramp * i / n),
                  net::detached);
  if (!impl_->run_io())
    for (auto &session : impl_->run.sessions)
      if (session.error.empty() && session.finished == Clock::time_point{})
        session.error = "its turn did not end within the timeout";
  Clock::time_point last = start;
  for (const auto &session : impl_->run.sessions) last = std::max(last, session.finished);
  impl_->run.turns_wall_ms = ms_between(start, last);
  impl_->run.peak_streams = impl_->peak_streams.load();
}

const LoadRun &LoadDriver::result() const { return impl_->run; }

}  // namespace bench_serve
