#include "gemini_schema.hpp"

#include <array>
#include <string_view>

namespace gemini {

namespace json = boost::json;

namespace {

// Gemini's Schema fields (ai.google.dev API reference, "Schema").
constexpr std::array kKnown = {
    std::string_view("type"),          std::string_view("format"),
    std::string_view("title"),         std::string_view("description"),
    std::string_view("nullable"),      std::string_view("enum"),
    std::string_view("maxItems"),      std::string_view("minItems"),
    std::string_view("properties"),    std::string_view("required"),
    std::string_view("minProperties"), std::string_view("maxProperties"),
    std::string_view("minLength"),     std::string_view("maxLength"),
    std::string_view("pattern"),       std::string_view("example"),
    std::string_view("anyOf"),         std::string_view("propertyOrdering"),
    std::string_view("default"),       std::string_view("items"),
    std::string_view("minimum"),       std::string_view("maximum")};

bool known(std::string_view key) {
  for (auto k : kKnown)
    if (k == key) return true;
  return false;
}

class Converter {
 public:
  json::object convert(const json::object &in) {
    json::object out;
    for (const auto &field : in) {
      const std::string_view key = field.key();
      const json::value &value = field.value();
      if (key == "type" && value.is_array()) {
        type_list(value.get_array(), out);
      } else if (key == "const") {
        out["enum"] = json::array{value};
      } else if (key == "properties" && value.is_object()) {
        json::object properties;
        for (const auto &property : value.get_object())
          properties[property.key()] = property.value().is_object()
                                           ? json::value(convert(property.value().get_object()))
                                           : property.value();
        out["properties"] = std::move(properties);
      } else if (key == "items" && value.is_object()) {
        out["items"] = convert(value.get_object());
      } else if (key == "anyOf" && value.is_array()) {
        json::array options;
        for (const auto &option : value.get_array())
          options.push_back(option.is_object() ? json::value(convert(option.get_object()))
                                               : option);
        out["anyOf"] = std::move(options);
      } else if (known(key)) {
        out[key] = value;
      } else {
        dropped_.insert(std::string(key));
      }
    }
    return out;
  }

  std::set<std::string> take_dropped() { return std::move(dropped_); }

 private:
  // ["string", "null"] -> type string, nullable; several non-null types cannot be said.
  void type_list(const json::array &types, json::object &out) {
    std::string chosen;
    std::size_t non_null = 0;
    for (const auto &type : types) {
      if (!type.is_string()) continue;
      if (type.get_string() == "null") {
        out["nullable"] = true;
      } else {
        if (chosen.empty()) chosen = type.get_string();
        ++non_null;
      }
    }
    if (!chosen.empty()) out["type"] = chosen;
    if (non_null > 1) dropped_.insert("type (a list of several types)");
  }

  std::set<std::string> dropped_;
};

}  // namespace

ConvertedSchema to_gemini_schema(const json::object &json_schema) {
  Converter converter;
  ConvertedSchema result;
  result.schema = converter.convert(json_schema);
  result.dropped = converter.take_dropped();
  return result;
}

}  // namespace gemini
