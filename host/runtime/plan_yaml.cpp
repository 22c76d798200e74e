// A plan as YAML that loads back to the same plan (`amplifier plan show`, and the plan a serve
// session records so another server can reopen it on the same plan).
#include "plan_loading.hpp"

#include "amplifier/mount_plan.hpp"
#include "amplifier/yaml_cpp.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <string>
#include <utility>

namespace amplifier::host {
namespace {

void emit_json(YAML::Emitter &out, const boost::json::value &value) {
  switch (value.kind()) {
    case boost::json::kind::object:
      out << YAML::BeginMap;
      for (const auto &[key, item] : value.get_object()) {
        out << YAML::Key << std::string(key) << YAML::Value;
        emit_json(out, item);
      }
      out << YAML::EndMap;
      break;
    case boost::json::kind::array:
      out << YAML::BeginSeq;
      for (const auto &item : value.get_array()) emit_json(out, item);
      out << YAML::EndSeq;
      break;
    case boost::json::kind::string: {
      // Quoted, so that it reads back as a string whatever it looks like ("true", "1").
      out << YAML::DoubleQuoted << std::string(value.get_string());
      break;
    }
    case boost::json::kind::null:
      out << YAML::Null;
      break;
    default:
      out << boost::json::serialize(value);
      break;
  }
}

const char *isolation_name(Isolation isolation) {
  return isolation == Isolation::process ? "process" : "in_process";
}

void emit_spec(YAML::Emitter &out, const ModuleSpec &spec) {
  out << YAML::Comment(fmt::format("{}:{}", spec.file, spec.location.line)) << YAML::BeginMap;
  out << YAML::Key << "module" << YAML::Value << spec.module;
  if (!spec.instance_id.empty())
    out << YAML::Key << "instance_id" << YAML::Value << spec.instance_id;
  if (!spec.source.empty()) out << YAML::Key << "source" << YAML::Value << spec.source;
  for (const auto &key : spec.set_keys) {
    out << YAML::Key << key << YAML::Value;
    if (key == "required") out << spec.required;
    if (key == "isolation") out << isolation_name(spec.isolation);
    if (key == "timeout") out << spec.timeout_seconds;
    if (key == "memory_limit_mb") out << spec.memory_limit_mb;
    if (key == "restarts_per_minute") out << spec.restarts_per_minute;
    if (key == "max_message_mb") out << spec.max_message_mb;
  }
  if (!spec.config.empty()) {
    out << YAML::Key << "config" << YAML::Value;
    emit_json(out, spec.config);
  }
  out << YAML::EndMap;
}

// The merged plan as YAML that loads back to the same plan (each module entry says, in a
// comment, the file and line it comes from).
}  // namespace

std::string mount_plan_yaml(const MountPlan &plan) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "session" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "orchestrator" << YAML::Value;
  emit_spec(out, plan.orchestrator);
  out << YAML::Key << "context" << YAML::Value;
  emit_spec(out, plan.context);
  if (plan.isolation_set)
    out << YAML::Key << "isolation" << YAML::Value << isolation_name(plan.isolation);
  for (const auto &[key, value] : plan.session_extra) {
    out << YAML::Key << std::string(key) << YAML::Value;
    emit_json(out, value);
  }
  out << YAML::EndMap;
  for (auto [name, list] : {std::pair{"providers", &plan.providers},
                            std::pair{"tools", &plan.tools}, std::pair{"hooks", &plan.hooks}}) {
    if (list->empty()) continue;
    out << YAML::Key << name << YAML::Value << YAML::BeginSeq;
    for (const auto &spec : *list) emit_spec(out, spec);
    out << YAML::EndSeq;
  }
  if (!plan.agents.empty()) {
    out << YAML::Key << "agents" << YAML::Value;
    emit_json(out, plan.agents);
  }
  if (!plan.routing.empty()) {
    out << YAML::Key << "routing" << YAML::Value;
    emit_json(out, plan.routing);
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace amplifier::host
