#include "display.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/terminal_text.hpp"

#include "tool_preview.hpp"

#include <boost/asio/post.hpp>
#include <boost/json/serialize.hpp>

#include <array>
#include <future>

namespace streaming_ui {

namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

using amplifier::module_support::string_at;
using amplifier::module_support::object_at;

constexpr milliseconds kSpinnerInterval{100};
constexpr std::array<std::string_view, 10> kSpinnerFrames = {"⠋", "⠙", "⠹", "⠸", "⠼",
                                                             "⠴", "⠦", "⠧", "⠇", "⠏"};
constexpr std::string_view kThinkingPrefix = "│ ";
constexpr std::string_view kResultFirst = "  ⎿ ";
constexpr std::string_view kResultMore = "    ";

long long int_at(const json::object &o, std::string_view key) {
  const auto *v = o.if_contains(key);
  if (!v) return 0;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<long long>(v->get_uint64());
  if (v->is_double()) return static_cast<long long>(v->get_double());
  return 0;
}

std::string index_key(const json::object &o) {
  const auto *v = o.if_contains("block_index");
  return v ? json::serialize(*v) : std::string();
}

}  // namespace

struct Display::State {
  State(const DisplayOptions &o) : options(o), terminal(o.output) {}

  const DisplayOptions options;
  Terminal terminal;
  boost::asio::io_context *io = nullptr;  // the executor's, when styled

  std::mutex mutex;
  // Everything below is guarded by `mutex`, except `timer`, which only the executor's thread
  // touches.
  bool at_line_start = true;
  bool thinking_open = false;
  std::map<std::string, bool> streamed_blocks;  // block index -> deltas were shown
  std::string last_tool_call_id;
  long long input_tokens = 0, output_tokens = 0, total_tokens = 0;
  bool usage_seen = false;
  bool spinner_active = false, spinner_drawn = false, closing = false;
  std::uint64_t spinner_generation = 0;
  std::size_t spinner_frame = 0;
  std::unique_ptr<boost::asio::steady_timer> timer;

  // ---- writing -------------------------------------------------------------------------

  // Writes `text`, wrapped in `style` on a terminal, as one write. Everything shown passes
  // here, and all of it may hold untrusted text (the model's answer and thinking, tool output,
  // error messages): its control characters are shown, never obeyed (terminal_text.hpp). The
  // display's own styling goes in `style`, outside the text.
  void emit(std::string_view raw, std::string_view style = {}) {
    if (raw.empty()) return;
    const std::string text = amplifier::terminal_safe(raw);
    if (terminal.styled() && !style.empty()) {
      terminal.write(std::string(style) + text + std::string(ansi::kReset));
    } else {
      terminal.write(text);
    }
    at_line_start = text.back() == '\n';
  }

  // Ends a line a streamed answer left open, so the next item starts a line of its own.
  void finish_line() {
    if (!at_line_start) emit("\n");
  }

  // ---- thinking ------------------------------------------------------------------------

  void open_thinking() {
    if (thinking_open) return;
    finish_line();
    emit("Thinking\n", ansi::kDim);
    thinking_open = true;
  }

  // Writes thinking text with the "│ " prefix at the start of every line.
  void thinking(std::string_view text) {
    std::string out;
    bool line_start = at_line_start;
    for (char c : text) {
      if (line_start) out += kThinkingPrefix;
      out += c;
      line_start = c == '\n';
    }
    emit(out, ansi::kDimItalic);
  }

  void close_thinking() {
    if (!thinking_open) return;
    finish_line();
    emit("\n");  // a blank line between the thinking and what follows
    thinking_open = false;
  }

  // ---- spinner -------------------------------------------------------------------------

  void start_spinner(const std::shared_ptr<State> &self) {
    if (!io || closing || spinner_active) return;
    spinner_active = true;
    const std::uint64_t generation = ++spinner_generation;
    boost::asio::post(*io, [self, generation] { self->arm_timer(self, generation); });
  }

  // Executor thread only. Re-arming cancels a wait still pending from an earlier start.
  void arm_timer(const std::shared_ptr<State> &self, std::uint64_t generation) {
    if (!timer) timer = std::make_unique<boost::asio::steady_timer>(*io);
    timer->expires_after(kSpinnerInterval);
    timer->async_wait([self, generation](const boost::system::error_code &ec) {
      if (!ec) self->tick(self, generation);
    });
  }

  // Executor thread only.
  void tick(const std::shared_ptr<State> &self, std::uint64_t generation) {
    {
      std::lock_guard lock(mutex);
      if (closing || !spinner_active || generation != spinner_generation) return;
      if (!spinner_drawn) finish_line();
      const std::string frame = std::string(kSpinnerFrames[spinner_frame++ % kSpinnerFrames.size()]);
      terminal.write(std::string(ansi::kEraseLine) + std::string(ansi::kCyan) + frame +
                     std::string(ansi::kReset) + std::string(ansi::kDim) + " waiting for the model" +
                     std::string(ansi::kReset));
      spinner_drawn = true;
    }
    arm_timer(self, generation);
  }

