// Going back to the end of an earlier turn (chat's /rewind): the conversation, the files
// tool-filesystem changed since (from its checkpoints, module_support/file_checkpoints.hpp),
// or both. Works with any context that implements set_messages: context-simple,
// context-persistent (the transcript is rewritten) and context-postgres (its rows are).
//
// Trust: the person at the terminal asks for it; nothing a model sends reaches it. Files are
// restored only from the checkpoints of the session's own state folder, which the operator's
// host chose.
#pragma once
#include "amplifier/session.hpp"

#include <cstdint>
#include <string>

namespace amplifier::host {

// The turns there are, numbered, each with what would be undone by going back before it (the
// files it changed, whether it ran bash), and how to ask for a rewind.
std::string describe_rewind_points(Session &session);

struct RewindRequest {
  std::int64_t turn = 0;      // keep turns 1..turn
  bool conversation = true;   // forget the later turns' messages
  bool files = false;         // put back the files the later turns changed
};

// Forgets the conversation's turn numbering in the checkpoints (chat's /clear): every change
// kept so far belongs to "before turn 1", where a /rewind 0 files still takes it back.
void forget_turns(Session &session);

// Does it and says what it did, in lines for the terminal (what could not be undone included:
// files too large to have been kept, commands bash ran). Emits session:rewind {turn,
// conversation, files, restored, removed}. Throws std::invalid_argument for a turn the session
// does not have, std::runtime_error when the context refuses the shorter history.
std::string rewind_session(Session &session, const RewindRequest &request);

}  // namespace amplifier::host
