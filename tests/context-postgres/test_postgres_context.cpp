// context-postgres in process, against a real PostgreSQL server: the schema, one transaction
// per message, the lease, an outage in the middle of a session, a bad dsn.
#include "postgres_test_support.hpp"

#include "log_capture.hpp"

#include "amplifier/module_loader.hpp"
#include "amplifier/session_query.hpp"

#include <fstream>
#include <future>
#include <thread>

using namespace ctxtest;
using namespace pgtest;

namespace {

constexpr const char *kId = "pg-session-1";

}  // namespace

TEST_CASE("the schema is created at mount, with its version, once even when two start at once") {
  const std::string dsn = fresh_database();
  const std::string plan = postgres_plan(dsn);
  // Two sessions mounting on an empty database at the same moment: the advisory lock makes
  // one migrate and the other find the work done.
  auto mount = [&](const std::string &id) { return open_session(plan, id); };
  auto first = std::async(std::launch::async, mount, "racer-a");
  auto second = std::async(std::launch::async, mount, "racer-b");
  OpenSession a = first.get();
  OpenSession b = second.get();
  CHECK(query(dsn, "SELECT count(*) FROM amplifier_schema_version") == "1");
  CHECK(query(dsn, "SELECT max(version) FROM amplifier_schema_version") == "1");
  CHECK(query(dsn,
              "SELECT count(*) FROM information_schema.tables WHERE table_name IN "
              "('amplifier_sessions', 'amplifier_messages', 'amplifier_session_leases')") == "3");
  // A new session has its row (no messages yet) and its lease from the start: a host that
  // acknowledged it can unload it, and any host finds it.
  CHECK(query(dsn, "SELECT count(*) FROM amplifier_sessions") == "2");
  CHECK(query(dsn, "SELECT count(*) FROM amplifier_messages") == "0");
  CHECK(query(dsn, "SELECT count(*) FROM amplifier_session_leases") == "2");
}

TEST_CASE("every message is committed on its own, in order, with the metadata beside it") {
  const std::string dsn = fresh_database();
  auto open = open_session(postgres_plan(dsn), kId);
  ContextHandle context(*open.session);
  const std::vector<json::object> messages = {
      text_message("user", "remember   the\nword pineapple"),
      tool_call_message("c1", "bash", "Let me look."),
      tool_result_message("c1", std::string("binary \0 output", 15)),
      text_message("assistant", "Done.")};
  for (std::size_t i = 0; i < messages.size(); ++i) {
    context.add_ok(messages[i]);
    // Visible to another connection at once: committed before add_message returned.
    CHECK(count_messages(dsn, kId) == static_cast<long>(i + 1));
  }
  CHECK(query(dsn,
              "SELECT string_agg(seq::text || role, ',' ORDER BY seq) FROM amplifier_messages") ==
        "0user,1assistant,2tool,3assistant");
  CHECK(query(dsn, "SELECT metadata->>'message_count' FROM amplifier_sessions") == "4");
  CHECK(query(dsn, "SELECT metadata->>'turn_count' FROM amplifier_sessions") == "1");
  CHECK(query(dsn, "SELECT metadata->>'preview' FROM amplifier_sessions") ==
        "remember the word pineapple");
  CHECK(query(dsn, "SELECT metadata->>'session_id' FROM amplifier_sessions") == kId);
  // The text exactly as it arrived, the NUL escape included (jsonb would refuse it).
  CHECK(json::parse(query(dsn, "SELECT message FROM amplifier_messages WHERE seq = 2")) ==
        json::value(messages[2]));
}

TEST_CASE("a session resumes in a new mount: history, repairs appended, the capability") {
  const std::string dsn = fresh_database();
  const std::string plan = postgres_plan(dsn, mock_provider());
  json::array before;
  {
    auto open = open_session(plan, kId);
    REQUIRE(open.session->execute("remember the word pineapple").status == "success");
    ContextHandle context(*open.session);
    context.add_ok(text_message("user", "run it"));
    context.add_ok(tool_call_message("c9", "bash"));  // killed before the tool answered
    before = context.messages();
  }
  REQUIRE(before.size() == 4);
  auto open = open_session(plan, kId, true);
  ContextHandle context(*open.session);
  const json::array after = context.messages();
  REQUIRE(after.size() == 6);  // + the synthetic tool result + the closing note
  for (std::size_t i = 0; i < before.size(); ++i) CHECK(after[i] == before[i]);
  check_alternation(after);
  CHECK(count_messages(dsn, kId) == 6);
  const auto loaded = open.events->payloads("context:transcript_loaded");
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0].at("messages_read") == 4);
  CHECK(loaded[0].at("repairs").at("synthetic_tool_results") == 1);
  const auto capability = open.session->coordinator().capability("session.transcript");
  REQUIRE(capability);
  CHECK(capability->at("store") == "postgresql");
  CHECK(capability->at("resumed") == true);
  CHECK(capability->at("session_id") == kId);
  CHECK(query(dsn, "SELECT metadata->>'provider' FROM amplifier_sessions") == "provider-mock");
}

