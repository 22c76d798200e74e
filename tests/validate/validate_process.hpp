// Runs the real `amplifier module validate` and reads its JSON report.
#pragma once
#include "process.hpp"
#include "temp_files.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <map>
#include <string>
#include <vector>

namespace amp_validate_test {

inline const std::string kAmplifier = AMP_BINARY_DIR "/host/amplifier";
inline const std::string kModuleDir = AMP_MODULE_DIR;
inline const std::string kTestModuleDir = AMP_TEST_MODULE_DIR;

struct Check {
  std::string status;  // pass | fail | skip
  std::string reason;
};

struct Report {
  amp_test::ProcessResult process;
  std::vector<std::string> order;       // check names, as listed
  std::map<std::string, Check> checks;  // by name
};

// `amplifier module validate <args...> --format json`, with its own HOME and no module path
// from the environment. Fails the test when the output is not the JSON report.
Report validate(const std::vector<std::string> &args);

// The raw process, for usage errors and the text format.
amp_test::ProcessResult run_amplifier(const std::vector<std::string> &args);

// Every built module file in `dir`.
std::vector<std::string> module_files(const std::string &dir);

}  // namespace amp_validate_test
