#include "tool_naming.hpp"

#include <cstdint>
#include <cstdio>

namespace tool_mcp {
namespace {

bool allowed(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// FNV-1a: stable across runs and builds (std::hash is not required to be).
std::string hash8(std::string_view text) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : text) hash = (hash ^ c) * 16777619u;
  char out[9];
  std::snprintf(out, sizeof out, "%08x", hash);
  return out;
}

std::string with_suffix(std::string name, std::string_view hashed) {
  const std::string suffix = "_" + hash8(hashed);
  name.resize(std::min(name.size(), kMaxToolNameLength - suffix.size()));
  return name + suffix;
}

}  // namespace

std::string exposed_tool_name(std::string_view server, std::string_view tool) {
  std::string name = "mcp_";
  name.append(server).append("_").append(tool);
  const std::string original = name;
  for (char &c : name)
    if (!allowed(c)) c = '_';
  if (name.size() > kMaxToolNameLength) name = with_suffix(std::move(name), original);
  return name;
}

std::string unique_tool_name(std::string name, std::string_view original,
                             std::set<std::string> &taken) {
  if (taken.contains(name)) name = with_suffix(std::move(name), original);
  for (int attempt = 0; taken.contains(name); ++attempt)
    name = with_suffix(std::move(name), std::string(original) + std::to_string(attempt));
  taken.insert(name);
  return name;
}

}  // namespace tool_mcp
