#include "amplifier/context/metadata_tracker.hpp"

#include "amplifier/context/message_json.hpp"

namespace amplifier::context {
namespace json = boost::json;
namespace store = session_store;

namespace {

constexpr std::size_t kPreviewChars = 80;

std::string user_text(const json::value &message) {
  try {
    return from_json<Message>(message).text();
  } catch (const ModelError &) {  // stored messages are validated; no preview then
    return {};
  }
}

bool same_degradation(const Degradation &a, const Degradation &b) {
  return a.feature == b.feature && a.extra.if_contains("provider") &&
         b.extra.if_contains("provider") && a.extra.at("provider") == b.extra.at("provider");
}

}  // namespace

MetadataTracker::MetadataTracker(std::string session_id, std::optional<std::string> parent_id) {
  metadata_.session_id = std::move(session_id);
  metadata_.parent_id = std::move(parent_id);
}

void MetadataTracker::adopt(std::optional<store::SessionMetadata> saved,
                            const std::optional<std::string> &first_timestamp) {
  std::string session_id = metadata_.session_id;
  std::optional<std::string> parent_id = metadata_.parent_id;
  boost::json::object labels = metadata_.labels;
  if (saved) metadata_ = std::move(*saved);
  metadata_.session_id = std::move(session_id);
  if (!metadata_.parent_id) metadata_.parent_id = std::move(parent_id);
  // A session keeps the labels it was created with (a reopen on another server may attach
  // its own, which do not replace them).
  if (metadata_.labels.empty()) metadata_.labels = std::move(labels);
  if (metadata_.created.empty())
    metadata_.created = first_timestamp.value_or(store::utc_timestamp_now());
}

void MetadataTracker::recount(const std::vector<Entry> &entries) {
  metadata_.message_count = 0;
  metadata_.turn_count = 0;
  for (const Entry &entry : entries) count(entry.message);
}

bool MetadataTracker::count(const json::value &message) {
  ++metadata_.message_count;
  if (role_of(message) != "user") return false;
  ++metadata_.turn_count;
  if (!metadata_.preview) {
    std::string preview = store::one_line_preview(user_text(message), kPreviewChars);
    if (!preview.empty()) metadata_.preview = std::move(preview);
  }
  return true;
}

bool MetadataTracker::select_provider(const transcript::Origin &target) {
  if (metadata_.provider == target.provider && metadata_.provider_module == target.module &&
      metadata_.model == target.model)
    return false;
  metadata_.provider = target.provider;
  metadata_.provider_module = target.module;
  metadata_.model = target.model;
  return true;
}

bool MetadataTracker::add_degradations(const transcript::Origin &target,
                                       const std::vector<Degradation> &degradations) {
  bool added = false;
  for (Degradation degradation : degradations) {
    degradation.extra["provider"] = target.provider;
    bool known = false;
    for (const auto &recorded : metadata_.degradations)
      known = known || same_degradation(recorded, degradation);
    if (known) continue;
    metadata_.degradations.push_back(std::move(degradation));
    added = true;
  }
  return added;
}

void MetadataTracker::touch() {
  metadata_.updated = store::utc_timestamp_now();
  if (metadata_.created.empty()) metadata_.created = metadata_.updated;
}

std::optional<transcript::Origin> MetadataTracker::writer() const {
  if (!metadata_.provider) return std::nullopt;
  return transcript::Origin{*metadata_.provider, metadata_.provider_module, metadata_.model};
}

}  // namespace amplifier::context
