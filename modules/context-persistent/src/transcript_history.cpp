#include "transcript_history.hpp"

#include "amplifier/context/message_json.hpp"

#include <filesystem>
#include <stdexcept>

namespace context_persistent {
namespace json = boost::json;
namespace fs = std::filesystem;
namespace store = amplifier::session_store;
namespace transcript = amplifier::transcript;
using amplifier::context::Entry;

namespace {

constexpr std::size_t kPreviewChars = 80;

std::optional<transcript::Origin> writer_of(const store::SessionMetadata &metadata) {
  if (!metadata.provider) return std::nullopt;
  return transcript::Origin{*metadata.provider, metadata.provider_module, metadata.model};
}

std::string user_text(const json::value &message) {
  try {
    return amplifier::from_json<amplifier::Message>(message).text();
  } catch (const amplifier::ModelError &) {  // stored messages are validated; no preview then
    return {};
  }
}

bool same_degradation(const amplifier::Degradation &a, const amplifier::Degradation &b) {
  return a.feature == b.feature && a.extra.if_contains("provider") && b.extra.if_contains("provider") &&
         a.extra.at("provider") == b.extra.at("provider");
}

}  // namespace

TranscriptHistory::TranscriptHistory(amp::sdk::Host host, store::SessionFiles files,
                                     std::string session_id, std::optional<std::string> parent_id,
                                     bool fsync, transcript::ReadLimits read_limits)
    : host_(host),
      files_(std::move(files)),
      sync_(fsync ? transcript::TranscriptWriter::Sync::each_line
                  : transcript::TranscriptWriter::Sync::none),
      read_limits_(read_limits) {
  metadata_.session_id = std::move(session_id);
  metadata_.parent_id = std::move(parent_id);
}

// Runs inside the module's destroy, which must not call the host except to log.
TranscriptHistory::~TranscriptHistory() {
  if (!writer_) return;
  try {
    save_metadata();
  } catch (const std::exception &e) {
    host_.warn(std::string("could not save the session metadata at the end: ") + e.what());
  }
}

bool TranscriptHistory::exists() const {
  std::error_code error;
  return fs::is_regular_file(files_.transcript, error);
}

void TranscriptHistory::lock_session() {
  if (lock_) return;
  lock_ = store::SessionLock::try_acquire(files_.directory);
  if (!lock_)
    throw std::runtime_error("session " + metadata_.session_id +
                             " is in use by another process (" + files_.directory.string() + ")");
}

LoadedSession TranscriptHistory::load() {
  lock_session();
  // Streamed straight into the entries: the history is in memory once, never beside the file.
  LoadedSession session;
  std::optional<std::string> first_timestamp;
  transcript::Transcript loaded = transcript::read_transcript(
      files_.transcript,
      [&](transcript::Record &&record) {
        if (session.entries.empty()) first_timestamp = record.timestamp;
        session.entries.push_back(Entry{std::move(record.message), std::move(record.origin)});
        return true;
      },
      read_limits_);
  std::optional<store::SessionMetadata> saved;
  try {
    saved = store::read_metadata(files_.metadata);
  } catch (const std::exception &e) {
    host_.warn(std::string("the session metadata cannot be read and is rebuilt: ") + e.what());
  }
  const std::string session_id = metadata_.session_id;
  const std::optional<std::string> parent_id = metadata_.parent_id;
  if (saved) metadata_ = std::move(*saved);
  metadata_.session_id = session_id;
  if (!metadata_.parent_id) metadata_.parent_id = parent_id;
  if (metadata_.created.empty())
    metadata_.created =
        session.entries.empty() ? store::utc_timestamp_now() : first_timestamp.value_or("");

  session.skipped = std::move(loaded.skipped);
  session.torn_tail = loaded.torn_tail;
  session.legacy_records = loaded.legacy_records;
  session.writer = writer_of(metadata_);
  // The transcript is the truth: the counts are taken again from it.
  metadata_.message_count = 0;
  metadata_.turn_count = 0;
  for (const Entry &entry : session.entries) count_message(entry.message);
  writer_ = std::make_unique<transcript::TranscriptWriter>(files_.transcript, sync_);
  session.discarded_tail_bytes = writer_->discarded_tail_bytes();
  return session;
}

// A new session touches the disk only with its first message, so a session that never
// stores anything (a denied prompt) leaves no empty directory behind.
void TranscriptHistory::open_for_writing() {
  if (writer_) return;
  fs::create_directories(files_.directory);
  lock_session();
  writer_ = std::make_unique<transcript::TranscriptWriter>(files_.transcript, sync_);
  if (metadata_.created.empty()) metadata_.created = store::utc_timestamp_now();
}

void TranscriptHistory::count_message(const json::value &message) {
  ++metadata_.message_count;
  if (amplifier::context::role_of(message) != "user") return;
  ++metadata_.turn_count;
  if (!metadata_.preview) {
    std::string preview = store::one_line_preview(user_text(message), kPreviewChars);
    if (!preview.empty()) metadata_.preview = std::move(preview);
  }
}

void TranscriptHistory::save_metadata() {
  metadata_.updated = store::utc_timestamp_now();
  store::write_metadata(files_.metadata, metadata_, durable());
}

void TranscriptHistory::append(const Entry &entry) {
  const bool first_write = !writer_;
  open_for_writing();
  writer_->append(transcript::encode_line(entry.message, entry.origin, store::utc_timestamp_now()));
  count_message(entry.message);
  if (first_write || amplifier::context::role_of(entry.message) == "user") save_metadata();
}

void TranscriptHistory::replace(const std::vector<Entry> &entries) {
  open_for_writing();
  const std::string now = store::utc_timestamp_now();
  metadata_.message_count = 0;
  metadata_.turn_count = 0;
  // Written line by line: the history is not held a second time as one text.
  transcript::FileReplacement replacement(files_.transcript, durable());
  for (const Entry &entry : entries) {
    replacement.append(transcript::encode_line(entry.message, entry.origin, now));
    count_message(entry.message);
  }
  replacement.commit();
  // The rename put a new file in place: appends must go to it, not the old one.
  writer_ = std::make_unique<transcript::TranscriptWriter>(files_.transcript, sync_);
  save_metadata();
}

void TranscriptHistory::provider_selected(const transcript::Origin &target) {
  if (metadata_.provider == target.provider && metadata_.provider_module == target.module &&
      metadata_.model == target.model)
    return;
  metadata_.provider = target.provider;
  metadata_.provider_module = target.module;
  metadata_.model = target.model;
  if (writer_) save_metadata();  // otherwise written with the first message
}

void TranscriptHistory::degraded(const transcript::Origin &target,
                                 const std::vector<amplifier::Degradation> &degradations) {
  bool added = false;
  for (amplifier::Degradation degradation : degradations) {
    degradation.extra["provider"] = target.provider;
    bool known = false;
    for (const auto &recorded : metadata_.degradations)
      known = known || same_degradation(recorded, degradation);
    if (known) continue;
    metadata_.degradations.push_back(std::move(degradation));
    added = true;
  }
  if (added && writer_) save_metadata();
}

}  // namespace context_persistent
