// The floor: node:http reading the body and splitting it into lines, no JSON at all.
// Usage: node raw_client.mjs <base_url> <model>
import http from 'node:http';

const [baseURL, model] = process.argv.slice(2);
let lines = 0, rest = '';
const body = JSON.stringify({ model, max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'go' }] });
await new Promise((resolve, reject) => {
  const req = http.request(new URL(`${baseURL}/v1/messages`), { method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'bench-key' } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop();
      lines += parts.length;
    });
    res.on('end', resolve);
  });
  req.on('error', reject);
  req.end(body);
});
console.log(`lines ${lines}`);
