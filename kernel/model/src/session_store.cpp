// The session store: ids, locations, listing, locking and migration.
#include "amplifier/session_store.hpp"
#include "amplifier/user_dirs.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace amplifier::session_store {
namespace fs = std::filesystem;

namespace {

bool is_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

bool is_alphanumeric(char c) { return is_id_char(c) && c != '-' && c != '_'; }

std::string modification_time(const fs::path &file) {
  std::error_code error;
  const auto written = fs::last_write_time(file, error);
  if (error) return {};
  using namespace std::chrono;
  const auto system = time_point_cast<milliseconds>(file_clock::to_sys(written));
  const std::time_t seconds = system_clock::to_time_t(system);
  const auto millis = system.time_since_epoch().count() % 1000;
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char with_millis[48];  // the same shape as utc_timestamp_now(), so the two sort together
  std::snprintf(with_millis, sizeof with_millis, "%s.%03dZ", text, static_cast<int>(millis));
  return with_millis;
}

// Sessions without metadata are summarised from their transcript: up to this size whole...
constexpr std::uint64_t kSummaryScanBytes = 1 << 20;
// ...beyond it from the first records only, up to the first user message.
constexpr std::size_t kPreviewScanRecords = 64;

std::string_view role_of(const transcript::Record &record) {
  const auto *message = record.message.if_object();
  const auto *role = message ? message->if_contains("role") : nullptr;
  return role && role->is_string() ? std::string_view(role->get_string()) : std::string_view();
}

// A summary from the transcript alone, for sessions without metadata (legacy stores). It
// reads only what it needs: a small transcript whole, to count its turns; of a larger one only
// the first records, for the preview (its turn count stays unknown).
SessionSummary summary_from_transcript(const std::string &id, const SessionFiles &files) {
  SessionSummary summary;
  summary.id = id;
  summary.updated = modification_time(files.transcript);
  try {
    std::error_code error;
    const bool small = fs::file_size(files.transcript, error) <= kSummaryScanBytes && !error;
    std::int64_t turns = 0;
    std::size_t records = 0;
    transcript::read_transcript(
        files.transcript,
        [&](transcript::Record &&record) {
          const bool user = role_of(record) == "user";
          if (user && summary.preview.empty())
            summary.preview = one_line_preview(first_prompt({std::move(record)}), 80);
          turns += user ? 1 : 0;
          ++records;
          return small || (summary.preview.empty() && records < kPreviewScanRecords);
        },
        transcript::ReadLimits{transcript::kDefaultMaxLineBytes, 0});
    if (small) summary.turn_count = turns;
  } catch (const std::exception &e) {
    summary.problem = e.what();
  }
  return summary;
}

SessionSummary summarise(const std::string &id, const SessionFiles &files) {
  std::optional<SessionMetadata> metadata;
  try {
    metadata = read_metadata(files.metadata);
  } catch (const std::exception &e) {
    SessionSummary summary = summary_from_transcript(id, files);
    summary.problem = std::string("unreadable metadata: ") + e.what();
    return summary;
  }
  if (!metadata) return summary_from_transcript(id, files);
  return summary_of(id, *metadata,
                    metadata->updated.empty() ? modification_time(files.transcript) : "");
}

fs::path unused_backup_path(const fs::path &transcript) {
  fs::path backup = transcript;
  backup += ".bak";
  for (int n = 1; fs::exists(backup); ++n) {
    backup = transcript;
    backup += ".bak." + std::to_string(n);
  }
  return backup;
}

}  // namespace

bool is_valid_session_id(std::string_view id) {
  return !id.empty() && id.size() <= kMaxSessionIdLength && is_alphanumeric(id.front()) &&
         std::all_of(id.begin(), id.end(), is_id_char);
}

void check_session_id(std::string_view id) {
  if (is_valid_session_id(id)) return;
  std::string shown(id.substr(0, 80));
  throw std::invalid_argument(
      "'" + shown + "' is not a valid session id: ids are 1 to " +
      std::to_string(kMaxSessionIdLength) +
      " letters, digits, '-' or '_', starting with a letter or digit (like a UUID)");
}

fs::path default_store_dir() {
  try {
    return user_dirs::data() / "sessions";
  } catch (const std::runtime_error &e) {
    throw std::runtime_error(std::string("cannot locate the session store: ") + e.what());
  }
}

fs::path resolve_store_dir(std::string_view configured) {
  if (configured.empty()) return default_store_dir();
  if (configured == "~") return user_dirs::home();
  if (configured.starts_with("~/")) return user_dirs::home() / fs::path(configured.substr(2));
  return fs::path(configured);
}

SessionFiles session_files(const fs::path &store, std::string_view id) {
  check_session_id(id);
  const fs::path directory = store / std::string(id);
  return SessionFiles{directory, directory / kTranscriptFileName, directory / kMetadataFileName};
}

