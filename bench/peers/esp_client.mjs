// eventsource-parser on node:http: parse the SSE framing and JSON.parse every data payload.
// Usage: node esp_client.mjs <base_url> <model>
import { createParser } from 'eventsource-parser';
import http from 'node:http';

const [baseURL, model] = process.argv.slice(2);
let events = 0, textBytes = 0;
const parser = createParser({
  onEvent(event) {
    ++events;
    const data = JSON.parse(event.data);
    if (data.type === 'content_block_delta' && data.delta.type === 'text_delta') textBytes += data.delta.text.length;
  },
});
const body = JSON.stringify({ model, max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'go' }] });
const url = new URL(`${baseURL}/v1/messages`);
await new Promise((resolve, reject) => {
  const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json',
                                                              'x-api-key': 'bench-key' } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk) => parser.feed(chunk));
    res.on('end', resolve);
  });
  req.on('error', reject);
  req.end(body);
});
console.log(`events ${events} text ${textBytes}`);
