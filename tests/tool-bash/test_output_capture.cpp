// OutputCapture: head and tail kept within the budget, the middle counted, UTF-8 kept whole.
#include "output_capture.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

using tool_bash::OutputCapture;

TEST_CASE("output within the budget is kept whole, however it arrives") {
  OutputCapture capture(10);
  capture.append("hello");
  capture.append(" ");
  capture.append("you!");
  CHECK(capture.text() == "hello you!");
  CHECK(capture.total_bytes() == 10);
  CHECK(capture.elided_bytes() == 0);
}

TEST_CASE("output over the budget keeps its beginning and end and counts the middle") {
  OutputCapture capture(10);
  std::string all;
  for (int i = 0; i < 100; ++i) {
    const std::string chunk = std::to_string(i) + ",";
    all += chunk;
    capture.append(chunk);
  }
  CHECK(capture.total_bytes() == all.size());
  CHECK(capture.elided_bytes() == all.size() - 10);
  CHECK(capture.text() == all.substr(0, 5) + "\n... [" + std::to_string(all.size() - 10) +
                              " bytes of output elided] ...\n" + all.substr(all.size() - 5));
}

TEST_CASE("cuts never split a UTF-8 character and invalid bytes are replaced") {
  OutputCapture capture(9);  // head 4 bytes, tail 5 bytes
  std::string text;
  for (int i = 0; i < 20; ++i) text += "é";  // 2 bytes each
  capture.append(text.substr(0, 7));  // the chunks themselves split characters
  capture.append(text.substr(7));
  const std::string shown = capture.text();
  CHECK(shown.starts_with("éé\n... ["));
  CHECK(shown.ends_with("] ...\néé"));
  CHECK(shown.find("32 bytes of output elided") != std::string::npos);
  // Valid UTF-8 parses as a JSON string.
  CHECK_NOTHROW(boost::json::parse("\"" + shown.substr(0, 4) + "\""));

  OutputCapture broken(100);
  broken.append(std::string("ok\xff\xfe end"));
  CHECK(broken.text() == "ok\xEF\xBF\xBD\xEF\xBF\xBD end");
}
