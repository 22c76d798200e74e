// provider-offline, tool-bad-input, orchestrator-turn: what each kind of call must do.
#include "amplifier/errors.hpp"
#include "amplifier/model.hpp"
#include "checks_behavioral.hpp"

#include <boost/json/parse.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <vector>

namespace amplifier::host::validate {
namespace {

namespace json = boost::json;

// The error kinds that say "the network failed" (the transport's own classification).
constexpr std::array<std::string_view, 3> kNetworkKinds = {"network", "unavailable", "timeout"};

std::string answer_text(const CallEnd &end) {
  try {
    return from_json<ChatResponse>(parse_json(end.payload)).text();
  } catch (const std::exception &e) {
    throw std::runtime_error(std::string("not a ChatResponse: ") + e.what());
  }
}

CheckResult judge_offline_answer(const CallSubject &s, const CallEnd &end) {
  if (s.endpoint_keys.empty()) {
    if (end.status != AMP_OK)
      return fail("provider-offline",
                  "it has no endpoint setting, so it must answer a plain request, but it "
                  "ended with " +
                      describe_end(end));
    try {
      return pass("provider-offline",
                  one_line("no endpoint setting; it answered: \"" + answer_text(end) + "\"", 160));
    } catch (const std::exception &e) {
      return fail("provider-offline", one_line(std::string("its answer is ") + e.what()));
    }
  }
  const std::string where = fmt::format("{}", fmt::join(s.endpoint_keys, ", "));
  if (end.status == AMP_OK)
    return fail("provider-offline", fmt::format("it answered although {} pointed at a closed "
                                                "port",
                                                where));
  const std::string kind = error_kind(end);
  if (std::find(kNetworkKinds.begin(), kNetworkKinds.end(), kind) == kNetworkKinds.end())
    return fail("provider-offline",
                fmt::format("with {} at a closed port it ended with {} (expected a network, "
                            "unavailable or timeout error)",
                            where, describe_end(end)));
  return pass("provider-offline",
              fmt::format("with {} at a closed port: {}", where, describe_end(end)));
}

// The inputs every tool must refuse: one that is not an object, and {} when it requires
// properties.
std::vector<std::string> bad_inputs(const json::value &spec) {
  std::vector<std::string> inputs{"[1,2,3]"};
  const json::value *parameters =
      spec.is_object() ? spec.get_object().if_contains("parameters") : nullptr;
  const json::value *required = parameters && parameters->is_object()
                                    ? parameters->get_object().if_contains("required")
                                    : nullptr;
  if (required && required->is_array() && !required->get_array().empty()) inputs.push_back("{}");
  return inputs;
}

// The problem with a tool's answer to bad input, or "".
std::string bad_input_problem(const CallEnd &end) {
  if (end.finishes == 0) return "no terminal event";
  if (end.status != AMP_OK)
    return "ended with " + describe_end(end) + " instead of an error result";
  json::error_code ec;
  json::value result = json::parse(end.payload, ec);
  const json::value *success =
      !ec && result.is_object() ? result.get_object().if_contains("success") : nullptr;
  if (!success || !success->is_bool()) return "its result has no boolean success";
  if (success->get_bool()) return "it succeeded";
  return {};
}

CheckResult tool_bad_input(CallSubject &s, CallTracker &tracker) {
  struct Attempt {
    std::string label;
    amp_call_id id;
  };
  std::vector<Attempt> attempts;
  Coordinator &c = s.probe->coordinator();
  for (const auto &spec : s.description.get_array()) {
    const json::value *name = spec.is_object() ? spec.get_object().if_contains("name") : nullptr;
    if (!name || !name->is_string()) continue;
    for (const auto &input : bad_inputs(spec)) {
      std::string tool(name->get_string());
      attempts.push_back(
          {tool + " with " + input, c.start_tool_call(*s.module, tool, input, tracker.observer())});
    }
  }
  tracker.wait_ended(attempts.size(), kCallPatience);
  std::vector<amp_call_id> ids;
  auto ends = tracker.ends();
  for (const auto &a : attempts) {
    ids.push_back(a.id);
    if (auto problem = bad_input_problem(ends[a.id]); !problem.empty())
      return fail("tool-bad-input", one_line(a.label + ": " + problem));
  }
  return judge_calls("tool-bad-input", *s.probe, tracker, ids, "the calls with bad input",
                     fmt::format("{} calls with bad input each gave an error result "
                                 "(success false)",
                                 attempts.size()));
}

}  // namespace

CheckResult provider_offline_check(const CheckContext &context) {
  return guarded_check("provider-offline", [&] {
    CallTracker tracker;
    CallSubject s = make_call_subject(context);
    amp_call_id id = s.start(s.input, tracker.observer());
    tracker.wait_ended(1, kCallPatience);
    CheckResult protocol =
        judge_calls("provider-offline", *s.probe, tracker, {id}, "the offline completion", "");
    if (protocol.status != CheckStatus::Pass) return keep_if_failed(s, protocol);
    return keep_if_failed(s, judge_offline_answer(s, tracker.ends()[id]));
  });
}

CheckResult tool_bad_input_check(const CheckContext &context) {
  return guarded_check("tool-bad-input", [&] {
    CallTracker tracker;
    CallSubject s = make_call_subject(context);
    return keep_if_failed(s, tool_bad_input(s, tracker));
  });
}

CheckResult orchestrator_turn_check(const CheckContext &context) {
  return guarded_check("orchestrator-turn", [&] {
    CallTracker tracker;
    CallSubject s = make_call_subject(context, {}, true);
    amp_call_id id = s.start(R"({"prompt":"List the files here."})", tracker.observer());
    tracker.wait_ended(1, 2 * kCallPatience);
    const CallEnd end = tracker.ends()[id];
    CheckResult protocol =
        judge_calls("orchestrator-turn", *s.probe, tracker, {id}, "the turn", "");
    if (protocol.status != CheckStatus::Pass) return keep_if_failed(s, protocol);
    if (end.status != AMP_OK)
      return keep_if_failed(s,
                            fail("orchestrator-turn", "the turn ended with " + describe_end(end)));
    json::error_code ec;
    json::value result = json::parse(end.payload, ec);
    const json::value *response =
        !ec && result.is_object() ? result.get_object().if_contains("response") : nullptr;
    const std::string text =
        response && response->is_string() ? std::string(response->get_string()) : "";
    // provider-mock names the tool in its answer only once it has the tool's result.
    if (text.find("list_directory") == std::string::npos)
      return keep_if_failed(
          s, fail("orchestrator-turn",
                  one_line("the final answer is not the one after the tool's result: \"" + text +
                           "\"")));
    return keep_if_failed(
        s,
        pass("orchestrator-turn",
             one_line("provider-mock called list_directory, the answer came back: \"" + text + "\"",
                      160)));
  });
}

CheckResult keep_if_failed(CallSubject &subject, CheckResult result) {
  if (result.status == CheckStatus::Fail) {
    // Never destroyed (see the header), yet held, not dropped: a process that ends with what
    // it still holds is no leak, and LeakSanitizer (the ASan build checks before the check
    // process's _Exit) tells the two apart only by reachability.
    struct Kept {
      std::mutex mutex;
      std::vector<std::unique_ptr<ProbeKernel>> probes;
      std::vector<std::unique_ptr<ClosedPort>> ports;
    };
    static Kept *const kept = new Kept;
    std::lock_guard lock(kept->mutex);
    kept->probes.push_back(std::move(subject.probe));
    kept->ports.push_back(std::move(subject.port));
  }
  return result;
}

}  // namespace amplifier::host::validate
