#include "check_result.hpp"

#include <cctype>

namespace amplifier::host::validate {

std::string_view to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::Pass:
      return "PASS";
    case CheckStatus::Fail:
      return "FAIL";
    case CheckStatus::Skip:
      return "SKIP";
  }
  return "FAIL";
}

CheckStatus check_status_from_string(std::string_view text) {
  if (text == "pass" || text == "PASS") return CheckStatus::Pass;
  if (text == "skip" || text == "SKIP") return CheckStatus::Skip;
  return CheckStatus::Fail;
}

boost::json::object to_json(const CheckResult &result) {
  std::string status(to_string(result.status));
  for (auto &c : status) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return {{"check", result.check}, {"status", status}, {"reason", result.reason}};
}

CheckResult check_result_from_json(const boost::json::object &object) {
  auto text = [&](std::string_view key) {
    const auto *v = object.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  return {text("check"), check_status_from_string(text("status")), text("reason")};
}

std::string one_line(std::string_view text, std::size_t max_length) {
  std::string line;
  bool in_space = false;
  for (char c : text) {
    const bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space && (in_space || line.empty())) continue;
    line += space ? ' ' : c;
    in_space = space;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  if (line.size() > max_length) line = line.substr(0, max_length - 3) + "...";
  return line;
}

}  // namespace amplifier::host::validate
