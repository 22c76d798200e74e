#include "search_tools.hpp"

#include "amplifier/module_support/file_tools.hpp"
#include "path_glob.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/regex.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <system_error>
#include <vector>

namespace tool_filesystem {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kBinaryProbeBytes = 8192;

struct Entry {
  std::string name;
  bool is_symlink = false;
  bool is_directory = false;  // a real directory, not a link to one
  bool leads_to_directory = false;  // a directory, or a link to one
  bool is_regular_file = false;     // a real regular file, not a link to one
};

std::string join(const std::string &parent, const std::string &name) {
  return parent.empty() ? name : parent + "/" + name;
}

// Counts every entry examined, so a pattern like "**" over a huge tree ends in bounded time.
class Budget {
 public:
  explicit Budget(std::size_t limit) : limit_(limit) {}
  bool spend() {
    if (used_ >= limit_) exhausted_ = true;
    else ++used_;
    return !exhausted_;
  }
  bool exhausted() const { return exhausted_; }
  std::string note() const {
    return "(the search stopped after examining " + std::to_string(limit_) +
           " entries; narrow the path or the pattern)\n";
  }

 private:
  std::size_t limit_, used_ = 0;
  bool exhausted_ = false;
};

// The entries of `dir`, sorted by name; unreadable directories read as empty.
std::vector<Entry> sorted_entries(const fs::path &dir, Budget &budget) {
  std::vector<Entry> entries;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!budget.spend()) break;
    Entry e;
    e.name = it->path().filename().string();
    std::error_code type_ec;
    e.is_symlink = it->is_symlink(type_ec);
    e.leads_to_directory = it->is_directory(type_ec);
    e.is_directory = e.leads_to_directory && !e.is_symlink;
    e.is_regular_file = !e.is_symlink && it->is_regular_file(type_ec);
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.name < b.name; });
  return entries;
}

// A pattern component without its backslash escapes ("a\*b" names the file "a*b").
std::string unescape(std::string_view component) {
  std::string out;
  for (std::size_t i = 0; i < component.size(); ++i) {
    if (component[i] == '\\' && i + 1 < component.size()) ++i;
    out += component[i];
  }
  return out;
}

class GlobWalk {
 public:
  explicit GlobWalk(Budget &budget) : budget_(budget) {}

  // Matches components[i..] inside `dir`, whose path relative to the base is `rel`.
  void walk(const fs::path &dir, const std::string &rel, const std::vector<std::string> &components,
            std::size_t i) {
    if (budget_.exhausted()) return;
    if (i == components.size()) {
      if (!rel.empty()) found_.insert(rel + "/");
      return;
    }
    const std::string &component = components[i];
    const bool last = i + 1 == components.size();
    if (component == "**") {
      walk(dir, rel, components, i + 1);  // zero directories
      for (const auto &e : sorted_entries(dir, budget_)) {
        if (e.name.starts_with('.')) continue;
        const std::string path = join(rel, e.name);
        // A trailing "**" matches every file and folder below, as the shell's globstar does.
        if (last) found_.insert(e.leads_to_directory ? path + "/" : path);
        if (e.is_directory) walk(dir / e.name, path, components, i);
      }
      return;
    }
    if (!has_wildcard(component)) return step_literal(dir, rel, unescape(component), components, i);
    for (const auto &e : sorted_entries(dir, budget_)) {
      if (match_component(component, e.name)) visit(dir, rel, e, last, components, i);
    }
  }

  const std::set<std::string> &found() const { return found_; }

 private:
  void step_literal(const fs::path &dir, const std::string &rel, const std::string &name,
                    const std::vector<std::string> &components, std::size_t i) {
    std::error_code ec;
    const fs::file_status link_status = fs::symlink_status(dir / name, ec);
    if (!fs::exists(link_status) || !budget_.spend()) return;
    Entry e;
    e.name = name;
    e.is_symlink = fs::is_symlink(link_status);
    e.leads_to_directory = fs::is_directory(dir / name, ec);
    e.is_directory = e.leads_to_directory && !e.is_symlink;
    visit(dir, rel, e, i + 1 == components.size(), components, i);
  }

  void visit(const fs::path &dir, const std::string &rel, const Entry &e, bool last,
             const std::vector<std::string> &components, std::size_t i) {
    const std::string path = join(rel, e.name);
    if (last) found_.insert(e.leads_to_directory ? path + "/" : path);
    else if (e.is_directory) walk(dir / e.name, path, components, i + 1);
  }

  Budget &budget_;
  std::set<std::string> found_;
};

// The displayed form of `base`/`rel`, keeping a directory's trailing '/'.
std::string shown(const fs::path &base, const std::string &rel, const DisplayPath &display) {
  const bool directory = rel.ends_with('/');
  const std::string clean = directory ? rel.substr(0, rel.size() - 1) : rel;
  std::string text = to_valid_utf8(display(clean.empty() ? base : base / clean));
  return directory ? text + "/" : text;
}

// Which files grep searches: every file, or those whose name (pattern without '/') or path
// below the base (pattern with '/') matches the glob.
class FileFilter {
 public:
  explicit FileFilter(const std::optional<std::string> &glob) {
    if (!glob || glob->empty()) return;
    by_path_ = glob->find('/') != std::string::npos;
    pattern_.emplace(*glob);
  }
  bool accepts(const std::string &rel) const {
    if (!pattern_) return true;
    if (by_path_) return pattern_->matches(rel);
    const std::string name = rel.substr(rel.rfind('/') + 1);
    for (const auto &alternative : pattern_->alternatives())
      if (alternative.size() == 1 && match_component(alternative[0], name)) return true;
    return false;
  }

