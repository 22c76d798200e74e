// Drives amplifier serve's /v1/chat/completions with the official OpenAI SDK.
// Usage: node chat.mjs BASE_URL MODEL stream|once PROMPT
// Prints one JSON line: {"text": the answer as the SDK assembled it, "chunks": how many chunks,
// "finish_reason": ..., "object": ..., "usage": the usage the SDK read (a stream asks for it
// with stream_options.include_usage)}.
import OpenAI from "openai";

const [baseURL, model, mode, prompt] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: process.env.AMP_TOKEN || "unused", maxRetries: 0 });
const messages = [{ role: "user", content: prompt }];

if (mode === "stream") {
  const stream = await client.chat.completions.create({
    model, messages, stream: true, stream_options: { include_usage: true },
  });
  let text = "", chunks = 0, finish_reason = null, object = null, usage = null;
  for await (const chunk of stream) {
    chunks++;
    object = chunk.object;
    text += chunk.choices[0]?.delta?.content ?? "";
    finish_reason = chunk.choices[0]?.finish_reason ?? finish_reason;
    usage = chunk.usage ?? usage;
  }
  console.log(JSON.stringify({ text, chunks, finish_reason, object, usage }));
} else {
  const completion = await client.chat.completions.create({ model, messages });
  console.log(JSON.stringify({
    text: completion.choices[0].message.content,
    chunks: 0,
    finish_reason: completion.choices[0].finish_reason,
    object: completion.object,
    usage: completion.usage ?? null,
  }));
}
