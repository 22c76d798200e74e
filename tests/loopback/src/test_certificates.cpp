#include "test_certificates.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>

namespace amplifier::loopback {

namespace {

struct KeyFree { void operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); } };
struct CertFree { void operator()(X509 *cert) const { X509_free(cert); } };
struct BioFree { void operator()(BIO *bio) const { BIO_free(bio); } };
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

void check(bool ok, const char *what) {
  if (!ok) throw std::runtime_error(std::string("test certificate generation failed: ") + what);
}

Key new_key() {
  Key key(EVP_EC_gen("P-256"));
  check(key != nullptr, "EC key");
  return key;
}

void add_extension(X509 *cert, X509 *issuer, int nid, const char *value) {
  X509V3_CTX context;
  X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION *extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  check(extension != nullptr, "extension");
  check(X509_add_ext(cert, extension, -1) == 1, "add extension");
  X509_EXTENSION_free(extension);
}

Cert new_certificate(EVP_PKEY *key, const char *common_name, long serial) {
  Cert cert(X509_new());
  check(cert != nullptr, "X509_new");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 7 * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME *name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char *>("amplifier tests"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char *>(common_name), -1, -1, 0);
  return cert;
}

std::string to_pem(X509 *cert) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_X509(bio.get(), cert) == 1, "PEM certificate");
  char *data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(length));
}

std::string to_pem(EVP_PKEY *key) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1,
        "PEM key");
  char *data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(length));
}

}  // namespace

TestCertificates generate_test_certificates() {
  const Key ca_key = new_key();
  const Cert ca = new_certificate(ca_key.get(), "amplifier loopback test CA", 1);
  X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get()));
  add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  check(X509_sign(ca.get(), ca_key.get(), EVP_sha256()) > 0, "sign CA");

  const Key server_key = new_key();
  const Cert server = new_certificate(server_key.get(), "127.0.0.1", 2);
  X509_set_issuer_name(server.get(), X509_get_subject_name(ca.get()));
  add_extension(server.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(server.get(), ca.get(), NID_key_usage, "critical,digitalSignature");
  add_extension(server.get(), ca.get(), NID_ext_key_usage, "serverAuth");
  add_extension(server.get(), ca.get(), NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
  add_extension(server.get(), ca.get(), NID_authority_key_identifier, "keyid");
  check(X509_sign(server.get(), ca_key.get(), EVP_sha256()) > 0, "sign server certificate");

  return TestCertificates{to_pem(ca.get()), to_pem(server.get()), to_pem(server_key.get())};
}

}  // namespace amplifier::loopback
