#include "amplifier/session.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/events.hpp"
#include "amplifier/isolation.hpp"
#include "amplifier/json_fields.hpp"
#include "amplifier/log.hpp"
#include "amplifier/module_loader.hpp"
#include "call_registry.hpp"
#include "child_runner.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/parser.hpp>
#include <boost/json/serialize.hpp>
#include <boost/uuid/random_generator.hpp>
#include <boost/uuid/uuid_io.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <condition_variable>
#include <mutex>

namespace amplifier {
namespace {

constexpr std::string_view kSessionLog = "session";
// After an immediate cancel, how long a turn may take to end before it is abandoned.
constexpr auto kImmediateCancelGrace = std::chrono::seconds(10);
// Once a turn has ended (or was abandoned), how long execute() waits for the orchestrator's
// execute to return before going on without it.
constexpr auto kTurnReturnGrace = std::chrono::seconds(2);
// As a session ends, how long its running children get to end after an immediate cancel.
constexpr auto kChildrenGrace = std::chrono::seconds(15);

// The outcome of one turn, for execute() to wait on.
struct TurnWait {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  TurnResult result;
};

// The "report" member of an orchestrator's result. The agent loop writes it first, so it is
// parsed on its own (the parser stops where the object ends) and a long answer after it is
// never put in a DOM; a report elsewhere costs one parse of the whole payload.
boost::json::value report_of(std::string_view payload) {
  constexpr std::string_view kReportFirst = R"({"report":)";
  const auto first = payload.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && payload.substr(first, kReportFirst.size()) == kReportFirst) {
    boost::json::parser parser({}, kernel_parse_options());
    boost::json::error_code ec;
    parser.write_some(payload.substr(first + kReportFirst.size()), ec);
    if (!ec) return parser.release();  // a complete value: the rest is not read
  }
  boost::json::error_code ec;
  auto whole = boost::json::parse(payload, ec, {}, kernel_parse_options());
  const boost::json::value *report =
      !ec && whole.is_object() ? whole.as_object().if_contains("report") : nullptr;
  return report ? *report : boost::json::value();
}

// An error's payload is small and kept whole; a success's can hold a long answer, which is
// read straight out of the text (no DOM: the answer is then in memory once more, not twice).
TurnResult to_turn_result(amp_status status, std::string_view payload) {
  TurnResult result;
  if (status != AMP_OK) {
    boost::json::error_code ec;
    auto v = boost::json::parse(payload, ec, {}, kernel_parse_options());
    result.status = status == AMP_CANCELLED ? "cancelled" : "error";
    result.error = ec ? boost::json::value(payload) : v;
    if (auto *report = v.is_object() ? v.as_object().if_contains("report") : nullptr)
      result.report = *report;
    if (auto *m = v.is_object() ? v.as_object().if_contains("message") : nullptr;
        m && m->is_string())
      result.response = std::string(m->as_string());
    return result;
  }
  thread_local JsonFieldReader reader;
  thread_local const JsonFieldReader::Field response = reader.declare({"response"});
  thread_local const JsonFieldReader::Field turn_status = reader.declare({"status"});
  thread_local const JsonFieldReader::Field report = reader.declare({"report"});
  const auto first = payload.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || payload[first] != '{' || !reader.read(payload)) {
    result.status = "error";
    result.error = boost::json::object{{"kind", "internal"},
                                       {"message", "the orchestrator returned a malformed result"}};
    return result;
  }
  if (reader.kind(report) == JsonFieldReader::Kind::object) result.report = report_of(payload);
  result.response = reader.take_string(response);  // the thread's reader keeps no copy
  result.status = reader.has(turn_status) && reader.kind(turn_status) == JsonFieldReader::Kind::string
                      ? std::string(reader.string(turn_status))
                      : std::string("success");
  return result;
}

}  // namespace

// Each id takes 16 fresh bytes from the operating system (getrandom): no generator state in
// memory that a 32-bit seed could narrow or a fork could duplicate.
std::string new_uuid() {
  boost::uuids::random_generator generate;
  return boost::uuids::to_string(generate());
}

struct Session::Impl {
  MountPlan plan;
  SessionOptions options;
  HookRegistry hooks;
  CancellationToken cancellation;
  ModuleLoader loader;
  std::unique_ptr<Coordinator> coordinator;
  std::vector<LoadFailure> failures;
  bool initialized = false;
  bool started = false;
  bool cleaned_up = false;
  std::mutex turn_mutex;      // guards turn_running
  bool turn_running = false;  // one turn at a time
  std::shared_ptr<ChildRunner> children;  // set when the session may have children
  std::mutex mode_reminder_mutex;        // guards mode_reminder_registered
  bool mode_reminder_registered = false;
  std::mutex steering_mutex;             // guards the three below
  std::vector<std::string> steering;     // queued for the running turn, oldest first
  bool steering_registered = false;

