// The floor: node:http reading the body and splitting it into lines, no JSON at all.
// Usage: node raw_client.mjs <base_url> <model> [anthropic|openai]
import http from 'node:http';

const [baseURL, model, vendor = 'anthropic'] = process.argv.slice(2);
const openai = vendor === 'openai';
let lines = 0, rest = '';
const body = JSON.stringify(openai ? { model, stream: true, input: 'go' }
                                   : { model, max_tokens: 1024, stream: true,
                                       messages: [{ role: 'user', content: 'go' }] });
const path = openai ? '/v1/responses' : '/v1/messages';
const headers = { 'content-type': 'application/json',
                  ...(openai ? { authorization: 'Bearer bench-key' } : { 'x-api-key': 'bench-key' }) };
await new Promise((resolve, reject) => {
  const req = http.request(new URL(`${baseURL}${path}`), { method: 'POST', headers }, (res) => {
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
