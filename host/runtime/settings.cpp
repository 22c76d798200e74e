#include "settings.hpp"

#include "amplifier/user_dirs.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace amplifier::host {

namespace fs = std::filesystem;

namespace {

constexpr mode_t kPrivateDirMode = 0700;

std::string describe(const YAML::Node &node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar() + "'";
    default:
      return "nothing";
  }
}

// "<file>:<line>:<col>: <key>: <message>", the position when yaml-cpp knows it.
SettingsError problem(const fs::path &file, const YAML::Node &at, std::string_view key,
                      std::string_view message) {
  const YAML::Mark mark = at.Mark();
  std::string where = file.string();
  if (mark.line >= 0) where += fmt::format(":{}:{}", mark.line + 1, mark.column + 1);
  return SettingsError(fmt::format("{}: {}: {}", where, key, message));
}

// The ids the module loader accepts as file names: no path, no "..".
bool valid_module_id(std::string_view id) {
  if (id.empty() || id.find("..") != std::string_view::npos) return false;
  if (!std::isalnum(static_cast<unsigned char>(id.front()))) return false;
  for (char c : id)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return true;
}

std::string read_text(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw SettingsError(fmt::format("{}: cannot be read: {}", file.string(), std::strerror(errno)));
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `provider: ID` or `provider: {module: ID, config: {...}}`.
void read_provider(UserSettings &settings, const YAML::Node &provider) {
  const fs::path &file = settings.file;
  // yaml-cpp's Node::operator= writes through to the node referred to, so `module` is
  // reset(), never assigned.
  YAML::Node module = provider;
  settings.provider_config = YAML::Node(YAML::NodeType::Map);
  if (provider.IsMap()) {
    for (const auto &entry : provider) {
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "?";
      if (key != "module" && key != "config")
        throw problem(file, entry.first, "provider." + key,
                      "unknown key (expected module, config)");
    }
    module.reset(provider["module"]);
    if (!module)
      throw problem(file, provider, "provider.module", "missing: the provider's module id");
    if (const YAML::Node config = provider["config"]; config && !config.IsNull()) {
      if (!config.IsMap())
        throw problem(file, config, "provider.config", "expected a map, got " + describe(config));
      settings.provider_config.reset(config);
    }
  }
  if (!module.IsScalar() || !valid_module_id(module.Scalar()))
    throw problem(file, module, "provider.module",
                  "expected a module id (like provider-openai), got " + describe(module));
  settings.provider = module.Scalar();
}

std::string indented(const std::string &text, int spaces) {
  const std::string pad(static_cast<std::size_t>(spaces), ' ');
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out += pad + line + "\n";
  return out;
}

}  // namespace

fs::path user_config_dir() {
  try {
    return user_dirs::config();
  } catch (const std::runtime_error &e) {
    throw SettingsError(std::string("no place for the user's settings: ") + e.what());
  }
}

fs::path settings_file() { return user_config_dir() / "settings.yaml"; }
fs::path keys_file() { return user_config_dir() / "keys.env"; }

void ensure_user_config_dir() {
  const fs::path dir = user_config_dir();
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), kPrivateDirMode) != 0 && errno != EEXIST)
    throw SettingsError(fmt::format("cannot create {}: {}", dir.string(), std::strerror(errno)));
}

std::optional<UserSettings> load_user_settings(const fs::path &file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  const std::string text = read_text(file);
  UserSettings settings;
  settings.file = file;
  try {
    settings.document = YAML::Load(text);
  } catch (const YAML::ParserException &e) {
    throw SettingsError(fmt::format("{}:{}:{}: not valid YAML: {}", file.string(), e.mark.line + 1,
                                    e.mark.column + 1, e.msg));
  }
  if (settings.document.IsNull()) settings.document = YAML::Node(YAML::NodeType::Map);
  if (!settings.document.IsMap())
    throw problem(file, settings.document, "settings",
                  "expected a map with a 'provider' entry, got " + describe(settings.document));
  if (const YAML::Node provider = settings.document["provider"]; provider && !provider.IsNull())
    read_provider(settings, provider);
  return settings;
}

std::optional<UserSettings> load_user_settings() { return load_user_settings(settings_file()); }

namespace {

// A price entry's numbers (or its long_context map), as JSON.
boost::json::value pricing_value(const fs::path &file, const YAML::Node &node, const std::string &key) {
  if (node.IsMap()) {
    boost::json::object out;
    for (const auto &member : node) {
      const std::string name = member.first.as<std::string>();
      out[name] = pricing_value(file, member.second, key + "." + name);
    }
    return out;
  }
  if (node.IsScalar()) {
    double number = 0;
    if (YAML::convert<double>::decode(node, number)) return number;
  }
  throw problem(file, node, key, "expected a number (USD per million tokens) or a map, got " +
                                     describe(node));
}

}  // namespace

boost::json::object pricing_of(const UserSettings &settings) {
  const YAML::Node pricing = settings.document["pricing"];
  if (!pricing || pricing.IsNull()) return {};
  if (!pricing.IsMap())
    throw problem(settings.file, pricing, "pricing",
                  "expected a map of model -> prices, got " + describe(pricing));
  boost::json::object out;
  for (const auto &entry : pricing) {
    const std::string model = entry.first.as<std::string>();
    if (!entry.second.IsMap())
      throw problem(settings.file, entry.second, "pricing." + model,
                    "expected a map of prices (input, output, ...), got " + describe(entry.second));
    out[model] = pricing_value(settings.file, entry.second, "pricing." + model);
  }
  return out;
}

std::string provider_plan_entry(const std::string &provider, const YAML::Node &config) {
  std::string entry = "  - module: " + provider + "\n";
  if (config && config.IsMap() && config.size() > 0)
    entry += "    config:\n" + indented(emit_block_yaml(config), 6);
  return entry;
}

std::string settings_text(const YAML::Node &document) {
  return "# amplifier settings, written by `amplifier init`: the provider `amplifier run` and\n"
         "# `amplifier chat` use when no --plan is given. Secrets are in keys.env, next to it.\n" +
         emit_block_yaml(document) + "\n";
}

void write_file_atomically(const fs::path &file, const std::string &text, mode_t mode) {
  std::string name = (file.parent_path() / ("." + file.filename().string() + ".XXXXXX")).string();
  // mkostemp creates the file 0600; it only ever widens to `mode` below.
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0)
    throw SettingsError(fmt::format("cannot write {}: {}", file.string(), std::strerror(errno)));
  auto fail = [&](const char *step) {
    const int error = errno;
    ::close(fd);
    ::unlink(name.c_str());
    return SettingsError(
        fmt::format("cannot write {} ({}): {}", file.string(), step, std::strerror(error)));
  };
  if (::fchmod(fd, mode) != 0) throw fail("chmod");
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw fail("write");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) throw fail("fsync");
  if (::close(fd) != 0) {
    ::unlink(name.c_str());
    throw SettingsError(fmt::format("cannot write {}: {}", file.string(), std::strerror(errno)));
  }
  if (::rename(name.c_str(), file.c_str()) != 0) {
    const int error = errno;
    ::unlink(name.c_str());
    throw SettingsError(fmt::format("cannot write {}: {}", file.string(), std::strerror(error)));
  }
}

}  // namespace amplifier::host