TEST_CASE("set_messages and clear replace the rows in one transaction") {
  const std::string dsn = fresh_database();
  const std::string plan = postgres_plan(dsn);
  {
    auto open = open_session(plan, kId);
    ContextHandle context(*open.session);
    for (int i = 0; i < 3; ++i) context.add_ok(text_message("user", "m" + std::to_string(i)));
    REQUIRE(context.set(json::serialize(json::array{text_message("user", "only")})) == AMP_OK);
    CHECK(count_messages(dsn, kId) == 1);
    context.add_ok(text_message("assistant", "after"));
    CHECK(query(dsn, "SELECT string_agg(seq::text, ',' ORDER BY seq) FROM amplifier_messages") ==
          "0,1");
  }
  auto open = open_session(plan, kId, true);
  CHECK(roles(ContextHandle(*open.session).messages()) ==
        std::vector<std::string>{"user", "assistant"});
}

TEST_CASE("the lease: a second open of a session in use is refused as busy, naming it") {
  const std::string dsn = fresh_database();
  const std::string plan = postgres_plan(dsn, "", R"("lease_seconds": 1, "handoff_ms": 500)");
  auto first = open_session(plan, kId);
  ContextHandle(*first.session).add_ok(text_message("user", "hello"));
  CHECK_THROWS_WITH_AS(open_session(plan, kId, true),
                       doctest::Contains("session busy: session pg-session-1 is in use by "
                                         "another host"),
                       amplifier::SessionError);
  // The opener asked the holder to let go (NOTIFY): the holder's host heard it, as
  // context:release_requested, and this one (no serve to end the session) kept it.
  const auto asked = first.events->payloads("context:release_requested");
  REQUIRE_FALSE(asked.empty());
  CHECK(asked.front().at("session_id").as_string() == kId);
  {
    // Typed, not only worded: the context's create answers AMP_BUSY (ABI 1.5), which serve
    // turns into 409 session_busy without reading the message.
    amplifier::SessionOptions options;
    options.module_path = {AMP_MODULE_DIR};
    options.session_id = kId;
    options.resumed = true;
    amplifier::Session refused(amplifier::parse_mount_plan(plan, "test-plan"), options);
    CHECK_THROWS_AS(refused.initialize(), amplifier::SessionError);
    REQUIRE(refused.load_failures().size() == 1);
    CHECK(refused.load_failures().front().mount_point == "context");
    CHECK(refused.load_failures().front().status == AMP_BUSY);
  }
  {
    // So is a delete through the store while the session is open: AMP_BUSY.
    amplifier::ModuleLoader loader(std::vector<std::filesystem::path>{AMP_MODULE_DIR});
    auto store = amplifier::ContextSessionStore::open(
        loader, amplifier::parse_mount_plan(plan, "test-plan").context);
    REQUIRE(store);
    amp_status status = AMP_OK;
    try {
      store->query(json::object{{"op", "delete"}, {"session_id", kId}});
    } catch (const amplifier::SessionQueryError &e) {
      status = e.status;
    }
    CHECK(status == AMP_BUSY);
  }
  // Held past several lease periods: the live holder keeps renewing it.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  CHECK_THROWS_WITH_AS(open_session(plan, kId, true), doctest::Contains("session busy"),
                       amplifier::SessionError);
  ContextHandle(*first.session).add_ok(text_message("assistant", "still mine"));
  first.events.reset();
  first.session.reset();  // ends: the lease is given back at once
  auto second = open_session(plan, kId, true);
  CHECK(ContextHandle(*second.session).messages().size() == 2);
}

