// HookEvent and the fast paths: a typed content delta looks to every handler exactly like the
// DOM payload it stands for (as a DOM and as JSON text, byte for byte), an emit nobody hears
// does nothing, and a modify replaces the typed payload for the handlers that follow.
#include "amplifier/hooks.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace amplifier;
namespace json = boost::json;

namespace {

struct Seen {
  std::vector<std::string> json_texts;
  std::vector<json::object> doms;
};

// Registers an event handler that records the payload as text and one that records it as a
// DOM; returns what they saw.
std::shared_ptr<Seen> record(HookRegistry &hooks, std::string event) {
  auto seen = std::make_shared<Seen>();
  hooks.register_event_handler(event, [seen](HookEvent &e) -> std::optional<HookResult> {
    seen->json_texts.emplace_back(e.data_json());
    return std::nullopt;
  });
  hooks.register_handler(event, [seen](std::string_view, const json::object &data) {
    seen->doms.push_back(data);
    return HookResult{};
  });
  return seen;
}

json::object without_timestamp(json::object o) {
  o.erase("timestamp");
  return o;
}

}  // namespace

TEST_CASE("a typed content delta reaches handlers exactly as its DOM payload would") {
  HookRegistry hooks;
  hooks.set_default_fields({{"session_id", "s-1"}, {"parent_id", nullptr}});
  auto seen = record(hooks, "content_block:delta");
  const std::string text = "tab\there \"quoted\" \xc3\xa9\n";
  hooks.emit_content_delta(2, AMP_DELTA_TEXT, text);
  hooks.emit("content_block:delta",
             {{"block_index", 2}, {"delta", {{"type", "text"}, {"text", text}}}});
  hooks.emit_content_delta(1, AMP_DELTA_TOOL_INPUT, R"({"pa)");
  hooks.emit("content_block:delta", {{"block_index", 1}, {"partial_json", R"({"pa)"}});

  REQUIRE(seen->json_texts.size() == 4);
  REQUIRE(seen->doms.size() == 4);
  for (std::size_t pair : {0u, 2u}) {
    // The DOM each handler saw is the same, and the text is what serialising it gives.
    CHECK(without_timestamp(seen->doms[pair]) == without_timestamp(seen->doms[pair + 1]));
    for (std::size_t i : {pair, pair + 1})
      CHECK(seen->json_texts[i] == json::serialize(seen->doms[i]));
  }
  CHECK(seen->json_texts[0].rfind(R"({"block_index":2,"delta":{"type":"text","text":"tab\there)", 0) == 0);
  CHECK(seen->json_texts[0].find(R"("session_id":"s-1","parent_id":null,"timestamp":")") !=
        std::string::npos);
}

TEST_CASE("every delta kind renders its documented field") {
  HookRegistry hooks;
  auto seen = record(hooks, "content_block:delta");
  hooks.emit_content_delta(0, AMP_DELTA_THINKING, "hmm");
  hooks.emit_content_delta(0, AMP_DELTA_SIGNATURE, "c2ln");
  hooks.emit_content_delta(3, AMP_DELTA_REDACTED_THINKING, "opaque");
  REQUIRE(seen->doms.size() == 3);
  CHECK(json::serialize(seen->doms[0].at("delta")) == R"({"type":"thinking","thinking":"hmm"})");
  CHECK(json::serialize(seen->doms[1].at("delta")) == R"({"type":"signature","signature":"c2ln"})");
  CHECK(json::serialize(seen->doms[2].at("delta")) ==
        R"({"type":"redacted_thinking","data":"opaque"})");
  CHECK(seen->doms[2].at("block_index") == 3);
}

TEST_CASE("a typed delta keeps its form for handlers until one modifies it") {
  HookRegistry hooks;
  std::vector<bool> typed;
  std::vector<std::string> texts;
  auto observe = [&](HookEvent &e) -> std::optional<HookResult> {
    typed.push_back(e.delta() != nullptr);
    texts.emplace_back(e.data_json());
    return std::nullopt;
  };
  hooks.register_event_handler("content_block:delta", observe, 0);
  hooks.register_handler("content_block:delta",
                         [](std::string_view, const json::object &) {
                           HookResult r;
                           r.action = HookAction::Modify;
                           r.data = json::object{{"block_index", 0},
                                                 {"delta", {{"type", "text"}, {"text", "[redacted]"}}}};
                           return r;
                         },
                         1);
  hooks.register_event_handler("content_block:delta", observe, 2);
  hooks.emit_content_delta(0, AMP_DELTA_TEXT, "secret");
  CHECK(typed == std::vector<bool>{true, false});
  CHECK(texts[0].find("secret") != std::string::npos);
  CHECK(texts[1] == R"({"block_index":0,"delta":{"type":"text","text":"[redacted]"}})");
}

TEST_CASE("a typed delta carries its text without copies while nobody asks for JSON") {
  HookRegistry hooks;
  const std::string text = "zero-copy";
  const char *seen_at = nullptr;
  hooks.register_event_handler("content_block:delta", [&](HookEvent &e) -> std::optional<HookResult> {
    REQUIRE(e.delta() != nullptr);
    seen_at = e.delta()->text.data();
    CHECK(e.delta()->kind == AMP_DELTA_TEXT);
    CHECK(e.delta()->index == 4);
    return std::nullopt;
  });
  hooks.emit_content_delta(4, AMP_DELTA_TEXT, text);
  CHECK(seen_at == text.data());
}

TEST_CASE("notify and emit_content_delta with nobody listening do nothing") {
  HookRegistry hooks;
  int calls = 0;
  hooks.register_handler("other:event", [&](std::string_view, const json::object &) {
    ++calls;
    return HookResult{};
  });
  hooks.notify("prompt:submit", {{"prompt", "x"}});
  hooks.emit_content_delta(0, AMP_DELTA_TEXT, "x");
  CHECK(calls == 0);
  CHECK_FALSE(hooks.has_handlers("content_block:delta"));
  hooks.notify("other:event", {{"x", 1}});
  CHECK(calls == 1);
}

TEST_CASE("a wildcard handler hears typed deltas and sees the standard fields") {
  HookRegistry hooks;
  hooks.set_default_fields({{"session_id", "s-2"}, {"parent_id", "p"}});
  std::string session, stamp;
  bool standard = false;
  hooks.register_event_handler("*", [&](HookEvent &e) -> std::optional<HookResult> {
    standard = e.has_standard_fields();
    session = std::string(e.session_id());
    stamp = std::string(e.timestamp());
    CHECK(e.data().at("timestamp") == json::value(stamp));
    return std::nullopt;
  });
  hooks.emit_content_delta(0, AMP_DELTA_TEXT, "x");
  CHECK(standard);
  CHECK(session == "s-2");
  CHECK(stamp.size() == 24);
  hooks.emit("custom", {{"session_id", "mine"}});
  CHECK_FALSE(standard);  // the emitter's own session_id wins, and is not the standard one
}

TEST_CASE("a module's JSON payload reaches text handlers spliced, DOM handlers parsed") {
  HookRegistry hooks;
  hooks.set_default_fields({{"session_id", "s-3"}, {"parent_id", nullptr}});
  auto seen = record(hooks, "tool:post");
  const std::string text = R"({"tool_name":"bash","result":{"output":"a \"q\"\n"}})";
  hooks.notify_json("tool:post", text);
  hooks.notify_json("tool:post", "{}");
  hooks.emit("tool:post", json::parse(text).as_object());
  REQUIRE(seen->json_texts.size() == 3);
  // Spliced: the members as they came, then the defaults and the timestamp, as serialising the
  // DOM path's payload gives (the text came canonical here).
  CHECK(without_timestamp(json::parse(seen->json_texts[0]).as_object()) ==
        without_timestamp(seen->doms[2]));
  CHECK(seen->json_texts[0].rfind(R"({"tool_name":"bash","result":{"output":"a \"q\"\n"},"session_id":"s-3","parent_id":null,"timestamp":")", 0) == 0);
  CHECK(seen->json_texts[1].rfind(R"({"session_id":"s-3","parent_id":null,"timestamp":")", 0) == 0);
  for (std::size_t i = 0; i < 3; ++i) CHECK(json::parse(seen->json_texts[i]).as_object() == seen->doms[i]);
}

TEST_CASE("a JSON payload that sets its own timestamp or session keeps them") {
  HookRegistry hooks;
  hooks.set_default_fields({{"session_id", "s-4"}});
  auto seen = record(hooks, "replayed");
  hooks.notify_json("replayed", R"({"timestamp":"2020-01-01T00:00:00.000Z","x":1})");
  hooks.notify_json("replayed", R"({"session_id":"other"})");
  REQUIRE(seen->doms.size() == 2);
  CHECK(seen->doms[0].at("timestamp") == "2020-01-01T00:00:00.000Z");
  CHECK(seen->doms[0].at("session_id") == "s-4");
  CHECK(seen->doms[1].at("session_id") == "other");
}

TEST_CASE("a JSON payload that is not an object is refused, whoever listens") {
  HookRegistry hooks;
  auto seen = record(hooks, "e");
  for (std::string bad : {"[1]", "\"s\"", "{", "{\"a\":1}x", ""})
    CHECK_THROWS_AS(hooks.notify_json("e", bad), std::invalid_argument);
  CHECK(seen->json_texts.empty());
}
