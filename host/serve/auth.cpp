#include "auth.hpp"

#include "amplifier/user_dirs.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace amplifier::host::serve {
namespace fs = std::filesystem;
namespace {

std::string random_token() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
    throw std::runtime_error("no random bytes for the serve token");
  std::string hex;
  for (unsigned char b : bytes) hex += fmt::format("{:02x}", b);
  return hex;
}

void write_new(const fs::path &file, const std::string &token) {
  fs::create_directories(file.parent_path());
  // O_EXCL: two servers starting at once do not overwrite each other's token.
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return;
    throw std::runtime_error(
        fmt::format("cannot create {}: {}", file.string(), std::strerror(errno)));
  }
  std::string line = token + "\n";
  bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  if (!ok) throw std::runtime_error(fmt::format("cannot write {}", file.string()));
}

}  // namespace

fs::path token_file() { return user_dirs::config() / "serve-token"; }

std::string load_or_create_token(const fs::path &file) {
  if (!fs::exists(file)) write_new(file, random_token());
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || (st.st_mode & 077) != 0)
    throw std::runtime_error(
        fmt::format("{} must exist and be readable by its owner only (chmod 600)", file.string()));
  std::ifstream in(file);
  std::string token;
  std::getline(in, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.size() < 16)
    throw std::runtime_error(
        fmt::format("{} holds no token of at least 16 characters", file.string()));
  return token;
}

bool bearer_matches(std::string_view authorization, const std::string &token) {
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.size() != kScheme.size() + token.size()) return false;
  // The scheme is public; only the secret's comparison must not leak how much of it matched.
  const bool scheme = authorization.substr(0, kScheme.size()) == kScheme;
  const bool secret =
      CRYPTO_memcmp(authorization.data() + kScheme.size(), token.data(), token.size()) == 0;
  return scheme & secret;
}

}  // namespace amplifier::host::serve
