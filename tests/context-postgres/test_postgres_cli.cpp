// The real `amplifier` binary with a plan whose context is context-postgres: a turn stored and
// resumed with --resume, a host killed while it holds a session, and `module validate`.
#include "host_process.hpp"
#include "postgres_test_support.hpp"

#include <csignal>
#include <future>
#include <thread>

namespace {

using namespace ctxtest;
using namespace pgtest;
namespace host = amp_host_test;

const std::string kModule = AMP_MODULE_DIR "/context-postgres.so";

// The host tests' scratch directory, with no dsn in the environment unless a test sets one.
struct Scratch : host::Scratch {
  host::ProcessOptions options() const {
    host::ProcessOptions o = host::Scratch::options();
    o.unset_env.push_back("AMPLIFIER_PG_DSN");
    return o;
  }
  host::ProcessResult amplifier(const std::vector<std::string> &args) const {
    return host::run_amplifier(args, options());
  }
  fs::path plan(const std::string &name, const std::string &yaml) const {
    return write(name, yaml);
  }
};

std::string session_of(const std::string &jsonl) {
  const auto lines = amp_test::lines_of(jsonl);
  REQUIRE_FALSE(lines.empty());
  return std::string(json::parse(lines.front()).at("session_id").as_string());
}

std::vector<std::string> events_named(const std::string &jsonl, std::string_view name) {
  std::vector<std::string> found;
  for (const auto &line : amp_test::lines_of(jsonl))
    if (json::parse(line).at("event").as_string() == name) found.push_back(line);
  return found;
}

// The provider first calls bash to create `started` and wait for `release`, then answers: a
// run that holds its session for as long as the test wants.
std::string blocking_rest() {
  return R"(providers:
  - module: provider-mock
    config:
      responses:
        - tool_calls:
            - {id: call_wait, name: bash, input: {command: "touch started && while [ ! -e release ]; do sleep 0.05; done"}}
        - text: "done waiting"
tools:
  - module: tool-bash
)";
}

// Polls `done` every 50 ms for at most `limit`; false when it never came true.
template <class Predicate>
bool eventually(Predicate done, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (; !done(); std::this_thread::sleep_for(std::chrono::milliseconds(50)))
    if (std::chrono::steady_clock::now() > deadline) return false;
  return true;
}

}  // namespace

TEST_CASE("amplifier run stores a turn in PostgreSQL and run --resume continues it") {
  Scratch s;
  const std::string dsn = fresh_database();
  const fs::path plan = s.plan("pg.yaml", postgres_plan(dsn, mock_provider()));
  const std::string memorable = "Remember this: " + std::string(2000, 'p') + " pineapple.";
  auto first = s.amplifier({"run", "--plan", plan.string(), "--format", "jsonl", memorable});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const std::string id = session_of(first.out);
  CHECK(count_messages(dsn, id) == 2);

  auto resumed = s.amplifier(
      {"run", "--plan", plan.string(), "--format", "jsonl", "--resume", id, "What was the word?"});
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(events_named(resumed.out, "session:resume").size() == 1);
  CHECK(events_named(resumed.out, "session:start").empty());
  CHECK(session_of(resumed.out) == id);
  CHECK(resumed.out.find("Mock response to: What was the word?") != std::string::npos);
  CHECK(count_messages(dsn, id) == 4);
  CHECK(json::parse(query(dsn, "SELECT message FROM amplifier_messages WHERE seq = 0"))
            .at("content")
            .as_string() == memorable);
  CHECK(query(dsn, "SELECT metadata->>'turn_count' FROM amplifier_sessions") == "2");
  // Nobody holds the session once the runs have ended.
  CHECK(query(dsn, "SELECT count(*) FROM amplifier_session_leases") == "0");

  auto unknown = s.amplifier({"run", "--plan", plan.string(), "--resume", "no-such-id", "hi"});
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.find("did not find session 'no-such-id'") != std::string::npos);
}

