#include "amplifier/json_fields.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <array>
#include <utility>
#include <stdexcept>
#include <vector>

namespace amplifier {
namespace {

constexpr std::size_t kMaxDepth = 4;
constexpr std::size_t kMaxFields = 32;
using Mask = std::uint32_t;
using Kind = JsonFieldReader::Kind;

struct Slot {
  std::vector<std::string> path;
  Kind kind = Kind::absent;
  std::string text;  // the decoded string, for strings
  std::int64_t integer = 0;
};

// A key that appears at some level of a declared path, and the fields it leads to.
struct LevelKey {
  std::string key;
  Mask fields = 0;
};

unsigned lowest_field(Mask mask) { return static_cast<unsigned>(__builtin_ctz(mask)); }

}  // namespace

// Boost.JSON's basic_parser (the same parser, with the same validation, as the DOM path) drives
// the handler below, which keeps no document: per open container it knows which declared
// fields its keys can still lead to, and a scalar whose key completes a field's path is kept.
// The per-level key tables make a key cost one or two short compares.
struct JsonFieldReader::State {
  struct Handler {
    static constexpr std::size_t max_object_size = std::size_t(-1);
    static constexpr std::size_t max_array_size = std::size_t(-1);
    static constexpr std::size_t max_key_size = std::size_t(-1);
    static constexpr std::size_t max_string_size = std::size_t(-1);
    using ec = boost::json::error_code;
    using sv = boost::json::string_view;

    State *s = nullptr;

    bool on_document_begin(ec &) { return true; }
    bool on_document_end(ec &) { return true; }
    bool on_object_begin(ec &) {
      s->enter(Kind::object);
      return true;
    }
    bool on_object_end(std::size_t, ec &) {
      s->leave();
      return true;
    }
    bool on_array_begin(ec &) {
      s->enter(Kind::array);
      return true;
    }
    bool on_array_end(std::size_t, ec &) {
      s->leave();
      return true;
    }
    bool on_key_part(sv part, std::size_t, ec &) {
      s->key_buffer.append(part.data(), part.size());
      return true;
    }
    bool on_key(sv part, std::size_t, ec &) {
      if (s->key_buffer.empty()) {
        s->on_key({part.data(), part.size()});  // the usual case: the key arrived whole
      } else {
        s->key_buffer.append(part.data(), part.size());
        s->on_key(s->key_buffer);
        s->key_buffer.clear();
      }
      return true;
    }
    bool on_string_part(sv part, std::size_t, ec &) {
      if (Slot *slot = s->target()) s->append_text(*slot, part);
      return true;
    }
    bool on_string(sv part, std::size_t, ec &) {
      if (Slot *slot = s->target()) {
        s->append_text(*slot, part);
        slot->kind = Kind::string;
        s->string_open = false;
      }
      return true;
    }
    bool on_number_part(sv, ec &) { return true; }
    bool on_int64(std::int64_t value, sv, ec &) {
      if (Slot *slot = s->target()) {
        slot->kind = Kind::integer;
        slot->integer = value;
      }
      return true;
    }
    bool on_uint64(std::uint64_t value, sv, ec &) {
      if (Slot *slot = s->target()) {
        slot->kind = value <= static_cast<std::uint64_t>(INT64_MAX) ? Kind::integer : Kind::number;
        slot->integer = static_cast<std::int64_t>(value);
      }
      return true;
    }
    bool on_double(double, sv, ec &) {
      if (Slot *slot = s->target()) slot->kind = Kind::number;
      return true;
    }
    bool on_bool(bool value, ec &) {
      if (Slot *slot = s->target()) {
        slot->kind = Kind::boolean;
        slot->integer = value ? 1 : 0;
      }
      return true;
    }
    bool on_null(ec &) {
      if (Slot *slot = s->target()) slot->kind = Kind::null;
      return true;
    }
    bool on_comment_part(sv, ec &) { return true; }
    bool on_comment(sv, ec &) { return true; }
  };

  State() : parser(options()) { parser.handler().s = this; }
  static boost::json::parse_options options() {
    boost::json::parse_options options;
    options.max_depth = 256;  // as the kernel parses module payloads: tool inputs nest deeply
    return options;
  }

  // One open container: an object's keys at this depth can lead to `leads` only.
  struct Frame {
    bool object = true;
    Mask leads = 0;
  };

  void enter(Kind container) {
    Mask leads = 0;
    if (depth == 0) {
      leads = all_fields;
    } else if (Slot *slot = target()) {
      slot->kind = container;  // a declared path that ends at a container: present
    }
    if (depth > 0 && in_object() && container == Kind::object) leads = current;
    if (depth < kMaxDepth) stack[depth] = Frame{container == Kind::object, leads};
    ++depth;
    current = 0;
  }
  void leave() {
    --depth;
    current = 0;  // the parent's key was consumed by this value
  }
  bool in_object() const { return depth > 0 && depth <= kMaxDepth && stack[depth - 1].object; }

