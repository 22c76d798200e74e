// The comparison benchmark, all contenders in one run against the same loopback mock:
// amplifier (jsonl and text output), the vendor's official SDK (@anthropic-ai/sdk, or openai
// with --vendor openai: the Responses API), eventsource-parser and raw node:http.
// Whole-process wall time (median of the repetitions, run round-robin so a
// noisy neighbour hits everyone alike) and peak RSS (GNU time).
// Usage: node run.mjs [--vendor anthropic|openai] [--reps 9] [--big 50000] [--small 1000]
//                    [--tools 30] [--amplifier PATH]
//                    [--baseline PATH]   (another amplifier binary, e.g. an older build, as two
//                                         more contenders in the same run)
// With build/bench/copy-counter/libamp_copy_counter.so built, it also counts amplifier's
// copies of 64 KiB or more during the 50,000-delta answer (2 MB), as multiples of the answer.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) =>
  (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []));
const vendor = args.vendor ?? 'anthropic';
if (!['anthropic', 'openai'].includes(vendor)) throw new Error(`--vendor anthropic|openai, not ${vendor}`);
// What differs by vendor: amplifier's plan and the environment it reads, the official SDK.
const vendorSetup = {
  anthropic: { plan: 'plan.yaml', sdk: '@anthropic-ai/sdk', sdkScript: 'sdk_client.mjs',
               env: (baseUrl) => ({ ANTHROPIC_BASE_URL: baseUrl }) },
  openai: { plan: 'plan-openai.yaml', sdk: 'openai (official SDK)', sdkScript: 'openai_client.mjs',
            env: (baseUrl) => ({ OPENAI_BASE_URL: `${baseUrl}/v1` }) },
}[vendor];
const reps = Number(args.reps ?? 9);
const big = Number(args.big ?? 50000);
const small = Number(args.small ?? 1000);
const toolTurns = Number(args.tools ?? 30);
const amplifier = path.resolve(args.amplifier ?? path.join(here, '../../build/host/amplifier'));
const baseline = args.baseline ? path.resolve(args.baseline) : undefined;
if (!fs.existsSync(amplifier)) throw new Error(`no amplifier binary at ${amplifier} (build first)`);
if (!fs.existsSync(path.join(here, 'node_modules'))) throw new Error('run scripts/install-bench-deps.sh first');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'amp-peers-'));
fs.writeFileSync(path.join(work, 'data.txt'), Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');

async function startServer() {
  const child = spawn(process.execPath, [path.join(here, 'mock_server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => {
    child.stdout.on('data', (chunk) => {
      const match = /listening (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
  });
  return { child, baseUrl: `http://127.0.0.1:${port}` };
}

// One whole process: wall ms, CPU ms (user + system: what the client itself spent, without
// the mock server's time, which every contender waits for alike) and peak RSS (kB).
function measure(argv, env) {
  const started = process.hrtime.bigint();
  const result = spawnSync('/usr/bin/time', ['-f', 'maxrss %M cpu %U %S', ...argv], {
    cwd: work, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  // GNU time's line is the last one on stderr, whatever the program wrote before it.
  const times = /maxrss (\d+) cpu ([\d.]+) ([\d.]+)\s*$/.exec(result.stderr ?? '');
  const rss = times ? Number(times[1]) : NaN;
  const cpu = times ? (Number(times[2]) + Number(times[3])) * 1000 : NaN;
  if (result.status !== 0) throw new Error(`${argv.join(' ')} failed (${result.status}): ${result.stderr}`);
  return { wall, rss, cpu };
}

const median = (values) => {
  const known = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  return known.length ? known[Math.floor(known.length / 2)] : NaN;
};

function contenders(baseUrl) {
  const node = (script) => (model) => ({ argv: [process.execPath, path.join(here, script), baseUrl, model, vendor], env: {} });
  const amp = (format, binary = amplifier) => (model) => ({
    argv: [binary, 'run', '--plan', path.join(here, vendorSetup.plan), ...(format ? ['--format', format] : []), 'go'],
    env: { ...vendorSetup.env(baseUrl), BENCH_MODEL: model, HOME: work, AMPLIFIER_HOME: work,
           ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', NO_COLOR: '1' } });
  const before = baseline ? {
    'baseline --format jsonl': amp('jsonl', baseline),
    'baseline (text)': amp('', baseline),
  } : {};
  return {
    'amplifier --format jsonl': amp('jsonl'),
    'amplifier (text)': amp(''),
    ...before,
    [vendorSetup.sdk]: node(vendorSetup.sdkScript),
    'eventsource-parser': node('esp_client.mjs'),
    'raw node:http': node('raw_client.mjs'),
  };
}

// amplifier's large copies for the big answer, through the LD_PRELOAD counter (when built).
// Trust: the operator runs this benchmark; the processes it starts are the contenders it names,
// with the repository's own build and node_modules (pinned by package-lock.json).
function countCopies(baseUrl) {
  const counter = path.resolve(here, '../../build/bench/copy-counter/libamp_copy_counter.so');
  if (!fs.existsSync(counter)) return [];
  const all = contenders(baseUrl);
  return Object.keys(all).filter((name) => name.includes('amplifier') || name.startsWith('baseline'))
    .map((name) => {
      const run = all[name](`stream-${big}`);
      const out = path.join(work, `copies-${name.replace(/\W+/g, '_')}.json`);
      fs.rmSync(out, { force: true });
      const result = spawnSync(run.argv[0], run.argv.slice(1), {
        cwd: work, env: { ...process.env, ...run.env, LD_PRELOAD: counter, AMP_COPY_COUNTER_OUT: out },
        stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`${name} failed under the copy counter: ${result.stderr}`);
      return { name, ...JSON.parse(fs.readFileSync(out, 'utf8').trim().split('\n').pop()) };
    });
}

// Runs every (contender, model) pair `reps` times, round-robin; returns medians.
function runAll(pairs) {
  const samples = pairs.map(() => ({ wall: [], rss: [], cpu: [] }));
  for (const pair of pairs) measure(pair.run.argv, pair.run.env);  // warm the page cache
  for (let rep = 0; rep < reps; ++rep)
    pairs.forEach((pair, i) => {
      const { wall, rss, cpu } = measure(pair.run.argv, pair.run.env);
      samples[i].wall.push(wall);
      samples[i].rss.push(rss);
      samples[i].cpu.push(cpu);
    });
  return samples.map((s) => ({ wall: median(s.wall), rss: median(s.rss), cpu: median(s.cpu) }));
}

const { child, baseUrl } = await startServer();
try {
  const all = contenders(baseUrl);
  const names = Object.keys(all);
  const streamPairs = names.flatMap((name) => [small, big].flatMap((n) => [
    { name, n, kind: 'stream', run: all[name](`stream-${n}`) },
    { name, n, kind: 'tiny', run: all[name](`tiny-${n}`) }]));
  const toolNames = names.filter((name) => !['eventsource-parser', 'raw node:http'].includes(name));
  const toolPairs = toolNames.flatMap((name) => [0, toolTurns].map((k) => ({ name, k, run: all[name](`tools-${k}`) })));
  const coldPairs = names.map((name) => ({ name, run: all[name]('short') }));
  coldPairs.push({ name: 'amplifier, built-in offline plan', run: {
    argv: [amplifier, 'run', 'hello'], env: { HOME: work, AMPLIFIER_HOME: work, ANTHROPIC_API_KEY: '',
                                              OPENAI_API_KEY: '' } } });

  const stream = runAll(streamPairs);
  const tools = runAll(toolPairs);
  const cold = runAll(coldPairs);

  const rows = new Map(names.map((name) => [name, {}]));
  streamPairs.forEach((pair, i) => {
    const row = rows.get(pair.name);
    row[`${pair.kind}-${pair.n === big ? 'big' : 'small'}`] = stream[i];
  });
  for (const row of rows.values()) {
    row.big = row['stream-big'];
    row.marginal = (row['stream-big'].wall - row['stream-small'].wall) * 1e6 / (big - small);
    row.tinyMarginal = (row['tiny-big'].wall - row['tiny-small'].wall) * 1e6 / (big - small);
    row.cpuMarginal = (row['stream-big'].cpu - row['stream-small'].cpu) * 1e6 / (big - small);
  }
  toolPairs.forEach((pair, i) => {
    rows.get(pair.name)[`k${pair.k}`] = tools[i].wall;
    rows.get(pair.name)[`cpu${pair.k}`] = tools[i].cpu;
  });
  coldPairs.forEach((pair, i) => {
    if (!rows.has(pair.name)) rows.set(pair.name, {});
    rows.get(pair.name).cold = cold[i].wall;
  });

  const copies = countCopies(baseUrl);

  const fmt = (v, digits = 0) => (v === undefined || Number.isNaN(v) || !Number.isFinite(v) ? '—' : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));
  console.log(`\n${vendor}: ${reps} repetitions each, medians; ${big.toLocaleString('en-US')} vs ${small.toLocaleString('en-US')} deltas of 40 bytes; tool loop ${toolTurns} read_file turns vs 0; node ${process.version}\n`);
  console.log('| contender | stream ingest, marginal ns/event (40-byte deltas) | same, 1-byte deltas | same, CPU ns/event | tool loop, µs/turn | same, CPU µs/turn | cold start, ms (8-event response) | peak RSS, MB (50,000 deltas) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  const toolLoopOf = (row) => (row.k0 !== undefined ? (row[`k${toolTurns}`] - row.k0) * 1000 / toolTurns : undefined);
  const toolCpuOf = (row) => (row.cpu0 !== undefined ? (row[`cpu${toolTurns}`] - row.cpu0) * 1000 / toolTurns : undefined);
  for (const [name, row] of rows) {
    console.log(`| ${name} | ${fmt(row.marginal)} | ${fmt(row.tinyMarginal)} | ${fmt(row.cpuMarginal)} | ${fmt(toolLoopOf(row))} | ${fmt(toolCpuOf(row))} | ${fmt(row.cold, 1)} | ${fmt(row.big ? row.big.rss / 1024 : undefined, 1)} |`);
  }
  if (copies.length) {
    console.log(`\nLarge copies (64 KiB or more, memcpy/memmove) during the ${big.toLocaleString('en-US')}-delta answer, in answers (${(big * 40 / 1e6).toFixed(1)} MB each); the text block's own growth while streaming counts too:\n`);
    console.log('| contender | copies | bytes copied, in answers | large allocations, in answers |');
    console.log('|---|---:|---:|---:|');
    for (const c of copies)
      console.log(`| ${c.name} | ${c.copies} | ${fmt(c.copied_bytes / (big * 40), 1)} | ${fmt(c.allocated_bytes / (big * 40), 1)} |`);
  }
  const sdk = rows.get(vendorSetup.sdk);
  for (const name of ['amplifier --format jsonl', 'amplifier (text)']) {
    const row = rows.get(name);
    console.log(`\n${name} vs the official SDK: stream ${fmt(sdk.marginal / row.marginal, 1)}x faster ` +
                `(1-byte deltas ${fmt(sdk.tinyMarginal / row.tinyMarginal, 1)}x), ` +
                `tool loop ${fmt(((sdk[`k${toolTurns}`] - sdk.k0) / (row[`k${toolTurns}`] - row.k0)), 1)}x, ` +
                `cold start ${fmt(sdk.cold / row.cold, 1)}x; CPU: stream ${fmt(sdk.cpuMarginal / row.cpuMarginal, 1)}x, ` +
                `tool loop ${fmt(toolCpuOf(sdk) / toolCpuOf(row), 1)}x`);
  }
} finally {
  child.kill();
  fs.rmSync(work, { recursive: true, force: true });
}
