// tool-filesystem: read_file, list_directory, glob and grep within the allowed read paths;
// write_file and edit_file within the allowed write paths (edit_file needs both).
//
// Tool-level failures (bad input, a refused path, a missing file) are normal results the
// model must read: call_finish(AMP_OK, {"success":false,"error":{"message"},"output":message}).
// Only a request for a tool this module does not offer fails the call itself.
//
// Events: artifact:read {path, tool} after a successful read, listing or search (the searched
// base); artifact:write {path, tool, bytes, created} after write_file and
// {path, tool, replacements} after edit_file.
//
// Rewind checkpoints (module_support/file_checkpoints.hpp): when the host gives the session a
// state folder (session_info "state_folder": run and chat do) and config `checkpoints` is not
// false, write_file and edit_file first keep the file's content as it was before the turn's
// first change of it, under <state_folder>/checkpoints, so chat's /rewind can put it back.
// Files over checkpoint_max_file_bytes (default 8 MiB), or past checkpoint_max_total_bytes
// (default 512 MiB) for the session, are changed but not kept, and the tool's answer says so.
// Trust: the folder comes from the operator's host, never from the plan or the model.
//
// THREADS: the host calls execute on its worker threads, concurrently; the work is done
// synchronously inside execute. All state is immutable after construction. Two concurrent
// writes of one file each land whole (atomic rename); the later one wins.
#include "amplifier/module_support/file_checkpoints.hpp"
#include "amplifier/module_support/file_tools.hpp"
#include "path_glob.hpp"
#include "amplifier/module_support/session_facts.hpp"
#include "amplifier/module_support/path_policy.hpp"
#include "search_tools.hpp"
#include "write_tools.hpp"

#include "amplifier/model.hpp"
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/module_support/paths.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

namespace tool_filesystem {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
namespace ms = amplifier::module_support;

constexpr std::int64_t kMaxLineCount = 1'000'000;

struct FilesystemConfig {
  fs::path working_dir;
  std::vector<std::string> allowed_read_paths;
  std::vector<std::string> allowed_write_paths;
  std::optional<fs::path> checkpoint_folder;  // none: changes are not checkpointed
  // The session store the state folder is in (its transcripts and checkpoints): never written
  // by the model's tools, whatever the allowed paths say, so a model cannot plant a checkpoint
  // that a rewind would then write out.
  std::optional<fs::path> protected_folder;
  ms::CheckpointLimits checkpoint_limits;
};

FilesystemConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "tool-filesystem config");
  FilesystemConfig config;
  const std::string working_dir = reader.get_string("working_dir", fs::current_path().string());
  config.working_dir = fs::absolute(ms::expand_home(working_dir));
  config.allowed_read_paths = reader.get_string_list("allowed_read_paths", {"."});
  config.allowed_write_paths = reader.get_string_list("allowed_write_paths", {"."});
  // A session the host confined to a folder (serve's): that folder and nothing else, whatever
  // the plan's config said.
  if (const auto folder = ms::confined_folder_of(host)) {
    config.working_dir = *folder;
    config.allowed_read_paths = config.allowed_write_paths = {"."};
  }
  if (const auto state = ms::state_folder_of(host)) {
    if (reader.get_bool("checkpoints", true)) config.checkpoint_folder = *state / "checkpoints";
    config.protected_folder = fs::weakly_canonical(state->parent_path());
  }
  config.checkpoint_limits.max_file_bytes = static_cast<std::uint64_t>(reader.get_int(
      "checkpoint_max_file_bytes", static_cast<std::int64_t>(config.checkpoint_limits.max_file_bytes),
      0, std::int64_t{1} << 40));
  config.checkpoint_limits.max_total_bytes = static_cast<std::uint64_t>(reader.get_int(
      "checkpoint_max_total_bytes", static_cast<std::int64_t>(config.checkpoint_limits.max_total_bytes),
      0, std::int64_t{1} << 44));
  reader.warn_unknown_keys(host);
  std::error_code ec;
  if (!fs::is_directory(config.working_dir, ec)) {
    throw reader.error("working_dir", "is not an existing directory: " + config.working_dir.string());
  }
  return config;
}

json::object read_file_spec() {
  return {
      {"name", "read_file"},
      {"description",
       "Read a text file. Returns its lines numbered like `cat -n` (number, tab, line). "
       "Use offset and limit to read a long file in parts."},
      {"parameters",
       {{"type", "object"},
        {"properties",
         {{"path", {{"type", "string"},
                    {"description", "File to read, absolute or relative to the working directory"}}},
          {"offset", {{"type", "integer"}, {"minimum", 1},
                      {"description", "1-based line to start at (default 1)"}}},
          {"limit", {{"type", "integer"}, {"minimum", 1},
                     {"description", "Number of lines to read (default 2000)"}}}}},
        {"required", json::array{"path"}},
        {"additionalProperties", false}}},
  };
}

