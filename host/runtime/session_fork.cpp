#include "session_fork.hpp"

#include "history_turns.hpp"

#include "amplifier/session.hpp"
#include "amplifier/session_store.hpp"
#include "amplifier/transcript.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

namespace amplifier::host {
namespace json = boost::json;
namespace fs = std::filesystem;
namespace store = session_store;

namespace {

json::object forked_from(const std::string &id, std::int64_t turn) {
  return json::object{{"session", id}, {"turn", turn}};
}

std::int64_t checked_turn(std::optional<std::int64_t> at, std::int64_t turns, const std::string &id) {
  const std::int64_t turn = at.value_or(turns);
  if (turn < 0 || turn > turns)
    throw std::runtime_error(fmt::format(
        "session {} has {} turn(s): --at takes 0 to {} (0 keeps none of them)", id, turns, turns));
  return turn;
}

// The fork's metadata: the original's (provider, model, labels, degradations), as a new
// session holding `turn` turns and `messages` messages.
store::SessionMetadata fork_metadata(std::optional<store::SessionMetadata> original,
                                     const std::string &from, const std::string &id,
                                     std::int64_t turn, std::size_t messages,
                                     std::optional<std::string> preview) {
  store::SessionMetadata metadata = original.value_or(store::SessionMetadata{});
  metadata.session_id = id;
  metadata.created = metadata.updated = store::utc_timestamp_now();
  metadata.turn_count = turn;
  metadata.message_count = static_cast<std::int64_t>(messages);
  metadata.parent_id.reset();  // a fork is not a delegated child
  metadata.preview = std::move(preview);
  metadata.extra["forked_from"] = forked_from(from, turn);
  return metadata;
}

}  // namespace

ForkResult fork_session_files(const fs::path &store_dir, const std::string &id,
                              std::optional<std::int64_t> at) {
  store::check_session_id(id);
  if (!store::session_exists(store_dir, id))
    throw std::runtime_error(fmt::format("no session '{}' in {}", id, store_dir.string()));
  const store::SessionFiles files = store::session_files(store_dir, id);
  // First pass: the turns, and the line each one starts on.
  std::vector<std::size_t> turn_lines;  // 1-based line of each user message
  std::vector<std::size_t> message_lines;
  std::optional<std::string> first_preview;  // of the first user message
  const transcript::Transcript read = transcript::read_transcript(
      files.transcript,
      [&](transcript::Record &&record) {
        message_lines.push_back(record.line);
        const json::object *message = record.message.if_object();
        const json::value *role = message ? message->if_contains("role") : nullptr;
        if (role && role->is_string() && role->get_string() == "user") {
          turn_lines.push_back(record.line);
          if (!first_preview) first_preview = turns_of(json::array{record.message}).front().preview;
        }
        return true;
      },
      transcript::ReadLimits{transcript::kDefaultMaxLineBytes, 0});
  const std::int64_t turn = checked_turn(at, static_cast<std::int64_t>(turn_lines.size()), id);
  // Lines before the cut: those before the next turn's first line, whole lines only.
  const std::size_t cut_line = turn < static_cast<std::int64_t>(turn_lines.size())
                                   ? turn_lines[static_cast<std::size_t>(turn)]
                                   : SIZE_MAX;
  std::size_t messages = 0;
  for (std::size_t line : message_lines) messages += line < cut_line ? 1 : 0;

  const std::string fork_id = new_uuid();
  const store::SessionFiles fork = store::session_files(store_dir, fork_id);
  fs::create_directories(fork.directory);
  try {
    transcript::FileReplacement out(fork.transcript, /*sync=*/true);
    std::ifstream in(files.transcript, std::ios::binary);
    std::string line;
    std::uint64_t copied = 0;
    for (std::size_t number = 1; number < cut_line && std::getline(in, line); ++number) {
      if (copied + line.size() + 1 > read.intact_bytes) break;  // a torn last line stays behind
      copied += line.size() + 1;
      out.append(line);
      out.append("\n");
    }
    out.commit();
    std::optional<store::SessionMetadata> original;
    try {
      original = store::read_metadata(files.metadata);
    } catch (const std::exception &) {
      // Unreadable metadata: the fork starts its own from the transcript it holds.
    }
    store::write_metadata(fork.metadata,
                          fork_metadata(std::move(original), id, fork_id, turn, messages,
                                        turn == 0 ? std::nullopt : first_preview));
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(fork.directory, ignored);
    throw;
  }
  return ForkResult{fork_id, turn, messages};
}

ForkResult fork_session_in(const ContextSessionStore &from, const std::string &id,
                           std::optional<std::int64_t> at) {
  store::check_session_id(id);
  const auto session = from.read(id);
  if (!session)
    throw std::runtime_error(fmt::format("no session '{}' in the store of {}", id, from.module_id()));
  const json::array &messages = session->at("messages").as_array();
  const std::vector<TurnSpan> turn_spans = turns_of(messages);
  const std::int64_t turn = checked_turn(at, static_cast<std::int64_t>(turn_spans.size()), id);
  const std::size_t keep = messages_through_turn(turn_spans, messages.size(), turn);
  json::array kept(messages.begin(), messages.begin() + static_cast<std::ptrdiff_t>(keep));
  json::array origins;
  if (const json::value *stored = session->if_contains("origins"); stored && stored->is_array())
    for (std::size_t i = 0; i < keep && i < stored->as_array().size(); ++i)
      origins.push_back(stored->as_array()[i]);
  std::optional<store::SessionMetadata> original;
  if (const json::value *saved = session->if_contains("metadata"); saved && saved->is_object()) {
    try {
      original = store::metadata_from_json(*saved);
    } catch (const std::exception &) {
    }
  }
  const std::string fork_id = new_uuid();
  const store::SessionMetadata metadata =
      fork_metadata(std::move(original), id, fork_id, turn, keep,
                    turn == 0 ? std::nullopt : std::optional(turn_spans.front().preview));
  from.query({{"op", "import"},
              {"session_id", fork_id},
              {"metadata", store::to_json(metadata)},
              {"messages", std::move(kept)},
              {"origins", std::move(origins)}});
  return ForkResult{fork_id, turn, keep};
}

std::optional<ForkOrigin> fork_origin_of(const json::object &extra) {
  const json::value *from = extra.if_contains("forked_from");
  const json::object *fields = from ? from->if_object() : nullptr;
  if (!fields) return std::nullopt;
  const json::value *session = fields->if_contains("session");
  const json::value *turn = fields->if_contains("turn");
  if (!session || !session->is_string() || !turn || !turn->is_int64()) return std::nullopt;
  return ForkOrigin{std::string(session->get_string()), turn->get_int64()};
}

}  // namespace amplifier::host
