#include "test_support.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace amplifier::transport::testing {

std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::filesystem::path vendor_fixture_dir() {
  return std::filesystem::path(AMP_VENDOR_FIXTURE_DIR);
}

std::vector<std::filesystem::path> vendor_fixtures(std::string_view extension) {
  std::vector<std::filesystem::path> paths;
  for (const auto &entry : std::filesystem::directory_iterator(vendor_fixture_dir()))
    if (entry.path().extension() == extension) paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  return paths;
}

HttpClientOptions loopback_options() {
  HttpClientOptions options;
  options.proxy = ProxySettings{};  // tests never go through the machine's proxy
  options.timeouts.connect = std::chrono::seconds(10);
  options.timeouts.read = std::chrono::seconds(30);
  options.timeouts.stream_idle = std::chrono::seconds(30);
  return options;
}

ClientThread::ClientThread(HttpClientOptions options)
    : work_(io_.get_executor()),
      client_(std::make_unique<HttpClient>(io_, std::move(options))),
      thread_([this] { io_.run(); }) {}

ClientThread::~ClientThread() {
  client_.reset();
  work_.reset();
  io_.stop();
  thread_.join();
}

RawResponse fetch(HttpClient &client, HttpRequest request) {
  auto response = std::make_shared<RawResponse>();
  auto done = std::make_shared<std::promise<void>>();  // outlives a hung wait
  auto finished = done->get_future();
  ResponseHandlers handlers;
  handlers.on_head = [response](const ResponseHead &head) { response->head = head; };
  handlers.on_body = [response](std::string_view bytes) {
    response->body.append(bytes);
    ++response->body_callbacks;
  };
  handlers.on_complete = [response, done](std::optional<KernelError> failure) {
    response->failure = std::move(failure);
    done->set_value();
  };
  client.start(std::move(request), std::move(handlers));
  wait_for(finished);
  return *response;
}

CallRecord run_call(HttpClient &client, CallSpec spec, int mark_delivered_after) {
  auto record = std::make_shared<CallRecord>();
  auto done = std::make_shared<std::promise<void>>();
  auto finished = done->get_future();
  auto count = std::make_shared<int>(0);
  auto maybe_mark = [count, mark_delivered_after](CallControl &control) {
    if (mark_delivered_after > 0 && ++*count >= mark_delivered_after) control.mark_content_delivered();
  };
  CallHandlers handlers;
  handlers.on_event = [record, maybe_mark](const SseEvent &event, CallControl &control) {
    record->events.emplace_back(std::string(event.type), std::string(event.data));
    maybe_mark(control);
  };
  handlers.on_line = [record, maybe_mark](std::string_view line, CallControl &control) {
    record->lines.emplace_back(line);
    maybe_mark(control);
  };
  handlers.on_retry = [record](const RetryNotice &notice) {
    record->retry_attempts.push_back(notice.attempt);
    record->retry_delays.push_back(notice.delay);
  };
  handlers.on_complete = [record, done](CallResult result) {
    record->result = std::move(result);
    done->set_value();
  };
  start_call(client, std::move(spec), std::move(handlers));
  wait_for(finished);
  return *record;
}

CallSpec fast_retry_spec(std::string url, BodyFormat format) {
  CallSpec spec;
  spec.request.method = "POST";
  spec.request.url = std::move(url);
  spec.request.headers.add("content-type", "application/json");
  spec.request.body = R"({"model":"test"})";
  spec.format = format;
  spec.retry.max_retries = 2;
  spec.retry.min_retry_delay = std::chrono::milliseconds(5);
  spec.retry.max_retry_delay = std::chrono::milliseconds(20);
  spec.errors.provider = "loopback";
  return spec;
}

TempFile::TempFile(const std::string &contents) {
  std::string pattern = (std::filesystem::temp_directory_path() / "amp-transport-XXXXXX").string();
  const int fd = ::mkstemp(pattern.data());
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, contents.data(), contents.size()) == static_cast<ssize_t>(contents.size()));
  ::close(fd);
  path_ = pattern;
}

TempFile::~TempFile() { std::filesystem::remove(path_); }

}  // namespace amplifier::transport::testing
