// Drives amplifier serve's /v1/chat/completions with three OpenAI-compatible clients nobody
// here wrote: the official OpenAI SDK, the Vercel AI SDK (@ai-sdk/openai-compatible) and
// LangChain JS (@langchain/openai).
// Usage: node clients.mjs CLIENT BASE_URL MODEL MODE PROMPT
//   CLIENT  openai | ai-sdk | langchain
//   MODE    once        one answer, not streamed
//           stream      one answer, streamed (usage asked for where the client can)
//           abort       a stream given up after its first text
//           concurrent  20 streams at once
// Prints one JSON line. once/stream: {"text", "usage": {"prompt", "completion", "total"}
// as the client reported them (null when it reported none), "chunks"}; abort: {"aborted"};
// concurrent: {"texts": the 20 answers}. The server's token is read from AMP_TOKEN.
import OpenAI from "openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText } from "ai";
import { ChatOpenAI } from "@langchain/openai";

const [client, baseURL, model, mode, prompt] = process.argv.slice(2);
const apiKey = process.env.AMP_TOKEN || "unused";

// Each client as the same three operations: answer, stream (calling onText per piece), with
// an optional AbortSignal, and the usage in one shape.
const adapters = {
  openai() {
    const sdk = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
    const messages = [{ role: "user", content: prompt }];
    const usage = (u) => u && { prompt: u.prompt_tokens, completion: u.completion_tokens, total: u.total_tokens };
    return {
      async once() {
        const c = await sdk.chat.completions.create({ model, messages });
        return { text: c.choices[0].message.content, usage: usage(c.usage) };
      },
      async stream(onText, signal) {
        const s = await sdk.chat.completions.create(
          { model, messages, stream: true, stream_options: { include_usage: true } }, { signal });
        let u = null;
        for await (const chunk of s) {
          const text = chunk.choices[0]?.delta?.content;
          if (text) onText(text);
          if (signal?.aborted) break;  // leaving the loop closes the stream
          u = chunk.usage ?? u;
        }
        return { usage: usage(u) };
      },
    };
  },
  "ai-sdk"() {
    const provider = createOpenAICompatible({ name: "amplifier", baseURL, apiKey, includeUsage: true });
    const usage = (u) => u && u.inputTokens !== undefined
      ? { prompt: u.inputTokens, completion: u.outputTokens, total: u.totalTokens } : null;
    return {
      async once() {
        const r = await generateText({ model: provider.chatModel(model), prompt, maxRetries: 0 });
        return { text: r.text, usage: usage(r.usage) };
      },
      async stream(onText, signal) {
        let failure = null;
        const r = streamText({ model: provider.chatModel(model), prompt, maxRetries: 0,
                               abortSignal: signal, onError: ({ error }) => { failure = error; } });
        for await (const text of r.textStream) {
          onText(text);
          if (signal?.aborted) break;
        }
        if (failure) throw failure;
        return { usage: usage(await r.usage) };
      },
    };
  },
  langchain() {
    const llm = new ChatOpenAI({ model, apiKey, configuration: { baseURL }, maxRetries: 0, streamUsage: true });
    const usage = (u) => u && { prompt: u.input_tokens, completion: u.output_tokens, total: u.total_tokens };
    return {
      async once() {
        const m = await llm.invoke(prompt);
        return { text: m.content, usage: usage(m.usage_metadata) };
      },
      async stream(onText, signal) {
        let u = null;
        for await (const chunk of await llm.stream(prompt, { signal })) {
          if (chunk.content) onText(chunk.content);
          if (signal?.aborted) break;
          u = chunk.usage_metadata ?? u;
        }
        return { usage: usage(u) };
      },
    };
  },
};

const adapter = adapters[client]?.();
if (!adapter) throw new Error(`unknown client ${client}`);

if (mode === "once") {
  console.log(JSON.stringify(await adapter.once()));
} else if (mode === "stream") {
  let text = "", chunks = 0;
  const { usage } = await adapter.stream((t) => { text += t; chunks++; });
  console.log(JSON.stringify({ text, usage, chunks }));
} else if (mode === "abort") {
  const controller = new AbortController();
  let aborted = false;
  try {
    await adapter.stream(() => controller.abort(), controller.signal);
  } catch (e) {
    aborted = controller.signal.aborted;
  }
  console.log(JSON.stringify({ aborted: aborted || controller.signal.aborted }));
} else if (mode === "concurrent") {
  const texts = await Promise.all(Array.from({ length: 20 }, async () => {
    let text = "";
    await adapter.stream((t) => { text += t; });
    return text;
  }));
  console.log(JSON.stringify({ texts }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
