// The real `amplifier` binary in a scratch directory of its own for the init tests: its own
// HOME and XDG_CONFIG_HOME (where settings.yaml and keys.env go), no vendor keys, and a module
// folder holding the provider-init-fields test module (the regular modules stay on the path).
#pragma once
#include "process.hpp"
#include "temp_files.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace init_test {

namespace fs = std::filesystem;

inline const std::string kAmplifier = AMP_BINARY_DIR "/host/amplifier";

// Every variable that would let the host find a key or a server other than the test's.
inline const std::vector<std::string> kForeignEnvironment = {"AMPLIFIER_MODULE_PATH",
                                                             "ANTHROPIC_API_KEY",
                                                             "ANTHROPIC_BASE_URL",
                                                             "OPENAI_API_KEY",
                                                             "OPENAI_BASE_URL",
                                                             "AZURE_OPENAI_ENDPOINT",
                                                             "AZURE_OPENAI_API_KEY",
                                                             "AZURE_OPENAI_AD_TOKEN",
                                                             "GEMINI_API_KEY",
                                                             "GOOGLE_API_KEY",
                                                             "GEMINI_BASE_URL",
                                                             "INIT_FIELDS_API_KEY",
                                                             "HTTP_PROXY",
                                                             "HTTPS_PROXY",
                                                             "http_proxy",
                                                             "https_proxy",
                                                             "XDG_DATA_HOME"};

inline std::string read_text(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline unsigned mode_of(const fs::path &file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) return 0;
  return static_cast<unsigned>(info.st_mode & 07777);
}

struct Scratch : amp_test::TempDir {
  const fs::path dir = path();
  const fs::path home = dir / "home";
  const fs::path config_home = dir / "config";
  const fs::path modules = dir / "modules";
  const fs::path settings = config_home / "amplifier" / "settings.yaml";
  const fs::path keys = config_home / "amplifier" / "keys.env";

  Scratch() : amp_test::TempDir("amp-init-test") {
    fs::create_directories(home);
    fs::create_directories(modules);
    fs::create_symlink(fs::path(AMP_TEST_MODULE_DIR) / "provider-init-fields.so",
                       modules / "provider-init-fields.so");
  }

  amp_test::ProcessOptions options() const {
    amp_test::ProcessOptions o;
    o.working_dir = dir.string();
    o.env = {{"HOME", home.string()},
             {"XDG_CONFIG_HOME", config_home.string()},
             {"AMPLIFIER_HOME", (dir / "amphome").string()},
             {"AMPLIFIER_MODULE_PATH", modules.string()},
             {"NO_COLOR", "1"}};
    o.unset_env = kForeignEnvironment;
    return o;
  }

  // The same with `name=value` in the environment.
  amp_test::ProcessOptions options_with(const std::string &name, const std::string &value) const {
    amp_test::ProcessOptions o = options();
    o.env.emplace_back(name, value);
    return o;
  }

  // The shell command for a tmux pane: the same environment, then `amplifier ARGS`.
  std::string shell_command(const std::string &args) const {
    std::string command = "env";
    for (const auto &name : kForeignEnvironment) command += " -u " + name;
    command += " -u NO_COLOR -u CI HOME='" + home.string() + "' XDG_CONFIG_HOME='" +
               config_home.string() + "' AMPLIFIER_HOME='" + (dir / "amphome").string() +
               "' AMPLIFIER_MODULE_PATH='" + modules.string() + "' '" + kAmplifier + "' " + args;
    return command + "; echo \"init exited: $?\"";
  }
};

inline amp_test::ProcessResult run_amplifier(const std::vector<std::string> &args,
                                             const amp_test::ProcessOptions &options) {
  std::vector<std::string> argv{kAmplifier};
  argv.insert(argv.end(), args.begin(), args.end());
  return amp_test::run_process(argv, options);
}

}  // namespace init_test
