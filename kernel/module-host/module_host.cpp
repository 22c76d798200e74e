// amplifier-module-host: runs one module instance in a process of its own, for a host that
// mounts it with `isolation: process`. It loads the module's library, hands the module a host
// API table whose every function crosses the socket on fd 3 to the real host, and serves the
// host's calls into the module. When the module crashes, only this process dies.
//
// Usage (by the host, never by hand): amplifier-module-host LIBRARY
//   fd 3     the socketpair to the host (isolation/wire.hpp)
//   fd 1     the host's own standard output
//   fd 2     a pipe the host reads and logs under the module's name
#include "amplifier/leak_check.hpp"
#include "amplifier/log.hpp"
#include "amplifier/module_loader.hpp"
#include "amplifier/worker_pool.hpp"
#include "amplifier_sdk_json.hpp"
#include "amplifier_sdk.hpp"
#include "isolation/channel.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <sys/prctl.h>
#include <unistd.h>

namespace amplifier::isolation {
namespace {

constexpr int kSocketFd = 3;
// How long destroy waits for the module's own tasks (executes, submitted work) to return.
constexpr auto kDestroyGrace = std::chrono::seconds(5);

// The SDK's string helpers: the same conversions the modules on the other side use.
using amp::sdk::from_amp;
using amp::sdk::StringWriter;
using amp::sdk::write_to;

// The one module instance this process serves, and everything the host API needs to route.
class ModuleProcess final : public Channel::Handler {
 public:
  void start(const char *library, std::uint32_t max_frame_bytes);
  void wait_forever();

  // --- Channel::Handler ---
  void on_notify(const Frame &frame) override;
  bool take_notify_early(const Frame &frame) override;
  Reply on_request(const Frame &frame) override;
  void on_closed(const std::string &reason) override;

  // --- the host API, as the module sees it ---
  Reply forward(const Message &message);
  amp_status forward_into(const Message &message, amp_writer *out);
  void forward_notify(const Message &message);
  amp_status config_get(std::string_view key, amp_writer *out);
  amp_status hook_register(amp_str event, int32_t priority, amp_str name, amp_hook_fn fn,
                           void *user_data);
  amp_status hook_register_delta(int32_t priority, amp_str name, amp_hook_delta_fn on_delta,
                                 amp_hook_fn on_json, void *user_data);
  amp_status contribute(amp_str channel, amp_str name, amp_contributor_fn fn, void *user_data);
  amp_status register_with_host(const std::function<void(std::uint64_t)> &keep,
                                const std::function<Message(std::uint64_t)> &message_for,
                                const std::function<void(std::uint64_t)> &forget);
  amp_status start_call(Fn fn, amp_str target, amp_str payload, const amp_call_sink *sink,
                        amp_call_id *out_call);
  void finished(amp_call_id call);
  amp_cancel_level cancel_level(amp_call_id call);
  amp_status submit_work(std::uint32_t delay_ms, void (*fn)(void *), void *user_data);

 private:
  Reply call_module(const Frame &frame);
  Reply create(std::string_view config);
  Reply destroy();
  Reply context_call(const Frame &frame);
  void start_async(const Frame &frame);
  void deliver_to_sink(const Frame &frame);
  void cancel(amp_call_id call, amp_cancel_level level);
  void run_task(std::function<void()> task);
  void finish_task(const std::function<void()> &task);

  template <class Table>
  const Table *table() const {
    return static_cast<const Table *>(descriptor_->kind_table);
  }

  std::unique_ptr<Channel> channel_;
  std::shared_ptr<const LoadedModule> module_;
  const amp_module_descriptor *descriptor_ = nullptr;
  void *instance_ = nullptr;
  boost::json::object config_;