  void on_key(std::string_view key) {
    current = 0;
    if (!in_object()) return;
    const std::size_t level = depth - 1;
    const Mask leads = stack[level].leads;
    if (!leads) return;
    for (const LevelKey &candidate : keys_at[level])
      if (candidate.key == key) current |= candidate.fields & leads;
  }
  // The field the value now being read completes, if any.
  Slot *target() {
    if (!current || !in_object()) return nullptr;
    const Mask completing = current & ends_at[depth - 1];
    return completing ? &slots[lowest_field(completing)] : nullptr;
  }
  void append_text(Slot &slot, boost::json::string_view part) {
    if (!string_open) {  // the first piece of this string: the buffer keeps its capacity
      slot.text.clear();
      string_open = true;
    }
    slot.text.append(part.data(), part.size());
  }

  void reset() {
    for (Slot &slot : slots) slot.kind = Kind::absent;
    depth = 0;
    current = 0;
    string_open = false;
    key_buffer.clear();
    error.clear();
  }

  void add(Slot slot) {
    const Mask bit = Mask(1) << slots.size();
    for (std::size_t level = 0; level < slot.path.size(); ++level) {
      auto &table = keys_at[level];
      auto it = std::find_if(table.begin(), table.end(),
                             [&](const LevelKey &k) { return k.key == slot.path[level]; });
      if (it == table.end()) it = table.insert(table.end(), LevelKey{slot.path[level], 0});
      it->fields |= bit;
    }
    ends_at[slot.path.size() - 1] |= bit;
    all_fields |= bit;
    slots.push_back(std::move(slot));
  }

  boost::json::basic_parser<Handler> parser;
  std::vector<Slot> slots;
  std::array<std::vector<LevelKey>, kMaxDepth> keys_at;  // per path level
  std::array<Mask, kMaxDepth> ends_at{};                  // fields whose path ends there
  Mask all_fields = 0;
  std::array<Frame, kMaxDepth> stack{};
  std::size_t depth = 0;
  Mask current = 0;  // the fields the current key leads to
  bool string_open = false;
  std::string key_buffer;
  std::string error;
};

JsonFieldReader::JsonFieldReader() : state_(std::make_unique<State>()) {}
JsonFieldReader::~JsonFieldReader() = default;

JsonFieldReader::Field JsonFieldReader::declare(std::initializer_list<std::string_view> path) {
  if (path.size() == 0 || path.size() > kMaxDepth)
    throw std::invalid_argument("a JSON field path has 1 to 4 keys");
  if (state_->slots.size() == kMaxFields) throw std::length_error("too many JSON fields declared");
  Slot slot;
  for (std::string_view key : path) slot.path.emplace_back(key);
  state_->add(std::move(slot));
  return state_->slots.size() - 1;
}

bool JsonFieldReader::read(std::string_view json) {
  State &s = *state_;
  s.reset();
  s.parser.reset();
  boost::json::error_code ec;
  const std::size_t used = s.parser.write_some(false, json.data(), json.size(), ec);
  if (!ec && used != json.size()) ec = boost::json::error::extra_data;
  if (!ec && !s.parser.done()) ec = boost::json::error::incomplete;
  if (!ec) return true;
  s.error = ec.message();
  for (Slot &slot : s.slots) slot.kind = Kind::absent;
  return false;
}

std::string_view JsonFieldReader::error() const { return state_->error; }

JsonFieldReader::Kind JsonFieldReader::kind(Field field) const { return state_->slots.at(field).kind; }

std::string_view JsonFieldReader::string(Field field) const {
  const Slot &slot = state_->slots.at(field);
  return slot.kind == Kind::string ? std::string_view(slot.text) : std::string_view();
}

std::string JsonFieldReader::take_string(Field field) {
  Slot &slot = state_->slots.at(field);
  if (slot.kind != Kind::string) return {};
  slot.kind = Kind::absent;
  return std::exchange(slot.text, std::string());
}

std::optional<bool> JsonFieldReader::boolean(Field field) const {
  const Slot &slot = state_->slots.at(field);
  if (slot.kind != Kind::boolean) return std::nullopt;
  return slot.integer != 0;
}

std::optional<std::int64_t> JsonFieldReader::integer(Field field) const {
  const Slot &slot = state_->slots.at(field);
  if (slot.kind != Kind::integer) return std::nullopt;
  return slot.integer;
}

}  // namespace amplifier
