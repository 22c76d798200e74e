// Two `amplifier serve` processes on one PostgreSQL database, as behind a load balancer: a
// session created through one continues through the other, and a server killed (kill -9) in
// the middle of a turn loses nothing that was complete: the other resumes the session with
// every message up to the last one stored.
#include "postgres_test_support.hpp"
#include "serve_harness.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <future>
#include <thread>

namespace fs = std::filesystem;

namespace {

using namespace amp_serve_test;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

// Answers stream slowly (the mock echoes each prompt, a few characters every 20 ms) so a test
// can kill a server in the middle of one. A lease of 3 s: a killed server's lapses quickly.
// `handoff_ms`: how long opening a session held elsewhere waits for its holder to let go.
std::string shared_plan(const std::string &dsn, int handoff_ms = 3000,
                        const std::string &mock = "{chunk_size: 3, delay_ms: 20}") {
  return "session:\n  orchestrator: loop-streaming\n  context:\n    module: context-postgres\n"
         "    config: " +
         pgtest::postgres_context(dsn, "\"lease_seconds\": 3, \"handoff_ms\": " +
                                           std::to_string(handoff_ms)) +
         "\nproviders:\n  - module: provider-mock\n    config: " + mock + "\n";
}

// What a client may read in an error: nothing about where the database is or who connects.
void check_no_database_details(const std::string &body, const std::string &dsn) {
  INFO(body);
  CHECK(body.find("PostgreSQL") == std::string::npos);
  CHECK(body.find("database '") == std::string::npos);
  CHECK(body.find("amplifier_") == std::string::npos);
  const auto host = dsn.find("host=");
  if (host != std::string::npos) {
    const std::string socket_dir = dsn.substr(host + 5, dsn.find(' ', host) - host - 5);
    CHECK(body.find(socket_dir) == std::string::npos);
  }
}

std::string messages_path(const std::string &id) { return "/v1/sessions/" + id + "/messages"; }

std::string prompt_body(const std::string &prompt) {
  return json::serialize(json::object{{"prompt", prompt}});
}

// A turn, retried while the session is busy elsewhere (409: its lease is not ours yet).
Reply turn_when_free(unsigned short port, const std::string &id, const std::string &prompt,
                     int *busy_answers = nullptr) {
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  for (;;) {
    Reply reply = request(port, "POST", messages_path(id), prompt_body(prompt));
    if (reply.status != 409 || Clock::now() > deadline) return reply;
    INFO(reply.body);
    CHECK(reply.body.find("session_busy") != std::string::npos);
    if (busy_answers) ++*busy_answers;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

void check_turn_succeeded(const Reply &reply) {
  INFO(reply.body);
  REQUIRE(reply.status == 200);
  CHECK(last_data(reply.body, "turn:result").find(R"("status":"success")") != std::string::npos);
}

// The user prompts of a session as GET /v1/sessions/{id} shows it, in order.
std::vector<std::string> user_prompts(const json::object &session) {
  std::vector<std::string> prompts;
  for (const auto &message : session.at("messages").as_array())
    if (message.at("role").as_string() == "user" && message.at("content").is_string())
      prompts.emplace_back(message.at("content").as_string());
  return prompts;
}

json::object shown(unsigned short port, const std::string &id) {
  Reply reply = request(port, "GET", "/v1/sessions/" + id);
  INFO(reply.body);
  REQUIRE(reply.status == 200);
  return json::parse(reply.body).as_object();
}

// amplifier_sessions_reopened_total in a /metrics body (-1 when absent). Tests ask for at least
// one reopen, never an exact count: with --idle-unload 0 the sweep may take a reopened session
// again before its turn starts, and post_message then reopens it once more (a loaded CI
// machine did, twice).
long reopened_total(const std::string &metrics) {
  const std::string line = "\namplifier_sessions_reopened_total ";
  const std::size_t at = metrics.find(line);
  return at == std::string::npos ? -1 : std::stol(metrics.substr(at + line.size()));
}

}  // namespace

TEST_CASE("two servers on one database share sessions; one killed mid-turn loses nothing") {
  const std::string dsn = pgtest::fresh_database();
  Scratch s;
  // A short handoff: the killed server never answers, and the test waits out its lease.
  const std::string plan = s.write("shared.yaml", shared_plan(dsn, 200)).string();
  // --idle-unload 0: a session goes back to the database as soon as its turn ends.
  ServeProcess a(s, {"--plan", plan, "--idle-unload", "0"});
  ServeProcess b(s, {"--plan", plan, "--idle-unload", "0"});

  Reply created = request(a.port(), "POST", "/v1/sessions", "{}");
  INFO(created.body);
  REQUIRE(created.status == 201);
  const std::string id(json::parse(created.body).at("id").as_string());
  check_turn_succeeded(turn_when_free(a.port(), id, "first, through A"));

  // B has never seen the session: it opens it from the database and continues it.
  check_turn_succeeded(turn_when_free(b.port(), id, "second, through B"));
  CHECK(pgtest::count_messages(dsn, id) == 4);
  // A, which let the session go, shows it as the database has it.
  const json::object on_a = shown(a.port(), id);
  CHECK(on_a.at("loaded").as_bool() == false);
  CHECK(user_prompts(on_a) == std::vector<std::string>{"first, through A", "second, through B"});
  const json::array listed =
      json::parse(request(a.port(), "GET", "/v1/sessions").body).at("sessions").as_array();
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].at("id").as_string() == id);
  CHECK(listed[0].at("loaded").as_bool() == false);
  CHECK(listed[0].at("stored").at("turns").as_int64() == 2);

