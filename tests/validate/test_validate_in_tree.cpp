// Every module shipped in build/modules passes every check, behavioral ones included.
#include "validate_process.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <future>

namespace fs = std::filesystem;
using namespace amp_validate_test;

namespace {

const std::vector<std::string> kStructural = {"entry-symbol",  "only-export", "unresolved-symbols",
                                              "loads",         "abi-version", "descriptor-fields",
                                              "file-name",     "table-size",  "required-functions",
                                              "create-destroy"};
const std::vector<std::string> kCalls = {"call-invalid-json", "call-cancel-graceful",
                                         "call-cancel-immediate", "call-concurrent"};

// The checks that must be listed for a module of the kind its id names.
std::vector<std::string> expected_checks(const std::string &id) {
  std::vector<std::string> checks = kStructural;
  auto add = [&](std::vector<std::string> more) {
    checks.insert(checks.end(), more.begin(), more.end());
  };
  if (id.rfind("provider-", 0) == 0) {
    add({"provider-info", "provider-offline"});
    add(kCalls);
  } else if (id.rfind("tool-", 0) == 0) {
    add({"tool-specs", "tool-bad-input"});
    add(kCalls);
  } else if (id.rfind("loop-", 0) == 0) {
    add({"orchestrator-turn"});
    add(kCalls);
  } else if (id.rfind("context-", 0) == 0) {
    add({"context-round-trip", "context-sessions-query"});
  } else if (id.rfind("hooks-", 0) == 0) {
    add({"hook-events"});
  } else {
    FAIL("an in-tree module of a kind this test does not know: " << id);
  }
  return checks;
}

// tool-mcp offers no tools without a server, which would leave its call checks unexercised:
// it is validated with the fake MCP server of tests/mcp (Node, installed with the MCP tests).
std::vector<std::string> validate_args(const std::string &file) {
  std::vector<std::string> args{file, "--behavioral"};
  if (fs::path(file).stem() == "tool-mcp") {
    const std::string config =
        R"({"user_config":false,"project_config":false,"servers":{"fake":)"
        R"({"command":"node","args":[")" AMP_SOURCE_DIR R"(/tests/mcp/fake_server.mjs"]}}})";
    args.insert(args.end(), {"--config", config});
  }
  return args;
}

void check_passes_everything(const std::string &file, const Report &report) {
  const std::string id = fs::path(file).stem().string();
  INFO(id << " stdout: " << report.process.out << "\nstderr: " << report.process.err);
  for (const auto &check : expected_checks(id)) {
    INFO("check " << check);
    REQUIRE(report.checks.contains(check));
    CHECK_MESSAGE(report.checks.at(check).status == "pass", report.checks.at(check).reason);
  }
  CHECK(report.order.size() == expected_checks(id).size());
  CHECK(report.process.exit_code == 0);
}

}  // namespace

TEST_CASE("every in-tree module passes every check, behavioral ones included") {
  auto files = module_files(kModuleDir);
  // context-postgres cannot be created without a database: test_context_postgres validates it,
  // behavioural checks included, against the PostgreSQL server it starts.
  std::erase_if(files,
                [](const std::string &f) { return fs::path(f).stem() == "context-postgres"; });
  REQUIRE(files.size() >= 15);
  // Two validations at a time: each runs its checks one after another.
  for (std::size_t i = 0; i < files.size(); i += 2) {
    std::vector<std::future<Report>> running;
    for (std::size_t j = i; j < std::min(i + 2, files.size()); ++j)
      running.push_back(std::async(std::launch::async,
                                   [file = files[j]] { return validate(validate_args(file)); }));
    for (std::size_t j = 0; j < running.size(); ++j)
      check_passes_everything(files[i + j], running[j].get());
  }
}
