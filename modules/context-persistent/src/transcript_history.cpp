#include "transcript_history.hpp"

#include <filesystem>
#include <stdexcept>

namespace context_persistent {
namespace json = boost::json;
namespace fs = std::filesystem;
namespace store = amplifier::session_store;
namespace transcript = amplifier::transcript;
using amplifier::context::Entry;

TranscriptHistory::TranscriptHistory(amp::sdk::Host host, store::SessionFiles files,
                                     std::string session_id, std::optional<std::string> parent_id,
                                     bool fsync, transcript::ReadLimits read_limits)
    : host_(host),
      files_(std::move(files)),
      sync_(fsync ? transcript::TranscriptWriter::Sync::each_line
                  : transcript::TranscriptWriter::Sync::none),
      read_limits_(read_limits),
      summary_(std::move(session_id), std::move(parent_id)) {}

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
    throw std::runtime_error("session " + summary_.metadata().session_id +
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
  summary_.adopt(std::move(saved), first_timestamp);
  summary_.recount(session.entries);

  session.skipped = std::move(loaded.skipped);
  session.torn_tail = loaded.torn_tail;
  session.legacy_records = loaded.legacy_records;
  session.writer = summary_.writer();
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
}

void TranscriptHistory::save_metadata() {
  summary_.touch();
  store::write_metadata(files_.metadata, summary_.metadata(), durable());
}

void TranscriptHistory::append(const Entry &entry) {
  const bool first_write = !writer_;
  open_for_writing();
  writer_->append(transcript::encode_line(entry.message, entry.origin, store::utc_timestamp_now()));
  const bool new_turn = summary_.count(entry.message);
  if (first_write || new_turn) save_metadata();
}

void TranscriptHistory::replace(const std::vector<Entry> &entries) {
  open_for_writing();
  const std::string now = store::utc_timestamp_now();
  // Written line by line: the history is not held a second time as one text.
  transcript::FileReplacement replacement(files_.transcript, durable());
  for (const Entry &entry : entries) {
    replacement.append(transcript::encode_line(entry.message, entry.origin, now));
  }
  replacement.commit();
  summary_.recount(entries);
  // The rename put a new file in place: appends must go to it, not the old one.
  writer_ = std::make_unique<transcript::TranscriptWriter>(files_.transcript, sync_);
  save_metadata();
}

void TranscriptHistory::provider_selected(const transcript::Origin &target) {
  if (summary_.select_provider(target) && writer_) save_metadata();  // else with the first message
}

void TranscriptHistory::degraded(const transcript::Origin &target,
                                 const std::vector<amplifier::Degradation> &degradations) {
  if (summary_.add_degradations(target, degradations) && writer_) save_metadata();
}

}  // namespace context_persistent