TEST_CASE("amplifier sessions list, show and migrate go through context-postgres") {
  Scratch s;
  const std::string dsn = fresh_database();
  const fs::path plan = s.plan("pg.yaml", postgres_plan(dsn, mock_provider()));
  auto first =
      s.amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "Where is the pineapple?"});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const std::string id = session_of(first.out);

  auto listed = s.amplifier({"sessions", "list", "--plan", plan.string(), "--json"});
  INFO(listed.err);
  REQUIRE(listed.exit_code == 0);
  const json::array rows = json::parse(listed.out).as_array();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].at("id").as_string() == id);
  CHECK(rows[0].at("turns").as_int64() == 1);
  CHECK(rows[0].at("provider").as_string() == "provider-mock");
  CHECK(rows[0].at("preview").as_string() == "Where is the pineapple?");
  auto table = s.amplifier({"sessions", "list", "--plan", plan.string()});
  CHECK(table.out.find(id) != std::string::npos);

  auto shown = s.amplifier({"sessions", "show", "--plan", plan.string(), id});
  INFO(shown.err);
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("stored by context-postgres") != std::string::npos);
  CHECK(shown.out.find("[user, turn 1]\n  Where is the pineapple?") != std::string::npos);
  CHECK(shown.out.find("Mock response to: Where is the pineapple?") != std::string::npos);
  CHECK(shown.out.find("(2 message(s))") != std::string::npos);
  auto as_json = s.amplifier({"sessions", "show", "--plan", plan.string(), "--json", id});
  REQUIRE(as_json.exit_code == 0);
  CHECK(json::parse(as_json.out).as_array().size() == 2);
  auto unknown = s.amplifier({"sessions", "show", "--plan", plan.string(), "nope"});
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.find("no session 'nope' in the store of context-postgres") !=
        std::string::npos);

  // A session on files, imported into the database, then continued from there.
  const fs::path files = s.plan("files.yaml",
                                "session:\n  orchestrator: loop-basic\n  context:\n    module: "
                                "context-persistent\n    config: {store_dir: " +
                                    (s.dir / "store").string() + "}\n" + mock_provider());
  auto on_files =
      s.amplifier({"run", "--plan", files.string(), "--format", "jsonl", "Kept on files first"});
  REQUIRE(on_files.exit_code == 0);
  const std::string moved = session_of(on_files.out);
  const std::string store = (s.dir / "store").string();
  auto migrated =
      s.amplifier({"sessions", "migrate", "--plan", plan.string(), "--from", store, moved});
  INFO(migrated.err);
  REQUIRE(migrated.exit_code == 0);
  CHECK(migrated.out.find("imported session " + moved) != std::string::npos);
  CHECK(count_messages(dsn, moved) == 2);
  CHECK(query(dsn, "SELECT origin->>'provider' FROM amplifier_messages WHERE session_id = '" +
                       moved + "' AND seq = 1") == "provider-mock");
  auto again =
      s.amplifier({"sessions", "migrate", "--plan", plan.string(), "--from", store, moved});
  CHECK(again.exit_code == 1);
  CHECK(again.err.find("already in the database") != std::string::npos);
  auto continued = s.amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "--resume",
                                moved, "And now from the database?"});
  INFO(continued.err);
  REQUIRE(continued.exit_code == 0);
  CHECK(events_named(continued.out, "session:resume").size() == 1);
  CHECK(count_messages(dsn, moved) == 4);
  CHECK(fs::exists(s.dir / "store" / moved));  // the files are left as they were
  auto both = s.amplifier({"sessions", "list", "--plan", plan.string(), "--json"});
  CHECK(json::parse(both.out).as_array().size() == 2);
  // --from belongs to an import; on files, migrate rewrites in place.
  auto misplaced = s.amplifier({"sessions", "migrate", "--from", store, moved});
  CHECK(misplaced.exit_code == 1);
  CHECK(misplaced.err.find("--from needs a --plan") != std::string::npos);
}

TEST_CASE("sessions fork in context-postgres: the fork holds the turns asked for, with their origins") {
  Scratch s;
  const std::string dsn = fresh_database();
  const fs::path plan = s.plan("pg.yaml", postgres_plan(dsn, mock_provider()));
  auto first = s.amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "First question"});
  REQUIRE(first.exit_code == 0);
  const std::string id = session_of(first.out);
  REQUIRE(s.amplifier({"run", "--plan", plan.string(), "--resume", id, "Second question"}).exit_code == 0);
  REQUIRE(count_messages(dsn, id) == 4);

  auto forked = s.amplifier({"sessions", "fork", "--plan", plan.string(), id, "--at", "1"});
  INFO(forked.out << forked.err);
  REQUIRE(forked.exit_code == 0);
  const std::string fork_id = forked.out.substr(forked.out.find(" into ") + 6, 36);
  CHECK(count_messages(dsn, fork_id) == 2);
  CHECK(count_messages(dsn, id) == 4);
  // The answer's origin came along (a resume on another provider needs it).
  CHECK(query(dsn, "SELECT origin->>'provider' FROM amplifier_messages WHERE session_id = '" +
                       fork_id + "' AND seq = 1") == "provider-mock");
  auto shown = s.amplifier({"sessions", "show", "--plan", plan.string(), fork_id});
  CHECK(shown.out.find("forked from " + id + " at turn 1") != std::string::npos);
  CHECK(shown.out.find("Second question") == std::string::npos);
  auto too_far = s.amplifier({"sessions", "fork", "--plan", plan.string(), id, "--at", "5"});
  CHECK(too_far.exit_code == 1);
  CHECK(too_far.err.find("--at takes 0 to 2") != std::string::npos);
}

