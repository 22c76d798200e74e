// The host side of `isolation: process` (amplifier/isolation.hpp): a module descriptor and kind
// tables of the host's own whose every function crosses to the amplifier-module-host process
// running the real module, and the host API the module calls there, served here.
#include "amplifier/coordinator.hpp"
#include "amplifier/errors.hpp"
#include "amplifier/events.hpp"
#include "amplifier/isolation.hpp"
#include "amplifier/log.hpp"
#include "amplifier/worker_pool.hpp"
#include "amplifier_sdk.hpp"
#include "isolation/channel.hpp"
#include "isolation/spawn.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <sys/wait.h>
#include <unordered_set>

namespace amplifier {
namespace isolation {
namespace {

constexpr std::string_view kIsolationLog = "isolation";
// How long a module process may take to load its library and say hello.
constexpr auto kStartTimeout = std::chrono::seconds(15);
// How long destroy may take before the process is killed.
constexpr auto kDestroyTimeout = std::chrono::seconds(10);
constexpr auto kReapGrace = std::chrono::seconds(2);
constexpr auto kRestartWindow = std::chrono::seconds(60);

using Clock = std::chrono::steady_clock;

const amp_host_api &host_api() { return *host_api_table(); }

// The SDK's string helpers: the same conversions the modules on the other side use.
using amp::sdk::from_amp;
using amp::sdk::StringWriter;
using amp::sdk::to_amp;
using amp::sdk::write_to;

class IsolatedModule;
class Child;

// A call the module process started (provider_complete / tool_execute from inside it): the
// host reports to this sink, which passes everything on to the process.
struct SinkRelay {
  amp_call_sink sink{};
  std::weak_ptr<Child> child;
  std::uint64_t child_sink_id = 0;
  std::atomic<amp_call_id> call{0};
};

// A hook handler or channel contributor the module registered. Owned by the IsolatedModule,
// which outlives every registration (the host removes them before destroy). After a restart
// the new process registers again and the relay is bound to it; until then it is stale.
struct Relay {
  IsolatedModule *owner = nullptr;
  std::string key;  // event or channel
  std::string name;
  std::int32_t priority = 0;
  bool typed = false;          // a typed delta hook (hook_register_delta)
  bool json_fallback = false;  // ... with a JSON handler for the other deltas
  std::atomic<std::uint64_t> generation{0};
  std::atomic<std::uint64_t> child_id{0};
  bool removed = false;  // guarded by the owner's mutex
};

// What the process says when it has loaded the module.
struct Hello {
  amp_module_kind kind = AMP_KIND_HOOK;
  std::uint32_t abi_major = 0;
  std::uint32_t abi_minor = 0;
  std::string id, version, description;
  bool has_session_ready = false;
};

// One process running the module.
class Child final : public Channel::Handler, public std::enable_shared_from_this<Child> {
 public:
  Child(std::weak_ptr<IsolatedModule> owner, std::uint64_t generation, SpawnedProcess process,
        std::string label, std::uint32_t max_frame_bytes)
      : owner_(std::move(owner)),
        generation_(generation),
        pid_(process.pid),
        end_(process.pid),
        label_(std::move(label)) {
    channel_ = std::make_unique<Channel>(process.socket_fd, *this, process.output_fd,
                                         max_frame_bytes);
  }
  ~Child() override {
    end_.kill();
    channel_.reset();
    end_.reap(kReapGrace);
  }

  Channel &channel() { return *channel_; }
  std::uint64_t generation() const { return generation_; }
  pid_t pid() const { return pid_; }
  int reap() { return end_.reap(kReapGrace); }

  Hello wait_hello(Clock::time_point deadline);

  // Kills the process for `reason`; `call` (if any) is the one that overran its deadline.
  void kill(std::string reason, amp_call_id call) {
    {
      std::lock_guard lock(mutex_);
      if (kill_reason_.empty()) {
        kill_reason_ = std::move(reason);
        timed_out_call_ = call;
      }
    }
    end_.kill();
  }
  std::pair<std::string, amp_call_id> kill_reason() {
    std::lock_guard lock(mutex_);
    return {kill_reason_, timed_out_call_};
  }

  void track(SinkRelay *relay) {
    std::lock_guard lock(mutex_);
    sinks_.insert(relay);
  }
  void untrack(SinkRelay *relay) {
    std::lock_guard lock(mutex_);
    sinks_.erase(relay);
  }
  // Records the id of a call it started, unless the call has already ended (and `relay` with
  // it): what is tracked is alive.
  void started(SinkRelay *relay, amp_call_id call) {
    std::lock_guard lock(mutex_);
    if (sinks_.count(relay)) relay->call.store(call);
  }
  std::vector<amp_call_id> started_calls() {
    std::lock_guard lock(mutex_);
    std::vector<amp_call_id> calls;
    for (auto *relay : sinks_)
      if (amp_call_id call = relay->call.load()) calls.push_back(call);
    return calls;
  }

  void on_notify(const Frame &frame) override;
  Reply on_request(const Frame &frame) override;
  void on_closed(const std::string &reason) override;
  void on_output_line(std::string_view line) override { log(LogLevel::Warning, label_, line); }

 private:
  std::weak_ptr<IsolatedModule> owner_;
  const std::uint64_t generation_;
  const pid_t pid_;
  ProcessEnd end_;
  const std::string label_;

  std::mutex mutex_;
  std::condition_variable hello_cv_;
  std::optional<Hello> hello_;
  std::optional<std::string> load_failure_;
  bool ended_ = false;
  std::string kill_reason_;
  amp_call_id timed_out_call_ = 0;
  std::unordered_set<SinkRelay *> sinks_;

  std::unique_ptr<Channel> channel_;  // last: its threads call the members above
};

// The descriptor the kernel sees, with a way back to its module.
struct ProxyDescriptor {
  amp_module_descriptor descriptor{};
  IsolatedModule *owner = nullptr;
};

class IsolatedModule final : public std::enable_shared_from_this<IsolatedModule> {
 public:
  IsolatedModule(std::filesystem::path file, IsolationOptions options)
      : file_(std::move(file)), options_(options) {}
  ~IsolatedModule();

