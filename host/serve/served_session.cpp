#include "served_session.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/log.hpp"
#include "amplifier/worker_pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace amplifier::host::serve {
namespace json = boost::json;
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kDefaultApprovalSeconds = 300;
constexpr auto kPollSlice = std::chrono::milliseconds(100);  // how soon a cancel is noticed
// An immediate cancel ends a turn within the kernel's own grace (10 s); beyond this the session
// is left as it is rather than freed under a turn that still runs.
constexpr auto kRetireWait = std::chrono::seconds(15);
// Longest a new turn waits for the last one to let go once its result is out (see start_turn).
constexpr auto kFinishingWait = std::chrono::seconds(5);

json::object decision(std::string_view choice, std::string_view reason, std::string_view source) {
  return json::object{{"decision", choice}, {"reason", reason}, {"source", source}};
}

double timeout_of(const json::object &request) {
  const json::value *t = request.if_contains("timeout_seconds");
  return t && t->is_number() ? t->to_number<double>() : kDefaultApprovalSeconds;
}

}  // namespace

ServedSession::ServedSession(std::unique_ptr<Session> session, json::value metadata,
                             std::filesystem::path work_dir)
    : session_(std::move(session)),
      id_(session_->id()),
      metadata_(std::move(metadata)),
      created_(iso_timestamp_now()),
      work_dir_(std::move(work_dir)) {
  // Runs after every other handler, so the client sees the payload the hooks left.
  session_->hooks().register_event_handler(
      std::string(HookRegistry::kAllEvents),
      [this](HookEvent &event) -> std::optional<HookResult> {
        forward(event);
        return std::nullopt;
      },
      std::numeric_limits<int>::max(), "serve-stream");
  session_->coordinator().set_approval_handler(
      [this](const json::object &request) { return ask_approval(request); });
}

void ServedSession::forward(HookEvent &event) {
  std::shared_ptr<const Listener> listener;
  {
    std::lock_guard lock(mutex_);
    listener = listener_;
  }
  if (listener && *listener) (*listener)(event);
}

// The kernel's set_mode emits mode:changed, which forward() takes mutex_ to pass on: it is
// called with the lock released.
// Every change of the kernel's mode happens under mode_apply_mutex_ (never mutex_), so a
// turn's end putting the session's own mode back and a client setting a new one cannot
// overtake each other.
void ServedSession::set_session_mode(std::shared_ptr<const SessionMode> mode) {
  std::lock_guard applying(mode_apply_mutex_);
  {
    std::lock_guard lock(mutex_);
    own_mode_ = mode;
    if (turn_has_mode_) return;  // the running turn's own mode holds until it ends
  }
  session_->set_mode(std::move(mode));
}

void ServedSession::restore_own_mode() {
  std::lock_guard applying(mode_apply_mutex_);
  std::shared_ptr<const SessionMode> own;
  {
    std::lock_guard lock(mutex_);
    turn_has_mode_ = false;
    own = own_mode_;
  }
  session_->set_mode(std::move(own));
}

std::shared_ptr<const SessionMode> ServedSession::session_mode() const {
  std::lock_guard lock(mutex_);
  return own_mode_;
}

