// OpenAI / Azure OpenAI errors -> kernel errors. The transport maps statuses, headers and the
// {"error":{message, type, param, code}} envelope generically (retry-after-ms, retry-after,
// x-should-retry, codes such as insufficient_quota, context_length_exceeded and
// content_filter, Azure's innererror with its content filter results); this names the vendor
// in the message and makes sure a context-length error is never retried unchanged.
#pragma once
#include "responses_config.hpp"

#include "amplifier/errors.hpp"
#include "amplifier/transport/error_mapping.hpp"

#include <string_view>

namespace openai_responses {

amplifier::transport::ErrorMappingOptions error_options(const ResponsesConfig &config,
                                                        std::string_view model);

// Refines an error the transport mapped (idempotent).
void refine_error(const ResponsesConfig &config, amplifier::KernelError &error);

// An `error` event or response.failed inside a 200 stream, nested or flat.
amplifier::KernelError map_stream_failure(const ResponsesConfig &config, std::string_view model,
                                          std::string_view payload);

}  // namespace openai_responses
