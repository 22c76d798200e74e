// tool-bash through a real Session, running real processes: output and exit codes, timeouts
// that end the whole process tree, cancellation, capped output, allow/deny lists, working
// directories, and no zombie left behind.
#include "bash_test_support.hpp"

#include "amplifier/json_schema.hpp"

using namespace bashtest;

TEST_CASE("bash returns the interleaved output and the exit code") {
  BashWorkspace ws;
  auto session = open_session(ws.plan());

  auto ok = bash(*session, "echo out; echo err >&2; printf 'last'");
  CHECK(ok.success);
  CHECK(ok.output == "out\nerr\nlast\nExit code: 0");
  CHECK(ok.result.at("exit_code") == 0);
  CHECK(ok.result.at("signal").is_null());
  CHECK(ok.result.at("timed_out") == false);
  CHECK(ok.result.at("output_bytes") == 12);
  CHECK(ok.result.at("sandboxed") == false);
  CHECK(!ok.result.contains("sandbox_unavailable"));

  auto failed = bash(*session, "echo partial; exit 3");
  CHECK(!failed.success);
  CHECK(failed.output == "partial\nExit code: 3");
  CHECK(failed.result.at("exit_code") == 3);

  CHECK(bash(*session, "true").output == "(no output)\nExit code: 0");
  CHECK(bash(*session, "cat").output == "(no output)\nExit code: 0");  // stdin is empty
  CHECK(bash(*session, "pwd").output == ws.root.string() + "\nExit code: 0");

  auto killed = bash(*session, "kill -KILL $$");
  CHECK(!killed.success);
  CHECK(killed.output == "(no output)\nTerminated by signal 9 (Killed).");
  CHECK(killed.result.at("signal") == 9);
  CHECK(killed.result.at("exit_code").is_null());
  CHECK(zombie_children_of_this_process() == 0);
}

TEST_CASE("a timeout ends the whole process tree, SIGTERM first") {
  BashWorkspace ws;
  auto session = open_session(ws.plan());
  const std::string tree = std::string(kPrintGroup) +
                           "; sleep 300 & (sleep 300 &); bash -c 'sleep 300 & wait' & echo started; sleep 300";
  auto timed_out = bash(*session, json::object{{"command", tree}, {"timeout_seconds", 0.5}});
  CHECK(!timed_out.success);
  CHECK(timed_out.result.at("timed_out") == true);
  CHECK(timed_out.output.find("started\n") != std::string::npos);
  CHECK(timed_out.output.ends_with("Timed out after 0.5 s; the command and its process group were terminated."));
  CHECK(live_members(printed_group(timed_out.output)) == 0);
  CHECK(zombie_children_of_this_process() == 0);
}

TEST_CASE("a timeout ends processes that ignore SIGTERM with SIGKILL after the grace period") {
  BashWorkspace ws;
  auto session = open_session(ws.plan({{"kill_grace_seconds", 0.3}}));
  const std::string stubborn = "trap '' TERM; " + std::string(kPrintGroup) +
                               "; sleep 300 & bash -c 'sleep 300' & sleep 300";
  const auto started = std::chrono::steady_clock::now();
  auto timed_out = bash(*session, json::object{{"command", stubborn}, {"timeout_seconds", 0.3}});
  CHECK(timed_out.result.at("timed_out") == true);
  CHECK(timed_out.result.at("signal") == 9);
  CHECK(live_members(printed_group(timed_out.output)) == 0);
  CHECK(std::chrono::steady_clock::now() - started < 30s);
}

TEST_CASE("background processes are ended when the command exits") {
  BashWorkspace ws;
  auto session = open_session(ws.plan());
  const auto started = std::chrono::steady_clock::now();
  auto done = bash(*session, std::string(kPrintGroup) +
                                 "; sleep 300 & sleep 300 >/dev/null 2>&1 & echo background started");
  CHECK(done.success);
  CHECK(done.output.ends_with("background started\nExit code: 0"));
  CHECK(live_members(printed_group(done.output)) == 0);
  CHECK(std::chrono::steady_clock::now() - started < 30s);
  CHECK(zombie_children_of_this_process() == 0);
}

TEST_CASE("an immediate cancellation kills the process group at once") {
  BashWorkspace ws;
  Fifo ready(ws.root / "ready");
  auto session = open_session(ws.plan());
  auto call = run_tool(*session, "bash",
                       json::serialize(json::object{
                           {"command", "sleep 300 & " + std::string(kPrintGroup) + " > ready; sleep 300"}}));
  const long group = printed_group(ready.read_line());
  CHECK(live_members(group) >= 2);
  const auto cancelled_at = std::chrono::steady_clock::now();
  REQUIRE(session->coordinator().cancel_call(call->id, amplifier::CancelLevel::Immediate));
  auto outcome = finish(call);
  CHECK(std::chrono::steady_clock::now() - cancelled_at < 10s);
  CHECK(outcome.status == AMP_CANCELLED);
  CHECK(text_of(outcome.result.at("kind")) == "cancelled");
  CHECK(text_of(outcome.result.at("message")).starts_with("bash cancelled: the command and its process group were killed."));
  CHECK(live_members(group) == 0);
  CHECK(zombie_children_of_this_process() == 0);
}

