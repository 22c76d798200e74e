// POST /v1/chat/completions: the OpenAI Chat Completions shape over a session made for the
// one request. `model` picks the plan (a --plans-dir name, else the default plan); the
// conversation before the last user message becomes the session's starting context.
#include "api.hpp"
#include "event_output.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/events.hpp"
#include "commands.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <ctime>

namespace amplifier::host::serve {
namespace json = boost::json;
namespace {

struct ChatRequest {
  std::string model;
  bool stream = false;
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
  return result.status == "incomplete" ? "length" : "stop";
}

json::object error_body(const TurnResult &result) {
  return json::object{{"error", json::object{{"type", "turn_" + result.status},
                                             {"message", error_message(result)}}}};
}

json::object completion(const std::string &id, const std::string &model, const TurnResult &result) {
  json::object c = completion_base("chat.completion", id, model);
  c["choices"] = json::array{
      json::object{{"index", 0},
                   {"message", json::object{{"role", "assistant"}, {"content", result.response}}},
                   {"finish_reason", finish_reason(result)}}};
  return c;
}

}  // namespace

ApiResponse Api::chat_completions(const ApiRequest &http) {
  check_accepting();
  const ChatRequest request = read_request(http);
  auto served = factory_.create(factory_.plan_for_model(request.model),
                                json::object{{"api", "chat.completions"}, {"model", request.model}},
                                /*default_plan=*/false);
  if (!request.history.empty())
    served->session().coordinator().set_context_messages(json::serialize(request.history));
  sessions_.add(served);
  const std::string id = served->id();
  auto stream = std::make_shared<EventStream>(request.stream);
  ServedSession::Listener listener;
  if (request.stream) {
    stream->push(chunk(id, request.model, json::object{{"role", "assistant"}, {"content", ""}}));
    listener = [stream, id, model = request.model](HookEvent &event) {
      if (event.name() != events::kContentBlockDelta || stream->abandoned()) return;
      if (std::string_view text = answer_text_delta(event); !text.empty())
        stream->push(chunk(id, model, json::object{{"content", text}}));
    };
  }
  auto done = [this, stream, id, model = request.model](TurnResult result) {
    metrics_.turn_finished(result.status);
    const bool failed = result.status == "error" || result.status == "cancelled";
    if (failed) metrics_.error("turn");
    if (stream->sse()) {
      stream->push(failed ? sse_frame("", json::serialize(error_body(result)))
                          : chunk(id, model, json::object{}, json::string(finish_reason(result))));
      stream->push(sse_frame("", "[DONE]"));
    } else {
      stream->set_status(failed ? 502 : 200);
      stream->push(json::serialize(failed ? error_body(result) : completion(id, model, result)));
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
