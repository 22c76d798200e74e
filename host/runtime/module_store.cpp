#include "module_store.hpp"

#include "git_source.hpp"

#include "amplifier/module_sources.hpp"
#include "amplifier/user_dirs.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>

namespace amplifier::host {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

fs::path record_file(const fs::path &module_file) {
  return module_file.parent_path() / (module_file.stem().string() + ".source.json");
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Writes `content` to `target` through a temporary file in the same folder and a rename, so a
// reader sees the old file or the new one, never half of one.
void replace_file(const fs::path &target, const std::function<void(const fs::path &)> &write) {
  std::random_device random;
  const fs::path temporary =
      target.parent_path() /
      fmt::format(".{}.{}-{:08x}", target.filename().string(), ::getpid(), random());
  try {
    write(temporary);
    fs::rename(temporary, target);
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
}

// A build folder removed when the last SourceModules holding it goes.
std::shared_ptr<void> temporary_build_dir(fs::path *dir) {
  std::random_device random;
  *dir = user_dirs::cache() / "modules" / fmt::format(".install-{}-{:08x}", ::getpid(), random());
  fs::create_directories(*dir);
  return std::shared_ptr<void>(new fs::path(*dir), [](void *p) {
    auto *path = static_cast<fs::path *>(p);
    std::error_code ignored;
    fs::remove_all(*path, ignored);
    delete path;
  });
}

}  // namespace

fs::path install_into_user_folder(const ModuleFile &module, const SourceRecord &record) {
  const fs::path dir = module_sources::user_module_dir();
  fs::create_directories(dir);
  const fs::path target = dir / (module.id + ".so");
  replace_file(target, [&](const fs::path &temporary) {
    fs::copy_file(module.file, temporary);
    fs::permissions(temporary, fs::perms::owner_all | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read |
                                   fs::perms::others_exec);
  });
  json::object fields{{"source", record.source}, {"installed_at", utc_now()}};
  if (!record.commit.empty()) fields["commit"] = record.commit;
  replace_file(record_file(target), [&](const fs::path &temporary) {
    std::ofstream(temporary) << json::serialize(fields) << "\n";
  });
  return target;
}

void remove_from_user_folder(const std::string &id) {
  module_sources::check_module_id(id);
  const fs::path file = module_sources::user_module_dir() / (id + ".so");
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw std::runtime_error(fmt::format("module '{}' is not installed in {}", id,
                                         module_sources::user_module_dir().string()));
  fs::remove(file);
  fs::remove(record_file(file), ec);
}

std::optional<SourceRecord> source_record_of(const fs::path &module_file) {
  std::ifstream in(record_file(module_file));
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  json::error_code error;
  json::value value = json::parse(text.str(), error);
  if (error || !value.is_object()) return std::nullopt;
  auto field = [&](std::string_view key) {
    const json::value *v = value.as_object().if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  return SourceRecord{field("source"), field("commit"), field("installed_at")};
}

SourceModules modules_from_source(const std::string &source) {
  SourceModules result;
  if (module_sources::is_remote(source)) {
    FetchedModules fetched = fetch_git_modules(source, NamedBy::operator_command);
    result.modules = modules_in(fetched.dir, false);
    result.commit = fetched.commit;
    return result;
  }
  if (auto problem = module_sources::source_problem(source); !problem.empty())
    throw std::runtime_error(problem);
  const fs::path path = module_sources::local_path(source);
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    result.modules.push_back({path, module_id_of(path)});
  } else if (fs::is_directory(path, ec) && is_module_project(path)) {
    fs::path build_dir;
    result.build_files = temporary_build_dir(&build_dir);
    result.modules = build_module_project(path, build_dir);
  } else if (fs::is_directory(path, ec)) {
    result.modules = modules_in(path, false);
  } else {
    throw std::runtime_error(fmt::format("{} does not exist", path.string()));
  }
  if (result.modules.empty())
    throw std::runtime_error(fmt::format("{} holds no amplifier module", path.string()));
  return result;
}

}  // namespace amplifier::host
