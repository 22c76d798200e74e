// The display: turns kernel events into what a person watching the session reads.
//
//   provider:request       starts the spinner (a terminal only) until the first content event
//   content_block:start    a thinking block opens a "Thinking" section: every line of it is
//                          prefixed "│ " (and dimmed on a terminal), shown in full, never cut,
//                          followed by a blank line that sets it apart from the answer; a
//                          reasoning block (OpenAI) shows its summary the same way
//   content_block:delta    answer text is written as it arrives; thinking as described
//   content_block:end      a block that streamed no deltas is shown whole from its `block`
//   tool:pre               one line: "● tool(arguments)"
//   tool:post / tool:error the result's first `tool_lines` lines under it ("  ⎿ ..."), with
//                          "… +N lines" for the rest
//   provider:response      its usage is added to the turn's sum
//   provider:error         one line with the error
//   approval:required      the spinner stops and the line is finished, so the host's question
//                          starts on a clean line
//   orchestrator:complete  ends the answer's line; shows the turn's token usage
//
// Every event is written while one mutex is held, and anything that needs a line of its own
// first finishes the line a streamed answer left open, so output never interleaves half lines.
//
// THREADS: handle() is called from any thread (provider threads for content events, the turn
// thread for the rest); the spinner's timer runs on module_support's background executor.
#pragma once
#include "terminal.hpp"

#include "amplifier/module_support/background_executor.hpp"
#include "amplifier_plugin.h"

#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace streaming_ui {

struct DisplayOptions {
  bool show_thinking = true;
  std::size_t tool_lines = 5;
  bool show_token_usage = true;
  std::string output = "stdout";
};

class Display {
 public:
  explicit Display(const DisplayOptions &options);
  // Stops the spinner and waits until its timer can no longer fire.
  ~Display();
  Display(const Display &) = delete;
  Display &operator=(const Display &) = delete;

  void handle(std::string_view event, const boost::json::object &data);
  // One content_block:delta in typed form (ABI 1.5 hook_register_delta): what handle() does
  // with the same delta's JSON, without it.
  void handle_delta(std::uint32_t index, amp_delta_kind kind, std::string_view text);

  // The event names handle() reacts to.
  static const std::vector<std::string> &events();

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::shared_ptr<amplifier::module_support::BackgroundExecutor> executor_;  // terminals only
};

}  // namespace streaming_ui
