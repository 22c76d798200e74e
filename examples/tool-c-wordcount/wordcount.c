/*
 * tool-c-wordcount: a tool module in plain C11 that needs nothing but amplifier_plugin.h.
 *
 * Tool `wordcount` takes {"text": "..."} and returns what wc(1) would say about the text:
 * {"lines": newlines, "words": runs of non-space, "characters": code points, "bytes": UTF-8
 * bytes}. It counts while it reads the JSON string, so the text is never copied.
 * A bad input (not an object, no string "text", malformed JSON) is an error result the
 * model can read, never a crash.
 */
#include "amplifier_plugin.h"

#include <stdio.h>
#include <string.h>

static const amp_host_api *g_api = NULL;

typedef struct counts {
  unsigned long lines, words, characters, bytes;
  int in_word;
} counts;

/* Counts one code point (its UTF-8 length is `bytes`). */
static void count_code_point(counts *c, unsigned long cp, unsigned bytes) {
  int space = cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f';
  c->characters += 1;
  c->bytes += bytes;
  if (cp == '\n') c->lines += 1;
  if (!space && !c->in_word) c->words += 1;
  c->in_word = !space;
}

static unsigned utf8_length(unsigned long cp) {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

typedef struct reader {
  const char *p, *end;
} reader;

static void skip_space(reader *r) {
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
    ++r->p;
}

static int hex4(reader *r, unsigned long *out) {
  unsigned long v = 0;
  int i;
  if (r->end - r->p < 4) return 0;
  for (i = 0; i < 4; ++i) {
    char ch = r->p[i];
    int d = ch >= '0' && ch <= '9' ? ch - '0'
            : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
            : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
    if (d < 0) return 0;
    v = v * 16 + (unsigned long)d;
  }
  r->p += 4;
  *out = v;
  return 1;
}

/* The code point of the escape after a backslash (joins surrogate pairs). */
static int read_escape(reader *r, unsigned long *cp) {
  static const char plain[] = "\"\\/bfnrt", value[] = "\"\\/\b\f\n\r\t";
  const char *found;
  if (r->p >= r->end) return 0;
  if (*r->p != 'u') {
    found = strchr(plain, *r->p);
    if (!found || !*found) return 0;
    *cp = (unsigned char)value[found - plain];
    ++r->p;
    return 1;
  }
  ++r->p;
  if (!hex4(r, cp) || (*cp >= 0xDC00 && *cp <= 0xDFFF)) return 0;
  if (*cp >= 0xD800 && *cp <= 0xDBFF) {
    unsigned long low;
    if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u') return 0;
    r->p += 2;
    if (!hex4(r, &low) || low < 0xDC00 || low > 0xDFFF) return 0;
    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (low - 0xDC00);
  }
  return 1;
}

/* Reads the JSON string at the cursor. With `c`, counts its text; with `key`, reports
 * whether it is exactly "text". Returns 0 when malformed. */
static int read_string(reader *r, counts *c, int *is_text_key) {
  static const char text_key[] = "text";
  size_t matched = 0;
  int matches = 1;
  if (r->p >= r->end || *r->p != '"') return 0;
  ++r->p;
  while (r->p < r->end) {
    unsigned char ch = (unsigned char)*r->p++;
    unsigned long cp = ch;
    unsigned bytes = 1;
    if (ch == '"') {
      if (is_text_key) *is_text_key = matches && matched == 4;
      return 1;
    }
    if (ch < 0x20) return 0;
    if (ch == '\\') {
      if (!read_escape(r, &cp)) return 0;
      bytes = utf8_length(cp);
    } else if (ch >= 0x80) {
      /* A multi-byte UTF-8 sequence counts once, at its lead byte. */
      if ((ch & 0xC0) == 0x80) {
        if (c) c->bytes += 1;
        continue;
      }
      cp = 0x80; /* not a space; its exact value does not matter here */
    }
    if (c) count_code_point(c, cp, bytes);
    if (matched < 4 && cp == (unsigned char)text_key[matched]) ++matched;
    else matches = 0;
  }
  return 0;
}

/* Skips any JSON value (tracking nesting; strings read properly). */
static int skip_value(reader *r) {
  int depth = 0;
  do {
    skip_space(r);
    if (r->p >= r->end) return 0;
    if (*r->p == '"') {
      if (!read_string(r, NULL, NULL)) return 0;
    } else if (*r->p == '{' || *r->p == '[') {
      ++depth, ++r->p;
    } else if (*r->p == '}' || *r->p == ']') {
      if (--depth < 0) return 0;
      ++r->p;
    } else if (*r->p == ',' || *r->p == ':') {
      if (depth == 0) return 0;
      ++r->p;
    } else {
      const char *start = r->p;
      while (r->p < r->end && !strchr(" \t\r\n,:[]{}\"", *r->p)) ++r->p;
      if (r->p == start) return 0;
    }
  } while (depth > 0);
  return 1;
}

/* Counts the "text" field of the object in `json`. Returns NULL or the reason it cannot. */
static const char *count_text_field(amp_str json, counts *c) {
  reader r = {json.data, json.data + json.len};
  int found = 0;
  skip_space(&r);
  if (r.p >= r.end || *r.p != '{') return "the input must be a JSON object";
  ++r.p;
  skip_space(&r);
  if (r.p < r.end && *r.p == '}') return "the input needs a string field named text";
  for (;;) {
    int is_text = 0;
    skip_space(&r);
    if (!read_string(&r, NULL, &is_text)) return "the input is not valid JSON";
    skip_space(&r);
    if (r.p >= r.end || *r.p++ != ':') return "the input is not valid JSON";
    skip_space(&r);
    if (is_text && r.p < r.end && *r.p == '"') {
      memset(c, 0, sizeof *c); /* a repeated key: the last one counts */
      if (!read_string(&r, c, NULL)) return "the input is not valid JSON";
      found = 1;
    } else if (!skip_value(&r)) {
      return "the input is not valid JSON";
    }
    skip_space(&r);
    if (r.p < r.end && *r.p == ',') { ++r.p; continue; }
    if (r.p < r.end && *r.p == '}') break;
    return "the input is not valid JSON";
  }
  return found ? NULL : "the input needs a string field named text";
}

static void finish(amp_host *host, amp_call_id call, amp_status status, const char *payload) {
  amp_str s = {payload, strlen(payload)};
  g_api->call_finish(host, call, status, s);
}

static amp_status list_tools(void *instance, amp_writer *out) {
  static const char specs[] =
      "[{\"name\":\"wordcount\",\"description\":\"Counts the lines, words, characters and "
      "bytes of a text, like wc.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"text\":"
      "{\"type\":\"string\",\"description\":\"The text to count.\"}},\"required\":[\"text\"]}}]";
  (void)instance;
  if (out && out->write) out->write(out, specs, sizeof specs - 1);
  return AMP_OK;
}

/* Runs synchronously (the host calls execute on a worker thread): the work is tiny. */
static void execute(void *instance, amp_call_id call, amp_str tool, amp_str input_json) {
  amp_host *host = (amp_host *)instance;
  counts c;
  const char *problem;
  char payload[256];
  if (tool.len != 9 || memcmp(tool.data, "wordcount", 9) != 0) {
    finish(host, call, AMP_NOT_FOUND,
           "{\"kind\":\"not_found\",\"message\":\"tool-c-wordcount offers only wordcount\"}");
    return;
  }
  memset(&c, 0, sizeof c);
  problem = count_text_field(input_json, &c);
  if (problem) {
    snprintf(payload, sizeof payload,
             "{\"success\":false,\"output\":null,\"error\":{\"message\":\"wordcount: %s\"}}",
             problem); /* the reasons hold no character JSON would need escaped */
  } else {
    snprintf(payload, sizeof payload,
             "{\"success\":true,\"output\":{\"lines\":%lu,\"words\":%lu,\"characters\":%lu,"
             "\"bytes\":%lu}}",
             c.lines, c.words, c.characters, c.bytes);
  }
  finish(host, call, AMP_OK, payload);
}

/* Every call finishes inside execute: there is never a running call to cancel. */
static void cancel(void *instance, amp_call_id call, amp_cancel_level level) {
  (void)instance, (void)call, (void)level;
}

/* The instance is just the host handle: the tool keeps no state. */
static amp_status create(amp_host *host, amp_str config, void **out_instance, amp_writer *err) {
  (void)config, (void)err;
  *out_instance = host;
  return AMP_OK;
}

static void destroy(void *instance) { (void)instance; }

static const amp_tool_vtable k_table = {sizeof(amp_tool_vtable), list_tools, execute, cancel};

static const amp_module_descriptor k_descriptor = {
    sizeof(amp_module_descriptor), AMP_ABI_VERSION_MAJOR, AMP_ABI_VERSION_MINOR,
    "tool-c-wordcount", "1.0.0", "Example tool in C: counts lines, words and characters",
    AMP_KIND_TOOL, create, NULL, destroy, &k_table,
    0 /* min_host_minor: only 1.0 functions are used */};

AMP_EXPORT const amp_module_descriptor *amplifier_module_entry(uint32_t major, uint32_t minor,
                                                               const amp_host_api *api);

const amp_module_descriptor *amplifier_module_entry(uint32_t major, uint32_t minor,
                                                    const amp_host_api *api) {
  (void)minor;
  if (major != AMP_ABI_VERSION_MAJOR || !api || !AMP_HAS_FIELD(api, amp_host_api, call_finish))
    return NULL;
  g_api = api;
  return &k_descriptor;
}
