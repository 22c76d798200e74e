/*
 * provider-c-typed / provider-c-json: a streaming provider written in plain C11, with no SDK.
 *
 * Every completion streams the same answer: a thinking block (two thinking deltas, then its
 * signature) and a text block (three text deltas, one with characters JSON must escape), then
 * the matching ChatResponse as the terminal event.
 *
 * Built twice:
 *   - provider-c-typed (AMP_TEST_JSON_ONLY undefined): an ABI 1.2 module that reports its
 *     deltas through the host function "call_delta" (found with get_proc), with no JSON, and
 *     falls back to JSON events on a host that lacks it. It declares min_host_minor 0.
 *   - provider-c-json (AMP_TEST_JSON_ONLY defined): the same module as a 1.1 build would be:
 *     stamped ABI 1.1, a descriptor of the 1.1 size, every delta a JSON call_event.
 * Both must look the same to an orchestrator and to hooks.
 */
#include "amplifier_plugin.h"

#include <stddef.h>
#include <string.h>

static const amp_host_api *g_host_api = NULL;
static amp_call_delta_fn g_call_delta = NULL; /* NULL: report deltas as JSON events */

typedef struct provider_instance {
  amp_host *host;
} provider_instance;

static amp_str str_of(const char *text) {
  amp_str s;
  s.data = text;
  s.len = strlen(text);
  return s;
}

static void event(amp_host *host, amp_call_id call, const char *json) {
  g_host_api->call_event(host, call, str_of(json));
}

/* One delta: typed when the host can take it, else the JSON event it stands for. The JSON
 * forms are written out by hand (the texts are fixed, so no escaping code is needed). */
static void delta(amp_host *host, amp_call_id call, uint32_t index, amp_delta_kind kind,
                  const char *text, const char *as_json_event) {
  if (g_call_delta) {
    g_call_delta(host, call, index, kind, str_of(text));
  } else {
    event(host, call, as_json_event);
  }
}

static amp_status get_info(void *instance, amp_writer *out) {
  static const char info[] =
      "{\"id\":\"provider-c\",\"display_name\":\"C provider\",\"credential_env_vars\":[],"
      "\"capabilities\":{\"streaming\":true},\"defaults\":{\"model\":\"c-model\"},"
      "\"config_fields\":[]}";
  (void)instance;
  out->write(out, info, sizeof info - 1);
  return AMP_OK;
}

static amp_status list_models(void *instance, amp_writer *out) {
  (void)instance;
  out->write(out, "[]", 2);
  return AMP_OK;
}

/* True when the request's text contains `marker` (the tests steer the module this way). */
static int request_mentions(amp_str request_json, const char *marker) {
  size_t n = strlen(marker), i;
  for (i = 0; i + n <= request_json.len; ++i)
    if (memcmp(request_json.data + i, marker, n) == 0) return 1;
  return 0;
}

