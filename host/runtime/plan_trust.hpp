// What a plan written by someone who may not grant (a serve client's inline plan, an agent file
// in a project folder, which the model itself can write) may set in a module's config: tuning
// (a model, a temperature, scripted answers), never what runs, where files or requests go, or
// which secrets are used (README "Security").
#pragma once
#include "amplifier/mount_plan.hpp"

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::host {

// Whether a config key chooses a program, a path, an endpoint, a secret, a sandbox, a policy
// or a limit: any of its words (split at '_' and '-', lower-cased) is one of command(s), args,
// env, server(s), path(s), dir(s), directory, file(s), log(s), template, url(s), endpoint, host,
// dsn, key(s), token, secret, password, auth, header(s), proxy, verify, tls, ssl, sandbox,
// allow(ed), deny/denied, output, record, socket, exec, program, script, working, store, cert,
// isolation, depth, nesting, root, rules, default.
bool grants_key(std::string_view key);

// Where a module entry stands in a plan.
enum class PlanSection { orchestrator, context, providers, tools, hooks };
// The entries of `section` (one for the orchestrator and the context).
std::span<const ModuleSpec> section_modules(const MountPlan &plan, PlanSection section);
// Visits every module entry of `plan` that names a module, with the path that names it in
// messages ("session.orchestrator", "tools[2]") and its section.
void for_each_module(
    const MountPlan &plan,
    const std::function<void(const ModuleSpec &, const std::string &, PlanSection)> &visit);

// One line per key of `spec.config` that grants, named from `path` (e.g.
// "tools[0].config.sandbox"). Objects are searched at every depth; arrays are data (scripted
// answers, rules) and are not searched, but a granting key that holds one is refused whole.
void config_refusals(const ModuleSpec &spec, const std::string &path,
                     std::vector<std::string> &refusals);

// One line per entry option of `spec` that sets how its process runs (isolation,
// memory_limit_mb, max_message_mb, required): only the operator sets those.
void option_refusals(const ModuleSpec &spec, const std::string &path,
                     std::vector<std::string> &refusals);

}  // namespace amplifier::host
