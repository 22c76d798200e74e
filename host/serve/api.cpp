#include "api.hpp"

#include "plan_loading.hpp"
#include "history_turns.hpp"
#include "event_output.hpp"
#include "web_assets.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/cost/ledger.hpp"
#include "amplifier/session_store.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace amplifier::host::serve {
namespace json = boost::json;
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> segments;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) segments.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return segments;
}

bool matches(const std::vector<std::string> &pattern, const std::vector<std::string> &segments,
             std::vector<std::string> &params) {
  if (pattern.size() != segments.size()) return false;
  params.clear();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i].starts_with('{'))
      params.push_back(segments[i]);
    else if (pattern[i] != segments[i])
      return false;
  }
  return true;
}

ApiResponse text_response(std::string content_type, std::string body) {
  ApiResponse response;
  response.content_type = std::move(content_type);
  response.body = std::move(body);
  return response;
}

json::object turn_result_json(const TurnResult &result) {
  json::object out{
      {"response", result.response}, {"status", result.status}, {"error", result.error}};
  // Steered messages the turn ended before reading: the client's to send again.
  if (!result.steering_not_delivered.empty()) {
    json::array left;
    for (const auto &message : result.steering_not_delivered) left.emplace_back(message);
    out["steering_not_delivered"] = std::move(left);
  }
  return out;
}

// An event of the server's own in the shape of the kernel's: {"event","data","session_id","ts"}.
std::string own_event_frame(std::string_view name, json::object data, const std::string &id) {
  json::object event{
      {"event", name}, {"data", std::move(data)}, {"session_id", id}, {"ts", iso_timestamp_now()}};
  return sse_frame(name, json::serialize(event));
}

constexpr std::string_view kDecisions[] = {"allow_once", "allow_always", "deny"};

}  // namespace

Api::Api(SessionFactory &factory, SessionRegistry &sessions, Metrics &metrics, ApiLimits limits)
    : factory_(factory), sessions_(sessions), metrics_(metrics), limits_(limits) {
  add_public("GET", "/healthz", [](auto &, auto &) {
    return json_response(200, json::object{{"status", "ok"}});
  });
  add_public("GET", "/",
             [](auto &r, auto &) { return web_asset_response("index.html", r.if_none_match); });
  add_public("GET", "/assets/{name}",
             [](auto &r, auto &p) { return web_asset_response(p[0], r.if_none_match); });
  add("GET", "/metrics", [this](auto &, auto &) {
    return text_response("text/plain; version=0.0.4",
                         metrics_.prometheus(sessions_.all().size(), sessions_.running()));
  });
  add("GET", "/v1/openapi.json",
      [](auto &, auto &) { return text_response("application/json", openapi_document()); });
  add("POST", "/v1/sessions", [this](auto &r, auto &) { return create_session(r); });
  add("GET", "/v1/sessions", [this](auto &r, auto &) { return list_sessions(r); });
  add("GET", "/v1/sessions/{id}", [this](auto &, auto &p) { return show_session(p[0]); });
  add("DELETE", "/v1/sessions/{id}", [this](auto &, auto &p) { return delete_session(p[0]); });
  add("POST", "/v1/sessions/{id}/messages",
      [this](auto &r, auto &p) { return post_message(r, p[0]); });
  add("POST", "/v1/sessions/{id}/cancel", [this](auto &r, auto &p) { return cancel(r, p[0]); });
  add("POST", "/v1/sessions/{id}/mode", [this](auto &r, auto &p) { return set_mode(r, p[0]); });
  add("POST", "/v1/sessions/{id}/steer", [this](auto &r, auto &p) { return steer(r, p[0]); });
  add("POST", "/v1/sessions/{id}/fork",
      [this](auto &r, auto &p) { return fork_session(r, p[0]); });
  add("POST", "/v1/sessions/{id}/approvals/{approval_id}",
      [this](auto &r, auto &p) { return answer_approval(r, p); });
  add("POST", "/v1/chat/completions", [this](auto &r, auto &) { return chat_completions(r); });
}

