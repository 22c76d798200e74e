// `amplifier plan show`: a plan with its includes merged, as YAML that reads back to the same
// plan.
#include "host_process.hpp"

#include <doctest/doctest.h>

#include <regex>
#include <string>

using amp_host_test::run_amplifier;
using amp_host_test::Scratch;

namespace {
std::string without_comments(const std::string &yaml) {
  return std::regex_replace(yaml, std::regex(" *#[^\n]*"), "");
}
}  // namespace

TEST_CASE("plan show prints the merged plan, which loads back to the same plan") {
  Scratch s;
  s.write("base.yaml", R"(session:
  orchestrator: {module: loop-basic, config: {max_iterations: 4}}
  context: context-simple
providers:
  - {module: provider-mock, config: {responses: [{text: "true"}], chunk_size: 3}}
)");
  auto top = s.write("top.yaml", R"(includes: [base.yaml]
session:
  orchestrator: {module: loop-basic, config: {max_iterations: 9}}
tools:
  - {module: tool-filesystem, isolation: process, timeout: 2.5, config: {allowed_read_paths: ["."]}}
)");
  auto o = s.options();
  auto shown = run_amplifier({"plan", "show", top.string()}, o);
  INFO(shown.err);
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("max_iterations: 9") != std::string::npos);
  CHECK(shown.out.find("text: \"true\"") != std::string::npos);  // still a string
  CHECK(shown.out.find("# " + (s.dir / "base.yaml").string() + ":5") != std::string::npos);
  CHECK(shown.out.find("isolation: process") != std::string::npos);
  auto again_file = s.write("shown.yaml", shown.out);
  auto again = run_amplifier({"plan", "show", again_file.string()}, o);
  REQUIRE(again.exit_code == 0);
  CHECK(without_comments(again.out) == without_comments(shown.out));
  CHECK(run_amplifier({"plan", "check", again_file.string()}, o).exit_code == 0);
}