bool ServedSession::start_turn(std::string_view prompt, Listener listener,
                               ApprovalListener on_approval, std::function<void(TurnResult)> done,
                               const boost::json::object &options,
                               std::optional<std::shared_ptr<const SessionMode>> turn_mode) {
  {
    std::unique_lock lock(mutex_);
    // A client that has read the last turn's result may rightly start the next one while that
    // turn is still letting go of the session: it waits those few instructions, not a 409.
    answered_.wait_for(lock, kFinishingWait, [this] { return !(running_ && finishing_); });
    if (running_ || closing_) return false;
    running_ = true;
    listener_ = std::make_shared<const Listener>(std::move(listener));
    approval_listener_ = std::move(on_approval);
  }
  if (turn_mode) {
    std::lock_guard applying(mode_apply_mutex_);
    {
      std::lock_guard lock(mutex_);
      turn_has_mode_ = true;
    }
    session_->set_mode(*turn_mode);
  }
  // `this` outlives the turn: retire() waits for running_ to clear, the last thing done here.
  auto finished = [this, had_mode = turn_mode.has_value(), done = std::move(done)](TurnResult result) {
    {
      std::lock_guard lock(mutex_);
      finishing_ = true;
      listener_ = nullptr;
      approval_listener_ = nullptr;
    }
    if (had_mode) restore_own_mode();  // a turn's own mode held for that turn only
    done(std::move(result));
    std::lock_guard lock(mutex_);
    finishing_ = false;
    running_ = false;
    idle_since_ = Clock::now();
    answered_.notify_all();
  };
  try {
    session_->start(prompt, std::move(finished), options);
  } catch (...) {
    // The session's own mode is back before another turn may start (running_ still set).
    if (turn_mode) restore_own_mode();
    std::lock_guard lock(mutex_);
    running_ = false;
    listener_ = nullptr;
    approval_listener_ = nullptr;
    throw;
  }
  return true;
}

bool ServedSession::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

bool ServedSession::running_for_clients() const {
  std::lock_guard lock(mutex_);
  return running_ && !finishing_;
}

bool ServedSession::close_if_idle_for(Clock::duration idle) {
  std::lock_guard lock(mutex_);
  if (!reopenable_ || running_ || closing_ || Clock::now() - idle_since_ < idle) return false;
  closing_ = true;
  return true;
}

bool ServedSession::expire_if_idle_for(Clock::duration idle) {
  std::lock_guard lock(mutex_);
  if (reopenable_ || running_ || closing_ || Clock::now() - idle_since_ < idle) return false;
  closing_ = true;
  return true;
}

bool ServedSession::closing() const {
  std::lock_guard lock(mutex_);
  return closing_;
}

void ServedSession::announce(const json::object &announcement) {
  ApprovalListener listener;
  {
    std::lock_guard lock(mutex_);
    listener = approval_listener_;
  }
  if (listener) listener(announcement);
}

json::object ServedSession::ask_approval(const json::object &request) {
  const double seconds = timeout_of(request);
  const json::value *fallback_value = request.if_contains("default");
  const std::string fallback = fallback_value && fallback_value->is_string()
                                   ? std::string(fallback_value->as_string())
                                   : "deny";
  const std::string approval_id = new_uuid();
  auto pending = std::make_shared<Pending>();
  {
    std::lock_guard lock(mutex_);
    if (!approval_listener_) return decision("deny", "no client is streaming the turn", "server");
    approvals_[approval_id] = pending;
  }
  announce(json::object{{"approval_id", approval_id},
                        {"request", request},
                        {"timeout_seconds", seconds},
                        {"default", fallback}});
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  std::unique_lock lock(mutex_);
  while (!pending->decision && Clock::now() < deadline && !session_->cancellation().is_cancelled())
    answered_.wait_for(lock, kPollSlice);
  approvals_.erase(approval_id);
  if (pending->decision) return *pending->decision;
  if (session_->cancellation().is_cancelled())
    return decision("deny", "the turn was cancelled", "server");
  return decision(fallback, fmt::format("no answer within {:g} seconds", seconds), "timeout");
}

bool ServedSession::answer(const std::string &approval_id, json::object answer) {
  std::lock_guard lock(mutex_);
  auto it = approvals_.find(approval_id);
  if (it == approvals_.end() || it->second->decision) return false;
  it->second->decision = std::move(answer);
  answered_.notify_all();
  return true;
}

void SessionRegistry::add(std::shared_ptr<ServedSession> session) {
  std::lock_guard lock(mutex_);
  sessions_.push_back(std::move(session));
}

std::shared_ptr<ServedSession> SessionRegistry::find(const std::string &id) const {
  std::lock_guard lock(mutex_);
  for (const auto &s : sessions_)
    if (s->id() == id) return s;
  return nullptr;
}

