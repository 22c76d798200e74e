// Where a session's todo list lasts: `todo.json` in the session's folder, beside the transcript
// of context-persistent (found through its `session.transcript` capability), so that
// `--resume` brings the list back with the conversation. Written whole, atomically (temp file,
// fsync, rename, directory fsync): a crash leaves the old list or the new one, never a mix.
// Without a persistent context the list lives in memory only.
#pragma once

#include "amplifier/todo/todo_list.hpp"

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace tool_todo {

// The todo file for the session described by the `session.transcript` capability's JSON
// ({"transcript": "<store>/<id>/transcript.jsonl", ...}); nullopt when it names no transcript.
std::optional<std::filesystem::path> todo_file_for(std::string_view transcript_capability);

class TodoStore {
 public:
  TodoStore() = default;  // in memory only: load gives nothing, save does nothing
  explicit TodoStore(std::filesystem::path file) : file_(std::move(file)) {}

  const std::optional<std::filesystem::path> &file() const { return file_; }
  // The saved list; empty when there is no file yet. Throws (naming the file) when it cannot
  // be read or is not a todo list.
  std::vector<amplifier::todo::Item> load() const;
  // Throws (naming the file) when it cannot be written.
  void save(const std::vector<amplifier::todo::Item> &items) const;

 private:
  std::optional<std::filesystem::path> file_;
};

}  // namespace tool_todo
