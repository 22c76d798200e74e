// hooks-otel against a loopback OTLP/HTTP receiver. Every request the module sends is checked
// against the OTLP JSON encoding (opentelemetry-proto's JSON mapping): resourceSpans >
// scopeSpans > spans, trace ids of 32 and span ids of 16 lowercase hex digits, kind and status
// code as integers, times and intValue as decimal strings, each attribute value exactly one of
// the AnyValue kinds. Then the spans themselves: the session > turn > LLM call / tool tree,
// the GenAI attributes, no content unless capture_content, a collector that is down, and a
// delegated child inside its parent's trace.
#include "host_process.hpp"
#include "session_harness.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

namespace json = boost::json;
using amplifier::loopback::LoopbackServer;
using amplifier::loopback::ScriptedResponse;

namespace {

bool is_hex(std::string_view s, std::size_t digits) {
  return s.size() == digits && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         }) && s != std::string(digits, '0');
}

bool is_decimal(const json::value &v) {
  if (!v.is_string() || v.as_string().empty()) return false;
  const auto &s = v.as_string();
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One AnyValue: exactly one of its kinds, each in its JSON-mapping type.
void check_any_value(const json::value &value, const std::string &where) {
  INFO(where << ": " << json::serialize(value));
  REQUIRE(value.is_object());
  const json::object &o = value.as_object();
  REQUIRE(o.size() == 1);
  const auto &[kind, v] = *o.begin();
  if (kind == "stringValue") CHECK(v.is_string());
  else if (kind == "intValue") CHECK(is_decimal(v));
  else if (kind == "doubleValue") CHECK(v.is_number());
  else if (kind == "boolValue") CHECK(v.is_bool());
  else if (kind == "arrayValue") {
    REQUIRE(v.is_object());
    for (const auto &item : v.at("values").as_array()) check_any_value(item, where + "[]");
  } else {
    FAIL("unknown AnyValue kind " << std::string(kind));
  }
}

void check_attributes(const json::value &list, const std::string &where) {
  REQUIRE(list.is_array());
  std::set<std::string> keys;
  for (const auto &a : list.as_array()) {
    REQUIRE(a.is_object());
    REQUIRE(a.as_object().size() == 2);
    const std::string key(a.at("key").as_string());
    CHECK_MESSAGE(keys.insert(key).second, "attribute " << key << " twice in " << where);
    check_any_value(a.at("value"), where + "." + key);
  }
}

struct Span {
  std::string trace_id, span_id, parent_id, name;
  int kind = 0;
  int status = 0;
  std::string status_message;
  std::map<std::string, json::value> attributes;  // key -> AnyValue object

  std::string text(const std::string &key) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? "" : std::string(it->second.at("stringValue").as_string());
  }
  std::int64_t integer(const std::string &key) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? -1 : std::stoll(std::string(it->second.at("intValue").as_string()));
  }
  bool has(const std::string &key) const { return attributes.count(key) > 0; }
};

// The spans of one export request, after checking its encoding.
std::vector<Span> spans_of_request(const amplifier::loopback::RecordedRequest &request) {
  CHECK(request.method == "POST");
  CHECK(request.target == "/v1/traces");
  CHECK(request.header("content-type").value_or("") == "application/json");
  json::value body = json::parse(request.body);
  std::vector<Span> out;
  const json::array &resource_spans = body.at("resourceSpans").as_array();
  REQUIRE(resource_spans.size() == 1);
  const json::object &rs = resource_spans[0].as_object();
  check_attributes(rs.at("resource").at("attributes"), "resource");
  bool service = false;
  for (const auto &a : rs.at("resource").at("attributes").as_array())
    service |= a.at("key") == "service.name" && a.at("value").at("stringValue") == "amplifier";
  CHECK(service);
  for (const auto &scope_spans : rs.at("scopeSpans").as_array()) {
    CHECK(scope_spans.at("scope").at("name") == "amplifier.hooks-otel");
    for (const auto &s : scope_spans.at("spans").as_array()) {
      const json::object &o = s.as_object();
      Span span;
      span.trace_id = std::string(o.at("traceId").as_string());
      span.span_id = std::string(o.at("spanId").as_string());
      CHECK(is_hex(span.trace_id, 32));
      CHECK(is_hex(span.span_id, 16));
      if (const json::value *parent = o.if_contains("parentSpanId")) {
        span.parent_id = std::string(parent->as_string());
        CHECK(is_hex(span.parent_id, 16));
      }
      span.name = std::string(o.at("name").as_string());
      span.kind = static_cast<int>(o.at("kind").as_int64());
      CHECK((span.kind >= 1 && span.kind <= 5));
      REQUIRE(is_decimal(o.at("startTimeUnixNano")));
      REQUIRE(is_decimal(o.at("endTimeUnixNano")));
      CHECK(std::stoull(std::string(o.at("startTimeUnixNano").as_string())) <=
            std::stoull(std::string(o.at("endTimeUnixNano").as_string())));
      check_attributes(o.at("attributes"), span.name);
      for (const auto &a : o.at("attributes").as_array())
        span.attributes[std::string(a.at("key").as_string())] = a.at("value");
      span.status = static_cast<int>(o.at("status").at("code").as_int64());
      CHECK((span.status >= 0 && span.status <= 2));
      if (const json::value *m = o.at("status").as_object().if_contains("message"))
        span.status_message = std::string(m->as_string());
      out.push_back(std::move(span));
    }
  }
  return out;
}

