#include "fetch_call.hpp"

#include "content_type.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace tool_web {

namespace tp = amplifier::transport;
using Clock = std::chrono::steady_clock;

namespace {

// An error response is shown by its beginning only.
constexpr std::size_t kErrorSnippetBytes = 2048;
constexpr std::size_t kErrorSnippetChars = 300;

bool is_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::string seconds_text(std::chrono::milliseconds duration) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(duration.count()) / 1000.0);
  return text;
}

std::string snippet(std::string_view body) {
  std::string text = to_utf8(body.substr(0, kErrorSnippetChars), "");
  for (char &c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return text;
}

}  // namespace

FetchCall::FetchCall(amp::sdk::Host host, amp_call_id call, const WebConfig &config, WebUrl url,
                     std::size_t max_chars)
    : host_(host), call_(call), config_(config), max_chars_(max_chars), current_(std::move(url)) {
  page_.requested_url = current_.text;
}

void FetchCall::start(tp::HttpClient &client, amplifier::provider::CallTable::DoneFn done) {
  client_ = &client;
  done_ = std::move(done);
  deadline_ = Clock::now() + config_.timeout;
  boost::asio::post(client.io_context(),
                    [self = shared_from_this()] { self->start_hop(self->current_); });
}

// The call must end whatever happens: an exception where the next step is decided (a URL
// library error, memory) ends it as a failed fetch instead of leaving it open.
template <class Fn>
void FetchCall::guarded(Fn &&step) noexcept {
  try {
    step();
  } catch (const std::exception &e) {
    fail(std::string("web_fetch failed on ") + current_.text + ": " + e.what());
  } catch (...) {
    fail("web_fetch failed on " + current_.text);
  }
}

void FetchCall::cancel() {
  tp::CancelHandle handle;
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    handle = handle_;
  }
  handle.cancel();
}

