// context-sessions-query: a context module's sessions_query (ABI 1.4) keeps its contract.
// Only what holds for any store is checked, so the check needs no sessions of its own: an
// unknown op is unsupported, a query that is not JSON is an invalid argument, both with a
// reason; a list is a JSON array of objects with an id; reading a session nobody made is
// "not found". A module without the function passes: it keeps no sessions, and the host reads
// none through it.
#include "amplifier/module_loader.hpp"
#include "amplifier_sdk.hpp"
#include "checks_behavioral.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <random>

namespace amplifier::host::validate {
namespace {

namespace json = boost::json;
constexpr const char *kCheck = "context-sessions-query";

struct Answer {
  amp_status status = AMP_OK;
  std::string text;
};

using QueryFn = amp_status (*)(amp_str, amp_str, amp_writer *);

Answer ask(QueryFn query, const std::string &config, const std::string &question) {
  amp::sdk::StringWriter out;
  const amp_status status =
      query({config.data(), config.size()}, {question.data(), question.size()}, &out);
  return {status, std::move(out.text)};
}

std::string unlikely_session_id() {
  std::random_device random;
  return fmt::format("amp-validate-{:08x}{:08x}", random(), random());
}

// The first broken promise of the answers, or "".
std::string contract_problem(QueryFn query, const std::string &config) {
  const Answer unknown = ask(query, config, R"({"op":"amp-validate-no-such-op"})");
  if (unknown.status != AMP_UNSUPPORTED || unknown.text.empty())
    return fmt::format("an unknown op answered status {} ('{}'), not AMP_UNSUPPORTED with a reason",
                       static_cast<int>(unknown.status), unknown.text);
  const Answer garbled = ask(query, config, "{not json");
  if (garbled.status != AMP_INVALID_ARGUMENT || garbled.text.empty())
    return fmt::format(
        "a query that is not JSON answered status {} ('{}'), not AMP_INVALID_ARGUMENT with a "
        "reason",
        static_cast<int>(garbled.status), garbled.text);
  const Answer list = ask(query, config, R"({"op":"list"})");
  if (list.status != AMP_OK)
    return fmt::format("list failed (status {}): {}", static_cast<int>(list.status), list.text);
  json::error_code ec;
  const json::value rows = json::parse(list.text, ec);
  if (ec || !rows.is_array()) return "list did not answer a JSON array";
  for (const auto &row : rows.get_array())
    if (!row.is_object() || !row.get_object().contains("id") ||
        !row.get_object().at("id").is_string())
      return "a listed session has no string \"id\": " + json::serialize(row);
  const std::string id = unlikely_session_id();
  const Answer missing =
      ask(query, config, json::serialize(json::object{{"op", "read"}, {"session_id", id}}));
  if (missing.status != AMP_NOT_FOUND)
    return fmt::format(
        "reading session '{}', which nobody made, answered status {}, not "
        "AMP_NOT_FOUND",
        id, static_cast<int>(missing.status));
  return {};
}

CheckResult sessions_query(const CheckContext &context) {
  ModuleLoader loader({context.file.parent_path()});
  const auto module = loader.load_file(context.file);
  const auto *table = static_cast<const amp_context_vtable *>(module->descriptor->kind_table);
  if (!AMP_HAS_FIELD(table, amp_context_vtable, sessions_query) || !table->sessions_query)
    return pass(kCheck, "sessions_query is NULL: the module keeps no sessions for the host");
  if (auto problem = contract_problem(table->sessions_query, json::serialize(context.config));
      !problem.empty())
    return fail(kCheck, problem);
  return pass(kCheck,
              "unknown op unsupported, a garbled query refused, list an array of sessions, an "
              "unknown session not found");
}

}  // namespace

CheckResult context_sessions_query_check(const CheckContext &context) {
  return guarded_check(kCheck, [&] { return sessions_query(context); });
}

}  // namespace amplifier::host::validate
