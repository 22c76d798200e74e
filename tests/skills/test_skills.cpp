// Agent Skills through the real `amplifier` binary: what the model is shown before and after it
// loads a skill, where skills are found, and who may say where to look.
#include "client_plan.hpp"
#include "host_process.hpp"

#include "amplifier/mount_plan.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <fstream>

namespace fs = std::filesystem;
namespace json = boost::json;
using amp_host_test::run_amplifier;
using amp_host_test::Scratch;

namespace {

const char *kPdfSkill = R"(---
name: pdf-tools
description: Extract text and tables from PDF files. Use when the user mentions PDFs.
allowed-tools: Bash, Read
---
# PDF tools

Run scripts/extract.py on the file, then read reference.md for table layouts.
)";

std::vector<std::string> lines_of(const fs::path &file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A plan whose model loads `skill` (when not empty), recording what it is sent.
std::string plan(const Scratch &s, const std::string &skill, const std::string &session_extra = "") {
  const std::string call = skill.empty() ? "{text: done}" : "{tool_calls: [{name: skill, input: {name: " + skill + "}}]}";
  return "session:\n  orchestrator: loop-basic\n  context: context-simple\n" + session_extra +
         "providers:\n  - module: provider-mock\n    config: {record_requests: '" + (s.dir / "requests.jsonl").string() +
         "', responses: [" + call + "]}\ntools:\n  - module: tool-skills\n";
}

}  // namespace

TEST_CASE("the skill tool lists names and descriptions only; loading one gives its instructions and its files") {
  Scratch s;
  const fs::path skill = s.dir / "home" / ".config" / "amplifier" / "skills" / "pdf-tools";
  s.write("home/.config/amplifier/skills/pdf-tools/SKILL.md", kPdfSkill);
  s.write("home/.config/amplifier/skills/pdf-tools/scripts/extract.py", "print('x')\n");
  s.write("home/.config/amplifier/skills/pdf-tools/reference.md", "tables\n");
  s.write("home/.config/amplifier/skills/pdf-tools/.hidden", "not listed\n");
  s.write("plan.yaml", plan(s, "pdf-tools"));
  const auto run = run_amplifier({"run", "--plan", "plan.yaml", "read the pdf"}, s.options());
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const auto requests = lines_of(s.dir / "requests.jsonl");
  REQUIRE(requests.size() == 2);
  // Before: the name and the description, in the tool's description; not the instructions.
  CHECK(requests[0].find("- pdf-tools: Extract text and tables from PDF files.") != std::string::npos);
  CHECK(requests[0].find("Run scripts/extract.py") == std::string::npos);
  // After: the instructions, the folder and its files (no hidden ones), and the tools it names.
  const std::string &loaded = requests[1];
  CHECK(loaded.find("<skill name=\\\"pdf-tools\\\" folder=\\\"" + skill.string() + "\\\">") != std::string::npos);
  CHECK(loaded.find("Run scripts/extract.py on the file") != std::string::npos);
  CHECK(loaded.find("- reference.md") != std::string::npos);
  CHECK(loaded.find("- scripts/extract.py") != std::string::npos);
  CHECK(loaded.find(".hidden") == std::string::npos);
  CHECK(loaded.find("description: Extract") == std::string::npos);  // the front matter is not shown
  CHECK(loaded.find("names the tools it expects: Bash Read") != std::string::npos);
}

TEST_CASE("a project's skills count only in a trusted folder; .claude/skills only with claude: true; a broken one is named") {
  Scratch s;
  s.write(".amplifier/skills/release-notes/SKILL.md",
          "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nUse git log.\n");
  s.write(".claude/skills/claude-style/SKILL.md",
          "---\nname: claude-style\ndescription: A skill kept for Claude Code.\n---\nStyle.\n");
  s.write("home/.config/amplifier/skills/broken/SKILL.md", "---\nname: Broken Name\ndescription: x\n---\n");
  s.write("plan.yaml", plan(s, "", "  skills: {claude: true}\n"));

  auto untrusted = run_amplifier({"run", "--plan", "plan.yaml", "go"}, s.options());
  INFO(untrusted.err);
  REQUIRE(untrusted.exit_code == 0);
  CHECK(untrusted.err.find(".amplifier/skills ignored: its folder is not trusted") != std::string::npos);
  CHECK(untrusted.err.find(".claude/skills ignored: its folder is not trusted") != std::string::npos);
  CHECK(untrusted.err.find("broken/SKILL.md: 'name' must be 1 to 64 lower-case letters, digits and '-' (got 'Broken Name')") !=
        std::string::npos);
  // No skill yet: the tool says so.
  CHECK(lines_of(s.dir / "requests.jsonl").at(0).find("No skills are installed for this session.") != std::string::npos);
  fs::remove(s.dir / "requests.jsonl");

  // A model with the file tools could turn a trusted project's skill into a link to anything.
  s.write("elsewhere/leak/SKILL.md", "---\nname: leak\ndescription: SECRET-CONTENT\n---\nsecret\n");
  fs::create_directory_symlink(s.dir / "elsewhere" / "leak", s.dir / ".amplifier" / "skills" / "leak");

  REQUIRE(run_amplifier({"trust", s.dir.string()}, s.options()).exit_code == 0);
  const auto trusted = run_amplifier({"run", "--plan", "plan.yaml", "go"}, s.options());
  REQUIRE(trusted.exit_code == 0);
  CHECK(trusted.err.find("leak: a symbolic link in a project folder; skipped") != std::string::npos);
  std::string request = lines_of(s.dir / "requests.jsonl").at(0);
  CHECK(request.find("- release-notes: Write release notes") != std::string::npos);
  CHECK(request.find("- claude-style: A skill kept for Claude Code.") != std::string::npos);
  CHECK(request.find("SECRET-CONTENT") == std::string::npos);
  fs::remove(s.dir / "requests.jsonl");

  s.write("plan.yaml", plan(s, ""));  // without claude: true
  REQUIRE(run_amplifier({"run", "--plan", "plan.yaml", "go"}, s.options()).exit_code == 0);
  request = lines_of(s.dir / "requests.jsonl").at(0);
  CHECK(request.find("release-notes") != std::string::npos);
  CHECK(request.find("claude-style") == std::string::npos);
}

TEST_CASE("a serve client's plan cannot name folders to read skills from") {
  const amplifier::MountPlan plan = amplifier::parse_mount_plan(
      "session:\n  orchestrator: loop-basic\n  context: context-simple\n  skills: {paths: [/etc]}\n", "client");
  const auto refusals = amplifier::host::serve::client_plan_refusals(plan, {"loop-basic", "context-simple"});
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0] == "session.skills: only the operator sets it");
}
