// HookRegistry: ordering, actions, combination, injections, failures, default fields.
#include "amplifier/hooks.hpp"
#include "log_capture.hpp"

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

using namespace amplifier;
namespace json = boost::json;

namespace {

HookResult with_action(HookAction action) {
  HookResult result;
  result.action = action;
  return result;
}

HookResult injection(std::string text, std::string role = "system", bool ephemeral = false) {
  HookResult result = with_action(HookAction::InjectContext);
  result.context_injection = std::move(text);
  result.context_injection_role = std::move(role);
  result.ephemeral = ephemeral;
  return result;
}

HookResult modify(json::object data) {
  HookResult result = with_action(HookAction::Modify);
  result.data = std::move(data);
  return result;
}

HookHandler returning(HookResult result) {
  return [result](std::string_view, const json::object &) { return result; };
}

// A handler that appends `label` to `order` and continues.
HookHandler recording(std::vector<std::string> &order, std::string label) {
  return [&order, label](std::string_view, const json::object &) {
    order.push_back(label);
    return HookResult{};
  };
}

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    i += length;
  }
  return true;
}

}  // namespace

TEST_CASE("handlers run by priority, equal priorities in registration order") {
  HookRegistry hooks;
  std::vector<std::string> order;
  hooks.register_handler("tool:pre", recording(order, "p5-first"), 5);
  hooks.register_handler("tool:pre", recording(order, "p-1"), -1);
  hooks.register_handler("tool:pre", recording(order, "p5-second"), 5);
  hooks.register_handler("tool:pre", recording(order, "p0"), 0);
  hooks.register_handler("tool:post", recording(order, "other event"), -100);

  const HookResult result = hooks.emit("tool:pre", {{"tool_name", "bash"}});
  CHECK(order == std::vector<std::string>{"p-1", "p0", "p5-first", "p5-second"});
  CHECK(result.action == HookAction::Continue);
  CHECK(result.data.as_object().at("tool_name") == "bash");
  CHECK(hooks.handler_count() == 5);
}

TEST_CASE("\"*\" handlers run for every event, merged into the same priority order") {
  HookRegistry hooks;
  std::vector<std::string> order;
  hooks.register_handler("tool:pre", recording(order, "specific-0"), 0);
  hooks.register_handler(std::string(HookRegistry::kAllEvents), recording(order, "all-1"), 1);
  hooks.register_handler("tool:pre", recording(order, "specific-2"), 2);
  hooks.register_handler("*", recording(order, "all-0"), 0);

  hooks.emit("tool:pre", {});
  CHECK(order == std::vector<std::string>{"specific-0", "all-0", "all-1", "specific-2"});

  order.clear();
  hooks.emit("session:start", {});
  CHECK(order == std::vector<std::string>{"all-0", "all-1"});

  CHECK(hooks.has_handlers("anything:at_all"));
}

TEST_CASE("has_handlers reflects registrations") {
  HookRegistry hooks;
  CHECK_FALSE(hooks.has_handlers("tool:pre"));
  const auto id = hooks.register_handler("tool:pre", returning({}));
  CHECK(hooks.has_handlers("tool:pre"));
  CHECK_FALSE(hooks.has_handlers("tool:post"));
  CHECK(hooks.unregister(id) == 1);
  CHECK_FALSE(hooks.has_handlers("tool:pre"));
  CHECK(hooks.handler_count() == 0);
}

TEST_CASE("registration rejects an empty event or handler") {
  HookRegistry hooks;
  CHECK_THROWS_AS(hooks.register_handler("", returning({})), std::invalid_argument);
  CHECK_THROWS_AS(hooks.register_handler("tool:pre", HookHandler{}), std::invalid_argument);
  CHECK(hooks.handler_count() == 0);
}

TEST_CASE("emit without handlers returns the payload with defaults and a timestamp") {
  HookRegistry hooks;
  hooks.set_default_fields({{"session_id", "s-1"}, {"parent_id", "p-1"}});
  const HookResult result = hooks.emit("content_block:delta", {{"delta", "hi"}});
  CHECK(result.action == HookAction::Continue);
  const auto &data = result.data.as_object();
  CHECK(data.at("delta") == "hi");
  CHECK(data.at("session_id") == "s-1");
  CHECK(data.at("parent_id") == "p-1");
  CHECK(data.contains("timestamp"));
}

