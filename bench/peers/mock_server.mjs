// A loopback mock of the Anthropic Messages API (POST /v1/messages) and the OpenAI Responses
// API (POST /v1/responses) for the comparison benchmark (not the product). Both answer by the
// request's `model`:
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

// ---- the Responses API, as the live API frames its events ---------------------------------

let sequence = 0;
function responsesEvent(data) {
  return `event: ${data.type}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence++ })}\n\n`;
}

function response(id, status, output, outputTokens) {
  return { id, object: 'response', model: 'gpt-bench', status, output,
           usage: { input_tokens: 12, output_tokens: outputTokens,
                    total_tokens: 12 + outputTokens } };
}

function responsesText(id, deltas, text = DELTA_TEXT) {
  sequence = 0;
  const item = { id: `msg_${id}`, type: 'message', status: 'in_progress', role: 'assistant',
                 content: [] };
  const parts = [responsesEvent({ type: 'response.created', response: response(id, 'in_progress', [], 0) }),
                 responsesEvent({ type: 'response.output_item.added', output_index: 0, item }),
                 responsesEvent({ type: 'response.content_part.added', item_id: item.id,
                                  output_index: 0, content_index: 0,
                                  part: { type: 'output_text', annotations: [], text: '' } })];
  for (let i = 0; i < deltas; ++i)
    parts.push(responsesEvent({ type: 'response.output_text.delta', item_id: item.id,
                                output_index: 0, content_index: 0, delta: text, logprobs: [],
                                obfuscation: 'k2pXq' }));
  const full = text.repeat(deltas);
  const done = { ...item, status: 'completed',
                 content: [{ type: 'output_text', annotations: [], text: full }] };
  parts.push(responsesEvent({ type: 'response.output_text.done', item_id: item.id,
                              output_index: 0, content_index: 0, text: full }),
             responsesEvent({ type: 'response.content_part.done', item_id: item.id,
                              output_index: 0, content_index: 0, part: done.content[0] }),
             responsesEvent({ type: 'response.output_item.done', output_index: 0, item: done }),
             responsesEvent({ type: 'response.completed',
                              response: response(id, 'completed', [done], deltas) }));
  return parts.join('');
}

function responsesToolCall(id) {
  sequence = 0;
  const item = { id: `fc_${id}`, type: 'function_call', status: 'in_progress',
                 call_id: `call_${id}`, name: 'read_file', arguments: '' };
  const args = '{"path": "data.txt"}';
  const done = { ...item, status: 'completed', arguments: args };
  return [responsesEvent({ type: 'response.created', response: response(id, 'in_progress', [], 0) }),
          responsesEvent({ type: 'response.output_item.added', output_index: 0, item }),
          responsesEvent({ type: 'response.function_call_arguments.delta', item_id: item.id,
                           output_index: 0, delta: args }),
          responsesEvent({ type: 'response.function_call_arguments.done', item_id: item.id,
                           output_index: 0, arguments: args }),
          responsesEvent({ type: 'response.output_item.done', output_index: 0, item: done }),
          responsesEvent({ type: 'response.completed',
                           response: response(id, 'completed', [done], 9) })].join('');
}

function functionOutputs(request) {
  return (request.input ?? []).filter((item) => item.type === 'function_call_output').length;
}

function responsesBodyFor(request) {
  const model = String(request.model ?? '');
  const cached = (key, render) => {
    if (!rendered.has(key)) rendered.set(key, render());
    return rendered.get(key);
  };
  if (model.startsWith('stream-'))
    return cached(`r-${model}`, () => responsesText('stream', Number(model.slice(7))));
  if (model.startsWith('tiny-'))
    return cached(`r-${model}`, () => responsesText('tiny', Number(model.slice(5)), '.'));
  if (model.startsWith('tools-')) {
    const done = functionOutputs(request);
    return done < Number(model.slice(6)) ? responsesToolCall(`t${done}`)
                                         : responsesText('done', 1, 'Done.');
  }
  return responsesText('short', 3, 'Hi!');
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let request = {};
    try { request = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { /* answer anyway */ }
    const body = req.url.endsWith('/responses') ? responsesBodyFor(request) : bodyFor(request);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_bench' });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
