// amplifier serve, the real process on port 0, driven over HTTP.
#include "process.hpp"
#include "serve_harness.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <future>
#include <regex>
#include <set>
#include <sys/stat.h>
#include <thread>

using namespace amp_serve_test;
namespace json = boost::json;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

json::object body_json(const Reply &reply) { return json::parse(reply.body).as_object(); }

// A mock whose answer streams slowly (about 2 s) so a test can act in the middle of a turn.
const char *kSlowPlan = R"(session: {orchestrator: loop-streaming, context: context-simple}
providers:
  - module: provider-mock
    config:
      chunk_size: 2
      delay_ms: 40
      responses:
        - text: "a slow answer that keeps streaming for a while: END-OF-ANSWER"
)";

// The mock asks for list_directory; hooks-approval asks the user (over HTTP) first.
const char *kApprovalPlan = R"(session: {orchestrator: loop-streaming, context: context-simple}
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls: [{id: call_1, name: list_directory, input: {path: "."}}]
        - text: "listed"
tools: [{module: tool-filesystem}]
hooks:
  - {module: hooks-approval, config: {rules: [{tool: list_directory, action: ask}]}}
)";

std::string create_session(unsigned short port, const std::string &body = "{}") {
  Reply r = request(port, "POST", "/v1/sessions", body);
  INFO(r.body);
  REQUIRE(r.status == 201);
  return std::string(body_json(r).at("id").as_string());
}

std::string messages_path(const std::string &id) { return "/v1/sessions/" + id + "/messages"; }

// The bearer token a server on a non-loopback bind made in the scratch HOME.
std::string token_of(const Scratch &s) {
  std::string token = read_text(s.dir / "home/config/amplifier/serve-token");
  token.erase(token.find_last_not_of("\n") + 1);
  return token;
}

// `amplifier serve --routes`: the router's own list, "METHOD /path".
std::set<std::string> served_routes() {
  auto result = amp_test::run_process({AMP_BINARY_DIR "/host/amplifier", "serve", "--routes"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::set<std::string> routes;
  for (const auto &line : amp_test::lines_of(result.out))
    if (!line.empty()) routes.insert(line);
  return routes;
}

// The operations of an OpenAPI document, "METHOD /path" as served_routes() has them.
std::set<std::string> documented_routes(const json::object &doc) {
  std::set<std::string> routes;
  for (const auto &[path, item] : doc.at("paths").as_object())
    for (const auto &[key, operation] : item.as_object()) {
      if (key == "parameters") continue;
      std::string method(key);
      std::transform(method.begin(), method.end(), method.begin(), ::toupper);
      routes.insert(method + " " + std::string(path));
    }
  return routes;
}

std::string missing_from(const std::set<std::string> &all, const std::set<std::string> &some) {
  std::string missing;
  for (const auto &route : all)
    if (!some.contains(route)) missing += route + "; ";
  return missing;
}

// A turn of a new session on a slow plan, read up to its first answer text.
struct TurnInFlight {
  std::string id;
  StreamingRequest turn;
  explicit TurnInFlight(unsigned short port)
      : id(create_session(port)), turn(port, "POST", messages_path(id), R"({"prompt":"go"})") {
    REQUIRE(turn.read_until("content_block:delta"));
  }
};

}  // namespace

TEST_CASE("a session is created, streams a turn's events in order and is deleted") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("quick.yaml", kQuickPlan).string()});
  const std::string id = create_session(serve.port(), R"({"metadata":{"user":"ada"}})");

  Reply turn = request(serve.port(), "POST", messages_path(id), R"({"prompt":"hi"})");
  CHECK(turn.status == 200);
  CHECK(turn.headers["content-type"] == "text/event-stream");
  auto names = event_names(turn.body);
  REQUIRE_FALSE(names.empty());
  CHECK(names.front() == "session:start");
  CHECK(names.back() == "turn:result");
  auto position = [&](const std::string &n) {
    return std::find(names.begin(), names.end(), n) - names.begin();
  };
  CHECK(position("prompt:submit") < position("content_block:delta"));
  CHECK(position("content_block:delta") < position("prompt:complete"));
  // The events are the objects of `run --format jsonl`.
  auto delta = json::parse(last_data(turn.body, "content_block:delta")).as_object();
  CHECK(delta.at("session_id").as_string() == id);
  CHECK(delta.contains("ts"));
  auto result = json::parse(last_data(turn.body, "turn:result")).as_object().at("data").as_object();
  CHECK(result.at("status").as_string() == "success");
  CHECK(result.at("response").as_string() == "hello from the mock");

  Reply list = request(serve.port(), "GET", "/v1/sessions");
  auto sessions = body_json(list).at("sessions").as_array();
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0].at("metadata").at("user").as_string() == "ada");
  CHECK(sessions[0].at("running").as_bool() == false);

  Reply shown = request(serve.port(), "GET", "/v1/sessions/" + id);
  CHECK(shown.status == 200);
  CHECK(contains(shown.body, "hello from the mock"));
  CHECK(body_json(shown).at("messages").as_array().size() >= 2);

  CHECK(request(serve.port(), "DELETE", "/v1/sessions/" + id).status == 200);
  CHECK(request(serve.port(), "GET", "/v1/sessions/" + id).status == 404);
}

