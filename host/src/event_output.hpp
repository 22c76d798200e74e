// How `amplifier run` shows a session: hook handlers that print events.
#pragma once
#include "amplifier/hooks.hpp"

#include <atomic>
#include <cstdio>
#include <memory>

namespace amplifier::host {

// Every kernel event as one JSON object per line: {"event","data","session_id","ts"}.
void attach_jsonl_output(HookRegistry &hooks, std::FILE *out);

// What the text printer has written so far, so the caller can finish the output cleanly.
struct TextOutputState {
  std::atomic<bool> streamed{false};           // any answer text printed
  std::atomic<bool> ends_with_newline{true};   // the last character printed was '\n'
};

// Answer text as it streams; the text of consecutive blocks is separated by a line break.
void attach_text_output(HookRegistry &hooks, std::FILE *out, std::shared_ptr<TextOutputState> state);

}  // namespace amplifier::host
