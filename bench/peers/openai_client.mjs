// The official OpenAI SDK (Responses API) as a user would write the loop: stream every event;
// for a function call, read the file and send the output back with the items so far.
// Usage: node openai_client.mjs <base_url> <model>
import OpenAI from 'openai';
import fs from 'node:fs';

const [baseURL, model] = process.argv.slice(2);
const client = new OpenAI({ apiKey: 'bench-key', baseURL: `${baseURL}/v1`, maxRetries: 0 });
const input = [{ role: 'user', content: 'go' }];
const tools = [{ type: 'function', name: 'read_file', description: 'Read a text file', strict: false,
                 parameters: { type: 'object', properties: { path: { type: 'string' } },
                               required: ['path'] } }];
let textBytes = 0, events = 0;
for (;;) {
  const stream = await client.responses.create({ model, input, tools, stream: true, store: false,
                                                 include: ['reasoning.encrypted_content'] });
  const output = [];
  for await (const event of stream) {
    ++events;
    if (event.type === 'response.output_text.delta') textBytes += event.delta.length;
    else if (event.type === 'response.output_item.done') output.push(event.item);
  }
  input.push(...output);
  const calls = output.filter((item) => item.type === 'function_call');
  if (calls.length === 0) break;
  for (const call of calls) {
    const { path } = JSON.parse(call.arguments);
    input.push({ type: 'function_call_output', call_id: call.call_id,
                 output: fs.readFileSync(path, 'utf8') });
  }
}
console.log(`events ${events} text ${textBytes}`);
