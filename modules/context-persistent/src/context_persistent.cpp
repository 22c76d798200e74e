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
// "resumed","messages"} so the host can tell that the session persists and was resumed (the
// resume, the event and the capability are libs/cores/context's PersistingContext).
#include "persistent_config.hpp"
#include "transcript_history.hpp"

#include "amplifier/context/persisting_context.hpp"
#include "amplifier/context/session_identity.hpp"
#include "amplifier/session_store.hpp"

namespace context_persistent {
namespace {

namespace json = boost::json;
namespace ctx = amplifier::context;
namespace store = amplifier::session_store;

json::array skipped_json(const std::vector<amplifier::transcript::SkippedLine> &skipped) {
  json::array out;
  for (const auto &line : skipped)
    out.push_back(json::object{{"line", line.line}, {"reason", line.reason}});
  return out;
}

class PersistentContext final : public ctx::PersistingContext {
 public:
  PersistentContext(amp::sdk::Host host, std::string_view config_json)
      : PersistentContext(host, read_config(host, config_json), ctx::session_identity(host)) {}

 private:
  PersistentContext(amp::sdk::Host host, const PersistentConfig &config,
                    ctx::SessionIdentity identity)
      : PersistingContext(host, config.budget, &history_, "context-persistent"),
        history_(host, store::session_files(config.store_dir, identity.session_id),
                 identity.session_id, identity.parent_id, config.fsync, config.read_limits) {
    history_.set_labels(identity.labels);
    const bool resumed = history_.exists();
    if (resumed) resume_transcript();
    register_transcript(json::object{{"store_dir", config.store_dir.string()},
                                     {"transcript", history_.files().transcript.string()}},
                        identity.session_id, resumed);
  }

  void resume_transcript() {
    LoadedSession loaded = history_.load();
    for (const auto &line : loaded.skipped)
      host().warn(history_.files().transcript.string() + ": line " + std::to_string(line.line) +
                  ": " + line.reason);
    json::object event = resume(std::move(loaded.entries), loaded.writer);
    event["transcript"] = history_.files().transcript.string();
    event["legacy_messages"] = loaded.legacy_records;
    event["skipped_lines"] = skipped_json(loaded.skipped);
    event["torn_tail"] = loaded.torn_tail;
    event["discarded_tail_bytes"] = loaded.discarded_tail_bytes;
    announce_loaded(std::move(event));
  }

  TranscriptHistory history_;
};

}  // namespace
}  // namespace context_persistent

AMP_DEFINE_MODULE(context_persistent::PersistentContext, "context-persistent", "0.1.0",
                  "Conversation context persisted as a crash-safe JSONL transcript; resumable");
