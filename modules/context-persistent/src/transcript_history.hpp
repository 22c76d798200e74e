// One session's files (transcript.jsonl and metadata.json) as the engine's HistoryStore.
//
// The transcript is the truth and only ever grows, one line per message, each line written
// with one write(2) (fdatasync'ed when configured). set_messages/clear, the only changes that
// are not appends, rewrite it atomically. The metadata is a summary, rewritten atomically
// (temp file, fsync, rename; the fsyncs only when configured) when it changes meaningfully: on
// creation, at each user message, when the provider or model changes, when a degradation is
// first recorded, and at the end.
//
// The session directory is locked (flock) from the first read or write until destruction, so
// two processes never append to one session; the lock dies with its process.
//
// THREADS: not thread-safe; the engine calls it under its lock.
#pragma once
#include "amplifier/context/context_engine.hpp"
#include "amplifier/context/metadata_tracker.hpp"
#include "amplifier/session_store.hpp"
#include "amplifier/transcript.hpp"
#include "amplifier_sdk.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace context_persistent {

struct LoadedSession {
  std::vector<amplifier::context::Entry> entries;
  std::vector<amplifier::transcript::SkippedLine> skipped;
  bool torn_tail = false;
  std::size_t legacy_records = 0;
  std::uint64_t discarded_tail_bytes = 0;  // the torn tail cut off before appending
  // Who wrote the session, per its metadata: the origin of lines that carry none.
  std::optional<amplifier::transcript::Origin> writer;
};

class TranscriptHistory final : public amplifier::context::HistoryStore {
 public:
  TranscriptHistory(amp::sdk::Host host, amplifier::session_store::SessionFiles files,
                    std::string session_id, std::optional<std::string> parent_id, bool fsync,
                    amplifier::transcript::ReadLimits read_limits);
  ~TranscriptHistory() override;
  TranscriptHistory(const TranscriptHistory &) = delete;
  TranscriptHistory &operator=(const TranscriptHistory &) = delete;

  // The labels the host attached (stored with the metadata, kept as created).
  void set_labels(boost::json::object labels) { summary_.set_labels(std::move(labels)); }
  // True when the session already has a transcript.
  bool exists() const;
  // Locks the session and reads it (every line, converted to the unified shape), ready to
  // append. Throws std::runtime_error when another process has the session open, and
  // transcript::TranscriptLimitError when the transcript is over the read limits.
  LoadedSession load();

  const amplifier::session_store::SessionFiles &files() const noexcept { return files_; }

  void append(const amplifier::context::Entry &entry) override;
  void replace(const std::vector<amplifier::context::Entry> &entries) override;
  void provider_selected(const amplifier::transcript::Origin &target) override;
  void degraded(const amplifier::transcript::Origin &target,
                const std::vector<amplifier::Degradation> &degradations) override;

 private:
  void lock_session();
  void open_for_writing();
  void save_metadata();
  // Whether writes are synced to disk (the `fsync` config), for rewrites as for appends.
  bool durable() const { return sync_ == amplifier::transcript::TranscriptWriter::Sync::each_line; }

  const amp::sdk::Host host_;
  const amplifier::session_store::SessionFiles files_;
  const amplifier::transcript::TranscriptWriter::Sync sync_;
  const amplifier::transcript::ReadLimits read_limits_;
  amplifier::context::MetadataTracker summary_;
  std::optional<amplifier::session_store::SessionLock> lock_;
  std::unique_ptr<amplifier::transcript::TranscriptWriter> writer_;  // null until first write
};

}  // namespace context_persistent
