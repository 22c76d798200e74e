// context-persistent: the conversation of context-simple, kept on disk so a session lasts.
//
// Every message is appended to <store>/<session id>/transcript.jsonl as it is added (one JSON
// line each, see amplifier/transcript.hpp), beside a metadata.json summary. When the host's
// session id (session_info) already has a transcript, the module resumes it: every line is
// read (legacy lines converted to content blocks, a torn last line reported and skipped), the
// conversation is repaired (synthetic results for tool calls the previous process never
// finished, a closing note after an unanswered turn; the repairs are appended like any other
// message) and becomes the history the orchestrator continues from.
//
// It registers the capability "session.transcript" = {"session_id","store_dir","transcript",
// "resumed","messages"} so the host can tell that the session persists and was resumed.
#include "persistent_config.hpp"
#include "transcript_history.hpp"

#include "amplifier/context/context_engine.hpp"
#include "amplifier/context/events.hpp"
#include "amplifier/context/resume_repair.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/session_store.hpp"

#include <boost/json/serialize.hpp>

namespace context_persistent {
namespace {

namespace json = boost::json;
namespace ctx = amplifier::context;
namespace store = amplifier::session_store;
namespace ms = amplifier::module_support;

constexpr std::string_view kCapability = "session.transcript";

struct SessionIdentity {
  std::string session_id;
  std::optional<std::string> parent_id;
};

SessionIdentity identity_of(const amp::sdk::Host &host) {
  const json::object info = ms::parse_json_object(host.session_info(), "session_info");
  auto field = [&](std::string_view key) -> std::string {
    const json::value *value = info.if_contains(key);
    return value && value->is_string() ? std::string(value->get_string()) : std::string();
  };
  SessionIdentity identity{field("session_id"), field("parent_id")};
  if (identity.parent_id->empty()) identity.parent_id.reset();
  return identity;
}

json::array skipped_json(const std::vector<amplifier::transcript::SkippedLine> &skipped) {
  json::array out;
  for (const auto &line : skipped) out.push_back(json::object{{"line", line.line}, {"reason", line.reason}});
  return out;
}

amp_status announce_events(void *, amp_writer *out) noexcept {
  amp::sdk::write_to(out, json::serialize(json::array{ctx::event::kTranscriptLoaded}));
  return AMP_OK;
}

class PersistentContext final : public amp::sdk::ContextModule {
 public:
  PersistentContext(amp::sdk::Host host, std::string_view config_json)
      : PersistentContext(host, read_config(host, config_json), identity_of(host)) {}

  // Every hook is mounted by now, so hooks modules see the event too. An observation: a
  // failure to emit it must not fail the session.
  void session_ready() override {
    if (!loaded_event_) return;
    try {
      (void)host().emit(ctx::event::kTranscriptLoaded, json::serialize(*loaded_event_));
    } catch (const std::exception &e) {
      host().warn(std::string("cannot emit context:transcript_loaded: ") + e.what());
    }
  }

  void add_message(std::string_view message_json) override { engine_.add_message(message_json); }
  std::string get_messages() override { return engine_.messages_json(); }
  std::string get_messages_for_request(std::string_view request_json) override {
    return engine_.messages_for_request(request_json);
  }
  void set_messages(std::string_view messages_json) override { engine_.set_messages(messages_json); }
  void clear() override { engine_.clear(); }

 private:
  PersistentContext(amp::sdk::Host host, const PersistentConfig &config, SessionIdentity identity)
      : ContextModule(host),
        store_dir_(config.store_dir),
        history_(host, store::session_files(config.store_dir, identity.session_id),
                 identity.session_id, identity.parent_id, config.fsync, config.read_limits),
        engine_(host, config.budget, &history_) {
    const bool resumed = history_.exists();
    if (resumed) resume();
    register_capability(identity.session_id, resumed);
    host.contribute("observability.events", "context-persistent", &announce_events, nullptr);
  }

  void resume() {
    LoadedSession loaded = history_.load();
    for (const auto &line : loaded.skipped)
      host().warn(history_.files().transcript.string() + ": line " + std::to_string(line.line) +
                  ": " + line.reason);
    engine_.set_fallback_origin(loaded.writer);
    const std::size_t read = loaded.entries.size();
    ctx::Repair repair = ctx::repair_for_resume(std::move(loaded.entries));
    engine_.load(std::move(repair.history));
    // The closing repairs are facts about the previous process: recorded like any message.
    for (const json::value &message : repair.tail) engine_.add_message(json::serialize(message));
    loaded_event_ = loaded_event(loaded, read, repair.report);
  }

  json::object loaded_event(const LoadedSession &loaded, std::size_t read,
                            const ctx::RepairReport &repairs) const {
    return json::object{
        {"transcript", history_.files().transcript.string()},
        {"messages_read", read},
        {"messages", engine_.size()},
        {"legacy_messages", loaded.legacy_records},
        {"skipped_lines", skipped_json(loaded.skipped)},
        {"torn_tail", loaded.torn_tail},
        {"discarded_tail_bytes", loaded.discarded_tail_bytes},
        {"repairs",
         {{"synthetic_tool_results", repairs.synthetic_tool_results},
          {"closing_messages", repairs.closing_messages},
          {"dropped_tool_results", repairs.dropped_tool_results}}}};
  }

  void register_capability(const std::string &session_id, bool resumed) {
    json::object value{{"session_id", session_id},
                       {"store_dir", store_dir_.string()},
                       {"transcript", history_.files().transcript.string()},
                       {"resumed", resumed},
                       {"messages", engine_.size()}};
    if (host().capability_register(kCapability, json::serialize(value)) != AMP_OK)
      host().warn("cannot register the session.transcript capability");
  }

  const std::filesystem::path store_dir_;
  TranscriptHistory history_;  // declared before the engine, which writes through it
  ctx::ContextEngine engine_;
  std::optional<json::object> loaded_event_;  // emitted once every hook is mounted
};

}  // namespace
}  // namespace context_persistent

AMP_DEFINE_MODULE(context_persistent::PersistentContext, "context-persistent", "0.1.0",
                  "Conversation context persisted as a crash-safe JSONL transcript; resumable");