std::vector<Span> all_spans(const LoopbackServer &collector) {
  std::vector<Span> out;
  for (const auto &request : collector.requests())
    for (auto &span : spans_of_request(request)) out.push_back(std::move(span));
  return out;
}

const Span &named(const std::vector<Span> &spans, std::string_view name, std::size_t nth = 0) {
  for (const auto &span : spans)
    if (span.name == name && nth-- == 0) return span;
  FAIL("no span " << std::string(name));
  return spans.front();
}

std::size_t count_named(const std::vector<Span> &spans, std::string_view prefix) {
  return std::count_if(spans.begin(), spans.end(),
                       [&](const Span &s) { return s.name.starts_with(prefix); });
}

std::string plan_for(const LoopbackServer &collector, const std::string &extra_config = "") {
  return R"(session:
  orchestrator: loop-basic
  context: context-simple
  pricing: {"mock*": {input: 1000, output: 2000}}
providers:
  - module: provider-mock
    config:
      responses:
        - {tool_calls: [{name: missing_tool, input: {path: "/etc/secret-argument"}}], usage: {input_tokens: 10, output_tokens: 5, cache_read_tokens: 4}}
        - {text: "the secret answer", usage: {input_tokens: 20, output_tokens: 7}}
hooks:
  - module: hooks-otel
    config: {endpoint: ")" +
         collector.base_url() + R"(/v1/traces", schedule_delay_ms: 50)" + extra_config + R"(}
)";
}

}  // namespace

TEST_CASE("a turn as OTLP/JSON spans: session > turn > LLM calls and tools, with GenAI attributes") {
  LoopbackServer collector;
  collector.set_default_response(ScriptedResponse::json(200, "{}"));
  {
    auto session = amp_test::make_session(plan_for(collector));
    session->initialize();
    CHECK(session->execute("the secret prompt").status == "success");
    session->cleanup();  // session:end, then the module sends what is left
  }
  const std::vector<Span> spans = all_spans(collector);
  REQUIRE(spans.size() == 5);
  const Span &root = named(spans, "session");
  const Span &turn = named(spans, "invoke_agent amplifier");
  const Span &first = named(spans, "chat mock-model", 0);
  const Span &second = named(spans, "chat mock-model", 1);
  const Span &tool = named(spans, "execute_tool missing_tool");
  for (const Span *s : {&turn, &first, &second, &tool}) CHECK(s->trace_id == root.trace_id);
  CHECK(root.parent_id.empty());
  CHECK(turn.parent_id == root.span_id);
  CHECK(first.parent_id == turn.span_id);
  CHECK(tool.parent_id == turn.span_id);
  std::set<std::string> ids;
  for (const auto &s : spans) ids.insert(s.span_id);
  CHECK(ids.size() == spans.size());

  CHECK(turn.text("gen_ai.operation.name") == "invoke_agent");
  CHECK(turn.text("gen_ai.agent.name") == "amplifier");
  CHECK(turn.text("amplifier.turn.status") == "success");
  CHECK(turn.text("gen_ai.conversation.id") == root.text("amplifier.session.id"));

  CHECK(first.kind == 3);  // CLIENT
  CHECK(first.text("gen_ai.operation.name") == "chat");
  CHECK(first.text("gen_ai.provider.name") == "mock");
  CHECK(first.text("gen_ai.request.model") == "mock-model");
  // The conventions' input_tokens includes the cached ones (the mock reports OpenAI's way).
  CHECK(first.integer("gen_ai.usage.input_tokens") == 10);
  CHECK(first.integer("gen_ai.usage.cache_read.input_tokens") == 4);
  CHECK(first.integer("gen_ai.usage.output_tokens") == 5);
  CHECK(second.integer("gen_ai.usage.input_tokens") == 20);
  CHECK(second.attributes.at("amplifier.cost.usd").at("doubleValue").as_double() ==
        doctest::Approx(0.034));

  CHECK(tool.text("gen_ai.operation.name") == "execute_tool");
  CHECK(tool.text("gen_ai.tool.name") == "missing_tool");
  CHECK(tool.text("gen_ai.tool.type") == "function");
  CHECK(!tool.text("gen_ai.tool.call.id").empty());
  CHECK(tool.status == 2);  // no such tool: an error, said so
  CHECK(tool.text("error.type") == "tool_error");

  // No content by default: not the prompt, the answer, or a tool's arguments.
  for (const auto &request : collector.requests()) {
    CHECK(request.body.find("secret prompt") == std::string::npos);
    CHECK(request.body.find("secret answer") == std::string::npos);
    CHECK(request.body.find("secret-argument") == std::string::npos);
  }
}

