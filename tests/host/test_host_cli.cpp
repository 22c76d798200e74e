// Process tests: the real `amplifier` binary, real modules, real files.
#include "host_process.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using amp_test::ProcessOptions;
using amp_test::ProcessResult;
using amp_host_test::run_amplifier;
using amp_host_test::Scratch;

namespace {

std::vector<boost::json::object> parse_jsonl(const std::string &out) {
  std::vector<boost::json::object> events;
  for (const auto &line : amp_test::lines_of(out)) {
    auto v = boost::json::parse(line);  // throws (fails the test) on a bad line
    REQUIRE(v.is_object());
    events.push_back(v.as_object());
  }
  return events;
}

std::vector<std::string> event_names(const std::vector<boost::json::object> &events) {
  std::vector<std::string> names;
  for (auto &e : events) names.emplace_back(e.at("event").as_string());
  return names;
}

std::size_t count_of(const std::vector<std::string> &names, const std::string &name) {
  return static_cast<std::size_t>(std::count(names.begin(), names.end(), name));
}

std::size_t index_of(const std::vector<std::string> &names, const std::string &name) {
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

}  // namespace

TEST_CASE("every command answers --help") {
  Scratch s;
  for (auto args : std::vector<std::vector<std::string>>{
           {"--help"}, {"run", "--help"}, {"modules", "--help"}, {"modules", "list", "--help"},
           {"plan", "--help"}, {"plan", "check", "--help"}}) {
    auto r = run_amplifier(args, s.options());
    CHECK_MESSAGE(r.exit_code == 0, args.front());
    CHECK(r.out.find("Usage") != std::string::npos);
  }
}

TEST_CASE("run on the default plan answers offline after a real tool call") {
  Scratch s;
  s.write("marker-file-for-the-test.txt", "x\n");
  auto r = run_amplifier({"run", "hello"}, s.options());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("built-in offline plan") != std::string::npos);
  CHECK(amp_test::lines_of(r.err).size() == 1);  // says so in one line, nothing else
  CHECK_FALSE(r.out.empty());
  // provider-mock's default script lists the working directory, then answers from the result.
  CHECK(r.out.find("marker-file-for-the-test.txt") != std::string::npos);
  // hooks-logging wrote the session's events under AMPLIFIER_HOME.
  std::size_t logs = 0;
  for (auto &e : fs::recursive_directory_iterator(s.dir / "amphome"))
    if (e.path().filename() == "events.jsonl") ++logs;
  CHECK(logs == 1);
}

TEST_CASE("--format jsonl shows every event of a whole tool loop") {
  Scratch s;
  auto r = run_amplifier({"run", "--format", "jsonl", "list the files"}, s.options());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto events = parse_jsonl(r.out);
  auto names = event_names(events);
  REQUIRE(!events.empty());
  std::string session_id(events.front().at("session_id").as_string());
  for (auto &e : events) {
    CHECK(e.contains("data"));
    CHECK(e.contains("ts"));
    CHECK(e.at("session_id").as_string() == session_id);
  }
  CHECK(count_of(names, "session:start") == 1);
  CHECK(count_of(names, "provider:request") == 2);  // tool call, then the answer
  for (auto name : {"prompt:submit", "content_block:start", "content_block:delta",
                    "content_block:end", "provider:response", "tool:pre", "tool:post",
                    "execution:start", "execution:end", "orchestrator:complete", "session:end"})
    CHECK_MESSAGE(count_of(names, name) >= 1, name);
  CHECK(index_of(names, "tool:pre") < index_of(names, "tool:post"));
  CHECK(index_of(names, "session:start") < index_of(names, "prompt:submit"));
  CHECK(names.back() == "session:end");
}

