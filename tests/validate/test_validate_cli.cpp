// The command line of `amplifier module validate`: formats, exit codes, module ids.
#include "validate_process.hpp"

#include <doctest/doctest.h>

using namespace amp_validate_test;

TEST_CASE("the JSON report names each check once, in the order of the text report") {
  const std::string file = kTestModuleDir + "/tool-c-echo.so";
  Report report = validate({file});
  REQUIRE(report.order.size() >= 10);
  CHECK(report.order.front() == "entry-symbol");
  auto text = run_amplifier({"module", "validate", file});
  auto lines = amp_test::lines_of(text.out);
  REQUIRE(lines.size() == report.order.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    INFO(lines[i]);
    const auto &check = report.checks.at(report.order[i]);
    std::string status = check.status == "pass" ? "PASS" : check.status == "fail" ? "FAIL" : "SKIP";
    CHECK(lines[i].rfind(status + " " + report.order[i] + " ", 0) == 0);
    CHECK(lines[i].find(check.reason) != std::string::npos);
  }
  CHECK(text.exit_code == report.process.exit_code);
}

TEST_CASE("without --behavioral only the structural checks are listed") {
  Report report = validate({kModuleDir + "/provider-mock.so"});
  CHECK(report.process.exit_code == 0);
  CHECK(report.checks.contains("provider-info"));
  CHECK_FALSE(report.checks.contains("provider-offline"));
  CHECK_FALSE(report.checks.contains("call-concurrent"));
}

TEST_CASE("a module id is resolved the way the host resolves it") {
  Report found = validate({"provider-mock"});
  CHECK(found.process.exit_code == 0);
  REQUIRE(found.checks.contains("resolve"));
  CHECK(found.checks.at("resolve").status == "pass");
  CHECK(found.checks.at("resolve").reason.find("provider-mock.so") != std::string::npos);

  Report missing = validate({"no-such-module"});
  CHECK(missing.process.exit_code == 1);
  CHECK(missing.checks.at("resolve").status == "fail");
  CHECK(missing.order.size() == 1);
}

TEST_CASE("usage errors exit with 2") {
  for (const auto &args : std::vector<std::vector<std::string>>{
           {"module", "validate"},
           {"module", "validate", kModuleDir + "/provider-mock.so", "--format", "xml"},
           {"module", "validate", "/nonexistent/module.so"},
           {"module", "validate", kModuleDir + "/provider-mock.so", "--no-such-option"},
           {"module", "validate", kModuleDir + "/provider-mock.so", "--config", "[1]"}}) {
    auto result = run_amplifier(args);
    INFO(args.back() << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("error") != std::string::npos);
  }
}