TEST_CASE("default fields are added only when the payload lacks them") {
  HookRegistry hooks;
  hooks.set_default_fields({{"session_id", "default-session"}, {"parent_id", nullptr}});
  json::object seen;
  hooks.register_handler("prompt:submit", [&](std::string_view, const json::object &data) {
    seen = data;
    return HookResult{};
  });
  hooks.emit("prompt:submit", {{"prompt", "hello"}, {"session_id", "child-session"}});
  CHECK(seen.at("session_id") == "child-session");
  CHECK(seen.at("parent_id").is_null());
  CHECK(seen.at("prompt") == "hello");

  hooks.emit("prompt:submit", {{"prompt", "again"}});
  CHECK(seen.at("session_id") == "default-session");
}

TEST_CASE("timestamps are ISO 8601 UTC with milliseconds; a caller's own timestamp is kept") {
  static const std::regex iso(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)");
  CHECK(std::regex_match(iso_timestamp_now(), iso));

  HookRegistry hooks;
  const auto fresh = hooks.emit("session:start", {}).data.as_object();
  CHECK(std::regex_match(std::string(fresh.at("timestamp").as_string()), iso));

  const auto replayed = hooks.emit("session:start", {{"timestamp", "2001-02-03T04:05:06.789Z"}});
  CHECK(replayed.data.as_object().at("timestamp") == "2001-02-03T04:05:06.789Z");
}

TEST_CASE("continue leaves the payload alone") {
  HookRegistry hooks;
  hooks.register_handler("tool:pre", returning(with_action(HookAction::Continue)));
  const HookResult result = hooks.emit("tool:pre", {{"tool_name", "grep"}});
  CHECK(result.action == HookAction::Continue);
  CHECK(result.data.as_object().at("tool_name") == "grep");
}

TEST_CASE("deny short-circuits and carries the denying handler's reason") {
  HookRegistry hooks;
  std::vector<std::string> order;
  hooks.register_handler("tool:pre", recording(order, "before"), 0);
  hooks.register_handler("tool:pre", returning(injection("lost")), 1);
  hooks.register_handler("tool:pre", [&](std::string_view, const json::object &) {
    order.push_back("denier");
    HookResult result = with_action(HookAction::Deny);
    result.reason = "rm -rf is not allowed";
    return result;
  }, 2);
  hooks.register_handler("tool:pre", recording(order, "after"), 3);

  const HookResult result = hooks.emit("tool:pre", {{"tool_name", "bash"}});
  CHECK(result.action == HookAction::Deny);
  CHECK(result.reason == "rm -rf is not allowed");
  CHECK(order == std::vector<std::string>{"before", "denier"});
  CHECK(result.data.as_object().at("tool_name") == "bash");
}

TEST_CASE("modify replaces the payload for the next handlers, and chains") {
  HookRegistry hooks;
  hooks.register_handler("tool:post", [](std::string_view, const json::object &data) {
    json::object next = data;
    next["redacted"] = true;
    return modify(std::move(next));
  }, 0);
  json::object seen_by_second;
  hooks.register_handler("tool:post", [&](std::string_view, const json::object &data) {
    seen_by_second = data;
    json::object next = data;
    next["result"] = "[redacted]";
    return modify(std::move(next));
  }, 1);
  json::object seen_by_third;
  hooks.register_handler("tool:post", [&](std::string_view, const json::object &data) {
    seen_by_third = data;
    return HookResult{};
  }, 2);

  const HookResult result = hooks.emit("tool:post", {{"result", "secret"}});
  CHECK(seen_by_second.at("redacted") == true);
  CHECK(seen_by_second.at("result") == "secret");
  CHECK(seen_by_third.at("result") == "[redacted]");
  CHECK(result.action == HookAction::Modify);
  CHECK(result.data.as_object().at("result") == "[redacted]");
  CHECK(result.data.as_object().at("redacted") == true);
}

TEST_CASE("modify without an object is ignored with a warning") {
  LogCapture log;
  HookRegistry hooks;
  HookResult bad = with_action(HookAction::Modify);
  bad.data = "not an object";
  hooks.register_handler("tool:post", returning(bad), 0, "bad-modifier");
  const HookResult result = hooks.emit("tool:post", {{"result", "kept"}});
  CHECK(result.action == HookAction::Continue);
  CHECK(result.data.as_object().at("result") == "kept");
  CHECK(log.count_containing({"bad-modifier", "modify"}) == 1);
}

