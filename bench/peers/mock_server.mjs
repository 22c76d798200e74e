// A loopback mock of the Anthropic Messages API for the comparison benchmark (not the product).
// POST /v1/messages answers by the request's `model`:
//   stream-<N>  one streamed answer of N text deltas of 40 bytes each (N = 50,000: 2 MB of text)
//   tiny-<N>    the same with deltas of 1 byte: what a delta costs, apart from its bytes
//   tools-<K>   a tool loop: read_file of data.txt until the request holds K tool results,
//               then a short answer (a client that runs the tool makes K + 1 requests)
//   short       an 8-event streamed answer (cold start)
// Bodies are rendered once per scenario and written whole, so the server is never the
// bottleneck. Prints "listening <port>" once ready.
import http from 'node:http';

const DELTA_TEXT = '0123456789 abcdefghij klmnopqrst uvwxyz!'; // 40 bytes
const rendered = new Map();

function event(type, data) {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

function messageStart(id) {
  return event('message_start', {
    type: 'message_start',
    message: { id, type: 'message', role: 'assistant', model: 'claude-bench', content: [],
               stop_reason: null, stop_sequence: null,
               usage: { input_tokens: 12, output_tokens: 1 } },
  });
}

function textAnswer(id, deltas, text = DELTA_TEXT) {
  const parts = [messageStart(id),
                 event('content_block_start', { type: 'content_block_start', index: 0,
                                                content_block: { type: 'text', text: '' } })];
  const delta = event('content_block_delta', { type: 'content_block_delta', index: 0,
                                               delta: { type: 'text_delta', text } });
  for (let i = 0; i < deltas; ++i) parts.push(delta);
  parts.push(event('content_block_stop', { type: 'content_block_stop', index: 0 }),
             event('message_delta', { type: 'message_delta',
                                      delta: { stop_reason: 'end_turn', stop_sequence: null },
                                      usage: { output_tokens: deltas } }),
             event('message_stop', { type: 'message_stop' }));
  return parts.join('');
}

function toolCall(id) {
  return [messageStart(id),
          event('content_block_start', { type: 'content_block_start', index: 0,
                                         content_block: { type: 'tool_use', id: `toolu_${id}`,
                                                          name: 'read_file', input: {} } }),
          event('content_block_delta', { type: 'content_block_delta', index: 0,
                                         delta: { type: 'input_json_delta',
                                                  partial_json: '{"path": "data.txt"}' } }),
          event('content_block_stop', { type: 'content_block_stop', index: 0 }),
          event('message_delta', { type: 'message_delta',
                                   delta: { stop_reason: 'tool_use', stop_sequence: null },
                                   usage: { output_tokens: 9 } }),
          event('message_stop', { type: 'message_stop' })].join('');
}

function toolResults(request) {
  let count = 0;
  for (const message of request.messages ?? [])
    if (Array.isArray(message.content))
      for (const block of message.content) if (block.type === 'tool_result') ++count;
  return count;
}

function bodyFor(request) {
  const model = String(request.model ?? '');
  if (model.startsWith('stream-')) {
    if (!rendered.has(model)) rendered.set(model, textAnswer('msg_stream', Number(model.slice(7))));
    return rendered.get(model);
  }
  if (model.startsWith('tiny-')) {
    if (!rendered.has(model)) rendered.set(model, textAnswer('msg_tiny', Number(model.slice(5)), '.'));
    return rendered.get(model);
  }
  if (model.startsWith('tools-')) {
    const done = toolResults(request);
    return done < Number(model.slice(6)) ? toolCall(`t${done}`) : textAnswer('msg_done', 1, 'Done.');
  }
  return textAnswer('msg_short', 3, 'Hi!');
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let request = {};
    try { request = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { /* answer anyway */ }
    const body = bodyFor(request);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_bench' });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
