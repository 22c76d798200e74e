#include "call_subject.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace amplifier::host::validate {
namespace {

namespace json = boost::json;

constexpr const char *kChatRequest =
    R"({"messages":[{"role":"user","content":"Say hello in one word."}],)"
    R"("max_output_tokens":16})";
constexpr const char *kTruncatedJson = R"({"messages":[{"role":"user","content":"Say)";
constexpr const char *kPrompt = R"({"prompt":"Say hello in one word."})";
constexpr const char *kTruncatedPrompt = R"({"prompt":"Say hel)";
// Not an object: every tool must refuse it (an orchestrator never sends one; a check may).
constexpr const char *kNonObjectToolInput = "[1,2,3]";
constexpr const char *kTruncatedToolInput = R"({"path":)";

json::value describe_real(const std::filesystem::path &file, ProbeKernel &probe,
                          const MountedModule &m) {
  const void *table = probe.loader().load_file(file)->descriptor->kind_table;
  TextWriter writer;
  amp_status status =
      m.kind() == AMP_KIND_PROVIDER
          ? static_cast<const amp_provider_vtable *>(table)->get_info(m.instance, &writer)
          : static_cast<const amp_tool_vtable *>(table)->list_tools(m.instance, &writer);
  json::error_code ec;
  json::value v = status == AMP_OK ? json::parse(writer.text, ec) : json::value();
  return ec ? json::value() : v;
}

void prepare_provider(const CheckContext &context, CallSubject &s) {
  s.port = std::make_unique<ClosedPort>();
  json::object base;
  {
    ProbeKernel scratch;  // learns the config fields from an instance with the user's config
    std::string refusal;
    MountedModule &m =
        mount_provider(scratch, context.file, context.config, s.port->url(), base, refusal);
    s.description = describe_real(context.file, scratch, m);
  }
  OfflineConfig offline = offline_config(s.description, base, s.port->url());
  s.endpoint_keys = offline.endpoint_keys;
  s.probe = std::make_unique<ProbeKernel>();
  s.module = &s.probe->mount_under_test(context.file, offline.config);
  Coordinator &c = s.probe->coordinator();
  MountedModule &m = *s.module;
  s.start = [&c, &m](const std::string &input, CallObserver observer) {
    return c.start_provider_call(m, input, std::move(observer));
  };
  s.input = kChatRequest;
  s.invalid_json_input = kTruncatedJson;
}

void prepare_tool(const CheckContext &context, CallSubject &s) {
  s.probe = std::make_unique<ProbeKernel>();
  s.module = &s.probe->mount_under_test(context.file, context.config);
  s.description = describe_real(context.file, *s.probe, *s.module);
  std::string tool;
  if (s.description.is_array())
    for (const auto &spec : s.description.get_array())
      if (const auto *name = spec.is_object() ? spec.get_object().if_contains("name") : nullptr;
          name && name->is_string() && tool.empty())
        tool = std::string(name->get_string());
  if (tool.empty()) throw NotApplicable("the module offers no tools to call");
  Coordinator &c = s.probe->coordinator();
  MountedModule &m = *s.module;
  s.start = [&c, &m, tool](const std::string &input, CallObserver observer) {
    return c.start_tool_call(m, tool, input, std::move(observer));
  };
  s.input = kNonObjectToolInput;
  s.invalid_json_input = kTruncatedToolInput;
}

void prepare_orchestrator(const CheckContext &context, CallSubject &s,
                          const json::object &mock_config, bool with_tool) {
  s.probe = std::make_unique<ProbeKernel>();
  s.module = &s.probe->mount_under_test(context.file, context.config);
  try {
    s.probe->mount_helper("context-simple", "context", {});
    s.probe->mount_helper("provider-mock", "providers", mock_config);
    if (with_tool)
      s.probe->mount_helper("tool-filesystem", "tools", {{"allowed_read_paths", json::array{"."}}});
  } catch (const ModuleLoadError &e) {
    throw NotApplicable(std::string("a module the check needs is missing: ") + e.what());
  }
  s.probe->coordinator().run_session_ready();
  Coordinator &c = s.probe->coordinator();
  s.start = [&c](const std::string &input, CallObserver observer) {
    return c.start_orchestrator_call(input, std::move(observer));
  };
  s.input = kPrompt;
  s.invalid_json_input = kTruncatedPrompt;
}

}  // namespace

MountedModule &mount_provider(ProbeKernel &probe, const std::filesystem::path &file,
                              const json::object &base, const std::string &endpoint,
                              json::object &used, std::string &refusal) {
  try {
    used = base;
    return probe.mount_under_test(file, base);
  } catch (const ModuleLoadError &e) {
    refusal = e.what();
  }
  used = generic_offline_config(base, endpoint);
  return probe.mount_under_test(file, used);
}

amp_module_kind kind_of(const std::filesystem::path &file) {
  ModuleLoader loader;
  return loader.load_file(file)->descriptor->kind;
}

CallSubject make_call_subject(const CheckContext &context, const json::object &mock_config,
                              bool with_tool) {
  CallSubject s;
  s.kind = kind_of(context.file);
  switch (s.kind) {
    case AMP_KIND_PROVIDER:
      prepare_provider(context, s);
      break;
    case AMP_KIND_TOOL:
      prepare_tool(context, s);
      break;
    case AMP_KIND_ORCHESTRATOR:
      prepare_orchestrator(context, s, mock_config, with_tool);
      break;
    default:
      throw NotApplicable("a module of this kind serves no calls");
  }
  return s;
}

CheckResult guarded_check(const std::string &check, const std::function<CheckResult()> &fn) {
  try {
    return fn();
  } catch (const NotApplicable &e) {
    return skip(check, one_line(e.what()));
  } catch (const std::exception &e) {
    return fail(check, one_line(std::string("the check could not run: ") + e.what()));
  }
}

}  // namespace amplifier::host::validate