  Impl(MountPlan p, SessionOptions o)
      : plan(std::move(p)), options(std::move(o)), loader(options.module_path) {
    if (options.session_id.empty()) options.session_id = new_uuid();
    hooks.set_default_fields(boost::json::object{{"session_id", options.session_id},
                                                 {"parent_id", options.parent_id}});
    coordinator = std::make_unique<Coordinator>(hooks, cancellation, options.session_id,
                                                options.parent_id);
    coordinator->set_labels(options.labels);
    coordinator->set_confinement(options.confined_to);
    coordinator->set_state_folder(options.state_folder);
    coordinator->set_mode(options.mode);
    if (options.mode) remind_of_mode();
  }

  // What was steered and not yet read, taken (empty when none); with `max_bytes`, only the
  // oldest messages that fit in it together (at least one: Session::steer caps their size).
  std::vector<std::string> take_steering(std::size_t max_bytes = SIZE_MAX) {
    std::lock_guard lock(steering_mutex);
    if (max_bytes == SIZE_MAX) return std::exchange(steering, {});
    std::vector<std::string> taken;
    std::size_t bytes = 0;
    while (!steering.empty() && (taken.empty() || bytes + steering.front().size() + 2 <= max_bytes)) {
      bytes += steering.front().size() + 2;
      taken.push_back(std::move(steering.front()));
      steering.erase(steering.begin());
    }
    return taken;
  }

  static std::string joined(const std::vector<std::string> &messages) {
    std::string text;
    for (const auto &m : messages) text += (text.empty() ? "" : "\n\n") + m;
    return text;
  }

  void announce_delivery(const std::vector<std::string> &messages, std::string_view at) {
    boost::json::array list;
    for (const auto &m : messages) list.emplace_back(m);
    hooks.notify(events::kSteeringDelivered, boost::json::object{{"messages", std::move(list)}, {"at", at}});
  }

  // From the first steer on: before each provider call the queued messages become a user
  // message the conversation keeps (a durable injection, which the loop stores before it builds
  // the request), as many as one injection carries (HookRegistry::kMaxInjectionBytes; the rest
  // wait for the next step); when the model has answered and the turn would end, they keep it
  // going instead (a turn:stop deny, whose reason the loop stores as a user message). At
  // provider:request the handler runs after the plan's hooks (priority 2000), so a hook's deny,
  // which ends the turn, leaves the messages queued and handed back; at turn:stop before them
  // (-2000), so a hook's deny does not take their place.
  void deliver_steering() {
    std::lock_guard lock(steering_mutex);
    if (steering_registered) return;
    steering_registered = true;
    hooks.register_handler(
        std::string(events::kProviderRequest),
        [this](std::string_view, const boost::json::object &) {
          HookResult result;
          const auto messages = take_steering(HookRegistry::kMaxInjectionBytes);
          if (messages.empty()) return result;
          result.action = HookAction::InjectContext;
          result.context_injection = joined(messages);
          result.context_injection_role = "user";
          announce_delivery(messages, events::kProviderRequest);
          return result;
        },
        /*priority=*/2000, "kernel:steering");
    hooks.register_handler(
        std::string(events::kTurnStop),
        [this](std::string_view, const boost::json::object &data) {
          HookResult result;
          // The agent loop holds a turn at most 8 times (kMaxStopContinuations): past that the
          // messages stay queued and come back in steering_not_delivered, never dropped.
          const auto *held = data.if_contains("continuations");
          if (held && held->is_int64() && held->get_int64() >= 8) return result;
          const auto messages = take_steering();
          if (messages.empty()) return result;
          result.action = HookAction::Deny;
          result.reason = joined(messages);
          announce_delivery(messages, events::kTurnStop);
          return result;
        },
        /*priority=*/-2000, "kernel:steering");
  }