TEST_CASE("a lease nobody renews lapses, and the lapsed holder can no longer write") {
  const std::string dsn = fresh_database();
  const std::string plan = postgres_plan(dsn, "", R"("lease_seconds": 1)");
  auto first = open_session(plan, kId);
  ContextHandle(*first.session).add_ok(text_message("user", "hello"));
  // A host that stopped renewing (hung, or cut off): its lease is pushed into the past.
  query(dsn,
        "UPDATE amplifier_session_leases SET expires = now() - interval '1 second', "
        "holder = 'a-dead-host'");
  auto second = open_session(plan, kId, true);
  ContextHandle(*second.session).add_ok(text_message("assistant", "taken over"));
  amp_test::LogCapture log;
  CHECK(ContextHandle(*first.session).add(json::serialize(text_message("user", "late"))) ==
        AMP_ERROR);
  CHECK_FALSE(log.containing("session busy").empty());
  // hello, the closing note of the resume's repair, taken over; never "late".
  CHECK(count_messages(dsn, kId) == 3);
  CHECK(query(dsn, "SELECT count(*) FROM amplifier_messages WHERE message LIKE '%late%'") == "0");
}

TEST_CASE("the database restarted mid-session: the add in the outage fails, nothing is lost") {
  const std::string dsn = fresh_database();
  const std::string plan =
      postgres_plan(dsn, "", R"("reconnect_attempts": 2, "reconnect_backoff_ms": 50)");
  {
    auto open = open_session(plan, kId);
    ContextHandle context(*open.session);
    context.add_ok(text_message("user", "one"));
    context.add_ok(text_message("assistant", "two"));
    server().stop();
    amp_test::LogCapture log;
    CHECK(context.add(json::serialize(text_message("user", "lost in the outage"))) == AMP_ERROR);
    const auto reported = log.containing("appending message 2 of session pg-session-1");
    REQUIRE_FALSE(reported.empty());
    CHECK(reported[0].find("database unavailable: appending message 2 of session pg-session-1 "
                           "failed (2 attempts): cannot connect to PostgreSQL") !=
          std::string::npos);
    server().start();
    context.add_ok(text_message("user", "three"));
    context.add_ok(text_message("assistant", "four"));
  }
  auto open = open_session(plan, kId, true);
  json::array resumed = ContextHandle(*open.session).messages();
  std::vector<std::string> texts;
  for (const auto &m : resumed) texts.emplace_back(m.at("content").as_string());
  CHECK(texts == std::vector<std::string>{"one", "two", "three", "four"});
  CHECK(count_messages(dsn, kId) == 4);
  CHECK(query(dsn, "SELECT count(DISTINCT seq) FROM amplifier_messages") == "4");
}

namespace {

int thread_count() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return 0;
}

}  // namespace

// A server holding many sessions must not hold a connection and a renewing thread for each.
TEST_CASE("the sessions of one process share the database's connections and one renewer") {
  const std::string dsn = fresh_database();
  const std::string plan = postgres_plan(dsn, "", R"("pool_size": 3, "lease_seconds": 1)");
  std::vector<OpenSession> sessions;
  sessions.push_back(open_session(plan, "shared-0"));  // the pool and the renewer exist now
  const int threads_before = thread_count();
  for (int i = 1; i < 20; ++i) {
    sessions.push_back(open_session(plan, "shared-" + std::to_string(i)));
    ContextHandle(*sessions.back().session).add_ok(text_message("user", "hello"));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // several lease periods
  CHECK(query(dsn, "SELECT count(*) FROM amplifier_session_leases WHERE expires > now()") == "20");
  const std::string database = dsn.substr(dsn.rfind("dbname=") + 7);
  // The pool's connections and this query's own.
  CHECK(std::stoi(query(dsn, "SELECT count(*) FROM pg_stat_activity WHERE datname = '" + database +
                                 "'")) <= 3 + 1);
  CHECK(thread_count() - threads_before <= 2);  // not one per session
  CHECK(count_messages(dsn, "shared-19") == 1);
}

TEST_CASE("a dsn that reaches no database fails the mount, naming it") {
  TempDir nowhere;
  const std::string dsn = "host=" + nowhere.path().string() + " dbname=missing connect_timeout=2";
  CHECK_THROWS_WITH_AS(open_session(postgres_plan(dsn), kId),
                       doctest::Contains("database unavailable: preparing the schema failed (4 "
                                         "attempts): cannot connect to PostgreSQL database "
                                         "'missing'"),
                       amplifier::SessionError);
  // A server that is up, a database that is not there.
  const std::string wrong = server().dsn("no_such_database");
  CHECK_THROWS_WITH_AS(open_session(postgres_plan(wrong), kId),
                       doctest::Contains("no_such_database"), amplifier::SessionError);
}
