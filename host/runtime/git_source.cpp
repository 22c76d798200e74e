#include "git_source.hpp"

#include "module_build.hpp"
#include "source_trust.hpp"
#include "subprocess.hpp"

#include "amplifier/log.hpp"
#include "amplifier/module_sources.hpp"
#include "amplifier/user_dirs.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <stdexcept>

namespace amplifier::host {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSubdirectoryKey = "subdirectory=";

bool is_commit_id(std::string_view ref) {
  return ref.size() == 40 && ref.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// Git never asks for a password here: a source that needs one fails instead of hanging.
CommandOptions git_options() {
  CommandOptions options;
  options.env = {{"GIT_TERMINAL_PROMPT", "0"}, {"GIT_ASKPASS", "true"}, {"LC_ALL", "C"}};
  return options;
}

std::string git(const std::vector<std::string> &args, const std::string &what,
                CommandOptions options = git_options()) {
  std::vector<std::string> argv{"git"};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult result = run_command(argv, options);
  if (result.exit_code != 0)
    throw std::runtime_error(fmt::format("git {} failed: {}", what, last_lines(result.output, 6)));
  return result.output;
}

}  // namespace

// The commit `ref` names on the remote (a peeled tag, a branch, a tag, or HEAD).
std::string resolve_git_commit(const GitSource &source) {
  if (is_commit_id(source.ref)) return source.ref;
  const std::string wanted = source.ref.empty() ? "HEAD" : source.ref;
  const std::string listing = git({"ls-remote", source.url, wanted}, "ls-remote " + source.url);
  std::string best;
  int best_rank = 0;
  for (std::size_t start = 0; start < listing.size();) {
    std::size_t end = listing.find('\n', start);
    if (end == std::string::npos) end = listing.size();
    std::string_view line(listing.data() + start, end - start);
    start = end + 1;
    const auto tab = line.find('\t');
    if (tab != 40) continue;
    const std::string_view name = line.substr(tab + 1);
    const int rank = name == "refs/tags/" + wanted + "^{}" ? 4
                     : name == "refs/heads/" + wanted      ? 3
                     : name == "refs/tags/" + wanted       ? 2
                     : name == wanted                      ? 1
                                                           : 0;
    if (rank > best_rank) best_rank = rank, best = std::string(line.substr(0, 40));
  }
  if (best.empty())
    throw std::runtime_error(
        fmt::format("git source {}: no branch or tag named '{}'", source.url, wanted));
  return best;
}

namespace {

std::string cache_key(const std::string &commit, const std::string &subdirectory) {
  std::string key = commit;
  if (!subdirectory.empty()) {
    key += '-';
    for (char c : subdirectory) key += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  }
  return key;
}

fs::path unique_work_dir(const fs::path &parent) {
  std::random_device random;
  return parent / fmt::format(".work-{}-{:08x}", ::getpid(), random());
}

// A shallow checkout of `commit` in `dir`.
void checkout(const GitSource &source, const std::string &commit, const fs::path &dir) {
  git({"init", "-q", dir.string()}, "init");
  try {
    git({"-C", dir.string(), "fetch", "-q", "--depth", "1", source.url, commit}, "fetch");
  } catch (const std::runtime_error &) {
    if (source.ref.empty() || is_commit_id(source.ref)) throw;
    // A server that refuses commit ids in a fetch still serves the ref by name.
    git({"-C", dir.string(), "fetch", "-q", "--depth", "1", source.url, source.ref}, "fetch");
  }
  git({"-C", dir.string(), "checkout", "-q", "--detach", "FETCH_HEAD"}, "checkout");
  std::string head = git({"-C", dir.string(), "rev-parse", "HEAD"}, "rev-parse");
  head.erase(head.find_last_not_of("\r\n") + 1);
  if (head != commit)
    throw std::runtime_error(fmt::format("git source {}: fetched {} but {} moved to {} meanwhile",
                                         source.url, head, source.ref, commit));
}

// The project folder inside the checkout; a symlink may not lead out of it.
fs::path project_dir(const fs::path &checkout_dir, const std::string &subdirectory) {
  if (subdirectory.empty()) return checkout_dir;
  const fs::path root = fs::canonical(checkout_dir);
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(checkout_dir / subdirectory, ec);
  auto [root_end, dir_it] = std::mismatch(root.begin(), root.end(), dir.begin(), dir.end());
  if (ec || root_end != root.end())
    throw std::runtime_error(
        fmt::format("subdirectory '{}' leads outside the repository", subdirectory));
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error(fmt::format("the repository has no folder '{}'", subdirectory));
  return dir;
}

void write_record(const fs::path &file, std::string_view source, const std::string &commit) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  boost::json::object record{
      {"source", source},
      {"commit", commit},
      {"built_at", std::chrono::duration_cast<std::chrono::seconds>(now).count()}};
  std::ofstream(file) << boost::json::serialize(record) << "\n";
}

}  // namespace