 private:
  std::optional<PathPattern> pattern_;
  bool by_path_ = false;
};

class GrepRun {
 public:
  GrepRun(const GrepRequest &request, const DisplayPath &display, const SearchLimits &limits)
      : request_(request), display_(display), limits_(limits), filter_(request.file_glob),
        budget_(limits.max_visited), regex_(compile(request)) {}

  std::string run(const fs::path &base) {
    std::error_code ec;
    if (fs::is_directory(base, ec)) walk(base, "");
    else search_file(base);
    return report(base);
  }

 private:
  static boost::regex compile(const GrepRequest &request) {
    boost::regex::flag_type flags = boost::regex::ECMAScript;
    if (request.case_insensitive) flags |= boost::regex::icase;
    try {
      return boost::regex(request.pattern, flags);
    } catch (const std::exception &e) {
      throw ToolFailure("Invalid regular expression '" + request.pattern + "': " + e.what());
    }
  }

  bool full() const { return matches_ >= limits_.max_matches || budget_.exhausted(); }

  void walk(const fs::path &dir, const std::string &rel) {
    for (const auto &e : sorted_entries(dir, budget_)) {
      if (full()) return;
      if (e.name.starts_with('.') || e.is_symlink) continue;
      const std::string path = join(rel, e.name);
      if (e.is_directory) walk(dir / e.name, path);
      else if (e.is_regular_file && filter_.accepts(path)) search_file(dir / e.name);
    }
  }

  void search_file(const fs::path &file) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec) return;
    if (size > limits_.max_file_bytes) return void(++skipped_large_);
    std::ifstream in(file, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const std::string_view probe = std::string_view(text).substr(0, kBinaryProbeBytes);
    if (probe.find('\0') != std::string_view::npos) return void(++skipped_binary_);
    search_lines(file, text);
  }

  void search_lines(const fs::path &file, std::string_view text) {
    std::size_t number = 0;
    for (std::size_t start = 0; start < text.size() && !full();) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(start, end - start);
      if (line.ends_with('\r')) line.remove_suffix(1);
      ++number;
      if (line_matches(line)) add_match(file, number, line);
      start = end + 1;
    }
  }

  bool line_matches(std::string_view line) const {
    try {
      return boost::regex_search(line.begin(), line.end(), regex_);
    } catch (const std::exception &e) {  // the matcher's complexity limit
      throw ToolFailure("The pattern '" + request_.pattern +
                        "' is too complex to search with: " + e.what());
    }
  }

  void add_match(const fs::path &file, std::size_t number, std::string_view line) {
    ++matches_;
    output_ += to_valid_utf8(display_(file)) + ":" + std::to_string(number) + ":";
    if (line.size() > limits_.max_line_bytes) {
      const std::size_t keep =
          amplifier::module_support::utf8_prefix_length(line, limits_.max_line_bytes);
      output_ += to_valid_utf8(line.substr(0, keep)) + "... [line cut: " +
                 std::to_string(line.size()) + " bytes]";
    } else {
      output_ += to_valid_utf8(line);
    }
    output_ += '\n';
  }

  std::string report(const fs::path &base) const {
    std::string out = output_;
    if (matches_ == 0)
      out = "No lines match /" + request_.pattern + "/ in " + to_valid_utf8(display_(base)) + "\n";
    if (matches_ >= limits_.max_matches)
      out += "... (stopped at " + std::to_string(limits_.max_matches) +
             " matches; narrow the pattern, the path or the glob)\n";
    if (budget_.exhausted()) out += budget_.note();
    if (skipped_binary_ || skipped_large_) {
      out += "(skipped: " + std::to_string(skipped_binary_) + " binary file(s), " +
             std::to_string(skipped_large_) + " file(s) over " +
             std::to_string(limits_.max_file_bytes) + " bytes)\n";
    }
    return out;
  }

  const GrepRequest &request_;
  const DisplayPath &display_;
  const SearchLimits &limits_;
  FileFilter filter_;
  Budget budget_;
  boost::regex regex_;
  std::string output_;
  std::size_t matches_ = 0, skipped_binary_ = 0, skipped_large_ = 0;
};

}  // namespace

std::string glob_paths(const fs::path &base, const std::string &pattern, const DisplayPath &display,
                       const SearchLimits &limits) {
  std::error_code ec;
  if (!fs::is_directory(base, ec))
    throw ToolFailure(display(base) + " is not a directory; glob searches below a directory");
  Budget budget(limits.max_visited);
  GlobWalk walk(budget);
  const PathPattern compiled(pattern);
  for (const auto &components : compiled.alternatives()) walk.walk(base, "", components, 0);

  const auto &found = walk.found();
  std::string out;
  std::size_t listed = 0;
  for (const auto &rel : found) {
    if (listed++ == limits.max_results) break;
    out += shown(base, rel, display) + "\n";
  }
  if (found.empty()) out = "No paths match '" + pattern + "' in " + to_valid_utf8(display(base)) + "\n";
  if (found.size() > limits.max_results)
    out += "... (" + std::to_string(found.size() - limits.max_results) +
           " more matches not shown; narrow the pattern)\n";
  if (budget.exhausted()) out += budget.note();
  return out;
}

std::string grep_files(const fs::path &base, const GrepRequest &request, const DisplayPath &display,
                       const SearchLimits &limits) {
  return GrepRun(request, display, limits).run(base);
}

}  // namespace tool_filesystem