TEST_CASE("a client that stops reading still gets every event, whole and in order") {
  // 6 MiB of answer in 64 KiB deltas: more than the sockets buffer, so the turn's sends to a
  // client that is not reading run out of room, and what they could not send must wait for the
  // connection, ahead of everything after it.
  std::string answer;
  for (int line = 0; answer.size() < (6u << 20); ++line) answer += fmt::format("line {:07};", line);
  Scratch s;
  const auto plan = s.write(
      "big.yaml", fmt::format(R"(session: {{orchestrator: loop-streaming, context: context-simple}}
providers:
  - module: provider-mock
    config:
      chunk_size: 65536
      responses:
        - text: "{}"
)",
                              answer));
  ServeProcess serve(s, {"--plan", plan.string()});
  const std::string id = create_session(serve.port());
  StreamingRequest turn(serve.port(), "POST", messages_path(id), R"({"prompt":"go"})");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the turn runs on meanwhile
  turn.read_to_end();

  Reply reply = parse_reply(turn.raw());  // throws if a chunk's framing was broken
  std::string streamed;
  for (const auto &data : event_data(reply.body, "content_block:delta"))
    streamed += json::parse(data).at("data").at("delta").at("text").as_string();
  CHECK(streamed.size() == answer.size());
  CHECK(streamed == answer);
  auto names = event_names(reply.body);
  REQUIRE_FALSE(names.empty());
  CHECK(names.front() == "session:start");
  CHECK(names.back() == "turn:result");
  CHECK(json::parse(last_data(reply.body, "turn:result")).at("data").at("status") == "success");
}

TEST_CASE("bad requests get JSON errors naming the problem and the server keeps running") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("quick.yaml", kQuickPlan).string(), "--max-body-bytes",
                         "1000", "--plans-dir", s.dir.string()});
  Reply unknown = request(serve.port(), "GET", "/v1/sessions/nope");
  CHECK(unknown.status == 404);
  CHECK(contains(unknown.body, "no session 'nope'"));
  Reply method = request(serve.port(), "PUT", "/v1/sessions");
  CHECK(method.status == 405);
  CHECK(contains(method.headers["allow"], "POST"));
  Reply big = request(serve.port(), "POST", "/v1/sessions", std::string(5000, ' '));
  CHECK(big.status == 413);
  Reply malformed = request(serve.port(), "POST", "/v1/sessions", "{not json");
  CHECK(malformed.status == 400);
  CHECK(contains(malformed.body, "not valid JSON"));
  Reply no_prompt =
      request(serve.port(), "POST", messages_path(create_session(serve.port())), "{}");
  CHECK(no_prompt.status == 400);
  CHECK(contains(no_prompt.body, "'prompt' is required"));
  Reply no_plan = request(serve.port(), "POST", "/v1/sessions", R"({"plan":"missing"})");
  CHECK(no_plan.status == 404);
  const std::string inline_plan =
      R"({"plan":{"session":{"orchestrator":"no-such-loop","context":"context-simple"}}})";
  Reply not_allowed = request(serve.port(), "POST", "/v1/sessions", inline_plan);
  CHECK(not_allowed.status == 403);
  CHECK(contains(not_allowed.body, "inline_plans_disabled"));
  CHECK(request(serve.port(), "POST", "/v1/sessions", R"({"plan":"quick"})").status == 201);
  CHECK(request(serve.port(), "GET", "/healthz").status == 200);
}

TEST_CASE("a second turn while one runs is refused with 409; cancel ends the running one") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("slow.yaml", kSlowPlan).string()});
  TurnInFlight running(serve.port());
  const std::string &id = running.id;
  StreamingRequest &turn = running.turn;

  Reply second = request(serve.port(), "POST", messages_path(id), R"({"prompt":"again"})");
  CHECK(second.status == 409);
  CHECK(contains(second.body, "already running a turn"));
  CHECK(contains(request(serve.port(), "GET", "/v1/sessions").body, R"("running":true)"));

  Reply bad_level =
      request(serve.port(), "POST", "/v1/sessions/" + id + "/cancel", R"({"level":"soon"})");
  CHECK(bad_level.status == 400);
  Reply cancel =
      request(serve.port(), "POST", "/v1/sessions/" + id + "/cancel", R"({"level":"immediate"})");
  CHECK(cancel.status == 202);
  turn.read_to_end();
  auto result =
      json::parse(last_data(turn.raw(), "turn:result")).as_object().at("data").as_object();
  CHECK(result.at("status").as_string() == "cancelled");
  CHECK_FALSE(contains(turn.raw(), "END-OF-ANSWER"));
  // The session is usable again.
  Reply next = request(serve.port(), "POST", messages_path(id), R"({"prompt":"again"})");
  CHECK(contains(next.body, "turn:result"));
}