  // From the first mode on, every provider request carries the reminder of the mode in force
  // (none once it is left: the handler reads the mode at each request).
  void remind_of_mode() {
    std::lock_guard lock(mode_reminder_mutex);
    if (mode_reminder_registered) return;
    mode_reminder_registered = true;
    hooks.register_handler(
        std::string(events::kProviderRequest),
        [c = coordinator.get()](std::string_view, const boost::json::object &) {
          HookResult result;
          const auto mode = c->mode();
          if (!mode) return result;
          result.action = HookAction::InjectContext;
          result.context_injection = mode_reminder(*mode);
          result.context_injection_role = "user";
          // Its own message, marked as the request's only (metadata.ephemeral_from): a tool
          // result it were appended to would change, and with it the provider's cached prefix.
          result.ephemeral = true;
          return result;
        },
        /*priority=*/1000, "kernel:mode");
  }

  // Lets the session's modules spawn children (amp_host_api "session_spawn"), whose
  // cancellation follows this session's.
  void enable_children(Session &self) {
    if (!options.child_policy) return;
    children = std::make_shared<ChildRunner>(options.child_policy);
    coordinator->set_spawn_handler(
        [&self, runner = children](std::string request, std::shared_ptr<KernelCall> call) {
          runner->spawn(self, std::move(request), std::move(call));
        });
    cancellation.on_change([runner = children](CancelLevel level) { runner->on_parent_cancel(level); });
  }

  // Mounts one spec; records the failure (and throws for the fatal mount points and for a
  // module the plan marks required).
  void mount(const std::string &mount_point, const ModuleSpec &spec, bool fatal) {
    fatal = fatal || spec.required;
    try {
      const auto timeout = std::chrono::milliseconds(std::llround(spec.timeout_seconds * 1000));
      const Isolation isolation = spec.isolation == Isolation::inherit ? plan.isolation : spec.isolation;
      if (isolation == Isolation::process) {
        // The deadline is the isolation's to enforce: it also kills the process.
        coordinator->mount(mount_point, spec.mount_name(), load_isolated_module(spec, timeout),
                           spec.config);
      } else {
        coordinator->mount(mount_point, spec.mount_name(), loader.load(spec.module, spec.source),
                           spec.config, timeout);
      }
    } catch (const std::exception &e) {
      const auto *refused = dynamic_cast<const ModuleLoadError *>(&e);
      failures.push_back(
          {mount_point, spec.module, e.what(), fatal, refused ? refused->status() : AMP_ERROR});
      if (fatal)
        throw SessionError(fmt::format("cannot mount {} '{}'{}: {}", mount_point, spec.module,
                                       spec.required ? " (required)" : "", e.what()));
    }
  }

  std::shared_ptr<const LoadedModule> load_isolated_module(const ModuleSpec &spec,
                                                          std::chrono::milliseconds timeout) {
    const ModuleLocation location = loader.locate(spec.module, spec.source);
    log(LogLevel::Info, "loader",
        fmt::format("module '{}': {} ({}), in its own process", spec.module,
                    location.file.string(), location.origin));
    IsolationOptions options;
    options.call_timeout = timeout;
    options.memory_limit_mb = spec.memory_limit_mb;
    options.restarts_per_minute = spec.restarts_per_minute;
    options.max_message_mb = spec.max_message_mb;
    options.required = spec.required;
    auto module = load_isolated(location.file, options);
    if (module->id() != spec.module)
      throw ModuleLoadError(fmt::format("module '{}': {} declares id '{}'", spec.module,
                                        location.file.string(), module->id()));
    return module;
  }

  // Whether the plan marks the module `id` required (a provider, tool or hook).
  bool required(std::string_view id) const {
    for (const auto *list : {&plan.providers, &plan.tools, &plan.hooks})
      for (const auto &spec : *list)
        if (spec.required && (spec.module == id || spec.mount_name() == id)) return true;
    return false;
  }

  void announce_failures(std::size_t from) {
    for (std::size_t i = from; i < failures.size(); ++i) {
      const auto &f = failures[i];
      log(LogLevel::Warning, kSessionLog,
          fmt::format("module '{}' ({}) was not mounted: {}", f.module, f.mount_point, f.error));
      hooks.emit(events::kModuleLoadFailed, boost::json::object{{"module", f.module},
                                                                {"mount_point", f.mount_point},
                                                                {"error", f.error},
                                                                {"fatal", f.fatal}});
    }
  }
};

Session::Session(MountPlan plan, SessionOptions options)
    : impl_(std::make_unique<Impl>(std::move(plan), std::move(options))) {
  impl_->enable_children(*this);
}

Session::~Session() {
  try {
    cleanup();
  } catch (const std::exception &e) {
    log(LogLevel::Error, kSessionLog, fmt::format("cleanup failed: {}", e.what()));
  }
}

