#include "module_proxy.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace amplifier::host::validate {
namespace {

namespace json = boost::json;

const amp_provider_vtable *g_real_provider = nullptr;
const amp_tool_vtable *g_real_tool = nullptr;
amp_provider_vtable g_provider_proxy;
amp_tool_vtable g_tool_proxy;
amp_module_descriptor g_descriptor_proxy;

void write_text(amp_writer *out, const std::string &text) {
  if (out && out->write) out->write(out, text.data(), text.size());
}

struct Captured : amp_writer {
  std::string text;
  Captured()
      : amp_writer{this, [](amp_writer *w, const char *d, size_t n) {
                     static_cast<Captured *>(w->host_data)->text.append(d, n);
                   }} {}
};

amp_status filtered_get_info(void *instance, amp_writer *out) {
  Captured real;
  amp_status status = g_real_provider->get_info(instance, &real);
  json::error_code ec;
  json::value info = json::parse(real.text, ec);
  write_text(out, !ec && info.is_object() ? real.text : std::string("{}"));
  return status;
}

amp_status filtered_list_tools(void *instance, amp_writer *out) {
  Captured real;
  amp_status status = g_real_tool->list_tools(instance, &real);
  json::error_code ec;
  json::value specs = json::parse(real.text, ec);
  json::array kept;
  if (!ec && specs.is_array())
    for (auto &spec : specs.as_array()) {
      auto *object = spec.if_object();
      auto *name = object ? object->if_contains("name") : nullptr;
      if (!name || !name->is_string()) continue;
      object->erase("parameters");
      kept.push_back(std::move(spec));
    }
  write_text(out, json::serialize(kept));
  (void)status;  // a failing list_tools is the tool-specs check's finding, not a mount error
  return AMP_OK;
}

// Copies the part of a module-owned table this host knows (a newer module's is larger).
template <class Table>
void copy_known_part(Table &into, const void *table) {
  const std::size_t claimed = *static_cast<const std::size_t *>(table);
  std::memset(&into, 0, sizeof(Table));
  std::memcpy(&into, table, std::min(claimed, sizeof(Table)));
  into.struct_size = std::min(claimed, sizeof(Table));
}

}  // namespace

std::shared_ptr<const LoadedModule> filtered_module(std::shared_ptr<const LoadedModule> real) {
  const amp_module_descriptor &d = *real->descriptor;
  std::memset(&g_descriptor_proxy, 0, sizeof g_descriptor_proxy);
  std::memcpy(&g_descriptor_proxy, &d, std::min(d.struct_size, sizeof g_descriptor_proxy));
  if (d.kind == AMP_KIND_PROVIDER) {
    g_real_provider = static_cast<const amp_provider_vtable *>(d.kind_table);
    copy_known_part(g_provider_proxy, d.kind_table);
    g_provider_proxy.get_info = &filtered_get_info;
    g_descriptor_proxy.kind_table = &g_provider_proxy;
  } else if (d.kind == AMP_KIND_TOOL) {
    g_real_tool = static_cast<const amp_tool_vtable *>(d.kind_table);
    copy_known_part(g_tool_proxy, d.kind_table);
    g_tool_proxy.list_tools = &filtered_list_tools;
    g_descriptor_proxy.kind_table = &g_tool_proxy;
  } else {
    return real;
  }
  auto proxy = std::make_shared<LoadedModule>(*real);
  proxy->descriptor = &g_descriptor_proxy;
  return proxy;
}

}  // namespace amplifier::host::validate