  // A third turn through B, killed in the middle of its answer.
  {
    StreamingRequest third(b.port(), "POST", messages_path(id), prompt_body("third, B dies"));
    REQUIRE(third.read_until("content_block:delta"));
  }
  b.signal(SIGKILL);
  CHECK(b.wait(std::chrono::seconds(10)) == -1);  // died of the signal
  // The prompt was stored before the answer began; the answer never completed.
  CHECK(pgtest::count_messages(dsn, id) == 5);

  // A is refused while the dead server's lease lasts, then resumes the session.
  int busy = 0;
  check_turn_succeeded(turn_when_free(a.port(), id, "fourth, through A again", &busy));
  CHECK(busy > 0);
  const json::object after = shown(a.port(), id);
  CHECK(user_prompts(after) == std::vector<std::string>{"first, through A", "second, through B",
                                                        "third, B dies",
                                                        "fourth, through A again"});
  // 4 prompts, 3 complete answers, and where the killed turn's answer would be, the marker
  // resuming adds (recorded, not silent): the conversation stays well formed.
  const json::array &messages = after.at("messages").as_array();
  INFO(json::serialize(messages));
  REQUIRE(messages.size() == 8);
  CHECK(messages[5].at("role").as_string() == "assistant");
  CHECK(messages[5].at("metadata").at("synthetic").as_string() == "resume");
  CHECK(pgtest::count_messages(dsn, id) == 8);
  CHECK(pgtest::query(dsn, "SELECT count(DISTINCT seq) FROM amplifier_messages") == "8");

  Reply metrics = request(a.port(), "GET", "/metrics");
  CHECK(reopened_total(metrics.body) >= 1);
}