json::object list_directory_spec() {
  return {
      {"name", "list_directory"},
      {"description",
       "List a directory's entries, sorted by name, one per line; directories end with '/'."},
      {"parameters",
       {{"type", "object"},
        {"properties",
         {{"path", {{"type", "string"},
                    {"description", "Directory to list (default: the working directory)"}}}}},
        {"additionalProperties", false}}},
  };
}

json::object write_file_spec() {
  return {
      {"name", "write_file"},
      {"description",
       "Create a file or replace its whole content. Missing parent directories are created. "
       "To change part of an existing file, prefer edit_file."},
      {"parameters",
       {{"type", "object"},
        {"properties",
         {{"path", {{"type", "string"},
                    {"description", "File to write, absolute or relative to the working directory"}}},
          {"content", {{"type", "string"}, {"description", "The complete new content"}}}}},
        {"required", json::array{"path", "content"}},
        {"additionalProperties", false}}},
  };
}

json::object edit_file_spec() {
  return {
      {"name", "edit_file"},
      {"description",
       "Replace exact text in a file. old_string must match the file exactly (whitespace and "
       "indentation included) and occur once, unless replace_all is true. Reports how many "
       "occurrences were replaced and on which lines."},
      {"parameters",
       {{"type", "object"},
        {"properties",
         {{"path", {{"type", "string"}, {"description", "File to edit"}}},
          {"old_string", {{"type", "string"}, {"minLength", 1},
                          {"description", "The exact text to replace"}}},
          {"new_string", {{"type", "string"}, {"description", "The text to put in its place"}}},
          {"replace_all", {{"type", "boolean"},
                           {"description", "Replace every occurrence (default false)"}}}}},
        {"required", json::array{"path", "old_string", "new_string"}},
        {"additionalProperties", false}}},
  };
}

json::object glob_spec() {
  return {
      {"name", "glob"},
      {"description",
       "Find paths by pattern, sorted. '*' and '?' match within one path component, '**' "
       "matches any number of directories, {a,b} gives alternatives, e.g. 'src/**/*.{cpp,hpp}'. "
       "Hidden files and folders are only matched when the pattern names them. Directories "
       "end with '/'."},
      {"parameters",
       {{"type", "object"},
        {"properties",
         {{"pattern", {{"type", "string"}, {"minLength", 1},
                       {"description", "Pattern relative to path"}}},
          {"path", {{"type", "string"},
                    {"description", "Directory to search below (default: the working directory)"}}}}},
        {"required", json::array{"pattern"}},
        {"additionalProperties", false}}},
  };
}

json::object grep_spec() {
  return {
      {"name", "grep"},
      {"description",
       "Search file contents with a regular expression (ECMAScript syntax). Returns matching "
       "lines as 'file:line:text'. Binary files and hidden folders are skipped."},
      {"parameters",
       {{"type", "object"},
        {"properties",
         {{"pattern", {{"type", "string"}, {"minLength", 1},
                       {"description", "Regular expression searched for in each line"}}},
          {"path", {{"type", "string"},
                    {"description", "File or directory to search (default: the working directory)"}}},
          {"glob", {{"type", "string"},
                    {"description", "Only files whose name matches, e.g. '*.py', or whose path "
                                    "below `path` matches when it has a '/', e.g. 'src/**/*.h'"}}},
          {"case_insensitive", {{"type", "boolean"}, {"description", "Ignore case (default false)"}}}}},
        {"required", json::array{"pattern"}},
        {"additionalProperties", false}}},
  };
}

std::string success(std::string output) {
  amplifier::ToolResult result;
  result.success = true;
  result.output = json::string(output);
  return json::serialize(amplifier::to_json(result));
}

std::string failure(const std::string &message) {
  amplifier::ToolResult result;
  result.success = false;
  result.output = json::string(message);  // the model reads output; keep the reason there too
  result.error = amplifier::ToolError{message, {}};
  return json::serialize(amplifier::to_json(result));
}

// A tool input, read with the config reader's typed getters: its errors ("read_file input:
// 'offset' must be an integer, got a string ("5")") are exactly what the model needs to hear.
ms::ConfigReader input_reader(std::string_view tool, std::string_view input_json) {
  const std::string context = std::string(tool) + " input";
  try {
    return ms::ConfigReader(input_json, context);
  } catch (const ms::ConfigError &e) {
    throw ToolFailure(e.what());
  }
}

