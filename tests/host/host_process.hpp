// The real `amplifier` binary in a scratch directory of its own (HOME, AMPLIFIER_HOME, no
// vendor keys), shared by the host's process tests.
#pragma once
#include "process.hpp"
#include "temp_files.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace amp_host_test {

namespace fs = std::filesystem;
using amp_test::ProcessOptions;
using amp_test::ProcessResult;

inline const std::string kAmplifier = AMP_BINARY_DIR "/host/amplifier";

// A scratch directory with its own HOME, removed at the end of the test.
struct Scratch : amp_test::TempDir {
  const fs::path dir = path();
  Scratch() : amp_test::TempDir("amp-host-test") { fs::create_directories(dir / "home"); }
  fs::path write(const std::string &name, const std::string &text) const {
    fs::path p = dir / name;
    amp_test::write_file(p, text);
    return p;
  }
  ProcessOptions options() const {
    ProcessOptions o;
    o.working_dir = dir.string();
    o.env = {{"HOME", (dir / "home").string()}, {"AMPLIFIER_HOME", (dir / "amphome").string()},
             {"NO_COLOR", "1"}};
    o.unset_env = {"AMPLIFIER_MODULE_PATH", "ANTHROPIC_API_KEY", "OPENAI_API_KEY",
                   "OPENAI_BASE_URL",       "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY",
                   "AZURE_OPENAI_AD_TOKEN", "OPENAI_API_VERSION",    "GEMINI_API_KEY",
                   "GOOGLE_API_KEY",        "GEMINI_BASE_URL",
                   // Per-user folders follow HOME, so each test has its own.
                   "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"};
    return o;
  }
};

inline ProcessResult run_amplifier(const std::vector<std::string> &args, const ProcessOptions &o) {
  std::vector<std::string> argv{kAmplifier};
  argv.insert(argv.end(), args.begin(), args.end());
  return amp_test::run_process(argv, o);
}

}  // namespace amp_host_test