  void stop_spinner() {
    if (!spinner_active) return;
    spinner_active = false;
    if (spinner_drawn) terminal.write(ansi::kEraseLine);
    spinner_drawn = false;
  }

  // ---- events --------------------------------------------------------------------------

  static bool is_thinking(std::string_view block_type) {
    return block_type == "thinking" || block_type == "reasoning";
  }

  // A reasoning block's summary parts ({type: summary_text, text}, or one string), joined by
  // blank lines as they were streamed.
  static std::string reasoning_summary(const json::object &block) {
    const json::value *summary = block.if_contains("summary");
    if (!summary) return {};
    if (summary->is_string()) return std::string(summary->get_string());
    std::string text;
    if (!summary->is_array()) return text;
    for (const json::value &part : summary->get_array()) {
      if (!part.is_object()) continue;
      const std::string_view piece = string_at(part.get_object(), "text");
      if (piece.empty()) continue;
      if (!text.empty()) text += "\n\n";
      text += piece;
    }
    return text;
  }

  void block_start(const json::object &data) {
    streamed_blocks[index_key(data)] = false;
    const std::string_view type = string_at(data, "block_type");
    if (is_thinking(type) && options.show_thinking) open_thinking();
    else if (type == "text") close_thinking();
  }

  // A delta in typed form (what nearly every delta is): text and thinking are shown; a
  // signature, redacted data or tool input (the call is shown at tool:pre) is not.
  void typed_delta(std::uint32_t index, amp_delta_kind kind, std::string_view text) {
    if (kind == AMP_DELTA_TEXT) {
      close_thinking();
      emit(text);
    } else if (kind == AMP_DELTA_THINKING && options.show_thinking) {
      open_thinking();
      thinking(text);
    } else {
      return;
    }
    // The key block_start and block_end make of the same index (its JSON text).
    streamed_blocks[std::to_string(index)] = true;
  }

  // A delta that came as JSON: a reasoning delta, or one of another shape.
  void block_delta(const json::object &data) {
    const json::object *delta = object_at(data, "delta");
    if (!delta) return;  // a tool_input partial_json: the call is shown at tool:pre
    const std::string_view type = string_at(*delta, "type");
    if (type == "text") {
      close_thinking();
      emit(string_at(*delta, "text"));
    } else if (type == "thinking" && options.show_thinking) {
      open_thinking();
      thinking(string_at(*delta, "thinking"));
    } else if (type == "reasoning" && options.show_thinking) {
      // OpenAI reasoning: its summary (or, from open models, its text) shown as thinking.
      open_thinking();
      thinking(string_at(*delta, delta->contains("summary") ? "summary" : "content"));
    } else {
      return;
    }
    streamed_blocks[index_key(data)] = true;
  }

  void block_end(const json::object &data) {
    const std::string key = index_key(data);
    const bool streamed = streamed_blocks[key];
    streamed_blocks.erase(key);
    const json::object *block = object_at(data, "block");
    const std::string_view type = block ? string_at(*block, "type") : std::string_view();
    if (is_thinking(type) && options.show_thinking) {
      const std::string text = type == "thinking" ? std::string(string_at(*block, "thinking"))
                                                  : reasoning_summary(*block);
      if (!streamed && !text.empty()) {
        open_thinking();
        thinking(text);
      }
      close_thinking();
    } else if (type == "text" && !streamed) {
      close_thinking();
      emit(string_at(*block, "text"));
    }
  }

  void tool_pre(const json::object &data) {
    close_thinking();
    finish_line();
    const std::string_view name = string_at(data, "tool_name");
    const json::value *input = data.if_contains("tool_input");
    const std::string line = tool_call_line(name, input ? *input : json::value(), terminal.width() - 2);
    if (terminal.styled() && line.starts_with(name)) {
      emit("● ", ansi::kGreen);
      emit(name, ansi::kBold);
      emit(std::string_view(line).substr(name.size()) , ansi::kDim);
      emit("\n");
    } else {
      emit("● " + line + "\n");
    }
    last_tool_call_id = std::string(string_at(data, "tool_call_id"));
  }

  // "read_file: " before the first result line when other calls were shown since this one.
  std::string result_label(const json::object &data) const {
    const std::string_view id = string_at(data, "tool_call_id");
    return id == last_tool_call_id ? std::string() : std::string(string_at(data, "tool_name")) + ": ";
  }

