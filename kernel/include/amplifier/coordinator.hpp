// The coordinator: mount points, the capability registry, contribution channels and the
// in-flight asynchronous calls of one session. Mechanism only; it knows no vendor.
#pragma once
#include "amplifier/cancellation.hpp"
#include "amplifier/hooks.hpp"
#include "amplifier/session_mode.hpp"
#include "amplifier/module_loader.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier {

class Coordinator;
class CallRegistry;
struct CallRecord;
class JsonSchema;
class KernelCall;
struct MountedModule;

}  // namespace amplifier

// The opaque host context handed to a module instance (declared in amplifier_plugin.h).
struct amp_host {
  amplifier::Coordinator *coordinator = nullptr;
  amplifier::MountedModule *self = nullptr;
};

namespace amplifier {

// One mounted module instance.
struct MountedModule {
  std::uint64_t owner_id = 0;      // unique per instance; groups its hooks and contributions
  std::string mount_point;         // orchestrator | context | providers | tools | hooks
  std::string mount_name;          // provider/tool mount name (instance_id or module id)
  std::shared_ptr<const LoadedModule> module;  // keeps the library loaded
  boost::json::object config;
  amp_host host;                   // the address handed to the module; stable for its life
  void *instance = nullptr;        // the module's own pointer
  bool tools_mounted = false;      // a tool module's tools are in the coordinator's tables
  int priority = 100;              // providers: lower is preferred
  // The plan's `timeout:` for calls to this module (0: none). Past it a call ends with a
  // `timeout` error and the module is told to cancel it.
  std::chrono::milliseconds call_timeout{0};
  boost::json::value info;         // providers: get_info() at mount time
  // Threads currently executing inside the module's code on the kernel's behalf. A module may
  // end a call (call_finish) and still be returning through its own code, so the instance is
  // destroyed, and its library unloaded, only once this is back to zero.
  std::atomic<int> active_invocations{0};
  // Delayed work the module submitted (work_submit) that has not run yet. When the instance
  // is destroyed it runs at once instead, so an instance never waits for its own timers.
  struct DelayedWork;
  std::mutex delayed_mutex;
  std::vector<std::shared_ptr<DelayedWork>> delayed_work;

  std::string_view id() const { return module->id(); }
  amp_module_kind kind() const { return module->descriptor->kind; }
  template <class Table>
  const Table *table() const {
    return static_cast<const Table *>(module->descriptor->kind_table);
  }
};

// Counts one thread inside a module's code for the guard's lifetime.
class InvocationGuard {
 public:
  explicit InvocationGuard(MountedModule &m) : m_(m) { m_.active_invocations.fetch_add(1); }
  // Takes over an invocation counted earlier (when work is queued for another thread).
  InvocationGuard(MountedModule &m, std::adopt_lock_t) : m_(m) {}
  ~InvocationGuard() { m_.active_invocations.fetch_sub(1); }
  InvocationGuard(const InvocationGuard &) = delete;
  InvocationGuard &operator=(const InvocationGuard &) = delete;

 private:
  MountedModule &m_;
};

// What the kernel does with the events and the end of a call it started (or that a module
// started through the host API).
// Both run on the thread of the module reporting, never concurrently for one call; on_finish
// comes last, exactly once, with an error payload normalised to {"kind","message",...}.
// A typed delta (ABI 1.2) reaches on_delta when it is set; otherwise on_event gets the same
// delta as its JSON content_block_delta event.
struct CallObserver {
  std::function<void(amp_call_id call, std::string_view event_json)> on_event;
  std::function<void(amp_call_id call, amp_status status, std::string_view payload_json)> on_finish;
  std::function<void(amp_call_id call, std::uint32_t index, amp_delta_kind kind, std::string_view text)>
      on_delta;
};

class Coordinator {
 public:
  Coordinator(HookRegistry &hooks, CancellationToken &cancellation, std::string session_id,
              std::string parent_id);
  ~Coordinator();
  Coordinator(const Coordinator &) = delete;
  Coordinator &operator=(const Coordinator &) = delete;

