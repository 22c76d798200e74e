// A tool's JSON Schema as Gemini's Schema (the OpenAPI 3.0 subset functionDeclarations take):
// the keywords it knows are kept, type lists with "null" become nullable, const becomes a
// one-value enum; every keyword it cannot take is dropped and named, so the caller records
// one degradation per tool rather than the API rejecting the request.
#pragma once
#include <boost/json/object.hpp>

#include <set>
#include <string>

namespace gemini {

struct ConvertedSchema {
  boost::json::object schema;
  std::set<std::string> dropped;  // keywords left out, anywhere in the schema
};

ConvertedSchema to_gemini_schema(const boost::json::object &json_schema);

}  // namespace gemini
