#include "rewind.hpp"

#include "history_turns.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/model_base.hpp"
#include "amplifier/module_support/file_checkpoints.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

namespace amplifier::host {
namespace json = boost::json;
namespace fs = std::filesystem;
namespace ms = amplifier::module_support;

namespace {

json::array history_of(Session &session) {
  json::value messages = json::parse(session.coordinator().context_messages());
  if (!messages.is_array()) throw std::runtime_error("the context's messages are not a list");
  return std::move(messages.as_array());
}

std::unique_ptr<ms::FileCheckpoints> checkpoints_of(Session &session) {
  const auto &folder = session.options().state_folder;
  if (!folder) return nullptr;
  return std::make_unique<ms::FileCheckpoints>(*folder / "checkpoints");
}

// Files changed, per turn, from the checkpoints.
std::map<std::int64_t, std::size_t> changes_per_turn(Session &session) {
  std::map<std::int64_t, std::size_t> changes;
  if (auto checkpoints = checkpoints_of(session))
    for (const auto &entry : checkpoints->entries()) ++changes[entry.turn];
  return changes;
}

bool ran_bash(const TurnSpan &turn) {
  return std::find(turn.tools.begin(), turn.tools.end(), "bash") != turn.tools.end();
}

}  // namespace

void forget_turns(Session &session) {
  if (auto checkpoints = checkpoints_of(session)) checkpoints->fold_turns_after(0);
}

std::string describe_rewind_points(Session &session) {
  const json::array messages = history_of(session);
  const std::vector<TurnSpan> turns = turns_of(messages);
  if (turns.empty()) return "there are no turns to go back to\n";
  const auto changes = changes_per_turn(session);
  std::string out;
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const auto turn = static_cast<std::int64_t>(i + 1);
    std::string notes;
    if (auto it = changes.find(turn); it != changes.end())
      notes += fmt::format("{} file(s) changed", it->second);
    if (ran_bash(turns[i])) notes += std::string(notes.empty() ? "" : ", ") + "ran bash";
    out += fmt::format("  {:>3}  {}{}\n", turn, turns[i].preview,
                       notes.empty() ? "" : "  [" + notes + "]");
  }
  out +=
      "/rewind N keeps turns 1 to N and forgets the later ones; /rewind N files puts back the "
      "files the later turns changed (and keeps the conversation); /rewind N all does both\n";
  return out;
}

std::string rewind_session(Session &session, const RewindRequest &request) {
  const json::array messages = history_of(session);
  const std::vector<TurnSpan> turns = turns_of(messages);
  const std::size_t keep = messages_through_turn(turns, messages.size(), request.turn);  // checks it
  std::string out;

  // What cannot be undone: commands bash ran in the later turns.
  std::vector<std::string> bash_turns;
  for (std::size_t i = static_cast<std::size_t>(request.turn); i < turns.size(); ++i)
    if (ran_bash(turns[i])) bash_turns.push_back(std::to_string(i + 1));

  // The conversation first: when the context refuses it, no file has been touched.
  if (request.conversation) {
    if (keep < messages.size()) {
      json::array kept(messages.begin(), messages.begin() + static_cast<std::ptrdiff_t>(keep));
      session.coordinator().set_context_messages(json::serialize(kept));
    }
    out += fmt::format("the conversation is back at the end of turn {} ({} later turn(s) forgotten)\n",
                       request.turn, turns.size() - static_cast<std::size_t>(request.turn));
    if (!request.files) {
      // The later turns' numbers will be used again; the files keep what they changed, which
      // now belongs to the end of this turn.
      const auto changes = changes_per_turn(session);
      std::size_t later = 0;
      for (const auto &[turn, count] : changes) later += turn > request.turn ? count : 0;
      if (auto checkpoints = checkpoints_of(session)) checkpoints->fold_turns_after(request.turn);
      if (later)
        out += fmt::format("the files the forgotten turns changed stay as they are (a rewind "
                           "to an earlier turn with files still puts them back)\n");
    }
  }
  json::array restored_paths, removed_paths;
  if (request.files) {
    auto checkpoints = checkpoints_of(session);
    if (!checkpoints) {
      out += "files: this session keeps no checkpoints, so no file is put back\n";
    } else {
      const ms::RestoreReport report = checkpoints->restore_after(request.turn);
      for (const auto &path : report.restored) {
        out += fmt::format("restored {}\n", path.string());
        restored_paths.emplace_back(path.string());
      }
      for (const auto &path : report.removed) {
        out += fmt::format("removed {} (a later turn created it)\n", path.string());
        removed_paths.emplace_back(path.string());
      }
      for (const auto &problem : report.problems) out += "not undone: " + problem + "\n";
      if (report.restored.empty() && report.removed.empty() && report.problems.empty())
        out += fmt::format("no file was changed after turn {}\n", request.turn);
    }
  }
  if (!bash_turns.empty()) {
    std::string list;
    for (const auto &turn : bash_turns) list += (list.empty() ? "" : ", ") + turn;
    out += fmt::format("turn(s) {} ran bash: what those commands changed is not undone\n", list);
  }
  session.hooks().emit("session:rewind", json::object{{"turn", request.turn},
                                                      {"conversation", request.conversation},
                                                      {"files", request.files},
                                                      {"restored", std::move(restored_paths)},
                                                      {"removed", std::move(removed_paths)}});
  return out;
}

}  // namespace amplifier::host
