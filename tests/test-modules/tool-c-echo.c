/*
 * tool-c-echo: a tool module written in plain C11, with no C++ and no SDK, to prove that the
 * amplifier ABI needs nothing but amplifier_plugin.h and a C compiler.
 *
 * It offers one tool, `c_upper`, which takes {"text": "..."} and returns the text with its
 * ASCII letters uppercased (other characters, including every non-ASCII code point, are
 * copied unchanged, so the result never depends on the process locale). The JSON it needs is
 * parsed and written by hand: a complete JSON string decoder (all escapes, surrogate pairs)
 * and a skipper for values it does not care about.
 */
#include "amplifier_plugin.h"

#include <stdlib.h>
#include <string.h>

/* The host's function table, received by the entry point. One per loaded library. */
static const amp_host_api *g_host_api = NULL;

typedef struct echo_instance {
  amp_host *host;
} echo_instance;

/* ------------------------------------------------------------------------------------------ */
/* A growable byte buffer. A failed allocation sets `failed` and later writes are dropped, so  */
/* callers check once at the end instead of after every append.                               */
/* ------------------------------------------------------------------------------------------ */
typedef struct buffer {
  char *data;
  size_t len;
  size_t cap;
  int failed;
} buffer;

static void buffer_append(buffer *b, const char *bytes, size_t n) {
  if (b->failed) return;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    char *grown;
    while (cap < b->len + n) cap *= 2;
    grown = (char *)realloc(b->data, cap);
    if (!grown) {
      b->failed = 1;
      return;
    }
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, bytes, n);
  b->len += n;
}

static void buffer_append_str(buffer *b, const char *s) { buffer_append(b, s, strlen(s)); }

static void buffer_append_char(buffer *b, char ch) { buffer_append(b, &ch, 1); }

static void buffer_free(buffer *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* Appends `n` bytes as a quoted JSON string literal. */
static void buffer_append_json_string(buffer *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t i;
  buffer_append_char(b, '"');
  for (i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '"': buffer_append_str(b, "\\\""); break;
      case '\\': buffer_append_str(b, "\\\\"); break;
      case '\b': buffer_append_str(b, "\\b"); break;
      case '\f': buffer_append_str(b, "\\f"); break;
      case '\n': buffer_append_str(b, "\\n"); break;
      case '\r': buffer_append_str(b, "\\r"); break;
      case '\t': buffer_append_str(b, "\\t"); break;
      default:
        if (c < 0x20) {
          char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
          buffer_append(b, esc, sizeof esc);
        } else {
          buffer_append_char(b, (char)c);
        }
    }
  }
  buffer_append_char(b, '"');
}

/* ------------------------------------------------------------------------------------------ */
/* Minimal JSON reading                                                                       */
/* ------------------------------------------------------------------------------------------ */
typedef struct cursor {
  const char *p;
  const char *end;
} cursor;

static void skip_whitespace(cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    ++c->p;
}

