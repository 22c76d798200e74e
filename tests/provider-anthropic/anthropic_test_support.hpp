// Helpers for the provider-anthropic tests, on top of the shared vendor-test helpers
// (tests/support/vendor_test_support.hpp): the plan and config every suite starts from.
#pragma once
#include "kernel_calls.hpp"
#include "temp_files.hpp"
#include "vendor_test_support.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace anthropic_test {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A fresh directory with one file, marker.txt, for tools to find.
class TempDir : public amp_test::TempDir {
 public:
  TempDir() : amp_test::TempDir("amp-anthropic") {
    amp_test::write_file(*this / "marker.txt", "marker\n");
  }
  std::string path() const { return amp_test::TempDir::path().string(); }
};

// A plan with loop-basic, context-simple and provider-anthropic (config as JSON) plus `rest`.
inline std::string anthropic_plan(const json::object &provider_config,
                                  const std::string &rest = {}) {
  return "session:\n  orchestrator: loop-basic\n  context: context-simple\nproviders:\n"
         "  - module: provider-anthropic\n    config: " +
         json::serialize(provider_config) + "\n" + rest;
}

// The provider config the tests start from: the loopback server, a test key, quick retries.
inline json::object loopback_config(const std::string &base_url) {
  return json::object{{"base_url", base_url},           {"api_key", "test-key"},
                      {"default_model", "claude-test"}, {"min_retry_delay", 0.01},
                      {"max_retry_delay", 0.05},        {"max_retries", 2}};
}

using amp_test::CallRecorder;
using amp_test::chat_request;
using amp_test::EventRecorder;
using amp_test::fixture;
using amp_test::fixture_json;
using amp_test::LogCapture;
using amp_test::open_session;
using amp_test::read_file;
using amp_test::recorded_error;
using amp_test::sse_payloads;

// Every anthropic_* fixture with the given extension, sorted by name.
inline std::vector<std::string> fixtures_with(std::string_view extension) {
  return amp_test::fixtures_with("anthropic_", extension);
}

// One provider call started directly, recorded.
inline std::shared_ptr<CallRecorder> complete(amplifier::Session &session,
                                              const json::value &request,
                                              std::string_view provider = "provider-anthropic") {
  return amp_test::complete(session, provider, request);
}

inline json::object user_request(std::string_view prompt) {
  return json::object{
      {"messages", json::array{json::object{{"role", "user"}, {"content", prompt}}}}};
}

}  // namespace anthropic_test