void Session::initialize() {
  auto &s = *impl_;
  if (s.initialized) return;
  // Mount order: orchestrator, context, providers, tools, hooks. Load failures are announced
  // once everything is mounted, so hook modules (mounted last) see them too.
  // The plan's provider routes, for the agent loop (a capability, as a host would publish).
  if (!s.plan.routing.empty()) s.coordinator->register_capability("session.routing", s.plan.routing);
  // The plan's other `session:` keys (budget, pricing, ...), as capabilities
  // "plan.session.<key>": what they mean is the modules' business, not the kernel's, and under
  // their own prefix a plan key can never stand in for a capability the host or a module
  // publishes.
  for (const auto &[key, value] : s.plan.session_extra)
    s.coordinator->register_capability("plan.session." + std::string(key), value);
  try {
    s.mount("orchestrator", s.plan.orchestrator, true);
    s.mount("context", s.plan.context, true);
    for (const auto &spec : s.plan.providers) s.mount("providers", spec, false);
    for (const auto &spec : s.plan.tools) s.mount("tools", spec, false);
    for (const auto &spec : s.plan.hooks) s.mount("hooks", spec, false);
  } catch (const SessionError &) {
    s.announce_failures(0);
    throw;
  }
  s.announce_failures(0);
  std::size_t before_ready = s.failures.size();
  std::string fatal_ready;
  for (auto &[module, error] : s.coordinator->run_session_ready()) {
    const bool fatal = s.required(module);
    if (fatal && fatal_ready.empty())
      fatal_ready = fmt::format("module '{}' (required) failed session_ready: {}", module, error);
    s.failures.push_back({"session_ready", module, error, fatal});
  }
  s.announce_failures(before_ready);
  if (!fatal_ready.empty()) throw SessionError(fatal_ready);
  s.initialized = true;
  // A new child, once mounted, says whose it is (the default fields carry both ids).
  if (!s.options.parent_id.empty() && !s.options.resumed)
    s.hooks.emit(events::kSessionFork, boost::json::object{{"parent", s.options.parent_id},
                                                           {"agent", s.options.agent},
                                                           {"depth", s.options.depth}});
  // A history fork, once mounted, says what it was forked from and where.
  if (!s.options.forked_from.empty())
    s.hooks.emit(events::kSessionFork, boost::json::object{{"parent", s.options.forked_from},
                                                           {"turn", s.options.forked_at_turn}});
}

amp_call_id Session::start(std::string_view prompt, std::function<void(TurnResult)> done,
                           const boost::json::object &options) {
  auto &s = *impl_;
  if (!s.initialized) throw SessionError("a turn was started before initialize");
  {
    std::lock_guard turn(s.turn_mutex);
    if (s.turn_running) throw SessionError("a turn is already running in this session");
    s.turn_running = true;
  }
  if (!s.started) {
    s.started = true;
    s.hooks.emit(s.options.resumed ? events::kSessionResume : events::kSessionStart,
                 boost::json::object{{"plan", s.plan.file}});
  }
  s.cancellation.reset();
  if (s.children) s.children->on_parent_turn();

  CallObserver observer;
  observer.on_finish = [&s, done = std::move(done)](amp_call_id, amp_status status,
                                                    std::string_view payload) {
    TurnResult result = to_turn_result(status, payload);
    if (CancelLevel level = s.cancellation.level(); level != CancelLevel::None)
      s.hooks.notify(events::kCancelCompleted,
                     boost::json::object{{"level", to_string(level)}, {"status", result.status}});
    {
      // Under the turn lock, which steer() holds while it queues: a message is either read by
      // this turn or handed back here, never left for a turn it was not meant for.
      std::lock_guard turn(s.turn_mutex);
      s.turn_running = false;
      result.steering_not_delivered = s.take_steering();
    }
    done(std::move(result));
  };
  boost::json::object input = options;
  input["prompt"] = prompt;  // the prompt is the prompt, whatever `options` holds
  if (const auto mode = s.coordinator->mode()) input["mode"] = mode->name;
  else input.erase("mode");  // only the session says which mode holds
  std::string prompt_json = boost::json::serialize(input);
  try {
    return s.coordinator->start_orchestrator_call(std::move(prompt_json), std::move(observer));
  } catch (...) {
    std::lock_guard turn(s.turn_mutex);
    s.turn_running = false;
    throw;
  }
}

