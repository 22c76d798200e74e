#include "event_output.hpp"

#include "amplifier/events.hpp"
#include "amplifier/terminal_text.hpp"
#include "amplifier/worker_pool.hpp"
#include "amplifier_sdk_json.hpp"

#include <boost/json/serialize.hpp>

#include <limits>
#include <string>

#include <unistd.h>

namespace amplifier::host {
namespace {

// Runs after every other handler, so the printed payload is what hooks made of it.
constexpr int kLastPriority = std::numeric_limits<int>::max();

// A line whose payload is at least this long is written in pieces, the payload straight from
// the event, rather than copied into the line first (a content_block:end or a turn's result
// carries a whole answer).
constexpr std::size_t kPiecewisePayloadBytes = 64 * 1024;

bool has_own_fields(HookEvent &event) {
  return event.has_standard_fields() && !event.session_id().empty();
}

// What goes before and after the payload's JSON text in a line, for an event with its own
// fields: {"event":NAME,"data": ... ,"session_id":ID,"ts":TS}
void append_event_head(std::string &line, HookEvent &event) {
  line += R"({"event":)";
  amp::sdk::json::append_quoted(line, event.name());
  line += R"(,"data":)";
}
void append_event_tail(std::string &line, HookEvent &event) {
  line += R"(,"session_id":)";
  amp::sdk::json::append_quoted(line, event.session_id());
  line += R"(,"ts":)";
  amp::sdk::json::append_quoted(line, event.timestamp());
  line += '}';
}

}  // namespace

// Written straight from the event's JSON text when its session id and timestamp are the
// registry's own (every stream delta), else built as before from the payload the hooks left.
void append_event_json(std::string &line, HookEvent &event) {
  if (has_own_fields(event)) {
    append_event_head(line, event);
    line += event.data_json();
    append_event_tail(line, event);
  } else {
    const boost::json::object &data = event.data();
    boost::json::object object;
    object["event"] = event.name();
    object["data"] = data;
    if (auto *id = data.if_contains("session_id")) object["session_id"] = *id;
    if (auto *ts = data.if_contains("timestamp")) object["ts"] = *ts;
    line += boost::json::serialize(object);
  }
}

std::string_view answer_text_delta(HookEvent &event) {
  // The typed delta, or one read from a payload a hook replaced.
  if (const auto delta = event.typed_delta())
    return delta->kind == AMP_DELTA_TEXT ? delta->text : std::string_view();
  // A replaced payload of another shape (no block_index, say): its text delta still shows.
  const boost::json::object &data = event.data();
  const auto *value_of_delta = data.if_contains("delta");
  const auto *fields = value_of_delta ? value_of_delta->if_object() : nullptr;
  const auto *type = fields ? fields->if_contains("type") : nullptr;
  const auto *text = fields ? fields->if_contains("text") : nullptr;
  if (type && type->is_string() && type->get_string() == "text" && text && text->is_string())
    return text->get_string();
  return {};
}

std::shared_ptr<PacedOutput> PacedOutput::open(std::FILE *out, std::chrono::milliseconds delay) {
  // A pipe or file gets a 64 KB buffer (a fast stream then costs one write(2) per 64 KB, not
  // per 4 KB); a terminal keeps its line buffering. Either way the paced flush adds the "soon
  // after the last write" neither gives. Called before anything is written to the stream.
  if (!::isatty(::fileno(out))) std::setvbuf(out, nullptr, _IOFBF, 64 * 1024);
  return std::shared_ptr<PacedOutput>(new PacedOutput(out, delay));
}

void PacedOutput::write(std::string_view bytes) { write({bytes}); }

void PacedOutput::write(std::initializer_list<std::string_view> pieces) {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  // Under our own lock: stdio's would be a second one per line. Other writers of this stream
  // (the host's final lines) take stdio's lock, which fwrite_unlocked does not wait for, so
  // they write only after close().
  for (std::string_view piece : pieces) fwrite_unlocked(piece.data(), 1, piece.size(), out_);
  if (!flush_pending_) schedule_flush();
}

void PacedOutput::schedule_flush() {
  flush_pending_ = true;
  try {
    WorkerPool::shared().submit([self = shared_from_this()] { self->flush(); }, delay_);
  } catch (...) {  // no worker to do it later: do it now
    std::fflush(out_);
    flush_pending_ = false;
  }
}

void PacedOutput::flush() {
  std::lock_guard lock(mutex_);
  flush_pending_ = false;
  if (!closed_) std::fflush(out_);
}

void PacedOutput::close() {
  std::lock_guard lock(mutex_);
  if (!closed_) std::fflush(out_);
  closed_ = true;
}

void attach_jsonl_output(HookRegistry &hooks, std::shared_ptr<PacedOutput> out) {
  hooks.register_event_handler(
      std::string(HookRegistry::kAllEvents),
      [out](HookEvent &event) -> std::optional<HookResult> {
        thread_local std::string line;  // one per emitting thread, reused: no allocation per line
        line.clear();
        if (has_own_fields(event) && event.data_json().size() >= kPiecewisePayloadBytes) {
          append_event_head(line, event);
          thread_local std::string tail;
          tail.clear();
          append_event_tail(tail, event);
          tail += '\n';
          out->write({std::string_view(line), event.data_json(), std::string_view(tail)});
          return std::nullopt;
        }
        append_event_json(line, event);
        line += '\n';
        out->write(line);
        return std::nullopt;
      },
      kLastPriority, "host-jsonl-output");
}

void attach_text_output(HookRegistry &hooks, std::shared_ptr<PacedOutput> out,
                        std::shared_ptr<TextOutputState> state) {
  // The model's text is untrusted: its control characters are shown, not obeyed (an OSC 52 in
  // an answer must not set the clipboard, a cursor move must not rewrite the screen).
  struct SafeText {
    std::mutex mutex;
    TerminalTextStream stream;
  };
  auto safe = std::make_shared<SafeText>();
  // Each provider response starts new text blocks: separate them from what came before.
  hooks.register_handler(
      std::string(events::kContentBlockStart),
      [out, state, safe](std::string_view, const boost::json::object &data) {
        {
          std::lock_guard lock(safe->mutex);
          if (std::string rest = safe->stream.finish(); !rest.empty()) out->write(rest);
        }
        auto *type = data.if_contains("block_type");
        if (type && type->is_string() && type->as_string() == "text" && state->streamed.load() &&
            !state->ends_with_newline.load()) {
          out->write("\n");
          state->ends_with_newline.store(true);
        }
        return HookResult{};
      },
      kLastPriority, "host-text-output");
  hooks.register_event_handler(
      std::string(events::kContentBlockDelta),
      [out, state, safe](HookEvent &event) -> std::optional<HookResult> {
        const std::string_view text = answer_text_delta(event);
        if (text.empty()) return std::nullopt;
        std::lock_guard lock(safe->mutex);
        const std::string shown = safe->stream.feed(text);
        if (shown.empty()) return std::nullopt;
        out->write(shown);
        state->streamed.store(true);
        state->ends_with_newline.store(shown.back() == '\n');
        return std::nullopt;
      },
      kLastPriority, "host-text-output");
}

}  // namespace amplifier::host
