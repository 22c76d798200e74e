// A session: mounts a plan's modules on a coordinator and runs prompts through the orchestrator.
#pragma once
#include "amplifier/cancellation.hpp"
#include "amplifier/hooks.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session_mode.hpp"
#include "amplifier_plugin.h"

#include <boost/json/value.hpp>

#include <filesystem>
#include <optional>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier {

class ChildSessionPolicy;
class Coordinator;
class ModuleLoader;

class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SessionOptions {
  std::string session_id;  // empty: a new random UUID
  std::string parent_id;
  std::vector<std::filesystem::path> module_path;  // empty: ModuleLoader::default_search_path()
  bool resumed = false;  // emit session:resume instead of session:start
  // How this session's modules may start child sessions ("session_spawn"); null: they cannot.
  // Children share it, so they may have children of their own.
  std::shared_ptr<ChildSessionPolicy> child_policy;
  int depth = 0;      // 0 for a top session, parent's + 1 for a child
  std::string agent;  // the agent a child runs as (announced in session:fork)
  // What the host attaches to the session for its modules to keep (session_info's "labels"):
  // a context that stores sessions records them with the session (serve: the plan and the
  // client's metadata, so another server reopens it on the same plan).
  boost::json::object labels;
  // The folder the session is confined to: its tools work there and never outside it
  // (session_info's "workspace"; tool-filesystem and tool-bash read it at create, over their
  // config). Its children are confined to the same folder. Trust: set by the operator's host
  // (serve's sessions, by design); nothing a module, a model or a client sends reaches it.
  std::optional<std::filesystem::path> confined_to;
  // The mode the session starts in (session_mode.hpp); null: none. A child starts in its
  // parent's mode as it is when the child starts. Trust: a mode only narrows what may run.
  std::shared_ptr<const SessionMode> mode;
  // The session's own folder, where modules keep what belongs to this session and nothing else
  // (session_info's "state_folder": tool-filesystem keeps its rewind checkpoints there).
  // Empty: none, and modules keep nothing. Not given to children. Trust: set by the operator's
  // host (run and chat: the session's folder in the store); nothing a module, a model or a
  // client sends reaches it.
  std::optional<std::filesystem::path> state_folder;
  // A history fork (`amplifier sessions fork`, serve's POST .../fork): the session it was
  // forked from and the turn its history stops at. initialize() then announces session:fork
  // {"parent": forked_from, "turn": forked_at_turn} (a child's session:fork has "agent" and
  // "depth" instead). Empty: not a fork.
  std::string forked_from;
  std::int64_t forked_at_turn = 0;
};

// A module that could not be mounted (also announced as module:load_failed).
struct LoadFailure {
  std::string mount_point;  // orchestrator | context | providers | tools | hooks
  std::string module;
  std::string error;
  bool fatal = false;  // the session cannot start without it (orchestrator, context, required)
  // What the module's create returned when the module itself refused (AMP_BUSY: the session
  // it was asked to open is held by another host right now); AMP_ERROR otherwise.
  amp_status status = AMP_ERROR;
};

struct TurnResult {
  std::string response;
  std::string status;        // success | incomplete | cancelled | error
  boost::json::value error;  // the error object when status == "error"
  // The orchestrator's "report" member (an object), when its result has one: what it wants its
  // caller to know besides the answer (the agent loop reports its cost ledger). A child's
  // report is passed to the delegate tool with its answer. Null when there is none.
  boost::json::value report;
  // Messages given to Session::steer that the turn ended before reading, in order (the caller
  // decides what becomes of them: chat sends them as the next prompt).
  std::vector<std::string> steering_not_delivered;
};

class Session {
 public:
  explicit Session(MountPlan plan, SessionOptions options = {});
  ~Session();  // runs cleanup() if needed
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  // Loads and mounts every module in plan order, then runs the session-ready phase.
  // A provider/tool/hook that fails is skipped, recorded in load_failures() and announced as
  // module:load_failed. A failing orchestrator or context throws SessionError.
  void initialize();

  // Runs one prompt through the orchestrator and blocks until the turn ends. Emits
  // session:start (or session:resume) before the first turn only. Never throws for a module
  // failure: that comes back as status "error".
  TurnResult execute(std::string_view prompt);
  // The same with `options` beside the prompt in the orchestrator's turn input
  // ({"prompt", ...options}): what the turn may ask of the loop, e.g. {"route": "fast"}.
  TurnResult execute(std::string_view prompt, const boost::json::object &options);

  // The same without blocking: starts the turn and returns its call id at once; `done` runs
  // exactly once with the result, on whichever thread ends the turn (a worker or a provider's
  // I/O thread), so it must not block. One turn at a time: starting a second before `done`
  // ran throws SessionError. This is how one process carries many sessions without a thread
  // each.
  amp_call_id start(std::string_view prompt, std::function<void(TurnResult)> done,
                    const boost::json::object &options = {});

  // The session's mode (null: none), and changing it. Thread-safe: a change made while a turn
  // runs holds from that turn's next tool call and provider request on. A change of name emits
  // mode:changed {from, to, source} (null for none). While a mode holds, every provider request
  // carries its reminder (an ephemeral injection at provider:request) and every turn's input
  // says "mode" (the agent loop records it on the stored prompt).
  std::shared_ptr<const SessionMode> mode() const;
  void set_mode(std::shared_ptr<const SessionMode> mode);

  // Steering: a message for the running turn, which the loop reads at its next step (before its
  // next provider call, so after the running call or tool batch; or, when the model has just
  // answered, instead of ending the turn), stored as a user message, in order. False when no
  // turn is running (start one instead). Thread-safe. Emits steering:queued, and
  // steering:delivered when it reached the conversation; one the turn ended before reading is
  // in its TurnResult's steering_not_delivered. Works with an orchestrator that emits
  // provider:request (and turn:stop), as the agent loops do.
  // Throws std::invalid_argument for a message over kMaxSteeringBytes.
  bool steer(std::string message);
  static constexpr std::size_t kMaxSteeringBytes = 8 * 1024;

  // Thread-safe and async-signal-adjacent (call from a watcher thread, not a signal handler):
  // raises the session's cancellation level and notifies the running turn.
  void cancel(CancelLevel level);

  // Ends the running child sessions (cancelled, waited for a while), unmounts in reverse mount
  // order and emits session:end. Idempotent.
  void cleanup();

  const SessionOptions &options() const;
  const std::string &id() const;
  const std::string &parent_id() const;
  const std::vector<LoadFailure> &load_failures() const;
  HookRegistry &hooks();
  Coordinator &coordinator();
  CancellationToken &cancellation();
  const MountPlan &plan() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A random RFC 4122 version 4 UUID.
std::string new_uuid();

}  // namespace amplifier