TEST_CASE("a long answer comes out whole, byte for byte, in every event and line that carries it") {
  // 300 KB with quotes, backslashes, newlines, a control character and UTF-8: long enough that
  // each step writes it spliced (json_text.hpp) and --format jsonl writes its lines in pieces.
  std::string answer;
  for (int i = 0; answer.size() < 300000; ++i)
    answer += "line " + std::to_string(i) + ": \"quoted\" back\\slash \x01 ünïcödé 🙂\n";
  const std::string thinking(20000, 't');
  Scratch s;
  // JSON is YAML: the plan carries the answer exactly as boost::json quotes it.
  boost::json::object mock{{"chunk_size", 4096},
                           {"responses", boost::json::array{boost::json::object{
                                             {"thinking", thinking}, {"signature", "sig=="},
                                             {"text", answer}}}}};
  auto plan = s.write(
      "plan.json",
      boost::json::serialize(boost::json::object{
          {"session", boost::json::object{{"orchestrator", "loop-basic"}, {"context", "context-simple"}}},
          {"providers", boost::json::array{boost::json::object{{"module", "provider-mock"},
                                                                {"config", mock}}}}}));
  auto jsonl = run_amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "go"}, s.options());
  INFO(jsonl.err);
  REQUIRE(jsonl.exit_code == 0);
  std::size_t carried = 0;
  for (const auto &event : parse_jsonl(jsonl.out)) {
    const auto &name = event.at("event").as_string();
    const auto &data = event.at("data").as_object();
    if (name == "content_block:end" && data.at("block").at("type") == "text") {
      CHECK(data.at("block").at("text").as_string() == answer);
      ++carried;
    } else if (name == "content_block:end") {
      CHECK(data.at("block").at("thinking").as_string() == thinking);
      CHECK(data.at("block").at("signature").as_string() == "sig==");
    } else if (name == "execution:end" || name == "prompt:complete") {
      CHECK(data.at("response").as_string() == answer);
      ++carried;
    }
  }
  CHECK(carried == 3);
  auto text = run_amplifier({"run", "--plan", plan.string(), "go"}, s.options());
  REQUIRE(text.exit_code == 0);
  // Text output shows control characters instead of obeying them: compare around them.
  const std::string last_line = answer.substr(answer.rfind("line "), 12);
  CHECK(text.out.find("line 0: \"quoted\" back\\slash ") != std::string::npos);
  CHECK(text.out.find(last_line) != std::string::npos);
}

TEST_CASE("the allocator follows the operator's environment, never a cloned repository's files") {
  Scratch s;
  // A cloned repository in the working folder tries to set malloc variables through files.
  fs::create_directories(s.dir / "repo" / ".amplifier");
  s.write("repo/.env", "MALLOC_ARENA_MAX=8\n");
  s.write("repo/.amplifier/keys.env", "MALLOC_ARENA_MAX=8\nGLIBC_TUNABLES=glibc.malloc.arena_max=8\n");
  auto o = s.options();
  o.working_dir = (s.dir / "repo").string();
  o.unset_env.push_back("MALLOC_ARENA_MAX");
  o.unset_env.push_back("GLIBC_TUNABLES");
  auto tuned = run_amplifier({"-v", "run", "hello"}, o);
  INFO(tuned.err);
  REQUIRE(tuned.exit_code == 0);
  CHECK(tuned.err.find("allocator: one arena for one session") != std::string::npos);
  // The operator's environment wins.
  o.env.emplace_back("MALLOC_ARENA_MAX", "4");
  auto kept = run_amplifier({"-v", "run", "hello"}, o);
  REQUIRE(kept.exit_code == 0);
  CHECK(kept.err.find("allocator: the operator's MALLOC_ARENA_MAX kept") != std::string::npos);
}

TEST_CASE("a prompt can come from standard input") {
  Scratch s;
  auto o = s.options();
  o.stdin_text = "echo this back please\n";
  auto plan = s.write("plan.yaml", "session: {orchestrator: loop-basic, context: context-simple}\n"
                                   "providers: [{module: provider-mock}]\n");
  auto r = run_amplifier({"run", "--plan", plan.string(), "-"}, o);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("echo this back please") != std::string::npos);
}

TEST_CASE("bad input gives one clear line and a failing exit code") {
  Scratch s;
  SUBCASE("empty prompt") {
    auto r = run_amplifier({"run", "  "}, s.options());
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("prompt is empty") != std::string::npos);
  }
  SUBCASE("YAML syntax error names file, line and column") {
    auto plan = s.write("broken.yaml", "session:\n  orchestrator: [loop-basic\n");
    auto r = run_amplifier({"run", "--plan", plan.string(), "hi"}, s.options());
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("broken.yaml:") != std::string::npos);
  }
  SUBCASE("a --route the plan's routing lacks names the roles it has") {
    auto plan = s.write("routed.yaml",
                        "session: {orchestrator: loop-basic, context: context-simple}\n"
                        "providers: [{module: provider-mock}]\n"
                        "routing: {default: [provider-mock]}\n");
    auto r = run_amplifier({"run", "--plan", plan.string(), "--route", "fast", "hi"}, s.options());
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("route 'fast'") != std::string::npos);
    CHECK(r.err.find("its roles: default") != std::string::npos);
    auto ok = run_amplifier({"run", "--plan", plan.string(), "--route", "default", "hi"}, s.options());
    CHECK(ok.exit_code == 0);
  }
  SUBCASE("a missing orchestrator is fatal") {
    auto plan = s.write("plan.yaml", "session: {orchestrator: no-such-loop, context: context-simple}\n");
    auto r = run_amplifier({"run", "--plan", plan.string(), "hi"}, s.options());
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("no-such-loop") != std::string::npos);
    CHECK(r.err.find("not found") != std::string::npos);
  }
}

