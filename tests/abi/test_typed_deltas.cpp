// ABI 1.2's typed stream deltas, end to end: a C provider reporting through "call_delta" and
// the same provider built as a 1.1 module reporting JSON events must look the same to every
// caller: to an observer that takes typed deltas, to one that reads only JSON (which gets the
// JSON event back, byte for byte), to the orchestrator and to hooks.
#include "session_harness.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/module_loader.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using amp_test::EventLog;
using amp_test::kPatience;
using amp_test::make_session;

namespace {

std::string plan_for(std::string_view provider) {
  return "session: {orchestrator: loop-basic, context: context-simple}\n"
         "providers: [{module: " + std::string(provider) + "}]\n";
}

// Everything one provider call reported, as the observer saw it.
struct Observed {
  std::vector<std::string> json_events;
  std::vector<std::string> typed;  // "<index>:<kind>:<text>"
  amp_status status = AMP_ERROR;
  std::string payload;
  bool done = false;
};

Observed observe_call(amplifier::Session &session, std::string_view provider, bool typed,
                      std::string request = R"({"messages":[{"role":"user","content":"hi"}]})") {
  auto observed = std::make_shared<Observed>();
  auto mutex = std::make_shared<std::mutex>();
  auto cv = std::make_shared<std::condition_variable>();
  amplifier::CallObserver observer;
  observer.on_event = [=](amp_call_id, std::string_view event) {
    std::lock_guard lock(*mutex);
    observed->json_events.emplace_back(event);
  };
  if (typed)
    observer.on_delta = [=](amp_call_id, std::uint32_t index, amp_delta_kind kind,
                            std::string_view text) {
      std::lock_guard lock(*mutex);
      observed->typed.push_back(std::to_string(index) + ":" + std::to_string(kind) + ":" +
                                std::string(text));
    };
  observer.on_finish = [=](amp_call_id, amp_status status, std::string_view payload) {
    std::lock_guard lock(*mutex);
    observed->status = status;
    observed->payload.assign(payload);
    observed->done = true;
    cv->notify_all();
  };
  auto *target = session.coordinator().provider(provider);
  REQUIRE(target != nullptr);
  session.coordinator().start_provider_call(*target, std::move(request), observer);
  std::unique_lock lock(*mutex);
  REQUIRE(cv->wait_for(lock, kPatience, [&] { return observed->done; }));
  return *observed;
}

std::unique_ptr<amplifier::Session> started(std::string_view provider) {
  auto session = make_session(plan_for(provider));
  session->initialize();
  REQUIRE(session->load_failures().empty());
  return session;
}

// The events a session emitted, without the fields that differ between runs.
std::vector<std::string> comparable_events(const EventLog &log) {
  std::vector<std::string> out;
  for (auto event : log.all()) {
    for (auto key : {"session_id", "parent_id", "timestamp", "prompt", "plan", "provider"})
      event.data.erase(key);
    // ledger:update names the provider module of the priced call as well.
    if (auto *call = event.data.if_contains("call"); call && call->is_object())
      call->as_object().erase("provider");
    if (auto *ledger = event.data.if_contains("ledger"); ledger && ledger->is_object())
      ledger->as_object().erase("session_id");
    out.push_back(event.name + " " + boost::json::serialize(event.data));
  }
  return out;
}

}  // namespace

TEST_CASE("a typed provider's deltas reach an observer that takes them typed, with no JSON") {
  auto session = started("provider-c-typed");
  Observed seen = observe_call(*session, "provider-c-typed", /*typed=*/true);
  CHECK(seen.status == AMP_OK);
  CHECK(seen.typed == std::vector<std::string>{"0:2:Weighing ", "0:2:it.", "0:3:c-signature==",
                                               "1:1:Typed", "1:1: deltas",
                                               "1:1: from C: \"q\"\t\\\n"});
  for (const auto &event : seen.json_events)
    CHECK_MESSAGE(event.find("content_block_delta") == std::string::npos, event);
}

