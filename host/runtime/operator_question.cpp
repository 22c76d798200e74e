#include "operator_question.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <string>

namespace amplifier::host {

bool operator_at_terminal() { return ::isatty(STDIN_FILENO) && ::isatty(STDERR_FILENO); }

bool operator_says_yes(std::string_view question) {
  std::fprintf(stderr, "%.*s [y/N] ", static_cast<int>(question.size()), question.data());
  std::fflush(stderr);
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  std::transform(answer.begin(), answer.end(), answer.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return answer == "y" || answer == "yes";
}

}  // namespace amplifier::host
