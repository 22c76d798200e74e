// Session ids: RFC 4122 version 4 UUIDs drawn from the operating system's random source, so
// they are unique, well formed, and not shared by processes that fork from one another.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <regex>
#include <set>
#include <string>

#include "amplifier/session.hpp"

namespace {

const std::regex kUuidV4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");

// The first id a forked child makes, read back through a pipe.
std::string first_id_in_child() {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(fds[0]);
    const std::string id = amplifier::new_uuid();
    const ssize_t written = ::write(fds[1], id.data(), id.size());
    ::_exit(written == static_cast<ssize_t>(id.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string id;
  char buffer[64];
  ssize_t got;
  while ((got = ::read(fds[0], buffer, sizeof buffer)) > 0) id.append(buffer, got);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  return id;
}

}  // namespace

TEST_CASE("ids: 100000 session ids are distinct version 4 UUIDs") {
  std::set<std::string> seen;
  for (int i = 0; i < 100000; ++i) {
    const std::string id = amplifier::new_uuid();
    if (i < 1000) REQUIRE(std::regex_match(id, kUuidV4));
    seen.insert(id);
  }
  CHECK(seen.size() == 100000u);
}

TEST_CASE("ids: processes forked from one another do not make the same next id") {
  // The parent has drawn ids already; with a seeded generator in memory the children would
  // inherit its state and repeat its next id.
  const std::string before = amplifier::new_uuid();
  const std::string first = first_id_in_child();
  const std::string second = first_id_in_child();
  const std::string parent_next = amplifier::new_uuid();
  CHECK(std::regex_match(first, kUuidV4));
  CHECK(std::regex_match(second, kUuidV4));
  CHECK(first != second);
  CHECK(first != parent_next);
  CHECK(second != parent_next);
  CHECK(before != parent_next);
}
