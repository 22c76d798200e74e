// provider-ollama as a provider module: config at mount, completions on the shared call table,
// list_models through GET /api/tags (each model's context window from POST /api/show), and
// the default model's context window in ProviderInfo for the context manager.
//
// THREADS: complete/cancel/list_models/info run concurrently on host threads; the call table
// and the window cache are thread-safe.
#pragma once
#include "ollama_config.hpp"

#include "amplifier/provider/call_table.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace ollama {

// ProviderInfo (exposed for tests); `context_window` when known.
boost::json::object provider_info(const OllamaConfig &config,
                                  std::optional<std::int64_t> context_window);

// The context length POST /api/show reports: model_info["<architecture>.context_length"].
std::optional<std::int64_t> context_length_of(const boost::json::object &show);

class OllamaProvider final : public amp::sdk::ProviderModule {
 public:
  OllamaProvider(amp::sdk::Host host, std::string_view config_json);

  std::string info() override;
  std::string list_models() override;
  void complete(amp_call_id call, std::string_view request_json) override;
  void cancel(amp_call_id call, amp_cancel_level level) override;

 private:
  // POST /api/show for `model`, remembered (a failure for a minute, so a server started later
  // is asked again).
  std::optional<std::int64_t> context_window(const std::string &model);

  std::shared_ptr<const OllamaConfig> config_;
  std::mutex windows_mutex_;
  struct Window {
    std::optional<std::int64_t> tokens;
    std::chrono::steady_clock::time_point asked;
  };
  std::map<std::string, Window> windows_;
  // Last: destroyed first, it cancels and waits for the calls still in flight.
  amplifier::provider::CallTable calls_;
};

}  // namespace ollama
