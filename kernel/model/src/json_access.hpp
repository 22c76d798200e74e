// Private helpers of amp_model: reading typed fields with path-aware errors and writing
// optional fields back. Not installed; included by the model's sources only.
#pragma once
#include "amplifier/model_base.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace amplifier::detail {

// A JSON path built on the stack while descending; turned into text only when reporting a
// problem, so parsing a valid document never allocates for paths.
// A child refers to its parent: it must not outlive it (pass children down, never store them).
class JsonPath {
 public:
  JsonPath() = default;  // the document root

  JsonPath child(std::string_view key) const { return JsonPath(this, key, 0, false); }
  JsonPath at(std::size_t index) const { return JsonPath(this, {}, index, true); }

  // "messages[3].content[1]"; empty for the root.
  std::string str() const;
  [[noreturn]] void fail(std::string problem) const;

 private:
  JsonPath(const JsonPath *parent, std::string_view key, std::size_t index, bool is_index)
      : parent_(parent), key_(key), index_(index), is_index_(is_index) {}
  void append_to(std::string &out) const;

  const JsonPath *parent_ = nullptr;
  std::string_view key_;
  std::size_t index_ = 0;
  bool is_index_ = false;
};

const boost::json::object &expect_object(const boost::json::value &value, const JsonPath &path);
const boost::json::array &expect_array(const boost::json::value &value, const JsonPath &path);

// The field's value, or null when it is absent or JSON null (both mean "not given").
const boost::json::value *present(const boost::json::object &object, std::string_view key);

std::string read_string(const boost::json::value &value, const JsonPath &path);
std::int64_t read_int(const boost::json::value &value, const JsonPath &path);
double read_number(const boost::json::value &value, const JsonPath &path);

// `owner` names the object in the "missing" message: "<owner> has no <key>".
std::string required_string(const boost::json::object &object, std::string_view key,
                            const JsonPath &path, std::string_view owner);
std::optional<std::string> optional_string(const boost::json::object &object,
                                           std::string_view key, const JsonPath &path);
std::optional<std::int64_t> optional_int(const boost::json::object &object, std::string_view key,
                                         const JsonPath &path);
std::optional<double> optional_number(const boost::json::object &object, std::string_view key,
                                      const JsonPath &path);
std::optional<bool> optional_bool(const boost::json::object &object, std::string_view key,
                                  const JsonPath &path);
std::optional<boost::json::object> optional_object(const boost::json::object &object,
                                                   std::string_view key, const JsonPath &path);
std::optional<boost::json::value> optional_value(const boost::json::object &object,
                                                 std::string_view key);

// Copies into the default memory resource. Boost.JSON copies share the source's resource, so
// without this a model object parsed from a document in a scratch buffer would dangle.
boost::json::value owned_copy(const boost::json::value &value);
boost::json::object owned_copy(const boost::json::object &object);

// The fields of `object` whose keys are not in `known`.
boost::json::object unknown_fields(const boost::json::object &object,
                                   std::initializer_list<std::string_view> known);

// Writers: an absent optional writes nothing.
void put(boost::json::object &out, std::string_view key, const std::optional<std::string> &value);
void put(boost::json::object &out, std::string_view key, const std::optional<std::int64_t> &value);
void put(boost::json::object &out, std::string_view key, const std::optional<double> &value);
void put(boost::json::object &out, std::string_view key, const std::optional<bool> &value);
void put(boost::json::object &out, std::string_view key,
         const std::optional<boost::json::object> &value);
void put(boost::json::object &out, std::string_view key,
         const std::optional<boost::json::value> &value);
// Adds the unknown fields after the typed ones; a typed field of the same name wins.
void put_extra(boost::json::object &out, const boost::json::object &extra);

}  // namespace amplifier::detail