TEST_CASE("a JSON-only observer gets a typed delta as exactly the event a 1.1 module sends") {
  auto typed_session = started("provider-c-typed");
  auto json_session = started("provider-c-json");
  Observed from_typed = observe_call(*typed_session, "provider-c-typed", /*typed=*/false);
  Observed from_json = observe_call(*json_session, "provider-c-json", /*typed=*/false);
  CHECK(from_typed.typed.empty());
  CHECK(from_typed.json_events == from_json.json_events);  // byte for byte
  CHECK(from_typed.payload == from_json.payload);
}

TEST_CASE("a 1.1 module's JSON deltas reach a typed observer as JSON events") {
  auto session = started("provider-c-json");
  Observed seen = observe_call(*session, "provider-c-json", /*typed=*/true);
  CHECK(seen.typed.empty());
  std::size_t deltas = 0;
  for (const auto &event : seen.json_events) deltas += event.find("content_block_delta") != std::string::npos;
  CHECK(deltas == 6);
}

TEST_CASE("orchestrator and hooks see the same turn from the typed and the JSON provider") {
  auto typed_session = make_session(plan_for("provider-c-typed"));
  EventLog typed_log(typed_session->hooks());
  typed_session->initialize();
  auto json_session = make_session(plan_for("provider-c-json"));
  EventLog json_log(json_session->hooks());
  json_session->initialize();

  auto typed_turn = typed_session->execute("hi");
  auto json_turn = json_session->execute("hi");
  CHECK(typed_turn.status == "success");
  CHECK(typed_turn.response == json_turn.response);
  CHECK(typed_turn.response == "Typed deltas from C: \"q\"\t\\\n");
  const auto typed_events = comparable_events(typed_log), json_events = comparable_events(json_log);
  REQUIRE(typed_events.size() == json_events.size());
  for (std::size_t i = 0; i < typed_events.size(); ++i) CHECK(typed_events[i] == json_events[i]);
  // The delta events carry the canonical data shape.
  auto deltas = typed_log.payloads("content_block:delta");
  REQUIRE(deltas.size() == 6);
  CHECK(boost::json::serialize(deltas[2].at("delta")) ==
        R"({"type":"signature","signature":"c-signature=="})");
  CHECK(deltas[5].at("block_index") == 1);
  CHECK(deltas[5].contains("session_id"));
  CHECK(deltas[5].contains("timestamp"));
}

TEST_CASE("a delta of unknown kind ends the call with a typed stream error") {
  amp_test::LogCapture log;
  auto session = started("provider-c-typed");
  Observed seen = observe_call(*session, "provider-c-typed", /*typed=*/true,
                               R"({"messages":[{"role":"user","content":"send-unknown-delta-kind"}]})");
  CHECK(seen.status == AMP_ERROR);
  auto error = boost::json::parse(seen.payload).as_object();
  CHECK(error.at("kind") == "stream");
  CHECK(std::string(error.at("message").as_string()).find("unknown kind 99") != std::string::npos);
  CHECK(log.count({"protocol violation", "provider-c-typed", "unknown delta kind 99"}) == 1);
}

TEST_CASE("get_proc finds the functions added from 1.2 on by name and answers NULL for others") {
  const amp_host_api *api = amplifier::host_api_table();
  REQUIRE(AMP_HAS_FIELD(api, amp_host_api, get_proc));
  CHECK(api->abi_minor >= 2);
  auto found = [&](const char *name) { return api->get_proc(name) != nullptr; };
  for (const char *name : {AMP_PROC_CALL_DELTA, AMP_PROC_EMIT_CONTENT_DELTA,
                           AMP_PROC_HOOK_HAS_HANDLERS, AMP_PROC_WORK_SUBMIT,
                           AMP_PROC_SESSION_SPAWN})
    CHECK_MESSAGE(found(name), name);
  CHECK_FALSE(found("no_such_function"));
  CHECK_FALSE(found(""));
  CHECK_FALSE(found(nullptr));
}
