// `amplifier module install | remove | show | list` and `source:` resolution, through the real
// binary: the user module folder (under the test's own HOME), shadowing, AMPLIFIER_MODULE_<ID>,
// a git source built from a real repository, and hostile ids and sources.
#include "host_process.hpp"

#include <boost/json/parse.hpp>
#include "text_checks.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using amp_host_test::run_amplifier;
using amp_host_test::Scratch;
using amp_test::ProcessOptions;

namespace {

const fs::path kTestModules = AMP_TEST_MODULE_DIR;
const fs::path kModules = AMP_MODULE_DIR;

using amp_test::contains;

fs::path user_folder(const Scratch &s) { return s.dir / "home/.local/share/amplifier/modules"; }

// The rows of `module list --json [--all]` whose id is `id`.
std::vector<boost::json::object> listed(const Scratch &s, const std::string &id, bool all = false,
                                        const ProcessOptions *options = nullptr) {
  std::vector<std::string> args{"module", "list", "--json"};
  if (all) args.push_back("--all");
  auto r = run_amplifier(args, options ? *options : s.options());
  REQUIRE(r.exit_code == 0);
  std::vector<boost::json::object> rows;
  const boost::json::value parsed = boost::json::parse(r.out);
  for (auto &row : parsed.as_array()) {
    auto *row_id = row.as_object().if_contains("id");
    if (row_id && row_id->as_string() == id) rows.push_back(row.as_object());
  }
  return rows;
}

// A plan whose mock provider calls `tool` with `input`, then answers "done".
std::string plan_calling(const std::string &tool_yaml, const std::string &tool,
                         const std::string &input) {
  return "session: {orchestrator: loop-basic, context: context-simple}\n"
         "providers:\n"
         "  - module: provider-mock\n"
         "    config: {responses: [{tool_calls: [{name: " +
         tool + ", input: " + input +
         "}]}, {text: done}]}\n"
         "tools:\n  - " +
         tool_yaml + "\n";
}

void git(const Scratch &s, const std::vector<std::string> &args) {
  std::vector<std::string> argv{"git", "-c", "user.name=test", "-c", "user.email=test@localhost"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = amp_test::run_process(argv, s.options());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("module install puts a module in the user folder; list, show, run and remove see it") {
  Scratch s;
  fs::create_directories(s.dir / "download");
  const fs::path download = s.dir / "download/tool-c-echo.so";
  fs::copy_file(kTestModules / "tool-c-echo.so", download);

  auto installed = run_amplifier({"module", "install", download.string()}, s.options());
  INFO(installed.err);
  REQUIRE(installed.exit_code == 0);
  CHECK(contains(installed.out, "installed tool-c-echo"));
  CHECK(fs::is_regular_file(user_folder(s) / "tool-c-echo.so"));

  auto rows = listed(s, "tool-c-echo");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].at("origin").as_string() == "user folder");
  CHECK(rows[0].at("source").as_string() == download.string());

  auto shown = run_amplifier({"module", "show", "tool-c-echo"}, s.options());
  CHECK(shown.exit_code == 0);
  CHECK(contains(shown.out, "found in:    user folder"));
  CHECK(contains(shown.out, "source:      " + download.string()));

  // A plan names the id only: the user folder is on the default search path.
  auto plan = s.write("plan.yaml", plan_calling("module: tool-c-echo", "c_upper", "{text: abc}"));
  auto run =
      run_amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "go"}, s.options());
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK(contains(run.out, "\"output\":\"ABC\""));

  auto removed = run_amplifier({"module", "remove", "tool-c-echo"}, s.options());
  CHECK(removed.exit_code == 0);
  CHECK_FALSE(fs::exists(user_folder(s) / "tool-c-echo.so"));
  CHECK_FALSE(fs::exists(user_folder(s) / "tool-c-echo.source.json"));
  CHECK(listed(s, "tool-c-echo").empty());
  auto again = run_amplifier({"module", "remove", "tool-c-echo"}, s.options());
  CHECK(again.exit_code == 1);
  CHECK(contains(again.err, "not installed"));
}

