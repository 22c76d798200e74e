// Rewind checkpoints: a file's content as it was before a tool changed it, per turn, so that a
// rewind to the end of turn N puts every file a later turn changed back as it was.
//
// Layout, in a folder of the session's own (SessionOptions::state_folder + "/checkpoints"):
//   journal.jsonl   one JSON line per first change of a file in a turn:
//                   {"seq","turn","path","existed","mode"?,"blob"?,"bytes","tool","time",
//                    "not_kept"?: why the content was not kept (too large, over the total)}
//   blobs/<seq>     the content before the change (absent for a new file or one not kept)
// Only the first change of a path in a turn is kept: a rewind restores turn boundaries, and the
// content before the turn's first change is the content at the end of the turn before.
//
// Writer: tool-filesystem (write_file, edit_file), before it changes a file. Reader and
// restorer: the host's chat (/rewind). Trust: the folder is the operator's (the host chooses
// it, under the session store); the paths in the journal are the ones tool-filesystem resolved
// within its allowed write paths. A restore writes only those paths, atomically (a temporary
// file renamed over the path, so a symbolic link put there is replaced, never followed).
//
// THREADS: one FileCheckpoints may be used from several threads (a tool batch writes files in
// parallel); a mutex orders the journal. One writer process per session folder.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amplifier::module_support {

struct CheckpointLimits {
  std::uint64_t max_file_bytes = 8ull << 20;     // a larger file is changed but not kept
  std::uint64_t max_total_bytes = 512ull << 20;  // all kept contents of the session together
};

struct CheckpointEntry {
  std::uint64_t seq = 0;
  std::int64_t turn = 0;
  std::filesystem::path path;   // absolute, as the tool resolved it
  bool existed = false;         // false: the change created the file
  std::optional<unsigned> mode;  // permission bits of the file that existed
  std::optional<std::string> blob;  // file name under blobs/, when the content was kept
  std::uint64_t bytes = 0;          // the size before the change
  std::string tool;
  std::string time;
  std::string not_kept;  // empty when kept (or nothing to keep); else why not
};

struct RestoreReport {
  std::vector<std::filesystem::path> restored;  // put back as they were
  std::vector<std::filesystem::path> removed;   // created by a later turn, so removed
  std::vector<std::string> problems;            // what could not be restored, and why
};

class FileCheckpoints {
 public:
  // `folder` is created on the first change kept. Reads the journal there, if any.
  explicit FileCheckpoints(std::filesystem::path folder, CheckpointLimits limits = {});

  // Before `file` changes in `turn`: keeps its current content (nothing for a file that does
  // not exist yet). Returns "" when kept (or already kept for this turn), else a sentence for
  // the model and the user saying the change cannot be rewound and why. Never throws for the
  // file itself; a journal that cannot be written is reported the same way.
  std::string keep_before_change(const std::filesystem::path &file, std::int64_t turn,
                                 std::string_view tool);

  // Every entry, oldest first.
  std::vector<CheckpointEntry> entries();
  // The entries of turns after `turn`, oldest first.
  std::vector<CheckpointEntry> entries_after(std::int64_t turn);

  // Puts every file a turn after `turn` changed back as it was at the end of `turn` (newest
  // change undone first), then forgets those entries and their contents. A file whose content
  // was not kept stays as it is and is named in `problems`; so does one that could not be
  // written, or whose folder is no longer the one recorded (a link put in its place since): its
  // entry is kept, so a later rewind can try again.
  RestoreReport restore_after(std::int64_t turn);

  // The conversation went back to the end of `turn` without the files (chat's /rewind N, or
  // /clear with 0): the later turns' changes now belong to turn `turn`, since the files keep
  // them and the turn numbers after it will be used again. A later rewind to an earlier turn
  // still undoes them.
  void fold_turns_after(std::int64_t turn);

  const std::filesystem::path &folder() const { return folder_; }

 private:
  // With the mutex held. The journal is read again whenever it changed on disk since this
  // instance last read or wrote it: the host's /rewind and the tool each have one.
  void refresh();
  void load();
  void append(const CheckpointEntry &entry);
  void rewrite_journal();
  void remember_journal_state();

  const std::filesystem::path folder_;
  const CheckpointLimits limits_;
  std::mutex mutex_;
  std::vector<CheckpointEntry> entries_;
  std::set<std::pair<std::int64_t, std::string>> kept_;  // (turn, path) already journaled
  std::uint64_t next_seq_ = 1;
  std::uint64_t total_bytes_ = 0;
  // The journal as this instance last saw it: inode, size, modification time (nanoseconds).
  std::array<std::uint64_t, 3> seen_{0, 0, 0};
};

}  // namespace amplifier::module_support
