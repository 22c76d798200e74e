#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/seed-*) from the recorded
vendor traffic in tests/fixtures/vendor, the shipped mount plans and the unit tests' inputs.
Run it again after adding fixtures; it replaces seed-* files only (regress-* inputs, the
regression cases of fixed findings, are kept)."""
import glob, hashlib, json, os, re, struct, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENDOR = os.path.join(ROOT, "tests", "fixtures", "vendor")
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def vendor(pattern):
    return sorted(glob.glob(os.path.join(VENDOR, pattern)))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def ndjson_lines(path):
    return [l for l in read(path).split(b"\n") if l.strip()]


def as_sse(lines, with_type=False, crlf=False):
    end = b"\r\n" if crlf else b"\n"
    out = b""
    for line in lines:
        if with_type:
            try:
                out += b"event: " + json.loads(line)["type"].encode() + end
            except Exception:
                pass
        out += b"data: " + line + end + end
    return out


seeds = {}


def add(target, data):
    if isinstance(data, str):
        data = data.encode()
    seeds.setdefault(target, []).append(data)


# SSE parser and NDJSON reader: every recorded stream.
for p in vendor("*.sse"):
    add("fuzz_sse_parser", read(p))
for p in vendor("*.ndjson"):
    add("fuzz_ndjson_reader", read(p))
    add("fuzz_sse_parser", as_sse(ndjson_lines(p), crlf=True))
add("fuzz_sse_parser", b"\xef\xbb\xbfretry: 1000\nid: 7\r\nevent: x\rdata: a\ndata\n: comment\n\n")

# Provider streams.
for p in vendor("anthropic_stream_*.sse"):
    add("fuzz_stream_anthropic", read(p))
for p in vendor("openai_responses_stream_*.sse"):
    add("fuzz_stream_openai_responses", read(p))
for p in vendor("openai_responses_stream_*.ndjson"):
    # One stream per recorded response (a recording may hold several turns), so each fits the
    # fuzzer's input size limit.
    stream = []
    for line in ndjson_lines(p):
        stream.append(line)
        if json.loads(line).get("type") in ("response.completed", "response.failed",
                                             "response.incomplete", "error"):
            add("fuzz_stream_openai_responses", as_sse(stream, with_type=True))
            stream = []
    if stream:
        add("fuzz_stream_openai_responses", as_sse(stream, with_type=True))
examples = json.loads(read(os.path.join(VENDOR, "openai_responses_stream_event_examples_spec.json")))["examples"]
add("fuzz_stream_openai_responses",
    as_sse([json.dumps(e).encode() for e in examples.values() if isinstance(e, dict)], with_type=True))
for p in vendor("openai_chat_stream_*.sse"):
    add("fuzz_stream_chat_completions", read(p))
for p in vendor("azure_openai_chat_stream_*.ndjson"):
    add("fuzz_stream_chat_completions", as_sse(ndjson_lines(p)) + b"data: [DONE]\n\n")
for p in vendor("ollama_*.ndjson"):
    add("fuzz_stream_ollama", read(p))
for p in vendor("gemini_stream_*.sse"):
    add("fuzz_stream_gemini", read(p))
for p in vendor("gemini_stream_*.ndjson"):
    add("fuzz_stream_gemini", as_sse(ndjson_lines(p), crlf=True))

# Error mapping: status (2 bytes), header lines, a blank line, the body.
for p in vendor("*_error_*.json") + vendor("*error*.ndjson"):
    doc = read(p)
    try:
        recorded = json.loads(doc)
    except Exception:
        recorded = None
    status = 400
    m = re.search(r"_error_(\d{3})_", os.path.basename(p))
    if m:
        status = int(m.group(1))
    headers = {}
    body = doc
    if isinstance(recorded, dict) and "body" in recorded:
        status = recorded.get("status_code", status)
        headers = recorded.get("headers", {})
        body = json.dumps(recorded["body"]).encode()
    for extra in ({}, {"retry-after": "30", "retry-after-ms": "1500", "x-should-retry": "false",
                       "request-id": "req_1"}):
        head = "".join(f"{k}: {v}\n" for k, v in {**headers, **extra}.items()).encode()
        add("fuzz_error_mapping", struct.pack(">H", status - 100) + head + b"\n" + body)

# Mount plans: an environment, NUL, the YAML.
env = b"ANTHROPIC_API_KEY=sk-ant\nOPENAI_API_KEY=sk\nOLLAMA_HOST=http://h:1\nEMPTY=\nHOME=/h\0"
for p in sorted(glob.glob(os.path.join(ROOT, "mount-plans", "*.yaml"))):
    add("fuzz_mount_plan", env + read(p))
add("fuzz_mount_plan", env + b"session:\n  orchestrator: loop-basic\n  context: context-simple\n"
    b"providers:\n  - module: provider-mock\n    config: {key: \"${OPENAI_API_KEY}\", "
    b"d: ${MISSING:-${EMPTY:-x$$y}}, n: 3, b: true, z: null, l: [1, 2.5, '3']}\n"
    b"tools:\n  - {module: tool-bash, source: ./x.so, instance_id: b2}\n"
    b"hooks: []\nagents: {a: {b: 1}}\n")

# Model JSON: unified messages and blocks, requests, responses, legacy shapes.
blocks = [
    {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}},
    {"type": "thinking", "thinking": "hm", "signature": "sig=="},
    {"type": "redacted_thinking", "data": "abc"},
    {"type": "reasoning", "id": "rs_1", "summary": ["s"], "encrypted_content": "e"},
    {"type": "tool_call", "id": "call_1", "name": "read_file", "input": {"path": "a"}},
    {"type": "tool_result", "tool_call_id": "call_1", "output": "x", "is_error": False},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
    {"type": "vendor_thing", "x": 1},
]
for b in blocks:
    add("fuzz_model_json", json.dumps(b))
messages = [
    {"role": "user", "content": "hello"},
    {"role": "system", "content": [{"type": "text", "text": "be brief"}]},
    {"role": "assistant", "content": blocks[:5], "metadata": {"k": 1}, "extra_field": True},
    {"role": "tool", "content": [blocks[5]], "tool_call_id": "call_1", "name": "read_file"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}},
        {"id": "c2", "name": "g", "arguments": {"b": 2}},
        {"id": "c3", "tool": "h", "arguments": "not json"}]},
    {"role": "tool", "content": "result text", "tool_call_id": "c1"},
    {"role": "assistant", "content": "text", "tool_calls": []},
]
for m in messages:
    add("fuzz_model_json", json.dumps(m))
add("fuzz_model_json", json.dumps(messages))
add("fuzz_model_json", json.dumps({"messages": messages[:4], "tools": [{"name": "read_file",
    "description": "d", "parameters": {"type": "object"}}], "max_tokens": 10, "temperature": 0.5,
    "stream": True}))
add("fuzz_model_json", json.dumps({"content": blocks[:5], "usage": {"input_tokens": 1, "output_tokens": 2},
    "finish_reason": "tool_calls", "model": "m", "degradations": [{"kind": "k", "detail": "d"}]}))
add("fuzz_model_json", json.dumps({"output": "ok", "is_error": False, "metadata": {}}))

# JSON schema: [schema, instance...] from the unit tests, plus every keyword.
test = read(os.path.join(ROOT, "tests", "json_schema", "test_json_schema.cpp")).decode()
consts = dict(re.findall(r'constexpr std::string_view (\w+) = R"\((.*?)\)";', test, re.S))
for schema, instance in re.findall(r'(?:problems|only_problem)\((\w+|R"\(.*?\)"), R"\((.*?)\)"\)', test, re.S):
    schema = consts.get(schema, schema[3:-2] if schema.startswith('R"(') else schema)
    try:
        add("fuzz_json_schema", json.dumps([json.loads(schema), json.loads(instance)]))
    except Exception:
        pass
add("fuzz_json_schema", json.dumps([{"type": "object", "properties": {
    "a": {"type": "array", "items": {"type": "string", "pattern": "^a.*", "minLength": 1, "maxLength": 3},
          "minItems": 1, "maxItems": 2},
    "t": {"type": "array", "items": [{"const": 1}, {"enum": ["x", None]}]},
    "n": {"type": "number", "minimum": 0, "exclusiveMaximum": 10},
    "o": {"type": ["integer", "null"], "exclusiveMinimum": True, "minimum": 1}},
    "required": ["a"], "additionalProperties": {"type": "boolean"}},
    {"a": ["ab"], "t": [1, "x"], "n": 3, "o": None, "z": True}, {"a": [], "n": 11, "q": 1}]))
add("fuzz_json_schema", json.dumps([False, 1]))
# The draft 7 table: {schema, instance, kValid}, the schema inline or a named constant.
draft7 = read(os.path.join(ROOT, "tests", "json_schema", "test_json_schema_draft7.cpp")).decode()
consts = dict(re.findall(r'constexpr std::string_view (\w+) =\s*R"\((.*?)\)";', draft7, re.S))
for schema, instance in re.findall(r'\{(\w+|R"\(.*?\)"),\s*(R"\(.*?\)"|"[^"]*"),\s*k(?:Valid|Invalid)\}',
                                   draft7, re.S):
    schema = consts.get(schema, schema[3:-2] if schema.startswith('R"(') else schema)
    instance = instance[3:-2] if instance.startswith('R"(') else instance[1:-1]
    try:
        add("fuzz_json_schema", json.dumps([json.loads(schema), json.loads(instance)]))
    except Exception:
        pass

# Command matcher: patterns, NUL, the command line.
for patterns, line in [
    ("git *\nls\nmake -j?", "cd src && FOO=1 make -j2 || echo failed; ls | wc -l &"),
    ("rm *\necho \\*", "rm $(cat list) `date` <(sort a) >(tee b) 2>&1"),
    ("*", "if true; then (cd x; ls); fi\nwhile read l; do echo \"$l $(id)\"; done"),
    ("echo 'a; rm -rf /'", "echo 'a; rm -rf /' \"b && c\" a\\;b"),
]:
    add("fuzz_command_match", patterns + "\0" + line)

# Path policy: requested paths against the fixed tree (see fuzz_path_policy.cpp).
for path in ["allowed/file.txt", "allowed/in/deep", "allowed/out/key", "allowed/abs",
             "allowed/sub/../../allowed/./file.txt", "allowed/nonexistent/../out/key",
             "allowed/sub/tocommon/docs", "allowed/loop/x", "allowed/dangling", "allowed/keylink",
             "~/x", "/etc/passwd", "../work/allowed/", "allowed//sub///deep/"]:
    add("fuzz_path_policy", path)

for target, items in seeds.items():
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    for old in glob.glob(os.path.join(folder, "seed-*")):
        os.remove(old)
    for data in items:
        name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    print(f"{target}: {len(items)} seeds")