std::shared_ptr<ServedSession> SessionRegistry::remove(const std::string &id) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(sessions_.begin(), sessions_.end(),
                         [&](const auto &s) { return s->id() == id; });
  if (it == sessions_.end()) return nullptr;
  auto session = std::move(*it);
  sessions_.erase(it);
  return session;
}

std::vector<std::shared_ptr<ServedSession>> SessionRegistry::all() const {
  std::lock_guard lock(mutex_);
  return sessions_;
}

std::size_t SessionRegistry::running() const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(std::count_if(sessions_.begin(), sessions_.end(),
                                                [](const auto &s) { return s->running(); }));
}

std::vector<std::shared_ptr<ServedSession>> SessionRegistry::take_idle(Clock::duration idle) {
  return take_if([idle](ServedSession &s) { return s.close_if_idle_for(idle); });
}

std::vector<std::shared_ptr<ServedSession>> SessionRegistry::take_expired(Clock::duration idle) {
  return take_if([idle](ServedSession &s) { return s.expire_if_idle_for(idle); });
}

std::shared_ptr<ServedSession> SessionRegistry::take_if_idle(const std::string &id) {
  auto taken = take_if([&](ServedSession &s) {
    return s.id() == id && s.close_if_idle_for(Clock::duration::zero());
  });
  return taken.empty() ? nullptr : taken.front();
}

std::vector<std::shared_ptr<ServedSession>> SessionRegistry::take_if(
    const std::function<bool(ServedSession &)> &closes) {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<ServedSession>> taken;
  std::erase_if(sessions_, [&](const std::shared_ptr<ServedSession> &s) {
    if (!closes(*s)) return false;
    closing_.push_back(s->id());
    taken.push_back(s);
    return true;
  });
  return taken;
}

void SessionRegistry::closed(const std::string &id) {
  std::lock_guard lock(mutex_);
  std::erase(closing_, id);
  closed_signal_.notify_all();
}

bool SessionRegistry::wait_closed(const std::string &id, std::chrono::milliseconds limit) const {
  std::unique_lock lock(mutex_);
  return closed_signal_.wait_for(lock, limit, [&] {
    return std::find(closing_.begin(), closing_.end(), id) == closing_.end();
  });
}

bool ServedSession::wait_idle(std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  return answered_.wait_for(lock, limit, [this] { return !running_; });
}

void end_session(std::shared_ptr<ServedSession> session, bool remove_work_dir) {
  if (!session) return;
  if (session->running()) session->session().cancel(CancelLevel::Immediate);
  if (!session->wait_idle(kRetireWait)) {
    log(LogLevel::Error, "serve",
        fmt::format("session {} did not stop when cancelled; it is left running", session->id()));
    new std::shared_ptr<ServedSession>(std::move(session));  // deliberately never freed
    return;
  }
  session->session().cleanup();
  std::error_code ignored;
  if (remove_work_dir) std::filesystem::remove_all(session->work_dir(), ignored);
}

namespace {
// Sessions handed to retire and not yet ended.
std::mutex g_retiring_mutex;
std::condition_variable g_retired;
std::size_t g_retiring = 0;
}  // namespace

void retire(std::shared_ptr<ServedSession> session, bool remove_work_dir) {
  if (!session) return;
  if (session->running()) session->session().cancel(CancelLevel::Immediate);
  {
    std::lock_guard lock(g_retiring_mutex);
    ++g_retiring;
  }
  WorkerPool::shared().submit([session = std::move(session), remove_work_dir]() mutable {
    end_session(std::move(session), remove_work_dir);
    std::lock_guard lock(g_retiring_mutex);
    if (--g_retiring == 0) g_retired.notify_all();
  });
}

bool wait_for_retired(std::chrono::milliseconds timeout) {
  std::unique_lock lock(g_retiring_mutex);
  return g_retired.wait_for(lock, timeout, [] { return g_retiring == 0; });
}

}  // namespace amplifier::host::serve
