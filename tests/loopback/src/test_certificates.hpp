// A throw-away CA and a server certificate it issued, generated at run time (nothing on disk).
#pragma once

#include <string>

namespace amplifier::loopback {

struct TestCertificates {
  std::string ca_pem;           // trust this to accept the server
  std::string server_cert_pem;  // SAN: IP 127.0.0.1, DNS localhost
  std::string server_key_pem;
};

// Throws std::runtime_error when OpenSSL fails.
TestCertificates generate_test_certificates();

}  // namespace amplifier::loopback