TEST_CASE("a module found in two places: the user folder wins, --all and show name both") {
  Scratch s;
  auto installed =
      run_amplifier({"module", "install", (kModules / "provider-mock.so").string()}, s.options());
  REQUIRE(installed.exit_code == 0);

  auto rows = listed(s, "provider-mock");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].at("origin").as_string() == "user folder");

  auto all = listed(s, "provider-mock", true);
  REQUIRE(all.size() == 2);
  CHECK(all[0].at("shadowed").as_bool() == false);
  CHECK(all[1].at("origin").as_string() == "built-in");
  CHECK(all[1].at("shadowed").as_bool() == true);

  auto shown = run_amplifier({"module", "show", "provider-mock"}, s.options());
  CHECK(contains(shown.out, "found in:    user folder"));
  CHECK(contains(shown.out, "also in:     " + (kModules / "provider-mock.so").string()));
  CHECK(contains(shown.out, "config fields:"));
}

TEST_CASE("AMPLIFIER_MODULE_<ID> overrides every other place, and says so") {
  Scratch s;
  auto o = s.options();
  o.env.emplace_back("AMPLIFIER_MODULE_TOOL_C_ECHO", (kTestModules / "tool-c-echo.so").string());
  auto shown = run_amplifier({"module", "show", "tool-c-echo"}, o);
  INFO(shown.err);
  CHECK(shown.exit_code == 0);
  CHECK(contains(shown.out, "found in:    AMPLIFIER_MODULE_TOOL_C_ECHO"));
  auto rows = listed(s, "tool-c-echo", false, &o);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].at("origin").as_string() == "AMPLIFIER_MODULE_TOOL_C_ECHO");
}

TEST_CASE("a git source in a plan is fetched, built with the SDK once, and cached by commit") {
  Scratch s;
  const fs::path repo = s.dir / "repo";
  fs::create_directories(repo / "tools");
  fs::copy(fs::path(AMP_SOURCE_DIR) / "examples/tool-c-wordcount", repo / "tools/wordcount",
           fs::copy_options::recursive);
  git(s, {"-C", repo.string(), "init", "-q", "-b", "main"});
  git(s, {"-C", repo.string(), "add", "-A"});
  git(s, {"-C", repo.string(), "commit", "-qm", "wordcount"});

  const std::string source = "git+file://" + repo.string() + "@main#subdirectory=tools/wordcount";
  auto plan =
      s.write("plan.yaml", plan_calling("{module: tool-c-wordcount, source: \"" + source + "\"}",
                                        "wordcount", "{text: \"one two three\"}"));
  const fs::path cache = s.dir / "home/.cache/amplifier/modules";
  // A plan is not the operator: without a terminal to ask at, an untrusted source is refused
  // before anything is fetched or built, and the error says how to trust it.
  auto refused =
      run_amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "go"}, s.options());
  CHECK(contains(refused.err, "is not trusted, so it was not fetched or built"));
  CHECK(contains(refused.err, "amplifier module trust 'git+file://" + repo.string() + "@"));
  CHECK(contains(refused.out, "module:load_failed"));
  CHECK_FALSE(contains(refused.err, "fetching and building"));
  CHECK_FALSE(fs::exists(cache));

  auto trusted = run_amplifier({"module", "trust", source}, s.options());
  INFO(trusted.err);
  REQUIRE(trusted.exit_code == 0);
  CHECK(contains(trusted.out, "trusted: git+file://" + repo.string() +
                                  "#subdirectory=tools/wordcount at commit "));
  auto first =
      run_amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "go"}, s.options());
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(contains(first.out, "\"words\":3"));
  CHECK(contains(first.err, "fetching and building"));
  std::vector<fs::path> cached;
  for (auto &entry : fs::directory_iterator(cache)) cached.push_back(entry.path());
  REQUIRE(cached.size() == 1);
  CHECK(fs::is_regular_file(cached[0] / "tool-c-wordcount.so"));

  auto second =
      run_amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "go"}, s.options());
  CHECK(second.exit_code == 0);
  CHECK(contains(second.out, "\"words\":3"));
  CHECK_FALSE(contains(second.err, "fetching"));

  // A ref that does not exist: the tool is not mounted, and the reason names the ref.
  auto bad_ref = s.write(
      "bad.yaml",
      plan_calling("{module: tool-c-wordcount, source: \"git+file://" + repo.string() + "@nope\"}",
                   "wordcount", "{text: x}"));
  auto failed =
      run_amplifier({"run", "--plan", bad_ref.string(), "--format", "jsonl", "go"}, s.options());
  CHECK(contains(failed.err, "no branch or tag named 'nope'"));
  CHECK(contains(failed.out, "module:load_failed"));

  // A new commit of a trusted repository is a new question: refused, then trusted for this
  // command with --trust-sources (and recorded), then it runs without the flag.
  amp_test::write_file(repo / "tools/wordcount/second.txt", "a second commit\n");
  git(s, {"-C", repo.string(), "add", "-A"});
  git(s, {"-C", repo.string(), "commit", "-qm", "another"});
  auto moved =
      run_amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "go"}, s.options());
  CHECK(contains(moved.err, "is not trusted"));
  auto vouched = run_amplifier(
      {"--trust-sources", "run", "--plan", plan.string(), "--format", "jsonl", "go"}, s.options());
  INFO(vouched.err);
  CHECK(vouched.exit_code == 0);
  CHECK(contains(vouched.out, "\"words\":3"));
  auto listed_sources = run_amplifier({"module", "trust", "--list"}, s.options());
  CHECK(amp_test::lines_of(listed_sources.out).size() == 2);

  // At a terminal (script(1) gives the command one), the operator is asked once per commit;
  // a no refuses, a yes fetches, builds and remembers. The plan's text cannot paint the
  // question: its controls are shown, not obeyed.
  amp_test::write_file(repo / "tools/wordcount/third.txt", "a third commit\n");
  git(s, {"-C", repo.string(), "add", "-A"});
  git(s, {"-C", repo.string(), "commit", "-qm", "third"});
  auto at_terminal = [&](const std::string &answer) {
    ProcessOptions options = s.options();
    options.stdin_text = answer;
    const std::string command = "'" + amp_host_test::kAmplifier + "' run --plan '" +
                                plan.string() + "' --format jsonl go";
    return amp_test::run_process({"script", "-qec", command, "/dev/null"}, options);
  };
  auto declined = at_terminal("n\n");
  CHECK(contains(declined.out, "Trust this source at this commit? [y/N]"));
  CHECK(contains(declined.out, "you answered no"));
  CHECK_FALSE(contains(declined.out, "fetching and building"));
  auto accepted = at_terminal("y\n");
  INFO(accepted.out);
  CHECK(contains(accepted.out, "Trust this source at this commit? [y/N]"));
  CHECK(contains(accepted.out, "\"words\":3"));
  auto remembered =
      run_amplifier({"run", "--plan", plan.string(), "--format", "jsonl", "go"}, s.options());
  CHECK(remembered.exit_code == 0);
  CHECK(contains(remembered.out, "\"words\":3"));

  // module install from the same source: the same cached build.
  auto installed = run_amplifier({"module", "install", source}, s.options());
  INFO(installed.err);
  CHECK(installed.exit_code == 0);
  auto shown = run_amplifier({"module", "show", "tool-c-wordcount"}, s.options());
  CHECK(contains(shown.out, source + " (commit "));
}

