// Shared helpers for the transport tests: an io thread with a client, fixture loading, and
// waiting on futures with a generous bound (a hang fails the test instead of blocking ctest).
#pragma once

#include "amplifier/transport/transport.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace amplifier::transport::testing {

inline constexpr std::chrono::seconds kHangGuard{60};

std::string read_file(const std::filesystem::path &path);
std::filesystem::path vendor_fixture_dir();
// A recorded vendor file's text (tests/fixtures/vendor/FILE).
inline std::string fixture(const std::string &file) { return read_file(vendor_fixture_dir() / file); }
// A GET of `url`, nothing else set.
inline HttpRequest get(std::string url) {
  HttpRequest request;
  request.method = "GET";
  request.url = std::move(url);
  return request;
}
std::vector<std::filesystem::path> vendor_fixtures(std::string_view extension);

// Options for tests: no proxy from the environment, short timeouts that still never fire on a
// healthy loopback exchange.
HttpClientOptions loopback_options();

// An io_context on its own thread with an HttpClient on it. Destroying it shuts the client
// down and stops the thread.
class ClientThread {
 public:
  explicit ClientThread(HttpClientOptions options = loopback_options());
  ~ClientThread();

  HttpClient &client() { return *client_; }
  std::thread::id thread_id() const { return thread_.get_id(); }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::unique_ptr<HttpClient> client_;
  std::thread thread_;
};

template <class T>
T wait_for(std::future<T> &future, std::chrono::seconds bound = kHangGuard) {
  REQUIRE_MESSAGE(future.wait_for(bound) == std::future_status::ready, "operation hung");
  return future.get();
}

// What a raw HttpClient request produced.
struct RawResponse {
  std::optional<KernelError> failure;
  ResponseHead head;
  std::string body;
  std::size_t body_callbacks = 0;
};
RawResponse fetch(HttpClient &client, HttpRequest request);

// What a call produced, with every event it delivered.
struct CallRecord {
  CallResult result;
  std::vector<std::pair<std::string, std::string>> events;  // (type, data)
  std::vector<std::string> lines;
  std::vector<int> retry_attempts;
  std::vector<std::chrono::milliseconds> retry_delays;
};

// Runs a call to completion. `mark_delivered_after` > 0 marks content delivered once that many
// events/lines have arrived (0: never).
CallRecord run_call(HttpClient &client, CallSpec spec, int mark_delivered_after = 0);

// A spec for `url` with fast retries, so retry tests take milliseconds.
CallSpec fast_retry_spec(std::string url, BodyFormat format = BodyFormat::sse);

// A temporary file removed on destruction.
class TempFile {
 public:
  explicit TempFile(const std::string &contents);
  ~TempFile();
  const std::string &path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace amplifier::transport::testing
