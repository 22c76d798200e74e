// Each deliberately broken module fails exactly the checks its fault breaks, and the reason
// names the fault. Every other check it gets passes or is skipped.
#include "validate_process.hpp"

#include <doctest/doctest.h>

#include <future>

using namespace amp_validate_test;

namespace {

struct Expected {
  std::string module;
  std::map<std::string, std::string> failing;  // check -> a text its reason must contain
  std::string config = "{}";                   // --config
};

const std::vector<Expected> kFaults = {
    {"bad-no-entry",
     {{"entry-symbol", "amplifier_module_init"}, {"only-export", "amplifier_module_init"}}},
    {"bad-abi-major", {{"abi-version", "major differs"}}},
    {"bad-entry-null", {{"abi-version", "returned NULL"}}},
    {"abi-minor-future", {{"abi-version", "newer than the host"}}},
    {"bad-null-table", {{"table-size", "missing or too small"}}},
    {"bad-id-mismatch", {{"file-name", "tool-someone-else"}}},
    {"bad-init-fails", {{"create-destroy", "'endpoint' is required"}}},
    {"bad-throws", {{"provider-offline", "the provider exploded"}}},
    {"bad-throws-tool", {{"tool-bad-input", "the tool exploded"}}},
    {"bad-invalid-json",
     {{"provider-offline", "invalid JSON in the result"},
      {"call-invalid-json", "invalid JSON in the result"},
      {"call-cancel-graceful", "invalid JSON in the result"},
      {"call-cancel-immediate", "invalid JSON in the result"},
      {"call-concurrent", "invalid JSON in the result"}}},
    {"bad-double-finish",
     {{"provider-offline", "terminal event"},
      {"call-invalid-json", "terminal event"},
      {"call-cancel-graceful", "terminal event"},
      {"call-cancel-immediate", "terminal event"},
      {"call-concurrent", "terminal event"}}},
    {"bad-late-callback",
     {{"provider-offline", "already finished"},
      {"call-invalid-json", "already finished"},
      {"call-cancel-graceful", "already finished"},
      {"call-cancel-immediate", "already finished"},
      {"call-concurrent", "already finished"}},
     // Reporting 1 ms after the end, not 50: well within the checks' settle time even on a
     // loaded machine, so the test cannot pass by missing the late reports.
     R"({"late_delay_ms":1})"},
    {"bad-extra-export", {{"only-export", "amp_test_leaked_helper"}}},
    {"bad-host-symbol", {{"unresolved-symbols", "readline"}}},
    {"bad-no-version", {{"descriptor-fields", "no version"}}},
    {"bad-null-function", {{"required-functions", "NULL functions (cancel)"}}},
    {"bad-tool-schema", {{"tool-specs", "strng"}}},
    {"bad-provider-info", {{"provider-info", "'password'"}}},
    {"bad-crash-tool",
     {{"tool-bad-input", "SIGSEGV"},
      {"call-invalid-json", "SIGSEGV"},
      {"call-cancel-graceful", "SIGSEGV"},
      {"call-cancel-immediate", "SIGSEGV"},
      {"call-concurrent", "SIGSEGV"}}},
    {"bad-ignores-cancel",
     {{"call-cancel-graceful", "no terminal event"},
      {"call-cancel-immediate", "no terminal event"}}},
    {"bad-ignores-endpoint", {{"provider-offline", "closed port"}}},
    {"bad-hook-result", {{"hook-events", "explode"}}},
    {"bad-context-lossy",
     {{"context-round-trip", "lost or changed"}, {"context-sessions-query", "unknown op"}}},
    {"bad-orchestrator-idle", {{"orchestrator-turn", "Done."}}},
};

void check_fails_as_expected(const Expected &expected, const Report &report) {
  INFO(expected.module << " stdout: " << report.process.out << "\nstderr: " << report.process.err);
  CHECK(report.process.exit_code == 1);
  for (const auto &[check, fault] : expected.failing) {
    INFO("check " << check);
    REQUIRE(report.checks.contains(check));
    CHECK(report.checks.at(check).status == "fail");
    CHECK_MESSAGE(report.checks.at(check).reason.find(fault) != std::string::npos,
                  "the reason does not name the fault (" << fault << ")");
  }
  for (const auto &[check, result] : report.checks)
    if (!expected.failing.contains(check))
      CHECK_MESSAGE(result.status != "fail", check << " failed too: " << result.reason);
}

}  // namespace

TEST_CASE("each misbehaving module fails the checks of its fault, naming it") {
  for (std::size_t i = 0; i < kFaults.size(); i += 2) {
    std::vector<std::future<Report>> running;
    for (std::size_t j = i; j < std::min(i + 2, kFaults.size()); ++j)
      running.push_back(std::async(std::launch::async, [&expected = kFaults[j]] {
        return validate({kTestModuleDir + "/" + expected.module + ".so", "--behavioral", "--config",
                         expected.config});
      }));
    for (std::size_t j = 0; j < running.size(); ++j)
      check_fails_as_expected(kFaults[i + j], running[j].get());
  }
}

TEST_CASE("a crash fails only the check it happened in; the next check still runs") {
  Report report = validate({kTestModuleDir + "/bad-crash-tool.so", "--behavioral"});
  INFO(report.process.out);
  CHECK(report.checks.at("create-destroy").status == "pass");
  CHECK(report.checks.at("tool-specs").status == "pass");
  // Every behavioral check ran in its own process, so each reports its own crash.
  for (const char *check : {"tool-bad-input", "call-concurrent"})
    CHECK(report.checks.at(check).reason.find("crashed with SIGSEGV") != std::string::npos);
}

TEST_CASE("a check that outlives its budget is killed and fails as hung") {
  // The cancel checks wait 5 s for the terminal event bad-ignores-cancel never sends; with a
  // 1 s budget their processes are killed first.
  Report report =
      validate({kTestModuleDir + "/bad-ignores-cancel.so", "--behavioral", "--timeout", "1"});
  INFO(report.process.out);
  CHECK(report.process.exit_code == 1);
  for (const char *check : {"call-cancel-graceful", "call-cancel-immediate"}) {
    CHECK(report.checks.at(check).status == "fail");
    CHECK(report.checks.at(check).reason.find("hung: no result within the 1 s budget") !=
          std::string::npos);
  }
}