TEST_CASE("a client may start the next turn as soon as it has read the last one's result") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("quick.yaml", kQuickPlan).string()});
  const std::string id = create_session(serve.port());
  // The next prompt goes out the moment turn:result is read, before the response has ended:
  // the turn may still be letting go of the session then, and must not answer 409.
  for (int turn = 0; turn < 500; ++turn) {
    StreamingRequest running(serve.port(), "POST", messages_path(id), R"({"prompt":"hi"})");
    REQUIRE(running.read_until("event: turn:result"));
    Reply next = request(serve.port(), "POST", messages_path(id), R"({"prompt":"again"})");
    INFO("turn " << turn << ": " << next.body);
    REQUIRE(next.status == 200);
    REQUIRE(contains(next.body, "turn:result"));
  }
}

TEST_CASE("deleting a session cancels its running turn; a client that goes away breaks nothing") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("slow.yaml", kSlowPlan).string()});
  std::string gone;
  {
    TurnInFlight abandoned(serve.port());
    gone = abandoned.id;
  }  // disconnected mid-turn: the turn goes on unwatched
  TurnInFlight running(serve.port());
  const std::string &id = running.id;
  StreamingRequest &turn = running.turn;
  Reply deleted = request(serve.port(), "DELETE", "/v1/sessions/" + id);
  CHECK(deleted.status == 200);
  CHECK(contains(deleted.body, R"("cancelled_turn":true)"));
  turn.read_to_end();
  CHECK(contains(last_data(turn.raw(), "turn:result"), R"("status":"cancelled")"));
  CHECK(request(serve.port(), "GET", "/v1/sessions/" + id).status == 404);
  CHECK(request(serve.port(), "GET", "/v1/sessions/" + gone).status == 200);
}

TEST_CASE("approvals are answered over HTTP") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("approval.yaml", kApprovalPlan).string()});
  const std::string id = create_session(serve.port());
  StreamingRequest turn(serve.port(), "POST", messages_path(id), R"({"prompt":"list"})");
  REQUIRE(turn.read_until("event: approval:request"));
  REQUIRE(turn.read_until("\n\n"));
  const std::string approval = first_approval_id(turn.raw());
  REQUIRE_FALSE(approval.empty());
  CHECK(request(serve.port(), "POST", "/v1/sessions/" + id + "/approvals/unknown",
                R"({"decision":"allow_once"})")
            .status == 404);
  CHECK(request(serve.port(), "POST", "/v1/sessions/" + id + "/approvals/" + approval,
                R"({"decision":"maybe"})")
            .status == 400);
  Reply answer = request(serve.port(), "POST", "/v1/sessions/" + id + "/approvals/" + approval,
                         R"({"decision":"allow_once"})");
  CHECK(answer.status == 200);
  turn.read_to_end();
  auto names = event_names(turn.raw());
  CHECK(std::find(names.begin(), names.end(), "approval:granted") != names.end());
  CHECK(std::find(names.begin(), names.end(), "tool:post") != names.end());
  CHECK(contains(last_data(turn.raw(), "turn:result"), R"("response":"listed")"));
}

TEST_CASE("modes: a session started in plan mode refuses writes; a turn's own mode holds for that turn; POST mode changes it") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("modes.yaml", R"(session: {orchestrator: loop-streaming, context: context-simple}
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls: [{id: call_1, name: write_file, input: {path: a.txt, content: "a"}}]
        - text: "first done"
        - tool_calls: [{id: call_2, name: write_file, input: {path: b.txt, content: "b"}}]
        - text: "second done"
tools: [{module: tool-filesystem}]
)").string()});
  CHECK(request(serve.port(), "POST", "/v1/sessions", R"({"mode":"nosuch"})").status == 400);
  const std::string id = create_session(serve.port(), R"({"mode":"plan"})");
  CHECK(body_json(request(serve.port(), "GET", "/v1/sessions/" + id)).at("mode") == "plan");

  Reply first = request(serve.port(), "POST", messages_path(id), R"({"prompt":"write a"})");
  REQUIRE(first.status == 200);
  CHECK(contains(last_data(first.body, "tool:post"), "Tool 'write_file' is not available in plan mode"));
  // A turn of its own with no mode: the write runs; the session is in plan mode again after.
  Reply second = request(serve.port(), "POST", messages_path(id), R"({"prompt":"write b","mode":"off"})");
  REQUIRE(second.status == 200);
  CHECK(contains(last_data(second.body, "mode:changed"), R"("to":null)"));
  CHECK(contains(last_data(second.body, "tool:post"), "Created b.txt"));
  CHECK(body_json(request(serve.port(), "GET", "/v1/sessions/" + id)).at("mode") == "plan");

  Reply bad = request(serve.port(), "POST", "/v1/sessions/" + id + "/mode", R"({"mode":"nosuch"})");
  CHECK(bad.status == 400);
  CHECK(contains(bad.body, "modes: explore, plan, review"));
  Reply off = request(serve.port(), "POST", "/v1/sessions/" + id + "/mode", R"({"mode":"off"})");
  CHECK(off.status == 200);
  CHECK(body_json(off).at("mode").is_null());
  CHECK(body_json(request(serve.port(), "GET", "/v1/sessions/" + id)).at("mode").is_null());
}

