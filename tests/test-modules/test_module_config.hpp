// A test module's config object, read with fallbacks (for the test modules that link
// Boost.JSON; the others keep test_module_support.hpp free of it).
#pragma once
#include <boost/json/parse.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace amp_test {

class TestConfig {
 public:
  explicit TestConfig(std::string_view config_json) {
    boost::json::error_code ec;
    auto parsed = boost::json::parse(config_json, ec);
    if (!ec && parsed.is_object()) values_ = std::move(parsed.get_object());
  }
  std::string text(std::string_view key, std::string fallback = {}) const {
    auto *v = values_.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : fallback;
  }
  std::int64_t integer(std::string_view key, std::int64_t fallback) const {
    auto *v = values_.if_contains(key);
    return v && v->is_int64() ? v->get_int64() : fallback;
  }

 private:
  boost::json::object values_;
};

}  // namespace amp_test
