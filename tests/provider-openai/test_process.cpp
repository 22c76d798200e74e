// The real `amplifier` binary with mount-plans/openai.yaml and azure-openai.yaml, pointed at
// the loopback server through the environment the plans read.
#include "openai_test_support.hpp"
#include "process.hpp"

using namespace openai_test;

namespace {

const std::string kAmplifier = AMP_BINARY_DIR "/host/amplifier";

amp_test::ProcessResult run_plan(std::string_view plan, const amp_test::TempDir &scratch,
                                 std::vector<std::pair<std::string, std::string>> env) {
  amp_test::ProcessOptions options;
  options.working_dir = scratch.path().string();
  options.env = {{"HOME", scratch.path().string()},
                 {"AMPLIFIER_HOME", (scratch / "amphome").string()}};
  for (auto &entry : env) options.env.push_back(std::move(entry));
  options.unset_env = {
      "AMPLIFIER_MODULE_PATH", "HTTP_PROXY",         "HTTPS_PROXY",          "http_proxy",
      "https_proxy",           "OPENAI_API_VERSION", "AZURE_OPENAI_AD_TOKEN"};
  return amp_test::run_process(
      {kAmplifier, "run", "--plan", AMP_SOURCE_DIR "/mount-plans/" + std::string(plan), "--format",
       "jsonl", "What is (12 + 7) * 3 * 10?"},
      options);
}

std::vector<json::object> jsonl(const std::string &out) {
  std::vector<json::object> lines;
  for (const auto &line : amp_test::lines_of(out)) lines.push_back(json::parse(line).as_object());
  return lines;
}

}  // namespace

TEST_CASE("amplifier run --plan mount-plans/openai.yaml: the recorded tool loop end to end") {
  loopback::LoopbackServer server;
  for (const auto &stream :
       ndjson_streams("openai_responses_stream_reasoning_tool_loop_recorded_vercel.ndjson"))
    server.enqueue(sse_body(stream));
  amp_test::TempDir scratch("amp-openai-process");
  const auto result = run_plan(
      "openai.yaml", scratch,
      {{"OPENAI_API_KEY", "sk-process-test"}, {"OPENAI_BASE_URL", server.base_url() + "/v1"}});
  INFO("stderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  std::size_t reasoning_ends = 0;
  std::string answer;
  for (const auto &line : jsonl(result.out)) {
    if (line.at("event") == "content_block:end" &&
        line.at("data").at("block").at("type") == "reasoning")
      ++reasoning_ends;
    if (line.at("event") == "prompt:complete") answer = line.at("data").at("response").as_string();
  }
  CHECK(reasoning_ends == 1);
  CHECK(answer == "The final result is **570**.");
  REQUIRE(server.requests().size() == 4);
  CHECK(server.requests()[0].header("authorization") == "Bearer sk-process-test");
  CHECK(request_body(server.requests()[0]).at("model") == "gpt-5.1");
  CHECK(result.out.find("sk-process-test") == std::string::npos);
}

TEST_CASE(
    "amplifier run --plan mount-plans/azure-openai.yaml: endpoint, key and deployment from "
    "the environment") {
  loopback::LoopbackServer server;
  server.enqueue(sse_body(fixture("openai_responses_stream_docs.sse")));
  amp_test::TempDir scratch("amp-azure-process");
  const auto result = run_plan("azure-openai.yaml", scratch,
                               {{"AZURE_OPENAI_ENDPOINT", server.base_url()},
                                {"AZURE_OPENAI_API_KEY", "azure-process-key"},
                                {"AZURE_OPENAI_DEPLOYMENT", "team-gpt"}});
  INFO("stderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  const auto sent = server.requests().at(0);
  CHECK(sent.target == "/openai/v1/responses");
  CHECK(sent.header("api-key") == "azure-process-key");
  CHECK(request_body(sent).at("model") == "team-gpt");
  CHECK(result.out.find("Hi there! How can I assist you today?") != std::string::npos);
  CHECK(result.out.find("azure-process-key") == std::string::npos);
}
