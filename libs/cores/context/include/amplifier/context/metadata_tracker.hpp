// The summary a persisting context keeps beside its history (session_store::SessionMetadata:
// counts, the first prompt's preview, the provider last used, the degradations recorded).
// context-persistent writes it to metadata.json, context-postgres to a jsonb column; which
// changes matter, and how, is decided here once.
//
// THREADS: not thread-safe; stores call it under the engine's lock.
#pragma once
#include "amplifier/context/provider_adaptation.hpp"
#include "amplifier/session_store.hpp"

#include <optional>
#include <string>
#include <vector>

namespace amplifier::context {

class MetadataTracker {
 public:
  MetadataTracker(std::string session_id, std::optional<std::string> parent_id);

  const session_store::SessionMetadata &metadata() const noexcept { return metadata_; }

  // The labels a new session is created with (SessionIdentity::labels).
  void set_labels(boost::json::object labels) { metadata_.labels = std::move(labels); }
  // Takes over what a resume read back (nullopt: nothing), keeping this session's id and,
  // when the saved one has none, this session's parent and labels. `first_timestamp` stands
  // in for a missing creation time.
  void adopt(std::optional<session_store::SessionMetadata> saved,
             const std::optional<std::string> &first_timestamp);
  // The history is the truth: the counts (and the preview) are taken again from it.
  void recount(const std::vector<Entry> &entries);
  // One more message. Returns true when it is a user message (a new turn: worth saving).
  bool count(const boost::json::value &message);
  // Returns true when the provider or model changed.
  bool select_provider(const transcript::Origin &target);
  // Returns true when a degradation not recorded yet was added.
  bool add_degradations(const transcript::Origin &target,
                        const std::vector<Degradation> &degradations);
  // Sets `created` (when unset) and `updated` to now.
  void touch();

  // Who wrote the session, per its metadata: the origin of messages that carry none.
  std::optional<transcript::Origin> writer() const;

 private:
  session_store::SessionMetadata metadata_;
};

}  // namespace amplifier::context