  std::mutex mutex_;
  std::uint64_t next_id_ = 1;
  std::unordered_map<std::uint64_t, std::pair<amp_hook_fn, void *>> hooks_;
  std::unordered_map<std::uint64_t, std::pair<amp_hook_delta_fn, void *>> delta_hooks_;
  std::unordered_map<std::uint64_t, std::pair<amp_contributor_fn, void *>> contributors_;
  std::unordered_map<std::uint64_t, amp_call_sink> sinks_;
  std::unordered_map<amp_call_id, amp_cancel_level> served_;  // calls in flight, their level

  // Module code running on pool threads (executes, submitted work) and delayed work waiting.
  std::condition_variable tasks_cv_;
  int tasks_running_ = 0;
  struct Delayed {
    bool claimed = false;  // guarded by mutex_
    std::function<void()> run;
  };
  std::vector<std::shared_ptr<Delayed>> delayed_;
};

ModuleProcess *g_process = nullptr;

// ---- the host API table handed to the module -----------------------------------------------

amp_status to_status(std::uint64_t a) { return static_cast<amp_status>(a); }

void api_log(amp_host *, amp_log_level level, amp_str message) {
  g_process->forward_notify(Message(Fn::log, {from_amp(message)}, std::uint64_t(level)));
}
amp_status api_config_get(amp_host *, amp_str key, amp_writer *out) {
  return g_process->config_get(from_amp(key), out);
}
amp_status api_session_info(amp_host *, amp_writer *out) {
  return g_process->forward_into(Message(Fn::session_info), out);
}
amp_status api_emit(amp_host *, amp_str event, amp_str data, amp_writer *result) {
  // Without a result writer the host takes its fast path (no result to build).
  return g_process->forward_into(
      Message(Fn::emit, {from_amp(event), from_amp(data)}, 0, 0, result ? 1 : 0), result);
}
amp_status api_hook_register(amp_host *, amp_str event, int32_t priority, amp_str name,
                             amp_hook_fn fn, void *user_data) {
  return g_process->hook_register(event, priority, name, fn, user_data);
}
amp_status api_hook_unregister(amp_host *, amp_str name) {
  return to_status(g_process->forward(Message(Fn::hook_unregister, {from_amp(name)})).a);
}
amp_status api_capability_register(amp_host *, amp_str name, amp_str value) {
  return to_status(
      g_process->forward(Message(Fn::capability_register, {from_amp(name), from_amp(value)})).a);
}
amp_status api_capability_get(amp_host *, amp_str name, amp_writer *out) {
  return g_process->forward_into(Message(Fn::capability_get, {from_amp(name)}), out);
}
amp_status api_channel_contribute(amp_host *, amp_str channel, amp_str name, amp_contributor_fn fn,
                                  void *user_data) {
  return g_process->contribute(channel, name, fn, user_data);
}
amp_status api_channel_collect(amp_host *, amp_str channel, amp_writer *out) {
  return g_process->forward_into(Message(Fn::channel_collect, {from_amp(channel)}), out);
}
void api_call_event(amp_host *, amp_call_id call, amp_str event) {
  g_process->forward_notify(Message(Fn::call_event, {from_amp(event)}, call));
}
void api_call_finish(amp_host *, amp_call_id call, amp_status status, amp_str payload) {
  g_process->finished(call);
  g_process->forward_notify(
      Message(Fn::call_finish, {from_amp(payload)}, call, std::uint64_t(status)));
}
amp_cancel_level api_call_cancel_state(amp_host *, amp_call_id call) {
  return g_process->cancel_level(call);
}
amp_status api_providers_list(amp_host *, amp_writer *out) {
  return g_process->forward_into(Message(Fn::providers_list), out);
}
amp_status api_tools_list(amp_host *, amp_writer *out) {
  return g_process->forward_into(Message(Fn::tools_list), out);
}
amp_status api_provider_complete(amp_host *, amp_str provider, amp_str request,
                                 const amp_call_sink *sink, amp_call_id *out_call) {
  return g_process->start_call(Fn::provider_complete, provider, request, sink, out_call);
}
amp_status api_tool_execute(amp_host *, amp_str tool, amp_str input, const amp_call_sink *sink,
                            amp_call_id *out_call) {
  return g_process->start_call(Fn::tool_execute, tool, input, sink, out_call);
}
amp_status api_call_cancel(amp_host *, amp_call_id call, amp_cancel_level level) {
  return to_status(g_process->forward(Message(Fn::call_cancel, {}, call, std::uint64_t(level))).a);
}
amp_status api_context_add_message(amp_host *, amp_str message) {
  return to_status(g_process->forward(Message(Fn::context_add_message, {from_amp(message)})).a);
}
amp_status api_context_get_messages(amp_host *, amp_writer *out) {
  return g_process->forward_into(Message(Fn::context_get_messages), out);
}
amp_status api_context_get_messages_for_request(amp_host *, amp_str request, amp_writer *out) {
  return g_process->forward_into(Message(Fn::context_get_messages_for_request, {from_amp(request)}),
                                 out);
}
amp_status api_context_set_messages(amp_host *, amp_str messages) {
  return to_status(g_process->forward(Message(Fn::context_set_messages, {from_amp(messages)})).a);
}
amp_status api_context_clear(amp_host *) {
  return to_status(g_process->forward(Message(Fn::context_clear)).a);
}
amp_status api_request_approval(amp_host *, amp_str request, amp_writer *out) {
  return g_process->forward_into(Message(Fn::request_approval, {from_amp(request)}), out);
}

void api_call_delta(amp_host *, amp_call_id call, uint32_t index, amp_delta_kind kind,
                    amp_str text) {
  g_process->forward_notify(
      Message(Fn::call_delta, {from_amp(text)}, call, 0, pack_delta(index, std::uint32_t(kind))));
}
amp_status api_emit_content_delta(amp_host *, uint32_t index, amp_delta_kind kind, amp_str text) {
  if (kind < AMP_DELTA_TEXT || kind > AMP_DELTA_REDACTED_THINKING) return AMP_INVALID_ARGUMENT;
  g_process->forward_notify(Message(Fn::emit_content_delta, {from_amp(text)}, 0, 0,
                                    pack_delta(index, std::uint32_t(kind))));
  return AMP_OK;
}
int api_hook_has_handlers(amp_host *, amp_str event) {
  return g_process->forward(Message(Fn::hook_has_handlers, {from_amp(event)})).a != 0 ? 1 : 0;
}
amp_status api_work_submit(amp_host *, uint32_t delay_ms, void (*fn)(void *), void *user_data) {
  return g_process->submit_work(delay_ms, fn, user_data);
}

// Trust: the request is the module's (and so, through a delegate tool, the model's); what the
// child may be is decided in the host's process by the host's policy, exactly as for a module
// in process (no policy for children: AMP_UNSUPPORTED). Nothing here widens it.
amp_status api_session_spawn(amp_host *, amp_str request, const amp_call_sink *sink,
                             amp_call_id *out_call) {
  return g_process->start_call(Fn::session_spawn, amp_str{"", 0}, request, sink, out_call);
}
amp_status api_tools_changed(amp_host *) {
  return to_status(g_process->forward(Message(Fn::tools_changed)).a);
}
amp_status api_hook_register_delta(amp_host *, int32_t priority, amp_str name,
                                   amp_hook_delta_fn on_delta, amp_hook_fn on_json,
                                   void *user_data) {
  return g_process->hook_register_delta(priority, name, on_delta, on_json, user_data);
}

// Every function plugin-api/abi.json describes, under its own name: one missing here, or of
// another type than the header's, does not compile.
amp_proc api_get_proc(const char *name) {
  if (!name) return nullptr;
  std::string_view wanted(name);
#define AMP_LOOK_UP_PROC(proc, NAME, fn_type, since, wire) \
  if (wanted == NAME) return reinterpret_cast<amp_proc>(static_cast<fn_type>(&api_##proc));
  AMP_ABI_HOST_PROCS(AMP_LOOK_UP_PROC)
#undef AMP_LOOK_UP_PROC
  return nullptr;
}

const amp_host_api kHostApi = {
    .struct_size = sizeof(amp_host_api),
    .abi_major = AMP_ABI_VERSION_MAJOR,
    .abi_minor = AMP_ABI_VERSION_MINOR,
#define AMP_TABLE_ENTRY(function, since, wire) .function = &api_##function,
    AMP_ABI_HOST_FUNCTIONS(AMP_TABLE_ENTRY)
#undef AMP_TABLE_ENTRY
};

// The module only ever sees this address; every function above ignores it.
amp_host *host_handle() { return reinterpret_cast<amp_host *>(&g_process); }

// ---- serving the host ------------------------------------------------------------------

void ModuleProcess::start(const char *library, std::uint32_t max_frame_bytes) {
  channel_ = std::make_unique<Channel>(kSocketFd, *this, -1, max_frame_bytes);
  try {
    ModuleLoader loader(std::vector<std::filesystem::path>{});
    module_ = loader.load_file(library, &kHostApi);
  } catch (const std::exception &e) {
    channel_->notify(Message(Fn::load_failed, {e.what()}));
    wait_forever();  // the host reads the reason, then closes: on_closed ends the process
  }
  descriptor_ = module_->descriptor;
  const std::string id = descriptor_->id;
  const std::string version = descriptor_->version ? descriptor_->version : "";
  const std::string description = descriptor_->description ? descriptor_->description : "";
  channel_->notify(Message(Fn::hello,
                           {id, version, description, descriptor_->session_ready ? "1" : ""},
                           std::uint64_t(descriptor_->kind),
                           (std::uint64_t(descriptor_->abi_major) << 32) | descriptor_->abi_minor,
                           kWireIdentity));
}

void ModuleProcess::wait_forever() {
  for (;;) pause();
}

void ModuleProcess::on_closed(const std::string &) {
  // The host has gone or is done with us: nothing here outlives it.
  // _Exit is how this process ends when it is not killed: what the module or the process
  // leaked over the session is reported here in an ASan build, as for any other process.
  check_leaks_before_exit();
  std::_Exit(0);
}

Reply ModuleProcess::on_request(const Frame &frame) {
  switch (frame.fn) {
    case Fn::create:
      return create(frame.string(0));
    case Fn::destroy:
      return destroy();
    default:
      break;
  }
  if (!instance_) return Reply{AMP_ERROR, 0, "the module instance does not exist"};
  return call_module(frame);
}

Reply ModuleProcess::create(std::string_view config) {
  boost::json::error_code ec;
  auto parsed = boost::json::parse(config, ec);
  if (!ec && parsed.is_object()) config_ = std::move(parsed.as_object());
  StringWriter error;
  amp_status status =
      descriptor_->create(host_handle(), amp_str{config.data(), config.size()}, &instance_, &error);
  return Reply{std::uint64_t(status), 0, std::move(error.text)};
}

Reply ModuleProcess::destroy() {
  // A module's timers never outlive it: those still waiting fire now.
  std::vector<std::shared_ptr<Delayed>> expedited;
  {
    std::lock_guard lock(mutex_);
    for (auto &work : delayed_)
      if (!work->claimed) {
        work->claimed = true;
        ++tasks_running_;
        expedited.push_back(work);
      }
    delayed_.clear();
  }
  for (auto &work : expedited)
    WorkerPool::shared().submit([this, work] { finish_task(work->run); });
  std::unique_lock lock(mutex_);
  bool idle = tasks_cv_.wait_for(lock, kDestroyGrace, [&] { return tasks_running_ == 0; });
  lock.unlock();
  if (instance_ && idle) descriptor_->destroy(instance_);
  instance_ = nullptr;
  return Reply{AMP_OK, 0, idle ? "" : "module code was still running; not destroyed"};
}

Reply ModuleProcess::call_module(const Frame &frame) {
  StringWriter out;
  amp_status status = AMP_UNSUPPORTED;
  switch (frame.fn) {
    case Fn::session_ready:
      status = descriptor_->session_ready ? descriptor_->session_ready(instance_, &out) : AMP_OK;
      break;
    case Fn::provider_get_info:
      status = table<amp_provider_vtable>()->get_info(instance_, &out);
      break;
    case Fn::provider_list_models:
      status = table<amp_provider_vtable>()->list_models(instance_, &out);
      break;
    case Fn::tool_list:
      status = table<amp_tool_vtable>()->list_tools(instance_, &out);
      break;
    case Fn::hook_invoke: {
      std::pair<amp_hook_fn, void *> hook{};
      {
        std::lock_guard lock(mutex_);
        if (auto it = hooks_.find(frame.a); it != hooks_.end()) hook = it->second;
      }
      if (!hook.first) return Reply{AMP_OK, 0, ""};  // unregistered meanwhile: continue
      auto event = frame.string(0), data = frame.string(1);
      status = hook.first(hook.second, amp_str{event.data(), event.size()},
                          amp_str{data.data(), data.size()}, &out);
      break;
    }
    case Fn::hook_delta_invoke: {
      std::pair<amp_hook_delta_fn, void *> hook{};
      {
        std::lock_guard lock(mutex_);
        if (auto it = delta_hooks_.find(frame.a); it != delta_hooks_.end()) hook = it->second;
      }
      if (!hook.first) return Reply{AMP_OK, 0, ""};  // unregistered meanwhile
      const auto text = frame.string(0);
      const amp_hook_delta delta{sizeof(amp_hook_delta), delta_index(frame.c),
                                 static_cast<amp_delta_kind>(delta_kind(frame.c)),
                                 amp_str{text.data(), text.size()}};
      status = hook.first(hook.second, &delta);
      break;
    }
    case Fn::contributor_invoke: {
      std::pair<amp_contributor_fn, void *> contributor{};
      {
        std::lock_guard lock(mutex_);
        if (auto it = contributors_.find(frame.a); it != contributors_.end())
          contributor = it->second;
      }
      if (!contributor.first) return Reply{AMP_NOT_FOUND, 0, ""};
      status = contributor.first(contributor.second, &out);
      break;
    }
    default:
      return context_call(frame);
  }
  return Reply{std::uint64_t(status), 0, std::move(out.text)};
}

Reply ModuleProcess::context_call(const Frame &frame) {
  const auto *context = table<amp_context_vtable>();
  auto text = frame.string(0);
  amp_str arg{text.data(), text.size()};
  StringWriter out;
  amp_status status = AMP_UNSUPPORTED;
  switch (frame.fn) {
    case Fn::context_vtable_add:
      status = context->add_message(instance_, arg);
      break;
    case Fn::context_vtable_get:
      status = context->get_messages(instance_, &out);
      break;
    case Fn::context_vtable_get_for_request:
      status = context->get_messages_for_request(instance_, arg, &out);
      break;
    case Fn::context_vtable_set:
      status = context->set_messages(instance_, arg);
      break;
    case Fn::context_vtable_clear:
      status = context->clear(instance_);
      break;
    default:
      return Reply{AMP_UNSUPPORTED, 0, fmt::format("unknown request {}", int(frame.fn))};
  }
  return Reply{std::uint64_t(status), 0, std::move(out.text)};
}

void ModuleProcess::on_notify(const Frame &frame) {
  switch (frame.fn) {
    case Fn::provider_vtable_complete:
    case Fn::tool_vtable_execute:
    case Fn::orchestrator_execute:
      start_async(frame);
      return;
    case Fn::cancel:
      cancel(frame.a, static_cast<amp_cancel_level>(frame.b));
      return;
    case Fn::sink_event:
    case Fn::sink_delta:
    case Fn::sink_finish:
      deliver_to_sink(frame);
      return;
    default:
      log(LogLevel::Warning, "module-host", fmt::format("unexpected message {}", int(frame.fn)));
  }
}

// Tools and turns go to the pool straight from the reader: one thread handoff less per call.
// Their call is known (served_) from here on, so a cancel that follows finds it.
bool ModuleProcess::take_notify_early(const Frame &frame) {
  if (frame.fn != Fn::tool_vtable_execute && frame.fn != Fn::orchestrator_execute) return false;
  start_async(frame);
  return true;
}

void ModuleProcess::start_async(const Frame &frame) {
  const amp_call_id call = frame.a;
  {
    std::lock_guard lock(mutex_);
    served_.emplace(call, AMP_CANCEL_NONE);
  }
  if (frame.fn == Fn::provider_vtable_complete) {  // must return at once: runs right here, in order
    auto request = frame.string(0);
    table<amp_provider_vtable>()->complete(instance_, call,
                                           amp_str{request.data(), request.size()});
    return;
  }
  // Tools and turns may block for minutes: each gets a pool thread, as in the host.
  if (frame.fn == Fn::tool_vtable_execute) {
    run_task(
        [this, call, tool = std::string(frame.string(0)), input = std::string(frame.string(1))] {
          table<amp_tool_vtable>()->execute(instance_, call, amp_str{tool.data(), tool.size()},
                                            amp_str{input.data(), input.size()});
        });
  } else {
    run_task([this, call, prompt = std::string(frame.string(0))] {
      table<amp_orchestrator_vtable>()->execute(instance_, call,
                                                amp_str{prompt.data(), prompt.size()});
    });
  }
}

void ModuleProcess::run_task(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    ++tasks_running_;
  }
  WorkerPool::shared().submit([this, task = std::move(task)] { finish_task(task); });
}

// Runs a task counted in tasks_running_, and uncounts it.
void ModuleProcess::finish_task(const std::function<void()> &task) {
  task();
  std::lock_guard lock(mutex_);
  if (--tasks_running_ == 0) tasks_cv_.notify_all();
}

void ModuleProcess::cancel(amp_call_id call, amp_cancel_level level) {
  {
    std::lock_guard lock(mutex_);
    auto it = served_.find(call);
    if (it == served_.end()) return;  // already finished
    it->second = std::max(it->second, level);
  }
  switch (descriptor_->kind) {
    case AMP_KIND_PROVIDER:
      table<amp_provider_vtable>()->cancel(instance_, call, level);
      break;
    case AMP_KIND_TOOL:
      table<amp_tool_vtable>()->cancel(instance_, call, level);
      break;
    case AMP_KIND_ORCHESTRATOR:
      table<amp_orchestrator_vtable>()->cancel(instance_, call, level);
      break;
    default:
      break;
  }
}

void ModuleProcess::deliver_to_sink(const Frame &frame) {
  amp_call_sink sink{};
  {
    std::lock_guard lock(mutex_);
    auto it = sinks_.find(frame.a);
    if (it == sinks_.end()) return;
    sink = it->second;
    if (frame.fn == Fn::sink_finish) sinks_.erase(it);
  }
  const amp_call_id call = frame.b;
  auto text = frame.string(0);
  amp_str payload{text.data(), text.size()};
  if (frame.fn == Fn::sink_event) {
    sink.on_event(sink.user_data, call, payload);
  } else if (frame.fn == Fn::sink_delta) {
    // The host renders deltas as JSON for a sink without on_delta (start_call told it).
    sink.on_delta(sink.user_data, call, delta_index(frame.c),
                  static_cast<amp_delta_kind>(delta_kind(frame.c)), payload);
  } else {
    sink.on_finish(sink.user_data, call, static_cast<amp_status>(frame.c), payload);
  }
}

// ---- the host API's own logic --------------------------------------------------------

Reply ModuleProcess::forward(const Message &message) {
  auto outcome = channel_->request(message);
  if (auto *reply = std::get_if<Reply>(&outcome)) return std::move(*reply);
  if (std::get<RequestFailure>(outcome) == RequestFailure::too_large)
    return Reply{AMP_ERROR, 0, "the message is larger than the module's max_message_mb"};
  return Reply{AMP_ERROR, 0, "the host is gone"};
}

// A one-way report to the host. One over the frame limit never crosses into the module (this
// runs under a C function of the host API): a call's finish becomes a typed error that says
// why, anything else is dropped and said on stderr (which the host logs).
void ModuleProcess::forward_notify(const Message &message) {
  try {
    channel_->notify(message);
  } catch (const std::length_error &e) {
    if (message.fn == Fn::call_finish) {
      boost::json::object error{{"kind", "invalid_request"}, {"message", e.what()},
                                {"retryable", false}};
      channel_->notify(Message(Fn::call_finish, {boost::json::serialize(error)}, message.a,
                               std::uint64_t(AMP_ERROR)));
    } else {
      std::fprintf(stderr, "a report to the host was dropped: %s\n", e.what());
    }
  }
}

amp_status ModuleProcess::forward_into(const Message &message, amp_writer *out) {
  Reply reply = forward(message);
  write_to(out, reply.text);
  return to_status(reply.a);
}

amp_status ModuleProcess::config_get(std::string_view key, amp_writer *out) {
  if (key.empty()) {
    write_to(out, boost::json::serialize(config_));
    return AMP_OK;
  }
  auto *value = config_.if_contains(key);
  if (!value) return AMP_NOT_FOUND;
  write_to(out, boost::json::serialize(*value));
  return AMP_OK;
}

// Keeps a handler of the module's under a new id (`keep`, under the mutex), asks the host to
// register it (`message_for(id)`), and forgets it again (`forget`) when the host refuses.
amp_status ModuleProcess::register_with_host(
    const std::function<void(std::uint64_t)> &keep,
    const std::function<Message(std::uint64_t)> &message_for,
    const std::function<void(std::uint64_t)> &forget) {
  std::uint64_t id;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    keep(id);
  }
  Reply reply = forward(message_for(id));
  if (reply.a != AMP_OK) {
    std::lock_guard lock(mutex_);
    forget(id);
  }
  return to_status(reply.a);
}

amp_status ModuleProcess::hook_register(amp_str event, int32_t priority, amp_str name,
                                        amp_hook_fn fn, void *user_data) {
  if (!fn) return AMP_INVALID_ARGUMENT;
  return register_with_host(
      [&](std::uint64_t id) { hooks_[id] = {fn, user_data}; },
      [&](std::uint64_t id) {
        return Message(Fn::hook_register, {from_amp(event), from_amp(name)},
                       std::uint64_t(std::uint32_t(priority)), id);
      },
      [&](std::uint64_t id) { hooks_.erase(id); });
}

// A typed delta hook: registered with the host as one (a = priority, b = its id here, c = 1
// when it has a JSON handler too); the host sends each typed delta as hook_delta_invoke and
// any other delta as hook_invoke, both under this id.
amp_status ModuleProcess::hook_register_delta(int32_t priority, amp_str name,
                                              amp_hook_delta_fn on_delta, amp_hook_fn on_json,
                                              void *user_data) {
  if (!on_delta) return AMP_INVALID_ARGUMENT;
  return register_with_host(
      [&](std::uint64_t id) {
        delta_hooks_[id] = {on_delta, user_data};
        if (on_json) hooks_[id] = {on_json, user_data};
      },
      [&](std::uint64_t id) {
        return Message(Fn::hook_register_delta, {from_amp(name)},
                       std::uint64_t(std::uint32_t(priority)), id, on_json ? 1 : 0);
      },
      [&](std::uint64_t id) {
        delta_hooks_.erase(id);
        hooks_.erase(id);
      });
}

amp_status ModuleProcess::contribute(amp_str channel, amp_str name, amp_contributor_fn fn,
                                     void *user_data) {
  if (!fn) return AMP_INVALID_ARGUMENT;
  return register_with_host(
      [&](std::uint64_t id) { contributors_[id] = {fn, user_data}; },
      [&](std::uint64_t id) {
        return Message(Fn::channel_contribute, {from_amp(channel), from_amp(name)}, 0, id);
      },
      [&](std::uint64_t id) { contributors_.erase(id); });
}

amp_status ModuleProcess::start_call(Fn fn, amp_str target, amp_str payload,
                                     const amp_call_sink *sink, amp_call_id *out_call) {
  if (!sink || !sink->on_event || !sink->on_finish || !out_call) return AMP_INVALID_ARGUMENT;
  amp_call_sink copy{};
  std::memcpy(&copy, sink, std::min(sink->struct_size, sizeof copy));
  copy.struct_size = sizeof copy;
  const bool typed = AMP_HAS_FIELD(sink, amp_call_sink, on_delta) && sink->on_delta;
  if (!typed) copy.on_delta = nullptr;
  std::uint64_t id;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
    sinks_[id] = copy;
  }
  // The sink is in place before the host can report on the call, which may be at once.
  Reply reply = forward(Message(fn, {from_amp(target), from_amp(payload)}, id, typed ? 1 : 0));
  if (reply.a != AMP_OK) {
    std::lock_guard lock(mutex_);
    sinks_.erase(id);
    return to_status(reply.a);
  }
  *out_call = reply.b;
  return AMP_OK;
}

void ModuleProcess::finished(amp_call_id call) {
  std::lock_guard lock(mutex_);
  served_.erase(call);
}

amp_cancel_level ModuleProcess::cancel_level(amp_call_id call) {
  std::lock_guard lock(mutex_);
  auto it = served_.find(call);
  return it == served_.end() ? AMP_CANCEL_NONE : it->second;
}

amp_status ModuleProcess::submit_work(std::uint32_t delay_ms, void (*fn)(void *), void *user_data) {
  if (!fn) return AMP_INVALID_ARGUMENT;
  if (delay_ms == 0) {
    run_task([fn, user_data] { fn(user_data); });
    return AMP_OK;
  }
  auto work = std::make_shared<Delayed>();
  work->run = [fn, user_data] { fn(user_data); };
  {
    std::lock_guard lock(mutex_);
    delayed_.push_back(work);
  }
  // Whoever claims it first runs it: this timer, or destroy (which fires it early).
  WorkerPool::shared().submit(
      [this, work] {
        {
          std::lock_guard lock(mutex_);
          if (work->claimed) return;
          work->claimed = true;
          ++tasks_running_;
          std::erase(delayed_, work);
        }
        finish_task(work->run);
      },
      std::chrono::milliseconds(delay_ms));
  return AMP_OK;
}

}  // namespace
}  // namespace amplifier::isolation

int main(int argc, char **argv) {
  using namespace amplifier::isolation;
  // argv: LIBRARY MAX_MESSAGE_MB (spawn.hpp)
  unsigned long max_message_mb = argc == 3 ? std::strtoul(argv[2], nullptr, 10) : 0;
  if (argc != 3 || max_message_mb == 0 || max_message_mb > (kMaxFrameBytesCeiling >> 20)) {
    std::fprintf(stderr, "amplifier-module-host: started by the amplifier host, not by hand\n");
    return 2;
  }
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // also set before exec; kept in case of a re-exec
  std::signal(SIGPIPE, SIG_IGN);
  static ModuleProcess process;
  g_process = &process;
  process.start(argv[1], std::uint32_t(max_message_mb << 20));
  process.wait_forever();
}
