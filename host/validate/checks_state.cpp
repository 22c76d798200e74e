// hook-events and context-round-trip: the two kinds that serve no calls.
#include "amplifier/events.hpp"
#include "checks_behavioral.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

namespace amplifier::host::validate {
namespace {

namespace json = boost::json;

// One payload for every event: each field a handler of some event reads, plausibly filled, so
// a hook finds what it looks for whichever event it handles.
json::object probe_payload(std::string_view event) {
  return json::object{
      {"event", event},
      {"prompt", "Say hello."},
      {"response", "Hello."},
      {"provider", "provider-mock"},
      {"model", "mock-model"},
      {"tool_name", "read_file"},
      {"tool_call_id", "call_validate_1"},
      {"tool_input", {{"path", "README.md"}}},
      {"result", {{"success", true}, {"output", "hello"}}},
      {"error", {{"kind", "network"}, {"message", "unreachable"}}},
      {"block_index", 0},
      {"block", {{"type", "text"}, {"text", "Hello."}}},
      {"delta", {{"type", "text"}, {"text", "Hel"}}},
      {"usage", {{"input_tokens", 3}, {"output_tokens", 2}, {"total_tokens", 5}}},
      {"level", "graceful"},
      {"status", "success"},
      {"message", "validation probe"},
  };
}

CheckResult hook_events(const CheckContext &context) {
  ProbeKernel probe;
  probe.mount_under_test(context.file, context.config);
  for (const auto &[module, error] : probe.coordinator().run_session_ready())
    return fail("hook-events", one_line("session_ready failed: " + error));
  std::size_t handled = 0;
  for (std::string_view event : events::kAll) {
    if (probe.hooks().has_handlers(event)) ++handled;
    HookResult combined = probe.hooks().emit(event, probe_payload(event));
    (void)combined.to_json();  // the combination must render
  }
  auto failures = probe.log_lines_matching("handler ");
  std::erase_if(failures, [](const std::string &l) { return l.find(" failed: ") == l.npos; });
  if (!failures.empty())
    return fail("hook-events", one_line(fmt::format("{} handler calls gave no valid HookResult, "
                                                    "first: {}",
                                                    failures.size(), failures.front())));
  return pass("hook-events", fmt::format("{} canonical events emitted, {} reached its handlers, "
                                         "every result a valid HookResult",
                                         events::kAll.size(), handled));
}

// A conversation with every content block type of the unified model.
json::array every_block_conversation() {
  return json::parse(R"([
    {"role":"system","content":"You are a validation probe."},
    {"role":"user","content":[
      {"type":"text","text":"Look at this."},
      {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},
    {"role":"assistant","content":[
      {"type":"thinking","thinking":"Let me think.","signature":"c2lnbmF0dXJl"},
      {"type":"redacted_thinking","data":"ZW5jcnlwdGVk"},
      {"type":"reasoning","content":[{"type":"reasoning_text","text":"step"}],
       "summary":[{"type":"summary_text","text":"short"}],"id":"rs_1"},
      {"type":"text","text":"I will read it."},
      {"type":"tool_call","id":"call_1","name":"read_file","input":{"path":"README.md"}}]},
    {"role":"tool","tool_call_id":"call_1","content":[
      {"type":"tool_result","tool_call_id":"call_1","output":{"text":"hello"}}]},
    {"role":"assistant","content":"It says hello."}
  ])")
      .as_array();
}

// Where `got` differs from `sent` (fields a context adds, such as metadata, are allowed).
std::string difference(const json::object &sent, const json::value &got, std::size_t index) {
  if (!got.is_object())
    return fmt::format("message {} came back as {}", index, json::serialize(got));
  for (const auto &[key, value] : sent) {
    const json::value *back = got.get_object().if_contains(key);
    if (!back || *back != value)
      return one_line(fmt::format("message {} ({}) lost or changed '{}': sent {}, got {}", index,
                                  json::serialize(sent.at("role")), key, json::serialize(value),
                                  back ? json::serialize(*back) : std::string("nothing")),
                      300);
  }
  return {};
}

std::string round_trip_problem(const amp_context_vtable &table, void *instance) {
  const json::array sent = every_block_conversation();
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const std::string text = json::serialize(sent[i]);
    if (amp_status s = table.add_message(instance, {text.data(), text.size()}); s != AMP_OK)
      return fmt::format("add_message refused message {} (status {})", i, static_cast<int>(s));
  }
  TextWriter writer;
  if (table.get_messages(instance, &writer) != AMP_OK) return "get_messages failed";
  json::error_code ec;
  json::value got = json::parse(writer.text, ec);
  if (ec || !got.is_array()) return "get_messages did not write a JSON array";
  if (got.get_array().size() != sent.size())
    return fmt::format("added {} messages, get_messages returned {}", sent.size(),
                       got.get_array().size());
  for (std::size_t i = 0; i < sent.size(); ++i)
    if (auto d = difference(sent[i].get_object(), got.get_array()[i], i); !d.empty()) return d;
  TextWriter for_request;
  if (table.get_messages_for_request(instance, {"{}", 2}, &for_request) != AMP_OK ||
      !json::parse(for_request.text, ec).is_array() || ec)
    return "get_messages_for_request did not write a JSON array";
  return {};
}

CheckResult context_round_trip(const CheckContext &context) {
  ProbeKernel probe;
  MountedModule &m = probe.mount_under_test(context.file, context.config);
  probe.coordinator().run_session_ready();
  const auto &table = *m.table<amp_context_vtable>();
  if (auto problem = round_trip_problem(table, m.instance); !problem.empty())
    return fail("context-round-trip", problem);
  return pass("context-round-trip",
              "text, image, thinking with signature, redacted thinking, reasoning, tool call and "
              "tool result blocks, and string contents, came back unchanged");
}

}  // namespace

CheckResult hook_events_check(const CheckContext &context) {
  return guarded_check("hook-events", [&] { return hook_events(context); });
}

CheckResult context_round_trip_check(const CheckContext &context) {
  return guarded_check("context-round-trip", [&] { return context_round_trip(context); });
}

}  // namespace amplifier::host::validate
