#include "amplifier/provider/call_table.hpp"

#include "amplifier/model.hpp"

#include <boost/json/serialize.hpp>

#include <future>
#include <stdexcept>
#include <vector>

namespace amplifier::provider {

namespace json = boost::json;

// Whether the instance still exists, for the transport's log lines: the HTTP client may still
// be closing connections on the shared I/O thread after the instance is gone, and its host
// context is gone with it.
struct CallTable::LogGate {
  std::mutex mutex;
  bool open = true;
};

namespace {

amp_log_level host_level(transport::LogLevel level) {
  switch (level) {
    case transport::LogLevel::debug:
      return AMP_LOG_DEBUG;
    case transport::LogLevel::info:
      return AMP_LOG_INFO;
    case transport::LogLevel::warning:
      return AMP_LOG_WARNING;
    case transport::LogLevel::error:
      break;
  }
  return AMP_LOG_ERROR;
}

transport::LogSink host_log(const amp::sdk::Host &host, std::shared_ptr<CallTable::LogGate> gate) {
  return [host, gate](transport::LogLevel level, std::string_view message) {
    std::lock_guard lock(gate->mutex);
    if (gate->open) host.log(host_level(level), message);
  };
}

}  // namespace

CallTable::CallTable(amp::sdk::Host host, std::string provider_id,
                     transport::HttpClientOptions options)
    : host_(host),
      provider_id_(std::move(provider_id)),
      // One I/O thread per core; each instance keeps to one of them, so a stream is read,
      // translated and reported on one thread, and sessions spread over the cores.
      executor_(module_support::BackgroundExecutor::acquire(0)),
      log_gate_(std::make_shared<LogGate>()) {
  options.log = host_log(host_, log_gate_);
  http_ = std::make_unique<transport::HttpClient>(executor_->next_context(), std::move(options));
}

CallTable::~CallTable() {
  std::vector<std::shared_ptr<ProviderCall>> outstanding;
  {
    std::lock_guard lock(calls_mutex_);
    for (auto &entry : calls_) outstanding.push_back(entry.second);
  }
  for (auto &call : outstanding) call->cancel();
  {
    std::unique_lock lock(calls_mutex_);
    calls_changed_.wait(lock, [&] { return calls_.empty(); });
  }
  outstanding.clear();
  {
    std::lock_guard lock(log_gate_->mutex);
    log_gate_->open = false;
  }
  // The client closes its idle connections on the shared I/O thread, later; the last instance
  // of the library to let go of the executor joins its thread (nothing of ours runs after).
  http_.reset();
  executor_.reset();
}

bool CallTable::cancelled_before_start(amp_call_id call) {
  if (host_.cancel_state(call) < AMP_CANCEL_IMMEDIATE) return false;
  finish_at_once(call, KernelError::make(ErrorKind::cancelled, "cancelled before it started"),
                 AMP_CANCELLED);
  return true;
}

void CallTable::finish_at_once(amp_call_id call, KernelError error, amp_status status) {
  if (!error.provider) error.provider = provider_id_;
  host_.call_finish(call, status, json::serialize(amplifier::to_json(error)));
}

void CallTable::start(amp_call_id id, std::shared_ptr<ProviderCall> call,
                      const std::function<void(DoneFn done)> &start) {
  {
    std::lock_guard lock(calls_mutex_);
    calls_[id] = std::move(call);
  }
  try {
    start([this](amp_call_id done) { forget(done); });
  } catch (...) {
    // Nothing was started (the transport reports its own failures through on_complete), so
    // the SDK's error terminal event is the only one; an entry left behind would block shutdown.
    forget(id);
    throw;
  }
}

LentRequest CallTable::accept_request(amp_call_id call, std::string_view request_json) {
  if (cancelled_before_start(call)) return LentRequest();
  try {
    return requests_.lend(request_json);
  } catch (const amplifier::ModelError &e) {
    finish_at_once(call, KernelError::make(ErrorKind::invalid_request, e.what()), AMP_ERROR);
    return LentRequest();
  }
}

void CallTable::cancel(amp_call_id call, amp_cancel_level level) {
  // Graceful means "finish the running work": the completion runs to its end.
  if (level < AMP_CANCEL_IMMEDIATE) return;
  std::shared_ptr<ProviderCall> target;
  {
    std::lock_guard lock(calls_mutex_);
    auto it = calls_.find(call);
    if (it == calls_.end()) return;  // finished already: its terminal event is out
    target = it->second;
  }
  target->cancel();
}

void CallTable::forget(amp_call_id call) {
  std::lock_guard lock(calls_mutex_);
  calls_.erase(call);
  calls_changed_.notify_all();
}

transport::CallResult CallTable::run_blocking(transport::CallSpec spec) {
  if (executor_->running_in_this_thread())
    throw std::logic_error("a blocking request would block the I/O thread it waits for");
  std::promise<transport::CallResult> done;
  transport::CallHandlers handlers;
  handlers.on_complete = [&done](transport::CallResult result) {
    done.set_value(std::move(result));
  };
  transport::start_call(*http_, std::move(spec), std::move(handlers));
  return done.get_future().get();
}

}  // namespace amplifier::provider
