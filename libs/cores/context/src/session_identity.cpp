#include "amplifier/context/session_identity.hpp"

#include "amplifier/module_support/json_util.hpp"

namespace amplifier::context {
namespace json = boost::json;

SessionIdentity session_identity(const amp::sdk::Host &host) {
  const json::object info = module_support::parse_json_object(host.session_info(), "session_info");
  auto field = [&](std::string_view key) -> std::string {
    const json::value *value = info.if_contains(key);
    return value && value->is_string() ? std::string(value->get_string()) : std::string();
  };
  SessionIdentity identity{field("session_id"), field("parent_id"), {}};
  if (identity.parent_id->empty()) identity.parent_id.reset();
  if (const json::value *labels = info.if_contains("labels"); labels && labels->is_object())
    identity.labels = labels->get_object();
  return identity;
}

}  // namespace amplifier::context