void FetchCall::start_hop(const WebUrl &url) {
  if (auto refused = config_.domains.refusal(url.host))
    return fail("web_fetch refused " + url.text + ": " + *refused);
  const auto remaining =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
  if (remaining.count() <= 0)
    return fail("web_fetch timed out (timeout_seconds " + seconds_text(config_.timeout) +
                ") before fetching " + url.text);
  current_ = url;
  page_.final_url = url.text;
  page_.body.clear();
  page_.body_cut = false;
  location_.reset();
  stop_ = Stop::none;
  tp::HttpRequest request = request_for(url);
  request.timeouts = tp::Timeouts{std::min(remaining, std::chrono::milliseconds(10'000)), remaining,
                                  remaining, remaining};
  tp::ResponseHandlers handlers;
  auto self = shared_from_this();
  handlers.on_head = [self](const tp::ResponseHead &head) { self->on_head(head); };
  handlers.on_body = [self](std::string_view bytes) { self->on_body(bytes); };
  handlers.on_complete = [self](std::optional<KernelError> failure) {
    self->guarded([&] { self->on_complete(std::move(failure)); });
  };
  std::unique_lock lock(mutex_);
  if (cancelled_) {
    lock.unlock();
    return end_cancelled();
  }
  handle_ = client_->start(std::move(request), std::move(handlers));  // only posts
}

tp::HttpRequest FetchCall::request_for(const WebUrl &url) const {
  tp::HttpRequest request;
  request.method = "GET";
  request.url = url.text;
  request.headers.add("user-agent", config_.user_agent);
  request.headers.add("accept",
                      "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,"
                      "*/*;q=0.5");
  request.headers.add("accept-encoding", "identity");
  return request;
}

void FetchCall::on_head(const tp::ResponseHead &head) {
  page_.status = head.status;
  page_.content_type = std::string(head.headers.find("content-type").value_or(""));
  if (is_redirect(head.status)) {
    if (auto location = head.headers.find("location")) {
      location_ = std::string(*location);
      return stop(Stop::redirect);  // a redirect's body is not wanted
    }
  }
  const ContentType type = parse_content_type(page_.content_type);
  const bool declared_binary =
      !type.media_type.empty() && classify(type, "") == ContentKind::binary;
  if (head.status / 100 == 2 && declared_binary) stop(Stop::binary);
}

void FetchCall::on_body(std::string_view bytes) {
  if (stop_ != Stop::none) return;  // stopping: the rest is not wanted
  const bool success = page_.status / 100 == 2;
  const std::size_t limit = success ? config_.max_body_bytes : kErrorSnippetBytes;
  const std::size_t room = limit - page_.body.size();
  page_.body.append(bytes.substr(0, room));
  if (bytes.size() > room) {
    page_.body_cut = true;
    stop(Stop::body_full);
  }
}

void FetchCall::stop(Stop why) {
  stop_ = why;
  std::lock_guard lock(mutex_);
  handle_.cancel();
}

void FetchCall::on_complete(std::optional<KernelError> failure) {
  if (was_cancelled()) return end_cancelled();
  // A response this side stopped ends as "cancelled" in the transport: it is what we wanted.
  if (failure && stop_ == Stop::none) return fail(failure_message(*failure));
  if (stop_ == Stop::redirect) return follow_redirect();
  finish_response();
}

void FetchCall::follow_redirect() {
  const std::string from = current_.text;
  if (static_cast<int>(page_.redirects.size()) >= config_.max_redirects)
    return fail("web_fetch: too many redirects fetching " + page_.requested_url + " (more than " +
                std::to_string(config_.max_redirects) + "); the last one, from " + from +
                ", went to " + *location_);
  const auto target = resolve_reference(from, *location_);
  std::string problem = "it does not parse";
  const auto next = target ? parse_web_url(*target, problem) : std::nullopt;
  if (!next)
    return fail("web_fetch: " + from + " redirected to '" + *location_ +
                "', which cannot be followed: " + problem);
  page_.redirects.push_back(next->text);
  start_hop(*next);
}

void FetchCall::finish_response() {
  if (page_.status / 100 != 2) {
    std::string message =
        "web_fetch: " + current_.text + " answered HTTP " + std::to_string(page_.status);
    if (!page_.body.empty()) message += ": " + snippet(page_.body);
    return finish(failure_result(
        message,
        {{"url", page_.requested_url}, {"final_url", current_.text}, {"status", page_.status}}));
  }
  convert_off_io_thread();
}

// Turning a large page into text takes long (a 2 MiB page about a second), and this I/O thread
// carries every other call's bytes: the conversion runs on the host's worker pool instead
// (inline only on a host without work_submit). The call stays alive through `self`.
void FetchCall::convert_off_io_thread() {
  auto *self = new std::shared_ptr<FetchCall>(shared_from_this());
  if (host_.submit_work(0, &FetchCall::convert_on_worker, self)) return;
  delete self;
  convert_page();
}

void FetchCall::convert_on_worker(void *user_data) {
  std::unique_ptr<std::shared_ptr<FetchCall>> self(
      static_cast<std::shared_ptr<FetchCall> *>(user_data));
  (*self)->guarded([&] { (*self)->convert_page(); });
}

void FetchCall::convert_page() {
  if (was_cancelled()) return end_cancelled();
  finish(page_result(page_, {max_chars_, config_.max_chars_limit, config_.max_body_bytes}));
}

std::string FetchCall::failure_message(const KernelError &failure) const {
  const std::string prefix = "web_fetch could not fetch " + current_.text + ": ";
  switch (failure.kind) {
    case ErrorKind::access_denied:
      return prefix + failure.message +
             ". Private, loopback and link-local addresses are refused unless the tool's config "
             "sets allow_private_addresses: true or lists the network in "
             "allowed_private_networks.";
    case ErrorKind::timeout:
      return "web_fetch timed out (timeout_seconds " + seconds_text(config_.timeout) +
             ") fetching " + current_.text + ": " + failure.message;
    default:
      return prefix + failure.message;
  }
}

void FetchCall::finish(const std::string &result_json) {
  host_.call_finish(call_, AMP_OK, result_json);
  if (auto done = std::move(done_)) done(call_);
}

void FetchCall::fail(const std::string &message) {
  // Cancelled by the host: the call ends as cancelled, not as a tool failure.
  if (was_cancelled()) return end_cancelled();
  finish(failure_result(message, {{"url", page_.requested_url}}));
}

bool FetchCall::was_cancelled() {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

void FetchCall::end_cancelled() {
  host_.call_fail(call_, "cancelled", "web_fetch of " + page_.requested_url + " was cancelled",
                  AMP_CANCELLED);
  if (auto done = std::move(done_)) done(call_);
}

}  // namespace tool_web