bool session_exists(const fs::path &store, std::string_view id) {
  std::error_code error;
  return fs::is_regular_file(session_files(store, id).transcript, error);
}

SessionSummary summary_of(const std::string &id, const SessionMetadata &metadata,
                          std::string updated) {
  SessionSummary summary;
  summary.id = id;
  summary.updated = metadata.updated.empty() ? std::move(updated) : metadata.updated;
  summary.turn_count = metadata.turn_count;
  summary.provider = metadata.provider;
  summary.model = metadata.model;
  summary.preview = metadata.preview.value_or("");
  return summary;
}

boost::json::object to_json(const SessionSummary &summary) {
  const boost::json::value turns =
      summary.turn_count ? boost::json::value(*summary.turn_count) : boost::json::value();
  boost::json::object row{{"id", summary.id},
                          {"updated", summary.updated},
                          {"turns", turns},
                          {"preview", summary.preview}};
  if (summary.provider) row["provider"] = *summary.provider;
  if (summary.model) row["model"] = *summary.model;
  if (summary.problem) row["problem"] = *summary.problem;
  return row;
}

SessionSummary summary_from_json(const boost::json::object &row) {
  auto text = [&](std::string_view key) -> std::optional<std::string> {
    const boost::json::value *v = row.if_contains(key);
    return v && v->is_string() ? std::optional<std::string>(v->get_string()) : std::nullopt;
  };
  SessionSummary summary;
  summary.id = text("id").value_or("");
  summary.updated = text("updated").value_or("");
  if (const boost::json::value *turns = row.if_contains("turns"); turns && turns->is_int64())
    summary.turn_count = turns->get_int64();
  summary.provider = text("provider");
  summary.model = text("model");
  summary.preview = text("preview").value_or("");
  summary.problem = text("problem");
  return summary;
}

std::vector<SessionSummary> list_sessions(const fs::path &store) {
  std::vector<SessionSummary> sessions;
  std::error_code error;
  if (!fs::is_directory(store, error)) return sessions;
  for (const auto &entry : fs::directory_iterator(store, error)) {
    const std::string id = entry.path().filename().string();
    if (!is_valid_session_id(id) || !entry.is_directory(error)) continue;
    const SessionFiles files = session_files(store, id);
    if (!fs::is_regular_file(files.transcript, error)) continue;
    sessions.push_back(summarise(id, files));
  }
  std::sort(sessions.begin(), sessions.end(), [](const auto &a, const auto &b) {
    return a.updated != b.updated ? a.updated > b.updated : a.id < b.id;
  });
  return sessions;
}

std::optional<SessionLock> SessionLock::try_acquire(const fs::path &directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    throw std::system_error(errno, std::generic_category(),
                            "cannot open session directory " + directory.string());
  int result;
  do {
    result = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (result != 0 && errno == EINTR);
  if (result != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) return std::nullopt;
    throw std::system_error(error, std::generic_category(),
                            "cannot lock session directory " + directory.string());
  }
  return SessionLock(fd);
}

SessionLock::~SessionLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

SessionLock::SessionLock(SessionLock &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

SessionLock &SessionLock::operator=(SessionLock &&other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

MigrationResult migrate_session(const fs::path &store, std::string_view id) {
  const SessionFiles files = session_files(store, id);
  if (!fs::is_regular_file(files.transcript))
    throw std::runtime_error("no session '" + std::string(id) + "' in " + store.string());
  auto lock = SessionLock::try_acquire(files.directory);
  if (!lock)
    throw std::runtime_error("session '" + std::string(id) +
                             "' is in use by another process; migrate it once that has ended");
  // Read twice, one line at a time, never whole: first to learn whether anything must change,
  // then to write the new transcript as it is read.
  const transcript::ReadLimits limits{transcript::kDefaultMaxLineBytes, 0};
  MigrationResult result;
  const transcript::Transcript survey = transcript::read_transcript(
      files.transcript,
      [&](transcript::Record &&) {
        ++result.records;
        return true;
      },
      limits);
  if (survey.newer_format_lines > 0)
    throw std::runtime_error(std::to_string(survey.newer_format_lines) + " line(s) of " +
                             files.transcript.string() +
                             " use a newer transcript format; not rewriting them");
  result.converted = survey.legacy_records;
  result.skipped = survey.skipped;
  if (survey.legacy_records == 0) return result;

  const fs::path backup = unused_backup_path(files.transcript);
  transcript::copy_file_atomically(files.transcript, backup);
  transcript::FileReplacement rewritten(files.transcript, true);
  transcript::read_transcript(
      files.transcript,
      [&](transcript::Record &&record) {
        rewritten.append(transcript::encode_line(record));
        return true;
      },
      limits);
  rewritten.commit();
  result.backup = backup;
  return result;
}

}  // namespace amplifier::session_store