TEST_CASE("steering: a message posted while a turn runs is read at its next step; without a turn it is a 409") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("slow.yaml", kSlowPlan).string()});
  const std::string id = create_session(serve.port());
  const std::string steer_path = "/v1/sessions/" + id + "/steer";
  Reply idle = request(serve.port(), "POST", steer_path, R"({"message":"hello?"})");
  CHECK(idle.status == 409);
  CHECK(contains(idle.body, "no_turn_running"));
  StreamingRequest turn(serve.port(), "POST", messages_path(id), R"({"prompt":"answer slowly"})");
  REQUIRE(turn.read_until("event: content_block:delta"));
  Reply queued = request(serve.port(), "POST", steer_path, R"({"message":"wrap up"})");
  CHECK(queued.status == 202);
  CHECK(request(serve.port(), "POST", steer_path, R"({"message":"  "})").status == 400);
  turn.read_to_end();
  CHECK(contains(last_data(turn.raw(), "steering:delivered"), R"("at":"turn:stop")"));
  CHECK(contains(last_data(turn.raw(), "turn:result"), R"("response":"Mock response to: wrap up")"));
  const json::array messages = body_json(request(serve.port(), "GET", "/v1/sessions/" + id)).at("messages").as_array();
  REQUIRE(messages.size() == 4);
  CHECK(messages[2].at("role") == "user");
  CHECK(messages[2].at("content") == "wrap up");
}

