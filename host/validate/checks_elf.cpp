// entry-symbol, only-export, unresolved-symbols: what the file's dynamic symbol table says.
// No code of the module runs here (only system libraries are opened, to find them).
#include "checks.hpp"
#include "elf_dynamic.hpp"
#include "library_closure.hpp"

#include "amplifier_plugin.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace amplifier::host::validate {
namespace {

// At most `limit` names, then "and N more".
std::string name_list(const std::vector<std::string> &names, std::size_t limit = 8) {
  std::vector<std::string> shown(names.begin(),
                                 names.begin() + static_cast<long>(std::min(limit, names.size())));
  std::string text = fmt::format("{}", fmt::join(shown, ", "));
  if (names.size() > limit) text += fmt::format(" and {} more", names.size() - limit);
  return text;
}

bool exports_entry(const ElfDynamicInfo &info) {
  return std::find(info.exports.begin(), info.exports.end(), AMP_ENTRY_SYMBOL) !=
         info.exports.end();
}

CheckResult entry_symbol(const ElfDynamicInfo &info) {
  if (exports_entry(info)) return pass("entry-symbol", fmt::format("exports {}", AMP_ENTRY_SYMBOL));
  std::string exported = info.exports.empty() ? "nothing" : name_list(info.exports);
  return fail("entry-symbol",
              fmt::format("no exported {} (it exports {})", AMP_ENTRY_SYMBOL, exported));
}

CheckResult only_export(const ElfDynamicInfo &info) {
  std::vector<std::string> others;
  for (const auto &name : info.exports)
    if (name != AMP_ENTRY_SYMBOL) others.push_back(name);
  if (others.empty())
    return pass("only-export", fmt::format("{} is the only dynamic export", AMP_ENTRY_SYMBOL));
  return fail("only-export",
              fmt::format("{} other dynamic exports: {} (build with amplifier_add_module, or "
                          "hide them with a version script)",
                          others.size(), name_list(others)));
}

CheckResult unresolved_symbols(const CheckContext &context, const ElfDynamicInfo &info) {
  LibraryClosure closure = library_closure(context.file, info);
  std::vector<std::string> unresolved;
  for (const auto &name : info.strong_undefined)
    if (!closure.defined.contains(name)) unresolved.push_back(name);
  const std::string needed = info.needed.empty() ? "none" : name_list(info.needed, 16);
  if (!closure.missing.empty())
    return fail("unresolved-symbols", fmt::format("libraries not found: {} (DT_NEEDED: {})",
                                                  name_list(closure.missing), needed));
  if (!unresolved.empty())
    return fail("unresolved-symbols",
                fmt::format("{} symbols defined by none of its libraries, so only the host "
                            "process could supply them: {} (DT_NEEDED: {})",
                            unresolved.size(), name_list(unresolved), needed));
  return pass("unresolved-symbols",
              fmt::format("{} undefined symbols, all defined by its {} libraries (DT_NEEDED: {})",
                          info.strong_undefined.size(), closure.found.size(), needed));
}

}  // namespace

void run_elf_group(const CheckContext &context) {
  const ChildReporter &out = *context.reporter;
  out.running("entry-symbol");
  ElfDynamicInfo info;
  try {
    info = read_elf_dynamic(context.file);
  } catch (const ElfError &e) {
    const std::string why = fmt::format("{} {}", context.file.string(), e.what());
    for (const char *check : {"entry-symbol", "only-export", "unresolved-symbols"})
      out.result(fail(check, why));
    return;
  }
  out.result(entry_symbol(info));
  out.running("only-export");
  out.result(only_export(info));
  out.running("unresolved-symbols");
  out.result(unresolved_symbols(context, info));
}

}  // namespace amplifier::host::validate
