// HTTP header fields in arrival order, with case-insensitive lookup (RFC 9110 field names are
// case-insensitive; vendors mix "Retry-After" and "retry-after").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amplifier::transport {

class Headers {
 public:
  using Field = std::pair<std::string, std::string>;

  Headers() = default;
  Headers(std::initializer_list<Field> fields);

  // Appends a field; repeated names are kept (Set-Cookie style).
  void add(std::string name, std::string value);
  // Replaces every field called `name` by one field.
  void set(std::string name, std::string value);
  void erase(std::string_view name);

  // The first field called `name` (case-insensitive), if any.
  std::optional<std::string_view> find(std::string_view name) const;
  bool contains(std::string_view name) const { return find(name).has_value(); }

  const std::vector<Field> &fields() const { return fields_; }
  bool empty() const { return fields_.empty(); }
  std::size_t size() const { return fields_.size(); }

 private:
  std::vector<Field> fields_;
};

bool iequals(std::string_view a, std::string_view b);

}  // namespace amplifier::transport
