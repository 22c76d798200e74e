#include "session_harness.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/model.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/validation.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <future>
#include <set>
#include <stdexcept>

namespace amp_test {
namespace json = boost::json;

std::unique_ptr<amplifier::Session> make_session(std::string_view plan_yaml) {
  amplifier::SessionOptions options;
  options.module_path = {AMP_TEST_MODULE_DIR, AMP_MODULE_DIR};
  return std::make_unique<amplifier::Session>(amplifier::parse_mount_plan(plan_yaml, "<test plan>"),
                                              std::move(options));
}

// ---- EventLog ----------------------------------------------------------------------------

EventLog::EventLog(amplifier::HookRegistry &hooks) : hooks_(hooks) {
  // Lowest priority runs first, so the recorded payload is the one the emitter sent.
  handler_ = hooks.register_handler(
      "*",
      [this](std::string_view event, const json::object &data) {
        {
          std::lock_guard lock(mutex_);
          events_.push_back({std::string(event), data});
        }
        recorded_.notify_all();
        return amplifier::HookResult{};
      },
      -1000, "test-event-log");
}

EventLog::~EventLog() { hooks_.unregister(handler_); }

std::vector<EventLog::Event> EventLog::all() const {
  std::lock_guard lock(mutex_);
  return events_;
}

std::vector<std::string> EventLog::names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto &e : events_) out.push_back(e.name);
  return out;
}

std::vector<json::object> EventLog::payloads(std::string_view event) const {
  std::lock_guard lock(mutex_);
  std::vector<json::object> out;
  for (const auto &e : events_)
    if (e.name == event) out.push_back(e.data);
  return out;
}

std::size_t EventLog::count(std::string_view event) const { return payloads(event).size(); }

long EventLog::index_of(std::string_view event) const {
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < events_.size(); ++i)
    if (events_[i].name == event) return static_cast<long>(i);
  return -1;
}

bool EventLog::wait_for(std::string_view event, std::chrono::milliseconds timeout,
                        const std::function<bool(const json::object &)> &match) const {
  std::unique_lock lock(mutex_);
  return recorded_.wait_for(lock, timeout, [&] {
    return std::any_of(events_.begin(), events_.end(), [&](const Event &e) {
      return e.name == event && (!match || match(e.data));
    });
  });
}

// ---- LogCapture --------------------------------------------------------------------------

struct LogCapture::Shared {
  mutable std::mutex mutex;
  mutable std::condition_variable logged;
  std::vector<Line> lines;

  std::size_t count_locked(std::initializer_list<std::string_view> parts) const {
    return static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [&](const Line &l) {
      return std::all_of(parts.begin(), parts.end(), [&](std::string_view p) {
        return l.message.find(p) != std::string::npos;
      });
    }));
  }
};

LogCapture::LogCapture() : shared_(std::make_shared<Shared>()) {
  // The sink holds the shared state, so a line logged while the sink is being replaced never
  // reaches a destroyed capture.
  amplifier::set_log_sink([shared = shared_](amplifier::LogLevel level, std::string_view component,
                                             std::string_view message) {
    {
      std::lock_guard lock(shared->mutex);
      shared->lines.push_back({level, std::string(component), std::string(message)});
    }
    shared->logged.notify_all();
  });
}

LogCapture::~LogCapture() { amplifier::set_log_sink({}); }

std::vector<LogCapture::Line> LogCapture::lines() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->lines;
}

std::size_t LogCapture::count(std::initializer_list<std::string_view> parts) const {
  std::lock_guard lock(shared_->mutex);
  return shared_->count_locked(parts);
}

bool LogCapture::wait_for(std::initializer_list<std::string_view> parts, std::size_t n,
                          std::chrono::milliseconds timeout) const {
  std::unique_lock lock(shared_->mutex);
  return shared_->logged.wait_for(lock, timeout, [&] { return shared_->count_locked(parts) >= n; });
}

