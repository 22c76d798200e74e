// The `delegate` tool's input and config, and the "session_spawn" request they make.
#pragma once
#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tool_delegate {

struct DelegateConfig {
  // Children may delegate again (they mount tool-delegate too), down to max_depth. Off: the
  // children's plans leave tool-delegate out.
  bool allow_nesting = false;
  std::int64_t max_depth = 3;              // with allow_nesting; the top session is depth 0
  std::vector<std::string> exclude_tools;  // more of the parent's tools children do not get
  std::vector<std::string> exclude_hooks;
  std::string default_context_depth = "none";
  std::int64_t default_recent_turns = 3;
};

// Throws amplifier::module_support::ConfigError naming the key.
DelegateConfig read_delegate_config(std::string_view config_json,
                                    std::vector<std::string> *unknown);

// The model's input: {agent, instruction, context_depth?, recent_turns?, session_id?}.
struct DelegateInput {
  std::string agent;
  std::string instruction;
  std::string context_depth;
  std::int64_t recent_turns = 0;
  std::string session_id;  // resume this child
};

// Throws std::invalid_argument with a message for the model.
DelegateInput read_delegate_input(std::string_view input_json, const DelegateConfig &config);

// The "session_spawn" request (amplifier_plugin.h) for one delegation.
std::string spawn_request(const DelegateInput &input, const DelegateConfig &config,
                          std::string_view own_module_id);

// The tool's spec; `agents` is the host's list of agents [{name, description}] when it
// published one (capability "session.agents"), for the model to choose from.
boost::json::object delegate_spec(const boost::json::array &agents);

}  // namespace tool_delegate
