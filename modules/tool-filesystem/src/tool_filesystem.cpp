// tool-filesystem: read_file and list_directory, confined to the allowed read paths.
//
// Tool-level failures (bad input, a refused path, a missing file) are normal results the
// model must read: call_finish(AMP_OK, {"success":false,"error":{"message"},"output":message}).
// Only a request for a tool this module does not offer fails the call itself.
//
// THREADS: the host calls execute on its worker threads, concurrently; the work is done
// synchronously inside execute. All state is immutable after construction.
#include "file_tools.hpp"
#include "path_policy.hpp"

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
  std::vector<std::string> allowed_write_paths;  // kept for the write tools of a later issue
};

FilesystemConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "tool-filesystem config");
  FilesystemConfig config;
  const std::string working_dir = reader.get_string("working_dir", fs::current_path().string());
  config.working_dir = fs::absolute(ms::expand_home(working_dir));
  config.allowed_read_paths = reader.get_string_list("allowed_read_paths", {"."});
  config.allowed_write_paths = reader.get_string_list("allowed_write_paths", {"."});
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

class FilesystemTools final : public amp::sdk::ToolModule {
 public:
  FilesystemTools(amp::sdk::Host host, std::string_view config_json)
      : FilesystemTools(host, read_config(host, config_json)) {}

  std::string list_tools() override {
    return json::serialize(json::array{read_file_spec(), list_directory_spec()});
  }

  void execute(amp_call_id call, std::string_view tool, std::string_view input_json) override {
    if (tool != "read_file" && tool != "list_directory") {
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
      payload = success(tool == "read_file" ? read_file(input_json) : list_directory(input_json));
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
  FilesystemTools(amp::sdk::Host host, FilesystemConfig config)
      : ToolModule(host),
        config_(std::move(config)),
        read_policy_(config_.working_dir, config_.allowed_read_paths, "read") {}

  std::string read_file(std::string_view input_json) const {
    auto input = input_reader("read_file", input_json);
    const auto path = input.get_optional_string("path");
    if (!path || path->empty()) throw ToolFailure("read_file input: 'path' is required");
    const auto offset = input.get_int("offset", 1, 1, kMaxLineCount);
    std::optional<std::size_t> limit;
    if (input.has("limit")) limit = static_cast<std::size_t>(input.get_int("limit", 0, 1, kMaxLineCount));
    const fs::path resolved = read_policy_.resolve(*path);
    std::string output =
        read_numbered_lines(resolved, *path, static_cast<std::size_t>(offset), limit);
    announce_read(resolved, "read_file");
    return output;
  }

  std::string list_directory(std::string_view input_json) const {
    auto input = input_reader("list_directory", input_json);
    const std::string path = input.get_string("path", ".");
    const fs::path resolved = read_policy_.resolve(path.empty() ? "." : path);
    std::string output = list_entries(resolved, path);
    announce_read(resolved, "list_directory");
    return output;
  }

  // artifact:read lets hooks (audit, UIs) see what the model looked at. A hook that rejects
  // the event must not fail the read, which already happened.
  void announce_read(const fs::path &path, std::string_view tool) const {
    try {
      host().emit("artifact:read", json::serialize(json::object{{"path", path.string()},
                                                                {"tool", tool}}));
    } catch (const std::exception &e) {
      host().warn(std::string("tool-filesystem: emitting artifact:read failed: ") + e.what());
    }
  }

  const FilesystemConfig config_;
  const PathPolicy read_policy_;
};

}  // namespace
}  // namespace tool_filesystem

AMP_DEFINE_MODULE(tool_filesystem::FilesystemTools, "tool-filesystem", "0.1.0",
                  "read_file and list_directory, confined to allowed paths");
