#include "child_runner.hpp"

#include "amplifier/log.hpp"
#include "amplifier/session.hpp"
#include "amplifier/worker_pool.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

namespace amplifier {
namespace json = boost::json;

namespace {
constexpr std::string_view kChildrenLog = "children";

std::string error_payload(std::string_view kind, std::string_view message,
                          std::string_view session_id = {},
                          const json::value &report = nullptr) {
  json::object error{{"kind", kind}, {"message", message}, {"retryable", false}};
  if (!session_id.empty()) error["session_id"] = session_id;
  if (!report.is_null()) error["report"] = report;  // what the child spent before it stopped
  return json::serialize(error);
}
}  // namespace

// Everything a child needs, copied from the parent when it was asked for: the child never
// reaches back into the parent, so it cannot outlive what it uses.
struct ChildRunner::Job {
  SpawnRequest request;
  MountPlan parent_plan;
  SessionOptions options;  // the child's: parent_id, depth, module path, policy
  std::string parent_messages;
  Coordinator::ApprovalHandler approvals;
  std::shared_ptr<KernelCall> call;
  std::shared_ptr<Session> child;
};

void ChildRunner::spawn(Session &parent, std::string request_json,
                        std::shared_ptr<KernelCall> call) {
  SpawnRequest request;
  try {
    request = parse_spawn_request(request_json);
  } catch (const std::invalid_argument &e) {
    return call->finish(
        AMP_INVALID_ARGUMENT,
        error_payload("invalid_request", fmt::format("session_spawn: {}", e.what())));
  }
  const int depth = parent.options().depth + 1;
  if (depth > request.max_depth)
    return call->finish(
        AMP_ERROR, error_payload("invalid_request",
                                 fmt::format("delegation nested too deep: a child here would be "
                                             "at depth {}, and the limit is {}",
                                             depth, request.max_depth)));
  auto job = std::make_shared<Job>();
  job->options.session_id = request.resume_session_id;
  job->options.resumed = !request.resume_session_id.empty();
  job->options.parent_id = parent.id();
  job->options.module_path = parent.options().module_path;
  job->options.child_policy = policy_;
  job->options.depth = depth;
  job->options.confined_to = parent.options().confined_to;  // a child never leaves the folder
  job->options.mode = parent.mode();  // nor the mode its parent is in
  if (!job->options.resumed && request.context_depth != SpawnRequest::ContextDepth::none)
    job->parent_messages = parent.coordinator().context_messages();
  job->request = std::move(request);
  job->parent_plan = parent.plan();
  job->approvals = parent.coordinator().approval_handler();
  job->call = std::move(call);
  // Mounting loads libraries and may start processes: not on the caller's thread.
  WorkerPool::shared().submit([self = shared_from_this(), job] { self->run(job); });
}

void ChildRunner::run(const std::shared_ptr<Job> &job) {
  try {
    ChildSetup setup = policy_->setup(job->parent_plan, job->request);
    job->options.agent = setup.agent;
    job->child = std::make_shared<Session>(std::move(setup.plan), job->options);
    Session &child = *job->child;
    if (!add(job))
      return job->call->finish(AMP_CANCELLED,
                               error_payload("cancelled", "the parent session is ending"));
    if (job->approvals) child.coordinator().set_approval_handler(job->approvals);
    policy_->prepare(child);
    child.initialize();
    if (job->options.resumed) {
      policy_->check_resumed(child);
    } else if (std::string initial =
                   child_initial_messages(job->parent_messages, job->request, setup.instructions);
               initial != "[]") {
      child.coordinator().set_context_messages(initial);
    }
    job->call->event(json::serialize(json::object{{"type", "session_started"},
                                                  {"session_id", child.id()},
                                                  {"agent", job->options.agent},
                                                  {"resumed", job->options.resumed}}));
    start_turn(job);
  } catch (const std::exception &e) {
    const std::string session_id = job->child ? job->child->id() : std::string();
    if (job->child) job->child->cleanup();
    remove(job.get());
    job->call->finish(
        AMP_ERROR,
        error_payload("invalid_request",
                      fmt::format("the child session could not start: {}", e.what()), session_id));
  }
}

void ChildRunner::start_turn(const std::shared_ptr<Job> &job) {
  std::weak_ptr<Session> weak = job->child;
  // The callback lives in the child's own call record: it must not own the job, whose last
  // owner destroys the child.
  std::weak_ptr<Job> weak_job = job;
  job->child->start(
      job->request.instruction, [self = shared_from_this(), weak_job](TurnResult result) {
        auto ending = weak_job.lock();
        if (!ending) return;
        // The child's turn ended on one of its own threads; unmounting it must happen elsewhere.
        WorkerPool::shared().submit([self, ending, result = std::move(result)]() mutable {
          self->finish(ending, std::move(result));
        });
      });
  // Starting the turn resets the child's cancellation: a cancel that came before still holds.
  const CancelLevel pending = std::max(parent_level(), job->call->cancel_level());
  if (pending != CancelLevel::None) job->child->cancel(pending);
  job->call->on_cancel([weak](CancelLevel level) {
    if (auto child = weak.lock()) child->cancel(level);
  });
}

void ChildRunner::finish(const std::shared_ptr<Job> &job, TurnResult result) {
  Session &child = *job->child;
  child.cleanup();
  const std::string &id = child.id();
  if (result.status == "error") {
    json::object error = result.error.is_object() ? result.error.as_object() : json::object{};
    if (!error.contains("message")) error["message"] = result.response;
    error["session_id"] = id;
    job->call->finish(AMP_ERROR, json::serialize(error));
  } else if (result.status == "cancelled") {
    job->call->finish(AMP_CANCELLED,
                      error_payload("cancelled", "the child session was cancelled", id,
                                    result.report));
  } else {
    json::object payload{{"session_id", id},
                         {"agent", job->options.agent},
                         {"response", result.response},
                         {"status", result.status}};
    // What the child's orchestrator reported (the agent loop's ledger, rolled up by the
    // parent's): an error's report is already in its error object.
    if (!result.report.is_null()) payload["report"] = result.report;
    job->call->finish(AMP_OK, json::serialize(payload));
  }
  remove(job.get());
}

bool ChildRunner::add(const std::shared_ptr<Job> &job) {
  std::lock_guard lock(mutex_);
  if (closed_) return false;
  running_.push_back(job);
  return true;
}

void ChildRunner::remove(const Job *job) {
  std::shared_ptr<Job> last;  // destroyed outside the lock
  {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(running_.begin(), running_.end(),
                           [&](const auto &j) { return j.get() == job; });
    if (it == running_.end()) return;
    last = std::move(*it);
    running_.erase(it);
  }
  idle_.notify_all();
}

CancelLevel ChildRunner::parent_level() const {
  std::lock_guard lock(mutex_);
  return parent_level_;
}

void ChildRunner::on_parent_cancel(CancelLevel level) {
  std::vector<std::shared_ptr<Session>> children;
  {
    std::lock_guard lock(mutex_);
    parent_level_ = std::max(parent_level_, level);
    for (const auto &job : running_) children.push_back(job->child);
  }
  for (auto &child : children) child->cancel(level);
}

void ChildRunner::on_parent_turn() {
  std::lock_guard lock(mutex_);
  parent_level_ = CancelLevel::None;
}

bool ChildRunner::close(std::chrono::milliseconds grace) {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  on_parent_cancel(CancelLevel::Immediate);
  std::unique_lock lock(mutex_);
  if (idle_.wait_for(lock, grace, [&] { return running_.empty(); })) return true;
  log(LogLevel::Error, kChildrenLog,
      fmt::format("{} child session(s) still running as their parent ends; they end on their own",
                  running_.size()));
  return false;
}

}  // namespace amplifier