GitSource parse_git_source(std::string_view text) {
  if (auto problem = module_sources::source_problem(text);
      !problem.empty() || !module_sources::is_remote(text))
    throw std::invalid_argument(problem.empty() ? fmt::format("'{}' is not a git source", text)
                                                : problem);
  std::string_view rest = text.substr(4);  // "git+"
  GitSource source;
  if (const auto hash = rest.find('#'); hash != std::string_view::npos) {
    std::string_view fragment = rest.substr(hash + 1);
    rest = rest.substr(0, hash);
    if (!fragment.starts_with(kSubdirectoryKey))
      throw std::invalid_argument(
          fmt::format("source '{}': the part after '#' must be subdirectory=<path>", text));
    source.subdirectory = std::string(fragment.substr(kSubdirectoryKey.size()));
    const fs::path sub(source.subdirectory);
    bool climbs = false;
    for (const auto &part : sub) climbs = climbs || part == "..";
    if (source.subdirectory.empty() || sub.is_absolute() || climbs)
      throw std::invalid_argument(fmt::format(
          "source '{}': subdirectory must be a relative path inside the repository", text));
  }
  // The ref follows the last '@' after the last '/': "ssh://git@host/repo@v1" keeps its user.
  const auto slash = rest.rfind('/');
  if (const auto at = rest.rfind('@');
      at != std::string_view::npos && (slash == std::string_view::npos || at > slash)) {
    source.ref = std::string(rest.substr(at + 1));
    rest = rest.substr(0, at);
    if (source.ref.empty() || source.ref.starts_with('-'))
      throw std::invalid_argument(fmt::format("source '{}': empty or invalid ref", text));
  }
  source.url = std::string(rest);
  if (source.url.starts_with('-'))
    throw std::invalid_argument(fmt::format("source '{}': invalid repository", text));
  return source;
}

FetchedModules fetch_git_modules(std::string_view text, NamedBy named_by) {
  GitSource source = parse_git_source(text);
  const std::string commit = resolve_git_commit(source);
  // A cached build is checked too: the cache may predate the trust list, or hold a build
  // another user of the machine's account started.
  if (named_by == NamedBy::operator_command)
    source_trust::trust(source, commit);
  else
    source_trust::require(source, text, commit);
  const fs::path cache = user_dirs::cache() / "modules";
  const fs::path target = cache / cache_key(commit, source.subdirectory);
  std::error_code ec;
  if (fs::is_directory(target, ec)) {
    log(LogLevel::Info, "modules",
        fmt::format("{}: commit {}, cached in {}", text, commit, target.string()));
    return {target, commit, true};
  }
  fmt::print(stderr, "amplifier: fetching and building {} at {} (once; cached by commit)\n", text,
             commit.substr(0, 12));
  fs::create_directories(cache);
  const fs::path work = unique_work_dir(cache);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } cleanup{work};
  checkout(source, commit, work / "src");
  auto built = build_module_project(project_dir(work / "src", source.subdirectory), work / "build");
  const fs::path out = work / "out";
  fs::create_directories(out);
  for (const auto &module : built) fs::copy_file(module.file, out / (module.id + ".so"));
  write_record(out / "source.json", text, commit);
  // Another process may have built the same commit meanwhile: then its copy is used.
  fs::rename(out, target, ec);
  if (ec && !fs::is_directory(target))
    throw std::runtime_error(
        fmt::format("cannot store the build in {}: {}", target.string(), ec.message()));
  return {target, commit, false};
}

void install_git_source_resolver() {
  module_sources::set_remote_resolver([](std::string_view id, std::string_view source) {
    try {
      return fetch_git_modules(source, NamedBy::plan).dir;
    } catch (const std::exception &e) {
      throw ModuleLoadError(fmt::format("module '{}': source {}: {}", id, source, e.what()));
    }
  });
}

}  // namespace amplifier::host
