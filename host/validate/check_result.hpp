// The outcome of one conformance check of `amplifier module validate`.
#pragma once
#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace amplifier::host::validate {

enum class CheckStatus { Pass, Fail, Skip };

std::string_view to_string(CheckStatus status);               // "PASS", "FAIL", "SKIP"
CheckStatus check_status_from_string(std::string_view text);  // the inverse; Fail if unknown

struct CheckResult {
  std::string check;  // e.g. "abi-version"
  CheckStatus status = CheckStatus::Fail;
  std::string reason;  // one line
};

inline CheckResult pass(std::string check, std::string reason) {
  return {std::move(check), CheckStatus::Pass, std::move(reason)};
}
inline CheckResult fail(std::string check, std::string reason) {
  return {std::move(check), CheckStatus::Fail, std::move(reason)};
}
inline CheckResult skip(std::string check, std::string reason) {
  return {std::move(check), CheckStatus::Skip, std::move(reason)};
}

// {"check","status","reason"}; status in lower case ("pass", "fail", "skip").
boost::json::object to_json(const CheckResult &result);
CheckResult check_result_from_json(const boost::json::object &object);

// Folds a multi-line text into one line (a reason must stay on its line), shortened to
// `max_length` characters.
std::string one_line(std::string_view text, std::size_t max_length = 400);

}  // namespace amplifier::host::validate
