// A session the server holds: the kernel Session, what the API shows of it, the listener its
// running turn streams to, and the approvals waiting for an answer over HTTP.
#pragma once
#include "amplifier/hooks.hpp"
#include "amplifier/session.hpp"
#include "modes.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace amplifier::host::serve {

class ServedSession {
 public:
  // Receives every event of the session (as `--format jsonl` shows it) while a turn streams.
  using Listener = std::function<void(HookEvent &event)>;
  // Receives the SSE event announcing an approval request ("approval:request").
  using ApprovalListener = std::function<void(const boost::json::object &announcement)>;

  ServedSession(std::unique_ptr<Session> session, boost::json::value metadata,
                std::filesystem::path work_dir);

  Session &session() { return *session_; }
  const std::string &id() const { return id_; }
  const boost::json::value &metadata() const { return metadata_; }
  const std::string &created() const { return created_; }
  const std::filesystem::path &work_dir() const { return work_dir_; }

  // Starts a turn streaming to `listener`/`on_approval`; `done` runs once with its result.
  // False when a turn is already running (the caller answers 409).
  // `options` go beside the prompt in the orchestrator's input (e.g. {"route": "fast"}).
  // `turn_mode`: the mode for this turn only (null: none); afterwards the session's own holds.
  bool start_turn(std::string_view prompt, Listener listener, ApprovalListener on_approval,
                  std::function<void(TurnResult)> done, const boost::json::object &options = {},
                  std::optional<std::shared_ptr<const SessionMode>> turn_mode = std::nullopt);

  // The modes the session may enter (the built-ins, the operator's, its plan's), set by the
  // factory; mode_named throws ModeError naming the ones there are.
  void set_modes(ModeCatalog modes) { modes_ = std::move(modes); }
  std::shared_ptr<const SessionMode> mode_named(std::string_view name) const { return modes_.find(name); }
  // The session's own mode (null: none): at once, or after a running turn with a mode of its own.
  void set_session_mode(std::shared_ptr<const SessionMode> mode);
  std::shared_ptr<const SessionMode> session_mode() const;
  // What a client is told (GET /v1/sessions): a turn whose result has been handed out is no
  // longer running, though it lets go of the session a few instructions later.
  bool running_for_clients() const;
  bool running() const;
  // Waits up to `limit` for the running turn (if any) to end; false if it did not.
  bool wait_idle(std::chrono::milliseconds limit);

  // A session whose context keeps it in a shared store (context-postgres) can be unloaded when
  // idle and opened again later, here or on another server.
  void set_reopenable() { reopenable_ = true; }
  bool reopenable() const { return reopenable_; }
  // Marks the session as closing when it is reopenable, not running and idle for `idle`; from
  // then on start_turn refuses. True when it did.
  bool close_if_idle_for(std::chrono::steady_clock::duration idle);
  // The same for a session that cannot be reopened (it lives only in this process): it is
  // then ended for good (serve's --session-expiry).
  bool expire_if_idle_for(std::chrono::steady_clock::duration idle);
  bool closing() const;

  // The coordinator's approval handler: announces the request to the running turn's stream
  // and waits for answer(), the request's timeout (its default, normally deny) or a cancel.
  boost::json::object ask_approval(const boost::json::object &request);
  // false: no such approval is waiting.
  bool answer(const std::string &approval_id, boost::json::object decision);

 private:
  struct Pending {
    std::optional<boost::json::object> decision;
  };
  void forward(HookEvent &event);
  void announce(const boost::json::object &announcement);

  std::unique_ptr<Session> session_;
  const std::string id_;
  const boost::json::value metadata_;
  const std::string created_;  // RFC 3339, UTC
  const std::filesystem::path work_dir_;

  mutable std::mutex mutex_;
  std::condition_variable answered_;
  bool running_ = false;
  bool finishing_ = false;  // the turn's result is being handed out; running_ clears right after
  bool reopenable_ = false;
  bool closing_ = false;
  std::chrono::steady_clock::time_point idle_since_ = std::chrono::steady_clock::now();
  // Shared, so that forwarding an event copies a pointer, not the function, under the lock.
  std::shared_ptr<const Listener> listener_;
  ApprovalListener approval_listener_;
  std::map<std::string, std::shared_ptr<Pending>> approvals_;
  void restore_own_mode();
  ModeCatalog modes_;
  std::mutex mode_apply_mutex_;  // held while the kernel's mode changes (see set_session_mode)
  std::shared_ptr<const SessionMode> own_mode_;  // guarded by mutex_
  bool turn_has_mode_ = false;                   // guarded by mutex_
};

// The sessions of one server, by id. Thread-safe.
class SessionRegistry {
 public:
  void add(std::shared_ptr<ServedSession> session);
  std::shared_ptr<ServedSession> find(const std::string &id) const;
  std::shared_ptr<ServedSession> remove(const std::string &id);
  std::vector<std::shared_ptr<ServedSession>> all() const;  // oldest first
  std::size_t running() const;

  // Removes the sessions idle for `idle` that can be reopened (close_if_idle_for) and notes
  // them as closing until closed() is called, so a request for one waits (wait_closed)
  // instead of reopening it while its context still holds it.
  std::vector<std::shared_ptr<ServedSession>> take_idle(std::chrono::steady_clock::duration idle);
  // The same for the sessions idle for `idle` that cannot be reopened (expire_if_idle_for).
  std::vector<std::shared_ptr<ServedSession>> take_expired(std::chrono::steady_clock::duration idle);
  // Session `id` when it is here, reopenable and not running (another server asked for it),
  // noted as closing like take_idle; else null.
  std::shared_ptr<ServedSession> take_if_idle(const std::string &id);
  void closed(const std::string &id);
  // Waits up to `limit` while session `id` is closing; false if it still is.
  bool wait_closed(const std::string &id, std::chrono::milliseconds limit) const;

 private:
  std::vector<std::shared_ptr<ServedSession>> take_if(
      const std::function<bool(ServedSession &)> &closes);
  mutable std::mutex mutex_;
  mutable std::condition_variable closed_signal_;
  std::vector<std::shared_ptr<ServedSession>> sessions_;
  std::vector<std::string> closing_;
};

// Cancels (immediately) a running turn, waits for it to end, then ends the session (unmounts,
// session:end). Blocks: call it from a worker or the main thread, never from a turn's thread,
// which the kernel still uses after `done` returns. Null (another path removed the session
// from the registry first and ends it) does nothing: every path that removes a session (DELETE,
// idle unload, expiry, a chat completion's end, SIGTERM, reopen) may race another.
void end_session(std::shared_ptr<ServedSession> session, bool remove_work_dir);
// The same on a worker thread.
void retire(std::shared_ptr<ServedSession> session, bool remove_work_dir);
// Waits until every session handed to retire has ended, or `timeout` passed; false then.
// SIGTERM's drain waits for them, so no session is left unended when the process exits.
bool wait_for_retired(std::chrono::milliseconds timeout);

}  // namespace amplifier::host::serve