TEST_CASE("hostile ids and sources get one clear error line") {
  Scratch s;
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"module", "remove", "../etc"}, "not a valid module id"},
      {{"module", "show", "a/b"}, "not a valid module id"},
      {{"module", "show", "no-such-module"}, "not found"},
      {{"module", "install", (s.dir / "missing.so").string()}, "does not exist"},
      {{"module", "install", "ftp://example.invalid/x.so"}, "unsupported scheme"},
      {{"module", "install", "git+file://" + s.dir.string() + "#subdirectory=../.."},
       "subdirectory must be a relative path inside the repository"},
      {{"module", "install", (kTestModules / "bad-abi-major.so").string()}, "major differs"},
  };
  for (const auto &c : cases) {
    auto r = run_amplifier(c.args, s.options());
    CAPTURE(c.args.back());
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, c.expected));
  }

  // plan check resolves sources as a run would.
  auto plan = s.write("plan.yaml",
                      "session: {orchestrator: loop-basic, context: context-simple}\n"
                      "tools: [{module: tool-x, source: ./not-there}]\n");
  auto checked = run_amplifier({"plan", "check", plan.string()}, s.options());
  CHECK(checked.exit_code == 1);
  CHECK(contains(checked.out + checked.err, "tools[0].module: module 'tool-x': source " +
                                                (s.dir / "not-there").string() + " does not exist"));

  // The working directory is never a search folder, even when AMPLIFIER_MODULE_PATH says ".".
  fs::copy_file(kTestModules / "tool-c-echo.so", s.dir / "tool-c-echo.so");
  auto o = s.options();
  o.env.emplace_back("AMPLIFIER_MODULE_PATH", ".:");
  auto r = run_amplifier({"module", "show", "tool-c-echo"}, o);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "not found"));
  CHECK(contains(r.err, "not an absolute path; ignored"));
}
