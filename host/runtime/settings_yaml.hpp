// yaml-cpp for the settings code, and the YAML text the settings are written back as.
#pragma once
#include "amplifier/yaml_cpp.hpp"

#include <string>

namespace amplifier::host {

// The tag yaml-cpp gives a quoted scalar; set it on a built scalar to have it written quoted
// (so that "8080" or "true" stays a string when the mount plan reads it back).
inline constexpr const char *kQuotedTag = "!";

// A scalar written quoted (tagged kQuotedTag).
YAML::Node quoted_scalar(const std::string &text);

// Block-style YAML text of `node`. Quoted scalars stay quoted and plain ones plain, so the
// text types exactly as the original did when a mount plan reads it.
std::string emit_block_yaml(const YAML::Node &node);
// The same on one line (flow style), for showing a value in a prompt.
std::string emit_flow_yaml(const YAML::Node &node);

}  // namespace amplifier::host