TEST_CASE("fork: a new session holds the conversation through the turn asked for; the original is untouched") {
  Scratch s;
  const fs::path logs = s.dir / "logs";
  ServeProcess serve(s, {"--plan", s.write("fork.yaml", fmt::format(R"(session: {{orchestrator: loop-basic, context: context-simple}}
providers: [{{module: provider-mock}}]
hooks: [{{module: hooks-logging, config: {{session_log_template: '{}/{{session_id}}.jsonl'}}}}]
)", logs.string())).string()});
  const std::string id = create_session(serve.port(), R"({"metadata":{"owner":"ada"}})");
  for (const char *prompt : {"first question", "second question", "third question"})
    REQUIRE(request(serve.port(), "POST", messages_path(id),
                    fmt::format(R"({{"prompt":"{}"}})", prompt)).status == 200);
  const std::string fork_path = "/v1/sessions/" + id + "/fork";

  Reply bad = request(serve.port(), "POST", fork_path, R"({"at":4})");
  CHECK(bad.status == 400);
  CHECK(contains(bad.body, "from 0 to 3"));
  CHECK(request(serve.port(), "POST", fork_path, R"({"at":"two"})").status == 400);
  CHECK(request(serve.port(), "POST", "/v1/sessions/nosuch/fork", "{}").status == 404);

  Reply forked = request(serve.port(), "POST", fork_path, R"({"at":2})");
  INFO(forked.body);
  REQUIRE(forked.status == 201);
  const json::object answer = body_json(forked);
  const std::string fork_id(answer.at("id").as_string());
  CHECK(fork_id != id);
  CHECK(answer.at("turn") == 2);
  CHECK(answer.at("messages") == 4);
  const json::object fork = body_json(request(serve.port(), "GET", "/v1/sessions/" + fork_id));
  const json::array &messages = fork.at("messages").as_array();
  REQUIRE(messages.size() == 4);
  CHECK(messages[2].at("content") == "second question");
  CHECK(fork.at("metadata").at("owner") == "ada");
  // The original keeps all three turns; the fork goes on from its second.
  CHECK(body_json(request(serve.port(), "GET", "/v1/sessions/" + id)).at("messages").as_array().size() == 6);
  Reply next = request(serve.port(), "POST", messages_path(fork_id), R"({"prompt":"another way"})");
  CHECK(contains(last_data(next.body, "turn:result"), "Mock response to: another way"));
  CHECK(body_json(request(serve.port(), "GET", "/v1/sessions/" + fork_id)).at("messages").as_array().size() == 6);
  // Hooks heard where it came from.
  const std::string events = read_text(logs / (fork_id + ".jsonl"));
  INFO(events);
  CHECK(contains(events, "\"session:fork\""));
  CHECK(contains(events, fmt::format(R"("parent":"{}")", id)));
  CHECK(contains(events, R"("turn":2)"));

  // Without "at": the whole conversation.
  Reply whole = request(serve.port(), "POST", fork_path, "");
  REQUIRE(whole.status == 201);
  CHECK(body_json(whole).at("messages") == 6);
}

TEST_CASE("an unanswered approval is denied when its timeout passes") {
  Scratch s;
  std::string plan = kApprovalPlan;
  plan.replace(plan.find("config: {rules"), 14, "config: {timeout_seconds: 1, rules");
  ServeProcess serve(s, {"--plan", s.write("approval.yaml", plan).string()});
  const std::string id = create_session(serve.port());
  Reply turn = request(serve.port(), "POST", messages_path(id), R"({"prompt":"list"})");
  auto names = event_names(turn.body);
  CHECK(std::find(names.begin(), names.end(), "approval:request") != names.end());
  CHECK(std::find(names.begin(), names.end(), "approval:denied") != names.end());
}

TEST_CASE("the web page's files need no token and come with their type, CSP, nosniff and ETag") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("quick.yaml", kQuickPlan).string()}, "0.0.0.0:0");
  const std::string auth = "Authorization: Bearer " + token_of(s);
  CHECK(request(serve.port(), "GET", "/v1/sessions", "", {kNoToken}).status == 401);  // guarded

  Reply page = request(serve.port(), "GET", "/", "", {kNoToken});
  REQUIRE(page.status == 200);
  CHECK(page.headers["content-type"] == "text/html; charset=utf-8");
  const std::string csp = page.headers["content-security-policy"];
  CHECK(contains(csp, "default-src 'none'"));
  CHECK(contains(csp, "script-src 'self'"));
  CHECK(contains(csp, "connect-src 'self'"));
  CHECK(contains(csp, "frame-ancestors 'none'"));
  CHECK(page.headers["x-content-type-options"] == "nosniff");
  CHECK(page.headers["cache-control"] == "no-cache");
  CHECK(page.headers["etag"].starts_with('"'));

  // Every file the page names is there, with its type.
  // (marked, DOMPurify and highlight.js come from Debian's packages, embedded at build time.)
  const std::string js = "text/javascript; charset=utf-8", css = "text/css; charset=utf-8";
  const std::map<std::string, std::string> types = {
      {"app.js", js},           {"marked.min.js", js}, {"purify-shim.js", js},
      {"purify.min.js", js},    {"highlight.min.js", js}, {"style.css", css},
      {"highlight.css", css},   {"icon.svg", "image/svg+xml"}};
  const std::regex reference(R"re((?:src|href)="/assets/([^"]+)")re");
  std::set<std::string> named;
  for (std::sregex_iterator it(page.body.begin(), page.body.end(), reference), end; it != end; ++it)
    named.insert((*it)[1]);
  CHECK(named.size() == types.size());
  for (const auto &name : named) {
    INFO(name);
    Reply asset = request(serve.port(), "GET", "/assets/" + name);
    CHECK(asset.status == 200);
    CHECK(asset.headers["content-type"] == types.at(name));
    CHECK(asset.headers["x-content-type-options"] == "nosniff");
    CHECK_FALSE(asset.body.empty());
  }

  // A cached copy is confirmed with a 304 and no body; another ETag gets the file.
  Reply script = request(serve.port(), "GET", "/assets/app.js");
  const std::string etag = script.headers["etag"];
  Reply cached = request(serve.port(), "GET", "/assets/app.js", "", {"If-None-Match: " + etag});
  CHECK(cached.status == 304);
  CHECK(cached.body.empty());
  CHECK(cached.headers["etag"] == etag);
  CHECK(request(serve.port(), "GET", "/assets/app.js", "", {"If-None-Match: \"x\", W/" + etag})
            .status == 304);
  CHECK(request(serve.port(), "GET", "/assets/app.js", "", {"If-None-Match: \"x\""}).status == 200);

  // HEAD: the GET's headers without the body.
  Reply head = request(serve.port(), "HEAD", "/assets/app.js");
  CHECK(head.status == 200);
  CHECK(head.headers["content-length"] == std::to_string(script.body.size()));
  CHECK(head.body.empty());

  // Anything else is the API's: JSON errors, behind the token.
  Reply missing = request(serve.port(), "GET", "/assets/nope.js");
  CHECK(missing.status == 404);
  CHECK(missing.headers["content-type"] == "application/json");
  CHECK(contains(missing.body, "no page asset 'nope.js'"));
  CHECK(request(serve.port(), "GET", "/index.html", "", {kNoToken}).status == 401);
  Reply unknown = request(serve.port(), "GET", "/index.html", "", {auth});
  CHECK(unknown.status == 404);
  CHECK(contains(unknown.body, "no route /index.html"));
  Reply post = request(serve.port(), "POST", "/", "{}", {auth});
  CHECK(post.status == 405);
  CHECK(post.headers["allow"] == "GET");
}

TEST_CASE("every bind requires the bearer token from the 0600 token file") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("quick.yaml", kQuickPlan).string()}, "0.0.0.0:0");
  const fs::path file = s.dir / "home/config/amplifier/serve-token";
  REQUIRE(fs::exists(file));
  struct stat st {};
  ::stat(file.c_str(), &st);
  CHECK((st.st_mode & 0777) == 0600);
  const std::string token = token_of(s);

  CHECK(request(serve.port(), "GET", "/v1/sessions", "", {kNoToken}).status == 401);
  CHECK(request(serve.port(), "GET", "/v1/sessions", "", {"Authorization: Bearer wrong"}).status ==
        401);
  CHECK(
      request(serve.port(), "GET", "/v1/sessions", "", {"Authorization: Bearer " + token}).status ==
      200);
  CHECK(request(serve.port(), "GET", "/healthz").status == 200);
}

