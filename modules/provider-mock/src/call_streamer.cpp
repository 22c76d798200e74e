#include "call_streamer.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <future>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace provider_mock {

using Clock = std::chrono::steady_clock;

namespace {
// How often a call waiting out a long delay polls host.cancel_state(), so that a session-wide
// cancel that the host signals only through that state still ends the call promptly.
constexpr auto kCancelPollInterval = std::chrono::milliseconds(50);
}  // namespace

// One call in flight. Shared by the call table and the handlers queued for it.
struct CallStreamer::ActiveCall {
  ActiveCall(boost::asio::io_context &io, amp::sdk::Host host_, amp_call_id id_, PlannedCall p,
             std::chrono::milliseconds delay, std::shared_ptr<const std::string> cancelled)
      : id(id_), host(host_), plan(std::move(p)), delta_delay(delay),
        cancelled_payload(std::move(cancelled)), timer(io) {}

  const amp_call_id id;
  const amp::sdk::Host host;
  const PlannedCall plan;
  const std::chrono::milliseconds delta_delay;
  const std::shared_ptr<const std::string> cancelled_payload;
  std::atomic<int> requested_level{AMP_CANCEL_NONE};  // written by cancel() on any thread

  // Executor thread only:
  boost::asio::steady_timer timer;
  Clock::time_point due;       // when the next event (or the terminal event) goes out
  std::size_t next_event = 0;
  bool finished = false;
};

// The calls of one instance that have not finished, for cancel() and for shutdown.
class CallStreamer::CallTable {
 public:
  void add(const CallPtr &call) {
    std::lock_guard lock(mutex_);
    calls_.emplace(call->id, call);
  }
  CallPtr find(amp_call_id id) const {
    std::lock_guard lock(mutex_);
    auto it = calls_.find(id);
    return it == calls_.end() ? nullptr : it->second;
  }
  void remove(amp_call_id id) {
    std::lock_guard lock(mutex_);
    calls_.erase(id);
  }
  std::vector<CallPtr> take_all() {
    std::lock_guard lock(mutex_);
    std::vector<CallPtr> all;
    all.reserve(calls_.size());
    for (auto &entry : calls_) all.push_back(std::move(entry.second));
    calls_.clear();
    return all;
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return calls_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<amp_call_id, CallPtr> calls_;
};

CallStreamer::CallStreamer(amp::sdk::Host host, std::chrono::milliseconds delta_delay,
                           std::string cancelled_payload)
    : host_(host),
      delta_delay_(delta_delay),
      cancelled_payload_(std::make_shared<const std::string>(std::move(cancelled_payload))),
      executor_(amplifier::module_support::BackgroundExecutor::acquire()),
      table_(std::make_shared<CallTable>()) {}

CallStreamer::~CallStreamer() {
  finish_all_outstanding();
  executor_.reset();
}

void CallStreamer::start(amp_call_id id, PlannedCall plan) {
  auto &io = executor_->context();
  const auto first_delay = plan.first_delay;
  auto call = std::make_shared<ActiveCall>(io, host_, id, std::move(plan), delta_delay_,
                                           cancelled_payload_);
  call->due = Clock::now() + first_delay;  // counted from the request, not from the dispatch
  table_->add(call);
  try {
    boost::asio::post(io, [call, table = table_] { advance(call, table); });
  } catch (...) {
    // Not started: the SDK reports the exception as this call's terminal event, so the
    // shutdown must not find the call and finish it a second time.
    table_->remove(id);
    throw;
  }
}

void CallStreamer::cancel(amp_call_id id, amp_cancel_level level) {
  CallPtr call = table_->find(id);
  if (!call) return;  // unknown, or already finished: the terminal event is out
  int current = call->requested_level.load();
  while (current < level && !call->requested_level.compare_exchange_weak(current, level)) {
  }
  if (level >= AMP_CANCEL_IMMEDIATE) {
    // Wake the call: cancelling its timer runs advance() at once, which sees the level. Timers
    // are not thread-safe, hence the hop to the executor.
    boost::asio::post(executor_->context(), [call] {
      if (!call->finished) call->timer.cancel();
    });
  }
}

std::size_t CallStreamer::in_flight() const { return table_->size(); }

amp_cancel_level CallStreamer::effective_cancel_level(const ActiveCall &call) {
  const amp_cancel_level own = static_cast<amp_cancel_level>(call.requested_level.load());
  return std::max(own, call.host.cancel_state(call.id));
}

void CallStreamer::advance(const CallPtr &call, const TablePtr &table) {
  if (call->finished) return;
  if (effective_cancel_level(*call) >= AMP_CANCEL_IMMEDIATE) {
    finish(call, table, AMP_CANCELLED, *call->cancelled_payload);
    return;
  }
  const auto now = Clock::now();
  if (now < call->due) {
    wait_until(call, table, std::min(call->due, now + kCancelPollInterval));
    return;
  }
  if (call->next_event < call->plan.events.size()) {
    const StreamStep &step = call->plan.events[call->next_event++];
    if (step.is_delta()) call->host.emit_delta(call->id, step.index, step.kind, step.text);
    else call->host.call_event(call->id, step.event_json);
    call->due = now + call->delta_delay;
    wait_until(call, table, call->due);
    return;
  }
  finish(call, table, call->plan.status, call->plan.terminal_payload);
}

void CallStreamer::wait_until(const CallPtr &call, const TablePtr &table, Clock::time_point when) {
  // Even without a delay the next step is queued behind the other calls' handlers, so
  // concurrent calls interleave and a cancel can land between deltas; a post does that without
  // arming a timer (two system calls each).
  if (when <= Clock::now()) {
    boost::asio::post(call->timer.get_executor(), [call, table] { advance(call, table); });
    return;
  }
  call->timer.expires_at(when);
  call->timer.async_wait([call, table](const boost::system::error_code &) {
    advance(call, table);  // also after operation_aborted: a cancel wakes the call this way
  });
}

void CallStreamer::finish(const CallPtr &call, const TablePtr &table, amp_status status,
                          const std::string &payload) {
  call->finished = true;
  call->timer.cancel();
  table->remove(call->id);
  call->host.call_finish(call->id, status, payload);
}

void CallStreamer::finish_all_outstanding() {
  std::vector<CallPtr> outstanding = table_->take_all();
  if (outstanding.empty()) return;
  auto finish_them = [&outstanding, this] {
    for (const auto &call : outstanding) {
      if (call->finished) continue;
      call->finished = true;
      call->timer.cancel();
      call->host.call_finish(call->id, AMP_CANCELLED, *cancelled_payload_);
    }
  };
  if (executor_->running_in_this_thread()) {
    finish_them();
    return;
  }
  std::promise<void> done;
  boost::asio::post(executor_->context(), [&] {
    finish_them();
    done.set_value();
  });
  done.get_future().wait();
}

}  // namespace provider_mock
