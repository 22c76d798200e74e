#include "delegate_request.hpp"

#include "amplifier/module_support/config_reader.hpp"

#include <boost/json/serialize.hpp>

#include <stdexcept>

namespace tool_delegate {
namespace json = boost::json;
namespace ms = amplifier::module_support;

namespace {
constexpr std::int64_t kMaxDepth = 16;

void check_depth_name(const std::string &depth, const std::string &where) {
  if (depth != "none" && depth != "recent" && depth != "all")
    throw std::invalid_argument(where + ": context_depth must be none, recent or all, not '" +
                                depth + "'");
}

json::array string_array(const std::vector<std::string> &items) {
  json::array out;
  for (const auto &item : items) out.emplace_back(item);
  return out;
}
}  // namespace

DelegateConfig read_delegate_config(std::string_view config_json,
                                    std::vector<std::string> *unknown) {
  ms::ConfigReader reader(config_json, "tool-delegate config");
  DelegateConfig config;
  config.allow_nesting = reader.get_bool("allow_nesting", config.allow_nesting);
  config.max_depth = reader.get_int("max_depth", config.max_depth, 1, kMaxDepth);
  config.exclude_tools = reader.get_string_list("exclude_tools", {});
  config.exclude_hooks = reader.get_string_list("exclude_hooks", {});
  config.default_context_depth = reader.get_string("default_context_depth", "none");
  try {
    check_depth_name(config.default_context_depth, "tool-delegate config");
  } catch (const std::invalid_argument &e) {
    throw reader.error("default_context_depth", "must be none, recent or all");
  }
  config.default_recent_turns = reader.get_int("default_recent_turns", 3, 1, 1000);
  if (unknown) *unknown = reader.unknown_key_messages();
  return config;
}

DelegateInput read_delegate_input(std::string_view input_json, const DelegateConfig &config) {
  ms::ConfigReader input = [&] {
    try {
      return ms::ConfigReader(input_json, "delegate input");
    } catch (const ms::ConfigError &e) {
      throw std::invalid_argument(e.what());
    }
  }();
  DelegateInput out;
  try {
    out.agent = input.get_string("agent", "");
    out.instruction = input.get_string("instruction", "");
    out.context_depth = input.get_string("context_depth", config.default_context_depth);
    out.recent_turns = input.get_int("recent_turns", config.default_recent_turns, 1, 1000);
    out.session_id = input.get_string("session_id", "");
  } catch (const ms::ConfigError &e) {
    throw std::invalid_argument(e.what());
  }
  if (out.agent.empty()) throw std::invalid_argument("delegate input: 'agent' is required");
  if (out.instruction.find_first_not_of(" \t\r\n") == std::string::npos)
    throw std::invalid_argument("delegate input: 'instruction' is required");
  check_depth_name(out.context_depth, "delegate input");
  if (!input.unknown_keys().empty())
    throw std::invalid_argument("delegate input: unknown field '" + input.unknown_keys().front() +
                                "'");
  return out;
}

std::string spawn_request(const DelegateInput &input, const DelegateConfig &config,
                          std::string_view own_module_id) {
  std::vector<std::string> exclude_tools = config.exclude_tools;
  if (!config.allow_nesting) exclude_tools.emplace_back(own_module_id);
  json::object request{{"agent", input.agent},
                       {"instruction", input.instruction},
                       {"context_depth", input.context_depth},
                       {"recent_turns", input.recent_turns},
                       {"exclude_tools", string_array(exclude_tools)},
                       {"exclude_hooks", string_array(config.exclude_hooks)},
                       {"max_depth", config.allow_nesting ? config.max_depth : 1}};
  if (!input.session_id.empty()) request["session_id"] = input.session_id;
  return json::serialize(request);
}

json::object delegate_spec(const json::array &agents) {
  std::string description =
      "Delegate a task to a sub-agent: a child session with its own conversation, which works "
      "on `instruction` with its own tools and returns its final answer (with its session_id, "
      "which continues that child's conversation when passed back). agent \"self\" runs a "
      "copy of this session's setup. Several delegate calls in one response run in parallel. "
      "context_depth gives the child none, the recent turns, or all of this conversation.";
  if (!agents.empty()) {
    description += " Agents:";
    for (const auto &agent : agents) {
      if (!agent.is_object()) continue;
      const auto *name = agent.as_object().if_contains("name");
      const auto *about = agent.as_object().if_contains("description");
      if (!name || !name->is_string()) continue;
      description += "\n- " + std::string(name->as_string());
      if (about && about->is_string() && !about->as_string().empty())
        description += ": " + std::string(about->as_string());
    }
  }
  json::object properties{
      {"agent",
       {{"type", "string"},
        {"minLength", 1},
        {"description", "The agent to run: a name from the list, or \"self\""}}},
      {"instruction",
       {{"type", "string"},
        {"minLength", 1},
        {"description", "What the child should do: the complete task"}}},
      {"context_depth",
       {{"type", "string"},
        {"enum", json::array{"none", "recent", "all"}},
        {"description", "How much of this conversation the child sees"}}},
      {"recent_turns",
       {{"type", "integer"},
        {"minimum", 1},
        {"maximum", 1000},
        {"description", "With context_depth recent: how many user turns"}}},
      {"session_id",
       {{"type", "string"},
        {"description", "Continue an earlier child's session instead of a new one"}}}};
  return {{"name", "delegate"},
          {"description", description},
          {"parameters",
           {{"type", "object"},
            {"properties", properties},
            {"required", json::array{"agent", "instruction"}},
            {"additionalProperties", false}}}};
}

}  // namespace tool_delegate
