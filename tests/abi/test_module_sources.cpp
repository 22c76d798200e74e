// Module resolution (module_sources.hpp): the order (override variable, plan source, user
// folder, AMPLIFIER_MODULE_PATH, built-in), the local source forms, and the safety rules, with
// real module files copied into temporary folders.
#include "amplifier/module_loader.hpp"
#include "amplifier/mount_plan.hpp"

#include "temp_files.hpp"

#include "text_checks.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace fs = std::filesystem;
using amp_test::TempDir;
namespace sources = amplifier::module_sources;

namespace {

const fs::path kTestModules = AMP_TEST_MODULE_DIR;

// Sets an environment variable for the scope, restoring the old value after.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string> &value) : name_(std::move(name)) {
    if (const char *old = std::getenv(name_.c_str())) old_ = old;
    if (value)
      ::setenv(name_.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// A copy of test module `id` as `dir/<file_name or id.so>`.
fs::path copy_module(const std::string &id, const fs::path &dir, std::string file_name = {}) {
  fs::create_directories(dir);
  fs::path target = dir / (file_name.empty() ? id + ".so" : file_name);
  fs::copy_file(kTestModules / (id + ".so"), target, fs::copy_options::overwrite_existing);
  return target;
}

std::string locate_error(const amplifier::ModuleLoader &loader, std::string_view id,
                         std::string_view source = {}) {
  try {
    loader.locate(id, source);
  } catch (const amplifier::ModuleLoadError &e) {
    return e.what();
  }
  return {};
}

using amp_test::contains;

}  // namespace

TEST_CASE("the override variable wins over the plan source, which wins over the search path") {
  TempDir search("amp-sources"), source("amp-sources"), override_dir("amp-sources");
  copy_module("tool-c-echo", search.path());
  const fs::path from_source = copy_module("tool-c-echo", source.path());
  const fs::path from_override = copy_module("tool-c-echo", override_dir.path());
  amplifier::ModuleLoader loader({search.path()});

  ScopedEnv no_override(sources::override_variable("tool-c-echo"), std::nullopt);
  CHECK(loader.locate("tool-c-echo").file == search.path() / "tool-c-echo.so");
  CHECK(loader.locate("tool-c-echo").origin == "search path");
  CHECK(loader.locate("tool-c-echo", source.path().string()).file == from_source);
  CHECK(loader.locate("tool-c-echo", source.path().string()).origin == "plan source");
  {
    ScopedEnv set(sources::override_variable("tool-c-echo"), from_override.string());
    auto location = loader.locate("tool-c-echo", source.path().string());
    CHECK(location.file == from_override);
    CHECK(location.origin == "AMPLIFIER_MODULE_TOOL_C_ECHO");
    auto module = loader.load("tool-c-echo", source.path().string());
    CHECK(module->file == fs::canonical(from_override));
  }
}

TEST_CASE("local sources: a .so, a folder holding <id>.so, and file:// URLs with escapes") {
  TempDir dir("amp-sources");
  const fs::path spaced = dir / "with space";
  const fs::path file = copy_module("tool-c-echo", spaced, "renamed-echo.so");
  copy_module("tool-c-echo", spaced);
  amplifier::ModuleLoader loader({dir.path()});

  CHECK(loader.locate("tool-c-echo", file.string()).file == file);
  CHECK(loader.locate("tool-c-echo", spaced.string()).file == spaced / "tool-c-echo.so");
  const std::string url = "file://" + dir.path().string() + "/with%20space/renamed-echo.so";
  CHECK(loader.locate("tool-c-echo", url).file == file);
  CHECK(loader.load("tool-c-echo", url)->id() == "tool-c-echo");

  CHECK(contains(locate_error(loader, "tool-other", spaced.string()), "has no tool-other.so"));
  CHECK(contains(locate_error(loader, "tool-c-echo", (dir / "missing.so").string()),
                 "does not exist"));
  CHECK(contains(locate_error(loader, "tool-c-echo", "file://relative/x.so"), "absolute path"));
  CHECK(contains(locate_error(loader, "tool-c-echo", "https://example.com/x.so"),
                 "unsupported scheme"));
}

TEST_CASE("a library whose descriptor names another id is refused before an instance exists") {
  TempDir dir("amp-sources");
  const fs::path impostor = copy_module("tool-c-echo", dir.path(), "tool-impostor.so");
  amplifier::ModuleLoader loader({dir.path()});
  for (const std::string &source : {std::string(), impostor.string()}) {
    try {
      loader.load("tool-impostor", source);
      FAIL("loaded a module whose descriptor says tool-c-echo");
    } catch (const amplifier::ModuleLoadError &e) {
      CHECK(contains(e.what(), "declares id 'tool-c-echo'"));
    }
  }
}

TEST_CASE("ids that could escape a folder are rejected before any file is touched") {
  amplifier::ModuleLoader loader({kTestModules});
  for (std::string id :
       {std::string("../tool-c-echo"), std::string("a/b"), std::string("tool-c-echo\0x", 13),
        std::string(""), std::string("Upper"), std::string("a..b"), std::string(129, 'a')}) {
    CAPTURE(id);
    CHECK(contains(locate_error(loader, id), "not a valid module id"));
  }
}

TEST_CASE(
    "AMPLIFIER_MODULE_PATH: relative and empty entries never make the working directory "
    "a search folder") {
  TempDir cwd("amp-sources"), absolute("amp-sources");
  copy_module("tool-c-echo", cwd.path());
  const fs::path previous = fs::current_path();
  fs::current_path(cwd.path());
  ScopedEnv path("AMPLIFIER_MODULE_PATH", ":.:modules:" + absolute.path().string() + ":");
  const auto dirs = sources::default_search_dirs();
  fs::current_path(previous);

  std::vector<std::string> module_path_dirs;
  for (const auto &dir : dirs) {
    CHECK(dir.dir.is_absolute());
    if (dir.origin == "AMPLIFIER_MODULE_PATH") module_path_dirs.push_back(dir.dir.string());
  }
  CHECK(module_path_dirs == std::vector<std::string>{absolute.path().string()});
}

TEST_CASE("the default order: user folder, then AMPLIFIER_MODULE_PATH, then built-in") {
  TempDir data("amp-sources"), extra("amp-sources");
  ScopedEnv xdg("XDG_DATA_HOME", data.path().string());
  ScopedEnv path("AMPLIFIER_MODULE_PATH", extra.path().string());
  const auto dirs = sources::default_search_dirs();
  REQUIRE(dirs.size() == 3);
  CHECK(dirs[0].dir == data / "amplifier/modules");
  CHECK(dirs[0].origin == "user folder");
  CHECK(dirs[1].dir == extra.path());
  CHECK(dirs[2].origin == "built-in");
  // This test runs from the build tree, so the built-in folder is the build's modules.
  CHECK(dirs[2].dir == fs::path(AMP_MODULE_DIR));

  copy_module("tool-c-echo", data / "amplifier/modules");
  copy_module("tool-c-echo", extra.path());
  amplifier::ModuleLoader loader;
  auto location = loader.locate("tool-c-echo");
  CHECK(location.origin == "user folder");

  // list() names both places; the later one is shadowed.
  int seen = 0;
  for (const auto &entry : loader.list()) {
    if (!entry.module || entry.module->id() != "tool-c-echo") continue;
    ++seen;
    CHECK(entry.shadowed == (entry.origin != "user folder"));
  }
  CHECK(seen == 2);
}

TEST_CASE("remote sources go through the host's resolver, and fail clearly without one") {
  TempDir dir("amp-sources");
  copy_module("tool-c-echo", dir.path());
  amplifier::ModuleLoader loader({kTestModules});
  const std::string remote = "git+https://example.invalid/modules.git@v1#subdirectory=echo";
  sources::set_remote_resolver(nullptr);
  CHECK(contains(locate_error(loader, "tool-c-echo", remote), "cannot fetch sources"));

  std::string asked;
  sources::set_remote_resolver([&](std::string_view id, std::string_view source) {
    asked = std::string(id) + " " + std::string(source);
    return dir.path();
  });
  CHECK(loader.locate("tool-c-echo", remote).file == dir / "tool-c-echo.so");
  CHECK(asked == "tool-c-echo " + remote);
  sources::set_remote_resolver(nullptr);
}

TEST_CASE("a plan's relative source is relative to the plan file; bad sources are plan errors") {
  TempDir dir("amp-sources");
  amp_test::write_file(dir / "plans/plan.yaml", R"(
session: {orchestrator: loop-basic, context: context-simple}
tools:
  - {module: tool-c-echo, source: ../mods}
  - {module: tool-b, source: "file:///opt/x.so"}
  - {module: tool-c, source: "git+https://example.invalid/r.git@main"}
)");
  auto plan = amplifier::load_mount_plan(dir / "plans/plan.yaml");
  REQUIRE(plan.tools.size() == 3);
  CHECK(fs::path(plan.tools[0].source) == dir / "mods");
  CHECK(plan.tools[1].source == "file:///opt/x.so");
  CHECK(plan.tools[2].source == "git+https://example.invalid/r.git@main");

  for (std::string bad : {"ftp://host/x.so", "git+", "git+nonsense", "git+http://example.invalid/r.git"}) {
    CAPTURE(bad);
    try {
      amplifier::parse_mount_plan(
          "session: {orchestrator: loop-basic, context: context-simple}\n"
          "tools: [{module: tool-x, source: '" +
              bad + "'}]\n",
          "plan.yaml");
      FAIL("accepted source " << bad);
    } catch (const amplifier::MountPlanError &e) {
      CHECK(contains(e.what(), "tools[0].source"));
      if (bad.starts_with("git+http:")) CHECK(contains(e.what(), "git+http is not accepted"));
    }
  }
}