TEST_CASE("a session cancelled immediately stops a running command through the polled level") {
  BashWorkspace ws;
  Fifo ready(ws.root / "ready");
  auto session = open_session(ws.plan());
  auto call = run_tool(*session, "bash",
                       json::serialize(json::object{{"command", std::string(kPrintGroup) + " > ready; sleep 300"}}));
  const long group = printed_group(ready.read_line());
  session->cancel(amplifier::CancelLevel::Immediate);
  auto outcome = finish(call);
  CHECK(outcome.status == AMP_CANCELLED);
  CHECK(live_members(group) == 0);
}

TEST_CASE("a graceful cancellation lets the running command finish") {
  BashWorkspace ws;
  Fifo ready(ws.root / "ready"), go(ws.root / "go");
  auto session = open_session(ws.plan());
  auto call = run_tool(*session, "bash",
                       json::serialize(json::object{{"command", "echo ready > ready; read x < go; echo finished:$x"}}));
  CHECK(ready.read_line() == "ready");
  session->coordinator().cancel_call(call->id, amplifier::CancelLevel::Graceful);
  go.write_line("yes");
  auto outcome = finish(call);
  CHECK(outcome.status == AMP_OK);
  CHECK(outcome.success);
  CHECK(outcome.output == "finished:yes\nExit code: 0");
}

TEST_CASE("long output keeps its head and tail and says how much was elided") {
  BashWorkspace ws;
  auto session = open_session(ws.plan({{"max_output_bytes", 1000}}));
  auto big = bash(*session, "head -c 100000 /dev/zero | tr '\\0' a; echo; echo END");
  CHECK(big.success);
  CHECK(big.result.at("output_bytes") == 100005);
  CHECK(big.result.at("elided_bytes") == 99005);
  CHECK(big.output.starts_with(std::string(500, 'a') + "\n... [99005 bytes of output elided] ...\n"));
  CHECK(big.output.ends_with(std::string(495, 'a') + "\nEND\nExit code: 0"));

  // Multi-byte characters cut at the budget's edges still come back as valid JSON text.
  auto wide = bash(*session, "for i in $(seq 2000); do printf 'é€'; done");
  CHECK(wide.success);
  CHECK(wide.output.find("bytes of output elided") != std::string::npos);
  CHECK(wide.output.find("\xEF\xBF\xBD") == std::string::npos);  // no character was broken
}

TEST_CASE("deny wins over allow, and every simple command must be allowed") {
  BashWorkspace ws;
  auto session = open_session(ws.plan({{"allow", json::array{"echo *", "ls*", "git *", "touch *"}},
                                       {"deny", json::array{"rm *", "git push*", "touch forbidden*"}}}));
  CHECK(bash(*session, "echo hi && ls").success);
  CHECK(bash(*session, "FOO=1 echo assigned").success);

  auto denied = bash(*session, "echo a; rm -rf sub");
  CHECK(!denied.success);
  CHECK(denied.output == "Command denied by tool-bash policy: 'rm -rf sub' matches the deny pattern "
                         "'rm *'. It was not run.");
  CHECK(fs::exists(ws.root / "sub"));

  CHECK(bash(*session, "git push origin main").output.find("matches the deny pattern 'git push*'") != std::string::npos);
  CHECK(bash(*session, "echo $(rm -rf sub)").output.starts_with("Command denied"));
  CHECK(bash(*session, "touch forbidden.txt").output.starts_with("Command denied"));
  CHECK(!fs::exists(ws.root / "forbidden.txt"));

  auto unlisted = bash(*session, "echo ok | cat /etc/hostname");
  CHECK(!unlisted.success);
  CHECK(unlisted.output == "Command not allowed by tool-bash policy: 'cat /etc/hostname' matches none of "
                           "the allowed patterns (echo *, ls*, git *, touch *). It was not run.");
  CHECK(bash(*session, "touch made.txt").success);
  CHECK(fs::exists(ws.root / "made.txt"));
}