void Api::add(std::string method, std::string_view path, Handler handler) {
  routes_.push_back(Route{std::move(method), split_path(path), std::move(handler), false});
}

void Api::add_public(std::string method, std::string_view path, Handler handler) {
  routes_.push_back(Route{std::move(method), split_path(path), std::move(handler), true});
}

bool Api::is_public(std::string_view method, std::string_view path) const {
  const auto segments = split_path(path);
  Params params;
  for (const auto &route : routes_)
    if (route.method == method && matches(route.pattern, segments, params)) return route.is_public;
  return false;
}

std::vector<std::string> Api::routes() const {
  std::vector<std::string> out;
  for (const auto &route : routes_) {
    std::string path;
    for (const auto &segment : route.pattern) path += "/" + segment;
    out.push_back(route.method + " " + (path.empty() ? "/" : path));
  }
  return out;
}

std::shared_ptr<void> Api::track_request() {
  ++in_flight_;
  return std::shared_ptr<void>(nullptr, [this](void *) { --in_flight_; });
}

std::shared_ptr<void> Api::track_work() {
  ++working_;
  return std::shared_ptr<void>(nullptr, [this](void *) { --working_; });
}

void Api::stop_accepting() {
  std::lock_guard lock(adopt_mutex_);
  draining_ = true;
}

ApiResponse Api::handle(const ApiRequest &request) {
  try {
    return dispatch(request);
  } catch (const ApiError &e) {
    return error_response(e.status(), e.type(), e.what());
  } catch (const std::exception &e) {
    metrics_.error("server");
    return error_response(500, "server_error", e.what());
  }
}

ApiResponse Api::dispatch(const ApiRequest &request) {
  const auto segments = split_path(request.path);
  Params params;
  std::vector<std::string> allowed;
  for (const auto &route : routes_) {
    if (!matches(route.pattern, segments, params)) continue;
    if (route.method == request.method) return route.handler(request, params);
    allowed.push_back(route.method);
  }
  if (allowed.empty())
    return error_response(404, "not_found", fmt::format("no route {}", request.path));
  auto response = error_response(405, "method_not_allowed",
                                 fmt::format("{} does not take {} (it takes {})", request.path,
                                             request.method, fmt::join(allowed, ", ")));
  response.allow = std::move(allowed);
  return response;
}

std::shared_ptr<ServedSession> Api::session_or_404(const std::string &id) const {
  auto session = sessions_.find(id);
  if (!session) throw ApiError(404, "session_not_found", fmt::format("no session '{}'", id));
  return session;
}

std::shared_ptr<ServedSession> Api::session_or_reopen(const std::string &id) {
  if (auto held = sessions_.find(id)) return held;
  // One this server is unloading is reopened once its context has let the session go.
  sessions_.wait_closed(id, std::chrono::seconds(20));
  std::lock_guard lock(reopen_mutex_);
  if (auto held = sessions_.find(id)) return held;
  check_accepting();
  auto reopened = factory_.reopen(id);
  if (!reopened) throw ApiError(404, "session_not_found", fmt::format("no session '{}'", id));
  metrics_.session_reopened();
  adopt(reopened, /*created=*/false);
  return reopened;
}

void Api::check_accepting() const {
  if (draining_) throw ApiError(503, "shutting_down", "the server is shutting down");
}

// A drain ends every session it finds in the registry. A request that checked before the
// drain began may still be creating or reopening one (a reopen waits up to the store's handoff
// for another server's lease): registered after the drain looked, it would be held until the
// process exits, its lease left to lapse while the server a load balancer retries on waits for
// it. So registering and the drain's start exclude each other (adopt_mutex_): a session
// registered before is the drain's to end; one that arrives after is never registered (no
// other request can find it) and is let go here: a reopened one goes back to the store, a
// created one (its client never heard of it) is deleted, and the client gets 503, which a
// load balancer retries elsewhere.
void Api::adopt(const std::shared_ptr<ServedSession> &session, bool created) {
  {
    std::lock_guard lock(adopt_mutex_);
    if (!draining_) {
      sessions_.add(session);
      return;
    }
  }
  const std::string id = session->id();
  const bool stored = session->reopenable();
  end_session(session, /*remove_work_dir=*/created);
  if (created && stored) try {
      delete_stored_session(id, /*held=*/true);
    } catch (const ApiError &) {
      // Kept in the store: an unused session, listed, which its owner may delete.
    }
  check_accepting();
}

