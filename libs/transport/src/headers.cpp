#include "amplifier/transport/headers.hpp"

#include <algorithm>

namespace amplifier::transport {

namespace {
char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

Headers::Headers(std::initializer_list<Field> fields) : fields_(fields) {}

void Headers::add(std::string name, std::string value) {
  fields_.emplace_back(std::move(name), std::move(value));
}

void Headers::set(std::string name, std::string value) {
  erase(name);
  add(std::move(name), std::move(value));
}

void Headers::erase(std::string_view name) {
  std::erase_if(fields_, [&](const Field &field) { return iequals(field.first, name); });
}

std::optional<std::string_view> Headers::find(std::string_view name) const {
  for (const auto &[field_name, value] : fields_)
    if (iequals(field_name, name)) return std::string_view(value);
  return std::nullopt;
}

}  // namespace amplifier::transport
