// tool-filesystem's glob and grep through a real Session over a real tree: patterns, order,
// hidden entries, links out of the root, binary files and the caps.
#include "filesystem_test_support.hpp"

using namespace fstest;

namespace {

// root/ holds a small source tree; outside/ (reachable only through the dir_out link) holds
// files that must never show up.
struct Tree : Workspace {
  Tree() {
    write_file(root / "README.md", "# Title\nSee main.cpp\n");
    write_file(root / "src/main.cpp", "int main() {\n  return helper();  // TODO later\n}\n");
    write_file(root / "src/util/helper.cpp", "int helper() { return 42; }\n// todo: tidy\n");
    write_file(root / "src/util/helper.hpp", "int helper();\n");
    write_file(root / ".hidden/config.txt", "TODO hidden\n");
    write_file(root / "data.bin", std::string("TODO\0binary", 11));
    write_file(outside / "leak.cpp", "TODO leaked\n");
  }
};

std::string lines(std::initializer_list<std::string_view> items) {
  std::string out;
  for (auto item : items) out += std::string(item) + "\n";
  return out;
}

}  // namespace

TEST_CASE("glob matches recursively with **, sorted, relative to the working directory") {
  Tree ws;
  auto session = open_session(ws.plan());
  CHECK(run(*session, "glob", json::object{{"pattern", "**/*.cpp"}}).output ==
        lines({"src/main.cpp", "src/util/helper.cpp"}));
  CHECK(run(*session, "glob", json::object{{"pattern", "src/**/*.{cpp,hpp}"}}).output ==
        lines({"src/main.cpp", "src/util/helper.cpp", "src/util/helper.hpp"}));
  CHECK(run(*session, "glob", json::object{{"pattern", "*"}}).output ==
        lines({"README.md", "data.bin", "dir_out/", "notes.txt", "src/"}));
  CHECK(run(*session, "glob", json::object{{"pattern", "src/*"}}).output == lines({"src/main.cpp", "src/util/"}));
  CHECK(run(*session, "glob", json::object{{"pattern", "*.hpp"}, {"path", "src/util"}}).output ==
        lines({"src/util/helper.hpp"}));
  CHECK(run(*session, "glob", json::object{{"pattern", "src/util/helper.?pp"}}).output ==
        lines({"src/util/helper.cpp", "src/util/helper.hpp"}));
  CHECK(run(*session, "glob", json::object{{"pattern", "[a-m]*"}}).output == lines({"data.bin", "dir_out/"}));
}

TEST_CASE("glob leaves hidden entries out unless named and never follows a link out") {
  Tree ws;
  auto session = open_session(ws.plan());
  const std::string everything = run(*session, "glob", json::object{{"pattern", "**"}}).output;
  CHECK(everything.find(".hidden") == std::string::npos);
  CHECK(everything.find("leak") == std::string::npos);
  CHECK(everything.find("src/util/helper.hpp\n") != std::string::npos);
  CHECK(run(*session, "glob", json::object{{"pattern", ".hidden/*"}}).output == lines({".hidden/config.txt"}));
  CHECK(run(*session, "glob", json::object{{"pattern", "**/*.cpp"}}).output.find("leak") == std::string::npos);
  CHECK(run(*session, "glob", json::object{{"pattern", "*.none"}}).output == "No paths match '*.none' in .\n");
}

TEST_CASE("glob refuses patterns and paths that leave the roots") {
  Tree ws;
  auto session = open_session(ws.plan());
  run_failing(*session, "glob", json::object{{"pattern", "../outside/*"}}, "may not contain '.' or '..'");
  run_failing(*session, "glob", json::object{{"pattern", "/etc/*"}}, "must be relative");
  run_failing(*session, "glob", json::object{{"pattern", "{src,..}/*"}}, "may not contain '.' or '..'");
  run_failing(*session, "glob", json::object{{"pattern", "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}"}},
              "'pattern' the pattern expands to more than 256 alternatives");
  run_failing(*session, "glob", json::object{{"pattern", "*"}, {"path", "dir_out"}}, "Access denied");
  run_failing(*session, "glob", json::object{{"pattern", "*"}, {"path", ".."}}, "Access denied");
  run_failing(*session, "glob", json::object{{"pattern", "*"}, {"path", "notes.txt"}}, "is not a directory");
  run_failing(*session, "glob", json::object{}, "missing required property 'pattern'");
}

TEST_CASE("glob caps the listing and says how much was left out") {
  Tree ws;
  for (int i = 0; i < 1010; ++i) write_file(ws.root / "many" / ("f" + std::to_string(10000 + i) + ".txt"), "");
  auto session = open_session(ws.plan());
  const std::string output = run(*session, "glob", json::object{{"pattern", "many/*.txt"}}).output;
  CHECK(output.starts_with("many/f10000.txt\nmany/f10001.txt\n"));
  CHECK(output.ends_with("many/f10999.txt\n... (10 more matches not shown; narrow the pattern)\n"));
}

