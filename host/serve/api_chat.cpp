// POST /v1/chat/completions: the OpenAI Chat Completions shape over a session made for the
// one request. `model` picks the plan (a --plans-dir name, else the default plan); the
// conversation before the last user message becomes the session's starting context.
#include "api.hpp"
#include "event_output.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/events.hpp"
#include "plan_loading.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <ctime>
#include <mutex>
#include <optional>

namespace amplifier::host::serve {
namespace json = boost::json;
namespace {

struct ChatRequest {
  std::string model;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage: a last chunk with the usage
  json::array history;  // the messages before the prompt, as the context stores them
  std::string prompt;
};

// A message's content as text: a string, or the text parts of an array of parts.
std::string content_text(const json::value &content) {
  if (content.is_string()) return std::string(content.as_string());
  std::string text;
  if (content.is_array())
    for (const auto &part : content.as_array())
      if (const auto *p = part.if_object(); p && p->contains("text") && p->at("text").is_string())
        text += p->at("text").as_string();
  return text;
}

ChatRequest read_request(const ApiRequest &http) {
  json::object body = parse_body(http);
  ChatRequest request;
  request.model = string_member(body, "model", true);
  if (const json::value *s = body.if_contains("stream"); s && s->is_bool())
    request.stream = s->as_bool();
  if (const json::value *o = body.if_contains("stream_options"); o && o->is_object())
    if (const json::value *u = o->as_object().if_contains("include_usage"); u && u->is_bool())
      request.include_usage = u->as_bool();
  const json::value *messages = body.if_contains("messages");
  if (!messages || !messages->is_array() || messages->as_array().empty())
    throw ApiError(400, "invalid_request", "'messages' must be a non-empty array");
  const auto &list = messages->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json::object *m = list[i].if_object();
    const std::string role = m ? string_member(*m, "role", true) : "";
    if (!m || (role != "system" && role != "developer" && role != "user" && role != "assistant"))
      throw ApiError(400, "invalid_request",
                     fmt::format("messages[{}] must be an object with role system, developer, "
                                 "user or assistant",
                                 i));
    std::string text = m->contains("content") ? content_text(m->at("content")) : "";
    if (i + 1 == list.size()) {
      if (role != "user")
        throw ApiError(400, "invalid_request", "the last message must be the user's");
      request.prompt = std::move(text);
    } else {
      request.history.push_back(json::object{{"role", role == "developer" ? "system" : role},
                                             {"content", std::move(text)}});
    }
  }
  if (request.prompt.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ApiError(400, "invalid_request", "the last user message is empty");
  return request;
}

// The tokens of a turn, summed over its provider calls (an agent turn may make several: one
// per tool round), as OpenAI's `usage` object. The details appear when a provider reported
// them. Filled by the session's event listener, read in the turn's `done`: a listener call
// may still be running on another thread then, hence the lock.
class TurnUsage {
 public:
  void add(const json::object &usage) {
    std::lock_guard lock(mutex_);
    prompt_ += integer(usage, "input_tokens");
    completion_ += integer(usage, "output_tokens");
    total_ += integer(usage, "total_tokens");
    add_optional(cached_, usage, "cache_read_tokens");
    add_optional(reasoning_, usage, "reasoning_tokens");
  }
  json::object to_openai() const {
    std::lock_guard lock(mutex_);
    json::object usage{{"prompt_tokens", prompt_},
                       {"completion_tokens", completion_},
                       {"total_tokens", total_ > 0 ? total_ : prompt_ + completion_}};
    if (cached_) usage["prompt_tokens_details"] = json::object{{"cached_tokens", *cached_}};
    if (reasoning_)
      usage["completion_tokens_details"] = json::object{{"reasoning_tokens", *reasoning_}};
    return usage;
  }

