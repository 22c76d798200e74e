// Loading modules through amplifier::ModuleLoader: every broken module is refused with an
// error that names it and says why; good ones load once and are shared.
#include "amplifier/module_loader.hpp"

#include "text_checks.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// The loader's error for `id`, or "" when it loaded.
std::string load_error(amplifier::ModuleLoader &loader, const std::string &id) {
  try {
    loader.load(id);
  } catch (const amplifier::ModuleLoadError &e) {
    return e.what();
  }
  return {};
}

using amp_test::contains;

// A fresh directory that disappears with the object.
struct TempDir {
  fs::path path = fs::temp_directory_path() /
                  ("amp-test-abi-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "-" +
                   std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("each misbehaving module is refused with its name and the reason") {
  amplifier::ModuleLoader loader({AMP_TEST_MODULE_DIR});
  struct Case {
    std::string id;
    std::vector<std::string_view> reason;  // fragments the message must contain
  };
  const std::vector<Case> cases = {
      {"bad-abi-major", {"ABI 99", "major"}},
      {"bad-no-entry", {"no entry symbol", "amplifier_module_entry"}},
      {"bad-entry-null", {"refused", "NULL"}},
      {"bad-id-mismatch", {"declares id", "tool-someone-else"}},
      {"bad-null-table", {"tool table", "missing"}},
  };
  for (const auto &c : cases) {
    CAPTURE(c.id);
    std::string error = load_error(loader, c.id);
    CAPTURE(error);
    REQUIRE_FALSE(error.empty());
    CHECK(contains(error, c.id));
    for (auto part : c.reason) CHECK(contains(error, part));
  }
}

TEST_CASE("a module that is not on the search path is reported as not found, with the path") {
  amplifier::ModuleLoader loader({AMP_TEST_MODULE_DIR});
  std::string error = load_error(loader, "no-such-module");
  CAPTURE(error);
  CHECK(contains(error, "no-such-module"));
  CHECK(contains(error, "not found"));
  CHECK(contains(error, AMP_TEST_MODULE_DIR));
}

TEST_CASE("a file that is not a shared library is refused, not crashed on") {
  TempDir dir;
  std::ofstream(dir.path / "not-a-module.so") << "this is text, not ELF\n";
  amplifier::ModuleLoader loader({dir.path});
  std::string error = load_error(loader, "not-a-module");
  CAPTURE(error);
  CHECK(contains(error, "not-a-module"));
  CHECK(contains(error, "shared library"));
}

TEST_CASE("the C tool module loads like any other, and is loaded once") {
  amplifier::ModuleLoader loader({AMP_TEST_MODULE_DIR});
  auto first = loader.load("tool-c-echo");
  REQUIRE(first);
  CHECK(first->id() == "tool-c-echo");
  CHECK(first->descriptor->kind == AMP_KIND_TOOL);
  CHECK(std::string(first->descriptor->version) == "1.0.0");
  CHECK(first->descriptor->abi_major == AMP_ABI_VERSION_MAJOR);
  const bool has_ready_phase = first->descriptor->session_ready != nullptr;
  CHECK_FALSE(has_ready_phase);
  auto second = loader.load("tool-c-echo");
  CHECK(second.get() == first.get());
}

TEST_CASE("a module whose create fails still loads: the failure belongs to mounting") {
  amplifier::ModuleLoader loader({AMP_TEST_MODULE_DIR});
  CHECK(load_error(loader, "bad-init-fails").empty());
}

TEST_CASE("listing the test modules reports each file, loaded or with its error") {
  amplifier::ModuleLoader loader({AMP_TEST_MODULE_DIR});
  auto listing = loader.list();
  auto entry = [&](std::string_view file_name) -> const amplifier::ModuleListing * {
    for (const auto &e : listing)
      if (e.file.filename() == file_name) return &e;
    return nullptr;
  };
  for (auto good : {"tool-c-echo.so", "tool-test-sync.so", "bad-throws.so", "bad-init-fails.so"}) {
    CAPTURE(good);
    auto *e = entry(good);
    REQUIRE(e);
    CHECK(e->module);
    CHECK(e->error.empty());
  }
  for (auto bad : {"bad-abi-major.so", "bad-no-entry.so", "bad-entry-null.so", "bad-null-table.so"}) {
    CAPTURE(bad);
    auto *e = entry(bad);
    REQUIRE(e);
    CHECK_FALSE(e->module);
    CHECK(contains(e->error, bad));
  }
  // Loaded by file, a module is known by its descriptor's id, whatever the file is called.
  auto *renamed = entry("bad-id-mismatch.so");
  REQUIRE(renamed);
  REQUIRE(renamed->module);
  CHECK(renamed->module->id() == "tool-someone-else");
}
