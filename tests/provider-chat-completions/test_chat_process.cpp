// The real `amplifier` binary with mount-plans/chat-completions.yaml, pointed at the loopback
// server through the environment the plan reads.
#include "chat_test_support.hpp"
#include "process.hpp"

using namespace chat_test;

TEST_CASE("amplifier run --plan mount-plans/chat-completions.yaml against a loopback server") {
  loopback::LoopbackServer server;
  std::string sse = delta_chunk({{"role", "assistant"}, {"content", ""}});
  sse += delta_chunk({{"reasoning_content", "Short thought."}});
  sse += delta_chunk({{"content", "Hello from "}});
  sse += delta_chunk({{"content", "the local model."}});
  sse += delta_chunk({}, "stop") + usage_chunk(9, 6) + kDone;
  server.enqueue(sse_body(sse));
  amp_test::TempDir scratch("amp-chat-process");
  amp_test::ProcessOptions options;
  options.working_dir = scratch.path().string();
  options.env = {{"HOME", scratch.path().string()},
                 {"AMPLIFIER_HOME", (scratch / "amphome").string()},
                 {"CHAT_BASE_URL", server.base_url() + "/v1"},
                 {"CHAT_API_KEY", "local-key"},
                 {"CHAT_MODEL", "qwen3-8b"}};
  options.unset_env = {"AMPLIFIER_MODULE_PATH", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy",
                       "https_proxy"};
  const auto result = amp_test::run_process(
      {AMP_BINARY_DIR "/host/amplifier", "run", "--plan",
       AMP_SOURCE_DIR "/mount-plans/chat-completions.yaml", "--format", "jsonl", "hi"},
      options);
  INFO("stderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.find(R"("response":"Hello from the local model.")") != std::string::npos);
  CHECK(result.out.find(R"("thinking":"Short thought.")") != std::string::npos);
  CHECK(result.out.find("local-key") == std::string::npos);
  const auto sent = server.requests().at(0);
  CHECK(sent.header("authorization") == "Bearer local-key");
  CHECK(request_body(sent).at("model") == "qwen3-8b");
}
