// The response body a turn's events are pushed into and the connection takes from: order, one
// wake per batch (a lagging connection is woken once for everything pending), the end, and a
// client that went away.
#include "event_stream.hpp"

#include <doctest/doctest.h>

using amplifier::host::serve::EventStream;
using amplifier::host::serve::sse_frame;

TEST_CASE("frames come out in order, those pushed before the waker included") {
  EventStream stream;
  stream.push("a");
  int wakes = 0;
  stream.set_waker([&] { ++wakes; });
  stream.push("b");
  std::string out;
  CHECK(stream.take(out));
  CHECK(out == "ab");
  CHECK(wakes == 1);
}

TEST_CASE("a connection is woken once for everything pushed until it takes") {
  EventStream stream;
  int wakes = 0;
  stream.set_waker([&] { ++wakes; });
  for (int i = 0; i < 5; ++i) stream.push("x");
  CHECK(wakes == 1);
  std::string out;
  CHECK(stream.take(out));
  CHECK(out == "xxxxx");
  stream.push("y");
  CHECK(wakes == 2);
}

TEST_CASE("the end wakes the connection, which drains what is left and stops") {
  EventStream stream;
  int wakes = 0;
  stream.set_waker([&] { ++wakes; });
  std::string out;
  CHECK(stream.take(out));  // nothing yet
  stream.push("last");
  stream.finish();
  CHECK(wakes == 1);  // both before the connection took anything
  CHECK(stream.take(out));
  CHECK(out == "last");
  CHECK_FALSE(stream.take(out));
  stream.push("after the end");
  CHECK_FALSE(stream.take(out));
}

TEST_CASE("a stream the client abandoned drops frames and never wakes") {
  EventStream stream;
  int wakes = 0;
  stream.set_waker([&] { ++wakes; });
  stream.abandon();
  CHECK(stream.abandoned());
  stream.push("lost");
  std::string out;
  CHECK(stream.take(out));
  CHECK(out.empty());
  CHECK(wakes == 0);
}

TEST_CASE("an SSE frame: event line, data line, blank line; no event line without a name") {
  CHECK(sse_frame("turn:result", "{}") == "event: turn:result\ndata: {}\n\n");
  CHECK(sse_frame("", "[DONE]") == "data: [DONE]\n\n");
}
