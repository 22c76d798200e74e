// How `amplifier run` shows a session: hook handlers that print events.
#pragma once
#include "amplifier/hooks.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string_view>

namespace amplifier::host {

// One output stream shared by the printers. Writes go into the stream's stdio buffer; a
// flush follows `delay` after the first unflushed write. While a stream is fast, lines batch
// into few write(2)s; when it pauses, what was written appears within `delay`, so the user
// still watches each delta arrive. Thread-safe.
class PacedOutput : public std::enable_shared_from_this<PacedOutput> {
 public:
  static std::shared_ptr<PacedOutput> open(std::FILE *out,
                                           std::chrono::milliseconds delay = std::chrono::milliseconds(2));
  void write(std::string_view bytes);
  // The pieces one after another, as one write: no other write comes between them.
  void write(std::initializer_list<std::string_view> pieces);
  void flush();
  // Flushes, and makes later scheduled flushes do nothing: call before the stream goes away.
  void close();

 private:
  PacedOutput(std::FILE *out, std::chrono::milliseconds delay) : out_(out), delay_(delay) {}
  void schedule_flush();

  std::FILE *out_;
  std::chrono::milliseconds delay_;
  std::mutex mutex_;
  bool flush_pending_ = false;
  bool closed_ = false;
};

// Appends `event` as the JSON object `--format jsonl` prints, without the newline:
// {"event":...,"data":...,"session_id":...,"ts":...}. (Shared with `amplifier serve`'s streams.)
void append_event_json(std::string &out, HookEvent &event);

// The answer text a content_block:delta event carries (empty for thinking, tool input, other
// events). Valid while `event` is.
std::string_view answer_text_delta(HookEvent &event);

// Every kernel event as one JSON object per line: {"event","data","session_id","ts"}.
void attach_jsonl_output(HookRegistry &hooks, std::shared_ptr<PacedOutput> out);

// What the text printer has written so far, so the caller can finish the output cleanly.
struct TextOutputState {
  std::atomic<bool> streamed{false};           // any answer text printed
  std::atomic<bool> ends_with_newline{true};   // the last character printed was '\n'
};

// Answer text as it streams; the text of consecutive blocks is separated by a line break.
void attach_text_output(HookRegistry &hooks, std::shared_ptr<PacedOutput> out,
                        std::shared_ptr<TextOutputState> state);

}  // namespace amplifier::host