static int hex_value(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* Reads the four hex digits of a \u escape (the cursor is after the 'u'). */
static int read_hex4(cursor *c, unsigned long *out) {
  unsigned long v = 0;
  int i;
  if (c->end - c->p < 4) return 0;
  for (i = 0; i < 4; ++i) {
    int h = hex_value(c->p[i]);
    if (h < 0) return 0;
    v = (v << 4) | (unsigned long)h;
  }
  c->p += 4;
  *out = v;
  return 1;
}

static void append_utf8(buffer *b, unsigned long cp) {
  char bytes[4];
  size_t n;
  if (cp < 0x80) {
    bytes[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    bytes[0] = (char)(0xC0 | (cp >> 6));
    bytes[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    bytes[0] = (char)(0xE0 | (cp >> 12));
    bytes[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    bytes[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    bytes[0] = (char)(0xF0 | (cp >> 18));
    bytes[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    bytes[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    bytes[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  buffer_append(b, bytes, n);
}

/* Decodes the \u escape whose 'u' the cursor is after, joining a surrogate pair. */
static int decode_unicode_escape(cursor *c, buffer *out) {
  unsigned long cp;
  if (!read_hex4(c, &cp)) return 0;
  if (cp >= 0xDC00 && cp <= 0xDFFF) return 0; /* a low surrogate cannot come first */
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    unsigned long low;
    if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u') return 0;
    c->p += 2;
    if (!read_hex4(c, &low) || low < 0xDC00 || low > 0xDFFF) return 0;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  if (out) append_utf8(out, cp);
  return 1;
}

/* Reads a JSON string at the cursor. With `out`, appends its decoded bytes there; with NULL,
 * only validates and skips it. Returns 0 on malformed input. */
static int read_string(cursor *c, buffer *out) {
  if (c->p >= c->end || *c->p != '"') return 0;
  ++c->p;
  while (c->p < c->end) {
    unsigned char ch = (unsigned char)*c->p++;
    if (ch == '"') return 1;
    if (ch < 0x20) return 0; /* raw control characters are not allowed in JSON strings */
    if (ch != '\\') {
      if (out) buffer_append_char(out, (char)ch);
      continue;
    }
    if (c->p >= c->end) return 0;
    ch = (unsigned char)*c->p++;
    switch (ch) {
      case '"': case '\\': case '/':
        if (out) buffer_append_char(out, (char)ch);
        break;
      case 'b': if (out) buffer_append_char(out, '\b'); break;
      case 'f': if (out) buffer_append_char(out, '\f'); break;
      case 'n': if (out) buffer_append_char(out, '\n'); break;
      case 'r': if (out) buffer_append_char(out, '\r'); break;
      case 't': if (out) buffer_append_char(out, '\t'); break;
      case 'u':
        if (!decode_unicode_escape(c, out)) return 0;
        break;
      default:
        return 0;
    }
  }
  return 0; /* unterminated */
}

/* Skips one JSON value of any type. Nested containers are tracked with a depth counter, and
 * strings inside them are read properly so brackets within strings do not count. */
static int skip_value(cursor *c) {
  size_t depth = 0;
  skip_whitespace(c);
  do {
    if (c->p >= c->end) return 0;
    switch (*c->p) {
      case '"':
        if (!read_string(c, NULL)) return 0;
        break;
      case '{': case '[':
        ++depth;
        ++c->p;
        break;
      case '}': case ']':
        if (depth == 0) return 0;
        --depth;
        ++c->p;
        break;
      case ',': case ':':
        if (depth == 0) return 0;
        ++c->p;
        break;
      default: {
        /* a number or a literal: a run of characters up to a delimiter */
        const char *start = c->p;
        while (c->p < c->end && !strchr(" \t\r\n,:]}[{\"", *c->p)) ++c->p;
        if (c->p == start) return 0;
      }
    }
    skip_whitespace(c);
  } while (depth > 0);
  return 1;
}

typedef enum text_lookup { TEXT_FOUND, TEXT_MISSING, TEXT_NOT_OBJECT, TEXT_MALFORMED } text_lookup;

/* Finds the top-level string field "text" of the JSON object `json`, decoding it into `out`. */
static text_lookup find_text_field(amp_str json, buffer *out) {
  cursor c;
  buffer key = {NULL, 0, 0, 0};
  text_lookup result = TEXT_MISSING;
  c.p = json.data;
  c.end = json.data + json.len;
  skip_whitespace(&c);
  if (c.p >= c.end || *c.p != '{') return TEXT_NOT_OBJECT;
  ++c.p;
  skip_whitespace(&c);
  if (c.p < c.end && *c.p == '}') return TEXT_MISSING;
  for (;;) {
    int is_text;
    key.len = 0;
    skip_whitespace(&c);
    if (!read_string(&c, &key)) { result = TEXT_MALFORMED; break; }
    skip_whitespace(&c);
    if (c.p >= c.end || *c.p != ':') { result = TEXT_MALFORMED; break; }
    ++c.p;
    skip_whitespace(&c);
    is_text = key.len == 4 && memcmp(key.data, "text", 4) == 0;
    if (is_text && c.p < c.end && *c.p == '"') {
      out->len = 0; /* a repeated key: the last one wins, as in most JSON readers */
      if (!read_string(&c, out)) { result = TEXT_MALFORMED; break; }
      result = TEXT_FOUND;
    } else {
      if (is_text) result = TEXT_MISSING; /* present but not a string */
      if (!skip_value(&c)) { result = TEXT_MALFORMED; break; }
    }
    skip_whitespace(&c);
    if (c.p < c.end && *c.p == ',') { ++c.p; continue; }
    if (c.p < c.end && *c.p == '}') break;
    result = TEXT_MALFORMED;
    break;
  }
  buffer_free(&key);
  return result;
}

/* ------------------------------------------------------------------------------------------ */
/* The tool                                                                                   */
/* ------------------------------------------------------------------------------------------ */
static const char k_tool_specs[] =
    "[{\"name\":\"c_upper\","
    "\"description\":\"Returns the given text with its ASCII letters uppercased.\","
    "\"parameters\":{\"type\":\"object\","
    "\"properties\":{\"text\":{\"type\":\"string\",\"description\":\"The text to uppercase.\"}},"
    "\"required\":[\"text\"]}}]";

static const char k_out_of_memory[] =
    "{\"kind\":\"internal\",\"message\":\"tool-c-echo: out of memory\",\"retryable\":false}";

static void ascii_uppercase(char *s, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (s[i] >= 'a' && s[i] <= 'z') s[i] = (char)(s[i] - 'a' + 'A');
}

static void finish(echo_instance *self, amp_call_id call, amp_status status, const buffer *b) {
  amp_str payload;
  if (b->failed) {
    payload.data = k_out_of_memory;
    payload.len = sizeof k_out_of_memory - 1;
    status = AMP_ERROR;
  } else {
    payload.data = b->data;
    payload.len = b->len;
  }
  g_host_api->call_finish(self->host, call, status, payload);
}

/* A ToolResult with success false: the model reads the message and can correct its call. */
static void finish_with_failure(echo_instance *self, amp_call_id call, const char *message) {
  buffer result = {NULL, 0, 0, 0};
  buffer_append_str(&result, "{\"success\":false,\"output\":null,\"error\":{\"message\":");
  buffer_append_json_string(&result, message, strlen(message));
  buffer_append_str(&result, "}}");
  finish(self, call, AMP_OK, &result);
  buffer_free(&result);
}

static void run_c_upper(echo_instance *self, amp_call_id call, amp_str input_json) {
  buffer text = {NULL, 0, 0, 0};
  buffer result = {NULL, 0, 0, 0};
  switch (find_text_field(input_json, &text)) {
    case TEXT_FOUND:
      ascii_uppercase(text.data, text.len);
      buffer_append_str(&result, "{\"success\":true,\"output\":");
      buffer_append_json_string(&result, text.data, text.len);
      buffer_append_char(&result, '}');
      finish(self, call, AMP_OK, &result);
      break;
    case TEXT_MISSING:
      finish_with_failure(self, call, "c_upper needs a string field \"text\" in its input");
      break;
    case TEXT_NOT_OBJECT:
      finish_with_failure(self, call, "c_upper expects a JSON object as its input");
      break;
    case TEXT_MALFORMED:
      finish_with_failure(self, call, "c_upper could not parse its input as JSON");
      break;
  }
  buffer_free(&text);
  buffer_free(&result);
}

static amp_status list_tools(void *instance, amp_writer *out) {
  (void)instance;
  if (out && out->write) out->write(out, k_tool_specs, sizeof k_tool_specs - 1);
  return AMP_OK;
}

/* The work is a few microseconds, so it runs synchronously (the host calls execute on one of
 * its worker threads) and finishes before returning. */
static void execute(void *instance, amp_call_id call, amp_str tool, amp_str input_json) {
  echo_instance *self = (echo_instance *)instance;
  if (tool.len == 7 && memcmp(tool.data, "c_upper", 7) == 0) {
    run_c_upper(self, call, input_json);
  } else {
    buffer error = {NULL, 0, 0, 0};
    buffer message = {NULL, 0, 0, 0};
    buffer_append_str(&message, "tool-c-echo has no tool named ");
    buffer_append_json_string(&message, tool.data, tool.len);
    buffer_append_str(&error, "{\"kind\":\"not_found\",\"retryable\":false,\"message\":");
    buffer_append_json_string(&error, message.data ? message.data : "", message.len);
    buffer_append_char(&error, '}');
    finish(self, call, AMP_NOT_FOUND, &error);
    buffer_free(&message);
    buffer_free(&error);
  }
}

/* Every call finishes inside execute, so there is never a running call to cancel. */
static void cancel(void *instance, amp_call_id call, amp_cancel_level level) {
  (void)instance;
  (void)call;
  (void)level;
}

static amp_status create(amp_host *host, amp_str config_json, void **out_instance,
                         amp_writer *error) {
  echo_instance *self;
  (void)config_json; /* no settings */
  self = (echo_instance *)malloc(sizeof *self);
  if (!self) {
    static const char message[] = "tool-c-echo: out of memory";
    if (error && error->write) error->write(error, message, sizeof message - 1);
    return AMP_ERROR;
  }
  self->host = host;
  *out_instance = self;
  return AMP_OK;
}

static void destroy(void *instance) { free(instance); }

static const amp_tool_vtable k_tool_table = {
    sizeof(amp_tool_vtable),
    list_tools,
    execute,
    cancel,
};

static const amp_module_descriptor k_descriptor = {
    sizeof(amp_module_descriptor),
    AMP_ABI_VERSION_MAJOR,
    AMP_ABI_VERSION_MINOR,
    "tool-c-echo",
    "1.0.0",
    "A tool module in plain C: c_upper uppercases ASCII text",
    AMP_KIND_TOOL,
    create,
    NULL, /* no session-ready phase */
    destroy,
    &k_tool_table,
    0, /* min_host_minor: it calls only 1.0 functions */
};

AMP_EXPORT const amp_module_descriptor *amplifier_module_entry(uint32_t host_abi_major,
                                                               uint32_t host_abi_minor,
                                                               const amp_host_api *host_api);

const amp_module_descriptor *amplifier_module_entry(uint32_t host_abi_major,
                                                    uint32_t host_abi_minor,
                                                    const amp_host_api *host_api) {
  /* Any minor of our major will do: instead of comparing minors, check that the host's table
   * is long enough to hold the one function this module calls. */
  (void)host_abi_minor;
  if (host_abi_major != AMP_ABI_VERSION_MAJOR) return NULL;
  if (!host_api || !AMP_HAS_FIELD(host_api, amp_host_api, call_finish)) return NULL;
  g_host_api = host_api;
  return &k_descriptor;
}