  HookRegistry &hooks() { return hooks_; }
  CancellationToken &cancellation() { return cancellation_; }
  const std::string &session_id() const { return session_id_; }
  const std::string &parent_id() const { return parent_id_; }
  // SessionOptions::labels, given before anything is mounted (session_info reports them).
  void set_labels(boost::json::object labels) { labels_ = std::move(labels); }
  const boost::json::object &labels() const { return labels_; }
  // SessionOptions::confined_to, given before anything is mounted (session_info's "workspace").
  void set_confinement(std::optional<std::filesystem::path> folder) { confined_to_ = std::move(folder); }
  const std::optional<std::filesystem::path> &confinement() const { return confined_to_; }
  // SessionOptions::state_folder, given before anything is mounted (session_info's
  // "state_folder").
  void set_state_folder(std::optional<std::filesystem::path> folder) { state_folder_ = std::move(folder); }
  const std::optional<std::filesystem::path> &state_folder() const { return state_folder_; }
  // The session's mode (session_mode.hpp), null for none: from the next tool call on, the
  // tools it refuses get an error result and never run, and those it asks about wait for the
  // user. Thread-safe: a host may change it while a turn runs.
  void set_mode(std::shared_ptr<const SessionMode> mode);
  std::shared_ptr<const SessionMode> mode() const;

  // --- Mounting ------------------------------------------------------------------------
  // Creates an instance of `module` and mounts it at `mount_point`. Throws ModuleLoadError
  // with the module's reason when create fails or the kind doesn't fit the mount point.
  // `call_timeout` (0: none) bounds each asynchronous call the kernel starts on the instance
  // (provider completions, tool executions, turns).
  MountedModule &mount(std::string mount_point, std::string mount_name,
                       std::shared_ptr<const LoadedModule> module, boost::json::object config,
                       std::chrono::milliseconds call_timeout = {});
  // Runs session_ready on every instance in mount order; returns the failures (id, reason).
  std::vector<std::pair<std::string, std::string>> run_session_ready();
  // Destroys every instance in reverse mount order (cancelling and waiting for their calls).
  void unmount_all();

  MountedModule *orchestrator() const { return orchestrator_; }
  MountedModule *context() const { return context_; }
  MountedModule *provider(std::string_view name) const;
  std::vector<MountedModule *> providers() const;  // mount order
  // Tools by tool name (one tool module may offer several tools).
  MountedModule *tool_owner(std::string_view tool_name) const;
  boost::json::array tool_specs() const;
  // Lists the tools of tool module `m` again (the "tools_changed" host function): what its
  // list_tools gives now replaces its tools. Does nothing for a module not (or no longer)
  // mounted. Throws ModuleLoadError when the list is unusable; its old tools stay then.
  void refresh_tools(MountedModule &m);
  boost::json::array provider_listing() const;
  const std::vector<std::unique_ptr<MountedModule>> &mounted() const { return mounted_; }

  // The mounted context's messages (a JSON array), and replacing them: for the kernel's own
  // use (a child's starting context). Throw std::runtime_error when the context fails.
  std::string context_messages();
  void set_context_messages(std::string_view messages_json);

  // --- Capabilities and channels -------------------------------------------------------
  void register_capability(std::string name, boost::json::value value);
  std::optional<boost::json::value> capability(std::string_view name) const;
  using Contributor = std::function<boost::json::value()>;
  void contribute(std::string channel, std::string name, Contributor fn, std::uint64_t owner = 0);
  // [{"name","value"}] in registration order; failing contributors are logged and skipped.
  boost::json::array collect(std::string_view channel) const;

