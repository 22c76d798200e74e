// `required: true` through the real binary, on the shipped coding plan: without the approval
// hook the session refuses to start (bash must never run unasked); with it, it runs.
#include "host_process.hpp"

#include "text_checks.hpp"

#include <doctest/doctest.h>

#include <string>

using amp_host_test::run_amplifier;
using amp_host_test::Scratch;

namespace {

const std::string kCodingPlan = AMP_SOURCE_DIR "/mount-plans/coding.yaml";

using amp_test::contains;

}  // namespace

TEST_CASE("the coding plan does not start when its required approval hook cannot load") {
  Scratch s;
  auto o = s.options();
  o.env.emplace_back("AMPLIFIER_PROVIDER", "provider-mock");
  // The override points at nothing: hooks-approval cannot be loaded.
  o.env.emplace_back("AMPLIFIER_MODULE_HOOKS_APPROVAL", (s.dir / "missing.so").string());
  auto r = run_amplifier({"run", "--plan", kCodingPlan, "list the files"}, o);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.err, "hooks-approval' (required)"));
  CHECK(contains(r.err, "missing.so does not exist"));
  CHECK(r.out.empty());
}

TEST_CASE("the coding plan runs when every required module is there") {
  Scratch s;
  auto o = s.options();
  o.env.emplace_back("AMPLIFIER_PROVIDER", "provider-mock");
  auto r = run_amplifier({"run", "--plan", kCodingPlan, "list the files"}, o);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(r.out.empty());
}