  std::shared_ptr<const LoadedModule> start();
  static IsolatedModule &of(void *instance) { return *static_cast<IsolatedModule *>(instance); }
  static IsolatedModule &of(const amp_module_descriptor *d) {
    return *reinterpret_cast<const ProxyDescriptor *>(d)->owner;
  }

  // --- the descriptor's and kind tables' functions ---
  amp_status create(amp_host *host, amp_str config, void **out_instance, amp_writer *error);
  amp_status session_ready(amp_writer *error);
  void destroy();
  amp_status call_into(const Message &message, amp_writer *out, std::string *why = nullptr);
  void start_call(Fn fn, amp_call_id call, std::initializer_list<std::string_view> args);
  void cancel(amp_call_id call, amp_cancel_level level);
  amp_status invoke_delta(Relay &relay, const amp_hook_delta &delta);
  amp_status invoke(Relay &relay, Fn fn, std::string_view event, std::string_view data,
                    amp_writer *out);

  // --- from its processes ---
  void handle_notify(Child &child, const Frame &frame);
  Reply handle_request(Child &child, const Frame &frame);
  void child_closed(Child &child);
  void child_ended(const std::shared_ptr<Child> &child);

 private:
  std::shared_ptr<Child> start_child();
  void bring_up(Child &child);
  std::shared_ptr<Child> running_child(std::string &failure);
  bool restart_allowed_locked();
  std::optional<Clock::time_point> deadline() const;
  std::variant<Reply, std::string> request(const std::shared_ptr<Child> &child,
                                           const Message &message);
  bool take_served(amp_call_id call, std::uint64_t generation);
  bool serves(amp_call_id call, std::uint64_t generation);
  void finish_call(amp_call_id call, ErrorKind kind, const std::string &message, int wait_status);
  Reply register_relay(Child &child, Fn fn, const Frame &frame);
  Reply unregister_hooks(std::string_view name);
  Reply start_host_call(Child &child, const Frame &frame);
  void emit(std::string_view event, boost::json::object data);

  const std::filesystem::path file_;
  const IsolationOptions options_;
  ProxyDescriptor descriptor_;
  Hello hello_;
  std::string label_;
  amp_call_delta_fn call_delta_ = nullptr;
  amp_emit_content_delta_fn emit_content_delta_ = nullptr;
  amp_hook_has_handlers_fn hook_has_handlers_ = nullptr;
  amp_session_spawn_fn session_spawn_ = nullptr;
  amp_tools_changed_fn tools_changed_ = nullptr;
  amp_hook_register_delta_fn hook_register_delta_ = nullptr;

