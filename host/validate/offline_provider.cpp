#include "offline_provider.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string_view>

namespace amplifier::host::validate {
namespace {

namespace json = boost::json;

constexpr std::string_view kDummyCredential = "amplifier-validate-dummy-credential";
constexpr std::string_view kDummyModel = "amplifier-validate-model";
constexpr int kShortTimeoutSeconds = 5;

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool is_endpoint_key(std::string_view id) {
  return id == "host" || id == "url" || id == "endpoint" || id == "base_url" || id == "api_base" ||
         ends_with(id, "_url") || ends_with(id, "_endpoint") || ends_with(id, "_host");
}

std::string text_at(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

bool flag_at(const json::object &o, std::string_view key) {
  const json::value *v = o.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

bool has_default(const json::object &field) {
  const json::value *d = field.if_contains("default");
  return d && !d->is_null() && !(d->is_string() && d->get_string().empty());
}

// The secret fields to fill: the required ones, else the first (two alternative credentials,
// such as a key and a token, are often exclusive).
std::vector<std::string> secrets_to_fill(const json::array &fields) {
  std::vector<std::string> required, any;
  for (const auto &field : fields) {
    const json::object *f = field.if_object();
    if (!f || text_at(*f, "field_type") != "secret") continue;
    any.push_back(text_at(*f, "id"));
    if (flag_at(*f, "required")) required.push_back(text_at(*f, "id"));
  }
  if (!required.empty()) return required;
  if (!any.empty()) return {any.front()};
  return {};
}

}  // namespace

ClosedPort::ClosedPort() {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error("cannot create a socket for the closed port");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd_, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr *>(&address), &length) != 0)
    throw std::runtime_error("cannot reserve a loopback port");
  port_ = ntohs(address.sin_port);
}

ClosedPort::~ClosedPort() {
  if (fd_ >= 0) ::close(fd_);
}

std::string ClosedPort::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

OfflineConfig offline_config(const json::value &info, json::object base,
                             const std::string &endpoint) {
  OfflineConfig out{std::move(base), {}};
  const json::value *fields_value =
      info.is_object() ? info.get_object().if_contains("config_fields") : nullptr;
  if (!fields_value || !fields_value->is_array()) return out;
  const json::array &fields = fields_value->get_array();
  for (const auto &field : fields) {
    const json::object *f = field.if_object();
    if (!f) continue;
    const std::string id = text_at(*f, "id");
    if (is_endpoint_key(id)) {
      out.config[id] = endpoint;
      out.endpoint_keys.push_back(id);
    } else if ((ends_with(id, "model") || ends_with(id, "deployment")) && !has_default(*f) &&
               !out.config.contains(id)) {
      out.config[id] = kDummyModel;  // the request names none: something must be sent
    } else if (id == "max_retries") {
      out.config[id] = 0;
    } else if (id == "timeout") {
      out.config[id] = kShortTimeoutSeconds;
    }
  }
  for (const auto &id : secrets_to_fill(fields))
    if (!id.empty() && !out.config.contains(id)) out.config[id] = kDummyCredential;
  return out;
}

json::object generic_offline_config(json::object base, const std::string &endpoint) {
  for (std::string_view key : {"base_url", "host", "endpoint", "azure_endpoint"})
    if (!base.contains(key)) base[key] = endpoint;
  if (!base.contains("api_key")) base["api_key"] = kDummyCredential;
  return base;
}

}  // namespace amplifier::host::validate