bool Session::steer(std::string message) {
  auto &s = *impl_;
  // One message fits one injection whole (HookRegistry::kMaxInjectionBytes), never cut.
  if (message.size() > kMaxSteeringBytes)
    throw std::invalid_argument("a steering message has at most " + std::to_string(kMaxSteeringBytes) +
                                " bytes; this one has " + std::to_string(message.size()));
  s.deliver_steering();
  {
    std::lock_guard turn(s.turn_mutex);  // see on_finish in start()
    if (!s.turn_running) return false;
    std::lock_guard lock(s.steering_mutex);
    s.steering.push_back(message);
  }
  s.hooks.notify(events::kSteeringQueued, boost::json::object{{"message", std::move(message)}});
  return true;
}

std::shared_ptr<const SessionMode> Session::mode() const { return impl_->coordinator->mode(); }

void Session::set_mode(std::shared_ptr<const SessionMode> mode) {
  auto &s = *impl_;
  const auto previous = s.coordinator->mode();
  if (mode) s.remind_of_mode();
  s.coordinator->set_mode(mode);
  const auto name = [](const std::shared_ptr<const SessionMode> &m) {
    return m ? boost::json::value(m->name) : boost::json::value(nullptr);
  };
  if (name(previous) == name(mode)) return;
  s.hooks.notify(events::kModeChanged,
                 boost::json::object{{"from", name(previous)},
                                     {"to", name(mode)},
                                     {"source", mode ? boost::json::value(mode->source) : boost::json::value(nullptr)}});
}

TurnResult Session::execute(std::string_view prompt) { return execute(prompt, {}); }

TurnResult Session::execute(std::string_view prompt, const boost::json::object &options) {
  auto &s = *impl_;
  auto wait = std::make_shared<TurnWait>();
  auto call = start(prompt, [wait](TurnResult result) {
    std::lock_guard lock(wait->mutex);
    wait->result = std::move(result);
    wait->done = true;
    wait->done_cv.notify_all();
  }, options);

  const std::string orchestrator(s.coordinator->orchestrator() ? s.coordinator->orchestrator()->id()
                                                               : std::string_view("?"));
  std::unique_lock lock(wait->mutex);
  while (!wait->done) {
    if (s.cancellation.is_immediate()) {
      // An orchestrator that ignores an immediate cancel is abandoned, never waited on forever.
      if (!wait->done_cv.wait_for(lock, kImmediateCancelGrace, [&] { return wait->done; })) {
        lock.unlock();
        log(LogLevel::Error, kSessionLog,
            fmt::format("orchestrator '{}' did not stop within {} s of an immediate cancel; its "
                        "turn is abandoned",
                        orchestrator, kImmediateCancelGrace.count()));
        if (auto record = s.coordinator->calls().find(call))
          s.coordinator->calls().finish_by_kernel(
              record, AMP_CANCELLED,
              R"({"kind":"cancelled","message":"the orchestrator did not stop when cancelled; )"
              R"(its turn was abandoned"})");
        lock.lock();
      }
    } else {
      wait->done_cv.wait_for(lock, std::chrono::milliseconds(200));
    }
  }
  TurnResult result = std::move(wait->result);
  lock.unlock();
  // The turn has ended; its execute normally returns right after. One that does not (it ignored
  // the cancel) is not waited on forever: the session goes on, and unmounting keeps it loaded.
  if (!s.coordinator->wait_turn_returned(kTurnReturnGrace))
    log(LogLevel::Error, kSessionLog,
        fmt::format("orchestrator '{}' is still running after its turn ended; the session goes on "
                    "without waiting for it",
                    orchestrator));
  return result;
}

void Session::cancel(CancelLevel level) {
  auto &s = *impl_;
  CancelLevel before = s.cancellation.level();
  if (level <= before) return;
  s.hooks.emit(events::kCancelRequested, boost::json::object{{"level", to_string(level)}});
  s.cancellation.request(level);
}

void Session::cleanup() {
  auto &s = *impl_;
  if (s.cleaned_up) return;
  s.cleaned_up = true;
  if (s.children) s.children->close(kChildrenGrace);
  if (s.started) s.hooks.emit(events::kSessionEnd, boost::json::object{});
  s.coordinator->unmount_all();
}

const SessionOptions &Session::options() const { return impl_->options; }
const std::string &Session::id() const { return impl_->options.session_id; }
const std::string &Session::parent_id() const { return impl_->options.parent_id; }
const std::vector<LoadFailure> &Session::load_failures() const { return impl_->failures; }
HookRegistry &Session::hooks() { return impl_->hooks; }
Coordinator &Session::coordinator() { return *impl_->coordinator; }
CancellationToken &Session::cancellation() { return impl_->cancellation; }
const MountPlan &Session::plan() const { return impl_->plan; }

}  // namespace amplifier
