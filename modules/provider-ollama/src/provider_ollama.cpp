// provider-ollama: a local (or hosted) Ollama server through its native /api/chat: streaming
// lines, tool calls, thinking kept and sent back, models pulled on demand when asked to.
#include "ollama_provider.hpp"

AMP_DEFINE_MODULE(ollama::OllamaProvider, "provider-ollama", "0.1.0",
                  "Ollama native API: streaming, tools, thinking, auto-pull");
