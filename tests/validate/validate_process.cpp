#include "validate_process.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

namespace amp_validate_test {

amp_test::ProcessResult run_amplifier(const std::vector<std::string> &args) {
  static amp_test::TempDir home("amp-validate-test");
  amp_test::ProcessOptions options;
  options.env = {{"HOME", home.path().string()},
                 {"AMPLIFIER_HOME", home.path().string()},
                 {"XDG_DATA_HOME", (home.path() / "data").string()},
                 {"XDG_CONFIG_HOME", (home.path() / "config").string()}};
  options.unset_env = {"AMPLIFIER_MODULE_PATH", "ANTHROPIC_API_KEY", "OPENAI_API_KEY",
                       "GEMINI_API_KEY",        "GOOGLE_API_KEY",    "AZURE_OPENAI_API_KEY"};
  options.timeout = std::chrono::seconds(240);
  std::vector<std::string> argv{kAmplifier};
  argv.insert(argv.end(), args.begin(), args.end());
  return amp_test::run_process(argv, options);
}

Report validate(const std::vector<std::string> &args) {
  std::vector<std::string> full{"module", "validate"};
  full.insert(full.end(), args.begin(), args.end());
  full.insert(full.end(), {"--format", "json"});
  Report report;
  report.process = run_amplifier(full);
  INFO("stderr: " << report.process.err);
  boost::json::value parsed = boost::json::parse(report.process.out);
  REQUIRE(parsed.is_array());
  for (const auto &row : parsed.get_array()) {
    REQUIRE(row.is_object());
    const auto &o = row.get_object();
    REQUIRE(o.at("check").is_string());
    REQUIRE(o.at("status").is_string());
    REQUIRE(o.at("reason").is_string());
    std::string name(o.at("check").get_string());
    REQUIRE_MESSAGE(!report.checks.contains(name), "check listed twice: " << name);
    report.order.push_back(name);
    report.checks[name] = {std::string(o.at("status").get_string()),
                           std::string(o.at("reason").get_string())};
  }
  return report;
}

std::vector<std::string> module_files(const std::string &dir) {
  std::vector<std::string> files;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".so") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace amp_validate_test