static void complete(void *instance, amp_call_id call, amp_str request_json) {
  amp_host *host = ((provider_instance *)instance)->host;
  if (g_call_delta && request_mentions(request_json, "send-unknown-delta-kind")) {
    /* A protocol violation on purpose: the host must end the call with a stream error. */
    event(host, call, "{\"type\":\"content_block_start\",\"index\":0,\"block\":{\"type\":\"text\"}}");
    g_call_delta(host, call, 0, (amp_delta_kind)99, str_of("?"));
    g_host_api->call_finish(host, call, AMP_OK, str_of("{\"content\":[]}"));
    return;
  }
  event(host, call, "{\"type\":\"content_block_start\",\"index\":0,\"block\":{\"type\":\"thinking\"}}");
  delta(host, call, 0, AMP_DELTA_THINKING, "Weighing ",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking\",\"thinking\":\"Weighing \"}}");
  delta(host, call, 0, AMP_DELTA_THINKING, "it.",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking\",\"thinking\":\"it.\"}}");
  delta(host, call, 0, AMP_DELTA_SIGNATURE, "c-signature==",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature\",\"signature\":\"c-signature==\"}}");
  event(host, call,
        "{\"type\":\"content_block_end\",\"index\":0,\"block\":{\"type\":\"thinking\","
        "\"thinking\":\"Weighing it.\",\"signature\":\"c-signature==\"}}");
  event(host, call, "{\"type\":\"content_block_start\",\"index\":1,\"block\":{\"type\":\"text\"}}");
  delta(host, call, 1, AMP_DELTA_TEXT, "Typed",
        "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text\",\"text\":\"Typed\"}}");
  delta(host, call, 1, AMP_DELTA_TEXT, " deltas",
        "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text\",\"text\":\" deltas\"}}");
  delta(host, call, 1, AMP_DELTA_TEXT, " from C: \"q\"\t\\\n",
        "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text\",\"text\":\" from C: \\\"q\\\"\\t\\\\\\n\"}}");
  event(host, call,
        "{\"type\":\"content_block_end\",\"index\":1,\"block\":{\"type\":\"text\","
        "\"text\":\"Typed deltas from C: \\\"q\\\"\\t\\\\\\n\"}}");
  g_host_api->call_finish(
      host, call, AMP_OK,
      str_of("{\"content\":[{\"type\":\"thinking\",\"thinking\":\"Weighing it.\","
             "\"signature\":\"c-signature==\"},{\"type\":\"text\","
             "\"text\":\"Typed deltas from C: \\\"q\\\"\\t\\\\\\n\"}],\"finish_reason\":\"end_turn\"}"));
}

static void cancel(void *instance, amp_call_id call, amp_cancel_level level) {
  /* Every call finishes inside complete: nothing is ever in flight to cancel. */
  (void)instance;
  (void)call;
  (void)level;
}

static amp_status create(amp_host *host, amp_str config_json, void **out_instance,
                         amp_writer *error) {
  static provider_instance instances[64];
  static size_t used = 0;
  (void)config_json;
  if (used == sizeof instances / sizeof instances[0]) {
    error->write(error, "too many instances", 18);
    return AMP_ERROR;
  }
  instances[used].host = host;
  *out_instance = &instances[used++];
  return AMP_OK;
}

static void destroy(void *instance) { (void)instance; }

static const amp_provider_vtable k_provider_table = {
    sizeof(amp_provider_vtable), get_info, list_models, complete, cancel,
};

#ifdef AMP_TEST_JSON_ONLY
#define MODULE_ID "provider-c-json"
#define MODULE_MINOR 1
#else
#define MODULE_ID "provider-c-typed"
#define MODULE_MINOR AMP_ABI_VERSION_MINOR
#endif

static const amp_module_descriptor k_descriptor = {
#ifdef AMP_TEST_JSON_ONLY
    offsetof(amp_module_descriptor, min_host_minor), /* the 1.1 descriptor */
#else
    sizeof(amp_module_descriptor),
#endif
    AMP_ABI_VERSION_MAJOR,
    MODULE_MINOR,
    MODULE_ID,
    "1.0.0",
    "A streaming provider in plain C (typed deltas where the host takes them)",
    AMP_KIND_PROVIDER,
    create,
    NULL,
    destroy,
    &k_provider_table,
    0, /* min_host_minor: typed deltas are optional (get_proc) */
};

AMP_EXPORT const amp_module_descriptor *amplifier_module_entry(uint32_t host_abi_major,
                                                               uint32_t host_abi_minor,
                                                               const amp_host_api *host_api);

const amp_module_descriptor *amplifier_module_entry(uint32_t host_abi_major,
                                                    uint32_t host_abi_minor,
                                                    const amp_host_api *host_api) {
  (void)host_abi_minor;
  if (host_abi_major != AMP_ABI_VERSION_MAJOR || !host_api) return NULL;
  g_host_api = host_api;
#ifndef AMP_TEST_JSON_ONLY
  if (AMP_HAS_FIELD(host_api, amp_host_api, get_proc) && host_api->get_proc)
    g_call_delta = (amp_call_delta_fn)host_api->get_proc(AMP_PROC_CALL_DELTA);
#endif
  return &k_descriptor;
}
