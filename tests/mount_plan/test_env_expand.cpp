// expand_env: ${VAR}, ${VAR:-default}, $$ escapes, malformed references.
#include "amplifier/mount_plan.hpp"
#include "plan_test_support.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

using namespace amplifier;

namespace {

std::string expand(std::string_view text, std::vector<std::string> *unset = nullptr) {
  static const EnvLookup env = fake_env({{"HOME", "/home/ada"}, {"EMPTY", ""}, {"NESTED", "${HOME}"}});
  return expand_env(text, env, unset);
}

}  // namespace

TEST_CASE("plain text is unchanged") {
  CHECK(expand("") == "");
  CHECK(expand("no variables here") == "no variables here");
  CHECK(expand("a lone $ sign, $HOME without braces, trailing $") == "a lone $ sign, $HOME without braces, trailing $");
}

TEST_CASE("${VAR} is replaced by its value") {
  CHECK(expand("${HOME}") == "/home/ada");
  CHECK(expand("dir=${HOME}/x and ${HOME}") == "dir=/home/ada/x and /home/ada");
}

TEST_CASE("values are inserted literally, never expanded again") {
  CHECK(expand("${NESTED}") == "${HOME}");
}

TEST_CASE("unset variables expand to nothing and are reported") {
  std::vector<std::string> unset;
  CHECK(expand("key=${MISSING};${ALSO_MISSING}", &unset) == "key=;");
  CHECK(unset == std::vector<std::string>{"MISSING", "ALSO_MISSING"});
  CHECK(expand("${MISSING}") == "");  // reporting is optional
}

TEST_CASE("a set but empty variable is not reported as unset") {
  std::vector<std::string> unset;
  CHECK(expand("[${EMPTY}]", &unset) == "[]");
  CHECK(unset.empty());
}

TEST_CASE("${VAR:-default} uses the default when unset or empty") {
  std::vector<std::string> unset;
  CHECK(expand("${MISSING:-fallback}", &unset) == "fallback");
  CHECK(expand("${EMPTY:-fallback}", &unset) == "fallback");
  CHECK(expand("${HOME:-fallback}", &unset) == "/home/ada");
  CHECK(expand("${MISSING:-}", &unset) == "");
  CHECK(expand("${MISSING:-a:b-c}", &unset) == "a:b-c");
  CHECK(unset.empty());
}

TEST_CASE("defaults may contain references and escapes") {
  CHECK(expand("${MISSING:-${HOME}/cache}") == "/home/ada/cache");
  CHECK(expand("${MISSING:-${OTHER:-deep}}") == "deep");
  CHECK(expand("${MISSING:-cost $$5}") == "cost $5");
  std::vector<std::string> unset;
  CHECK(expand("${MISSING:-${INNER}}", &unset) == "");
  CHECK(unset == std::vector<std::string>{"INNER"});
}

TEST_CASE("$$ is a literal dollar") {
  CHECK(expand("$$") == "$");
  CHECK(expand("$${HOME}") == "${HOME}");
  CHECK(expand("$$$${HOME}") == "$${HOME}");
  CHECK(expand("$$${HOME}") == "$/home/ada");
  CHECK(expand("price: $$5") == "price: $5");
}

TEST_CASE("malformed references are kept as written") {
  CHECK(expand("${") == "${");
  CHECK(expand("${HOME") == "${HOME");
  CHECK(expand("${}") == "${}");
  CHECK(expand("${1ABC}") == "${1ABC}");
  CHECK(expand("${HOME-x}") == "${HOME-x}");
  CHECK(expand("${MISSING:-unclosed") == "${MISSING:-unclosed");
  CHECK(expand("${BAD NAME}") == "${BAD NAME}");
}

TEST_CASE("defaults nest at most kMaxExpansionDepth deep and expand to at most kMaxExpandedBytes") {
  auto nested = [](int depth) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += "${UNSET_A:-";
    return text + "x" + std::string(depth, '}');
  };
  CHECK(expand(nested(kMaxExpansionDepth)) == "x");
  CHECK_THROWS_WITH_AS(expand(nested(kMaxExpansionDepth + 1)),
                       doctest::Contains("nest deeper than 16 levels"), ExpansionError);
  CHECK_THROWS_AS(expand(nested(300000)), ExpansionError);  // once a stack overflow
  // A set variable's default is never expanded, however deep.
  CHECK(expand("${HOME:-" + nested(1000) + "}") == "/home/ada");
  const std::string many = [] {
    std::string text;
    for (int i = 0; i < 200000; ++i) text += "${HOME}";  // 9 bytes each: 1.8 MB
    return text;
  }();
  CHECK_THROWS_WITH_AS(expand(many), doctest::Contains("expands to more than 1048576 bytes"),
                       ExpansionError);
  // Defaults that never close: each would be scanned to the end (quadratic), so the work is
  // bounded instead.
  std::string unclosed;
  for (int i = 0; i < 60000; ++i) unclosed += "${UNSET_A:-";
  CHECK_THROWS_WITH_AS(expand(unclosed), doctest::Contains("too costly to expand"),
                       ExpansionError);
  CHECK(expand("${UNSET_A:-x") == "${UNSET_A:-x");  // one unclosed: kept as written
  // A client's plan reads nothing of the server's environment.
  setenv("AMP_EXPAND_TEST_SECRET", "secret", 1);
  CHECK(expand_env("[${AMP_EXPAND_TEST_SECRET}|${AMP_EXPAND_TEST_SECRET:-none}]", no_env()) ==
        "[|none]");
  unsetenv("AMP_EXPAND_TEST_SECRET");
}
