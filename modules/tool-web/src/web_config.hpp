// tool-web's config, read once at create.
#pragma once

#include "amplifier/transport/address_rules.hpp"
#include "amplifier/transport/http_client.hpp"
#include "amplifier_sdk.hpp"
#include "domain_rules.hpp"

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tool_web {

namespace transport = amplifier::transport;
using amplifier::ErrorKind;
using amplifier::KernelError;

struct WebConfig {
  std::chrono::milliseconds timeout{30'000};  // the whole fetch, every redirect included
  std::size_t max_body_bytes = 2 << 20;       // read no more of a body than this
  std::size_t max_chars = 20'000;             // the default cut of the text returned
  std::size_t max_chars_limit = 200'000;      // the largest max_chars a call may ask for
  int max_redirects = 5;
  DomainRules domains{{}, {}};
  transport::AddressPolicy addresses;
  bool use_proxy = false;  // HTTP(S)_PROXY from the environment; needs allow_private_addresses
  std::string user_agent = "amplifier-web-fetch/0.1";
  transport::TlsOptions tls;
};

// Throws module_support::ConfigError naming the key for a bad value.
WebConfig read_web_config(const amp::sdk::Host &host, std::string_view config_json);

// The HTTP client's options for `config`: its address filter, proxies and TLS.
transport::HttpClientOptions client_options(const WebConfig &config);

}  // namespace tool_web
