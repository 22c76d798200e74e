#include "web_config.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/transport/address_rules.hpp"

#include <cmath>

namespace tool_web {

namespace ms = amplifier::module_support;

namespace {

std::vector<std::string> domain_list(ms::ConfigReader &reader, std::string_view key) {
  std::vector<std::string> entries = reader.get_string_list(key, {});
  for (const auto &entry : entries)
    if (normalize_domain(entry).empty())
      throw reader.error(key, "has an entry that names no domain: '" + entry + "'");
  return entries;
}

void read_addresses(ms::ConfigReader &reader, WebConfig &config) {
  config.addresses.allow_private = reader.get_bool("allow_private_addresses", false);
  config.addresses.allowed_networks = reader.get_string_list("allowed_private_networks", {});
  try {
    (void)transport::make_address_filter(config.addresses);
  } catch (const std::invalid_argument &e) {
    throw reader.error("allowed_private_networks", e.what());
  }
  config.use_proxy = reader.get_bool("use_proxy", false);
  if (config.use_proxy && !config.addresses.allow_private)
    throw reader.error("use_proxy",
                       "needs allow_private_addresses: true: a proxy resolves names itself, so "
                       "the private-address rules cannot be checked through it");
}

}  // namespace

WebConfig read_web_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "tool-web config");
  WebConfig config;
  const double seconds = reader.get_number("timeout_seconds", 30, 0.001, 600);
  config.timeout = std::chrono::milliseconds(std::llround(seconds * 1000));
  config.max_body_bytes = static_cast<std::size_t>(
      reader.get_int("max_body_bytes", static_cast<std::int64_t>(config.max_body_bytes), 1024,
                     std::int64_t{256} << 20));
  config.max_chars_limit = static_cast<std::size_t>(reader.get_int(
      "max_chars_limit", static_cast<std::int64_t>(config.max_chars_limit), 100, 10'000'000));
  config.max_chars = static_cast<std::size_t>(reader.get_int(
      "max_chars", static_cast<std::int64_t>(std::min(config.max_chars, config.max_chars_limit)),
      100, static_cast<std::int64_t>(config.max_chars_limit)));
  config.max_redirects = static_cast<int>(reader.get_int("max_redirects", 5, 0, 20));
  std::vector<std::string> allowed = domain_list(reader, "allowed_domains");
  config.domains = DomainRules(std::move(allowed), domain_list(reader, "denied_domains"));
  read_addresses(reader, config);
  config.user_agent = reader.get_string("user_agent", config.user_agent);
  config.tls.verify_peer = reader.get_bool("verify_tls", true);
  config.tls.extra_ca_file = reader.get_string("ca_file", "");
  reader.warn_unknown_keys(host);
  return config;
}

transport::HttpClientOptions client_options(const WebConfig &config) {
  transport::HttpClientOptions options;
  options.tls = config.tls;
  options.proxy =
      config.use_proxy ? transport::ProxySettings::from_environment() : transport::ProxySettings{};
  if (!config.addresses.allow_private)
    options.address_filter = transport::make_address_filter(config.addresses);
  // Keep-alive buys little for a handful of fetches to different sites.
  options.max_idle_connections_per_host = 1;
  return options;
}

}  // namespace tool_web