TEST_CASE("grep returns file:line:text for matching lines, files in sorted order") {
  Tree ws;
  auto session = open_session(ws.plan());
  auto todo = run(*session, "grep", json::object{{"pattern", "TODO"}});
  CHECK(todo.success);
  CHECK(todo.output == lines({"src/main.cpp:2:  return helper();  // TODO later",
                              "(skipped: 1 binary file(s), 0 file(s) over 16777216 bytes)"}));
  CHECK(run(*session, "grep", json::object{{"pattern", "todo"}, {"case_insensitive", true}, {"path", "src"}}).output ==
        lines({"src/main.cpp:2:  return helper();  // TODO later", "src/util/helper.cpp:2:// todo: tidy"}));
  CHECK(run(*session, "grep", json::object{{"pattern", R"(helper\(\))"}, {"glob", "*.hpp"}}).output ==
        lines({"src/util/helper.hpp:1:int helper();"}));
  CHECK(run(*session, "grep", json::object{{"pattern", "^int"}, {"glob", "src/util/*.cpp"}}).output ==
        lines({"src/util/helper.cpp:1:int helper() { return 42; }"}));
  CHECK(run(*session, "grep", json::object{{"pattern", "\\d+"}, {"path", "src/util/helper.cpp"}}).output ==
        lines({"src/util/helper.cpp:1:int helper() { return 42; }"}));
  CHECK(run(*session, "grep", json::object{{"pattern", "main"}, {"glob", "*.{md,txt}"}}).output ==
        lines({"README.md:2:See main.cpp"}));
}

TEST_CASE("grep never searches through a link out of the root, nor hidden folders") {
  Tree ws;
  auto session = open_session(ws.plan());
  const std::string output = run(*session, "grep", json::object{{"pattern", "leaked|hidden"}}).output;
  CHECK(output.starts_with("No lines match /leaked|hidden/ in .\n"));
  run_failing(*session, "grep", json::object{{"pattern", "TODO"}, {"path", "dir_out"}}, "Access denied");
  run_failing(*session, "grep", json::object{{"pattern", "TODO"}, {"path", "dir_out/leak.cpp"}}, "Access denied");
  // Named explicitly, a hidden folder is searched.
  CHECK(run(*session, "grep", json::object{{"pattern", "TODO"}, {"path", ".hidden"}}).output ==
        lines({".hidden/config.txt:1:TODO hidden"}));
}

TEST_CASE("grep reports bad patterns and missing paths, and caps long results") {
  Tree ws;
  std::string many;
  for (int i = 1; i <= 300; ++i) many += "match " + std::to_string(i) + "\n";
  write_file(ws.root / "many.txt", many);
  write_file(ws.root / "long.txt", std::string(500, 'x') + "needle\n");
  auto session = open_session(ws.plan());
  run_failing(*session, "grep", json::object{{"pattern", "(unclosed"}}, "Invalid regular expression '(unclosed'");
  run_failing(*session, "grep", json::object{{"pattern", "x"}, {"path", "ghost"}}, "Path not found: ghost");
  run_failing(*session, "grep", json::object{{"pattern", "x"}, {"path", 7}}, "input.path: expected string");

  const std::string capped = run(*session, "grep", json::object{{"pattern", "^match"}, {"path", "many.txt"}}).output;
  CHECK(capped.starts_with("many.txt:1:match 1\n"));
  CHECK(capped.find("many.txt:250:match 250\n... (stopped at 250 matches") != std::string::npos);
  CHECK(capped.find("match 251") == std::string::npos);

  const std::string cut = run(*session, "grep", json::object{{"pattern", "needle"}, {"path", "long.txt"}}).output;
  CHECK(cut == "long.txt:1:" + std::string(300, 'x') + "... [line cut: 506 bytes]\n");
}

TEST_CASE("glob and grep announce what they searched with artifact:read") {
  Tree ws;
  auto session = open_session(ws.plan());
  EventRecorder reads(*session, "artifact:read");
  run(*session, "glob", json::object{{"pattern", "*.md"}});
  run(*session, "grep", json::object{{"pattern", "x"}, {"path", "src"}});
  const auto events = reads.events();
  REQUIRE(events.size() == 2);
  CHECK(events[0].at("tool") == "glob");
  CHECK(text_of(events[0].at("path")) == ws.root.string());
  CHECK(events[1].at("tool") == "grep");
  CHECK(text_of(events[1].at("path")) == (ws.root / "src").string());
}
