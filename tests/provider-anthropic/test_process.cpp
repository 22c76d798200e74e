// The real `amplifier` binary with mount-plans/anthropic.yaml, pointed at the loopback server
// through ANTHROPIC_BASE_URL: live content_block:delta lines in --format jsonl, and the exact
// thinking signature in the content_block:end line.
#include "anthropic_test_support.hpp"
#include "process.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <ctime>

using namespace anthropic_test;
namespace loopback = amplifier::loopback;

namespace {

const std::string kAmplifier = AMP_BINARY_DIR "/host/amplifier";
const std::string kPlan = AMP_SOURCE_DIR "/mount-plans/anthropic.yaml";

// Milliseconds since the epoch of an ISO 8601 UTC timestamp "YYYY-MM-DDTHH:MM:SS.mmmZ".
long long epoch_millis(std::string_view ts) {
  const auto field = [&](std::size_t at, std::size_t len) {
    return std::stoi(std::string(ts.substr(at, len)));
  };
  std::tm parts{};
  parts.tm_year = field(0, 4) - 1900;
  parts.tm_mon = field(5, 2) - 1;
  parts.tm_mday = field(8, 2);
  parts.tm_hour = field(11, 2);
  parts.tm_min = field(14, 2);
  parts.tm_sec = field(17, 2);
  return static_cast<long long>(timegm(&parts)) * 1000 + field(20, 3);
}

}  // namespace

TEST_CASE(
    "amplifier run --format jsonl against the loopback server: live deltas, exact signature") {
  const std::string sse = fixture("anthropic_stream_thinking_signature_refusal.sse");
  std::string signature;
  for (const auto &p : sse_payloads(sse))
    if (p.at("type") == "content_block_delta" && p.at("delta").at("type") == "signature_delta")
      signature = std::string(p.at("delta").at("signature").as_string());
  REQUIRE(!signature.empty());

  loopback::LoopbackServer server;
  // Paced pieces: the stream takes a while, so "live" is observable in the timestamps.
  loopback::ScriptedResponse response = loopback::ScriptedResponse::sse(sse, {120});
  response.piece_interval = std::chrono::milliseconds(40);
  server.enqueue(response);

  TempDir scratch;
  amp_test::ProcessOptions options;
  options.working_dir = scratch.path();
  options.env = {{"HOME", scratch.path()},
                 {"AMPLIFIER_HOME", scratch.path() + "/amphome"},
                 {"ANTHROPIC_API_KEY", "test-key"},
                 {"ANTHROPIC_BASE_URL", server.base_url()}};
  options.unset_env = {"AMPLIFIER_MODULE_PATH", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy",
                       "https_proxy"};
  const auto result = amp_test::run_process(
      {kAmplifier, "run", "--plan", kPlan, "--format", "jsonl", "hello"}, options);
  INFO("stderr: " << result.err);
  REQUIRE(result.exit_code == 0);

  std::vector<json::object> lines;
  for (const auto &line : amp_test::lines_of(result.out))
    lines.push_back(json::parse(line).as_object());
  std::vector<std::size_t> delta_lines;
  std::optional<std::size_t> response_line;
  json::object thinking_end;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string event(lines[i].at("event").as_string());
    if (event == "content_block:delta") delta_lines.push_back(i);
    if (event == "llm:response") response_line = i;
    if (event == "content_block:end" && lines[i].at("data").at("block").at("type") == "thinking")
      thinking_end = lines[i].at("data").at("block").as_object();
  }
  REQUIRE(delta_lines.size() >= 4);
  REQUIRE(response_line);
  // Live: the first delta was printed before the response was complete, well before its end.
  CHECK(delta_lines.front() < *response_line);
  const long long first_delta_ms = epoch_millis(lines[delta_lines.front()].at("ts").as_string());
  const long long response_ms = epoch_millis(lines[*response_line].at("ts").as_string());
  CHECK(response_ms - first_delta_ms >= 100);

  CHECK(thinking_end.at("signature").as_string() == signature);
  CHECK(server.requests().at(0).header("x-api-key") == "test-key");
  // The key never reaches the event stream.
  CHECK(result.out.find("test-key") == std::string::npos);
}