TEST_CASE("SIGTERM lets a running turn finish, then the server exits") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("slow.yaml", kSlowPlan).string()});
  TurnInFlight running(serve.port());
  const std::string &id = running.id;
  StreamingRequest &turn = running.turn;
  serve.signal(SIGTERM);
  turn.read_to_end();
  CHECK(contains(turn.raw(), "END-OF-ANSWER"));
  CHECK(contains(last_data(turn.raw(), "turn:result"), R"("status":"success")"));
  CHECK(serve.wait() == 0);
  CHECK(contains(serve.err(), "amplifier serve: stopped"));
}

TEST_CASE("SIGTERM cancels a turn that outlasts the grace period") {
  Scratch s;
  ServeProcess serve(s,
                     {"--plan", s.write("slow.yaml", kSlowPlan).string(), "--shutdown-grace", "0"});
  TurnInFlight running(serve.port());
  StreamingRequest &turn = running.turn;
  serve.signal(SIGTERM);
  turn.read_to_end();
  CHECK(contains(last_data(turn.raw(), "turn:result"), R"("status":"cancelled")"));
  CHECK(serve.wait() == 0);
}

TEST_CASE("SIGTERM with chat completions past the grace period exits 0, every time") {
  // Each chat completion's session leaves the registry when its turn ends, which a cancelled
  // turn does while SIGTERM's drain walks the sessions: the drain once ended a session that
  // was no longer there (a null) and crashed. 20 rounds, fewer under the sanitizers' slowness.
#ifdef AMP_SANITIZER_BUILD
  constexpr int kRounds = 5;
#else
  constexpr int kRounds = 20;
#endif
  Scratch s;
  std::string plan = kSlowPlan;
  plan.replace(plan.find("context: context-simple"), 23,
               "context: {module: context-persistent, config: {store_dir: " +
                   (s.dir / "store").string() + "}}");
  const std::string plan_file = s.write("slow-persistent.yaml", plan).string();
  const std::string body =
      R"({"model":"default","stream":true,"messages":[{"role":"user","content":"go"}]})";
  for (int round = 0; round < kRounds; ++round) {
    INFO("round " << round);
    ServeProcess serve(s, {"--plan", plan_file, "--shutdown-grace", "1"});
    TurnInFlight session_turn(serve.port());  // a sessions-API turn alongside
    std::vector<std::unique_ptr<StreamingRequest>> completions;
    for (int i = 0; i < 4; ++i) {
      completions.push_back(std::make_unique<StreamingRequest>(
          serve.port(), "POST", "/v1/chat/completions", body));
      REQUIRE(completions.back()->read_until("\"content\":\""));
    }
    serve.signal(SIGTERM);
    for (auto &c : completions) c->read_to_end();
    session_turn.turn.read_to_end();
    REQUIRE(serve.wait() == 0);
    CHECK(contains(serve.err(), "amplifier serve: stopped"));
    // The sessions API's session was ended: its transcript holds the cancelled turn's prompt.
    CHECK(contains(read_text(s.dir / "store" / session_turn.id / "transcript.jsonl"),
                   R"("content":"go")"));
  }
}