TEST_CASE("ask_user keeps the first question's approval fields") {
  HookRegistry hooks;
  HookResult first = with_action(HookAction::AskUser);
  first.approval_prompt = "Allow writing to /etc?";
  first.approval_options = {"yes", "no", "always"};
  first.approval_timeout = 30;
  first.approval_default = "allow";
  HookResult second = with_action(HookAction::AskUser);
  second.approval_prompt = "Second question";
  hooks.register_handler("tool:pre", returning(first), 0);
  hooks.register_handler("tool:pre", returning(second), 1);

  const HookResult result = hooks.emit("tool:pre", {});
  CHECK(result.action == HookAction::AskUser);
  CHECK(result.approval_prompt == "Allow writing to /etc?");
  CHECK(result.approval_options == std::vector<std::string>{"yes", "no", "always"});
  CHECK(result.approval_timeout == 30);
  CHECK(result.approval_default == "allow");
}

TEST_CASE("combined action precedence: deny > ask_user > inject_context > modify > continue") {
  struct Case {
    std::vector<HookAction> actions;
    HookAction expected;
  };
  using A = HookAction;
  const std::vector<Case> cases = {
      {{A::Continue, A::Continue}, A::Continue},
      {{A::Continue, A::Modify}, A::Modify},
      {{A::Modify, A::InjectContext}, A::InjectContext},
      {{A::InjectContext, A::Modify}, A::InjectContext},
      {{A::InjectContext, A::AskUser}, A::AskUser},
      {{A::AskUser, A::InjectContext, A::Modify}, A::AskUser},
      {{A::Modify, A::AskUser, A::Continue}, A::AskUser},
      {{A::AskUser, A::Deny}, A::Deny},
      {{A::InjectContext, A::Modify, A::AskUser, A::Deny}, A::Deny},
  };
  for (const auto &c : cases) {
    HookRegistry hooks;
    for (A action : c.actions) {
      HookResult result = with_action(action);
      if (action == A::Modify) result.data = json::object{{"modified", true}};
      if (action == A::InjectContext) result.context_injection = "note";
      hooks.register_handler("provider:request", returning(result));
    }
    CAPTURE(c.actions.size());
    CHECK(to_string(hooks.emit("provider:request", {}).action) == to_string(c.expected));
  }
}

TEST_CASE("injections merge with a blank line and keep each role and ephemeral flag") {
  HookRegistry hooks;
  hooks.register_handler("provider:request", returning(injection("Remember the budget.", "system", true)), 0);
  hooks.register_handler("provider:request", returning(injection("The user prefers short answers.", "user", false)), 1);

  const HookResult result = hooks.emit("provider:request", {});
  CHECK(result.action == HookAction::InjectContext);
  CHECK(result.context_injection == "Remember the budget.\n\nThe user prefers short answers.");
  REQUIRE(result.injections.size() == 2);
  CHECK(result.injections[0].text == "Remember the budget.");
  CHECK(result.injections[0].role == "system");
  CHECK(result.injections[0].ephemeral);
  CHECK(result.injections[1].role == "user");
  CHECK_FALSE(result.injections[1].ephemeral);
  // The mix is not wholly ephemeral, so the flat flag must not claim it is.
  CHECK_FALSE(result.ephemeral);
  CHECK(result.context_injection_role == "system");
}

TEST_CASE("the flat ephemeral flag holds when every injection is ephemeral") {
  HookRegistry hooks;
  hooks.register_handler("provider:request", returning(injection("a", "system", true)));
  hooks.register_handler("provider:request", returning(injection("b", "system", true)));
  const HookResult result = hooks.emit("provider:request", {});
  CHECK(result.ephemeral);
  CHECK(result.context_injection == "a\n\nb");
}

TEST_CASE("a single injection keeps append_to_last_tool_result") {
  HookRegistry hooks;
  HookResult result = injection("lint: 2 warnings");
  result.append_to_last_tool_result = true;
  hooks.register_handler("tool:post", returning(result));
  const HookResult combined = hooks.emit("tool:post", {});
  CHECK(combined.append_to_last_tool_result);
  REQUIRE(combined.injections.size() == 1);
  CHECK(combined.injections[0].append_to_last_tool_result);
}

