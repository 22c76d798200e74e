// A provider configured so that its network is unreachable: the behavioral checks must see a
// typed error from it, never a crash or a hang, and must never reach a real vendor.
#pragma once
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace amplifier::host::validate {

// A loopback TCP port that refuses connections for the object's lifetime: bound, never
// listening, so nothing else can take it meanwhile.
class ClosedPort {
 public:
  ClosedPort();
  ~ClosedPort();
  ClosedPort(const ClosedPort &) = delete;
  ClosedPort &operator=(const ClosedPort &) = delete;
  int port() const { return port_; }
  std::string url() const;  // http://127.0.0.1:<port>

 private:
  int fd_ = -1;
  int port_ = 0;
};

struct OfflineConfig {
  boost::json::object config;
  std::vector<std::string> endpoint_keys;  // the fields pointed at the closed port
};

// From the provider's ProviderInfo `info` and the user's `base` config: every endpoint-like
// config field (base_url, host, azure_endpoint, *_url, *_endpoint, ...) set to `endpoint`; a
// dummy credential in the required secret fields (the first secret field when none is
// marked required) and a dummy name in model and deployment fields without a default, where
// `base` leaves them unset; retries off and a short timeout when the provider has those
// fields.
OfflineConfig offline_config(const boost::json::value &info, boost::json::object base,
                             const std::string &endpoint);

// For a provider that cannot even be created from `base` (one that requires its endpoint,
// say): `base` plus the usual endpoint keys (base_url, host, endpoint, azure_endpoint) at
// `endpoint` and a dummy api_key, where `base` leaves them unset.
boost::json::object generic_offline_config(boost::json::object base, const std::string &endpoint);

}  // namespace amplifier::host::validate
