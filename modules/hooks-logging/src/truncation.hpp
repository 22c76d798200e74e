// Caps the size of logged payloads: the reference's event logs reached 1.1 GB per session,
// 97% of it raw request payloads, so long strings are cut before they reach the file.
#pragma once
#include <boost/json/value.hpp>

#include <cstddef>
#include <string>

namespace hooks_logging {

// The marker appended to a cut string: "...[truncated 12345 of 20000 bytes]".
std::string truncation_marker(std::size_t cut_bytes, std::size_t original_bytes);

// Cuts, in place, every string in `value` (at any depth; object keys excepted) that is longer
// than `max_bytes`, at a UTF-8 boundary, and appends the marker. 0 means no limit.
// Returns how many strings were cut.
std::size_t truncate_long_strings(boost::json::value &value, std::size_t max_bytes);

}  // namespace hooks_logging
