// context-simple: the conversation in memory, shaped for each request by the shared context
// engine (amplifier/context/context_engine.hpp): provider adaptation, token budget and staged
// compaction with context:pre_compact / context:post_compact events.
//
// Messages are validated with the model library but stored as the JSON they arrived as, so
// nothing the model does not know (extra fields, block types) is lost and what get_messages
// returns is byte-for-byte what was added (legacy-shaped messages are converted to content
// blocks on the way in).
//
// THREADS: every function may run concurrently; the engine's mutex guards the history.
#include "amplifier/context/budget_settings.hpp"
#include "amplifier/context/context_engine.hpp"
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier_sdk.hpp"

#include <string>

namespace context_simple {
namespace {

namespace ctx = amplifier::context;
namespace ms = amplifier::module_support;

ctx::BudgetSettings read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "context-simple config");
  ctx::BudgetSettings settings = ctx::read_budget_settings(reader);
  reader.warn_unknown_keys(host);
  return settings;
}

class SimpleContext final : public amp::sdk::ContextModule {
 public:
  SimpleContext(amp::sdk::Host host, std::string_view config_json)
      : ContextModule(host), engine_(host, read_config(host, config_json)) {}

  void add_message(std::string_view message_json) override { engine_.add_message(message_json); }
  std::string get_messages() override { return engine_.messages_json(); }
  std::string get_messages_for_request(std::string_view request_json) override {
    return engine_.messages_for_request(request_json);
  }
  void set_messages(std::string_view messages_json) override { engine_.set_messages(messages_json); }
  void clear() override { engine_.clear(); }

 private:
  ctx::ContextEngine engine_;
};

}  // namespace
}  // namespace context_simple

AMP_DEFINE_MODULE(context_simple::SimpleContext, "context-simple", "0.2.0",
                  "In-memory conversation context (lossless, thread-safe, compacts requests)");
