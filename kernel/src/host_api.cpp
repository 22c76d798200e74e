// The amp_host_api table: the C functions modules call. Each one validates its arguments,
// translates to the coordinator, and never lets an exception cross back into module code.
#include "amplifier/coordinator.hpp"
#include "amplifier/events.hpp"
#include "amplifier/log.hpp"
#include "amplifier_sdk_json.hpp"
#include "amplifier/worker_pool.hpp"
#include "call_registry.hpp"
#include "amplifier_abi_description.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace amplifier {
namespace {

std::string_view view(amp_str s) { return s.data ? std::string_view(s.data, s.len) : std::string_view(); }

void write(amp_writer *out, std::string_view text) {
  if (out && out->write) out->write(out, text.data(), text.size());
}

void write_json(amp_writer *out, const boost::json::value &v) { write(out, boost::json::serialize(v)); }

bool usable(const amp_host *h) { return h && h->coordinator && h->self; }

std::string module_label(const amp_host *h) {
  return usable(h) ? std::string(h->self->id()) : std::string("module");
}

// Runs `fn` and converts any exception into AMP_ERROR, logged against the calling module.
template <class Fn>
amp_status guard(amp_host *h, const char *what, Fn &&fn) noexcept {
  if (!usable(h)) return AMP_INVALID_ARGUMENT;
  try {
    return fn(*h->coordinator, *h->self);
  } catch (const std::exception &e) {
    try {
      log(LogLevel::Error, "host-api",
          fmt::format("{} from module '{}' failed: {}", what, module_label(h), e.what()));
    } catch (...) {
    }
  } catch (...) {
  }
  return AMP_ERROR;
}

// Parses a JSON payload from a module; nullopt (and a log line) when it is not valid JSON.
std::optional<boost::json::value> parse_payload(amp_host *h, std::string_view text,
                                                const char *what) {
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(text, ec, {}, kernel_parse_options());
  if (ec) {
    log(LogLevel::Warning, "host-api",
        fmt::format("module '{}' passed invalid JSON to {}: {}", module_label(h), what, ec.message()));
    return std::nullopt;
  }
  return v;
}

// ---- logging, config, session --------------------------------------------------------

void api_log(amp_host *h, amp_log_level level, amp_str message) {
  guard(h, "log", [&](Coordinator &, MountedModule &self) {
    auto lvl = static_cast<LogLevel>(std::clamp<int>(level, AMP_LOG_DEBUG, AMP_LOG_ERROR));
    log(lvl, self.id(), view(message));
    return AMP_OK;
  });
}

amp_status api_config_get(amp_host *h, amp_str key, amp_writer *out) {
  return guard(h, "config_get", [&](Coordinator &, MountedModule &self) {
    if (key.len == 0) {
      write_json(out, self.config);
      return AMP_OK;
    }
    auto it = self.config.find(view(key));
    if (it == self.config.end()) return AMP_NOT_FOUND;
    write_json(out, it->value());
    return AMP_OK;
  });
}

amp_status api_session_info(amp_host *h, amp_writer *out) {
  return guard(h, "session_info", [&](Coordinator &c, MountedModule &self) {
    boost::json::object info{{"session_id", c.session_id()},
                             {"parent_id", c.parent_id()},
                             {"mount_name", self.mount_name}};
    if (!c.labels().empty()) info["labels"] = c.labels();
    if (const auto &folder = c.confinement())
      info["workspace"] = boost::json::object{{"folder", folder->string()}, {"confined", true}};
    if (const auto &folder = c.state_folder()) info["state_folder"] = folder->string();
    write_json(out, info);
    return AMP_OK;
  });
}

// ---- events and hooks ----------------------------------------------------------------

// Whether `text` can be a JSON object at all: braces at both ends. With no handler to read an
// event, this is all emit checks, so an event nobody listens to costs nothing.
bool looks_like_object(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  const auto last = text.find_last_not_of(" \t\r\n");
  return first == std::string_view::npos || (text[first] == '{' && text[last] == '}');
}

amp_status api_emit(amp_host *h, amp_str event, amp_str data_json, amp_writer *result) {
  return guard(h, "emit", [&](Coordinator &c, MountedModule &) {
    if (event.len == 0) return AMP_INVALID_ARGUMENT;
    if (!result && !c.hooks().has_handlers(view(event)))
      return looks_like_object(view(data_json)) ? AMP_OK : AMP_INVALID_ARGUMENT;
    if (!result) {
      try {
        c.hooks().notify_json(view(event), data_json.len ? view(data_json) : "{}");
      } catch (const std::invalid_argument &) {
        log(LogLevel::Warning, "host-api",
            fmt::format("module '{}' emitted '{}' with data that is not a JSON object",
                        module_label(h), view(event)));
        return AMP_INVALID_ARGUMENT;
      }
      return AMP_OK;
    }
    boost::json::object data;
    if (data_json.len) {
      auto parsed = parse_payload(h, view(data_json), "emit");
      if (!parsed || !parsed->is_object()) return AMP_INVALID_ARGUMENT;
      data = std::move(parsed->as_object());
    }
    if (!result) {
      c.hooks().notify(view(event), std::move(data));
      return AMP_OK;
    }
    // The final payload is moved into the answer, not copied: it may hold a whole answer. The
    // answer's members keep HookResult::to_json's order (action, data, the rest).
    HookResult combined = c.hooks().emit(view(event), std::move(data));
    boost::json::value payload = std::move(combined.data);
    combined.data = nullptr;
    boost::json::object fields = combined.to_json();
    boost::json::object answer;
    answer.reserve(fields.size() + 1);
    for (auto &field : fields) {
      answer.emplace(field.key(), std::move(field.value()));
      if (field.key() == "action" && !payload.is_null()) answer.emplace("data", std::move(payload));
    }
    if (!payload.is_null()) answer.emplace("data", std::move(payload));  // had no "action"
    write_json(result, boost::json::value(std::move(answer)));
    return AMP_OK;
  });
}

// Calls a module's JSON hook handler with the event's payload as JSON text (rendered once per
// emit for every module hook) and reads back its HookResult.
std::optional<HookResult> run_json_hook(amp_hook_fn handler, void *user_data,
                                        const std::string &label, HookEvent &event) {
  const std::string_view payload = event.data_json();
  const std::string_view name = event.name();
  std::string reply;
  amp_writer writer{&reply, [](amp_writer *w, const char *d, size_t n) {
                      static_cast<std::string *>(w->host_data)->append(d, n);
                    }};
  amp_status s = handler(user_data, amp_str{name.data(), name.size()},
                         amp_str{payload.data(), payload.size()}, &writer);
  if (s != AMP_OK)
    throw std::runtime_error(fmt::format("hook '{}' failed with status {}", label, to_string(s)));
  if (reply.empty()) return std::nullopt;
  boost::json::error_code ec;
  auto v = boost::json::parse(reply, ec, {}, kernel_parse_options());
  if (ec) throw std::runtime_error(fmt::format("hook '{}' returned invalid JSON", label));
  return HookResult::from_json(v);
}

amp_status api_hook_register(amp_host *h, amp_str event, int32_t priority, amp_str name,
                             amp_hook_fn handler, void *user_data) {
  return guard(h, "hook_register", [&](Coordinator &c, MountedModule &self) {
    if (!handler || event.len == 0) return AMP_INVALID_ARGUMENT;
    std::string label = name.len ? std::string(view(name)) : std::string(self.id());
    // The handler holds the module's library so its code stays mapped while registered.
    auto library_guard = self.module;
    HookEventHandler bridge = [handler, user_data, library_guard, label](HookEvent &event) {
      return run_json_hook(handler, user_data, label, event);
    };
    c.hooks().register_event_handler(std::string(view(event)), std::move(bridge), priority,
                                     label, self.owner_id);
    return AMP_OK;
  });
}

amp_status api_hook_unregister(amp_host *h, amp_str name) {
  return guard(h, "hook_unregister", [&](Coordinator &c, MountedModule &self) {
    return c.hooks().unregister(view(name), self.owner_id) ? AMP_OK : AMP_NOT_FOUND;
  });
}

// ---- capabilities and channels -------------------------------------------------------

amp_status api_capability_register(amp_host *h, amp_str name, amp_str value_json) {
  return guard(h, "capability_register", [&](Coordinator &c, MountedModule &) {
    auto value = parse_payload(h, view(value_json), "capability_register");
    if (!value || name.len == 0) return AMP_INVALID_ARGUMENT;
    c.register_capability(std::string(view(name)), std::move(*value));
    return AMP_OK;
  });
}

amp_status api_capability_get(amp_host *h, amp_str name, amp_writer *out) {
  return guard(h, "capability_get", [&](Coordinator &c, MountedModule &) {
    auto value = c.capability(view(name));
    if (!value) return AMP_NOT_FOUND;
    write_json(out, *value);
    return AMP_OK;
  });
}

amp_status api_channel_contribute(amp_host *h, amp_str channel, amp_str name,
                                  amp_contributor_fn fn, void *user_data) {
  return guard(h, "channel_contribute", [&](Coordinator &c, MountedModule &self) {
    if (!fn || channel.len == 0) return AMP_INVALID_ARGUMENT;
    auto library_guard = self.module;
    std::string label(view(name));
    c.contribute(std::string(view(channel)), label,
                 [fn, user_data, library_guard, label]() -> boost::json::value {
                   std::string reply;
                   amp_writer writer{&reply, [](amp_writer *w, const char *d, size_t n) {
                                       static_cast<std::string *>(w->host_data)->append(d, n);
                                     }};
                   if (fn(user_data, &writer) != AMP_OK)
                     throw std::runtime_error(fmt::format("contributor '{}' failed", label));
                   return boost::json::parse(reply, {}, kernel_parse_options());
                 },
                 self.owner_id);
    return AMP_OK;
  });
}

amp_status api_channel_collect(amp_host *h, amp_str channel, amp_writer *out) {
  return guard(h, "channel_collect", [&](Coordinator &c, MountedModule &) {
    write_json(out, c.collect(view(channel)));
    return AMP_OK;
  });
}

// ---- call reporting ------------------------------------------------------------------

void api_call_event(amp_host *h, amp_call_id call, amp_str event_json) {
  guard(h, "call_event", [&](Coordinator &c, MountedModule &self) {
    c.calls().report_event(&self, call, view(event_json));
    return AMP_OK;
  });
}

void api_call_finish(amp_host *h, amp_call_id call, amp_status status, amp_str payload_json) {
  guard(h, "call_finish", [&](Coordinator &c, MountedModule &self) {
    c.calls().report_finish(&self, call, status, view(payload_json));
    return AMP_OK;
  });
}

void api_call_delta(amp_host *h, amp_call_id call, std::uint32_t index, amp_delta_kind kind,
                    amp_str text) {
  guard(h, "call_delta", [&](Coordinator &c, MountedModule &self) {
    c.calls().report_delta(&self, call, index, kind, view(text));
    return AMP_OK;
  });
}

amp_cancel_level api_call_cancel_state(amp_host *h, amp_call_id call) {
  if (!usable(h)) return AMP_CANCEL_NONE;
  try {
    return to_abi(h->coordinator->call_cancel_level(call));
  } catch (...) {
    return AMP_CANCEL_NONE;
  }
}

// ---- orchestration -------------------------------------------------------------------

amp_status api_providers_list(amp_host *h, amp_writer *out) {
  return guard(h, "providers_list", [&](Coordinator &c, MountedModule &) {
    write_json(out, c.provider_listing());
    return AMP_OK;
  });
}

amp_status api_tools_list(amp_host *h, amp_writer *out) {
  return guard(h, "tools_list", [&](Coordinator &c, MountedModule &) {
    write_json(out, c.tool_specs());
    return AMP_OK;
  });
}

// Adapts a module's amp_call_sink to the kernel's observer. The sink is copied (as much of it
// as the caller's struct_size says exists); its user_data belongs to the caller, who keeps it
// alive until on_finish.
CallObserver observer_for(const amp_call_sink &sink) {
  amp_call_sink copy{};
  std::memcpy(&copy, &sink, std::min(sink.struct_size, sizeof copy));
  CallObserver observer;
  if (AMP_HAS_FIELD(&sink, amp_call_sink, on_delta) && copy.on_delta)
    observer.on_delta = [copy](amp_call_id id, std::uint32_t index, amp_delta_kind kind,
                               std::string_view text) {
      copy.on_delta(copy.user_data, id, index, kind, amp_str{text.data(), text.size()});
    };
  if (copy.on_event)
    observer.on_event = [copy](amp_call_id id, std::string_view ev) {
      copy.on_event(copy.user_data, id, amp_str{ev.data(), ev.size()});
    };
  observer.on_finish = [copy](amp_call_id id, amp_status s, std::string_view payload) {
    if (copy.on_finish) copy.on_finish(copy.user_data, id, s, amp_str{payload.data(), payload.size()});
  };
  return observer;
}

bool sink_usable(const amp_call_sink *sink) {
  return sink && sink->struct_size >= offsetof(amp_call_sink, on_finish) + sizeof(void *) &&
         sink->on_finish;
}

amp_status api_provider_complete(amp_host *h, amp_str provider, amp_str request_json,
                                 const amp_call_sink *sink, amp_call_id *out_call) {
  return guard(h, "provider_complete", [&](Coordinator &c, MountedModule &self) {
    if (!sink_usable(sink)) return AMP_INVALID_ARGUMENT;
    MountedModule *target = c.provider(view(provider));
    if (!target) return AMP_NOT_FOUND;
    // No parse here: a request of N bytes costs the provider's read of it, nothing more. The
    // provider rejects what it cannot read as invalid_request.
    if (!looks_like_object(view(request_json))) return AMP_INVALID_ARGUMENT;
    c.start_provider_call(*target, view(request_json), observer_for(*sink), &self,
                          out_call);
    return AMP_OK;
  });
}

amp_status api_tool_execute(amp_host *h, amp_str tool, amp_str input_json,
                            const amp_call_sink *sink, amp_call_id *out_call) {
  return guard(h, "tool_execute", [&](Coordinator &c, MountedModule &self) {
    if (!sink_usable(sink)) return AMP_INVALID_ARGUMENT;
    MountedModule *owner = c.tool_owner(view(tool));
    if (!owner) return AMP_NOT_FOUND;
    if (!is_valid_json(view(input_json))) return AMP_INVALID_ARGUMENT;
    c.start_tool_call(*owner, std::string(view(tool)), std::string(view(input_json)),
                      observer_for(*sink), &self, out_call);
    return AMP_OK;
  });
}

amp_status api_call_cancel(amp_host *h, amp_call_id call, amp_cancel_level level) {
  return guard(h, "call_cancel", [&](Coordinator &c, MountedModule &self) {
    return c.cancel_call(call, from_abi(level), &self) ? AMP_OK : AMP_NOT_FOUND;
  });
}

// ---- context access ------------------------------------------------------------------

template <class Fn>
amp_status with_context(amp_host *h, const char *what, Fn &&fn) {
  return guard(h, what, [&](Coordinator &c, MountedModule &) {
    MountedModule *ctx = c.context();
    if (!ctx) return AMP_NOT_FOUND;
    InvocationGuard inside(*ctx);
    return fn(*ctx->table<amp_context_vtable>(), ctx->instance);
  });
}

// A context may store what it is given (a file, a database commit) before it returns: its
// writes are blocking work, so other sessions' work does not wait behind them.
template <class Fn>
amp_status with_context_write(amp_host *h, const char *what, Fn &&fn) {
  WorkerPool::BlockingSection storing;
  return with_context(h, what, std::forward<Fn>(fn));
}

amp_status api_context_add_message(amp_host *h, amp_str message_json) {
  return with_context_write(h, "context_add_message", [&](const amp_context_vtable &t, void *i) {
    return t.add_message(i, message_json);
  });
}
amp_status api_context_get_messages(amp_host *h, amp_writer *out) {
  return with_context(h, "context_get_messages", [&](const amp_context_vtable &t, void *i) {
    return t.get_messages(i, out);
  });
}
amp_status api_context_get_messages_for_request(amp_host *h, amp_str request_json, amp_writer *out) {
  return with_context(h, "context_get_messages_for_request",
                      [&](const amp_context_vtable &t, void *i) {
                        return t.get_messages_for_request(i, request_json, out);
                      });
}
amp_status api_context_set_messages(amp_host *h, amp_str messages_json) {
  return with_context_write(h, "context_set_messages", [&](const amp_context_vtable &t, void *i) {
    return t.set_messages(i, messages_json);
  });
}
amp_status api_context_clear(amp_host *h) {
  return with_context_write(h, "context_clear",
                            [&](const amp_context_vtable &t, void *i) { return t.clear(i); });
}

// ---- ABI 1.2: reached through get_proc ------------------------------------------------

amp_status api_emit_content_delta(amp_host *h, std::uint32_t index, amp_delta_kind kind,
                                  amp_str text) {
  return guard(h, "emit_content_delta", [&](Coordinator &c, MountedModule &) {
    if (!amp::sdk::json::is_known_delta(kind)) return AMP_INVALID_ARGUMENT;
    c.hooks().emit_content_delta(index, kind, view(text));
    return AMP_OK;
  });
}

int api_hook_has_handlers(amp_host *h, amp_str event) {
  if (!usable(h)) return 0;
  try {
    return h->coordinator->hooks().has_handlers(view(event)) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

amp_status api_work_submit(amp_host *h, std::uint32_t delay_ms, void (*fn)(void *),
                           void *user_data) {
  return guard(h, "work_submit", [&](Coordinator &c, MountedModule &self) {
    if (!fn) return AMP_INVALID_ARGUMENT;
    c.submit_module_work(self, std::chrono::milliseconds(delay_ms), [fn, user_data] { fn(user_data); });
    return AMP_OK;
  });
}

// ---- ABI 1.3 ----------------------------------------------------------------------------

amp_status api_session_spawn(amp_host *h, amp_str request_json, const amp_call_sink *sink,
                             amp_call_id *out_call) {
  return guard(h, "session_spawn", [&](Coordinator &c, MountedModule &self) {
    if (!sink_usable(sink)) return AMP_INVALID_ARGUMENT;
    if (!looks_like_object(view(request_json))) return AMP_INVALID_ARGUMENT;
    if (!c.can_spawn()) return AMP_UNSUPPORTED;
    c.start_spawn_call(std::string(view(request_json)), observer_for(*sink), &self, out_call);
    return AMP_OK;
  });
}

amp_status api_tools_changed(amp_host *h) {
  return guard(h, "tools_changed", [&](Coordinator &c, MountedModule &self) {
    c.refresh_tools(self);
    return AMP_OK;
  });
}

// ---- ABI 1.5 ----------------------------------------------------------------------------

// A typed delta hook: the delta as it was reported (or read from a payload of its shape) goes
// to `on_delta` with no JSON rendered or parsed; any other delta goes to `on_json`, if any.
amp_status api_hook_register_delta(amp_host *h, int32_t priority, amp_str name,
                                   amp_hook_delta_fn on_delta, amp_hook_fn on_json,
                                   void *user_data) {
  return guard(h, "hook_register_delta", [&](Coordinator &c, MountedModule &self) {
    if (!on_delta) return AMP_INVALID_ARGUMENT;
    std::string label = name.len ? std::string(view(name)) : std::string(self.id());
    auto library_guard = self.module;
    HookEventHandler bridge = [on_delta, on_json, user_data, library_guard,
                               label](HookEvent &event) -> std::optional<HookResult> {
      if (const auto delta = event.typed_delta()) {
        const amp_hook_delta typed{sizeof(amp_hook_delta), delta->index, delta->kind,
                                   amp_str{delta->text.data(), delta->text.size()}};
        if (const amp_status s = on_delta(user_data, &typed); s != AMP_OK)
          throw std::runtime_error(
              fmt::format("hook '{}' failed with status {}", label, to_string(s)));
        return std::nullopt;
      }
      if (!on_json) return std::nullopt;
      return run_json_hook(on_json, user_data, label, event);
    };
    c.hooks().register_event_handler(std::string(events::kContentBlockDelta), std::move(bridge),
                                     priority, label, self.owner_id);
    return AMP_OK;
  });
}

// Host functions by name (amplifier_plugin.h, "Host functions by name"), every one
// plugin-api/abi.json describes: one without its api_NAME here, or of another type than the
// header's, does not compile. Sorted lookups are not worth it: modules look each name up once.
amp_proc api_get_proc(const char *name) {
  if (!name) return nullptr;
  const std::string_view wanted(name);
#define AMP_LOOK_UP_PROC(proc, NAME, fn_type, since, wire) \
  if (wanted == NAME) return reinterpret_cast<amp_proc>(static_cast<fn_type>(&api_##proc));
  AMP_ABI_HOST_PROCS(AMP_LOOK_UP_PROC)
#undef AMP_LOOK_UP_PROC
  return nullptr;
}

// ---- approval (ABI 1.1) --------------------------------------------------------------

amp_status api_request_approval(amp_host *h, amp_str request_json, amp_writer *out) {
  return guard(h, "request_approval", [&](Coordinator &c, MountedModule &self) {
    auto request = parse_payload(h, view(request_json), "request_approval");
    if (!request || !request->is_object()) return AMP_INVALID_ARGUMENT;
    auto &object = request->as_object();
    if (!object.contains("module")) object["module"] = std::string(self.id());
    write_json(out, c.request_approval(object));
    return AMP_OK;
  });
}

// The table as abi.json lists it (abi_description_checks.cpp holds the header to the list).
const amp_host_api kHostApi = {
    .struct_size = sizeof(amp_host_api),
    .abi_major = AMP_ABI_VERSION_MAJOR,
    .abi_minor = AMP_ABI_VERSION_MINOR,
#define AMP_TABLE_ENTRY(function, since, wire) .function = &api_##function,
    AMP_ABI_HOST_FUNCTIONS(AMP_TABLE_ENTRY)
#undef AMP_TABLE_ENTRY
};

}  // namespace

const amp_host_api *host_api_table() { return &kHostApi; }

}  // namespace amplifier