  void tool_post(const json::object &data) {
    if (options.tool_lines == 0) return;
    close_thinking();
    finish_line();
    const json::value *result = data.if_contains("result");
    const ResultText shown = result_text(result ? *result : json::value());
    const std::vector<std::string> lines = split_lines(shown.text);
    const std::string_view style = shown.failed ? ansi::kRed : ansi::kDim;
    const std::size_t width = terminal.width() - kResultMore.size();
    if (lines.empty()) return emit(std::string(kResultFirst) + result_label(data) + "(no output)\n", style);
    std::string out;
    for (std::size_t i = 0; i < lines.size() && i < options.tool_lines; ++i) {
      out += i == 0 ? std::string(kResultFirst) + result_label(data) : std::string(kResultMore);
      out += cut_to_width(lines[i], width) + "\n";
    }
    if (lines.size() > options.tool_lines)
      out += std::string(kResultMore) + "… +" + std::to_string(lines.size() - options.tool_lines) + " lines\n";
    emit(out, style);
  }

  void tool_error(const json::object &data) {
    close_thinking();
    finish_line();
    const json::object *error = object_at(data, "error");
    const std::string_view message = error ? string_at(*error, "message") : std::string_view("failed");
    emit(std::string(kResultFirst) + std::string(string_at(data, "tool_name")) + " failed: " +
             cut_to_width(std::string(message), terminal.width() - kResultMore.size()) + "\n",
         ansi::kRed);
  }

  void add_usage(const json::object &data) {
    const json::object *usage = object_at(data, "usage");
    if (!usage) return;
    const long long in = int_at(*usage, "input_tokens"), out = int_at(*usage, "output_tokens");
    input_tokens += in;
    output_tokens += out;
    total_tokens += usage->contains("total_tokens") ? int_at(*usage, "total_tokens") : in + out;
    usage_seen = true;
  }

  void provider_error(const json::object &data) {
    close_thinking();
    finish_line();
    const json::object *error = object_at(data, "error");
    const std::string_view message = error ? string_at(*error, "message") : std::string_view("unknown error");
    emit("✗ " + std::string(string_at(data, "provider")) + ": " + std::string(message) + "\n", ansi::kRed);
  }

  void turn_complete() {
    close_thinking();
    finish_line();
    if (options.show_token_usage && usage_seen) {
      emit("tokens: " + group_thousands(input_tokens) + " in · " + group_thousands(output_tokens) + " out · " +
               group_thousands(total_tokens) + " total\n",
           ansi::kDim);
    }
    reset_turn();
  }

  void reset_turn() {
    input_tokens = output_tokens = total_tokens = 0;
    usage_seen = false;
    streamed_blocks.clear();
    last_tool_call_id.clear();
  }
};

const std::vector<std::string> &Display::events() {
  static const std::vector<std::string> names{
      "prompt:submit",     "provider:request",   "provider:response", "provider:error",
      "content_block:start", "content_block:delta", "content_block:end", "tool:pre",
      "tool:post",         "tool:error",         "approval:required", "orchestrator:complete"};
  return names;
}

Display::Display(const DisplayOptions &options) : state_(std::make_shared<State>(options)) {
  if (state_->terminal.styled()) {
    executor_ = amplifier::module_support::BackgroundExecutor::acquire();
    state_->io = &executor_->context();
  }
}

Display::~Display() {
  {
    std::lock_guard lock(state_->mutex);
    state_->closing = true;
    state_->stop_spinner();
  }
  if (!executor_) return;
  // The timer belongs to the executor's thread: destroy it there (its pending wait completes
  // as aborted, holding only the shared state) before letting go of the executor.
  std::promise<void> timer_gone;
  boost::asio::post(*state_->io, [state = state_, &timer_gone] {
    state->timer.reset();
    timer_gone.set_value();
  });
  timer_gone.get_future().wait();
  executor_.reset();
}

void Display::handle_delta(std::uint32_t index, amp_delta_kind kind, std::string_view text) {
  State &s = *state_;
  std::lock_guard lock(s.mutex);
  s.stop_spinner();
  s.typed_delta(index, kind, text);
}

void Display::handle(std::string_view event, const json::object &data) {
  State &s = *state_;
  std::lock_guard lock(s.mutex);
  if (event == "provider:request") return s.start_spinner(state_);
  s.stop_spinner();  // any other event means the wait is over, or a question is coming
  if (event == "content_block:start") return s.block_start(data);
  if (event == "content_block:delta") return s.block_delta(data);
  if (event == "content_block:end") return s.block_end(data);
  if (event == "tool:pre") return s.tool_pre(data);
  if (event == "tool:post") return s.tool_post(data);
  if (event == "tool:error") return s.tool_error(data);
  if (event == "provider:response") return s.add_usage(data);
  if (event == "provider:error") return s.provider_error(data);
  if (event == "orchestrator:complete") return s.turn_complete();
  if (event == "prompt:submit") return s.reset_turn();
  if (event == "approval:required") {
    s.close_thinking();
    s.finish_line();
  }
}

}  // namespace streaming_ui