ApiResponse Api::create_session(const ApiRequest &request) {
  check_accepting();
  json::object body = parse_body(request);
  json::value metadata = json::object{};
  if (const json::value *given = body.if_contains("metadata")) metadata = *given;
  if (const std::size_t size = json::serialize(metadata).size(); size > limits_.max_metadata_bytes)
    throw ApiError(413, "metadata_too_large",
                   fmt::format("'metadata' is {} bytes as JSON; this server keeps at most {} "
                               "(--max-metadata-bytes)",
                               size, limits_.max_metadata_bytes));
  if (sessions_.all().size() >= limits_.max_sessions)
    throw ApiError(429, "too_many_sessions",
                   fmt::format("this server holds {} sessions, its limit (--max-sessions): "
                               "delete some first",
                               limits_.max_sessions));
  const json::value *plan = body.if_contains("plan");
  // What another server can open the session on: the default plan (""), a named one; a
  // client's own plan (an object) exists only here.
  std::optional<std::string> plan_name;
  if (!plan || plan->is_null())
    plan_name = "";
  else if (plan->is_string())
    plan_name = std::string(plan->as_string());
  // A mode only narrows what the session's tools may do: any client may choose one.
  const std::string mode = string_member(body, "mode", false);
  auto session = factory_.create(factory_.plan_for(plan), std::move(metadata), plan_name,
                                 mode == kNoMode ? std::string() : mode);
  adopt(session, /*created=*/true);
  return json_response(201, json::object{{"id", session->id()}});
}

// GET /v1/sessions?limit=N&after=ID: a page of at most `limit` (default 100, at most 1000)
// sessions after the one named `after`; `next` names the last of the page while more follow.
ApiResponse Api::list_sessions(const ApiRequest &request) {
  constexpr std::size_t kDefaultPage = 100, kLargestPage = 1000;
  std::size_t limit = kDefaultPage;
  if (const auto given = query_parameter(request.query, "limit")) {
    std::size_t parsed = 0;
    const auto [end, ec] = std::from_chars(given->data(), given->data() + given->size(), parsed);
    if (ec != std::errc() || end != given->data() + given->size() || parsed == 0 ||
        parsed > kLargestPage)
      throw ApiError(400, "invalid_request",
                     fmt::format("'limit' must be a whole number from 1 to {}", kLargestPage));
    limit = parsed;
  }
  json::array all = all_sessions();
  std::size_t start = 0;
  if (const auto after = query_parameter(request.query, "after")) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const json::value &entry) {
      return entry.at("id").as_string() == *after;
    });
    if (it == all.end())
      throw ApiError(400, "invalid_request",
                     fmt::format("'after' names no listed session ('{}')", after->substr(0, 64)));
    start = static_cast<std::size_t>(it - all.begin()) + 1;
  }
  json::array page;
  for (std::size_t i = start; i < all.size() && page.size() < limit; ++i)
    page.push_back(std::move(all[i]));
  json::value next = nullptr;
  if (start + page.size() < all.size()) next = page.back().at("id");
  return json_response(200, json::object{{"sessions", std::move(page)}, {"next", std::move(next)}});
}

// Every session this server holds (oldest first), then the shared store's others.
json::array Api::all_sessions() const {
  json::array list;
  std::set<std::string> held;
  for (const auto &s : sessions_.all()) {
    held.insert(s->id());
    list.push_back(json::object{{"id", s->id()},
                                {"loaded", true},
                                {"metadata", s->metadata()},
                                {"created", s->created()},
                                {"running", s->running_for_clients()}});
  }
  append_stored_sessions(list, held);
  return list;
}