TEST_CASE("capture_content: the prompt, the answer and the tool's arguments are in the spans") {
  LoopbackServer collector;
  collector.set_default_response(ScriptedResponse::json(200, "{}"));
  {
    auto session = amp_test::make_session(plan_for(collector, ", capture_content: true"));
    session->initialize();
    CHECK(session->execute("the secret prompt").status == "success");
    session->cleanup();
  }
  const std::vector<Span> spans = all_spans(collector);
  const Span &turn = named(spans, "invoke_agent amplifier");
  const json::value input = json::parse(turn.text("gen_ai.input.messages"));
  CHECK(input.at(0).at("role") == "user");
  CHECK(input.at(0).at("parts").at(0).at("content") == "the secret prompt");
  CHECK(turn.text("gen_ai.output.messages").find("the secret answer") != std::string::npos);
  CHECK(named(spans, "execute_tool missing_tool").text("gen_ai.tool.call.arguments") ==
        R"({"path":"/etc/secret-argument"})");
}

TEST_CASE("batches of max_batch spans, no span lost; content cut whole characters at a time") {
  LoopbackServer collector;
  collector.set_default_response(ScriptedResponse::json(200, "{}"));
  // 300 four-byte characters: cut at 101 bytes, a character boundary comes at 100.
  std::string prompt;
  for (int i = 0; i < 300; ++i) prompt += "\xF0\x9F\x98\x80";
  {
    auto session = amp_test::make_session(
        plan_for(collector, ", capture_content: true, max_content_chars: 101, max_batch: 2"));
    session->initialize();
    CHECK(session->execute(prompt).status == "success");
    session->cleanup();
  }
  const std::vector<Span> spans = all_spans(collector);  // every body parsed as JSON
  CHECK(spans.size() == 5);
  CHECK(collector.requests().size() >= 3);
  for (const auto &request : collector.requests()) {
    const json::value body = json::parse(request.body);
    std::size_t in_request = 0;
    for (const auto &scope : body.at("resourceSpans").at(0).at("scopeSpans").as_array())
      in_request += scope.at("spans").as_array().size();
    CHECK(in_request <= 2);
  }
  // The cut prompt is still valid JSON (and valid UTF-8: the body parsed), 25 whole smileys.
  const json::value input = json::parse(named(spans, "invoke_agent amplifier").text("gen_ai.input.messages"));
  const std::string content(input.at(0).at("parts").at(0).at("content").as_string());
  CHECK(content == prompt.substr(0, 100) + " [cut]");
}

