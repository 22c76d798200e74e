// `amplifier module validate FILE.so|ID [--behavioral] [--format text|json]`: the conformance
// kit. Structural checks read the file and the descriptor; behavioral checks mount the module
// on a real kernel and call it. Every group of checks runs in a process of its own (the same
// binary, re-executed with the hidden --internal-group option), so a crash or a hang fails
// the check it happened in and nothing else.
#include "commands.hpp"

#include "check_process.hpp"
#include "validator.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>

namespace amplifier::host {
namespace {

namespace v = validate;

constexpr int kUsageError = 2;

struct ValidateArgs {
  std::string target;
  bool behavioral = false;
  std::string format = "text";
  std::string config_json;
  double timeout_seconds = 30;
  std::string internal_group;  // set only in a check's own process
};

void print_text(const std::vector<v::CheckResult> &results) {
  for (const auto &r : results)
    fmt::print("{} {:<22} {}\n", v::to_string(r.status), r.check, r.reason);
}

void print_json(const std::vector<v::CheckResult> &results) {
  boost::json::array rows;
  for (const auto &r : results) rows.push_back(v::to_json(r));
  fmt::print("{}\n", boost::json::serialize(rows));
}

int usage_error(const std::string &message) {
  fmt::print(stderr, "amplifier: error: {}\n", message);
  return kUsageError;
}

// Reads --config; an error message, or "" when it is a JSON object (or absent).
std::string read_config(const std::string &text, boost::json::object &out) {
  if (text.empty()) return {};
  boost::json::error_code ec;
  auto value = boost::json::parse(text, ec);
  if (ec || !value.is_object()) return "--config must be a JSON object";
  out = std::move(value.as_object());
  return {};
}

int run_validate(const ValidateArgs &args, const std::vector<std::string> &extras) {
  boost::json::object config;
  if (auto problem = read_config(args.config_json, config); !problem.empty())
    return usage_error(problem);
  if (!args.internal_group.empty()) v::run_check_process(args.internal_group, args.target, config);
  if (!extras.empty()) return usage_error("unexpected argument: " + extras.front());
  if (args.target.empty()) return usage_error("module validate needs a FILE.so or a module ID");
  if (args.format != "text" && args.format != "json")
    return usage_error("--format must be text or json, not '" + args.format + "'");
  if (!(args.timeout_seconds > 0)) return usage_error("--timeout must be a positive number");
  std::error_code ec;
  if (v::is_file_target(args.target) && !std::filesystem::is_regular_file(args.target, ec))
    return usage_error("no such module file: " + args.target);

  v::ValidateOptions options{
      args.target, args.behavioral, std::move(config),
      std::chrono::milliseconds(static_cast<long>(args.timeout_seconds * 1000))};
  auto results = v::validate_module(options);
  args.format == "json" ? print_json(results) : print_text(results);
  std::size_t passed = 0, failed = 0;
  for (const auto &r : results) {
    passed += r.status == v::CheckStatus::Pass;
    failed += r.status == v::CheckStatus::Fail;
  }
  fmt::print(stderr, "amplifier: {} checks of {}: {} passed, {} failed, {} skipped\n",
             results.size(), args.target, passed, failed, results.size() - passed - failed);
  return passed == results.size() && !results.empty() ? 0 : 1;
}

}  // namespace

void add_module_validate_command(CLI::App &modules, int &exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App *validate = modules.add_subcommand(
      "validate",
      "Check that a module conforms to the plugin ABI: exports, ABI version, descriptor, "
      "tables, self-description (and, with --behavioral, how it answers calls). One line per "
      "check; exit 0 only when every check passed, 1 otherwise, 2 for usage errors");
  validate->add_option("module", args->target, "The module: a path to a .so, or a module id");
  validate->add_flag("--behavioral", args->behavioral,
                     "Also mount the module on a kernel and call it (cancellation, malformed "
                     "input, 200 concurrent calls, ...)");
  validate->add_option("--format", args->format, "text (default) or json");
  validate->add_option("--config", args->config_json,
                       "The module's config, a JSON object (default {})");
  validate->add_option("--timeout", args->timeout_seconds,
                       "Seconds each group of checks may take before it is killed (default 30)");
  // The entry of a check's own process (see validate/check_process.hpp); not for users.
  validate->add_option("--internal-group", args->internal_group)->group("");
  // Usage errors are reported here (exit 2), not by CLI11's own exit codes.
  validate->allow_extras();
  validate->callback(
      [args, validate, &exit_code] { exit_code = run_validate(*args, validate->remaining()); });
}

}  // namespace amplifier::host
