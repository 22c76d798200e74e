#include "amplifier/coordinator.hpp"

#include "amplifier/json_schema.hpp"
#include "amplifier/log.hpp"
#include "amplifier/worker_pool.hpp"
#include "call_registry.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <atomic>
#include <thread>

namespace amplifier {
namespace {

constexpr std::string_view kCoordinatorLog = "coordinator";
// How long unmounting waits for a module's calls to end after cancelling them.
constexpr auto kUnmountGrace = std::chrono::seconds(5);

std::atomic<std::uint64_t> next_owner_id{1};

struct StringWriter : amp_writer {
  std::string text;
  StringWriter() : amp_writer{this, [](amp_writer *w, const char *d, size_t n) {
                                static_cast<StringWriter *>(w->host_data)->text.append(d, n);
                              }} {}
};

amp_module_kind expected_kind(std::string_view mount_point) {
  if (mount_point == "orchestrator") return AMP_KIND_ORCHESTRATOR;
  if (mount_point == "context") return AMP_KIND_CONTEXT;
  if (mount_point == "providers") return AMP_KIND_PROVIDER;
  if (mount_point == "tools") return AMP_KIND_TOOL;
  return AMP_KIND_HOOK;
}

// Reads a JSON document a module wrote; throws naming the module on garbage.
boost::json::value parse_module_json(const MountedModule &m, const std::string &text,
                                     const char *what) {
  boost::json::error_code ec;
  auto v = boost::json::parse(text, ec, {}, kernel_parse_options());
  if (ec)
    throw ModuleLoadError(fmt::format("module '{}': {} is not valid JSON ({})", m.id(), what,
                                      ec.message()));
  return v;
}

}  // namespace

// How many orchestrator executes are still running on a worker (a turn's call may finish
// before its execute returns, and the next turn may start meanwhile).
struct Coordinator::TurnState {
  std::mutex mutex;
  std::condition_variable returned;
  int running = 0;
};

Coordinator::Coordinator(HookRegistry &hooks, CancellationToken &cancellation,
                         std::string session_id, std::string parent_id)
    : hooks_(hooks),
      cancellation_(cancellation),
      session_id_(std::move(session_id)),
      parent_id_(std::move(parent_id)),
      calls_(std::make_shared<CallRegistry>()),
      turn_(std::make_shared<TurnState>()) {
  cancel_listener_ = cancellation_.on_change([this](CancelLevel level) { on_session_cancel(level); });
}

Coordinator::~Coordinator() {
  cancellation_.remove_listener(cancel_listener_);
  unmount_all();
  // Instances whose code never returned are kept, with their libraries, until the process ends:
  // the threads still inside them touch their MountedModule when they come out.
  for (auto &m : stuck_) static_cast<void>(m.release());
}

// ---- mounting ------------------------------------------------------------------------

MountedModule &Coordinator::mount(std::string mount_point, std::string mount_name,
                                  std::shared_ptr<const LoadedModule> module,
                                  boost::json::object config,
                                  std::chrono::milliseconds call_timeout) {
  const amp_module_descriptor &d = *module->descriptor;
  if (d.kind != expected_kind(mount_point))
    throw ModuleLoadError(fmt::format("module '{}' is a {} module and cannot be mounted as {}",
                                      d.id, to_string(d.kind), mount_point));
  auto m = std::make_unique<MountedModule>();
  m->owner_id = next_owner_id.fetch_add(1);
  m->mount_point = std::move(mount_point);
  m->mount_name = std::move(mount_name);
  m->module = std::move(module);
  m->config = std::move(config);
  m->call_timeout = call_timeout;
  m->host = amp_host{this, m.get()};
  if (auto it = m->config.find("priority"); it != m->config.end() && it->value().is_int64())
    m->priority = static_cast<int>(it->value().as_int64());

  std::string config_text = boost::json::serialize(m->config);
  StringWriter error;
  amp_status status = d.create(&m->host, amp_str{config_text.data(), config_text.size()},
                               &m->instance, &error);
  if (status != AMP_OK) {
    hooks_.unregister_owner(m->owner_id);  // it may have registered before failing
    throw ModuleLoadError(fmt::format("module '{}': initialisation failed: {}", d.id,
                                      error.text.empty() ? std::string(to_string(status))
                                                         : error.text),
                          status);
  }
  MountedModule &mounted = *m;
  mounted_.push_back(std::move(m));
  try {
    describe_mounted(mounted);
  } catch (...) {
    unmount_last();
    throw;
  }
  return mounted;
}

void Coordinator::describe_mounted(MountedModule &m) {
  if (m.mount_point == "orchestrator") orchestrator_ = &m;
  if (m.mount_point == "context") context_ = &m;
  if (m.mount_point == "providers") {
    StringWriter info;
    if (m.table<amp_provider_vtable>()->get_info(m.instance, &info) == AMP_OK && !info.text.empty())
      m.info = parse_module_json(m, info.text, "provider info");
  }
  if (m.mount_point == "tools") {
    boost::json::array specs = read_tool_specs(m);
    std::unique_lock lock(tools_mutex_);
    mount_tools(m, std::move(specs));
  }
}

boost::json::array Coordinator::read_tool_specs(MountedModule &m) {
  StringWriter specs;
  amp_status s = m.table<amp_tool_vtable>()->list_tools(m.instance, &specs);
  auto v = s == AMP_OK ? parse_module_json(m, specs.text, "tool list") : boost::json::value();
  if (!v.is_array())
    throw ModuleLoadError(fmt::format("module '{}': list_tools did not return an array", m.id()));
  for (auto &spec : v.as_array()) {
    auto *name = spec.is_object() ? spec.as_object().if_contains("name") : nullptr;
    if (!name || !name->is_string())
      throw ModuleLoadError(fmt::format("module '{}': a tool spec has no name", m.id()));
  }
  return std::move(v.as_array());
}

void Coordinator::mount_tools(MountedModule &m, boost::json::array specs) {
  auto owned_by_m = [&](const boost::json::value &spec) {
    return tool_owner_locked(spec.as_object().at("name").as_string()) == &m;
  };
  tool_specs_.erase(std::remove_if(tool_specs_.begin(), tool_specs_.end(), owned_by_m),
                    tool_specs_.end());
  forget_tools_of(m);
  for (auto &spec : specs) {
    std::string tool_name(spec.as_object().at("name").as_string());
    if (tools_by_name_.count(tool_name)) {
      log(LogLevel::Warning, kCoordinatorLog,
          fmt::format("tool '{}' from module '{}' is already mounted; keeping the first",
                      tool_name, m.id()));
      continue;
    }
    tools_by_name_.emplace(tool_name, &m);
    compile_tool_schema(m, tool_name, spec.as_object());
    tool_specs_.push_back(std::move(spec));
  }
  m.tools_mounted = true;
}

void Coordinator::forget_tools_of(const MountedModule &m) {
  std::erase_if(tools_by_name_, [&](const auto &entry) { return entry.second == &m; });
  std::erase_if(tool_schemas_,
                [&](const auto &entry) { return !tools_by_name_.count(entry.first); });
}

void Coordinator::refresh_tools(MountedModule &m) {
  if (m.mount_point != "tools") return;
  boost::json::array specs = read_tool_specs(m);
  std::unique_lock lock(tools_mutex_);
  if (m.tools_mounted) mount_tools(m, std::move(specs));
}

void Coordinator::compile_tool_schema(const MountedModule &m, const std::string &tool_name,
                                      const boost::json::object &spec) {
  auto *parameters = spec.if_contains("parameters");
  if (!parameters || parameters->is_null()) return;
  try {
    tool_schemas_[tool_name] = std::make_shared<const JsonSchema>(*parameters);
  } catch (const std::exception &e) {
    log(LogLevel::Warning, kCoordinatorLog,
        fmt::format("tool '{}' of module '{}' has a schema that does not compile ({}); its input "
                    "is not validated", tool_name, m.id(), e.what()));
  }
}

std::string Coordinator::tool_input_problem(std::string_view tool_name,
                                            std::string_view input_json) const {
  std::shared_ptr<const JsonSchema> schema;
  {
    std::shared_lock lock(tools_mutex_);
    auto it = tool_schemas_.find(tool_name);
    if (it == tool_schemas_.end()) return {};
    schema = it->second;
  }
  boost::json::error_code ec;
  auto input = boost::json::parse(input_json, ec, {}, kernel_parse_options());
  if (ec) return fmt::format("Invalid input for {}: not valid JSON", tool_name);
  auto violations = schema->validate(input, "input", 16);
  if (violations.empty()) return {};
  return fmt::format("Invalid input for {}: {}", tool_name, describe_violations(violations));
}

void Coordinator::unmount_last() {
  auto m = std::move(mounted_.back());
  mounted_.pop_back();
  if (!destroy_instance(*m)) stuck_.push_back(std::move(m));
}

namespace {
// Waits (teardown only) until no thread runs inside the module's code.
bool wait_invocations_done(const MountedModule &m, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (m.active_invocations.load() > 0) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}
}  // namespace

std::vector<std::pair<std::string, std::string>> Coordinator::run_session_ready() {
  std::vector<std::pair<std::string, std::string>> failures;
  for (auto &m : mounted_) {
    auto *ready = m->module->descriptor->session_ready;
    if (!ready) continue;
    StringWriter error;
    if (ready(m->instance, &error) != AMP_OK)
      failures.emplace_back(std::string(m->id()), error.text.empty() ? "session_ready failed" : error.text);
  }
  return failures;
}

struct MountedModule::DelayedWork {
  std::atomic<bool> claimed{false};  // by whoever runs it: the timer or the expediter
  std::function<void()> run;
};

void Coordinator::submit_module_work(MountedModule &m, std::chrono::milliseconds delay,
                                     std::function<void()> run) {
  // Counted as code of the instance from now on: it is not destroyed before the work ran.
  m.active_invocations.fetch_add(1);
  try {
    if (delay.count() <= 0) {
      WorkerPool::shared().submit([&m, run = std::move(run)] {
        InvocationGuard inside(m, std::adopt_lock);
        run();
      });
      return;
    }
    auto work = std::make_shared<MountedModule::DelayedWork>();
    work->run = std::move(run);
    {
      std::lock_guard lock(m.delayed_mutex);
      m.delayed_work.push_back(work);
    }
    // A timer that fires after the work was expedited finds it claimed and touches nothing
    // else: the instance may be gone by then.
    WorkerPool::shared().submit(
        [&m, work] {
          if (work->claimed.exchange(true)) return;
          {
            std::lock_guard lock(m.delayed_mutex);
            std::erase(m.delayed_work, work);
          }
          InvocationGuard inside(m, std::adopt_lock);
          work->run();
        },
        delay);
  } catch (...) {
    m.active_invocations.fetch_sub(1);
    throw;
  }
}

void Coordinator::expedite_delayed_work(MountedModule &m) {
  std::vector<std::shared_ptr<MountedModule::DelayedWork>> pending;
  {
    std::lock_guard lock(m.delayed_mutex);
    pending.swap(m.delayed_work);
  }
  for (auto &work : pending) {
    if (work->claimed.exchange(true)) continue;  // its timer is running it right now
    WorkerPool::shared().submit([&m, work] {
      InvocationGuard inside(m, std::adopt_lock);  // still counted since submit_module_work
      work->run();
    });
  }
}

namespace {
// Cancels the calls `m` serves or started (`role`), waits for them a while, and ends those
// still running on the kernel's behalf with the error `why`.
void end_calls(Coordinator &coordinator, CallRegistry &calls, MountedModule &m,
               CallRegistry::Role role, std::string_view why) {
  for (auto &call : calls.in_flight(&m, role))
    coordinator.cancel_call(call->id, CancelLevel::Immediate);
  if (calls.wait_idle(&m, kUnmountGrace, role)) return;
  for (auto &call : calls.in_flight(&m, role))
    calls.finish_by_kernel(call, AMP_CANCELLED, std::string(why));
  log(LogLevel::Warning, kCoordinatorLog,
      fmt::format("module '{}': {} did not end when cancelled", m.id(),
                  role == CallRegistry::Role::callee ? "calls it served" : "calls it started"));
}
}  // namespace

bool Coordinator::destroy_instance(MountedModule &m) {
  // Calls still running on the instance are cancelled and given time to end; a module that
  // ignores cancellation has its calls ended by the kernel, so no caller waits forever.
  end_calls(*this, *calls_, m, CallRegistry::Role::callee,
            R"({"kind":"cancelled","message":"the module was unmounted before the call ended"})");
  // So are the calls it started (a hook or tool calling a provider): their ends run its sinks,
  // which must happen while its library is still loaded.
  end_calls(*this, *calls_, m, CallRegistry::Role::caller,
            R"({"kind":"cancelled","message":"the module that started the call was unmounted"})");
  hooks_.unregister_owner(m.owner_id);
  std::vector<std::shared_ptr<ContributorGate>> gates;
  {
    std::lock_guard lock(registry_mutex_);
    for (auto &[channel, list] : channels_) {
      for (const Contribution &c : list)
        if (c.owner == m.owner_id) gates.push_back(c.gate);
      std::erase_if(list, [&](const Contribution &c) { return c.owner == m.owner_id; });
    }
  }
  // A collect() that took its snapshot before the removal may be running one of them now.
  bool contributors_idle = true;
  for (auto &gate : gates) {
    std::unique_lock lock(gate->mutex);
    gate->removed = true;
    contributors_idle = gate->idle.wait_for(lock, kUnmountGrace, [&] {
      return gate->running == 0;
    }) && contributors_idle;
  }
  if (orchestrator_ == &m) orchestrator_ = nullptr;
  if (context_ == &m) context_ = nullptr;
  {
    std::unique_lock lock(tools_mutex_);
    m.tools_mounted = false;
    forget_tools_of(m);
  }
  expedite_delayed_work(m);
  if (!contributors_idle || !wait_invocations_done(m, kUnmountGrace)) {
    log(LogLevel::Error, kCoordinatorLog,
        fmt::format("module '{}' is still running code after its calls ended; it is left "
                    "loaded and not destroyed", m.id()));
    return false;
  }
  m.module->descriptor->destroy(m.instance);
  m.instance = nullptr;
  return true;
}

void Coordinator::unmount_all() {
  if (!wait_turn_returned(kUnmountGrace))
    log(LogLevel::Error, kCoordinatorLog,
        fmt::format("orchestrator '{}' is still running a turn; unmounting without waiting for it",
                    orchestrator_ ? orchestrator_->id() : std::string_view("?")));
  while (!mounted_.empty()) unmount_last();
  std::unique_lock lock(tools_mutex_);
  tool_specs_.clear();
}

MountedModule *Coordinator::provider(std::string_view name) const {
  for (auto &m : mounted_)
    if (m->mount_point == "providers" && m->mount_name == name) return m.get();
  return nullptr;
}

std::vector<MountedModule *> Coordinator::providers() const {
  std::vector<MountedModule *> out;
  for (auto &m : mounted_)
    if (m->mount_point == "providers") out.push_back(m.get());
  return out;
}

MountedModule *Coordinator::tool_owner(std::string_view tool_name) const {
  std::shared_lock lock(tools_mutex_);
  return tool_owner_locked(tool_name);
}

MountedModule *Coordinator::tool_owner_locked(std::string_view tool_name) const {
  auto it = tools_by_name_.find(tool_name);
  return it == tools_by_name_.end() ? nullptr : it->second;
}

boost::json::array Coordinator::tool_specs() const {
  std::shared_lock lock(tools_mutex_);
  return tool_specs_;
}

boost::json::array Coordinator::provider_listing() const {
  boost::json::array out;
  for (auto *p : providers())
    out.push_back(boost::json::object{{"name", p->mount_name},
                                      {"module", std::string(p->id())},
                                      {"priority", p->priority},
                                      {"info", p->info}});
  return out;
}

// ---- capabilities and channels -------------------------------------------------------

void Coordinator::register_capability(std::string name, boost::json::value value) {
  std::lock_guard lock(registry_mutex_);
  capabilities_[std::move(name)] = std::move(value);
}

std::optional<boost::json::value> Coordinator::capability(std::string_view name) const {
  std::lock_guard lock(registry_mutex_);
  auto it = capabilities_.find(name);
  if (it == capabilities_.end()) return std::nullopt;
  return it->second;
}

void Coordinator::contribute(std::string channel, std::string name, Contributor fn,
                             std::uint64_t owner) {
  std::lock_guard lock(registry_mutex_);
  channels_[std::move(channel)].push_back({std::move(name), std::move(fn), owner});
}

boost::json::array Coordinator::collect(std::string_view channel) const {
  std::vector<Contribution> snapshot;
  {
    std::lock_guard lock(registry_mutex_);
    if (auto it = channels_.find(channel); it != channels_.end()) snapshot = it->second;
  }
  boost::json::array out;
  for (auto &c : snapshot) {
    {
      std::lock_guard lock(c.gate->mutex);
      if (c.gate->removed) continue;  // its module is being unmounted
      ++c.gate->running;
    }
    struct Leave {
      ContributorGate &gate;
      ~Leave() {
        std::lock_guard lock(gate.mutex);
        if (--gate.running == 0) gate.idle.notify_all();
      }
    } leave{*c.gate};
    try {
      out.push_back(boost::json::object{{"name", c.name}, {"value", c.fn()}});
    } catch (const std::exception &e) {
      log(LogLevel::Warning, kCoordinatorLog,
          fmt::format("contributor '{}' to channel '{}' failed and was skipped: {}", c.name,
                      channel, e.what()));
    }
  }
  return out;
}

// ---- approval ------------------------------------------------------------------------

void Coordinator::set_approval_handler(ApprovalHandler handler) {
  std::lock_guard lock(approval_mutex_);
  approval_handler_ = std::move(handler);
}

boost::json::object Coordinator::request_approval(const boost::json::object &request) {
  std::string fallback = "deny";
  if (auto *d = request.if_contains("default"); d && d->is_string()) fallback = d->as_string();
  std::lock_guard lock(approval_mutex_);
  if (!approval_handler_)
    return {{"decision", fallback}, {"reason", "no interactive user to ask"}};
  try {
    // A person answers: the worker may wait minutes, and others' work must not wait with it.
    WorkerPool::BlockingSection asking;
    auto answer = approval_handler_(request);
    auto *decision = answer.if_contains("decision");
    if (decision && decision->is_string()) return answer;
  } catch (const std::exception &e) {
    log(LogLevel::Error, kCoordinatorLog, fmt::format("asking for approval failed: {}", e.what()));
  }
  return {{"decision", "deny"}, {"reason", "asking for approval failed"}};
}

void Coordinator::set_mode(std::shared_ptr<const SessionMode> mode) {
  std::lock_guard lock(mode_mutex_);
  mode_ = std::move(mode);
}

std::shared_ptr<const SessionMode> Coordinator::mode() const {
  std::lock_guard lock(mode_mutex_);
  return mode_;
}

std::string Coordinator::ask_for_mode(const SessionMode &mode, std::string_view tool_name,
                                      std::string_view input_json) {
  // Read as the kernel reads model input (deep nesting allowed); shown as text if it is not JSON.
  boost::json::error_code ec;
  boost::json::value input = boost::json::parse(input_json, ec, {}, kernel_parse_options());
  if (ec) input = boost::json::value(input_json);
  const boost::json::object answer = request_approval(boost::json::object{
      {"prompt", fmt::format("{} mode asks before {} runs", mode.name, tool_name)},
      {"options", boost::json::array{"allow_once", "deny"}},
      {"timeout_seconds", 300},
      {"default", "deny"},
      {"tool_name", tool_name},
      {"details", boost::json::object{{"input", std::move(input)}, {"mode", mode.name}}}});
  const auto *decision = answer.if_contains("decision");
  if (decision && decision->is_string() &&
      (decision->get_string() == "allow_once" || decision->get_string() == "allow_always"))
    return {};
  const auto *reason = answer.if_contains("reason");
  return fmt::format("Tool '{}' was not run: {} mode asks the user first, and the answer was no{}.",
                     tool_name, mode.name,
                     reason && reason->is_string() && !reason->get_string().empty()
                         ? fmt::format(" ({})", std::string_view(reason->get_string()))
                         : std::string());
}

Coordinator::ApprovalHandler Coordinator::approval_handler() {
  std::lock_guard lock(approval_mutex_);
  return approval_handler_;
}

// ---- context access for the kernel ----------------------------------------------------

std::string Coordinator::context_messages() {
  if (!context_) throw std::runtime_error("no context is mounted");
  amp::sdk::StringWriter out;
  InvocationGuard inside(*context_);
  if (context_->table<amp_context_vtable>()->get_messages(context_->instance, &out) != AMP_OK)
    throw std::runtime_error(fmt::format("context '{}' failed to list its messages", context_->id()));
  return std::move(out.text);
}

void Coordinator::set_context_messages(std::string_view messages_json) {
  if (!context_) throw std::runtime_error("no context is mounted");
  InvocationGuard inside(*context_);
  if (context_->table<amp_context_vtable>()->set_messages(
          context_->instance, amp_str{messages_json.data(), messages_json.size()}) != AMP_OK)
    throw std::runtime_error(fmt::format("context '{}' refused the messages", context_->id()));
}

// ---- child sessions --------------------------------------------------------------------

void Coordinator::set_spawn_handler(SpawnHandler handler) {
  std::lock_guard lock(spawn_mutex_);
  spawn_handler_ = std::move(handler);
}

bool Coordinator::can_spawn() const {
  std::lock_guard lock(spawn_mutex_);
  return static_cast<bool>(spawn_handler_);
}

amp_call_id Coordinator::start_spawn_call(std::string request_json, CallObserver observer,
                                          const MountedModule *caller, amp_call_id *out_id) {
  SpawnHandler handler;
  {
    std::lock_guard lock(spawn_mutex_);
    handler = spawn_handler_;
  }
  if (!handler) throw std::logic_error("this session cannot spawn child sessions");
  auto record = calls_->create_kernel_served(caller, std::move(observer));
  if (out_id) *out_id = record->id;
  auto call = std::make_shared<KernelCall>(calls_, record);
  try {
    handler(std::move(request_json), call);
  } catch (const std::exception &e) {
    call->finish(AMP_ERROR, boost::json::serialize(boost::json::object{
                                {"kind", "internal"}, {"message", e.what()}}));
  }
  return record->id;
}

bool Coordinator::cancel_kernel_call(CallRecord &call, CancelLevel level) {
  std::function<void(CancelLevel)> cancel;
  {
    std::lock_guard delivery(call.delivery);
    if (call.finished) return true;
    cancel = call.kernel_cancel;
  }
  if (cancel) cancel(level);
  return true;
}

KernelCall::KernelCall(std::shared_ptr<CallRegistry> registry, std::shared_ptr<CallRecord> record)
    : registry_(std::move(registry)), record_(std::move(record)) {}

amp_call_id KernelCall::id() const { return record_->id; }

void KernelCall::event(std::string_view event_json) { registry_->kernel_event(record_, event_json); }

void KernelCall::finish(amp_status status, std::string payload_json) {
  registry_->finish_by_kernel(record_, status, std::move(payload_json));
}

CancelLevel KernelCall::cancel_level() const {
  return static_cast<CancelLevel>(record_->own_level.load());
}

void KernelCall::on_cancel(std::function<void(CancelLevel)> handler) {
  {
    std::lock_guard delivery(record_->delivery);
    if (record_->finished) return;
    record_->kernel_cancel = handler;
  }
  // A cancel that came before the handler was set is not lost.
  if (CancelLevel level = cancel_level(); level != CancelLevel::None) handler(level);
}

// ---- calls ---------------------------------------------------------------------------

amp_call_id Coordinator::start_provider_call(MountedModule &provider, std::string_view request_json,
                                             CallObserver observer, const MountedModule *caller,
                                             amp_call_id *out_id) {
  auto call = calls_->create(provider, caller, std::move(observer));
  if (out_id) *out_id = call->id;
  arm_call_deadline(provider, call);
  InvocationGuard inside(provider);
  provider.table<amp_provider_vtable>()->complete(
      provider.instance, call->id, amp_str{request_json.data(), request_json.size()});
  return call->id;
}

amp_call_id Coordinator::start_tool_call(MountedModule &tool, std::string tool_name,
                                         std::string input_json, CallObserver observer,
                                         const MountedModule *caller, amp_call_id *out_id) {
  auto call = calls_->create(tool, caller, std::move(observer));
  if (out_id) *out_id = call->id;
  // The kernel answers for the tool: the model gets an error result it can read, and the tool
  // never sees the call.
  auto refuse = [&](const std::string &problem) {
    boost::json::object result{{"success", false},
                               {"output", problem},
                               {"error", boost::json::object{{"message", problem}}}};
    // Counted against the tool, so the coordinator outlives the task (unmount waits for it).
    tool.active_invocations.fetch_add(1);
    WorkerPool::shared().submit([this, &tool, call, payload = boost::json::serialize(result)] {
      InvocationGuard counted(tool, std::adopt_lock);
      calls_->finish_by_kernel(call, AMP_OK, payload);
    });
    return call->id;
  };
  // The session's mode first: a tool it refuses is not run, whatever asked for it.
  if (const auto active = mode()) {
    if (std::string refusal = mode_refusal(*active, tool_name); !refusal.empty()) return refuse(refusal);
    if (mode_asks(*active, tool_name))
      if (std::string denied = ask_for_mode(*active, tool_name, input_json); !denied.empty())
        return refuse(denied);
  }
  // Input that breaks the tool's schema never reaches the tool.
  if (std::string problem = tool_input_problem(tool_name, input_json); !problem.empty())
    return refuse(problem);
  arm_call_deadline(tool, call);
  tool.active_invocations.fetch_add(1);  // counted from now, so unmount waits for the worker
  // A tool may block for its whole run (a command, a request): other sessions' work must not
  // wait behind it.
  WorkerPool::shared().submit_blocking([&tool, id = call->id, name = std::move(tool_name),
                                        input = std::move(input_json)] {
    InvocationGuard inside(tool, std::adopt_lock);
    tool.table<amp_tool_vtable>()->execute(tool.instance, id, amp_str{name.data(), name.size()},
                                           amp_str{input.data(), input.size()});
  });
  return call->id;
}

amp_call_id Coordinator::start_orchestrator_call(std::string prompt_json, CallObserver observer) {
  if (!orchestrator_) throw std::logic_error("no orchestrator is mounted");
  auto call = calls_->create(*orchestrator_, nullptr, std::move(observer));
  MountedModule *orchestrator = orchestrator_;
  arm_call_deadline(*orchestrator, call);
  {
    std::lock_guard lock(turn_->mutex);
    ++turn_->running;
  }
  orchestrator->active_invocations.fetch_add(1);
  // An orchestrator may block inside execute until its turn ends (ABI 1.0/1.1 ones do); the
  // pool grows around it. One that returns at once and resumes through work_submit costs no
  // thread while it waits.
  WorkerPool::shared().submit([orchestrator, turn = turn_, id = call->id,
                               prompt = std::move(prompt_json)] {
    {
      InvocationGuard inside(*orchestrator, std::adopt_lock);
      orchestrator->table<amp_orchestrator_vtable>()->execute(
          orchestrator->instance, id, amp_str{prompt.data(), prompt.size()});
    }
    std::lock_guard lock(turn->mutex);
    --turn->running;
    turn->returned.notify_all();
  });
  return call->id;
}

// The timer is the module's own delayed work: at unmount it runs early, finds the call ended
// (unmount ends every call first) and does nothing, so it never outlives the instance.
void Coordinator::arm_call_deadline(MountedModule &m, const std::shared_ptr<CallRecord> &call) {
  if (m.call_timeout.count() <= 0) return;
  submit_module_work(m, m.call_timeout, [this, &m, weak = std::weak_ptr<CallRecord>(call)] {
    auto running = weak.lock();
    if (!running) return;
    {
      std::lock_guard lock(running->delivery);
      if (running->finished) return;
    }
    const std::string message =
        fmt::format("module '{}' did not end the call within its timeout of {} ms", m.mount_name,
                    m.call_timeout.count());
    log(LogLevel::Warning, kCoordinatorLog, message);
    cancel_call(running->id, CancelLevel::Immediate);
    calls_->finish_by_kernel(running, AMP_ERROR,
                             boost::json::serialize(boost::json::object{
                                 {"kind", "timeout"},
                                 {"message", message},
                                 {"module", std::string(m.id())},
                                 {"retryable", false}}));
  });
}

bool Coordinator::wait_turn_returned(std::chrono::milliseconds timeout) {
  std::unique_lock lock(turn_->mutex);
  return turn_->returned.wait_for(lock, timeout, [&] { return turn_->running == 0; });
}

bool Coordinator::cancel_call(amp_call_id id, CancelLevel level, const MountedModule *caller) {
  auto call = calls_->find(id);
  if (!call) return false;
  if (caller && call->caller != caller) return false;  // only the starter may cancel it
  int wanted = static_cast<int>(level);
  int previous = call->own_level.load();
  while (previous < wanted && !call->own_level.compare_exchange_weak(previous, wanted)) {
  }
  if (!call->callee) return cancel_kernel_call(*call, level);
  MountedModule &m = *call->callee;
  {
    // Counted while the call is known to be running: unmounting ends every call before it
    // waits for the module's code to be left, so the instance outlives this invocation.
    std::lock_guard delivery(call->delivery);
    if (call->finished) return true;
    m.active_invocations.fetch_add(1);
  }
  InvocationGuard inside(m, std::adopt_lock);
  amp_cancel_level abi = to_abi(level);
  switch (m.kind()) {
    case AMP_KIND_PROVIDER: m.table<amp_provider_vtable>()->cancel(m.instance, id, abi); break;
    case AMP_KIND_TOOL: m.table<amp_tool_vtable>()->cancel(m.instance, id, abi); break;
    case AMP_KIND_ORCHESTRATOR: m.table<amp_orchestrator_vtable>()->cancel(m.instance, id, abi); break;
    default: break;
  }
  return true;
}

CancelLevel Coordinator::call_cancel_level(amp_call_id id) const {
  CancelLevel session = cancellation_.level();
  auto call = calls_->find(id);
  if (!call) return session;
  auto own = static_cast<CancelLevel>(call->own_level.load());
  return std::max(own, session);
}

// The session's token rose: the orchestrator hears every level (it stops starting new work on
// graceful); running provider and tool calls are aborted only on immediate.
void Coordinator::on_session_cancel(CancelLevel level) {
  for (auto &call : calls_->in_flight()) {
    // A kernel-served call (a child session) follows the session through its own link to it.
    bool is_turn = call->callee && call->callee->kind() == AMP_KIND_ORCHESTRATOR;
    if (is_turn || level == CancelLevel::Immediate) cancel_call(call->id, level);
  }
}

}  // namespace amplifier