  enum class State { running, starting, down, stopped };
  std::mutex mutex_;
  std::condition_variable state_cv_;
  State state_ = State::down;
  std::shared_ptr<Child> child_;
  std::uint64_t generations_ = 0;
  amp_host *host_ = nullptr;  // the real host context, from create
  std::string config_;
  bool ready_ = false;
  bool given_up_ = false;
  std::string down_reason_;
  std::deque<Clock::time_point> restarts_;
  std::unordered_map<amp_call_id, std::uint64_t> served_;  // call -> generation serving it
  // Processes replaced by a restart. Dropped at destroy, where no thread of theirs can be the
  // one dropping them (a restart may run inside one of their request handlers).
  std::vector<std::shared_ptr<Child>> retired_;
  int reporting_ = 0;  // crash reports running: destroy waits for them (they use host_)
  std::vector<std::unique_ptr<Relay>> relays_;
};

// ---- the tables the kernel calls -------------------------------------------------------------

amp_status proxy_create(amp_host *host, amp_str config, void **out_instance, amp_writer *error) {
  return IsolatedModule::of(host->self->module->descriptor)
      .create(host, config, out_instance, error);
}
amp_status proxy_session_ready(void *instance, amp_writer *error) {
  return IsolatedModule::of(instance).session_ready(error);
}
void proxy_destroy(void *instance) { IsolatedModule::of(instance).destroy(); }

const amp_provider_vtable kProviderTable = {
    sizeof(amp_provider_vtable),
    [](void *i, amp_writer *out) {
      return IsolatedModule::of(i).call_into(Message(Fn::provider_get_info), out);
    },
    [](void *i, amp_writer *out) {
      return IsolatedModule::of(i).call_into(Message(Fn::provider_list_models), out);
    },
    [](void *i, amp_call_id call, amp_str request) {
      IsolatedModule::of(i).start_call(Fn::provider_vtable_complete, call, {from_amp(request)});
    },
    [](void *i, amp_call_id call, amp_cancel_level level) {
      IsolatedModule::of(i).cancel(call, level);
    },
};

const amp_tool_vtable kToolTable = {
    sizeof(amp_tool_vtable),
    [](void *i, amp_writer *out) {
      return IsolatedModule::of(i).call_into(Message(Fn::tool_list), out);
    },
    [](void *i, amp_call_id call, amp_str tool, amp_str input) {
      IsolatedModule::of(i).start_call(Fn::tool_vtable_execute, call, {from_amp(tool), from_amp(input)});
    },
    [](void *i, amp_call_id call, amp_cancel_level level) {
      IsolatedModule::of(i).cancel(call, level);
    },
};

const amp_orchestrator_vtable kOrchestratorTable = {
    sizeof(amp_orchestrator_vtable),
    [](void *i, amp_call_id call, amp_str prompt) {
      IsolatedModule::of(i).start_call(Fn::orchestrator_execute, call, {from_amp(prompt)});
    },
    [](void *i, amp_call_id call, amp_cancel_level level) {
      IsolatedModule::of(i).cancel(call, level);
    },
};

const amp_context_vtable kContextTable = {
    sizeof(amp_context_vtable),
    [](void *i, amp_str message) {
      return IsolatedModule::of(i).call_into(Message(Fn::context_vtable_add, {from_amp(message)}),
                                             nullptr);
    },
    [](void *i, amp_writer *out) {
      return IsolatedModule::of(i).call_into(Message(Fn::context_vtable_get), out);
    },
    [](void *i, amp_str request, amp_writer *out) {
      return IsolatedModule::of(i).call_into(
          Message(Fn::context_vtable_get_for_request, {from_amp(request)}), out);
    },
    [](void *i, amp_str messages) {
      return IsolatedModule::of(i).call_into(Message(Fn::context_vtable_set, {from_amp(messages)}),
                                             nullptr);
    },
    [](void *i) { return IsolatedModule::of(i).call_into(Message(Fn::context_vtable_clear), nullptr); },
    // sessions_query has no instance: ContextSessionStore (session_query.cpp) loads the
    // context's library for it in the host's process, whatever the plan's isolation says.
    nullptr,
};

const amp_hook_vtable kHookTable = {sizeof(amp_hook_vtable)};

const void *kind_table(amp_module_kind kind) {
  switch (kind) {
    case AMP_KIND_PROVIDER:
      return &kProviderTable;
    case AMP_KIND_TOOL:
      return &kToolTable;
    case AMP_KIND_ORCHESTRATOR:
      return &kOrchestratorTable;
    case AMP_KIND_CONTEXT:
      return &kContextTable;
    default:
      return &kHookTable;
  }
}

// Handlers the host calls for the module's registrations.
amp_status relay_hook(void *user_data, amp_str event, amp_str data, amp_writer *result) {
  auto &relay = *static_cast<Relay *>(user_data);
  return relay.owner->invoke(relay, Fn::hook_invoke, from_amp(event), from_amp(data), result);
}
amp_status relay_hook_delta(void *user_data, const amp_hook_delta *delta) {
  auto &relay = *static_cast<Relay *>(user_data);
  return relay.owner->invoke_delta(relay, *delta);
}
amp_status relay_contributor(void *user_data, amp_writer *out) {
  auto &relay = *static_cast<Relay *>(user_data);
  return relay.owner->invoke(relay, Fn::contributor_invoke, {}, {}, out);
}

// The sink of a call the module process started.
void sink_send(void *user_data, Message message) {
  auto *relay = static_cast<SinkRelay *>(user_data);
  auto child = relay->child.lock();
  if (!child) return;
  try {
    child->channel().notify(message);
  } catch (const std::length_error &e) {
    // A report too large for the module's process is dropped, and said so; a call's end
    // still arrives, as an error, or the module would wait for it forever.
    log(LogLevel::Warning, kIsolationLog, fmt::format("a stream report to a module: {}", e.what()));
    if (message.fn == Fn::sink_finish) {
      const std::string error = boost::json::serialize(boost::json::object{
          {"kind", "invalid_request"}, {"message", e.what()}, {"retryable", false}});
      child->channel().notify(
          Message(Fn::sink_finish, {error}, message.a, message.b, std::uint64_t(AMP_ERROR)));
    }
  }
}
void sink_on_event(void *user_data, amp_call_id call, amp_str event) {
  auto *relay = static_cast<SinkRelay *>(user_data);
  sink_send(user_data, Message(Fn::sink_event, {from_amp(event)}, relay->child_sink_id, call));
}
void sink_on_delta(void *user_data, amp_call_id call, uint32_t index, amp_delta_kind kind,
                   amp_str text) {
  auto *relay = static_cast<SinkRelay *>(user_data);
  sink_send(user_data, Message(Fn::sink_delta, {from_amp(text)}, relay->child_sink_id, call,
                               pack_delta(index, std::uint32_t(kind))));
}
void sink_on_finish(void *user_data, amp_call_id call, amp_status status, amp_str payload) {
  auto *relay = static_cast<SinkRelay *>(user_data);
  sink_send(user_data, Message(Fn::sink_finish, {from_amp(payload)}, relay->child_sink_id, call,
                               std::uint64_t(status)));
  if (auto child = relay->child.lock()) child->untrack(relay);
  delete relay;
}

// ---- Child -------------------------------------------------------------------------------

Hello Child::wait_hello(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  hello_cv_.wait_until(lock, deadline, [&] { return hello_ || load_failure_ || ended_; });
  if (hello_) return *hello_;
  if (load_failure_) throw ModuleLoadError(*load_failure_);
  if (ended_) {
    lock.unlock();
    int status = reap();
    throw ModuleLoadError(fmt::format("the module process ({}) {} before it loaded the module",
                                      module_host_program().string(),
                                      ProcessEnd::describe(status)));
  }
  throw ModuleLoadError(
      fmt::format("the module process did not load the module within {} s",
                  std::chrono::duration_cast<std::chrono::seconds>(kStartTimeout).count()));
}

void Child::on_notify(const Frame &frame) {
  if (frame.fn == Fn::hello || frame.fn == Fn::load_failed) {
    std::lock_guard lock(mutex_);
    if (frame.fn == Fn::load_failed) {
      load_failure_ = std::string(frame.string(0));
    } else if (frame.c != kWireIdentity) {
      load_failure_ =
          "its amplifier-module-host was built from another ABI description than this "
          "amplifier (its messages would be misread); use the helper installed with this "
          "amplifier";
    } else {
      Hello hello;
      hello.kind = static_cast<amp_module_kind>(frame.a);
      hello.abi_major = std::uint32_t(frame.b >> 32);
      hello.abi_minor = std::uint32_t(frame.b);
      hello.id = frame.string(0);
      hello.version = frame.string(1);
      hello.description = frame.string(2);
      hello.has_session_ready = !frame.string(3).empty();
      hello_ = std::move(hello);
    }
    hello_cv_.notify_all();
    return;
  }
  if (auto owner = owner_.lock()) owner->handle_notify(*this, frame);
}

Reply Child::on_request(const Frame &frame) {
  if (auto owner = owner_.lock()) return owner->handle_request(*this, frame);
  return Reply{AMP_ERROR, 0, "the module was unmounted"};
}

void Child::on_closed(const std::string &reason) {
  // A process that broke the protocol is killed now, and that is what its calls report.
  if (reason.starts_with(kMalformedFrame)) kill(reason, 0);
  {
    std::lock_guard lock(mutex_);
    ended_ = true;
  }
  hello_cv_.notify_all();
  auto owner = owner_.lock();
  auto self = weak_from_this().lock();  // null while its destructor runs: that reaps it
  if (!owner || !self) return;
  owner->child_closed(*this);
  // Reaping and reporting may wait: not on this thread, which the channel needs to end.
  // Moved, not copied: the last reference must never be dropped on this thread (dropping a
  // Child joins the thread).
  WorkerPool::shared().submit(
      [owner = std::move(owner), self = std::move(self)] { owner->child_ended(self); });
}

// ---- IsolatedModule: starting and restarting ---------------------------------------------

IsolatedModule::~IsolatedModule() {
  if (child_) child_->kill("the module was unloaded", 0);
}

std::shared_ptr<Child> IsolatedModule::start_child() {
  const auto program = module_host_program();
  SpawnedProcess process;
  try {
    process = spawn_module_host(program, file_, options_.memory_limit_mb, options_.max_message_mb);
  } catch (const std::exception &e) {
    throw ModuleLoadError(fmt::format("module file {}: cannot start its process ({}): {}",
                                      file_.string(), program.string(), e.what()));
  }
  std::uint64_t generation;
  {
    std::lock_guard lock(mutex_);
    generation = ++generations_;
  }
  std::string label = fmt::format(
      "{} [pid {}]", hello_.id.empty() ? file_.stem().string() : hello_.id, process.pid);
  return std::make_shared<Child>(weak_from_this(), generation, process, std::move(label),
                                 std::uint32_t(options_.max_message_mb << 20));
}

std::shared_ptr<const LoadedModule> IsolatedModule::start() {
  auto child = start_child();
  try {
    hello_ = child->wait_hello(Clock::now() + kStartTimeout);
  } catch (const ModuleLoadError &e) {
    child->kill("it failed to load", 0);
    throw ModuleLoadError(
        fmt::format("module file {} (isolation: process): {}", file_.string(), e.what()));
  }
  label_ = fmt::format("module '{}'", hello_.id);
  amp_module_descriptor &d = descriptor_.descriptor;
  d.struct_size = sizeof d;
  d.abi_major = hello_.abi_major;
  d.abi_minor = hello_.abi_minor;
  d.id = hello_.id.c_str();
  d.version = hello_.version.c_str();
  d.description = hello_.description.c_str();
  d.kind = hello_.kind;
  d.create = &proxy_create;
  d.session_ready = &proxy_session_ready;
  d.destroy = &proxy_destroy;
  d.kind_table = kind_table(hello_.kind);
  descriptor_.owner = this;
  const amp_host_api &api = host_api();
  call_delta_ = reinterpret_cast<amp_call_delta_fn>(api.get_proc(AMP_PROC_CALL_DELTA));
  emit_content_delta_ =
      reinterpret_cast<amp_emit_content_delta_fn>(api.get_proc(AMP_PROC_EMIT_CONTENT_DELTA));
  hook_has_handlers_ =
      reinterpret_cast<amp_hook_has_handlers_fn>(api.get_proc(AMP_PROC_HOOK_HAS_HANDLERS));
  session_spawn_ = reinterpret_cast<amp_session_spawn_fn>(api.get_proc(AMP_PROC_SESSION_SPAWN));
  tools_changed_ = reinterpret_cast<amp_tools_changed_fn>(api.get_proc(AMP_PROC_TOOLS_CHANGED));
  hook_register_delta_ =
      reinterpret_cast<amp_hook_register_delta_fn>(api.get_proc(AMP_PROC_HOOK_REGISTER_DELTA));
  {
    std::lock_guard lock(mutex_);
    child_ = std::move(child);
    state_ = State::running;
  }
  auto module = std::make_shared<LoadedModule>();
  module->file = file_;
  module->descriptor = &descriptor_.descriptor;
  module->library = shared_from_this();  // the module lives as long as anything of it
  return module;
}

std::optional<Clock::time_point> IsolatedModule::deadline() const {
  if (options_.call_timeout.count() <= 0) return std::nullopt;
  return Clock::now() + options_.call_timeout;
}

// The request's reply, or why there is none (the process is killed when it ran out of time).
std::variant<Reply, std::string> IsolatedModule::request(const std::shared_ptr<Child> &child,
                                                         const Message &message) {
  auto outcome = child->channel().request(message, deadline());
  if (auto *reply = std::get_if<Reply>(&outcome)) return std::move(*reply);
  if (std::get<RequestFailure>(outcome) == RequestFailure::too_large)
    return fmt::format("{} {}: the message is larger than the module's max_message_mb ({} MiB)",
                       label_, to_string(message.fn), options_.max_message_mb);
  if (std::get<RequestFailure>(outcome) == RequestFailure::timed_out) {
    std::string why = fmt::format("{} {} took longer than {} ms; its process was killed", label_,
                                  to_string(message.fn), options_.call_timeout.count());
    child->kill(why, 0);
    return why;
  }
  return fmt::format("{}: its process ended during {}", label_, to_string(message.fn));
}

// Loads the module in a fresh process and makes the instance again, as it was.
void IsolatedModule::bring_up(Child &child) {
  Hello hello = child.wait_hello(Clock::now() + kStartTimeout);
  if (hello.id != hello_.id || hello.kind != hello_.kind)
    throw ModuleLoadError(
        fmt::format("the library now holds module '{}', not '{}'", hello.id, hello_.id));
  auto self = child.shared_from_this();
  std::string config;
  bool ready;
  {
    std::lock_guard lock(mutex_);
    config = config_;
    ready = ready_;
  }
  for (Fn fn : {Fn::create, Fn::session_ready}) {
    if (fn == Fn::session_ready && !ready) break;
    auto outcome = request(self, Message(fn, {config}));
    if (auto *why = std::get_if<std::string>(&outcome)) throw ModuleLoadError(*why);
    const Reply &reply = std::get<Reply>(outcome);
    if (reply.a != AMP_OK)
      throw ModuleLoadError(fmt::format("{} failed: {}", to_string(fn),
                                        reply.text.empty() ? "no reason given" : reply.text));
  }
}

bool IsolatedModule::restart_allowed_locked() {
  const auto now = Clock::now();
  while (!restarts_.empty() && now - restarts_.front() > kRestartWindow) restarts_.pop_front();
  if (int(restarts_.size()) >= options_.restarts_per_minute) return false;
  restarts_.push_back(now);
  return true;
}

// The process serving the module, restarted first when it has died (the restart policy
// allowing); null with `failure` set when the module is down.
std::shared_ptr<Child> IsolatedModule::running_child(std::string &failure) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (state_ == State::running && child_ && !child_->channel().is_closed()) return child_;
    if (state_ == State::starting) {
      state_cv_.wait(lock);
      continue;
    }
    if (state_ == State::stopped || !host_) {
      failure = fmt::format("{} is not mounted", label_);
      return nullptr;
    }
    state_ = State::down;
    if (!given_up_ && !restart_allowed_locked()) {
      given_up_ = true;
      down_reason_ = fmt::format("{} crashed {} times within a minute and stays down (last: {})",
                                 label_, options_.restarts_per_minute + 1, down_reason_);
      log(LogLevel::Error, kIsolationLog, down_reason_);
    }
    if (given_up_) {
      failure = down_reason_;
      return nullptr;
    }
    state_ = State::starting;
    if (child_) retired_.push_back(std::move(child_));
    lock.unlock();
    std::shared_ptr<Child> fresh;
    std::string why;
    try {
      fresh = start_child();
      bring_up(*fresh);
    } catch (const std::exception &e) {
      why = e.what();
      if (fresh) fresh->kill("it failed to restart", 0);
    }
    lock.lock();
    if (why.empty() && state_ == State::starting) {
      child_ = fresh;
      state_ = State::running;
      state_cv_.notify_all();
      lock.unlock();
      log(LogLevel::Warning, kIsolationLog,
          fmt::format("{} restarted (pid {})", label_, fresh->pid()));
      emit(events::kModuleRestarted,
           {{"module", hello_.id}, {"pid", fresh->pid()}, {"generation", fresh->generation()}});
      return fresh;
    }
    if (state_ == State::starting) state_ = State::down;
    down_reason_ = fmt::format("{} could not be restarted: {}", label_, why);
    state_cv_.notify_all();
    if (fresh) retired_.push_back(std::move(fresh));
    failure = down_reason_;
    return nullptr;
  }
}

// ---- IsolatedModule: the module's functions ------------------------------------------

amp_status IsolatedModule::create(amp_host *host, amp_str config, void **out_instance,
                                  amp_writer *error) {
  {
    std::lock_guard lock(mutex_);
    if (host_) {
      write_to(error, "a module run in its own process has one instance; mount it again instead");
      return AMP_ERROR;
    }
    host_ = host;
    config_ = std::string(from_amp(config));
    label_ = fmt::format("module '{}'", host->self->mount_name);
  }
  std::string why;
  amp_status status = call_into(Message(Fn::create, {from_amp(config)}), error, &why);
  if (!why.empty()) write_to(error, why);
  if (status == AMP_OK) *out_instance = this;
  return status;
}

amp_status IsolatedModule::session_ready(amp_writer *error) {
  std::string why;
  amp_status status = call_into(Message(Fn::session_ready), error, &why);
  if (!why.empty()) write_to(error, why);
  if (status == AMP_OK) {
    std::lock_guard lock(mutex_);
    ready_ = true;
  }
  return status;
}

void IsolatedModule::destroy() {
  std::shared_ptr<Child> child;
  std::vector<std::shared_ptr<Child>> retired;
  {
    std::unique_lock lock(mutex_);
    state_ = State::stopped;
    child = std::move(child_);
    retired.swap(retired_);
    state_cv_.notify_all();
    // After this nothing touches host_, which dies with the instance.
    state_cv_.wait(lock, [&] { return reporting_ == 0; });
  }
  retired.clear();  // joins their threads and waits for their request handlers
  if (!child) return;
  if (!child->channel().is_closed())
    child->channel().request(Message(Fn::destroy), Clock::now() + kDestroyTimeout);
  child->channel().close();
  child->reap();
}

amp_status IsolatedModule::call_into(const Message &message, amp_writer *out, std::string *why) {
  std::string failure;
  auto child = running_child(failure);
  if (child) {
    auto outcome = request(child, message);
    if (auto *reply = std::get_if<Reply>(&outcome)) {
      write_to(out, reply->text);
      return static_cast<amp_status>(reply->a);
    }
    failure = std::get<std::string>(outcome);
  }
  log(LogLevel::Error, kIsolationLog, failure);
  if (why) *why = failure;
  return AMP_ERROR;
}

void IsolatedModule::start_call(Fn fn, amp_call_id call,
                                std::initializer_list<std::string_view> args) {
  std::string failure;
  auto child = running_child(failure);
  if (!child) {
    finish_call(call, ErrorKind::module_crashed, failure, -1);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    served_[call] = child->generation();
  }
  bool sent;
  try {
    sent = child->channel().notify(Message(fn, args, call));
  } catch (const std::length_error &e) {
    if (take_served(call, child->generation()))
      finish_call(call, ErrorKind::invalid_request, fmt::format("{}: {}", label_, e.what()), -1);
    return;
  }
  if (!sent) {
    if (take_served(call, child->generation()))
      finish_call(call, ErrorKind::module_crashed,
                  fmt::format("{}: its process ended before the call started", label_), -1);
    return;
  }
  if (options_.call_timeout.count() <= 0) return;
  WorkerPool::shared().submit(
      [weak = weak_from_this(), weak_child = std::weak_ptr<Child>(child), call, fn] {
        auto self = weak.lock();
        auto child = weak_child.lock();
        if (!self || !child || !self->serves(call, child->generation())) return;
        child->kill(fmt::format("{} {} took longer than {} ms; its process was killed",
                                self->label_, to_string(fn), self->options_.call_timeout.count()),
                    call);
      },
      options_.call_timeout);
}

void IsolatedModule::cancel(amp_call_id call, amp_cancel_level level) {
  std::shared_ptr<Child> child;
  {
    std::lock_guard lock(mutex_);
    auto it = served_.find(call);
    if (it == served_.end() || !child_ || child_->generation() != it->second) return;
    child = child_;
  }
  child->channel().notify(Message(Fn::cancel, {}, call, std::uint64_t(level)));
}

amp_status IsolatedModule::invoke(Relay &relay, Fn fn, std::string_view event,
                                  std::string_view data, amp_writer *out) {
  std::string failure;
  if (auto child = running_child(failure)) {
    // A relay the restarted module has not registered again is no longer its handler.
    if (relay.generation.load() != child->generation())
      return fn == Fn::hook_invoke ? AMP_OK : AMP_NOT_FOUND;
    auto outcome = request(child, Message(fn, {event, data}, relay.child_id.load()));
    if (auto *reply = std::get_if<Reply>(&outcome)) {
      write_to(out, reply->text);
      return static_cast<amp_status>(reply->a);
    }
    failure = std::get<std::string>(outcome);
  }
  log(LogLevel::Error, kIsolationLog,
      fmt::format("{} '{}' could not run: {}", fn == Fn::hook_invoke ? "hook" : "contributor",
                  relay.name, failure));
  if (fn == Fn::hook_invoke && options_.required) {
    // A required hook is policy: when it cannot answer, the action does not happen.
    write_to(out, boost::json::serialize(boost::json::object{
                      {"action", "deny"},
                      {"reason", fmt::format("required hook unavailable: {}", failure)}}));
    return AMP_OK;
  }
  return AMP_ERROR;
}

// One typed delta to the process's handler: a request, not a notification, so the handler has
// run before the event's next handler does (and before the block's end reaches it). A delta
// is never denied, so a handler that cannot run is logged, required or not.
amp_status IsolatedModule::invoke_delta(Relay &relay, const amp_hook_delta &delta) {
  std::string failure;
  if (auto child = running_child(failure)) {
    if (relay.generation.load() != child->generation()) return AMP_OK;
    auto outcome = request(child, Message(Fn::hook_delta_invoke, {from_amp(delta.text)},
                                          relay.child_id.load(), 0,
                                          pack_delta(delta.block_index, std::uint32_t(delta.kind))));
    if (auto *reply = std::get_if<Reply>(&outcome)) return static_cast<amp_status>(reply->a);
    failure = std::get<std::string>(outcome);
  }
  log(LogLevel::Error, kIsolationLog,
      fmt::format("hook '{}' could not run: {}", relay.name, failure));
  return AMP_ERROR;
}

// ---- IsolatedModule: what the process asks of the host ---------------------------------

bool IsolatedModule::take_served(amp_call_id call, std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  auto it = served_.find(call);
  if (it == served_.end() || it->second != generation) return false;
  served_.erase(it);
  return true;
}

bool IsolatedModule::serves(amp_call_id call, std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  auto it = served_.find(call);
  return it != served_.end() && it->second == generation;
}

// Which codes a module's process may send the host, and how: the host API as abi.json gives
// it the wire. The switches below have no default, and -Wswitch is an error here: a function
// added to the description (so to Fn) does not compile until this file answers it.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
#define AMP_NOT_FROM_A_MODULE                                                                  \
  case Fn::hello:                                                                              \
  case Fn::load_failed:                                                                        \
  case Fn::create:                                                                             \
  case Fn::session_ready:                                                                      \
  case Fn::destroy:                                                                            \
  case Fn::provider_get_info:                                                                  \
  case Fn::provider_list_models:                                                               \
  case Fn::provider_vtable_complete:                                                           \
  case Fn::tool_list:                                                                          \
  case Fn::tool_vtable_execute:                                                                \
  case Fn::orchestrator_execute:                                                               \
  case Fn::cancel:                                                                             \
  case Fn::context_vtable_add:                                                                 \
  case Fn::context_vtable_get:                                                                 \
  case Fn::context_vtable_get_for_request:                                                     \
  case Fn::context_vtable_set:                                                                 \
  case Fn::context_vtable_clear:                                                               \
  case Fn::hook_invoke:                                                                        \
  case Fn::hook_delta_invoke:                                                                  \
  case Fn::contributor_invoke:                                                                 \
  case Fn::sink_event:                                                                         \
  case Fn::sink_delta:                                                                         \
  case Fn::sink_finish:                                                                        \
  case Fn::host_api_codes

void IsolatedModule::handle_notify(Child &child, const Frame &frame) {
  auto text = frame.string(0);
  switch (frame.fn) {
    case Fn::log:
      host_api().log(host_, static_cast<amp_log_level>(frame.a), to_amp(text));
      return;
    // Stream reports go straight to the kernel, which enforces the call protocol (unknown or
    // ended calls are logged and ignored) for every module alike: no lookup per delta here.
    // A process's reports all arrive before its end is handled, so none outlives its call.
    case Fn::call_event:
      host_api().call_event(host_, frame.a, to_amp(text));
      return;
    case Fn::call_delta:
      call_delta_(host_, frame.a, delta_index(frame.c),
                  static_cast<amp_delta_kind>(delta_kind(frame.c)), to_amp(text));
      return;
    // The end of a call is the process's only if the proxy has not ended it already.
    case Fn::call_finish:
      if (take_served(frame.a, child.generation()))
        host_api().call_finish(host_, frame.a, static_cast<amp_status>(frame.b), to_amp(text));
      return;
    case Fn::emit_content_delta:
      emit_content_delta_(host_, delta_index(frame.c),
                          static_cast<amp_delta_kind>(delta_kind(frame.c)), to_amp(text));
      return;
    // Requests, which never come as notifications.
    case Fn::session_info:
    case Fn::emit:
    case Fn::hook_register:
    case Fn::hook_unregister:
    case Fn::capability_register:
    case Fn::capability_get:
    case Fn::channel_contribute:
    case Fn::channel_collect:
    case Fn::providers_list:
    case Fn::tools_list:
    case Fn::provider_complete:
    case Fn::tool_execute:
    case Fn::call_cancel:
    case Fn::context_add_message:
    case Fn::context_get_messages:
    case Fn::context_get_messages_for_request:
    case Fn::context_set_messages:
    case Fn::context_clear:
    case Fn::request_approval:
    case Fn::hook_has_handlers:
    case Fn::session_spawn:
    case Fn::tools_changed:
    case Fn::hook_register_delta:
    AMP_NOT_FROM_A_MODULE:
      break;
  }
  log(LogLevel::Warning, kIsolationLog,
      fmt::format("{} sent an unexpected message ({})", label_, int(frame.fn)));
}

Reply IsolatedModule::handle_request(Child &child, const Frame &frame) {
  const amp_host_api &api = host_api();
  auto s0 = frame.string(0), s1 = frame.string(1);
  StringWriter out;
  const auto answer = [&out](amp_status status) {
    return Reply{std::uint64_t(status), 0, std::move(out.text)};
  };
  switch (frame.fn) {
    case Fn::session_info:
      return answer(api.session_info(host_, &out));
    case Fn::emit:
      return answer(api.emit(host_, to_amp(s0), to_amp(s1), frame.c ? &out : nullptr));
    case Fn::hook_register:
    case Fn::hook_register_delta:
    case Fn::channel_contribute:
      return register_relay(child, frame.fn, frame);
    case Fn::hook_unregister:
      return unregister_hooks(s0);
    case Fn::capability_register:
      return answer(api.capability_register(host_, to_amp(s0), to_amp(s1)));
    case Fn::capability_get:
      return answer(api.capability_get(host_, to_amp(s0), &out));
    case Fn::channel_collect:
      return answer(api.channel_collect(host_, to_amp(s0), &out));
    case Fn::providers_list:
      return answer(api.providers_list(host_, &out));
    case Fn::tools_list:
      return answer(api.tools_list(host_, &out));
    case Fn::provider_complete:
    case Fn::tool_execute:
    case Fn::session_spawn:
      return start_host_call(child, frame);
    case Fn::call_cancel:
      return answer(api.call_cancel(host_, frame.a, static_cast<amp_cancel_level>(frame.b)));
    case Fn::context_add_message:
      return answer(api.context_add_message(host_, to_amp(s0)));
    case Fn::context_get_messages:
      return answer(api.context_get_messages(host_, &out));
    case Fn::context_get_messages_for_request:
      return answer(api.context_get_messages_for_request(host_, to_amp(s0), &out));
    case Fn::context_set_messages:
      return answer(api.context_set_messages(host_, to_amp(s0)));
    case Fn::context_clear:
      return answer(api.context_clear(host_));
    case Fn::request_approval:
      return answer(api.request_approval(host_, to_amp(s0), &out));
    case Fn::hook_has_handlers:
      return Reply{std::uint64_t(hook_has_handlers_(host_, to_amp(s0))), 0, ""};
    // The host lists the module's tools again: a tool_list request back to this process,
    // which its channel serves while the module's thread waits for this reply.
    case Fn::tools_changed:
      return answer(tools_changed_ ? tools_changed_(host_) : AMP_UNSUPPORTED);
    // Notifications, which never come as requests.
    case Fn::log:
    case Fn::call_event:
    case Fn::call_finish:
    case Fn::call_delta:
    case Fn::emit_content_delta:
    AMP_NOT_FROM_A_MODULE:
      break;
  }
  return Reply{AMP_UNSUPPORTED, 0, fmt::format("unknown request {}", int(frame.fn))};
}
#undef AMP_NOT_FROM_A_MODULE
#pragma GCC diagnostic pop

// A hook handler or contributor of the process: bound to the relay a previous process of the
// module registered under the same key, or registered with the host through a new relay.
Reply IsolatedModule::register_relay(Child &child, Fn fn, const Frame &frame) {
  const bool typed = fn == Fn::hook_register_delta;
  const bool hook = fn == Fn::hook_register || typed;
  // A typed delta hook says only its name: its event is content_block:delta.
  const std::string key(typed ? std::string("content_block:delta") : std::string(frame.string(0)));
  const std::string name(frame.string(typed ? 0 : 1));
  const auto priority = hook ? static_cast<std::int32_t>(std::uint32_t(frame.a)) : 0;
  const bool json_fallback = typed && frame.c != 0;
  if (typed && !hook_register_delta_) return Reply{std::uint64_t(AMP_UNSUPPORTED), 0, ""};
  Relay *relay = nullptr;
  {
    std::lock_guard lock(mutex_);
    for (auto &existing : relays_)
      if (!existing->removed && existing->key == key && existing->name == name &&
          existing->priority == priority && existing->typed == typed &&
          existing->json_fallback == json_fallback &&
          existing->generation.load() < child.generation()) {
        existing->child_id.store(frame.b);
        existing->generation.store(child.generation());
        return Reply{AMP_OK, 0, ""};
      }
    relays_.push_back(std::make_unique<Relay>());
    relay = relays_.back().get();
    relay->owner = this;
    relay->key = key;
    relay->name = name;
    relay->priority = priority;
    relay->typed = typed;
    relay->json_fallback = json_fallback;
    relay->child_id.store(frame.b);
    relay->generation.store(child.generation());
  }
  amp_status status =
      typed ? hook_register_delta_(host_, priority, to_amp(name), &relay_hook_delta,
                                   json_fallback ? &relay_hook : nullptr, relay)
      : hook ? host_api().hook_register(host_, to_amp(key), priority, to_amp(name), &relay_hook,
                                        relay)
             : host_api().channel_contribute(host_, to_amp(key), to_amp(name), &relay_contributor,
                                             relay);
  if (status != AMP_OK) {
    std::lock_guard lock(mutex_);
    relay->removed = true;
  }
  return Reply{std::uint64_t(status), 0, ""};
}

Reply IsolatedModule::unregister_hooks(std::string_view name) {
  amp_status status = host_api().hook_unregister(host_, to_amp(name));
  std::lock_guard lock(mutex_);
  for (auto &relay : relays_)
    if (relay->name == name) relay->removed = true;
  return Reply{std::uint64_t(status), 0, ""};
}

Reply IsolatedModule::start_host_call(Child &child, const Frame &frame) {
  auto *relay = new SinkRelay();
  relay->child = child.weak_from_this();
  relay->child_sink_id = frame.a;
  relay->sink.struct_size = sizeof relay->sink;
  relay->sink.user_data = relay;
  relay->sink.on_event = &sink_on_event;
  relay->sink.on_finish = &sink_on_finish;
  relay->sink.on_delta = frame.b ? &sink_on_delta : nullptr;
  child.track(relay);
  amp_call_id call = 0;
  auto target = to_amp(frame.string(0)), payload = to_amp(frame.string(1));
  amp_status status = AMP_UNSUPPORTED;
  if (frame.fn == Fn::provider_complete)
    status = host_api().provider_complete(host_, target, payload, &relay->sink, &call);
  else if (frame.fn == Fn::tool_execute)
    status = host_api().tool_execute(host_, target, payload, &relay->sink, &call);
  else if (session_spawn_)  // a child session of the module's, linked to its session here
    // Trust: the module's (a model's) request meets the same host policy as in process.
    status = session_spawn_(host_, payload, &relay->sink, &call);
  if (status != AMP_OK) {  // no callback will come
    child.untrack(relay);
    delete relay;
    return Reply{std::uint64_t(status), 0, ""};
  }
  child.started(relay, call);  // the call may have ended, and the relay gone, by now
  return Reply{AMP_OK, call, ""};
}

// ---- IsolatedModule: when a process ends -------------------------------------------------

void IsolatedModule::child_closed(Child &child) {
  std::lock_guard lock(mutex_);
  if (child_.get() == &child && state_ == State::running) state_ = State::down;
}

void IsolatedModule::finish_call(amp_call_id call, ErrorKind kind, const std::string &message,
                                 int wait_status) {
  boost::json::object error{
      {"kind", to_string(kind)}, {"message", message}, {"module", hello_.id}, {"retryable", false}};
  if (wait_status >= 0 && WIFSIGNALED(wait_status)) error["signal"] = WTERMSIG(wait_status);
  if (wait_status >= 0 && WIFEXITED(wait_status)) error["exit_status"] = WEXITSTATUS(wait_status);
  std::string payload = boost::json::serialize(error);
  host_api().call_finish(host_, call, AMP_ERROR, to_amp(payload));
}

void IsolatedModule::child_ended(const std::shared_ptr<Child> &child) {
  const int wait_status = child->reap();
  auto [killed_for, timed_out_call] = child->kill_reason();
  const std::string how = killed_for.empty() ? ProcessEnd::describe(wait_status) : killed_for;
  std::vector<amp_call_id> calls;
  bool will_restart;
  {
    std::lock_guard lock(mutex_);
    if (state_ == State::stopped) return;  // unmounted: the end was asked for
    ++reporting_;
    for (auto it = served_.begin(); it != served_.end();) {
      if (it->second == child->generation()) {
        calls.push_back(it->first);
        it = served_.erase(it);
      } else {
        ++it;
      }
    }
    down_reason_ = how;
    const auto now = Clock::now();
    const auto recent = std::count_if(restarts_.begin(), restarts_.end(),
                                      [&](auto at) { return now - at <= kRestartWindow; });
    will_restart = !given_up_ && recent < options_.restarts_per_minute;
  }
  struct Reported {
    IsolatedModule &module;
    ~Reported() {
      std::lock_guard lock(module.mutex_);
      --module.reporting_;
      module.state_cv_.notify_all();
    }
  } reported{*this};
  const std::string message = fmt::format("{} crashed ({}){}", label_, how,
                                          will_restart ? "; it restarts on its next call" : "");
  log(LogLevel::Error, kIsolationLog,
      fmt::format("{} (pid {}); {} call(s) ended", message, child->pid(), calls.size()));
  // The crash is announced before the calls it ended, so whoever sees a call fail can
  // already know why.
  boost::json::object data{{"module", hello_.id},
                           {"reason", how},
                           {"pid", child->pid()},
                           {"calls_failed", calls.size()},
                           {"will_restart", will_restart}};
  if (WIFSIGNALED(wait_status)) data["signal"] = WTERMSIG(wait_status);
  if (WIFEXITED(wait_status)) data["exit_status"] = WEXITSTATUS(wait_status);
  emit(events::kModuleCrashed, std::move(data));
  for (amp_call_id call : calls)
    finish_call(call, call == timed_out_call ? ErrorKind::timeout : ErrorKind::module_crashed,
                call == timed_out_call ? killed_for : message, wait_status);
  for (amp_call_id call : child->started_calls())
    host_api().call_cancel(host_, call, AMP_CANCEL_IMMEDIATE);
}

void IsolatedModule::emit(std::string_view event, boost::json::object data) {
  if (auto *mount = host_ ? host_->self : nullptr) data["mount_name"] = mount->mount_name;
  std::string text = boost::json::serialize(data);
  host_api().emit(host_, to_amp(event), to_amp(text), nullptr);
}

}  // namespace
}  // namespace isolation

std::shared_ptr<const LoadedModule> load_isolated(const std::filesystem::path &file,
                                                  IsolationOptions options) {
  // The plan's reader keeps it in range; a program calling this directly is held to it too.
  options.max_message_mb = std::clamp<std::size_t>(
      options.max_message_mb, 1, isolation::kMaxFrameBytesCeiling >> 20);
  auto module = std::make_shared<isolation::IsolatedModule>(file, options);
  return module->start();
}

}  // namespace amplifier
