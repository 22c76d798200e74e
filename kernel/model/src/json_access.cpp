#include "json_access.hpp"

#include <boost/json/array.hpp>
#include <boost/json/kind.hpp>

#include <cmath>
#include <limits>

namespace amplifier::detail {
namespace json = boost::json;

namespace {
std::string got(const json::value &value) {
  return "got " + std::string(json::to_string(value.kind()));
}
}  // namespace

void JsonPath::append_to(std::string &out) const {
  if (parent_ == nullptr) return;  // the root contributes nothing
  parent_->append_to(out);
  if (is_index_) {
    out += '[';
    out += std::to_string(index_);
    out += ']';
    return;
  }
  if (!out.empty()) out += '.';
  out += key_;
}

std::string JsonPath::str() const {
  std::string out;
  append_to(out);
  return out;
}

void JsonPath::fail(std::string problem) const { throw ModelError(str(), std::move(problem)); }

const json::object &expect_object(const json::value &value, const JsonPath &path) {
  if (const auto *object = value.if_object()) return *object;
  path.fail("expected an object, " + got(value));
}

const json::array &expect_array(const json::value &value, const JsonPath &path) {
  if (const auto *array = value.if_array()) return *array;
  path.fail("expected an array, " + got(value));
}

const json::value *present(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value == nullptr || value->is_null() ? nullptr : value;
}

std::string read_string(const json::value &value, const JsonPath &path) {
  if (const auto *string = value.if_string()) return std::string(string->data(), string->size());
  path.fail("expected a string, " + got(value));
}

std::int64_t read_int(const json::value &value, const JsonPath &path) {
  if (const auto *number = value.if_int64()) return *number;
  if (const auto *number = value.if_uint64()) {
    if (*number <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return static_cast<std::int64_t>(*number);
    path.fail("integer out of range");
  }
  // Producers in languages without an integer type write 1024.0; accept integral doubles.
  if (const auto *number = value.if_double()) {
    if (std::trunc(*number) == *number && std::abs(*number) < 9.0e18)
      return static_cast<std::int64_t>(*number);
    path.fail("expected an integer, got a fractional number");
  }
  path.fail("expected an integer, " + got(value));
}

double read_number(const json::value &value, const JsonPath &path) {
  if (value.is_number()) return value.to_number<double>();
  path.fail("expected a number, " + got(value));
}

std::string required_string(const json::object &object, std::string_view key,
                            const JsonPath &path, std::string_view owner) {
  const json::value *value = present(object, key);
  if (value == nullptr) path.fail(std::string(owner) + " has no " + std::string(key));
  return read_string(*value, path.child(key));
}

std::optional<std::string> optional_string(const json::object &object, std::string_view key,
                                           const JsonPath &path) {
  const json::value *value = present(object, key);
  if (value == nullptr) return std::nullopt;
  return read_string(*value, path.child(key));
}

std::optional<std::int64_t> optional_int(const json::object &object, std::string_view key,
                                         const JsonPath &path) {
  const json::value *value = present(object, key);
  if (value == nullptr) return std::nullopt;
  return read_int(*value, path.child(key));
}

std::optional<double> optional_number(const json::object &object, std::string_view key,
                                      const JsonPath &path) {
  const json::value *value = present(object, key);
  if (value == nullptr) return std::nullopt;
  return read_number(*value, path.child(key));
}

std::optional<bool> optional_bool(const json::object &object, std::string_view key,
                                  const JsonPath &path) {
  const json::value *value = present(object, key);
  if (value == nullptr) return std::nullopt;
  if (const auto *flag = value->if_bool()) return *flag;
  path.child(key).fail("expected a boolean, " + got(*value));
}

std::optional<json::object> optional_object(const json::object &object, std::string_view key,
                                            const JsonPath &path) {
  const json::value *value = present(object, key);
  if (value == nullptr) return std::nullopt;
  return owned_copy(expect_object(*value, path.child(key)));
}

std::optional<json::value> optional_value(const json::object &object, std::string_view key) {
  const json::value *value = present(object, key);
  if (value == nullptr) return std::nullopt;
  return owned_copy(*value);
}

json::value owned_copy(const json::value &value) { return json::value(value, json::storage_ptr()); }

json::object owned_copy(const json::object &object) {
  return json::object(object, json::storage_ptr());
}

json::object unknown_fields(const json::object &object,
                            std::initializer_list<std::string_view> known) {
  json::object extra;
  for (const auto &field : object) {
    const std::string_view key = field.key();
    bool is_known = false;
    for (std::string_view candidate : known) is_known = is_known || candidate == key;
    if (!is_known) extra.emplace(key, field.value());
  }
  return extra;
}

void put(json::object &out, std::string_view key, const std::optional<std::string> &value) {
  if (value) out.emplace(key, *value);
}
void put(json::object &out, std::string_view key, const std::optional<std::int64_t> &value) {
  if (value) out.emplace(key, *value);
}
void put(json::object &out, std::string_view key, const std::optional<double> &value) {
  if (value) out.emplace(key, *value);
}
void put(json::object &out, std::string_view key, const std::optional<bool> &value) {
  if (value) out.emplace(key, *value);
}
void put(json::object &out, std::string_view key, const std::optional<json::object> &value) {
  if (value) out.emplace(key, *value);
}
void put(json::object &out, std::string_view key, const std::optional<json::value> &value) {
  if (value) out.emplace(key, *value);
}

void put_extra(json::object &out, const json::object &extra) {
  for (const auto &field : extra) out.emplace(field.key(), field.value());  // never overwrites
}

}  // namespace amplifier::detail