TEST_CASE("openapi.json documents exactly the router's routes; healthz and metrics answer") {
  Scratch s;
  // Priced: the mock's answer is estimated at a few tokens, at $1000 / $2000 per million.
  std::string priced = kQuickPlan;
  priced.replace(priced.find("context: context-simple}"), 24,
                 "context: context-simple, pricing: {\"mock*\": {input: 1000, output: 2000}}}");
  ServeProcess serve(s, {"--plan", s.write("quick.yaml", priced).string()});
  auto doc = body_json(request(serve.port(), "GET", "/v1/openapi.json"));
  CHECK(doc.at("openapi").as_string() == "3.1.0");
  const std::set<std::string> routes = served_routes();
  const std::set<std::string> documented = documented_routes(doc);
  CHECK(routes.contains("POST /v1/sessions/{id}/messages"));  // the list is the real one
  CHECK(routes.contains("GET /"));
  CHECK(missing_from(routes, documented) == "");  // undocumented routes
  CHECK(missing_from(documented, routes) == "");  // documented, but not served
  // The page's files are public: no security requirement, unlike the API.
  CHECK(doc.at("paths").at("/").at("get").at("security").as_array().empty());
  CHECK_FALSE(doc.at("paths").at("/v1/sessions").at("get").as_object().contains("security"));

  const std::string id = create_session(serve.port());
  request(serve.port(), "POST", messages_path(id), R"({"prompt":"hi"})");
  Reply metrics = request(serve.port(), "GET", "/metrics");
  CHECK(metrics.status == 200);
  CHECK(contains(metrics.body, "amplifier_sessions 1"));
  CHECK(contains(metrics.body, R"(amplifier_turns_total{status="success"} 1)"));
  CHECK(contains(metrics.body, "amplifier_provider_latency_seconds_count 1"));
  CHECK(contains(metrics.body, R"(amplifier_tokens_total{direction="output"})"));
  // A turn may ask for a role of the plan's routing; this plan has none, and the turn says so.
  Reply routed = request(serve.port(), "POST", messages_path(id), R"({"prompt":"hi","route":"fast"})");
  CHECK(contains(routed.body, "route 'fast'"));
  CHECK(contains(routed.body, "the plan has no routing"));
  CHECK(request(serve.port(), "POST", messages_path(id), R"({"prompt":"hi","route":7})").status == 400);
  // The session's ledger: in GET /v1/sessions/{id}, and its cost in /metrics.
  const json::value shown = body_json(request(serve.port(), "GET", "/v1/sessions/" + id));
  const json::object &ledger = shown.at("ledger").as_object();
  CHECK(ledger.at("session").at("calls").as_int64() == 1);
  CHECK(ledger.at("session").at("turns").as_int64() == 1);
  const double usd = ledger.at("total").at("cost_usd").as_double();
  CHECK(usd > 0);
  CHECK(contains(metrics.body, fmt::format("amplifier_cost_usd_total {:.10g}\n", usd)));
  CHECK(contains(metrics.body, "amplifier_unpriced_calls_total 0"));
  // The one event stream's first event, timed once; the buckets are cumulative.
  CHECK(contains(metrics.body, "amplifier_stream_first_event_seconds_count 1"));
  CHECK(contains(metrics.body, R"(amplifier_stream_first_event_seconds_bucket{le="+Inf"} 1)"));
  CHECK(contains(metrics.body, R"(amplifier_stream_first_event_seconds_bucket{le="5"} 1)"));
}

TEST_CASE("three OpenAI clients (openai, AI SDK, LangChain) read answers and usage from serve") {
  const fs::path clients = AMP_SOURCE_DIR "/tests/serve/client";
  for (const char *package : {"openai", "ai", "@ai-sdk/openai-compatible", "@langchain/openai"})
    if (!fs::exists(clients / "node_modules" / package))
      FAIL("the npm clients are not installed: run scripts/install-test-deps.sh (npm ci in "
           "tests/serve/client); missing " << package);
  Scratch s;
  // Two provider calls in the turn (a tool round, then the answer): usage is their sum.
  const std::string plan = R"(session: {orchestrator: loop-streaming, context: context-simple}
providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls: [{name: no_such_tool, input: {}}]
          usage: {input_tokens: 10, output_tokens: 3}
        - text: "hello from the mock: ✓ ünïcödé 日本"
          usage: {input_tokens: 20, output_tokens: 5, cache_read_tokens: 4, reasoning_tokens: 2}
)";
  ServeProcess serve(s, {"--plan", s.write("usage.yaml", plan).string()});
  const std::string base = "http://127.0.0.1:" + std::to_string(serve.port()) + "/v1";
  auto run_client = [&](const std::string &client, const std::string &mode) {
    const fs::path out = s.dir / (client + "-" + mode + ".out");
    const std::string command = "AMP_TOKEN=" + token_of(s) + " node " +
                                (clients / "clients.mjs").string() + " " + client + " " + base +
                                " default " + mode + " hi > " + out.string() + " 2>&1";
    const int status = std::system(command.c_str());
    const std::string text = read_text(out);
    INFO(client << " " << mode << ": " << text);
    REQUIRE(status == 0);
    return json::parse(text).as_object();
  };
  const std::string answer = "hello from the mock: ✓ ünïcödé 日本";
  for (const std::string client : {"openai", "ai-sdk", "langchain"}) {
    for (const std::string mode : {"once", "stream"}) {
      INFO(client << " " << mode);
      auto reply = run_client(client, mode);
      CHECK(reply.at("text").as_string() == answer);
      CHECK(json::serialize(reply.at("usage")) ==
            R"({"prompt":30,"completion":8,"total":38})");
    }
    INFO(client);
    CHECK(run_client(client, "abort").at("aborted") == true);
    CHECK(request(serve.port(), "GET", "/healthz").status == 200);
    auto concurrent = run_client(client, "concurrent");
    const auto &texts = concurrent.at("texts").as_array();
    CHECK(texts.size() == 20);
    CHECK(std::all_of(texts.begin(), texts.end(),
                      [&](const json::value &t) { return t.as_string() == answer; }));
  }
  // The details the official client does not surface, in the raw answer.
  Reply raw = request(serve.port(), "POST", "/v1/chat/completions",
                      R"({"model":"default","messages":[{"role":"user","content":"hi"}]})");
  REQUIRE(raw.status == 200);
  CHECK(json::serialize(body_json(raw).at("usage")) ==
        R"({"prompt_tokens":30,"completion_tokens":8,"total_tokens":38,)"
        R"("prompt_tokens_details":{"cached_tokens":4},)"
        R"("completion_tokens_details":{"reasoning_tokens":2}})");
}