// With a shared store, the newest sessions it keeps that this server does not hold (another
// server's, or ones unloaded here), as the store summarises them.
void Api::append_stored_sessions(json::array &list, const std::set<std::string> &held) const {
  const ContextSessionStore *store = factory_.store();
  if (!store) return;
  json::array stored;
  try {
    stored = store->list(kStoredSessionsListed);
  } catch (const SessionQueryError &e) {
    throw store_failure(e.what(), e.status);
  }
  for (auto &row : stored) {
    json::object *summary = row.if_object();
    const json::value *id = summary ? summary->if_contains("id") : nullptr;
    if (!id || !id->is_string() || held.count(std::string(id->get_string()))) continue;
    json::object entry{{"id", *id}, {"loaded", false}, {"running", false}};
    entry["stored"] = std::move(*summary);
    list.push_back(std::move(entry));
  }
}

// The session's cost and tokens as its last answer records them (libs/cores/cost): the same
// figures whichever server shows it, loaded or stored.
static json::object ledger_json(const json::value &messages, const std::string &id) {
  return cost::to_json(messages.is_array() ? cost::ledger_of_transcript(messages.get_array(), id)
                                           : cost::Ledger{id, {}, {}});
}

// A session the store keeps but no server holds (an idle one was unloaded, or another server
// ran it): shown as the store has it, without opening it.
ApiResponse Api::show_stored_session(const std::string &id) {
  const ContextSessionStore *store = factory_.store();
  std::optional<json::object> stored;
  try {
    if (store && session_store::is_valid_session_id(id)) stored = store->read(id);
  } catch (const SessionQueryError &e) {
    throw store_failure(e.what(), e.status);
  }
  if (!stored) throw ApiError(404, "session_not_found", fmt::format("no session '{}'", id));
  json::value &messages = (*stored)["messages"];
  json::object ledger = ledger_json(messages, id);
  return json_response(200, json::object{{"id", id},
                                         {"loaded", false},
                                         {"stored", std::move((*stored)["metadata"])},
                                         {"running", false},
                                         {"ledger", std::move(ledger)},
                                         {"messages", std::move(messages)}});
}

ApiResponse Api::show_session(const std::string &id) {
  auto s = sessions_.find(id);
  if (!s) {
    // One this server is giving back is shown once it is back: "loaded": false then means its
    // lease is released and the stored messages are the last ones (the CI run at ce08566 saw
    // a lease still held after "loaded" had turned false).
    sessions_.wait_closed(id, std::chrono::seconds(20));
    return show_stored_session(id);
  }
  json::value messages = json::parse(s->session().coordinator().context_messages());
  json::object ledger = ledger_json(messages, s->id());
  const auto mode = s->session_mode();
  return json_response(200, json::object{{"id", s->id()},
                                         {"loaded", true},
                                         {"metadata", s->metadata()},
                                         {"created", s->created()},
                                         {"running", s->running_for_clients()},
                                         {"mode", mode ? json::value(mode->name) : json::value()},
                                         {"ledger", std::move(ledger)},
                                         {"messages", std::move(messages)}});
}

ApiResponse Api::delete_session(const std::string &id) {
  sessions_.wait_closed(id, std::chrono::seconds(20));
  auto s = sessions_.remove(id);
  if (!s && factory_.store() && session_store::is_valid_session_id(id)) {
    // Another server may hold it: taking it over first (its holder lets go of an idle
    // session) means the delete never races a writer; a running turn there answers 409.
    try {
      session_or_reopen(id);
      s = sessions_.remove(id);
    } catch (const ApiError &e) {
      if (e.status() != 404) throw;
    }
  }
  const bool was_running = s && s->running();
  if (s && !s->reopenable()) {
    retire(std::move(s), /*remove_work_dir=*/true);
  } else {
    // In a shared store the session goes too, once its context here has let go of it.
    const bool held = s != nullptr;
    if (held) end_session(std::move(s), /*remove_work_dir=*/true);
    delete_stored_session(id, held);
  }
  return json_response(
      200, json::object{{"id", id}, {"deleted", true}, {"cancelled_turn", was_running}});
}

