// A yes/no question to the operator at the terminal, for what only the operator may grant
// (trusting a module source, a project folder). Asked on stderr, so a command's stdout (say
// `run --format jsonl`) stays what it was; answered on stdin.
#pragma once
#include <string_view>

namespace amplifier::host {

// Whether there is an operator to ask: stdin and stderr are both a terminal. A serve client,
// a script or CI is not one, and gets no question (the answer is then no).
bool operator_at_terminal();

// Writes `question` (already terminal-safe) and " [y/N] ", reads a line: true for y or yes in
// any case; anything else, or the end of input, is no.
bool operator_says_yes(std::string_view question);

}  // namespace amplifier::host
