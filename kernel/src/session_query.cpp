#include "amplifier/session_query.hpp"

#include "amplifier_sdk.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace amplifier {
namespace json = boost::json;

std::optional<ContextSessionStore> ContextSessionStore::open(ModuleLoader &loader,
                                                             const ModuleSpec &context) {
  auto module = loader.load(context.module, context.source);
  if (module->descriptor->kind != AMP_KIND_CONTEXT)
    throw ModuleLoadError("module '" + context.module + "' is not a context module");
  const auto *table = static_cast<const amp_context_vtable *>(module->descriptor->kind_table);
  if (!AMP_HAS_FIELD(table, amp_context_vtable, sessions_query) || !table->sessions_query)
    return std::nullopt;
  return ContextSessionStore(module, table->sessions_query, json::serialize(context.config));
}

ContextSessionStore::ContextSessionStore(std::shared_ptr<const LoadedModule> module, QueryFn fn,
                                         std::string config_json)
    : module_(std::move(module)),
      fn_(fn),
      config_json_(std::move(config_json)),
      module_id_(module_->id()) {}

json::value ContextSessionStore::query(const json::object &query) const {
  const std::string query_json = json::serialize(query);
  amp::sdk::StringWriter out;
  const amp_status status = fn_(amp::sdk::to_amp(config_json_), amp::sdk::to_amp(query_json), &out);
  if (status != AMP_OK) throw SessionQueryError(status, module_id_ + ": " + out.text);
  json::error_code ec;
  json::value answer = json::parse(out.text, ec);
  if (ec)
    throw SessionQueryError(
        AMP_ERROR, module_id_ + ": sessions_query answered with invalid JSON: " + ec.message());
  return answer;
}

json::array ContextSessionStore::list(std::optional<std::int64_t> limit) const {
  json::object request{{"op", "list"}};
  if (limit) request["limit"] = *limit;
  json::value answer = query(request);
  if (!answer.is_array())
    throw SessionQueryError(AMP_ERROR, module_id_ + ": the session list is not a JSON array");
  return std::move(answer.get_array());
}

std::optional<json::object> ContextSessionStore::read(const std::string &session_id) const {
  try {
    json::value answer = query({{"op", "read"}, {"session_id", session_id}});
    const json::object *session = answer.if_object();
    if (!session || !session->contains("messages") || !session->at("messages").is_array())
      throw SessionQueryError(AMP_ERROR,
                              module_id_ + ": a session read lacks its \"messages\" array");
    return std::move(answer.get_object());
  } catch (const SessionQueryError &e) {
    if (e.status == AMP_NOT_FOUND) return std::nullopt;
    throw;
  }
}

}  // namespace amplifier
