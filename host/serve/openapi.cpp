// GET /v1/openapi.json. Kept beside the routes (api.cpp); tests/serve checks that it lists
// every one of them.
#include "api.hpp"

#include <boost/json/serialize.hpp>

namespace amplifier::host::serve {
namespace json = boost::json;
namespace {

json::object ref(std::string_view name) {
  return json::object{{"$ref", "#/components/schemas/" + std::string(name)}};
}

json::object content(std::string_view type, json::object schema) {
  return json::object{{type, json::object{{"schema", std::move(schema)}}}};
}

json::object reply(std::string_view description, std::string_view type = "application/json",
                   json::object schema = {}) {
  json::object r{{"description", description}};
  if (!schema.empty()) r["content"] = content(type, std::move(schema));
  return r;
}

json::object errors() {
  return reply(
      "A JSON error naming the problem (400 malformed, 401 no token, 403 a foreign Host or "
      "Origin or a plan the client may not send, 404 unknown, 405 method, 409 a turn is "
      "running or another server holds the session, 413 too large, 415 not JSON, 422 the "
      "plan's modules failed, 429 too many sessions, 503 shutting down or the session store "
      "unreachable)",
      "application/json", ref("Error"));
}

json::object operation(std::string_view summary, json::object ok, json::object body = {}) {
  json::object op{{"summary", summary},
                  {"responses", json::object{{"200", std::move(ok)}, {"default", errors()}}}};
  if (!body.empty())
    op["requestBody"] =
        json::object{{"required", true}, {"content", content("application/json", std::move(body))}};
  return op;
}

// An operation anyone may call: no bearer token even on a non-loopback bind.
json::object public_operation(std::string_view summary, json::object ok) {
  json::object op = operation(summary, std::move(ok));
  op["security"] = json::array{};
  return op;
}

json::array path_params(std::initializer_list<std::string_view> names) {
  json::array params;
  for (auto name : names)
    params.push_back(json::object{{"name", name},
                                  {"in", "path"},
                                  {"required", true},
                                  {"schema", json::object{{"type", "string"}}}});
  return params;
}

json::object object_schema(json::object properties, json::array required = {}) {
  json::object schema{{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) schema["required"] = std::move(required);
  return schema;
}

const json::object kString{{"type", "string"}};

json::object schemas() {
  return json::object{
      {"Error",
       object_schema({{"error", object_schema({{"type", kString}, {"message", kString}})}})},
      {"CreateSession",
       object_schema(
           {{"plan",
             json::object{{"description",
                           "a plan name in --plans-dir; an inline plan object only with "
                           "--allow-inline-plans"}}},
            {"metadata", json::object{}},
            {"mode", json::object{{"type", "string"},
                                  {"description", "the mode the session starts in (plan, review, "
                                                  "explore, the plan's own; off: none)"}}}})},
      {"Message", object_schema({{"prompt", kString}, {"route", kString},
                                 {"mode", json::object{{"type", "string"},
                                                       {"description", "a mode for this turn only"}}}},
                                {"prompt"})},
      {"Mode", object_schema({{"mode", kString}}, {"mode"})},
      {"Steer", object_schema({{"message", kString}}, {"message"})},
      {"Fork", object_schema({{"at", json::object{{"type", "integer"}, {"minimum", 0}}}})},
      {"Cancel", object_schema({{"level", json::object{{"enum", {"graceful", "immediate"}}}}})},
      {"Decision",
       object_schema({{"decision", json::object{{"enum", {"allow_once", "allow_always", "deny"}}}},
                      {"reason", kString}},
                     {"decision"})},
      {"ChatCompletionRequest", object_schema({{"model", kString},
                                               {"messages", json::object{{"type", "array"}}},
                                               {"stream", json::object{{"type", "boolean"}}}},
                                              {"model", "messages"})},
      {"Event", object_schema({{"event", kString},
                               {"data", json::object{}},
                               {"session_id", kString},
                               {"ts", kString}})},
  };
}

json::object paths() {
  const json::object sse = reply(
      "text/event-stream: one `event: NAME` + `data: {event,data,session_id,ts}` per kernel "
      "event (as `amplifier run --format jsonl`), `approval:request` events with an "
      "approval_id, and last `turn:result` {response,status,error}",
      "text/event-stream", ref("Event"));
  const json::object any_json = reply("JSON", "application/json", object_schema({}));
  json::object list = operation("List sessions, a page at a time ({sessions, next})", any_json);
  list["parameters"] = json::array{
      json::object{{"name", "limit"},
                   {"in", "query"},
                   {"description", "sessions per page, 1 to 1000 (default 100)"},
                   {"schema", json::object{{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}}},
      json::object{{"name", "after"},
                   {"in", "query"},
                   {"description", "the `next` of the previous page"},
                   {"schema", json::object{{"type", "string"}}}}};
  json::object sessions{
      {"get", std::move(list)},
      {"post", operation("Create and initialise a session", any_json, ref("CreateSession"))}};
  json::object session{{"parameters", path_params({"id"})},
                       {"get", operation("A session's metadata and messages", any_json)},
                       {"delete", operation("Cancel its turn, end and delete it", any_json)}};
  const json::object page = reply(
      "The web chat page (no token needed: it holds no data and asks for the token when "
      "the API wants one)",
      "text/html", {{"type", "string"}});
  const json::object asset = reply(
      "A file of the page (script, style, icon), with its ETag; 304 when If-None-Match "
      "names it",
      "application/octet-stream", {{"type", "string"}});
  return json::object{
      {"/", json::object{{"get", public_operation("The web chat page", page)}}},
      {"/assets/{name}", json::object{{"parameters", path_params({"name"})},
                                      {"get", public_operation("A file of the web page", asset)}}},
      {"/healthz", json::object{{"get", public_operation("Liveness", any_json)}}},
      {"/metrics",
       json::object{{"get", operation("Prometheus metrics",
                                      reply("text", "text/plain", {{"type", "string"}}))}}},
      {"/v1/openapi.json", json::object{{"get", operation("This document", any_json)}}},
      {"/v1/sessions", std::move(sessions)},
      {"/v1/sessions/{id}", std::move(session)},
      {"/v1/sessions/{id}/messages",
       json::object{{"parameters", path_params({"id"})},
                    {"post", operation("Run a turn, streaming its events", sse, ref("Message"))}}},
      {"/v1/sessions/{id}/cancel",
       json::object{{"parameters", path_params({"id"})},
                    {"post", operation("Cancel the running turn (on whichever server runs it: "
                                                "then 202 with forwarded: true)",
                                                any_json, ref("Cancel"))}}},
      {"/v1/sessions/{id}/mode",
       json::object{{"parameters", path_params({"id"})},
                    {"post", operation("Set the session's mode from its next step on (off: none)",
                                       any_json, ref("Mode"))}}},
      {"/v1/sessions/{id}/steer",
       json::object{{"parameters", path_params({"id"})},
                    {"post", operation("A message for the running turn, read at its next step "
                                       "(409 when no turn runs; passed on to the server running "
                                       "it: then forwarded: true)",
                                       any_json, ref("Steer"))}}},
      {"/v1/sessions/{id}/fork",
       json::object{{"parameters", path_params({"id"})},
                    {"post", operation("A new session holding this one's conversation through "
                                       "turn `at` (default: all), on the same plan and mode; 201 "
                                       "{id, forked_from, turn, messages}",
                                       any_json, ref("Fork"))}}},
      {"/v1/sessions/{id}/approvals/{approval_id}",
       json::object{{"parameters", path_params({"id", "approval_id"})},
                    {"post", operation("Answer an approval request (passed on to the server "
                                                "running the turn: then 202, forwarded: true)",
                                                any_json, ref("Decision"))}}},
      {"/v1/chat/completions",
       json::object{{"post", operation("OpenAI-compatible chat completion (stream or not)",
                                       any_json, ref("ChatCompletionRequest"))}}},
  };
}

}  // namespace

const std::string &openapi_document() {
  static const std::string document = json::serialize(json::object{
      {"openapi", "3.1.0"},
      {"info", json::object{{"title", "amplifier serve"}, {"version", "1"}}},
      {"components", json::object{{"schemas", schemas()},
                                  {"securitySchemes",
                                   json::object{{"bearer", json::object{{"type", "http"},
                                                                        {"scheme", "bearer"}}}}}}},
      {"security", json::array{json::object{{"bearer", json::array{}}}, json::object{}}},
      {"paths", paths()},
  });
  return document;
}

}  // namespace amplifier::host::serve