TEST_CASE("injections are sanitised of control characters, keeping newlines and tabs") {
  HookRegistry hooks;
  const std::string dirty = std::string("\x1b[31mred\x1b[0m\r\n\tok\x07") + '\0' + "end\x7f" + "\xC2\x85" + "caf\xC3\xA9";
  hooks.register_handler("provider:request", returning(injection(dirty)));
  const HookResult result = hooks.emit("provider:request", {});
  CHECK(result.context_injection == "[31mred[0m\n\tokendcaf\xC3\xA9");
  CHECK(result.injections.at(0).text == result.context_injection);
}

TEST_CASE("an injection that is empty after sanitising adds nothing") {
  HookRegistry hooks;
  hooks.register_handler("provider:request", returning(injection("\x01\x02")));
  const HookResult result = hooks.emit("provider:request", {});
  CHECK(result.action == HookAction::Continue);
  CHECK(result.injections.empty());
}

TEST_CASE("an oversized injection is truncated on a UTF-8 boundary with a warning") {
  LogCapture log;
  HookRegistry hooks;
  std::string text = "a";
  while (text.size() < HookRegistry::kMaxInjectionBytes + 100) text += "\xC3\xA9";  // é, 2 bytes
  hooks.register_handler("provider:request", returning(injection(text)), 0, "verbose-hook");

  const HookResult result = hooks.emit("provider:request", {});
  const std::string &kept = result.injections.at(0).text;
  CHECK(kept.size() <= HookRegistry::kMaxInjectionBytes);
  CHECK(kept.size() >= HookRegistry::kMaxInjectionBytes - 1);
  CHECK(is_valid_utf8(kept));
  CHECK(text.starts_with(kept));
  CHECK(log.count_containing({"verbose-hook", "truncated"}) == 1);
}

TEST_CASE("injections of one emit share a byte budget") {
  LogCapture log;
  HookRegistry hooks;
  const std::string full(HookRegistry::kMaxInjectionBytes, 'x');
  constexpr int kHandlers = 5;  // 5 x 10 KiB against a 32 KiB budget
  for (int i = 0; i < kHandlers; ++i) hooks.register_handler("provider:request", returning(injection(full)));

  const HookResult result = hooks.emit("provider:request", {});
  std::size_t total = 0;
  for (const auto &i : result.injections) total += i.text.size();
  CHECK(total == HookRegistry::kMaxInjectionBytesPerEmit);
  REQUIRE(result.injections.size() == 4);  // the fifth found the budget spent
  CHECK(result.injections[3].text.size() ==
        HookRegistry::kMaxInjectionBytesPerEmit - 3 * HookRegistry::kMaxInjectionBytes);
  CHECK(log.count_containing({"truncated"}) == 2);
}

TEST_CASE("a throwing handler is logged and skipped; the others still run") {
  LogCapture log;
  HookRegistry hooks;
  std::vector<std::string> order;
  hooks.register_handler("tool:pre", recording(order, "first"), 0);
  hooks.register_handler("tool:pre", [](std::string_view, const json::object &) -> HookResult {
    throw std::runtime_error("database on fire");
  }, 1, "flaky-hook");
  hooks.register_handler("tool:pre", [](std::string_view, const json::object &) -> HookResult {
    throw 42;
  }, 2, "weird-hook");
  hooks.register_handler("tool:pre", returning(injection("still here")), 3);

  const HookResult result = hooks.emit("tool:pre", {});
  CHECK(order == std::vector<std::string>{"first"});
  CHECK(result.action == HookAction::InjectContext);
  CHECK(result.context_injection == "still here");
  CHECK(log.count_containing({"flaky-hook", "tool:pre", "database on fire"}) == 1);
  CHECK(log.count_containing({"weird-hook", "non-standard"}) == 1);
  for (const auto &line : log.lines()) CHECK(line.component == "hooks");
}