TEST_CASE("a missing tool module is announced, and the session still runs") {
  Scratch s;
  auto plan = s.write("plan.yaml", "session: {orchestrator: loop-basic, context: context-simple}\n"
                                   "providers: [{module: provider-mock}]\n"
                                   "tools: [{module: tool-does-not-exist}]\n");
  auto r = run_amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "hi"}, s.options());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("tool-does-not-exist") != std::string::npos);
  auto names = event_names(parse_jsonl(r.out));
  CHECK(count_of(names, "module:load_failed") == 1);
}

TEST_CASE("modules list shows every built module with kind, version and ABI") {
  Scratch s;
  auto r = run_amplifier({"modules", "list"}, s.options());
  REQUIRE(r.exit_code == 0);
  for (auto id : {"provider-mock", "loop-basic", "context-simple", "tool-filesystem", "hooks-logging"})
    CHECK_MESSAGE(r.out.find(id) != std::string::npos, id);
  CHECK(r.out.find("provider") != std::string::npos);
  CHECK(r.out.find("1.0") != std::string::npos);

  auto o = s.options();
  o.env.emplace_back("AMPLIFIER_MODULE_PATH", AMP_TEST_MODULE_DIR);
  auto broken = run_amplifier({"modules", "list", "--json"}, o);
  CHECK(broken.exit_code == 0);  // broken files are reported, not fatal
  auto rows = boost::json::parse(broken.out).as_array();
  bool saw_error = false, saw_c_module = false;
  for (auto &row : rows) {
    if (row.as_object().contains("error")) saw_error = true;
    if (auto *id = row.as_object().if_contains("id"); id && id->as_string() == "tool-c-echo")
      saw_c_module = true;
  }
  CHECK(saw_error);
  CHECK(saw_c_module);
}

TEST_CASE("plan check validates shape and modules, naming every problem") {
  Scratch s;
  auto good = s.write("good.yaml", "session: {orchestrator: loop-basic, context: context-simple}\n"
                                   "providers: [{module: provider-mock}]\n");
  auto r = run_amplifier({"plan", "check", good.string()}, s.options());
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("ok") != std::string::npos);

  auto bad = s.write("bad.yaml", "session:\n"
                                 "  orchestrator: loop-basic\n"
                                 "  context: context-simple\n"
                                 "providers:\n"
                                 "  - module: tool-filesystem\n"
                                 "tools:\n"
                                 "  - module: nothing-here\n");
  r = run_amplifier({"plan", "check", bad.string()}, s.options());
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("bad.yaml:5:") != std::string::npos);  // wrong kind, on its line
  CHECK(r.err.find("tool module") != std::string::npos);
  CHECK(r.err.find("bad.yaml:7:") != std::string::npos);  // not found, on its line
  CHECK(r.err.find("nothing-here") != std::string::npos);
  CHECK(r.err.find("2 problem") != std::string::npos);
}

TEST_CASE("run: escape sequences in the model's text are shown, not obeyed") {
  Scratch s;
  for (const std::string loop : {"loop-streaming", "loop-basic"}) {
    CAPTURE(loop);
    auto plan = s.write(
        "plan-" + loop + ".yaml",
        "session: {orchestrator: " + loop + ", context: context-simple}\n"
        "providers:\n"
        "  - module: provider-mock\n"
        "    config: {chunk_size: 3, responses: [{text: \"H\\xe9llo \\e]52;c;cm0gLXJmIH4=\\a "
        "w\\xf6rld\\e[2A\\e[2K\\r\\t\\u2713\"}]}\n");
    auto r = run_amplifier({"run", "--plan", plan.string(), "hi"}, s.options());
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find('\a') == std::string::npos);
    CHECK(r.out.find('\r') == std::string::npos);
    CHECK(r.out.find("Héllo ^[]52;c;cm0gLXJmIH4=^G wörld^[[2A^[[2K^M\t✓") != std::string::npos);
  }
}
