// Agent Skills (Anthropic's format, as Claude Code reads it): a folder with SKILL.md, YAML front
// matter (name, description, optional allowed-tools) and instructions, plus resources the model
// reads when it needs them. The host finds skills and reads their front matter
// (host/runtime/skills.hpp); what a skill's loading shows the model is made here, once, for both
// the `skill` tool (tool-skills) and chat's /skill.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::module_support {

// SKILL.md's instructions: the text after its front matter (the whole text without one).
std::string skill_instructions(std::string_view skill_md);

// The skill folder's other files, relative to it, sorted; at most `limit` (hidden files and
// folders are left out; symbolic links are listed, not followed; at most 5,000 entries are
// looked at).
std::vector<std::string> skill_resources(const std::filesystem::path &folder, std::size_t limit = 100);

// What loading a skill shows the model: its instructions, where its folder is and its
// resources, to read with the file tools when needed.
std::string loaded_skill_text(std::string_view name, const std::filesystem::path &folder,
                              std::string_view instructions, const std::vector<std::string> &resources);

}  // namespace amplifier::module_support
