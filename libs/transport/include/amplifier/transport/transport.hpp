// Everything a provider module needs from the shared HTTP/SSE transport.
#pragma once

#include "amplifier/transport/address_rules.hpp"
#include "amplifier/transport/call.hpp"
#include "amplifier/transport/cancel_handle.hpp"
#include "amplifier/transport/error_mapping.hpp"
#include "amplifier/transport/headers.hpp"
#include "amplifier/transport/http_client.hpp"
#include "amplifier/transport/ndjson_reader.hpp"
#include "amplifier/transport/retry_policy.hpp"
#include "amplifier/transport/sse_parser.hpp"
