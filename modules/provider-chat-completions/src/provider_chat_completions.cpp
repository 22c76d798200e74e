// provider-chat-completions: OpenAI's Chat Completions API as OpenAI-compatible servers speak
// it (vLLM, llama.cpp, LM Studio, OpenRouter, Groq, Together, LiteLLM): streaming, parallel
// tool calls, reasoning (reasoning_content / reasoning) kept and sent back.
#include "chat_provider.hpp"

AMP_DEFINE_MODULE(chat_completions::ChatProvider, "provider-chat-completions", "0.1.0",
                  "OpenAI-compatible Chat Completions servers: streaming, tools, reasoning");