  // --- User approval -------------------------------------------------------------------
  // Decides approval requests: {"prompt","options","timeout_seconds","default",...} ->
  // {"decision","reason"}. Set by the host; without one every request gets its default.
  using ApprovalHandler = std::function<boost::json::object(const boost::json::object &request)>;
  void set_approval_handler(ApprovalHandler handler);
  // Serialised: one question at a time. Never throws; a failing handler means deny.
  boost::json::object request_approval(const boost::json::object &request);
  // The handler set (empty when none): a child session asks its user the same way.
  ApprovalHandler approval_handler();

  // --- Child sessions (amp_host_api "session_spawn", ABI 1.3) ---------------------------
  // Starts a child session for a `session_spawn` request: runs on the caller's thread, must
  // return promptly (the work goes to the worker pool) and report through `call`. Set by the
  // session when it has a policy for children.
  using SpawnHandler =
      std::function<void(std::string request_json, std::shared_ptr<KernelCall> call)>;
  void set_spawn_handler(SpawnHandler handler);
  bool can_spawn() const;
  // A kernel-served call running `request_json` through the spawn handler; the observer gets
  // its events and exactly one on_finish, as for any call. Throws std::logic_error without a
  // handler (check can_spawn).
  amp_call_id start_spawn_call(std::string request_json, CallObserver observer,
                               const MountedModule *caller, amp_call_id *out_id = nullptr);

  // --- Calls ---------------------------------------------------------------------------
  CallRegistry &calls() { return *calls_; }
  // Starts a call on a provider/tool/orchestrator instance. The observer gets every event and
  // exactly one on_finish. Returns the call id, which is known to the observer's owner before
  // the module is invoked (through `out_id`, when given). Provider calls start on the calling
  // thread (they must not block); tool calls and orchestrator turns run on the process's
  // shared worker pool (worker_pool.hpp).
  // The request is passed to the provider as it is, borrowed for the call: no copy, no parse
  // (the provider reads it and answers invalid_request for anything it cannot use).
  amp_call_id start_provider_call(MountedModule &provider, std::string_view request_json,
                                  CallObserver observer, const MountedModule *caller = nullptr,
                                  amp_call_id *out_id = nullptr);
  amp_call_id start_tool_call(MountedModule &tool, std::string tool_name, std::string input_json,
                              CallObserver observer, const MountedModule *caller = nullptr,
                              amp_call_id *out_id = nullptr);
  amp_call_id start_orchestrator_call(std::string prompt_json, CallObserver observer);
  // Waits until every orchestrator execute started has returned (a call may finish before its
  // execute returns), at most `timeout`: false if one is still running then (an orchestrator
  // that ignores cancellation is not waited on forever). Must not be called from inside execute.
  bool wait_turn_returned(std::chrono::milliseconds timeout);
  // Runs fn(user_data) for module `m` on the shared worker pool after `delay` (amp_host_api
  // "work_submit"); counted as code of the instance until it has run.
  void submit_module_work(MountedModule &m, std::chrono::milliseconds delay,
                          std::function<void()> work);
  // Raises a call's own cancellation level and notifies the module serving it.
  bool cancel_call(amp_call_id id, CancelLevel level, const MountedModule *caller = nullptr);
  // The level in force for a call: its own or the session's, whichever is higher.
  CancelLevel call_cancel_level(amp_call_id id) const;

 private:
  void on_session_cancel(CancelLevel level);
  bool cancel_kernel_call(CallRecord &call, CancelLevel level);
  void describe_mounted(MountedModule &m);
  boost::json::array read_tool_specs(MountedModule &m);
  // Replaces m's tools by `specs`; the caller holds tools_mutex_ exclusively.
  void mount_tools(MountedModule &m, boost::json::array specs);
  MountedModule *tool_owner_locked(std::string_view tool_name) const;
  // Drops m's tools from the lookup tables (tools_mutex_ held exclusively).
  void forget_tools_of(const MountedModule &m);
  void compile_tool_schema(const MountedModule &m, const std::string &tool_name,
                           const boost::json::object &spec);
  // The reason `input_json` does not fit the tool's schema, or "" when it does.
  std::string tool_input_problem(std::string_view tool_name, std::string_view input_json) const;
  // Asks the user whether `tool_name` may run in `mode`; "" for yes, else why it did not run.
  std::string ask_for_mode(const SessionMode &mode, std::string_view tool_name,
                           std::string_view input_json);
  void unmount_last();
  // Returns false when the module's code is still running and the instance must be kept.
  bool destroy_instance(MountedModule &m);
  // Runs the module's pending delayed work now (see MountedModule::delayed_work).
  void expedite_delayed_work(MountedModule &m);
  // Ends `call` with a `timeout` error if it is still running after the module's call_timeout.
  void arm_call_deadline(MountedModule &m, const std::shared_ptr<CallRecord> &call);
  struct TurnState;

