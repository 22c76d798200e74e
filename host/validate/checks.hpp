// The checks of `amplifier module validate`, in groups that each run in a process of their
// own (see isolation.hpp). A group reports each of its checks through the ChildReporter:
// "running" before it starts (so a crash is blamed on it), then its result.
#pragma once
#include "child_channel.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <filesystem>
#include <string>

namespace amplifier::host::validate {

// What a check's process is given.
struct CheckContext {
  std::filesystem::path file;  // the module under test
  boost::json::object config;  // its config (--config), the base of what checks give it
  const ChildReporter *reporter = nullptr;
};

using namespace std::chrono_literals;
// How long a check waits for a call's terminal event before calling it lost. Small, because
// a conforming module answers these calls (offline, cancelled, malformed) in milliseconds.
inline constexpr auto kCallPatience = 5s;
// How long a check keeps listening after the last terminal event: a module reporting after
// the end of a call does it from another thread, a little later.
inline constexpr auto kSettleTime = 150ms;

// Structural groups.
void run_resolve_group(const std::string &id, const ChildReporter &reporter);
void run_elf_group(const CheckContext &context);         // entry-symbol, only-export, ...
void run_descriptor_group(const CheckContext &context);  // loads, abi-version, ...
void run_instance_group(const CheckContext &context);    // create-destroy, provider-info, ...

// One behavioral check by name (call-cancel-graceful, tool-bad-input, ...); false when the
// name is unknown.
bool run_behavioral_check(const std::string &check, const CheckContext &context);

}  // namespace amplifier::host::validate