// ---- transcripts -------------------------------------------------------------------------

json::array transcript(amplifier::Session &session) {
  amplifier::MountedModule *context = session.coordinator().context();
  if (!context) throw std::runtime_error("no context is mounted");
  std::string text;
  amp_writer writer{&text, [](amp_writer *w, const char *d, size_t n) {
                      static_cast<std::string *>(w->host_data)->append(d, n);
                    }};
  if (context->table<amp_context_vtable>()->get_messages(context->instance, &writer) != AMP_OK)
    throw std::runtime_error("the context refused get_messages");
  return json::parse(text).as_array();
}

std::vector<std::string> transcript_problems(const json::array &messages) {
  std::vector<std::string> problems;
  std::vector<amplifier::Message> parsed;
  try {
    parsed = amplifier::from_json<std::vector<amplifier::Message>>(messages);
  } catch (const std::exception &e) {
    return {std::string("not valid messages: ") + e.what()};
  }
  problems = amplifier::validate_conversation(parsed);
  std::set<std::string> answered;
  for (const auto &m : parsed)
    if (m.role == amplifier::Role::tool && m.tool_call_id) answered.insert(*m.tool_call_id);
  for (const auto &m : parsed) {
    if (!m.has_block_content()) continue;
    for (const auto &block : std::get<std::vector<amplifier::ContentBlock>>(m.content))
      if (auto *call = amplifier::block_as<amplifier::ToolCallBlock>(block);
          call && !answered.contains(call->id))
        problems.push_back("tool call " + call->id + " (" + call->name + ") has no result");
  }
  return problems;
}

std::vector<json::object> tool_messages(const json::array &messages) {
  std::vector<json::object> out;
  for (const auto &m : messages)
    if (m.is_object() && string_at(m.get_object(), "role") == "tool") out.push_back(m.get_object());
  return out;
}

namespace {
const json::object *tool_result_block(const json::object &message) {
  const json::value *content = message.if_contains("content");
  if (!content || !content->is_array()) return nullptr;
  for (const auto &block : content->get_array())
    if (block.is_object() && string_at(block.get_object(), "type") == "tool_result")
      return &block.get_object();
  return nullptr;
}
}  // namespace

json::value tool_output(const json::object &message) {
  const json::object *block = tool_result_block(message);
  const json::value *output = block ? block->if_contains("output") : nullptr;
  return output ? *output : json::value();
}

bool tool_output_is_error(const json::object &message) {
  const json::object *block = tool_result_block(message);
  const json::value *flag = block ? block->if_contains("is_error") : nullptr;
  return flag && flag->is_bool() && flag->get_bool();
}

std::vector<std::string> roles(const json::array &messages) {
  std::vector<std::string> out;
  for (const auto &m : messages) out.push_back(m.is_object() ? string_at(m.get_object(), "role") : "?");
  return out;
}

std::string dump(const json::array &messages) { return json::serialize(messages); }

ToolReply call_tool_directly(amplifier::Session &session, std::string_view owner_tool,
                             std::string tool, std::string input_json) {
  auto &coordinator = session.coordinator();
  amplifier::MountedModule *owner = coordinator.tool_owner(owner_tool);
  if (!owner) throw std::runtime_error("no module offers " + std::string(owner_tool));
  // Shared: if the wait times out, a late terminal event still finds the promise alive.
  auto reply = std::make_shared<std::promise<ToolReply>>();
  amplifier::CallObserver observer;
  observer.on_finish = [reply](amp_call_id, amp_status status, std::string_view payload) {
    reply->set_value(ToolReply{status, json::parse(payload)});
  };
  coordinator.start_tool_call(*owner, std::move(tool), std::move(input_json), std::move(observer));
  auto future = reply->get_future();
  if (future.wait_for(kPatience) != std::future_status::ready)
    throw std::runtime_error("the tool call did not finish in time");
  return future.get();
}

std::string string_at(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace amp_test
