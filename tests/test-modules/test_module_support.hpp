// Pieces shared by the deliberately broken test modules. Header-only and private to each
// module library (every module is its own .so with hidden symbols).
#pragma once
#include "amplifier_sdk.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace amp_test {

// A tool module that offers no tools. The misbehaving modules whose fault lies in their
// descriptor or entry point use it as their (otherwise correct) body.
class NoToolsModule : public amp::sdk::ToolModule {
 public:
  NoToolsModule(amp::sdk::Host host, std::string_view) : ToolModule(host) {}
  std::string list_tools() override { return "[]"; }
  void execute(amp_call_id call, std::string_view tool, std::string_view) override {
    host().call_fail(call, "not_found", "no tool named " + std::string(tool), AMP_NOT_FOUND);
  }
};

// A ChatResponse with one text block and no tool calls, in the unified message format.
inline std::string text_response_json(std::string_view text) {
  const std::string quoted = amp::sdk::json_quote(text);
  return R"({"content":[{"type":"text","text":)" + quoted +
         R"(}],"tool_calls":[],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2},)"
         R"("finish_reason":"end_turn"})";
}

// A stream event carrying `text` as a delta of block 0.
inline std::string text_delta_event_json(std::string_view text) {
  return R"({"type":"content_block_delta","index":0,"delta":{"type":"text","text":)" +
         amp::sdk::json_quote(text) + "}}";
}

// ProviderInfo for a test provider.
inline std::string provider_info_json(std::string_view id) {
  return R"({"id":)" + amp::sdk::json_quote(id) + R"(,"display_name":)" +
         amp::sdk::json_quote(id) +
         R"(,"credential_env_vars":[],"capabilities":["streaming"],"defaults":{},)"
         R"("config_fields":[]})";
}

}  // namespace amp_test

namespace amp_test {

// Whether a fault meant to happen once should happen now: true the first time for `marker`
// (a file it then creates), false once the file exists. An empty marker faults every time.
// A file, not memory: the fault must not repeat in the process that replaces a crashed one.
inline bool fault_now(const std::string &marker) {
  if (marker.empty()) return true;
  if (std::FILE *existing = std::fopen(marker.c_str(), "r")) {
    std::fclose(existing);
    return false;
  }
  if (std::FILE *created = std::fopen(marker.c_str(), "w")) std::fclose(created);
  return true;
}

// Dies of SIGSEGV: an unmapped address that is not null, so no compiler turns it into a trap.
[[noreturn]] inline void segfault_now() {
  volatile std::uintptr_t address = 16;
  *reinterpret_cast<volatile int *>(address) = 1;
  __builtin_unreachable();
}

}  // namespace amp_test
