// tool-delegate: the `delegate` tool. Each call runs a child session through the host's
// "session_spawn" function (ABI 1.3): the host picks the agent and builds the child's plan, the
// kernel links the child to this session (parent_id, cancellation, approvals), and the child's
// final answer comes back as this tool's result.
//
// Events (through the host's hooks, with this session's ids as default fields):
//   delegate:agent_spawned / delegate:agent_resumed {agent, parent_session_id, child_session_id}
//   delegate:agent_completed {agent, parent_session_id, child_session_id, status}
//
// THREADS: the host runs execute on its worker pool, one call per thread, concurrently: each
// waits for its child there, so several delegate calls of one response run in parallel.
// cancel() passes the cancel on to the child's call.
#include "delegate_request.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/tool_result.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <condition_variable>
#include <map>
#include <mutex>
#include <algorithm>

namespace tool_delegate {
namespace {

namespace json = boost::json;
using amplifier::module_support::tool_result;
constexpr const char *kModuleId = "tool-delegate";
// The host publishes its agents here ({name, description} each) for the tool's description.
constexpr std::string_view kAgentsCapability = "session.agents";

std::string string_field(const json::object &o, std::string_view key) {
  const auto *v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

json::object parse_object(std::string_view text) {
  json::error_code ec;
  json::value v = json::parse(text, ec);
  return !ec && v.is_object() ? std::move(v.as_object()) : json::object{};
}

// One child's call, as the sink sees it.
struct ChildCall {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  amp_status status = AMP_ERROR;
  json::object payload;
  std::string child_session_id;
};

class DelegateTool final : public amp::sdk::ToolModule {
 public:
  DelegateTool(amp::sdk::Host host, std::string_view config_json)
      : ToolModule(host), config_(read_config(host, config_json)) {
    parent_session_id_ = string_field(parse_object(host.session_info()), "session_id");
  }

  std::string list_tools() override {
    json::array agents;
    if (auto published = this->host().capability(kAgentsCapability)) {
      json::error_code ec;
      json::value v = json::parse(*published, ec);
      if (!ec && v.is_array()) agents = std::move(v.as_array());
    }
    return json::serialize(json::array{delegate_spec(agents)});
  }

  void execute(amp_call_id call, std::string_view tool, std::string_view input_json) override {
    if (tool != "delegate")
      return host().call_fail(call, "not_found",
                              "tool-delegate has no tool '" + std::string(tool) + "'",
                              AMP_NOT_FOUND);
    DelegateInput input;
    try {
      input = read_delegate_input(input_json, config_);
    } catch (const std::invalid_argument &e) {
      return host().call_finish(call, AMP_OK, tool_result(false, e.what()));
    }
    run(call, input);
  }

  void cancel(amp_call_id call, amp_cancel_level level) override {
    amp_call_id child = 0;
    {
      std::lock_guard lock(mutex_);
      auto it = children_.find(call);
      if (it == children_.end()) return;  // not running (any more)
      if (it->second.child == 0) {        // its child is being started: cancelled as soon as it is
        it->second.early_cancel = std::max(it->second.early_cancel, level);
        return;
      }
      child = it->second.child;
    }
    host().cancel_call(child, level);
  }

 private:
  static DelegateConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
    std::vector<std::string> unknown;
    DelegateConfig config = read_delegate_config(config_json, &unknown);
    for (const auto &message : unknown) host.warn(message);
    return config;
  }

  void run(amp_call_id call, const DelegateInput &input) {
    {
      std::lock_guard lock(mutex_);
      children_[call] = Running{};  // its child not started yet
    }
    auto child = std::make_shared<ChildCall>();
    const std::string agent = input.agent;
    amp_call_sink sink = amp::sdk::CallbackSink::make(
        [this, child, agent, resumed = !input.session_id.empty()](
            amp_call_id, std::string_view event) { on_child_event(*child, agent, resumed, event); },
        [child](amp_call_id, amp_status status, std::string_view payload) {
          std::lock_guard lock(child->mutex);
          child->status = status;
          child->payload = parse_object(payload);
          child->done = true;
          child->done_cv.notify_all();
        });
    amp_call_id child_call = 0;
    const amp_status started =
        host().spawn_session(spawn_request(input, config_, kModuleId), sink, &child_call);
    if (started != AMP_OK) {
      amp::sdk::CallbackSink::discard(sink);
      untrack(call);
      return host().call_finish(
          call, AMP_OK,
          tool_result(false, started == AMP_UNSUPPORTED
                                 ? "delegate: this host cannot start sub-sessions (it lacks "
                                   "session_spawn, or tool-delegate runs isolated)"
                                 : "delegate: the host refused to start a sub-session"));
    }
    track(call, child_call);
    {
      std::unique_lock lock(child->mutex);
      child->done_cv.wait(lock, [&] { return child->done; });
    }
    untrack(call);
    finish(call, agent, *child);
  }

  void on_child_event(ChildCall &child, const std::string &agent, bool resumed,
                      std::string_view event) {
    const json::object e = parse_object(event);
    if (string_field(e, "type") != "session_started") return;
    {
      std::lock_guard lock(child.mutex);
      child.child_session_id = string_field(e, "session_id");
    }
    const bool was_resumed =
        e.contains("resumed") && e.at("resumed").is_bool() ? e.at("resumed").as_bool() : resumed;
    host().notify(
        was_resumed ? "delegate:agent_resumed" : "delegate:agent_spawned",
        json::serialize(json::object{{"agent", agent},
                                     {"parent_session_id", parent_session_id_},
                                     {"child_session_id", string_field(e, "session_id")}}));
  }

  void finish(amp_call_id call, const std::string &agent, ChildCall &child) {
    std::string session_id = string_field(child.payload, "session_id");
    if (session_id.empty()) session_id = child.child_session_id;
    const std::string status = child.status == AMP_OK ? string_field(child.payload, "status")
                               : child.status == AMP_CANCELLED ? "cancelled"
                                                               : "error";
    host().notify("delegate:agent_completed",
                  json::serialize(json::object{{"agent", agent},
                                               {"parent_session_id", parent_session_id_},
                                               {"child_session_id", session_id},
                                               {"status", status}}));
    json::object extra{{"agent", agent}, {"session_id", session_id}, {"status", status}};
    // The child's report (its ledger), for the parent's loop to roll up: passed on as it came.
    if (const json::value *report = child.payload.if_contains("report"); report && report->is_object())
      extra["report"] = *report;
    if (child.status == AMP_CANCELLED) {
      json::object cancelled{{"kind", "cancelled"}, {"message", "the sub-session was cancelled"}};
      if (extra.contains("report")) cancelled["report"] = extra["report"];
      return host().call_finish(call, AMP_CANCELLED, json::serialize(cancelled));
    }
    if (child.status != AMP_OK) {
      std::string message = string_field(child.payload, "message");
      if (message.empty()) message = "the sub-session failed";
      const std::string kind = string_field(child.payload, "kind");
      std::string text = "delegate: agent '" + agent + "' failed" +
                         (kind.empty() ? "" : " (" + kind + ")") + ": " + message;
      if (!session_id.empty()) text += "\n[session_id: " + session_id + "]";
      return host().call_finish(call, AMP_OK, tool_result(false, text, std::move(extra)));
    }
    std::string text = string_field(child.payload, "response");
    text += "\n\n[agent: " + agent + "; session_id: " + session_id +
            (status == "incomplete"        ? "; the agent stopped before it finished"
             : status == "budget_exceeded" ? "; the agent stopped: its budget was reached"
                                           : "") +
            "]";
    host().call_finish(call, AMP_OK, tool_result(true, text, std::move(extra)));
  }

  void track(amp_call_id call, amp_call_id child_call) {
    amp_cancel_level early = AMP_CANCEL_NONE;
    {
      std::lock_guard lock(mutex_);
      Running &running = children_[call];
      running.child = child_call;
      early = running.early_cancel;
    }
    if (early != AMP_CANCEL_NONE) host().cancel_call(child_call, early);
  }

  void untrack(amp_call_id call) {
    std::lock_guard lock(mutex_);
    children_.erase(call);
  }

  DelegateConfig config_;
  std::string parent_session_id_;
  std::mutex mutex_;
  // One per running delegate call: its child's call (0 while it is being started) and a cancel
  // that came before the child's call existed.
  struct Running {
    amp_call_id child = 0;
    amp_cancel_level early_cancel = AMP_CANCEL_NONE;
  };
  std::map<amp_call_id, Running> children_;
};

}  // namespace
}  // namespace tool_delegate

AMP_DEFINE_MODULE(tool_delegate::DelegateTool, "tool-delegate", "1.0.0",
                  "delegate: run a task in a child session (a sub-agent) and return its answer")