TEST_CASE("user messages from several handlers are shown together at the gravest level") {
  HookRegistry hooks;
  HookResult info;
  info.user_message = "formatting applied";
  HookResult warning;
  warning.user_message = "tests are failing";
  warning.user_message_level = "warning";
  warning.suppress_output = true;
  hooks.register_handler("tool:post", returning(info));
  hooks.register_handler("tool:post", returning(warning));
  const HookResult result = hooks.emit("tool:post", {});
  CHECK(result.user_message == "formatting applied\ntests are failing");
  CHECK(result.user_message_level == "warning");
  CHECK(result.suppress_output);
}

TEST_CASE("handlers receive the event name") {
  HookRegistry hooks;
  std::vector<std::string> events;
  hooks.register_handler("*", [&](std::string_view event, const json::object &) {
    events.emplace_back(event);
    return HookResult{};
  });
  hooks.emit("session:start", {});
  hooks.emit("tool:pre", {});
  CHECK(events == std::vector<std::string>{"session:start", "tool:pre"});
}

TEST_CASE("unregister by id, name and owner") {
  HookRegistry hooks;
  const auto id = hooks.register_handler("tool:pre", returning({}), 0, "by-id");
  hooks.register_handler("tool:pre", returning({}), 0, "shared-name", 7);
  hooks.register_handler("tool:post", returning({}), 0, "shared-name", 8);
  hooks.register_handler("tool:post", returning({}), 0, "owned", 7);
  hooks.register_handler("tool:post", returning({}), 0, "");
  CHECK(hooks.handler_count() == 5);

  CHECK(hooks.unregister(id) == 1);
  CHECK(hooks.unregister(id) == 0);
  CHECK(hooks.unregister("shared-name", 8) == 1);   // only owner 8's
  CHECK(hooks.unregister("", 0) == 0);               // unnamed handlers are not matched by ""
  CHECK(hooks.unregister_owner(0) == 0);             // 0 means "no owner"
  CHECK(hooks.unregister_owner(7) == 2);
  CHECK(hooks.handler_count() == 1);

  hooks.register_handler("tool:pre", returning({}), 0, "again", 1);
  hooks.register_handler("tool:pre", returning({}), 0, "again", 2);
  CHECK(hooks.unregister("again") == 2);             // owner 0 = any owner
}

TEST_CASE("a handler may unregister itself during emit without deadlock") {
  HookRegistry hooks;
  int calls = 0;
  HookRegistry::HandlerId self = 0;
  self = hooks.register_handler("tool:pre", [&](std::string_view, const json::object &) {
    ++calls;
    CHECK(hooks.unregister(self) == 1);
    return HookResult{};
  });
  hooks.emit("tool:pre", {});
  hooks.emit("tool:pre", {});
  CHECK(calls == 1);
  CHECK(hooks.handler_count() == 0);
}

TEST_CASE("a handler removed earlier in the same emit does not run") {
  HookRegistry hooks;
  std::vector<std::string> order;
  hooks.register_handler("tool:pre", [&](std::string_view, const json::object &) {
    order.push_back("remover");
    hooks.unregister("victim");
    return HookResult{};
  }, 0);
  hooks.register_handler("tool:pre", recording(order, "victim"), 1, "victim");
  hooks.emit("tool:pre", {});
  CHECK(order == std::vector<std::string>{"remover"});
}

TEST_CASE("handlers registered during an emit run from the next emit on") {
  HookRegistry hooks;
  std::vector<std::string> order;
  bool registered = false;
  hooks.register_handler("tool:pre", [&](std::string_view, const json::object &) {
    order.push_back("registrar");
    if (!registered) hooks.register_handler("tool:pre", recording(order, "late"), 10);
    registered = true;
    return HookResult{};
  });
  hooks.emit("tool:pre", {});
  CHECK(order == std::vector<std::string>{"registrar"});
  hooks.emit("tool:pre", {});
  CHECK(order == std::vector<std::string>{"registrar", "registrar", "late"});
}

TEST_CASE("unregistering destroys the handler's captures before returning") {
  HookRegistry hooks;
  auto state = std::make_shared<int>(1);
  std::weak_ptr<int> watch = state;
  const auto id = hooks.register_handler("tool:pre", [state](std::string_view, const json::object &) {
    return HookResult{};
  });
  state.reset();
  hooks.emit("tool:pre", {});
  CHECK_FALSE(watch.expired());
  hooks.unregister(id);
  CHECK(watch.expired());
}
