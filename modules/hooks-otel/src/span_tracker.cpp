#include "span_tracker.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <vector>

namespace hooks_otel {
namespace json = boost::json;

// A running session as other sessions of this library see it: its trace, its turn, and its
// delegate calls (for the children they start).
struct TraceLink {
  TraceId trace_id{};
  SpanId session_span{};
  std::mutex mutex;
  std::optional<SpanId> turn_span;
  struct Delegation {
    std::uint64_t sequence = 0;  // the order the calls started in
    SpanId span{};
    std::string agent;
    std::string child;  // the session it started, once delegate:agent_spawned said so
  };
  std::uint64_t next_sequence = 0;
  std::map<std::string, Delegation> delegations;  // by tool_call_id, while they run
  std::map<std::string, std::pair<SpanId, std::string>> children;  // child id -> {span, agent}
};

namespace {

std::mutex registry_mutex;
std::map<std::string, std::weak_ptr<TraceLink>> registry;  // by session id

std::shared_ptr<TraceLink> registered(const std::string &session_id) {
  std::lock_guard lock(registry_mutex);
  auto it = registry.find(session_id);
  return it == registry.end() ? nullptr : it->second.lock();
}

using amplifier::module_support::object_at;

// base's string_at and count_at, as the owned values the spans keep.
std::string string_at(const json::object &o, std::string_view key) {
  return std::string(amplifier::module_support::string_at(o, key));
}

std::int64_t count_at(const json::object *o, std::string_view key) {
  return o ? amplifier::module_support::count_at(*o, key).value_or(0) : 0;
}

// gen_ai.provider.name: the conventions' well-known values for the vendors we speak to; any
// other provider module is named by its id without the "provider-" prefix.
std::string provider_name(std::string_view module) {
  static const std::map<std::string_view, std::string_view> kKnown = {
      {"provider-anthropic", "anthropic"},
      {"provider-openai", "openai"},
      {"provider-azure-openai", "azure.ai.openai"},
      {"provider-gemini", "gcp.gemini"},
  };
  if (auto it = kKnown.find(module); it != kKnown.end()) return std::string(it->second);
  if (module.starts_with("provider-")) module.remove_prefix(9);
  return std::string(module);
}

// {"role", "parts": [{"type": "text", "content"}]} as the conventions' message JSON.
std::string messages_json(std::string_view role, std::string_view text) {
  return json::serialize(json::array{json::object{
      {"role", role},
      {"parts", json::array{json::object{{"type", "text"}, {"content", text}}}}}});
}

void mark_error(Span &span, std::string type, std::string message) {
  span.status = StatusCode::error;
  span.status_message = std::move(message);
  span.set("error.type", std::move(type));
}

}  // namespace

const std::vector<std::string_view> &SpanTracker::events() {
  static const std::vector<std::string_view> kEvents = {
      "execution:start", "prompt:complete", "provider:request", "ledger:update",
      "provider:response", "provider:error", "provider:fallback", "tool:pre", "tool:post",
      "tool:error", "delegate:agent_spawned", "delegate:agent_resumed", "session:end"};
  return kEvents;
}

SpanTracker::SpanTracker(std::string session_id, std::string parent_id, TrackerOptions options,
                         std::function<void(Span)> finished)
    : session_id_(std::move(session_id)),
      parent_id_(std::move(parent_id)),
      options_(options),
      finished_(std::move(finished)),
      link_(std::make_shared<TraceLink>()) {
  Span session;
  if (!parent_id_.empty()) parent_link_ = registered(parent_id_);
  if (parent_link_) {
    std::lock_guard lock(parent_link_->mutex);
    session.trace_id = parent_link_->trace_id;
    parent_fallback_ = parent_link_->turn_span ? *parent_link_->turn_span : parent_link_->session_span;
  } else {
    session.trace_id = new_trace_id();
  }
  session.span_id = new_span_id();
  session.name = "session";
  session.start_unix_nano = now_unix_nano();
  session.set("amplifier.session.id", session_id_);
  session.set("gen_ai.conversation.id", session_id_);
  if (!parent_id_.empty()) session.set("amplifier.session.parent_id", parent_id_);
  link_->trace_id = session.trace_id;
  link_->session_span = session.span_id;
  session_ = std::move(session);
  std::lock_guard lock(registry_mutex);
  registry[session_id_] = link_;
}

SpanTracker::~SpanTracker() {
  {
    std::lock_guard lock(mutex_);
    end_session();
  }
  std::lock_guard lock(registry_mutex);
  if (auto it = registry.find(session_id_); it != registry.end() && it->second.lock() == link_)
    registry.erase(it);
}

void SpanTracker::on_event(std::string_view event, const json::object &data) {
  std::lock_guard lock(mutex_);
  if (!session_) return;  // ended
  if (event == "execution:start") start_turn(data);
  else if (event == "prompt:complete") end_turn(data);
  else if (event == "provider:request") start_llm(data);
  else if (event == "ledger:update") price_llm(data);
  else if (event == "provider:response" || event == "provider:error" || event == "provider:fallback")
    end_llm(data, event);
  else if (event == "tool:pre") start_tool(data);
  else if (event == "tool:post") end_tool(data, false);
  else if (event == "tool:error") end_tool(data, true);
  else if (event == "delegate:agent_spawned" || event == "delegate:agent_resumed") child_started(data);
  else if (event == "session:end") end_session();
}

Span SpanTracker::child_span(const Span &parent, std::string name, SpanKind kind) const {
  Span span;
  span.trace_id = parent.trace_id;
  span.span_id = new_span_id();
  span.parent_span_id = parent.span_id;
  span.name = std::move(name);
  span.kind = kind;
  span.start_unix_nano = now_unix_nano();
  return span;
}

void SpanTracker::finish(Span &span) {
  span.end_unix_nano = now_unix_nano();
  finished_(std::move(span));
}

// Cut before it is put into JSON, and never inside a UTF-8 sequence: a collector refuses a
// whole request over one invalid byte.
std::string SpanTracker::captured(std::string text) const {
  if (text.size() <= options_.max_content_chars) return text;
  std::size_t end = options_.max_content_chars;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  text.resize(end);
  text += " [cut]";
  return text;
}

void SpanTracker::start_turn(const json::object &data) {
  if (turn_) finish(*turn_);
  // A child's agent is known once its parent said which delegate call started it.
  std::string agent = "amplifier";
  if (parent_link_) {
    std::lock_guard lock(parent_link_->mutex);
    if (auto it = parent_link_->children.find(session_id_); it != parent_link_->children.end())
      agent = it->second.second;
  }
  Span turn = child_span(*session_, "invoke_agent " + agent, SpanKind::internal);
  turn.set("gen_ai.operation.name", std::string("invoke_agent"));
  turn.set("gen_ai.agent.name", agent);
  turn.set("gen_ai.conversation.id", session_id_);
  if (options_.capture_content)
    turn.set("gen_ai.input.messages", messages_json("user", captured(string_at(data, "prompt"))));
  {
    std::lock_guard lock(link_->mutex);
    link_->turn_span = turn.span_id;
  }
  turn_ = std::move(turn);
}

// Spans a turn or session end leaves open never said how they ended: marked so.
void SpanTracker::abandon_open_calls() {
  if (llm_) {
    mark_error(*llm_, "cancelled", "the turn ended before the call did");
    finish(*llm_);
    llm_.reset();
  }
  for (auto &[id, tool] : tools_) {
    mark_error(tool, "cancelled", "the turn ended before the tool did");
    finish(tool);
  }
  tools_.clear();
  std::lock_guard lock(link_->mutex);
  link_->delegations.clear();
}

void SpanTracker::end_turn(const json::object &data) {
  if (!turn_) return;
  abandon_open_calls();
  const std::string status = string_at(data, "status");
  turn_->set("amplifier.turn.status", status);
  if (status == "error") mark_error(*turn_, "turn_error", string_at(data, "response"));
  if (options_.capture_content)
    turn_->set("gen_ai.output.messages",
               messages_json("assistant", captured(string_at(data, "response"))));
  finish(*turn_);
  turn_.reset();
  std::lock_guard lock(link_->mutex);
  link_->turn_span.reset();
}

void SpanTracker::start_llm(const json::object &data) {
  if (llm_) {  // a request that never said how it ended (a gate refused it, say)
    mark_error(*llm_, "abandoned", "another request started before this one ended");
    finish(*llm_);
  }
  Span call = child_span(turn_ ? *turn_ : *session_, "chat", SpanKind::client);
  call.set("gen_ai.operation.name", std::string("chat"));
  // The provider's mount name until the answer says which module it is (ledger:update): a
  // call that fails still says where it went.
  call.set("gen_ai.provider.name", provider_name(string_at(data, "provider")));
  call.set("amplifier.provider", string_at(data, "provider"));
  if (const std::string model = string_at(data, "model"); !model.empty()) {
    call.name = "chat " + model;
    call.set("gen_ai.request.model", model);
  }
  if (const json::value *i = data.if_contains("iteration"); i && i->is_int64())
    call.set("amplifier.iteration", i->as_int64());
  llm_ = std::move(call);
}

// The agent loop's ledger:update, between the answer and provider:response: which provider
// and model answered, and the tokens in the conventions' sense (input includes the cache).
void SpanTracker::price_llm(const json::object &data) {
  if (!llm_) return;
  const json::object *call = object_at(data, "call");
  if (!call) return;
  const std::string model = string_at(*call, "model");
  llm_->set("gen_ai.provider.name", provider_name(string_at(*call, "provider")));
  if (!model.empty()) {
    // The model the loop did not name is the provider's default, the one that answered.
    if (!llm_->has("gen_ai.request.model")) {
      llm_->name = "chat " + model;
      llm_->set("gen_ai.request.model", model);
    }
    llm_->set("gen_ai.response.model", model);
  }
  const json::object *tokens = object_at(*call, "tokens");
  const std::int64_t read = count_at(tokens, "cache_read"), written = count_at(tokens, "cache_write");
  llm_->set("gen_ai.usage.input_tokens", count_at(tokens, "input") + read + written);
  llm_->set("gen_ai.usage.output_tokens", count_at(tokens, "output"));
  if (read) llm_->set("gen_ai.usage.cache_read.input_tokens", read);
  if (written) llm_->set("gen_ai.usage.cache_creation.input_tokens", written);
  if (const json::value *usd = call->if_contains("usd"); usd && usd->is_number())
    llm_->set("amplifier.cost.usd", usd->to_number<double>());
}

void SpanTracker::end_llm(const json::object &data, std::string_view event) {
  if (!llm_) return;
  if (event == "provider:error") {
    const json::object *error = object_at(data, "error");
    mark_error(*llm_, error ? string_at(*error, "kind") : "error",
               error ? string_at(*error, "message") : "");
  } else if (event == "provider:fallback") {
    mark_error(*llm_, string_at(data, "reason"), "fell back to " + string_at(data, "to"));
  } else if (!llm_->has("gen_ai.usage.input_tokens")) {
    // No ledger:update (another orchestrator): the provider's own counts.
    if (const json::object *usage = object_at(data, "usage")) {
      llm_->set("gen_ai.usage.input_tokens", count_at(usage, "input_tokens"));
      llm_->set("gen_ai.usage.output_tokens", count_at(usage, "output_tokens"));
    }
  }
  finish(*llm_);
  llm_.reset();
}

void SpanTracker::start_tool(const json::object &data) {
  const std::string name = string_at(data, "tool_name");
  const std::string id = string_at(data, "tool_call_id");
  Span tool = child_span(turn_ ? *turn_ : *session_, "execute_tool " + name, SpanKind::internal);
  tool.set("gen_ai.operation.name", std::string("execute_tool"));
  tool.set("gen_ai.tool.name", name);
  tool.set("gen_ai.tool.call.id", id);
  tool.set("gen_ai.tool.type", std::string("function"));
  const json::object *input = object_at(data, "tool_input");
  if (options_.capture_content && input)
    tool.set("gen_ai.tool.call.arguments", captured(json::serialize(*input)));
  if (name == "delegate") {
    std::lock_guard lock(link_->mutex);
    link_->delegations[id] = {link_->next_sequence++, tool.span_id,
                              input ? string_at(*input, "agent") : "", ""};
  }
  tools_.emplace(id, std::move(tool));  // a repeated id (or none) is its own span, first in first out
}

void SpanTracker::end_tool(const json::object &data, bool failed) {
  const std::string id = string_at(data, "tool_call_id");
  auto it = tools_.lower_bound(id);  // the oldest open call with this id
  if (it == tools_.end() || it->first != id) return;
  Span &tool = it->second;
  const json::object *result = object_at(data, "result");
  const json::value *success = result ? result->if_contains("success") : nullptr;
  if (failed || (success && success->is_bool() && !success->as_bool())) {
    const json::object *error = object_at(data, "error");
    mark_error(tool, "tool_error",
               error ? string_at(*error, "message") : result ? string_at(*result, "output") : "");
  }
  if (options_.capture_content && result) {
    const json::value *output = result->if_contains("output");
    if (output)
      tool.set("gen_ai.tool.call.result",
               captured(output->is_string() ? std::string(output->get_string())
                                            : json::serialize(*output)));
  }
  finish(tool);
  tools_.erase(it);
  std::lock_guard lock(link_->mutex);
  link_->delegations.erase(id);
}

// The parent side of a delegation: the child session `child_session_id` was started by one
// of the running delegate calls (the one for this agent not yet matched, oldest first).
void SpanTracker::child_started(const json::object &data) {
  const std::string child = string_at(data, "child_session_id");
  const std::string agent = string_at(data, "agent");
  std::lock_guard lock(link_->mutex);
  // The oldest unmatched call for this agent; failing that, the oldest unmatched call.
  TraceLink::Delegation *chosen = nullptr;
  auto better = [&](const TraceLink::Delegation &d) {
    if (!chosen) return true;
    const bool same = d.agent == agent, chosen_same = chosen->agent == agent;
    return same != chosen_same ? same : d.sequence < chosen->sequence;
  };
  for (auto &[id, delegation] : link_->delegations)
    if (delegation.child.empty() && better(delegation)) chosen = &delegation;
  if (!chosen) return;
  chosen->child = child;
  link_->children[child] = {chosen->span, agent};
}

void SpanTracker::end_session() {
  if (!session_) return;
  abandon_open_calls();
  if (turn_) finish(*turn_), turn_.reset();
  // A child's session hangs under the delegate call that started it (then forgotten there).
  if (parent_link_) {
    std::lock_guard lock(parent_link_->mutex);
    auto it = parent_link_->children.find(session_id_);
    session_->parent_span_id = it != parent_link_->children.end() ? it->second.first
                                                                   : *parent_fallback_;
    if (it != parent_link_->children.end()) parent_link_->children.erase(it);
  }
  finish(*session_);
  session_.reset();
}

}  // namespace hooks_otel
