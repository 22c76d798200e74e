#include "source_trust.hpp"

#include "operator_question.hpp"

#include "amplifier/operator_list.hpp"
#include "amplifier/terminal_text.hpp"
#include "amplifier/user_dirs.hpp"

#include <fmt/format.h>


#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <stdexcept>

namespace amplifier::host::source_trust {
namespace fs = std::filesystem;
namespace {

std::atomic<bool> g_trust_every_source{false};
// One question at a time at the terminal (two plans' modules may load at once).
std::mutex g_ask_mutex;
// One read-modify-write of the list at a time in this process.
std::mutex g_list_mutex;

std::vector<Entry> read_entries() {
  std::vector<Entry> entries;
  for (const auto &line : operator_list::read(file())) {
    const auto space = line.find(' ');
    if (space == 40) entries.push_back({line.substr(0, 40), line.substr(41)});
  }
  return entries;
}

void write_entries(const std::vector<Entry> &entries) {
  std::vector<std::string> lines;
  for (const auto &entry : entries) lines.push_back(entry.commit + " " + entry.source);
  operator_list::write(file(), lines);
}

// Asks at the terminal; true for y or yes. What the plan wrote is shown with its controls
// made visible: a plan is not allowed to paint the question.
bool ask(const GitSource &source, std::string_view text, const std::string &commit) {
  fmt::print(stderr,
             "amplifier: a plan names a module source that is not trusted yet:\n"
             "  source:    {}\n"
             "  commit:    {}\n"
             "  what runs: git fetches that commit; CMake configures and builds {} (its\n"
             "             CMakeLists.txt runs as you); the host then loads what it built.\n",
             terminal_safe(text), commit,
             source.subdirectory.empty() ? std::string("the repository")
                                         : "its folder " + terminal_safe(source.subdirectory));
  return operator_says_yes("Trust this source at this commit?");
}

}  // namespace

fs::path file() { return user_dirs::config() / "trusted-sources"; }

std::string source_key(const GitSource &source) { return pinned(source, ""); }

std::string pinned(const GitSource &source, const std::string &commit) {
  std::string text = "git+" + source.url;
  if (!commit.empty()) text += "@" + commit;
  if (!source.subdirectory.empty()) text += "#subdirectory=" + source.subdirectory;
  return text;
}

bool is_trusted(const GitSource &source, const std::string &commit) {
  try {
    const std::string key = source_key(source);
    const auto entries = read_entries();
    return std::any_of(entries.begin(), entries.end(), [&](const Entry &entry) {
      return entry.commit == commit && entry.source == key;
    });
  } catch (const std::exception &) {  // no config folder: nothing is trusted
    return false;
  }
}

void trust(const GitSource &source, const std::string &commit) {
  std::lock_guard lock(g_list_mutex);
  if (is_trusted(source, commit)) return;
  auto entries = read_entries();
  entries.push_back({commit, source_key(source)});
  write_entries(entries);
}

std::size_t untrust(const GitSource &source) {
  std::lock_guard lock(g_list_mutex);
  const std::string key = source_key(source);
  auto entries = read_entries();
  const std::size_t removed =
      std::erase_if(entries, [&](const Entry &entry) { return entry.source == key; });
  if (removed > 0) write_entries(entries);
  return removed;
}

std::vector<Entry> trusted() { return read_entries(); }

void trust_every_source(bool yes) { g_trust_every_source = yes; }

void require(const GitSource &source, std::string_view text, const std::string &commit) {
  if (is_trusted(source, commit)) return;
  if (g_trust_every_source) {
    trust(source, commit);
    return;
  }
  if (operator_at_terminal()) {
    std::lock_guard lock(g_ask_mutex);
    if (is_trusted(source, commit)) return;  // said yes while this one waited
    if (ask(source, text, commit)) {
      trust(source, commit);
      return;
    }
    throw std::runtime_error(fmt::format("not trusted: you answered no to {} at commit {}",
                                         source_key(source), commit));
  }
  throw std::runtime_error(fmt::format(
      "{} at commit {} is not trusted, so it was not fetched or built (its build would run as "
      "you). If you trust it: amplifier module trust '{}' (or: amplifier --trust-sources ...)",
      source_key(source), commit, pinned(source, commit)));
}

}  // namespace amplifier::host::source_trust