TEST_CASE("a collector that does not answer holds the session's end no longer than shutdown_timeout_ms") {
  LoopbackServer collector;
  ScriptedResponse stalled = ScriptedResponse::json(200, "{}");
  stalled.head_delay = std::chrono::seconds(30);
  collector.set_default_response(stalled);
  amp_test::LogCapture log;
  auto session = amp_test::make_session(
      plan_for(collector, ", shutdown_timeout_ms: 500"));
  session->initialize();
  CHECK(session->execute("go").status == "success");
  const auto started = std::chrono::steady_clock::now();
  session->cleanup();
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(took < std::chrono::seconds(5));
  CHECK(collector.wait_for_requests(1, amp_test::kPatience));
}

TEST_CASE("a collector that is down: the turn is untouched, and it is said once") {
  std::string endpoint;
  {
    LoopbackServer gone;
    endpoint = gone.base_url() + "/v1/traces";
  }  // closed: connections are refused
  amp_test::LogCapture log;
  auto session = amp_test::make_session(R"(session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
    config: {responses: [{text: one}, {text: two}, {text: three}]}
hooks:
  - module: hooks-otel
    config: {endpoint: ")" + endpoint + R"(", schedule_delay_ms: 20, max_batch: 1, shutdown_timeout_ms: 200}
)");
  session->initialize();
  for (const char *prompt : {"a", "b", "c"}) CHECK(session->execute(prompt).status == "success");
  CHECK(log.wait_for({"hooks-otel: could not export"}, 1, amp_test::kPatience));
  const auto started = std::chrono::steady_clock::now();
  session->cleanup();
  // Known to be down: the session's end does not wait for it again.
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(1500));
  CHECK(log.count({"hooks-otel: could not export"}) == 1);

  // A one-turn run whose only export is the last one still says the collector is down.
  amp_test::LogCapture short_log;
  auto brief = amp_test::make_session(R"(session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
hooks:
  - module: hooks-otel
    config: {endpoint: ")" + endpoint + R"(", schedule_delay_ms: 3600000}
)");
  brief->initialize();
  CHECK(brief->execute("a").status == "success");
  brief->cleanup();
  CHECK(short_log.count({"hooks-otel: could not export"}) == 1);
}

TEST_CASE("a bad endpoint is a plan error naming it") {
  auto session = amp_test::make_session(R"(session:
  orchestrator: loop-basic
  context: context-simple
providers:
  - module: provider-mock
hooks:
  - module: hooks-otel
    config: {endpoint: "localhost:4318"}
    required: true
)");
  CHECK_THROWS_WITH_AS(session->initialize(), doctest::Contains("endpoint"), amplifier::SessionError);
}

TEST_CASE("a delegated child's spans are in its parent's trace, under the delegate call") {
  LoopbackServer collector;
  collector.set_default_response(ScriptedResponse::json(200, "{}"));
  amp_host_test::Scratch s;
  auto file = s.write("plan.yaml", R"(session:
  orchestrator: loop-streaming
  context: context-simple
providers:
  - module: provider-mock
    config: {responses: [{tool_calls: [{name: delegate, input: {agent: researcher, instruction: "Find"}}]}, {text: "Parent done."}]}
tools:
  - {module: tool-delegate}
hooks:
  - module: hooks-otel
    config: {endpoint: ")" + collector.base_url() + R"(/v1/traces", schedule_delay_ms: 50}
agents:
  researcher:
    description: Finds answers
    instructions: You research things.
    providers:
      - module: provider-mock
        config: {responses: [{text: "Child answer"}]}
)");
  auto run = amp_host_test::run_amplifier({"run", "--plan", file.string(), "go"}, s.options());
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::vector<Span> spans = all_spans(collector);
  REQUIRE(count_named(spans, "session") == 2);
  const Span &delegate = named(spans, "execute_tool delegate");
  const Span *parent_root = nullptr, *child_root = nullptr;
  for (const auto &span : spans)
    if (span.name == "session") (span.parent_id.empty() ? parent_root : child_root) = &span;
  REQUIRE(parent_root);
  REQUIRE(child_root);
  for (const auto &span : spans) CHECK(span.trace_id == parent_root->trace_id);
  CHECK(child_root->parent_id == delegate.span_id);
  CHECK(child_root->text("amplifier.session.parent_id") == parent_root->text("amplifier.session.id"));
  const Span &child_turn = named(spans, "invoke_agent researcher");
  CHECK(child_turn.parent_id == child_root->span_id);
}
