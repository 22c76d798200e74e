// The pipe between `amplifier module validate` and the processes that run its checks. The
// child writes one JSON object per line:
//   {"running":"<check>"}                        a check begins (a crash is blamed on it)
//   {"result":{"check","status","reason"}}       a check's outcome
//   {"fact":{...}}                               what later checks need (kind, id, file)
#pragma once
#include "check_result.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace amplifier::host::validate {

class ChildReporter {
 public:
  explicit ChildReporter(int fd) : fd_(fd) {}
  void running(const std::string &check) const;
  void result(const CheckResult &result) const;
  void fact(const boost::json::object &fact) const;

 private:
  void line(const boost::json::object &message) const;
  int fd_;
};

// What the parent read from one child.
struct ChildReport {
  std::vector<CheckResult> results;
  boost::json::object facts;           // every fact, merged
  std::optional<std::string> running;  // the check begun without a result yet, if any
};

// Reads the lines a child wrote (lines that are not protocol objects are ignored).
ChildReport parse_child_output(const std::string &text);

}  // namespace amplifier::host::validate
