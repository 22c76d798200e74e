// settings.yaml as the tests read it back (yaml-cpp), and the lines of keys.env.
#pragma once
#include "init_test_support.hpp"

#include "amplifier/yaml_cpp.hpp"

#include <string>
#include <vector>

namespace init_test {

inline YAML::Node settings_of(const Scratch &scratch) {
  return YAML::LoadFile(scratch.settings.string());
}

// provider.config of settings.yaml.
inline YAML::Node provider_config(const Scratch &scratch) {
  return settings_of(scratch)["provider"]["config"];
}

// Quoted in the file, so the mount plan reads it as a string whatever it looks like.
inline bool is_quoted(const YAML::Node &scalar) { return scalar.Tag() == "!"; }

inline std::vector<std::string> key_lines(const Scratch &scratch) {
  return amp_test::lines_of(read_text(scratch.keys));
}

}  // namespace init_test
