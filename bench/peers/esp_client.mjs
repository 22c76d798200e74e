// eventsource-parser on node:http: parse the SSE framing and JSON.parse every data payload.
// Usage: node esp_client.mjs <base_url> <model> [anthropic|openai]
import { createParser } from 'eventsource-parser';
import http from 'node:http';

const [baseURL, model, vendor = 'anthropic'] = process.argv.slice(2);
const openai = vendor === 'openai';
let events = 0, textBytes = 0;
const parser = createParser({
  onEvent(event) {
    ++events;
    const data = JSON.parse(event.data);
    if (data.type === 'content_block_delta' && data.delta.type === 'text_delta') textBytes += data.delta.text.length;
    if (data.type === 'response.output_text.delta') textBytes += data.delta.length;
  },
});
const body = JSON.stringify(openai ? { model, stream: true, input: 'go' }
                                   : { model, max_tokens: 1024, stream: true,
                                       messages: [{ role: 'user', content: 'go' }] });
const path = openai ? '/v1/responses' : '/v1/messages';
const headers = { 'content-type': 'application/json',
                  ...(openai ? { authorization: 'Bearer bench-key' } : { 'x-api-key': 'bench-key' }) };
const url = new URL(`${baseURL}${path}`);
await new Promise((resolve, reject) => {
  const req = http.request(url, { method: 'POST', headers }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk) => parser.feed(chunk));
    res.on('end', resolve);
  });
  req.on('error', reject);
  req.end(body);
});
console.log(`events ${events} text ${textBytes}`);
