// provider-gemini: Google's Gemini API: streaming, tools (parallel calls), thinking, thought
// signatures kept byte for byte on the part they came with.
#include "gemini_provider.hpp"

AMP_DEFINE_MODULE(gemini::GeminiProvider, "provider-gemini", "0.1.0",
                  "Google Gemini API: streaming, tools, thinking, thought signatures");