  HookRegistry &hooks_;
  CancellationToken &cancellation_;
  std::string session_id_;
  std::string parent_id_;
  boost::json::object labels_;
  std::optional<std::filesystem::path> confined_to_;
  std::optional<std::filesystem::path> state_folder_;
  std::vector<std::unique_ptr<MountedModule>> mounted_;
  MountedModule *orchestrator_ = nullptr;
  MountedModule *context_ = nullptr;
  // The tools below change when a tool module lists its tools again (refresh_tools), while
  // other threads look tools up: guarded by tools_mutex_.
  mutable std::shared_mutex tools_mutex_;
  std::map<std::string, MountedModule *, std::less<>> tools_by_name_;
  // Each tool's compiled input schema; a tool whose schema does not compile has none.
  std::map<std::string, std::shared_ptr<const JsonSchema>, std::less<>> tool_schemas_;
  boost::json::array tool_specs_;

  mutable std::mutex registry_mutex_;
  std::map<std::string, boost::json::value, std::less<>> capabilities_;
  // Counts the running calls of one contributor; once `removed`, none starts, and removing
  // waits for those running (a contributor is its module's code).
  struct ContributorGate {
    std::mutex mutex;
    std::condition_variable idle;
    int running = 0;
    bool removed = false;
  };
  struct Contribution {
    std::string name;
    Contributor fn;
    std::uint64_t owner;
    std::shared_ptr<ContributorGate> gate = std::make_shared<ContributorGate>();
  };
  std::map<std::string, std::vector<Contribution>, std::less<>> channels_;
  std::mutex approval_mutex_;
  ApprovalHandler approval_handler_;
  mutable std::mutex mode_mutex_;
  std::shared_ptr<const SessionMode> mode_;  // guarded by mode_mutex_

  // Instances whose code never returned during unmount: kept (and their libraries loaded)
  // until the process ends, because unloading them would crash the threads still inside.
  std::vector<std::unique_ptr<MountedModule>> stuck_;
  std::shared_ptr<CallRegistry> calls_;  // shared with the KernelCalls it hands out
  mutable std::mutex spawn_mutex_;
  SpawnHandler spawn_handler_;
  std::shared_ptr<TurnState> turn_;  // shared with the task running execute
  std::size_t cancel_listener_ = 0;
};

// A call the kernel itself serves (a child session's turn): whoever holds it reports its
// events and its end, and cancel_call of the call reaches its on_cancel handler. It keeps
// what it reports through alive, so it may outlive the coordinator's session.
class KernelCall {
 public:
  KernelCall(std::shared_ptr<CallRegistry> registry, std::shared_ptr<CallRecord> record);
  amp_call_id id() const;
  // Ignored once the call has finished (the caller was unmounted, say).
  void event(std::string_view event_json);
  // Exactly one end counts; later ones are ignored.
  void finish(amp_status status, std::string payload_json);
  // The level requested for the call so far.
  CancelLevel cancel_level() const;
  // Runs `handler(level)` for each cancel of the call from now on, on the cancelling thread;
  // a cancel requested before runs it at once. Never called once the call has finished.
  void on_cancel(std::function<void(CancelLevel)> handler);

 private:
  std::shared_ptr<CallRegistry> registry_;
  std::shared_ptr<CallRecord> record_;
};

}  // namespace amplifier
