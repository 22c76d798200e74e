// How `amplifier run` shows a session: hook handlers that print events.
#pragma once
#include "amplifier/hooks.hpp"

#include <atomic>
#include <cstdio>
#include <memory>

namespace amplifier::host {

// Every kernel event as one JSON object per line: {"event","data","session_id","ts"}.
void attach_jsonl_output(HookRegistry &hooks, std::FILE *out);

// Answer text as it streams. `streamed` becomes true once any text was printed, so the caller
// can print a non-streamed answer itself.
void attach_text_output(HookRegistry &hooks, std::FILE *out, std::shared_ptr<std::atomic<bool>> streamed);

}  // namespace amplifier::host