TEST_CASE("/v1/chat/completions: the usage chunk comes last before [DONE], only when asked") {
  Scratch s;
  ServeProcess serve(s, {"--plan", s.write("quick.yaml", kQuickPlan).string()});
  auto body = [](bool include_usage) {
    return std::string(R"({"model":"default","stream":true,)") +
           (include_usage ? R"("stream_options":{"include_usage":true},)" : "") +
           R"("messages":[{"role":"user","content":"hi"}]})";
  };
  Reply asked = request(serve.port(), "POST", "/v1/chat/completions", body(true));
  REQUIRE(asked.status == 200);
  std::vector<std::string> data;
  for (const auto &line : amp_test::lines_of(asked.body))
    if (line.starts_with("data: ")) data.push_back(line.substr(6));
  REQUIRE(data.size() >= 4);
  CHECK(data.back() == "[DONE]");
  const auto last = json::parse(data[data.size() - 2]).as_object();
  CHECK(last.at("object").as_string() == "chat.completion.chunk");
  CHECK(last.at("choices").as_array().empty());
  const auto &usage = last.at("usage").as_object();
  CHECK(usage.at("prompt_tokens").as_int64() > 0);
  CHECK(usage.at("total_tokens").as_int64() ==
        usage.at("prompt_tokens").as_int64() + usage.at("completion_tokens").as_int64());
  // The finish_reason chunk is the one before it.
  CHECK(json::parse(data[data.size() - 3]).at("choices").at(0).at("finish_reason") == "stop");

  Reply plain = request(serve.port(), "POST", "/v1/chat/completions", body(false));
  REQUIRE(plain.status == 200);
  CHECK_FALSE(contains(plain.body, "\"usage\""));
}

TEST_CASE("CORS: headers only for the configured origin, and a preflight a browser accepts") {
  Scratch s;
  const std::string plan = s.write("quick.yaml", kQuickPlan).string();
  {
    ServeProcess closed(s, {"--plan", plan});
    Reply plain = request(closed.port(), "GET", "/healthz", "", {"Origin: http://app.test"});
    CHECK(plain.headers.count("access-control-allow-origin") == 0);
  }
  ServeProcess serve(s, {"--plan", plan, "--cors-origin", "http://app.test"});
  Reply allowed = request(serve.port(), "GET", "/v1/sessions", "", {"Origin: http://app.test"});
  CHECK(allowed.status == 200);
  CHECK(allowed.headers["access-control-allow-origin"] == "http://app.test");
  CHECK(allowed.headers["vary"] == "Origin");
  Reply other = request(serve.port(), "GET", "/v1/sessions", "", {"Origin: http://evil.test"});
  CHECK(other.status == 403);
  CHECK(contains(other.body, "forbidden_origin"));
  CHECK(other.headers.count("access-control-allow-origin") == 0);
  Reply preflight = request(serve.port(), "OPTIONS", "/v1/sessions", "",
                            {"Origin: http://app.test", "Access-Control-Request-Method: POST",
                             "Access-Control-Request-Headers: content-type"});
  CHECK(preflight.status == 204);
  CHECK(preflight.headers["access-control-allow-origin"] == "http://app.test");
  CHECK(contains(preflight.headers["access-control-allow-methods"], "POST"));
  CHECK(contains(preflight.headers["access-control-allow-headers"], "content-type"));
}

TEST_CASE("SIGTERM: a turn that finishes in the grace period is in the persistent transcript") {
  Scratch s;
  std::string plan = kSlowPlan;
  plan.replace(plan.find("context: context-simple"), 23,
               "context: {module: context-persistent, config: {store_dir: " +
                   (s.dir / "store").string() + "}}");
  ServeProcess serve(s, {"--plan", s.write("slow-persistent.yaml", plan).string()});
  TurnInFlight running(serve.port());
  serve.signal(SIGTERM);
  running.turn.read_to_end();
  CHECK(contains(last_data(running.turn.raw(), "turn:result"), R"("status":"success")"));
  CHECK(serve.wait() == 0);
  const std::string transcript = read_text(s.dir / "store" / running.id / "transcript.jsonl");
  CHECK(contains(transcript, R"("content":"go")"));
  CHECK(contains(transcript, "END-OF-ANSWER"));
  CHECK(std::count(transcript.begin(), transcript.end(), '\n') == 2);
}