// A required, non-empty string input.
std::string required_string(ms::ConfigReader &input, std::string_view tool, std::string_view key) {
  auto value = input.get_optional_string(key);
  if (!value || value->empty())
    throw ToolFailure(std::string(tool) + " input: '" + std::string(key) + "' is required");
  return *value;
}

// A glob pattern stays below its base: no alternative of it is absolute or has a "." or ".."
// component ("{..,src}/*" included).
void check_glob_pattern(const std::string &pattern) {
  for (const auto &alternative : expand_braces(pattern)) {
    if (alternative.starts_with('/') || alternative.starts_with('~'))
      throw ToolFailure("glob input: 'pattern' must be relative; put the directory in 'path'");
    for (const auto &component : split_components(alternative)) {
      if (component == "." || component == "..")
        throw ToolFailure("glob input: 'pattern' may not contain '.' or '..' components; "
                          "put the directory in 'path'");
    }
  }
}

class FilesystemTools final : public amp::sdk::ToolModule {
 public:
  FilesystemTools(amp::sdk::Host host, std::string_view config_json)
      : FilesystemTools(host, read_config(host, config_json)) {}

  std::string list_tools() override {
    return json::serialize(json::array{read_file_spec(), list_directory_spec(), write_file_spec(),
                                       edit_file_spec(), glob_spec(), grep_spec()});
  }

  void execute(amp_call_id call, std::string_view tool, std::string_view input_json) override {
    const auto handler = handler_for(tool);
    if (!handler) {
      host().call_fail(call, "not_found", "tool-filesystem has no tool '" + std::string(tool) + "'",
                       AMP_NOT_FOUND);
      return;
    }
    if (host().cancel_state(call) >= AMP_CANCEL_IMMEDIATE) {
      host().call_fail(call, "cancelled", std::string(tool) + " cancelled before it started",
                       AMP_CANCELLED);
      return;
    }
    std::string payload;
    try {
      payload = success((this->*handler)(input_reader(tool, input_json)));
    } catch (const ToolFailure &e) {
      payload = failure(e.what());
    } catch (const PathRefused &e) {
      payload = failure(e.what());
    } catch (const ms::ConfigError &e) {
      payload = failure(e.what());
    }
    host().call_finish(call, AMP_OK, payload);
  }

 private:
  using Handler = std::string (FilesystemTools::*)(ms::ConfigReader) const;

  FilesystemTools(amp::sdk::Host host, FilesystemConfig config)
      : ToolModule(host),
        config_(std::move(config)),
        read_policy_(config_.working_dir, config_.allowed_read_paths, "read"),
        write_policy_(config_.working_dir, config_.allowed_write_paths, "write") {
    if (config_.checkpoint_folder)
      checkpoints_ = std::make_unique<ms::FileCheckpoints>(*config_.checkpoint_folder,
                                                           config_.checkpoint_limits);
  }

  static Handler handler_for(std::string_view tool) {
    if (tool == "read_file") return &FilesystemTools::read_file;
    if (tool == "list_directory") return &FilesystemTools::list_directory;
    if (tool == "write_file") return &FilesystemTools::write_file;
    if (tool == "edit_file") return &FilesystemTools::edit_file;
    if (tool == "glob") return &FilesystemTools::glob;
    if (tool == "grep") return &FilesystemTools::grep;
    return nullptr;
  }

  std::string read_file(ms::ConfigReader input) const {
    const std::string path = required_string(input, "read_file", "path");
    const auto offset = input.get_int("offset", 1, 1, kMaxLineCount);
    std::optional<std::size_t> limit;
    if (input.has("limit")) limit = static_cast<std::size_t>(input.get_int("limit", 0, 1, kMaxLineCount));
    const fs::path resolved = read_policy_.resolve(path);
    std::string output =
        read_numbered_lines(resolved, path, static_cast<std::size_t>(offset), limit);
    announce("artifact:read", {{"path", resolved.string()}, {"tool", "read_file"}});
    return output;
  }

  std::string list_directory(ms::ConfigReader input) const {
    const std::string path = input.get_string("path", ".");
    const fs::path resolved = read_policy_.resolve(path.empty() ? "." : path);
    std::string output = list_entries(resolved, path);
    announce("artifact:read", {{"path", resolved.string()}, {"tool", "list_directory"}});
    return output;
  }

  std::string write_file(ms::ConfigReader input) const {
    const std::string path = required_string(input, "write_file", "path");
    const auto content = input.get_optional_string("content");
    if (!content) throw ToolFailure("write_file input: 'content' is required");
    const fs::path resolved = write_policy_.resolve(path);
    refuse_protected(resolved, path);
    const std::string unkept = checkpoint(resolved, "write_file");
    const WriteOutcome outcome = write_text_file(resolved, path, *content);
    announce("artifact:write", {{"path", resolved.string()},
                                {"tool", "write_file"},
                                {"bytes", content->size()},
                                {"created", outcome.created}});
    return outcome.summary + (unkept.empty() ? "" : "; " + unkept);
  }

