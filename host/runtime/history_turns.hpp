// Turns in a stored conversation, as `amplifier sessions`, chat's /rewind and the forks count
// them: a turn begins at each user message (a prompt, a steering message, a hook's stored
// reason) and runs to the next one. Messages before the first user message (a system prompt)
// belong to no turn and are always kept.
#pragma once
#include <boost/json/array.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace amplifier::host {

struct TurnSpan {
  std::size_t first = 0;  // index of its user message
  std::size_t end = 0;    // one past its last message
  std::string preview;    // the user message, on one line, shortened
  std::vector<std::string> tools;  // the tools its answers called, in order, repeats included
};

std::vector<TurnSpan> turns_of(const boost::json::array &messages);

// How many leading messages of a conversation of `message_count` messages whose turns are
// `turns` (turns_of) hold it through turn `turn` (0: only what precedes the first turn).
// Throws std::invalid_argument unless 0 <= turn <= the number of turns.
std::size_t messages_through_turn(const std::vector<TurnSpan> &turns, std::size_t message_count,
                                  std::int64_t turn);

}  // namespace amplifier::host
