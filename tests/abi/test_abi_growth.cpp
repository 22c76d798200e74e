// Growing the ABI: a module built for an older minor (smaller tables) loads and works on this
// host; a module built with newer headers loads when its min_host_minor allows this host, and
// is refused with a reason that says so when it does not. And the
// kernel's check of tool input against the tool's schema, before the module sees it.
#include "amplifier/coordinator.hpp"
#include "amplifier/module_loader.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"

#include <doctest/doctest.h>

#include <condition_variable>
#include <mutex>
#include <string>

namespace {

// Runs one tool call through the coordinator and returns its terminal payload.
std::string run_tool(amplifier::Session &session, const std::string &tool, const std::string &input) {
  auto *owner = session.coordinator().tool_owner(tool);
  REQUIRE(owner != nullptr);
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::string result;
  amplifier::CallObserver observer;
  observer.on_finish = [&](amp_call_id, amp_status status, std::string_view payload) {
    std::lock_guard lock(m);
    result = status == AMP_OK ? std::string(payload) : "failed";
    done = true;
    cv.notify_all();
  };
  session.coordinator().start_tool_call(*owner, tool, input, observer);
  std::unique_lock lock(m);
  REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return done; }));
  return result;
}

amplifier::SessionOptions test_options() {
  amplifier::SessionOptions options;
  options.module_path = {AMP_TEST_MODULE_DIR, AMP_MODULE_DIR};
  return options;
}

}  // namespace

TEST_CASE("tool input that breaks the tool's schema is refused before the tool runs") {
  amplifier::Session session(
      amplifier::parse_mount_plan("session: {orchestrator: loop-basic, context: context-simple}\n"
                                  "tools: [{module: tool-c-echo}]\n",
                                  "schema.yaml"),
      test_options());
  session.initialize();
  REQUIRE(session.load_failures().empty());
  std::string bad = run_tool(session, "c_upper", R"({"text": 5})");
  CHECK(bad.find(R"("success":false)") != std::string::npos);
  CHECK(bad.find("Invalid input for c_upper: input.text") != std::string::npos);
  std::string good = run_tool(session, "c_upper", R"({"text": "abc"})");
  CHECK(good.find("ABC") != std::string::npos);
}

TEST_CASE("a module built for ABI 1.0 loads and runs on this host") {
  amplifier::ModuleLoader loader({AMP_TEST_MODULE_DIR});
  auto module = loader.load("abi-minor-old");
  CHECK(module->descriptor->abi_minor == 0);
  CHECK(AMP_ABI_VERSION_MINOR >= 1);

  amplifier::Session session(
      amplifier::parse_mount_plan("session: {orchestrator: loop-basic, context: context-simple}\n"
                                  "tools: [{module: abi-minor-old}]\n",
                                  "growth.yaml"),
      test_options());
  session.initialize();
  REQUIRE(session.load_failures().empty());
  CHECK(run_tool(session, "minor_probe", "{}").find("minor 0") != std::string::npos);
}

TEST_CASE("a module that needs a newer ABI minor is refused, naming the versions") {
  amplifier::ModuleLoader loader({AMP_TEST_MODULE_DIR});
  std::string error;
  try {
    loader.load("abi-minor-future");
  } catch (const amplifier::ModuleLoadError &e) {
    error = e.what();
  }
  CHECK(error.find("abi-minor-future") != std::string::npos);
  CHECK(error.find("newer than the host") != std::string::npos);
}

TEST_CASE("a module built with newer headers loads when it declares it runs on this host") {
  amplifier::ModuleLoader loader({AMP_TEST_MODULE_DIR});
  auto module = loader.load("abi-minor-forward");
  CHECK(module->descriptor->abi_minor == AMP_ABI_VERSION_MINOR + 1);
  CHECK(module->descriptor->min_host_minor == 1);

  amplifier::Session session(
      amplifier::parse_mount_plan("session: {orchestrator: loop-basic, context: context-simple}\n"
                                  "tools: [{module: abi-minor-forward}]\n",
                                  "forward.yaml"),
      test_options());
  session.initialize();
  REQUIRE(session.load_failures().empty());
  CHECK(run_tool(session, "minor_probe", "{}").find(
            "minor " + std::to_string(AMP_ABI_VERSION_MINOR + 1)) != std::string::npos);
}
