#include "amplifier/context/persisting_context.hpp"

#include "amplifier/context/events.hpp"

#include <boost/json/serialize.hpp>

namespace amplifier::context {
namespace json = boost::json;

namespace {

constexpr std::string_view kCapability = "session.transcript";

amp_status announce_transcript_events(void *, amp_writer *out) noexcept {
  amp::sdk::write_to(out, json::serialize(json::array{event::kTranscriptLoaded}));
  return AMP_OK;
}

json::object repairs_json(const RepairReport &repairs) {
  return json::object{{"synthetic_tool_results", repairs.synthetic_tool_results},
                      {"closing_messages", repairs.closing_messages},
                      {"dropped_tool_results", repairs.dropped_tool_results}};
}

}  // namespace

PersistingContext::PersistingContext(amp::sdk::Host host, const BudgetSettings &budget,
                                     HistoryStore *store, std::string_view module_id)
    : ContextModule(host), engine_(host, budget, store) {
  host.contribute("observability.events", module_id, &announce_transcript_events, nullptr);
}

void PersistingContext::session_ready() {
  if (!loaded_event_) return;
  try {
    (void)host().emit(event::kTranscriptLoaded, json::serialize(*loaded_event_));
  } catch (const std::exception &e) {
    host().warn(std::string("cannot emit context:transcript_loaded: ") + e.what());
  }
}

json::object PersistingContext::resume(std::vector<Entry> loaded,
                                       std::optional<transcript::Origin> writer) {
  engine_.set_fallback_origin(std::move(writer));
  const std::size_t read = loaded.size();
  Repair repair = repair_for_resume(std::move(loaded));
  engine_.load(std::move(repair.history));
  // The closing repairs are facts about the previous process: recorded like any message.
  for (const json::value &message : repair.tail) engine_.add_message(json::serialize(message));
  return json::object{{"messages_read", read},
                      {"messages", engine_.size()},
                      {"repairs", repairs_json(repair.report)}};
}

void PersistingContext::register_transcript(json::object where, const std::string &session_id,
                                            bool resumed) {
  where["session_id"] = session_id;
  where["resumed"] = resumed;
  where["messages"] = engine_.size();
  if (host().capability_register(kCapability, json::serialize(where)) != AMP_OK)
    host().warn("cannot register the session.transcript capability");
}

}  // namespace amplifier::context