TEST_CASE("working_dir is confined to the allowed paths") {
  BashWorkspace ws;
  fs::create_directories(ws.dir / "extra");
  fs::create_symlink(ws.outside, ws.root / "link_out");
  auto session = open_session(ws.plan({{"allowed_paths", json::array{".", (ws.dir / "extra").string()}}}));
  CHECK(bash(*session, json::object{{"command", "pwd"}, {"working_dir", "sub"}}).output ==
        (ws.root / "sub").string() + "\nExit code: 0");
  CHECK(bash(*session, json::object{{"command", "pwd"}, {"working_dir", (ws.dir / "extra").string()}}).success);

  for (const std::string &refused : std::vector<std::string>{"..", "../outside", ws.outside.string(), "link_out", "/"}) {
    auto outcome = bash(*session, json::object{{"command", "pwd"}, {"working_dir", refused}});
    CHECK_MESSAGE(!outcome.success, refused);
    CHECK_MESSAGE(outcome.output.starts_with("Access denied: '" + refused + "'"), outcome.output);
    CHECK(outcome.output.find("allowed bash working directory paths") != std::string::npos);
  }
  write_file(ws.root / "file.txt", "x");
  CHECK(bash(*session, json::object{{"command", "pwd"}, {"working_dir", "file.txt"}}).output ==
        "bash input: working_dir 'file.txt' is not an existing directory");
}

TEST_CASE("bad input is an error result the model can read") {
  BashWorkspace ws;
  auto session = open_session(ws.plan({{"max_timeout_seconds", 10}}));
  // Shape errors are caught by the kernel's schema check; limits only the tool knows by itself.
  CHECK(bash(*session, json::object{}).output ==
        "Invalid input for bash: input: missing required property 'command'");
  CHECK(bash(*session, json::object{{"command", 5}}).output.find("input.command: expected string") !=
        std::string::npos);
  // The schema carries the configured maximum, so the kernel refuses it too.
  CHECK(bash(*session, json::object{{"command", "true"}, {"timeout_seconds", 11}}).output.find(
            "input.timeout_seconds: must be at most 10") != std::string::npos);
  auto call = run_tool(*session, "bash", "{not json");
  CHECK(!finish(call).success);
}

TEST_CASE("tool-bash publishes its spec and refuses a bad config") {
  BashWorkspace ws;
  auto session = open_session(ws.plan({{"timeout_seconds", 30}}));
  const auto specs = session->coordinator().tool_specs();
  REQUIRE(specs.size() == 1);
  const auto &spec = specs[0].as_object();
  CHECK(spec.at("name") == "bash");
  CHECK(text_of(spec.at("description")).find("default 30") != std::string::npos);
  CHECK(spec.at("parameters").at("required") == json::array{"command"});
  const amplifier::JsonSchema schema(spec.at("parameters"));
  CHECK(schema.accepts(json::parse(R"({"command":"ls","timeout_seconds":5,"working_dir":"sub"})")));
  CHECK(amplifier::describe_violations(schema.validate(json::parse(R"({"command":"ls","timeout_seconds":0})"))) ==
        "input.timeout_seconds: must be greater than 0, got 0");
  CHECK(amplifier::describe_violations(schema.validate(json::parse(R"({"command":"ls","timeout_seconds":601})"))) ==
        "input.timeout_seconds: must be at most 600, got 601");

  LogCapture log;
  auto broken = open_session(plan_with("tools:\n  - module: tool-bash\n    config: " +
                                       yaml_json(json::object{{"working_dir", (ws.dir / "missing").string()},
                                                              {"denny", json::array{"rm *"}}}) + "\n"));
  REQUIRE(broken->load_failures().size() == 1);
  CHECK(broken->load_failures()[0].error.find("'working_dir' is not an existing directory") != std::string::npos);
  CHECK(log.containing("unknown key 'denny' is ignored (did you mean 'deny'?)").size() == 1);
}

TEST_CASE("commands do not see the host's credentials") {
  BashWorkspace ws;
  auto session = open_session(ws.plan());
  ::setenv("AMP_TEST_API_KEY", "s3cret-value", 1);
  ::setenv("AMP_TEST_PLAIN_SETTING", "visible-value", 1);
  // A connection string holds its password; names in lower case are credentials too.
  ::setenv("AMPLIFIER_PG_DSN", "postgresql://amp:pw@db/amp", 1);
  ::setenv("DATABASE_URL", "postgresql://amp:pw@db/amp", 1);
  ::setenv("github_token", "ghp_s3cret", 1);
  auto out = bash(*session, json::object{{"command",
                                          "echo ${AMP_TEST_API_KEY:-absent} ${AMPLIFIER_PG_DSN:-absent} "
                                          "${DATABASE_URL:-absent} ${github_token:-absent} "
                                          "$AMP_TEST_PLAIN_SETTING"}}).output;
  for (const char *name : {"AMP_TEST_API_KEY", "AMP_TEST_PLAIN_SETTING", "AMPLIFIER_PG_DSN",
                           "DATABASE_URL", "github_token"})
    ::unsetenv(name);
  CHECK(out.find("absent absent absent absent visible-value") != std::string::npos);
  CHECK(out.find("s3cret") == std::string::npos);
  CHECK(out.find("pw@db") == std::string::npos);
}