// `held`: the session was open here, so it exists even when it has stored nothing yet.
void Api::delete_stored_session(const std::string &id, bool held) {
  const ContextSessionStore *store = factory_.store();
  if (!store || !session_store::is_valid_session_id(id))
    throw ApiError(404, "session_not_found", fmt::format("no session '{}'", id));
  try {
    store->query(json::object{{"op", "delete"}, {"session_id", id}});
  } catch (const SessionQueryError &e) {
    if (e.status == AMP_NOT_FOUND && held) return;
    if (e.status == AMP_NOT_FOUND)
      throw ApiError(404, "session_not_found", fmt::format("no session '{}'", id));
    throw store_failure(e.what(), e.status);
  }
}

ApiResponse Api::post_message(const ApiRequest &request, const std::string &id) {
  auto s = session_or_reopen(id);
  const json::object body = parse_body(request);
  const std::string prompt = string_member(body, "prompt", true);
  if (prompt.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ApiError(400, "invalid_request", "'prompt' is empty");
  // A role of the plan's routing for this turn only; one the plan lacks ends the turn with
  // an error naming the roles it has. Trust: a client picks among the operator's routes.
  json::object turn_options;
  if (const std::string route = string_member(body, "route", false); !route.empty())
    turn_options["route"] = route;
  // A mode for this turn only ("off": none); the session's own holds again after it.
  std::optional<std::shared_ptr<const SessionMode>> turn_mode;
  if (const std::string mode = string_member(body, "mode", false); !mode.empty()) turn_mode = mode_of(*s, mode);
  check_accepting();
  auto stream = std::make_shared<EventStream>();
  auto listener = [stream](HookEvent &event) {
    if (stream->abandoned()) return;  // the client went away: the turn goes on unwatched
    stream->push(sse_frame_with(event.name(),
                                [&event](std::string &frame) { append_event_json(frame, event); }));
  };
  auto on_approval = [stream, id](const json::object &announcement) {
    stream->push(own_event_frame("approval:request", announcement, id));
  };
  auto done = [this, stream, id](TurnResult result) {
    metrics_.turn_finished(result.status);
    if (result.status == "error") metrics_.error("turn");
    stream->push(own_event_frame("turn:result", turn_result_json(result), id));
    stream->finish();
  };
  // A session the unloader took meanwhile is reopened once it is let go.
  if (!s->start_turn(prompt, listener, on_approval, done, turn_options, turn_mode) &&
      (!s->closing() ||
       !session_or_reopen(id)->start_turn(prompt, listener, on_approval, done, turn_options, turn_mode)))
    throw ApiError(409, "turn_running", fmt::format("session '{}' is already running a turn", id));
  ApiResponse response;
  response.content_type = "text/event-stream";
  response.stream = std::move(stream);
  return response;
}

// Passes `signal` to the server holding session `id` through the shared store: true when one
// holds it. 404 when there is no store or no such session.
bool Api::forward_signal(const std::string &id, json::object signal) {
  const ContextSessionStore *store = factory_.store();
  if (!store || !session_store::is_valid_session_id(id))
    throw ApiError(404, "session_not_found", fmt::format("no session '{}'", id));
  try {
    json::object answer =
        store->query(json::object{{"op", "signal"}, {"session_id", id}, {"signal", signal}})
            .as_object();
    const json::value *held = answer.if_contains("held");
    return held && held->is_bool() && held->as_bool();
  } catch (const SessionQueryError &e) {
    // A store of one host's own (context-persistent) has no other server to reach.
    if (e.status == AMP_NOT_FOUND || e.status == AMP_UNSUPPORTED)
      throw ApiError(404, "session_not_found", fmt::format("no session '{}' here", id));
    throw store_failure(e.what(), e.status);
  }
}

void Api::apply_signal(const std::string &id, const json::object &signal) {
  auto s = sessions_.find(id);
  const json::value *type = signal.if_contains("type");
  if (!s || !type || !type->is_string()) return;
  if (type->as_string() == "cancel") {
    const json::value *level = signal.if_contains("level");
    const bool immediate = level && level->is_string() && level->as_string() == "immediate";
    if (s->running())
      s->session().cancel(immediate ? CancelLevel::Immediate : CancelLevel::Graceful);
  } else if (type->as_string() == "steer") {
    const json::value *message = signal.if_contains("message");
    try {
      if (message && message->is_string()) s->session().steer(std::string(message->as_string()));
    } catch (const std::invalid_argument &) {
      // Refused where it was posted already; nothing else to say.
    }
  } else if (type->as_string() == "approval") {
    const json::value *approval = signal.if_contains("approval_id");
    const json::value *decision = signal.if_contains("decision");
    if (approval && approval->is_string() && decision && decision->is_object())
      s->answer(std::string(approval->as_string()), decision->as_object());
  }
}

std::shared_ptr<const SessionMode> Api::mode_of(const ServedSession &session, const std::string &name) {
  try {
    return session.mode_named(name);
  } catch (const ModeError &e) {
    throw ApiError(400, "invalid_request", e.what());
  }
}

// POST /v1/sessions/{id}/steer {"message"}: a message for the running turn, read at its next
// step (see Session::steer). Trust: the same client may post a message anyway; this only
// changes when the model reads it.
ApiResponse Api::steer(const ApiRequest &request, const std::string &id) {
  const std::string message = string_member(parse_body(request), "message", true);
  if (message.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ApiError(400, "invalid_request", "'message' is empty");
  if (message.size() > Session::kMaxSteeringBytes)
    throw ApiError(400, "invalid_request",
                   fmt::format("'message' has {} bytes; a steering message has at most {}",
                               message.size(), Session::kMaxSteeringBytes));
  auto s = sessions_.find(id);
  if (!s) {
    // Held by another server: the store passes it on to the holder.
    const bool held = forward_signal(id, json::object{{"type", "steer"}, {"message", message}});
    return json_response(202, json::object{{"id", id}, {"queued", held}, {"forwarded", true}});
  }
  bool queued = false;
  try {
    queued = s->session().steer(message);
  } catch (const std::invalid_argument &e) {
    throw ApiError(400, "invalid_request", e.what());
  }
  if (!queued)
    throw ApiError(409, "no_turn_running",
                   fmt::format("session '{}' is not running a turn: post the message to "
                               "/v1/sessions/{}/messages instead", id, id));
  return json_response(202, json::object{{"id", id}, {"queued", true}});
}

// POST /v1/sessions/{id}/fork {"at"?: TURN}: a new session on the same plan, metadata and mode,
// holding the conversation through turn TURN (all of it without "at"; turns numbered from 1 as
// the user messages come, 0 keeps none). 201 {id, forked_from, turn, messages}; 409 while a
// turn runs (its last turn is not whole yet). The fork announces session:fork {parent, turn}.
ApiResponse Api::fork_session(const ApiRequest &request, const std::string &id) {
  check_accepting();
  const json::object body = parse_body(request);
  auto source = session_or_reopen(id);
  // As clients see it: a turn whose result was handed out has stored its last message.
  if (source->running_for_clients())
    throw ApiError(409, "session_running",
                   fmt::format("session '{}' is running a turn: fork it once the turn ends", id));
  if (sessions_.all().size() >= limits_.max_sessions)
    throw ApiError(429, "too_many_sessions",
                   fmt::format("this server holds {} sessions, its limit (--max-sessions): "
                               "delete some first",
                               limits_.max_sessions));
  json::value parsed = json::parse(source->session().coordinator().context_messages());
  const json::array messages = parsed.is_array() ? std::move(parsed.as_array()) : json::array{};
  const std::vector<TurnSpan> turn_spans = turns_of(messages);
  const auto turns = static_cast<std::int64_t>(turn_spans.size());
  std::int64_t at = turns;
  if (const json::value *given = body.if_contains("at"); given && !given->is_null()) {
    if (!given->is_int64() || given->as_int64() < 0 || given->as_int64() > turns)
      throw ApiError(400, "invalid_request",
                     fmt::format("'at' must be a whole number from 0 to {} (the session's turns)",
                                 turns));
    at = given->as_int64();
  }
  const std::size_t keep = messages_through_turn(turn_spans, messages.size(), at);
  // The plan another server can open it on, as the original records it (none: a plan that
  // exists only here).
  std::optional<std::string> plan_name;
  if (const json::value *serve = source->session().options().labels.if_contains("serve");
      source->reopenable() && serve && serve->is_object())
    if (const json::value *plan = serve->as_object().if_contains("plan"); plan && plan->is_string())
      plan_name = std::string(plan->as_string());
  const auto mode = source->session_mode();
  auto fork = factory_.create(source->session().plan(), source->metadata(), plan_name,
                              mode ? mode->name : std::string(), SessionFactory::Fork{id, at});
  if (keep > 0) {
    json::array kept(messages.begin(), messages.begin() + static_cast<std::ptrdiff_t>(keep));
    try {
      fork->session().coordinator().set_context_messages(json::serialize(kept));
    } catch (const std::exception &e) {
      end_session(std::move(fork), /*remove_work_dir=*/true);
      throw ApiError(500, "fork_failed", fmt::format("the fork's context refused the history: {}", e.what()));
    }
  }
  adopt(fork, /*created=*/true);
  return json_response(201, json::object{{"id", fork->id()},
                                         {"forked_from", id},
                                         {"turn", at},
                                         {"messages", keep}});
}

// POST /v1/sessions/{id}/mode {"mode": NAME | "off"}: the session's mode from its next step on.
ApiResponse Api::set_mode(const ApiRequest &request, const std::string &id) {
  auto s = session_or_reopen(id);
  const std::string name = string_member(parse_body(request), "mode", true);
  s->set_session_mode(mode_of(*s, name));
  const auto mode = s->session_mode();
  return json_response(200, json::object{{"id", id}, {"mode", mode ? json::value(mode->name) : json::value()}});
}

ApiResponse Api::cancel(const ApiRequest &request, const std::string &id) {
  std::string level = string_member(parse_body(request), "level", false);
  if (level.empty()) level = "graceful";
  if (level != "graceful" && level != "immediate")
    throw ApiError(400, "invalid_request", "'level' must be graceful or immediate");
  auto s = sessions_.find(id);
  if (!s) {
    // Held by another server (or by none): the store passes the cancel on to its holder.
    const bool held = forward_signal(id, json::object{{"type", "cancel"}, {"level", level}});
    return json_response(202, json::object{{"id", id}, {"level", level}, {"running", held},
                                           {"forwarded", true}});
  }
  const bool running = s->running();
  if (running)
    s->session().cancel(level == "graceful" ? CancelLevel::Graceful : CancelLevel::Immediate);
  return json_response(202, json::object{{"id", id}, {"level", level}, {"running", running}});
}

ApiResponse Api::answer_approval(const ApiRequest &request, const Params &params) {
  json::object body = parse_body(request);
  const std::string choice = string_member(body, "decision", true);
  if (std::find(std::begin(kDecisions), std::end(kDecisions), choice) == std::end(kDecisions))
    throw ApiError(400, "invalid_request", "'decision' must be allow_once, allow_always or deny");
  std::string reason = string_member(body, "reason", false);
  if (reason.empty()) reason = "answered over HTTP";
  json::object decision{{"decision", choice}, {"reason", reason}, {"source", "user"}};
  auto s = sessions_.find(params[0]);
  if (!s) {
    // The turn asking runs on another server: the answer goes there through the store.
    if (!forward_signal(params[0], json::object{{"type", "approval"},
                                                {"approval_id", params[1]},
                                                {"decision", decision}}))
      throw ApiError(404, "approval_not_found",
                     fmt::format("no server holds session '{}' to answer approval '{}'",
                                 params[0], params[1]));
    return json_response(202, json::object{{"approval_id", params[1]},
                                           {"decision", choice},
                                           {"forwarded", true}});
  }
  if (!s->answer(params[1], std::move(decision)))
    throw ApiError(
        404, "approval_not_found",
        fmt::format("no approval '{}' is waiting in session '{}'", params[1], params[0]));
  return json_response(200, json::object{{"approval_id", params[1]}, {"decision", choice}});
}

}  // namespace amplifier::host::serve
