// The official Anthropic SDK as a user would write the loop: stream every event; for a tool
// call, read the file and send the result back. Usage: node sdk_client.mjs <base_url> <model>
import Anthropic from '@anthropic-ai/sdk';
import fs from 'node:fs';

const [baseURL, model] = process.argv.slice(2);
const client = new Anthropic({ apiKey: 'bench-key', baseURL, maxRetries: 0 });
const messages = [{ role: 'user', content: 'go' }];
const tools = [{ name: 'read_file', description: 'Read a text file',
                 input_schema: { type: 'object', properties: { path: { type: 'string' } },
                                 required: ['path'] } }];
let textBytes = 0, events = 0;
for (;;) {
  const stream = await client.messages.create({ model, max_tokens: 1024, messages, tools, stream: true });
  const content = [];
  let partial = '';
  for await (const event of stream) {
    ++events;
    if (event.type === 'content_block_start') { content.push({ ...event.content_block }); partial = ''; }
    else if (event.type === 'content_block_delta') {
      if (event.delta.type === 'text_delta') { content.at(-1).text += event.delta.text; textBytes += event.delta.text.length; }
      else if (event.delta.type === 'input_json_delta') partial += event.delta.partial_json;
    } else if (event.type === 'content_block_stop' && content.at(-1).type === 'tool_use') {
      content.at(-1).input = partial ? JSON.parse(partial) : {};
    }
  }
  messages.push({ role: 'assistant', content });
  const calls = content.filter((block) => block.type === 'tool_use');
  if (calls.length === 0) break;
  messages.push({ role: 'user', content: calls.map((call) => ({
    type: 'tool_result', tool_use_id: call.id,
    content: fs.readFileSync(call.input.path, 'utf8') })) });
}
console.log(`events ${events} text ${textBytes}`);
