#pragma once
// JSON: documents parse into ember::IValue (the safetensors header,
// optimizer state, saved transforms, checkpoint entries), plain values write
// back, strings quote. RFC 8259, strictly: no comments, no trailing commas, no
// NaN; strings must be valid UTF-8; duplicate object keys and nesting deeper
// than kMaxDepth are errors. There is one lexer, json::Cursor
// (json_cursor.h), which parse() and COCO's streaming annotation reader share.
// Errors are ember::Error naming `what` and the byte offset.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ember/core/ivalue.h"
#include "ember/serialize/json_cursor.h"

namespace ember::serialize::json {

inline constexpr int kMaxDepth = Cursor::kMaxDepth;

// Parses one JSON value; only whitespace may follow it. null is None, true
// and false bools, a number an int when written without fraction or exponent
// and within int64 (else a float), a string a str, an array a list and an
// object a dict with str keys in document order.
IValue parse(std::string_view text, std::string_view what);

// The same, reporting the memory the tree takes as it grows: account(+n)
// before n bytes are allocated (a string, a container's larger buffer, a
// dict's index entry), account(-n) when n bytes are freed. A loader bounds
// what a hostile document can make it allocate by throwing from account
// (safetensors headers: Note [Checkpoint memory budget]).
IValue parse(std::string_view text, std::string_view what, const std::function<void(int64_t)>& account);

// The JSON string literal for s (quotes included). s must be valid UTF-8.
std::string quote(std::string_view s);

// Appends code point cp (<= U+10FFFF, not a surrogate) as UTF-8.
void append_utf8(std::string& out, uint32_t cp);

// Whether s is valid UTF-8 (no overlong forms, no surrogates, <= U+10FFFF).
bool valid_utf8(std::string_view s);

// Note [Plain values in JSON]
// Optimizer options, scheduler state and transform parameters are ValueMaps
// of plain values: None, bool, int, float, str and lists or tuples of them.
// As JSON: null, true/false, integers, floats always written with a '.' or an
// exponent (so that they read back as floats), non-finite floats as
// {"float": "nan" | "inf" | "-inf"}, strings, and arrays (a tuple reads back
// as a list). Tensors and dicts are not plain values. Writing and reading
// back gives an equal ValueMap (operator==).

// The JSON text of a float, as described above.
std::string float_literal(double v);
// A plain value as JSON; anything else is an ember::Error naming `who` and `key`.
std::string plain_to_json(const IValue& value, std::string_view who, std::string_view key);
std::string plain_map_to_json(const ValueMap& map, std::string_view who);
// A parsed JSON value read as a plain value (decodes {"float": ...}); an
// object that is not a float is an ember::Error naming `who` and `where`.
IValue plain_from_json(const IValue& json, std::string_view who, const std::string& where);
// A parsed JSON object read as a ValueMap of plain values.
ValueMap plain_map_from_json(const IValue& json, std::string_view who, const std::string& where);

}  // namespace ember::serialize::json