 private:
  static std::int64_t integer(const json::object &o, std::string_view key) {
    const json::value *v = o.if_contains(key);
    return v && v->is_int64() ? v->as_int64() : 0;
  }
  static void add_optional(std::optional<std::int64_t> &sum, const json::object &o,
                           std::string_view key) {
    if (const json::value *v = o.if_contains(key); v && v->is_int64())
      sum = sum.value_or(0) + v->as_int64();
  }
  mutable std::mutex mutex_;
  std::int64_t prompt_ = 0, completion_ = 0, total_ = 0;
  std::optional<std::int64_t> cached_, reasoning_;
};

// The fields every completion object and chunk share.
json::object completion_base(std::string_view object, const std::string &id,
                             const std::string &model) {
  return json::object{{"id", "chatcmpl-" + id},
                      {"object", object},
                      {"created", static_cast<std::int64_t>(std::time(nullptr))},
                      {"model", model}};
}

std::string chunk(const std::string &id, const std::string &model, json::object delta,
                  json::value finish_reason = nullptr) {
  json::object c = completion_base("chat.completion.chunk", id, model);
  c["choices"] = json::array{json::object{
      {"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish_reason)}}};
  return sse_frame("", json::serialize(c));
}

std::string_view finish_reason(const TurnResult &result) {
  // A budget that ends the turn is a limit, as max_tokens is to OpenAI's clients.
  return result.status == "incomplete" || result.status == "budget_exceeded" ? "length" : "stop";
}

json::object error_body(const TurnResult &result) {
  return json::object{{"error", json::object{{"type", "turn_" + result.status},
                                             {"message", error_message(result)}}}};
}

json::object completion(const std::string &id, const std::string &model, const TurnResult &result,
                        const TurnUsage &usage) {
  json::object c = completion_base("chat.completion", id, model);
  c["choices"] = json::array{
      json::object{{"index", 0},
                   {"message", json::object{{"role", "assistant"}, {"content", result.response}}},
                   {"finish_reason", finish_reason(result)}}};
  c["usage"] = usage.to_openai();
  return c;
}

// The chunk OpenAI sends last when stream_options.include_usage is true: no choices, the usage.
std::string usage_chunk(const std::string &id, const std::string &model, const TurnUsage &usage) {
  json::object c = completion_base("chat.completion.chunk", id, model);
  c["choices"] = json::array{};
  c["usage"] = usage.to_openai();
  return sse_frame("", json::serialize(c));
}

}  // namespace

ApiResponse Api::chat_completions(const ApiRequest &http) {
  check_accepting();
  const ChatRequest request = read_request(http);
  auto served = factory_.create(factory_.plan_for_model(request.model),
                                json::object{{"api", "chat.completions"}, {"model", request.model}},
                                /*plan_name=*/std::nullopt);  // one request's session
  if (!request.history.empty())
    served->session().coordinator().set_context_messages(json::serialize(request.history));
  adopt(served, /*created=*/true);
  const std::string id = served->id();
  auto stream = std::make_shared<EventStream>(request.stream);
  auto usage = std::make_shared<TurnUsage>();
  if (request.stream)
    stream->push(chunk(id, request.model, json::object{{"role", "assistant"}, {"content", ""}}));
  ServedSession::Listener listener = [stream, usage, id, model = request.model,
                                      streaming = request.stream](HookEvent &event) {
    if (event.name() == events::kProviderResponse) {
      if (const json::value *u = event.data().if_contains("usage"); u && u->is_object())
        usage->add(u->as_object());
      return;
    }
    if (!streaming || event.name() != events::kContentBlockDelta || stream->abandoned()) return;
    if (std::string_view text = answer_text_delta(event); !text.empty())
      stream->push(chunk(id, model, json::object{{"content", text}}));
  };
  auto done = [this, stream, usage, id, model = request.model,
               include_usage = request.include_usage](TurnResult result) {
    metrics_.turn_finished(result.status);
    const bool failed = result.status == "error" || result.status == "cancelled";
    if (failed) metrics_.error("turn");
    if (stream->sse()) {
      stream->push(failed ? sse_frame("", json::serialize(error_body(result)))
                          : chunk(id, model, json::object{}, json::string(finish_reason(result))));
      if (!failed && include_usage) stream->push(usage_chunk(id, model, *usage));
      stream->push(sse_frame("", "[DONE]"));
    } else {
      stream->set_status(failed ? 502 : 200);
      stream->push(
          json::serialize(failed ? error_body(result) : completion(id, model, result, *usage)));
    }
    stream->finish();
    // The session was made for this one request.
    if (auto s = sessions_.remove(id)) retire(std::move(s), /*remove_work_dir=*/true);
  };
  if (!served->start_turn(request.prompt, listener, nullptr, done))
    throw ApiError(500, "server_error", "the new session was busy");
  ApiResponse response;
  response.content_type = request.stream ? "text/event-stream" : "application/json";
  response.stream = std::move(stream);
  return response;
}

}  // namespace amplifier::host::serve
