// The session store: where transcripts live, and the files of one session.
//
//   <store>/<session id>/transcript.jsonl   the messages (see transcript.hpp)
//   <store>/<session id>/metadata.json      a summary, rewritten atomically
//
// <store> is the `store_dir` a context module is configured with, else
// $XDG_DATA_HOME/amplifier/sessions, else ~/.local/share/amplifier/sessions. The host and the
// context module both resolve it here, so they always agree on where a session is.
//
// Session ids become directory names, and an id can come from a user (`--resume ID`), so an id
// is accepted only when it is a plain token of letters, digits, '-' and '_' (UUIDs are): no
// '/', no '.', nothing that could steer a path elsewhere.
#pragma once
#include "amplifier/model.hpp"
#include "amplifier/transcript.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::session_store {

inline constexpr std::size_t kMaxSessionIdLength = 128;
inline constexpr std::string_view kTranscriptFileName = "transcript.jsonl";
inline constexpr std::string_view kMetadataFileName = "metadata.json";

bool is_valid_session_id(std::string_view id);
// Throws std::invalid_argument saying what is wrong with `id`.
void check_session_id(std::string_view id);

// $XDG_DATA_HOME/amplifier/sessions when XDG_DATA_HOME is an absolute path (the XDG spec says
// to ignore a relative one), else $HOME/.local/share/amplifier/sessions (HOME, else the
// passwd entry). Throws std::runtime_error when there is no home directory either.
std::filesystem::path default_store_dir();

// The store for a configured `store_dir`: empty means default_store_dir(); a leading "~" or
// "~/" is the home directory.
std::filesystem::path resolve_store_dir(std::string_view configured);

struct SessionFiles {
  std::filesystem::path directory;
  std::filesystem::path transcript;
  std::filesystem::path metadata;
};

// The files of session `id` in `store`. Checks the id first (std::invalid_argument).
SessionFiles session_files(const std::filesystem::path &store, std::string_view id);

// True when session `id` has a transcript in `store`.
bool session_exists(const std::filesystem::path &store, std::string_view id);

// metadata.json. Fields this version does not know are kept in `extra` and written back.
struct SessionMetadata {
  std::string session_id;
  std::string created;  // ISO 8601 UTC, e.g. "2025-01-02T03:04:05.678Z"
  std::string updated;
  std::optional<std::string> provider;         // the last provider used (mount name)
  std::optional<std::string> provider_module;  // its module id
  std::optional<std::string> model;
  std::int64_t turn_count = 0;     // user messages
  std::int64_t message_count = 0;  // as of the last rewrite; the transcript is the truth
  std::optional<std::string> parent_id;
  std::optional<std::string> preview;  // the first prompt, on one line
  std::vector<Degradation> degradations;  // what resuming on another provider had to drop
  // What the host attached when it made the session (SessionOptions::labels), kept as the
  // session was created: `serve` records the plan it runs and the client's metadata there.
  boost::json::object labels;
  boost::json::object extra;
};

boost::json::object to_json(const SessionMetadata &metadata);
// Throws ModelError naming the first bad field.
SessionMetadata metadata_from_json(const boost::json::value &json);

// nullopt when the file does not exist; throws ModelError / std::system_error when it exists
// but cannot be read as metadata (one larger than kMaxMetadataBytes included).
inline constexpr std::uint64_t kMaxMetadataBytes = 4 << 20;
std::optional<SessionMetadata> read_metadata(const std::filesystem::path &file);
// Atomic: temp file, fsync, rename, directory fsync (replace_file_atomically; `sync` false
// skips the fsyncs, as that function says).
void write_metadata(const std::filesystem::path &file, const SessionMetadata &metadata,
                    bool sync = true);

// The current time as ISO 8601 UTC with milliseconds.
std::string utc_timestamp_now();

// `text` on one line (whitespace runs become one space), cut to `max_chars` code points with
// "..." when longer.
std::string one_line_preview(std::string_view text, std::size_t max_chars);

// The text of the first user message among unified messages, or "".
std::string first_prompt(const std::vector<transcript::Record> &records);

struct SessionSummary {
  std::string id;
  std::string updated;  // metadata's, else the transcript's modification time
  // nullopt: unknown (a large session without metadata, which is not read whole to count).
  std::optional<std::int64_t> turn_count;
  std::optional<std::string> provider;
  std::optional<std::string> model;
  std::string preview;
  std::optional<std::string> problem;  // why the summary is incomplete (unreadable metadata)
};

// A session's summary from its metadata; `updated` when the metadata has no time of its own.
SessionSummary summary_of(const std::string &id, const SessionMetadata &metadata,
                          std::string updated);
// As a JSON row {id, updated, turns, preview, provider?, model?, problem?} (turns null when
// unknown): `amplifier sessions list --json`, and a context's sessions_query "list".
boost::json::object to_json(const SessionSummary &summary);
// Reads such a row back; fields missing or of another type stay empty.
SessionSummary summary_from_json(const boost::json::object &row);

// Every session in `store` (directories with a valid id and a transcript), newest first.
// Sessions without metadata (legacy ones) are summarised from their transcript, reading only
// what the summary needs (never all of a large one). A store that does not exist has no
// sessions.
std::vector<SessionSummary> list_sessions(const std::filesystem::path &store);

// An exclusive advisory lock (flock) on a session directory, held while one process uses the
// session, so two processes never append to one transcript. The kernel releases it when the
// holder dies, so a killed session never leaves a stale lock.
class SessionLock {
 public:
  // nullopt when another process holds the lock. Throws std::system_error when the directory
  // cannot be opened.
  static std::optional<SessionLock> try_acquire(const std::filesystem::path &directory);
  ~SessionLock();
  SessionLock(SessionLock &&other) noexcept;
  SessionLock &operator=(SessionLock &&other) noexcept;
  SessionLock(const SessionLock &) = delete;
  SessionLock &operator=(const SessionLock &) = delete;

 private:
  explicit SessionLock(int fd) noexcept : fd_(fd) {}
  int fd_ = -1;
};

struct MigrationResult {
  std::size_t records = 0;          // messages in the rewritten transcript
  std::size_t converted = 0;        // of which were in the legacy shape
  std::vector<transcript::SkippedLine> skipped;  // lines left out (they stay in the backup)
  std::optional<std::filesystem::path> backup;   // nullopt when nothing had to change
};

// Rewrites session `id`'s transcript in the current format: the original is first copied to
// a backup beside it (transcript.jsonl.bak, or .bak.N when that exists) and synced, then the
// new text replaces the transcript atomically. Both are streamed: a transcript of any size is
// migrated in bounded memory (one line at a time, up to transcript::kDefaultMaxLineBytes). A
// transcript with no legacy line is left alone. Throws std::runtime_error when the session is in
// use by another process or holds lines of a newer format (rewriting them would lose what this
// version cannot read).
MigrationResult migrate_session(const std::filesystem::path &store, std::string_view id);

}  // namespace amplifier::session_store
