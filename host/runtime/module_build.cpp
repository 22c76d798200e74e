#include "module_build.hpp"

#include "subprocess.hpp"

#include "amplifier/module_loader.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <thread>

namespace amplifier::host {
namespace fs = std::filesystem;

namespace {

std::string jobs() { return std::to_string(std::max(1u, std::thread::hardware_concurrency())); }

module_sources::SdkLocation sdk_or_throw() {
  if (auto sdk = module_sources::sdk_location()) return *sdk;
  throw std::runtime_error(
      "this amplifier has no SDK beside it (lib/cmake/Amplifier): install it with "
      "`cmake --install` or the Debian package to build modules from source");
}

// Runs one build step; throws with the end of its output when it fails.
void run_step(const std::string &what, const std::vector<std::string> &argv,
              const CommandOptions &options) {
  CommandResult result = run_command(argv, options);
  if (result.exit_code == 0) return;
  throw std::runtime_error(fmt::format(
      "{} failed (exit {}); the end of its output:\n{}\n(all of "
      "it: {})",
      what, result.exit_code, last_lines(result.output, 15), options.log_file.string()));
}

std::vector<ModuleFile> build_with_cmake(const fs::path &source, const fs::path &build,
                                         const CommandOptions &options) {
  const fs::path prefix = sdk_or_throw().prefix;
  run_step("cmake configure",
           {"cmake", "-S", source.string(), "-B", (build / "cmake").string(),
            "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_PREFIX_PATH=" + prefix.string()},
           options);
  run_step("cmake build", {"cmake", "--build", (build / "cmake").string(), "-j", jobs()}, options);
  return modules_in(build / "cmake", true);
}

std::vector<ModuleFile> build_with_cargo(const fs::path &source, const fs::path &build,
                                         CommandOptions options) {
  options.working_dir = source;
  options.env.emplace_back("CARGO_TARGET_DIR", (build / "target").string());
  run_step("cargo build", {"cargo", "build", "--release", "--offline", "-j", jobs()}, options);
  return modules_in(build / "target" / "release", false);
}

// make builds in place, so it runs on a copy of the project.
std::vector<ModuleFile> build_with_make(const fs::path &source, const fs::path &build,
                                        CommandOptions options) {
  const fs::path copy = build / "src";
  fs::copy(source, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  std::string pkg_config_path = sdk_or_throw().pkgconfig_dir.string();
  if (const char *existing = std::getenv("PKG_CONFIG_PATH"); existing && *existing)
    pkg_config_path += std::string(":") + existing;
  options.env.emplace_back("PKG_CONFIG_PATH", pkg_config_path);
  run_step("make", {"make", "-C", copy.string(), "-j", jobs()}, options);
  return modules_in(copy, true);
}

}  // namespace

bool is_module_project(const fs::path &dir) {
  std::error_code ec;
  for (const char *marker : {"CMakeLists.txt", "Cargo.toml", "Makefile"})
    if (fs::is_regular_file(dir / marker, ec)) return true;
  return false;
}

std::vector<ModuleFile> build_module_project(const fs::path &source_dir,
                                             const fs::path &build_dir) {
  fs::create_directories(build_dir);
  CommandOptions options;
  options.log_file = build_dir / "build.log";
  std::vector<ModuleFile> built;
  std::error_code ec;
  if (fs::is_regular_file(source_dir / "CMakeLists.txt", ec))
    built = build_with_cmake(source_dir, build_dir, options);
  else if (fs::is_regular_file(source_dir / "Cargo.toml", ec))
    built = build_with_cargo(source_dir, build_dir, options);
  else if (fs::is_regular_file(source_dir / "Makefile", ec))
    built = build_with_make(source_dir, build_dir, options);
  else
    throw std::runtime_error(fmt::format(
        "{} has no CMakeLists.txt, Cargo.toml or Makefile to build", source_dir.string()));
  if (built.empty())
    throw std::runtime_error(fmt::format(
        "building {} produced no amplifier module (no .so exporting amplifier_module_entry)",
        source_dir.string()));
  return built;
}

std::string module_id_of(const fs::path &file) {
  ModuleLoader loader({file.parent_path()});
  return std::string(loader.load_file(file)->id());
}

std::vector<ModuleFile> modules_in(const fs::path &dir, bool recursive) {
  std::vector<ModuleFile> found;
  auto consider = [&](const fs::directory_entry &entry) {
    if (!entry.is_regular_file() || entry.path().extension() != ".so") return;
    if (entry.path().string().find("/CMakeFiles/") != std::string::npos) return;
    try {
      found.push_back({entry.path(), module_id_of(entry.path())});
    } catch (const std::exception &) {  // a library that is not a module: not ours to install
    }
  };
  std::error_code ec;
  if (recursive) {
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      consider(*it);
  } else {
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
      consider(*it);
  }
  std::sort(found.begin(), found.end(),
            [](const ModuleFile &a, const ModuleFile &b) { return a.file < b.file; });
  return found;
}

}  // namespace amplifier::host
