#include "amplifier/module_support/session_facts.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <stdexcept>

namespace amplifier::module_support {

std::string session_id_of(const amp::sdk::Host &host) {
  const boost::json::object info = parse_json_object(host.session_info(), "session_info");
  const auto *id = info.if_contains("session_id");
  if (!id || !id->is_string()) throw std::runtime_error("session_info has no session_id");
  return std::string(id->get_string());
}

std::optional<std::filesystem::path> confined_folder_of(const amp::sdk::Host &host) {
  const boost::json::object info = parse_json_object(host.session_info(), "session_info");
  const auto *workspace = info.if_contains("workspace");
  if (!workspace) return std::nullopt;
  const auto *fields = workspace->if_object();
  const auto *folder = fields ? fields->if_contains("folder") : nullptr;
  const auto *confined = fields ? fields->if_contains("confined") : nullptr;
  if (!folder || !folder->is_string() || folder->get_string().empty())
    throw std::runtime_error("session_info's workspace has no folder");
  if (!confined || !confined->is_bool() || !confined->get_bool()) return std::nullopt;
  return std::filesystem::path(std::string(folder->get_string()));
}

std::optional<std::filesystem::path> state_folder_of(const amp::sdk::Host &host) {
  const boost::json::object info = parse_json_object(host.session_info(), "session_info");
  const auto *folder = info.if_contains("state_folder");
  if (!folder || !folder->is_string() || folder->get_string().empty()) return std::nullopt;
  std::filesystem::path path(std::string(folder->get_string()));
  if (!path.is_absolute()) throw std::runtime_error("session_info's state_folder is not absolute");
  return path;
}

std::int64_t user_messages_of(const amp::sdk::Host &host) {
  const boost::json::value messages =
      parse_json(host.context_messages(), "context_get_messages");
  std::int64_t count = 0;
  if (const auto *array = messages.if_array())
    for (const auto &message : *array)
      if (const auto *object = message.if_object())
        if (const auto *role = object->if_contains("role");
            role && role->is_string() && role->get_string() == "user")
          ++count;
  return count;
}

std::string now_iso8601() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t seconds = system_clock::to_time_t(now);
  const auto millis = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(millis));
  return text;
}

}  // namespace amplifier::module_support
