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

namespace {
using amplifier::host::serve::DirectWrite;

// A stream with a waker that counts and a direct writer that records what it was given and
// answers as told.
struct DirectStream {
  EventStream stream;
  int wakes = 0;
  std::string written;
  DirectWrite answer = DirectWrite::Sent;
  std::string out;  // what take() gave the connection
  DirectStream() {
    stream.set_waker([this] { ++wakes; });
    stream.set_direct_writer([this](std::string_view frame) {
      if (answer == DirectWrite::Sent) written += frame;
      return answer;
    });
  }
};
}  // namespace

TEST_CASE_FIXTURE(
    DirectStream,
    "while the connection is parked, frames go straight to the writer without a wake") {
  stream.push("queued");  // not parked yet: the connection takes it
  CHECK(wakes == 1);
  CHECK(stream.take(out));
  CHECK(out == "queued");
  CHECK(stream.park());
  stream.push("a");
  stream.push("b");
  CHECK(written == "ab");
  CHECK(wakes == 1);
  CHECK(stream.parked());
  CHECK(stream.take(out));
  CHECK(out.empty());
  stream.push("c");  // claimed by take(): queued for the connection again
  CHECK(written == "ab");
  CHECK(stream.take(out));
  CHECK(out == "c");
}

TEST_CASE_FIXTURE(
    DirectStream,
    "a frame the writer could not finish unparks and wakes; later ones queue behind it") {
  CHECK(stream.park());
  answer = DirectWrite::Kept;
  stream.push("partly sent");
  CHECK(wakes == 1);
  CHECK_FALSE(stream.parked());
  answer = DirectWrite::Sent;
  stream.push("after");  // must not overtake what the writer kept
  CHECK(written.empty());
  CHECK(stream.take(out));
  CHECK(out == "after");
}

TEST_CASE_FIXTURE(DirectStream,
                  "park() refuses while frames or the end are waiting; the end unparks and wakes") {
  CHECK(stream.take(out));
  stream.push("x");
  CHECK_FALSE(stream.park());
  CHECK(stream.take(out));
  CHECK(stream.park());
  stream.finish();
  CHECK_FALSE(stream.parked());
  CHECK(wakes == 2);
  CHECK_FALSE(stream.take(out));
  CHECK_FALSE(stream.park());
}

TEST_CASE_FIXTURE(
    DirectStream,
    "abandon() drops the direct writer: nothing is written to a connection that is gone") {
  CHECK(stream.park());
  stream.abandon();
  CHECK_FALSE(stream.parked());
  stream.push("lost");
  CHECK(written.empty());
}