  std::string edit_file(ms::ConfigReader input) const {
    const std::string path = required_string(input, "edit_file", "path");
    EditRequest request;
    request.old_string = input.get_string("old_string", "");
    const auto new_string = input.get_optional_string("new_string");
    if (!new_string) throw ToolFailure("edit_file input: 'new_string' is required");
    request.new_string = *new_string;
    request.replace_all = input.get_bool("replace_all", false);
    // Editing reads the file too, so both policies must allow the path.
    const fs::path resolved = write_policy_.resolve(path);
    read_policy_.resolve(path);
    refuse_protected(resolved, path);
    const std::string unkept = checkpoint(resolved, "edit_file");
    const EditOutcome outcome = edit_text_file(resolved, path, request);
    announce("artifact:write", {{"path", resolved.string()},
                                {"tool", "edit_file"},
                                {"replacements", outcome.replacements}});
    return outcome.summary + (unkept.empty() ? "" : "; " + unkept);
  }

  std::string glob(ms::ConfigReader input) const {
    const std::string pattern = required_string(input, "glob", "pattern");
    const std::string path = input.get_string("path", ".");
    const fs::path base = read_policy_.resolve(path.empty() ? "." : path);
    std::string output;
    try {
      check_glob_pattern(pattern);
      output = glob_paths(base, pattern, display());
    } catch (const std::invalid_argument &e) {  // a brace expansion that runs away
      throw ToolFailure("glob input: 'pattern' " + std::string(e.what()));
    }
    announce("artifact:read", {{"path", base.string()}, {"tool", "glob"}});
    return output;
  }

  std::string grep(ms::ConfigReader input) const {
    GrepRequest request;
    request.pattern = required_string(input, "grep", "pattern");
    request.file_glob = input.get_optional_string("glob");
    request.case_insensitive = input.get_bool("case_insensitive", false);
    const std::string path = input.get_string("path", ".");
    const fs::path base = read_policy_.resolve(path.empty() ? "." : path);
    std::error_code ec;
    if (!fs::exists(base, ec)) throw ToolFailure("Path not found: " + path);
    std::string output;
    try {
      output = grep_files(base, request, display());
    } catch (const std::invalid_argument &e) {
      throw ToolFailure("grep input: 'glob' " + std::string(e.what()));
    }
    announce("artifact:read", {{"path", base.string()}, {"tool", "grep"}});
    return output;
  }

  void refuse_protected(const fs::path &resolved, const std::string &shown) const {
    if (!config_.protected_folder) return;
    const fs::path relative = resolved.lexically_relative(*config_.protected_folder);
    if (!relative.empty() && *relative.begin() != "..")
      throw ToolFailure("Cannot write " + shown + ": it is in the session store (" +
                        config_.protected_folder->string() + "), which the file tools never change");
  }

  // Keeps `file` as it is before this turn's first change of it; "" when kept or when there is
  // no checkpoint folder, else the sentence the answer carries. A checkpoint that cannot be
  // written never stops the change: the model asked for it, and the user is told.
  std::string checkpoint(const fs::path &file, std::string_view tool) const {
    if (!checkpoints_) return {};
    std::int64_t turn = 0;
    try {
      turn = ms::user_messages_of(host());
    } catch (const std::exception &e) {
      return std::string("not checkpointed (the turn is unknown: ") + e.what() +
             "): a rewind cannot restore this file";
    }
    return checkpoints_->keep_before_change(file, turn, tool);
  }

  DisplayPath display() const {
    return [this](const fs::path &real) { return read_policy_.display(real); };
  }

  // artifact events let hooks (audit, UIs) see what the model looked at or changed. A hook
  // that rejects the event must not fail the operation, which already happened.
  void announce(std::string_view event, json::object data) const {
    try {
      host().emit(event, json::serialize(data));
    } catch (const std::exception &e) {
      host().warn("tool-filesystem: emitting " + std::string(event) + " failed: " + e.what());
    }
  }

  const FilesystemConfig config_;
  const PathPolicy read_policy_;
  const PathPolicy write_policy_;
  std::unique_ptr<ms::FileCheckpoints> checkpoints_;  // null: changes are not checkpointed
};

}  // namespace
}  // namespace tool_filesystem

AMP_DEFINE_MODULE(tool_filesystem::FilesystemTools, "tool-filesystem", "0.2.0",
                  "read_file, list_directory, glob, grep, write_file and edit_file, confined to "
                  "allowed paths");
