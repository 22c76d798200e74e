// A plan a serve client wrote itself (`"plan": {...}` with --allow-inline-plans). A client
// never grants (README "Security"): it may pick modules and tune them, but nothing in its plan
// may choose code, programs, files, network endpoints or secrets on the server, and its
// `${VAR}`s never read the server's environment (SessionFactory parses it with no_env()).
#pragma once
#include "amplifier/mount_plan.hpp"

#include <set>
#include <string>
#include <vector>

namespace amplifier::host::serve {

// Why the client's plan may not run: one line per refused entry, naming its key (e.g.
// "tools[0].source: a client plan may not name module sources"); empty when it may.
//  - no `source:` (it would load or build code), no `includes:`, no `agents:`;
//  - only modules that `operator_modules` (those of the operator's plans) has, and no tool-mcp
//    (its servers are programs it starts);
//  - in any module's config, no key that grants (plan_trust.hpp: programs, paths, endpoints,
//    secrets, sandboxes, policies).
// SessionFactory then puts the default plan's `required: true` modules back, as the operator
// mounts them (narrow_to_parent).
std::vector<std::string> client_plan_refusals(const MountPlan &plan,
                                              const std::set<std::string> &operator_modules);

}  // namespace amplifier::host::serve