TEST_CASE("a server on a shared store: unknown sessions are 404, an unloaded one reopens here") {
  const std::string dsn = pgtest::fresh_database();
  Scratch s;
  const std::string plan = s.write("shared.yaml", shared_plan(dsn)).string();
  ServeProcess serve(s, {"--plan", plan, "--idle-unload", "0"});
  CHECK(request(serve.port(), "GET", "/v1/sessions/no-such-session").status == 404);
  CHECK(request(serve.port(), "POST", messages_path("no-such-session"), prompt_body("hi")).status ==
        404);
  CHECK(request(serve.port(), "GET", "/v1/sessions/..%2F..%2Fetc").status == 404);

  Reply created = request(serve.port(), "POST", "/v1/sessions", "{}");
  REQUIRE(created.status == 201);
  const std::string id(json::parse(created.body).at("id").as_string());
  check_turn_succeeded(turn_when_free(serve.port(), id, "one"));
  // Unloaded at the next sweep (a tenth of a second), then reopened by the next turn.
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (shown(serve.port(), id).at("loaded").as_bool() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(pgtest::query(dsn, "SELECT count(*) FROM amplifier_session_leases") == "0");
  check_turn_succeeded(turn_when_free(serve.port(), id, "two"));
  CHECK(user_prompts(shown(serve.port(), id)) == std::vector<std::string>{"one", "two"});
  Reply metrics = request(serve.port(), "GET", "/metrics");
  CHECK(reopened_total(metrics.body) >= 1);
  CHECK(metrics.body.find("amplifier_sessions_unloaded_total ") != std::string::npos);

  // DELETE removes it from the database too, whether or not this server holds it right now.
  Reply deleted = request(serve.port(), "DELETE", "/v1/sessions/" + id);
  INFO(deleted.body);
  CHECK(deleted.status == 200);
  CHECK(pgtest::count_messages(dsn, id) == 0);
  CHECK(pgtest::query(dsn, "SELECT count(*) FROM amplifier_sessions") == "0");
  CHECK(request(serve.port(), "GET", "/v1/sessions/" + id).status == 404);
  CHECK(request(serve.port(), "DELETE", "/v1/sessions/" + id).status == 404);
}

TEST_CASE("an idle session moves to whichever server is asked, at once; a running one is 409") {
  const std::string dsn = pgtest::fresh_database();
  Scratch s;
  const std::string plan = s.write("shared.yaml", shared_plan(dsn)).string();
  // Both keep their sessions (the default idle limit of 300 s): only being asked moves one.
  ServeProcess a(s, {"--plan", plan});
  ServeProcess b(s, {"--plan", plan});
  Reply created = request(a.port(), "POST", "/v1/sessions", "{}");
  REQUIRE(created.status == 201);
  const std::string id(json::parse(created.body).at("id").as_string());

  // A round-robin load balancer: every request on the other server, each answered the first
  // time (the holder lets go of the idle session when asked), none 409.
  std::vector<std::string> prompts;
  for (int i = 0; i < 6; ++i) {
    const unsigned short port = i % 2 == 0 ? a.port() : b.port();
    prompts.push_back("turn " + std::to_string(i));
    Reply reply = request(port, "POST", messages_path(id), prompt_body(prompts.back()));
    check_turn_succeeded(reply);
  }
  CHECK(user_prompts(shown(a.port(), id)) == prompts);
  CHECK(pgtest::count_messages(dsn, id) == 12);
  // The ledger moved with the session: each server carried on from the stored one.
  CHECK(shown(b.port(), id).at("ledger").at("session").at("turns").as_int64() == 6);
  CHECK(shown(a.port(), id).at("ledger").at("session").at("calls").as_int64() == 6);

  // A turn running on A keeps the session there: B answers 409 (after asking, in vain), and
  // says nothing about the database. The answer echoes the prompt slowly: 20 s of it.
  StreamingRequest running(a.port(), "POST", messages_path(id),
                           prompt_body("a long answer " + std::string(3000, 'x')));
  REQUIRE(running.read_until("content_block:delta"));
  Reply busy = request(b.port(), "POST", messages_path(id), prompt_body("not now"));
  CHECK(busy.status == 409);
  CHECK(busy.body.find("session_busy") != std::string::npos);
  check_no_database_details(busy.body, dsn);
  // A cancel sent to B reaches the turn on A.
  Reply cancelled = request(b.port(), "POST", "/v1/sessions/" + id + "/cancel",
                            R"({"level":"immediate"})");
  INFO(cancelled.body);
  CHECK(cancelled.status == 202);
  CHECK(cancelled.body.find(R"("forwarded":true)") != std::string::npos);
  CHECK(cancelled.body.find(R"("running":true)") != std::string::npos);
  running.read_to_end();
  CHECK(last_data(running.raw(), "turn:result").find(R"("status":"cancelled")") !=
        std::string::npos);

  // DELETE through the server that does not hold it: it takes the session over, then deletes.
  Reply deleted = request(b.port(), "DELETE", "/v1/sessions/" + id);
  INFO(deleted.body);
  CHECK(deleted.status == 200);
  CHECK(pgtest::count_messages(dsn, id) == 0);
  CHECK(request(a.port(), "GET", "/v1/sessions/" + id).status == 404);
}

TEST_CASE("an acknowledged session exists before its first message, on the plan it was made on") {
  const std::string dsn = pgtest::fresh_database();
  Scratch s;
  const fs::path with_plan = s.dir / "plans-a";
  const fs::path without_plan = s.dir / "plans-b";
  fs::create_directories(with_plan);
  fs::create_directories(without_plan);
  amp_test::write_file(with_plan / "custom.yaml",
                       shared_plan(dsn, 3000, "{responses: [{text: from the custom plan}]}"));
  const std::string plan = s.write("shared.yaml", shared_plan(dsn)).string();
  // --idle-unload 0: a session goes back to the database at the first sweep.
  ServeProcess a(s, {"--plan", plan, "--plans-dir", with_plan.string(), "--idle-unload", "0"});
  ServeProcess b(s, {"--plan", plan, "--plans-dir", without_plan.string(), "--idle-unload", "0"});

  Reply created = request(a.port(), "POST", "/v1/sessions",
                          R"({"plan": "custom", "metadata": {"user": "ada"}})");
  REQUIRE(created.status == 201);
  const std::string id(json::parse(created.body).at("id").as_string());
  // Stored before the 201, with its plan and the client's metadata.
  CHECK(pgtest::query(dsn, "SELECT metadata->'labels'->'serve'->>'plan' FROM amplifier_sessions "
                           "WHERE id = '" + id + "'") == "custom");
  // Unloaded before its first message: still there, for every server.
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (shown(a.port(), id).at("loaded").as_bool() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(pgtest::query(dsn, "SELECT count(*) FROM amplifier_session_leases") == "0");

  // B does not have the plan: it says so, naming it, instead of running another.
  Reply unavailable = request(b.port(), "POST", messages_path(id), prompt_body("hi"));
  INFO(unavailable.body);
  CHECK(unavailable.status == 409);
  CHECK(unavailable.body.find("plan_unavailable") != std::string::npos);
  CHECK(unavailable.body.find("'custom'") != std::string::npos);
  // A reopens it on that plan, with the client's metadata.
  Reply answered = request(a.port(), "POST", messages_path(id), prompt_body("hi"));
  check_turn_succeeded(answered);
  CHECK(last_data(answered.body, "turn:result").find("from the custom plan") != std::string::npos);
  // With --idle-unload 0 the session may already be back in the store when it is shown (the
  // ASan run of 191eebf saw it): the client's metadata is then in the stored labels.
  const json::object after = shown(a.port(), id);
  const json::value &metadata =
      after.at("loaded").as_bool()
          ? after.at("metadata")
          : after.at("stored").at("labels").at("serve").at("metadata");
  CHECK(metadata.at("user").as_string() == "ada");
}

TEST_CASE("an approval asked on one server is answered through another") {
  const std::string dsn = pgtest::fresh_database();
  Scratch s;
  fs::create_directories(s.dir / "work");
  const std::string plan = s.write(
      "approval.yaml",
      "session:\n  orchestrator: loop-streaming\n  context:\n    module: context-postgres\n"
      "    config: " + pgtest::postgres_context(dsn, "\"lease_seconds\": 3") + "\n"
      "providers:\n  - module: provider-mock\n    config:\n      responses:\n"
      "        - tool_calls: [{id: call_1, name: list_directory, input: {path: \".\"}}]\n"
      "        - text: listed\n"
      "tools: [{module: tool-filesystem}]\n"
      "hooks:\n  - {module: hooks-approval, config: {rules: [{tool: list_directory, action: ask}]}}\n")
      .string();
  ServeProcess a(s, {"--plan", plan});
  ServeProcess b(s, {"--plan", plan});
  Reply created = request(a.port(), "POST", "/v1/sessions", "{}");
  REQUIRE(created.status == 201);
  const std::string id(json::parse(created.body).at("id").as_string());
  StreamingRequest turn(a.port(), "POST", messages_path(id), prompt_body("list"));
  REQUIRE(turn.read_until("event: approval:request"));
  REQUIRE(turn.read_until("\n\n"));
  const std::string approval = first_approval_id(turn.raw());
  REQUIRE_FALSE(approval.empty());
  // The client's load balancer sends the answer to B; B passes it to A, which runs the turn.
  Reply answer = request(b.port(), "POST", "/v1/sessions/" + id + "/approvals/" + approval,
                         R"({"decision":"allow_once"})");
  INFO(answer.body);
  CHECK(answer.status == 202);
  CHECK(answer.body.find(R"("forwarded":true)") != std::string::npos);
  turn.read_to_end();
  const std::string result = last_data(turn.raw(), "turn:result");
  INFO(turn.raw());
  CHECK(result.find(R"("response":"listed")") != std::string::npos);
  CHECK(turn.raw().find("approval:granted") != std::string::npos);
  // A session nobody holds, or none at all: nothing to pass an answer to.
  CHECK(request(b.port(), "POST", "/v1/sessions/no-such-session/approvals/x",
                R"({"decision":"allow_once"})")
            .status == 404);
}

TEST_CASE("a session a draining server reopens meanwhile is given back, and its client told 503") {
  // B is asked for a session A is running a turn in: B waits for A to let go (handoff_ms
  // 20 s). B gets SIGTERM while it waits; A's turn ends and B's reopen succeeds after B's drain
  // has ended everything it held. That session must not stay B's until B exits (a load
  // balancer retrying the request elsewhere would find its lease taken): B gives it back and
  // answers 503, and A continues it at once.
  const std::string dsn = pgtest::fresh_database();
  Scratch s;
  const std::string plan = s.write("shared.yaml", shared_plan(dsn, 20000)).string();
  ServeProcess a(s, {"--plan", plan});
  ServeProcess b(s, {"--plan", plan, "--shutdown-grace", "1"});
  Reply created = request(a.port(), "POST", "/v1/sessions", "{}");
  REQUIRE(created.status == 201);
  const std::string id(json::parse(created.body).at("id").as_string());
  // About 2 s of answer (3 characters every 20 ms).
  StreamingRequest running(a.port(), "POST", messages_path(id),
                           prompt_body("two seconds " + std::string(300, 'x')));
  REQUIRE(running.read_until("content_block:delta"));
  auto waiting = std::async(std::launch::async, [&] {
    return request(b.port(), "POST", messages_path(id), prompt_body("on b"));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  b.signal(SIGTERM);
  running.read_to_end();
  CHECK(last_data(running.raw(), "turn:result").find(R"("status":"success")") !=
        std::string::npos);
  const Reply refused = waiting.get();
  INFO(refused.body);
  CHECK(refused.status == 503);
  CHECK(refused.body.find("shutting_down") != std::string::npos);
  CHECK(b.wait() == 0);
  CHECK(pgtest::query(dsn, "SELECT count(*) FROM amplifier_session_leases WHERE session_id = '" +
                               id + "' AND expires > now()") == "0");
  check_turn_succeeded(request(a.port(), "POST", messages_path(id), prompt_body("on a again")));
  CHECK(user_prompts(shown(a.port(), id)).size() == 2);
}
