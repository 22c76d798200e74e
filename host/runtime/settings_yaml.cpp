#include "settings_yaml.hpp"

#include <string_view>

namespace amplifier::host {
namespace {

bool is_quoted(const YAML::Node &scalar) {
  // "!" is yaml-cpp's tag for a quoted (or block) scalar; !!str also forces a string.
  return scalar.Tag() == kQuotedTag || scalar.Tag() == "tag:yaml.org,2002:str";
}

// A plain scalar the core schema reads as null: written as `~`, since yaml-cpp would
// otherwise quote it and turn it into a string.
bool is_null_text(std::string_view text) {
  return text == "~" || text == "null" || text == "Null" || text == "NULL";
}

void emit(YAML::Emitter &out, const YAML::Node &node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out << YAML::Null;
      break;
    case YAML::NodeType::Scalar:
      if (is_quoted(node))
        out << YAML::DoubleQuoted << node.Scalar();
      else if (is_null_text(node.Scalar()))
        out << YAML::Null;
      else
        out << node.Scalar();  // yaml-cpp quotes it only when it cannot be plain
      break;
    case YAML::NodeType::Sequence:
      out << YAML::BeginSeq;
      for (const auto &item : node) emit(out, item);
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Map:
      out << YAML::BeginMap;
      for (const auto &entry : node) {
        out << YAML::Key;
        emit(out, entry.first);
        out << YAML::Value;
        emit(out, entry.second);
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

YAML::Node quoted_scalar(const std::string &text) {
  YAML::Node node(text);
  node.SetTag(kQuotedTag);
  return node;
}

std::string emit_block_yaml(const YAML::Node &node) {
  YAML::Emitter out;
  emit(out, node);
  return out.c_str();
}

std::string emit_flow_yaml(const YAML::Node &node) {
  YAML::Emitter out;
  out << YAML::Flow;
  emit(out, node);
  return out.c_str();
}

}  // namespace amplifier::host