TEST_CASE("the shipped plan stores its session in the database of AMPLIFIER_PG_DSN") {
  Scratch s;
  const std::string dsn = fresh_database();
  host::ProcessOptions options = s.options();
  options.env.emplace_back("AMPLIFIER_PG_DSN", dsn);
  auto run = host::run_amplifier(
      {"run", "--plan", AMP_SOURCE_DIR "/mount-plans/postgres.yaml", "list the files"}, options);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.find("--resume") != std::string::npos);
  CHECK(query(dsn, "SELECT count(*) FROM amplifier_sessions") == "1");
  // The prompt, the tool call, its result, the answer.
  CHECK(query(dsn, "SELECT count(*) FROM amplifier_messages") == "4");
}

TEST_CASE("a host killed while it holds a session: busy until its lease lapses, then resumable") {
  Scratch s;
  const std::string dsn = fresh_database();
  // A handoff shorter than the lease: the dead holder never lets go, and the open is refused
  // while its lease lasts (a handoff as long as the lease would outwait it).
  const std::string lease = R"("lease_seconds": 3, "handoff_ms": 300)";
  const fs::path chat = s.plan("chat.yaml", postgres_plan(dsn, mock_provider(), lease));
  const fs::path blocking = s.plan("blocking.yaml", postgres_plan(dsn, blocking_rest(), lease));
  auto first = s.amplifier({"run", "--plan", chat.string(), "--format", "jsonl", "hello"});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const std::string id = session_of(first.out);

  // The holder is killed as soon as its tool starts; a bash it may have started lives on until
  // `release` (keeping the output open), so it runs beside the test. Either the bash says it
  // started or the holder is gone: both come after the kill at tool:pre.
  host::ProcessOptions options = s.options();
  options.signal_marker = R"("event":"tool:pre")";
  options.signal_to_send = SIGKILL;
  auto holder = std::async(std::launch::async, [&] {
    return host::run_amplifier(
        {"run", "--plan", blocking.string(), "--format", "jsonl", "--resume", id, "work"}, options);
  });
  const auto holder_killed = [&] {
    return fs::exists(s.dir / "started") ||
           holder.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  };
  REQUIRE_MESSAGE(eventually(holder_killed, std::chrono::seconds(30)),
                  "the holder never got going");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the SIGKILL has landed

  auto refused = s.amplifier({"run", "--plan", chat.string(), "--resume", id, "intrude"});
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("session busy: session " + id + " is in use by another host") !=
        std::string::npos);
  write_file(s.dir / "release", "");
  const host::ProcessResult killed = holder.get();
  CHECK(killed.signal == SIGKILL);

  // Nobody renews the dead host's lease: it lapses, and the session can be taken.
  const std::string live_leases =
      "SELECT count(*) FROM amplifier_session_leases WHERE expires > now()";
  REQUIRE(eventually([&] { return query(dsn, live_leases) == "0"; }, std::chrono::seconds(10)));
  auto resumed = s.amplifier(
      {"run", "--plan", chat.string(), "--format", "jsonl", "--resume", id, "after the crash"});
  INFO(resumed.err);
  CHECK(resumed.exit_code == 0);
  CHECK(resumed.out.find("Mock response to: after the crash") != std::string::npos);
  // hello, answer, work, the tool call, the repairs (a synthetic result and a closing note),
  // after the crash, its answer; never "intrude"
  CHECK(count_messages(dsn, id) == 8);
  CHECK(query(dsn, "SELECT count(*) FROM amplifier_messages WHERE message LIKE '%intrude%'") ==
        "0");
}

TEST_CASE("module validate: the structural checks, and the behavioural ones on a database") {
  Scratch s;
  // create-destroy mounts an instance, which connects: the database comes from the environment.
  host::ProcessOptions options = s.options();
  options.env.emplace_back("AMPLIFIER_PG_DSN", fresh_database());
  auto structural = host::run_amplifier({"module", "validate", kModule}, options);
  INFO(structural.out << structural.err);
  CHECK(structural.exit_code == 0);

  const std::string config = postgres_context(fresh_database());
  auto behavioural =
      s.amplifier({"module", "validate", kModule, "--behavioral", "--config", config});
  INFO(behavioural.out << behavioural.err);
  CHECK(behavioural.exit_code == 0);
  CHECK(behavioural.out.find("PASS context-sessions-query") != std::string::npos);
}
