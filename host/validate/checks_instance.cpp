// create-destroy, provider-info, tool-specs: one instance, created through the kernel as the
// host creates it, described, and destroyed.
#include "call_subject.hpp"
#include "checks.hpp"
#include "probe_kernel.hpp"
#include "spec_conformance.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

namespace amplifier::host::validate {
namespace {

namespace json = boost::json;

std::string joined(const std::vector<std::string> &problems, std::size_t limit = 6) {
  std::string text;
  for (std::size_t i = 0; i < problems.size() && i < limit; ++i)
    text += (text.empty() ? "" : "; ") + problems[i];
  if (problems.size() > limit) text += fmt::format("; and {} more", problems.size() - limit);
  return text;
}

// Parses what a description function wrote; the problem, or "" when it is JSON.
std::string parse_description(amp_status status, const std::string &text, const char *function,
                              json::value &out) {
  if (status != AMP_OK) return fmt::format("{} failed with status {}", function, (int)status);
  json::error_code ec;
  out = json::parse(text, ec);
  if (ec) return fmt::format("{} wrote text that is not valid JSON ({})", function, ec.message());
  return {};
}

CheckResult provider_info(const MountedModule &m, const amp_provider_vtable &real) {
  TextWriter writer;
  json::value info;
  if (auto problem =
          parse_description(real.get_info(m.instance, &writer), writer.text, "get_info", info);
      !problem.empty())
    return fail("provider-info", problem);
  if (auto problems = provider_info_problems(info); !problems.empty())
    return fail("provider-info", "ProviderInfo does not conform: " + joined(problems));
  const auto &fields = info.get_object().at("config_fields").get_array();
  return pass("provider-info", fmt::format("ProviderInfo '{}' with {} config fields",
                                           info.get_object().at("id").get_string(), fields.size()));
}

CheckResult tool_specs(const MountedModule &m, const amp_tool_vtable &real) {
  TextWriter writer;
  json::value specs;
  if (auto problem =
          parse_description(real.list_tools(m.instance, &writer), writer.text, "list_tools", specs);
      !problem.empty())
    return fail("tool-specs", problem);
  if (auto problems = tool_spec_problems(specs); !problems.empty())
    return fail("tool-specs", "tool specs do not conform: " + joined(problems));
  std::string names;
  for (const auto &spec : specs.get_array())
    names += (names.empty() ? "" : ", ") + std::string(spec.at("name").get_string());
  return pass("tool-specs", fmt::format("{} tools ({}), parameters valid JSON Schemas",
                                        specs.get_array().size(), names.empty() ? "none" : names));
}

// The kind's description check on a live instance, when the kind has one.
void describe(const CheckContext &context, ProbeKernel &probe, const MountedModule &m) {
  const ChildReporter &out = *context.reporter;
  const void *real_table = probe.loader().load_file(context.file)->descriptor->kind_table;
  if (m.kind() == AMP_KIND_PROVIDER) {
    out.running("provider-info");
    out.result(provider_info(m, *static_cast<const amp_provider_vtable *>(real_table)));
  } else if (m.kind() == AMP_KIND_TOOL) {
    out.running("tool-specs");
    out.result(tool_specs(m, *static_cast<const amp_tool_vtable *>(real_table)));
  }
}

}  // namespace

void run_instance_group(const CheckContext &context) {
  const ChildReporter &out = *context.reporter;
  out.running("create-destroy");
  ClosedPort port;  // providers that need an endpoint to be created get this one
  ProbeKernel probe;
  MountedModule *mounted = nullptr;
  json::object used = context.config;
  std::string refusal;
  try {
    if (kind_of(context.file) == AMP_KIND_PROVIDER)
      mounted = &mount_provider(probe, context.file, context.config, port.url(), used, refusal);
    else
      mounted = &probe.mount_under_test(context.file, context.config);
  } catch (const std::exception &e) {
    out.result(fail("create-destroy", one_line(e.what())));
    out.fact({{"creatable", false}, {"create_error", one_line(e.what())}});
    return;
  }
  describe(context, probe, *mounted);
  out.running("create-destroy");
  probe.coordinator().unmount_all();
  out.fact({{"creatable", true}});
  std::string how = fmt::format("created with config {} and destroyed", json::serialize(used));
  if (!refusal.empty()) how += " (with its endpoint set; without: " + refusal + ")";
  out.result(pass("create-destroy", one_line(how, 400)));
}

}  // namespace amplifier::host::validate
