#include "child_channel.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace amplifier::host::validate {

void ChildReporter::line(const boost::json::object &message) const {
  std::string text = boost::json::serialize(message) + "\n";
  std::string_view rest(text);
  while (!rest.empty()) {
    ssize_t n = ::write(fd_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nobody to tell
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

void ChildReporter::running(const std::string &check) const { line({{"running", check}}); }

void ChildReporter::result(const CheckResult &result) const { line({{"result", to_json(result)}}); }

void ChildReporter::fact(const boost::json::object &fact) const { line({{"fact", fact}}); }

ChildReport parse_child_output(const std::string &text) {
  ChildReport report;
  std::string_view rest(text);
  while (!rest.empty()) {
    auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    boost::json::error_code ec;
    auto value = boost::json::parse(line, ec);
    if (ec || !value.is_object()) continue;
    const auto &object = value.get_object();
    if (auto *running = object.if_contains("running"); running && running->is_string())
      report.running = std::string(running->get_string());
    if (auto *result = object.if_contains("result"); result && result->is_object()) {
      report.results.push_back(check_result_from_json(result->get_object()));
      report.running.reset();
    }
    if (auto *fact = object.if_contains("fact"); fact && fact->is_object())
      for (const auto &[key, v] : fact->get_object()) report.facts[key] = v;
  }
  return report;
}

}  // namespace amplifier::host::validate
