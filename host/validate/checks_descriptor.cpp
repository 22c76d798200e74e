// loads, abi-version, descriptor-fields, file-name, table-size, required-functions: the
// library is opened and its entry point called, as the host's loader does, and each part of
// the descriptor contract is judged on its own (the kernel's descriptor_problems, which the
// loader uses too, names every problem).
#include "checks.hpp"

#include "amplifier/module_loader.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace amplifier::host::validate {
namespace {

using Aspect = DescriptorProblem::Aspect;

std::string problems_of(const std::vector<DescriptorProblem> &problems, Aspect aspect) {
  std::string text;
  for (const auto &p : problems)
    if (p.aspect == aspect) text += (text.empty() ? "" : "; ") + p.message;
  return text;
}

// Whether the fields after the version can be read at all (a NULL descriptor, one too small
// or of another major are not this ABI's layout).
bool readable(const amp_module_descriptor *d) {
  return d && d->struct_size >= offsetof(amp_module_descriptor, kind_table) + sizeof(void *) &&
         d->abi_major == AMP_ABI_VERSION_MAJOR;
}

CheckResult abi_version(const amp_module_descriptor *d,
                        const std::vector<DescriptorProblem> &problems) {
  if (auto text = problems_of(problems, Aspect::AbiVersion); !text.empty())
    return fail("abi-version", text);
  if (!d) return fail("abi-version", "its entry point returned no descriptor");
  const bool stated = AMP_HAS_FIELD(d, amp_module_descriptor, min_host_minor);
  return pass(
      "abi-version",
      fmt::format("built for ABI {}.{}, runs on hosts from {}.{} (host {}.{})", d->abi_major,
                  d->abi_minor, d->abi_major, stated ? d->min_host_minor : d->abi_minor,
                  AMP_ABI_VERSION_MAJOR, AMP_ABI_VERSION_MINOR));
}

CheckResult descriptor_fields(const amp_module_descriptor *d,
                              const std::vector<DescriptorProblem> &problems) {
  if (auto text = problems_of(problems, Aspect::Fields); !text.empty())
    return fail("descriptor-fields", text);
  if (!readable(d)) return skip("descriptor-fields", "the descriptor has another ABI's layout");
  return pass("descriptor-fields", fmt::format("id {}, version {}, kind {}, create and destroy",
                                               d->id, d->version, amplifier::to_string(d->kind)));
}

CheckResult file_name(const CheckContext &context, const amp_module_descriptor *d,
                      const std::vector<DescriptorProblem> &problems) {
  if (!readable(d) || !d->id || !problems_of(problems, Aspect::Fields).empty())
    return skip("file-name", "the descriptor has no usable id");
  const std::string expected = std::string(d->id) + ".so";
  if (context.file.filename() == expected)
    return pass("file-name", fmt::format("the file is named {}, after its id", expected));
  return fail("file-name",
              fmt::format("the file is {} but its descriptor id is '{}': the host finds modules "
                          "by id as {}, so it would never find this one",
                          context.file.filename().string(), d->id, expected));
}

CheckResult table_size(const amp_module_descriptor *d,
                       const std::vector<DescriptorProblem> &problems) {
  if (auto text = problems_of(problems, Aspect::TableSize); !text.empty())
    return fail("table-size", text);
  if (!readable(d) || minimum_kind_table_size(d->kind) == 0)
    return skip("table-size", "the descriptor has no known kind");
  const auto size = *static_cast<const std::size_t *>(d->kind_table);
  return pass("table-size",
              fmt::format("{} table of {} bytes (ABI 1.0 minimum {}, limit {})",
                          amplifier::to_string(d->kind), size, minimum_kind_table_size(d->kind),
                          kMaxPlausibleKindTableSize));
}

CheckResult required_functions(const amp_module_descriptor *d,
                               const std::vector<DescriptorProblem> &problems) {
  if (auto text = problems_of(problems, Aspect::TableFunctions); !text.empty())
    return fail("required-functions", text);
  if (!readable(d) || minimum_kind_table_size(d->kind) == 0 ||
      !problems_of(problems, Aspect::TableSize).empty())
    return skip("required-functions", "the kind table cannot be read");
  return pass("required-functions", fmt::format("every function of the {} table is present",
                                                amplifier::to_string(d->kind)));
}

// The checks after `loads` that need the descriptor.
constexpr std::array kDescriptorChecks = {"abi-version", "descriptor-fields", "file-name",
                                          "table-size", "required-functions"};

void skip_descriptor_checks(const ChildReporter &out, const std::string &why) {
  for (const char *check : kDescriptorChecks) out.result(skip(check, why));
  out.fact({{"loadable", false}, {"load_error", why}});
}

void report_all(const ChildReporter &out, std::initializer_list<CheckResult> results) {
  for (const auto &r : results) {
    out.running(r.check);
    out.result(r);
  }
}

// What the host's own loader says (the later groups run only on a module it accepts).
void report_loader_verdict(const CheckContext &context) {
  boost::json::object fact;
  try {
    ModuleLoader loader;
    auto module = loader.load_file(context.file);
    fact = {{"loadable", true},
            {"kind", std::string(amplifier::to_string(module->descriptor->kind))},
            {"id", module->descriptor->id}};
  } catch (const std::exception &e) {
    fact = {{"loadable", false}, {"load_error", e.what()}};
  }
  context.reporter->fact(fact);
}

}  // namespace

void run_descriptor_group(const CheckContext &context) {
  const ChildReporter &out = *context.reporter;
  out.running("loads");
  void *library = dlopen(context.file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *error = dlerror();
    const std::string why = one_line(error ? error : "dlopen failed");
    out.result(fail("loads", why));
    skip_descriptor_checks(out, "the module does not load (see loads)");
    return;
  }
  out.result(pass("loads", "the dynamic linker loads it with every symbol bound (RTLD_NOW)"));
  out.running("abi-version");
  auto entry = reinterpret_cast<amp_entry_fn>(dlsym(library, AMP_ENTRY_SYMBOL));
  if (!entry) {
    skip_descriptor_checks(out, "no entry symbol to call (see entry-symbol)");
    return;
  }
  const amp_module_descriptor *d =
      entry(AMP_ABI_VERSION_MAJOR, AMP_ABI_VERSION_MINOR, host_api_table());
  const auto problems = descriptor_problems(d);
  out.result(abi_version(d, problems));
  report_all(out, {descriptor_fields(d, problems), file_name(context, d, problems),
                   table_size(d, problems), required_functions(d, problems)});
  report_loader_verdict(context);
}

}  // namespace amplifier::host::validate
