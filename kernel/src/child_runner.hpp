// The children of one session: starts them for "session_spawn" calls, follows the parent's
// cancellation into them, and ends them with the parent. Kernel-internal (session.cpp).
#pragma once
#include "amplifier/cancellation.hpp"
#include "amplifier/child_sessions.hpp"
#include "amplifier/coordinator.hpp"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

namespace amplifier {

class Session;

class ChildRunner : public std::enable_shared_from_this<ChildRunner> {
 public:
  explicit ChildRunner(std::shared_ptr<ChildSessionPolicy> policy) : policy_(std::move(policy)) {}

  // The spawn handler of `parent`'s coordinator. Reads what the child needs from the parent
  // now, on the calling thread, and mounts and runs the child on the worker pool.
  void spawn(Session &parent, std::string request_json, std::shared_ptr<KernelCall> call);

  // The parent's cancellation rose: every running child follows at the same level.
  void on_parent_cancel(CancelLevel level);
  // A new parent turn: a cancel of the last one no longer applies to children started now.
  void on_parent_turn();
  // The parent is ending: no child starts any more; running ones are cancelled now and waited
  // for, at most `grace`. False when one still runs then (it ends on its own later).
  bool close(std::chrono::milliseconds grace);

 private:
  struct Job;
  // False once closed: the child must not start.
  bool add(const std::shared_ptr<Job> &job);
  void remove(const Job *job);
  CancelLevel parent_level() const;
  void run(const std::shared_ptr<Job> &job);
  void start_turn(const std::shared_ptr<Job> &job);
  void finish(const std::shared_ptr<Job> &job, struct TurnResult result);

  std::shared_ptr<ChildSessionPolicy> policy_;
  mutable std::mutex mutex_;
  std::condition_variable idle_;
  // The runner owns the running jobs (and so their sessions): a child is never destroyed from
  // inside its own turn's callbacks, only by the task that ends it.
  std::vector<std::shared_ptr<Job>> running_;
  CancelLevel parent_level_ = CancelLevel::None;
  bool closed_ = false;
};

}  // namespace amplifier
