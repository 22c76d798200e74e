#include "amplifier/module_support/file_checkpoints.hpp"

#include "amplifier/module_support/session_facts.hpp"
#include "amplifier/transcript.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace amplifier::module_support {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

constexpr std::string_view kJournal = "journal.jsonl";

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (1ull << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1ull << 10)) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

json::object to_json(const CheckpointEntry &entry) {
  json::object line{{"seq", entry.seq},         {"turn", entry.turn},
                    {"path", entry.path.string()}, {"existed", entry.existed},
                    {"bytes", entry.bytes},     {"tool", entry.tool},
                    {"time", entry.time}};
  if (entry.mode) line["mode"] = *entry.mode;
  if (entry.blob) line["blob"] = *entry.blob;
  if (!entry.not_kept.empty()) line["not_kept"] = entry.not_kept;
  return line;
}

// A journal line back; nullopt for a line that is not one (a torn last line after a crash).
std::optional<CheckpointEntry> entry_from(std::string_view line) {
  std::error_code ec;
  const json::value parsed = json::parse(line, ec);
  const json::object *o = ec ? nullptr : parsed.if_object();
  if (!o) return std::nullopt;
  try {
    CheckpointEntry entry;
    entry.seq = o->at("seq").to_number<std::uint64_t>();
    entry.turn = o->at("turn").to_number<std::int64_t>();
    entry.path = std::string(o->at("path").as_string());
    entry.existed = o->at("existed").as_bool();
    entry.bytes = o->at("bytes").to_number<std::uint64_t>();
    if (const auto *tool = o->if_contains("tool"); tool && tool->is_string())
      entry.tool = tool->get_string();
    if (const auto *time = o->if_contains("time"); time && time->is_string())
      entry.time = time->get_string();
    if (const auto *mode = o->if_contains("mode")) entry.mode = mode->to_number<unsigned>();
    if (const auto *blob = o->if_contains("blob"); blob && blob->is_string()) {
      const std::string name(blob->get_string());
      // Only a plain name in blobs/: the journal never points elsewhere.
      if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
        return std::nullopt;
      entry.blob = name;
    }
    if (const auto *why = o->if_contains("not_kept"); why && why->is_string())
      entry.not_kept = why->get_string();
    if (!entry.path.is_absolute()) return std::nullopt;
    return entry;
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

std::string read_whole(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::system_error(errno, std::generic_category(), "cannot read " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

}  // namespace

FileCheckpoints::FileCheckpoints(fs::path folder, CheckpointLimits limits)
    : folder_(std::move(folder)), limits_(limits) {
  std::lock_guard lock(mutex_);
  refresh();
}

namespace {
// What tells this instance the journal changed: another instance appends (the size grows) or
// rewrites it (a new file, so a new inode: timestamps are too coarse to tell two quick writes
// apart, and a rewrite may keep the size).
std::array<std::uint64_t, 3> journal_state(const fs::path &journal) {
  struct stat status {};
  if (::stat(journal.c_str(), &status) != 0) return {0, 0, 0};
  return {static_cast<std::uint64_t>(status.st_ino), static_cast<std::uint64_t>(status.st_size),
          static_cast<std::uint64_t>(status.st_mtim.tv_sec) * 1'000'000'000u +
              static_cast<std::uint64_t>(status.st_mtim.tv_nsec)};
}
}  // namespace

void FileCheckpoints::remember_journal_state() { seen_ = journal_state(folder_ / kJournal); }

void FileCheckpoints::refresh() {
  const auto now = journal_state(folder_ / kJournal);
  if (now == seen_ && (now[0] != 0 || entries_.empty())) return;
  entries_.clear();
  kept_.clear();
  total_bytes_ = 0;
  load();
  seen_ = now;
}

void FileCheckpoints::load() {
  std::ifstream in(folder_ / kJournal);
  std::string line;
  while (std::getline(in, line)) {
    auto entry = entry_from(line);
    if (!entry) continue;
    next_seq_ = std::max(next_seq_, entry->seq + 1);
    if (entry->blob) total_bytes_ += entry->bytes;
    kept_.emplace(entry->turn, entry->path.string());
    entries_.push_back(std::move(*entry));
  }
}

void FileCheckpoints::append(const CheckpointEntry &entry) {
  const std::string line = json::serialize(to_json(entry)) + "\n";
  const fs::path journal = folder_ / kJournal;
  const int fd = ::open(journal.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "cannot open " + journal.string());
  const ssize_t written = ::write(fd, line.data(), line.size());  // one write: a whole line
  const int error = errno;
  ::close(fd);
  if (written != static_cast<ssize_t>(line.size()))
    throw std::system_error(error, std::generic_category(), "cannot write " + journal.string());
  remember_journal_state();
}

void FileCheckpoints::rewrite_journal() {
  std::string text;
  for (const auto &entry : entries_) text += json::serialize(to_json(entry)) + "\n";
  transcript::replace_file_atomically(folder_ / kJournal, text);
  remember_journal_state();
}

std::string FileCheckpoints::keep_before_change(const fs::path &file, std::int64_t turn,
                                                std::string_view tool) {
  std::lock_guard lock(mutex_);
  refresh();
  if (kept_.contains({turn, file.string()})) return {};
  CheckpointEntry entry;
  entry.seq = next_seq_;
  entry.turn = turn;
  entry.path = file;
  entry.tool = tool;
  entry.time = now_iso8601();
  std::string said;  // the sentence returned when the content is not kept
  try {
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(file, ec);
    entry.existed = fs::exists(status);
    // A directory, device or link: the tools refuse to change it, so there is nothing to keep.
    if (entry.existed && !fs::is_regular_file(status)) return {};
    if (entry.existed) {
      entry.bytes = fs::file_size(file);
      entry.mode = static_cast<unsigned>(status.permissions()) & 07777u;
      if (entry.bytes > limits_.max_file_bytes)
        entry.not_kept = "it is " + size_text(entry.bytes) + ", over the checkpoint limit of " +
                         size_text(limits_.max_file_bytes) + " per file";
      else if (total_bytes_ + entry.bytes > limits_.max_total_bytes)
        entry.not_kept = "the session's checkpoints already hold " + size_text(total_bytes_) +
                         " of their " + size_text(limits_.max_total_bytes);
    }
    fs::create_directories(folder_ / "blobs");
    if (entry.existed && entry.not_kept.empty()) {
      const std::string content = read_whole(file);
      entry.bytes = content.size();
      entry.blob = std::to_string(entry.seq);
      transcript::replace_file_atomically(folder_ / "blobs" / *entry.blob, content, false);
    }
    append(entry);
  } catch (const std::exception &e) {
    if (entry.blob) {
      std::error_code ignored;
      fs::remove(folder_ / "blobs" / *entry.blob, ignored);
    }
    // Remembered all the same: a later change in this turn must not be kept as "before the
    // turn", which it is not.
    kept_.emplace(turn, file.string());
    return "not checkpointed (" + std::string(e.what()) + "): a rewind cannot restore this file";
  }
  ++next_seq_;
  if (entry.blob) total_bytes_ += entry.bytes;
  kept_.emplace(turn, file.string());
  if (!entry.not_kept.empty())
    said = "not checkpointed (" + entry.not_kept + "): a rewind cannot restore this file";
  entries_.push_back(std::move(entry));
  return said;
}

std::vector<CheckpointEntry> FileCheckpoints::entries() {
  std::lock_guard lock(mutex_);
  refresh();
  return entries_;
}

std::vector<CheckpointEntry> FileCheckpoints::entries_after(std::int64_t turn) {
  std::lock_guard lock(mutex_);
  refresh();
  std::vector<CheckpointEntry> later;
  for (const auto &entry : entries_)
    if (entry.turn > turn) later.push_back(entry);
  return later;
}

namespace {
// The folder `file` was recorded in is still that folder: its real path is what was recorded
// (tool-filesystem records resolved paths), so no link was put in place of it or of a folder
// above it since. A folder that no longer exists is checked at its nearest existing ancestor.
bool folder_unchanged(const fs::path &file) {
  std::error_code ec;
  fs::path folder = file.parent_path();
  while (!folder.empty() && !fs::exists(fs::symlink_status(folder, ec))) {
    if (folder == folder.root_path()) break;
    folder = folder.parent_path();
  }
  const fs::path real = fs::canonical(folder, ec);
  return !ec && real == folder;
}
}  // namespace

RestoreReport FileCheckpoints::restore_after(std::int64_t turn) {
  std::lock_guard lock(mutex_);
  refresh();
  RestoreReport report;
  std::set<std::string> restored, removed;
  std::set<std::uint64_t> undone;  // entries whose change was undone (or had nothing to undo)
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    const CheckpointEntry &entry = *it;
    if (entry.turn <= turn) continue;
    const std::string shown = entry.path.string();
    std::error_code ec;
    try {
      if (!folder_unchanged(entry.path)) {
        report.problems.push_back(shown + ": not restored: its folder is no longer the one it was "
                                          "in (a link was put in its place)");
        continue;
      }
      if (!entry.existed) {
        if (fs::exists(fs::symlink_status(entry.path, ec)) && !fs::remove(entry.path, ec)) {
          report.problems.push_back(shown + ": not removed: " + ec.message());
          continue;
        }
        removed.insert(shown);
        restored.erase(shown);
        undone.insert(entry.seq);
        continue;
      }
      if (!entry.blob) {
        report.problems.push_back(shown + ": not restored: " + entry.not_kept);
        undone.insert(entry.seq);  // nothing kept: nothing a later rewind could do either
        continue;
      }
      const std::string content = read_whole(folder_ / "blobs" / *entry.blob);
      fs::create_directories(entry.path.parent_path());
      transcript::replace_file_atomically(entry.path, content);
      if (entry.mode) fs::permissions(entry.path, static_cast<fs::perms>(*entry.mode), ec);
      restored.insert(shown);
      removed.erase(shown);
      undone.insert(entry.seq);
    } catch (const std::exception &e) {
      report.problems.push_back(shown + ": not restored: " + e.what());
    }
  }
  for (const auto &path : restored) report.restored.emplace_back(path);
  for (const auto &path : removed) report.removed.emplace_back(path);
  if (undone.empty()) return report;
  std::vector<CheckpointEntry> dropped;
  std::erase_if(entries_, [&](const CheckpointEntry &entry) {
    if (!undone.contains(entry.seq)) return false;
    dropped.push_back(entry);
    return true;
  });
  kept_.clear();
  total_bytes_ = 0;
  for (const auto &entry : entries_) {
    kept_.emplace(entry.turn, entry.path.string());
    if (entry.blob) total_bytes_ += entry.bytes;
  }
  try {
    rewrite_journal();
    for (const auto &entry : dropped) {
      std::error_code ignored;
      if (entry.blob) fs::remove(folder_ / "blobs" / *entry.blob, ignored);
    }
  } catch (const std::exception &e) {
    report.problems.push_back("the checkpoint journal could not be rewritten: " +
                              std::string(e.what()));
  }
  return report;
}

void FileCheckpoints::fold_turns_after(std::int64_t turn) {
  std::lock_guard lock(mutex_);
  refresh();
  bool changed = false;
  for (auto &entry : entries_)
    if (entry.turn > turn) {
      entry.turn = turn;
      changed = true;
    }
  if (!changed) return;
  kept_.clear();
  for (const auto &entry : entries_) kept_.emplace(entry.turn, entry.path.string());
  rewrite_journal();
}

}  // namespace amplifier::module_support
