// Role names.
#include "amplifier/model.hpp"

#include <array>
#include <utility>

namespace amplifier {
namespace {
constexpr std::array<std::pair<Role, std::string_view>, 6> kRoleNames{{
    {Role::system, "system"},
    {Role::developer, "developer"},
    {Role::user, "user"},
    {Role::assistant, "assistant"},
    {Role::tool, "tool"},
    {Role::function, "function"},
}};
}  // namespace

std::string_view to_string(Role role) {
  for (const auto &[candidate, name] : kRoleNames)
    if (candidate == role) return name;
  return "unknown";  // only reachable through a cast of an out-of-range integer
}

Role role_from_string(std::string_view name) {
  for (const auto &[role, candidate] : kRoleNames)
    if (candidate == name) return role;
  throw ModelError("role", "unknown role '" + std::string(name) + "'");
}

}  // namespace amplifier
