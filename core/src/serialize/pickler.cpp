#include "serialize/pickler.h"

#include <bit>

#include "ember/core/error.h"

namespace ember::serialize::pickle {

const char* torch_storage_type(DType dtype, const char* who) {
  switch (dtype) {
    case DType::Bool: return "BoolStorage";
    case DType::UInt8: return "ByteStorage";
    case DType::Int8: return "CharStorage";
    case DType::Int16: return "ShortStorage";
    case DType::Int32: return "IntStorage";
    case DType::Int64: return "LongStorage";
    case DType::Float16: return "HalfStorage";
    case DType::BFloat16: return "BFloat16Storage";
    case DType::Float32: return "FloatStorage";
    case DType::Float64: return "DoubleStorage";
    case DType::Complex64: return "ComplexFloatStorage";
    case DType::Complex128: return "ComplexDoubleStorage";
    default: break;
  }
  EMBER_FAIL(who, ": ", dtype, " tensors cannot be written yet (quantized storages are read, not written)");
}

namespace {
// The opcodes of protocol 2 that torch.save uses (Lib/pickletools.py).
enum : uint8_t {
  MARK = '(', STOP = '.', BININT = 'J', BININT1 = 'K', BININT2 = 'M', NONE = 'N', BINPERSID = 'Q',
  REDUCE = 'R', BINUNICODE = 'X', APPEND = 'a', BUILD = 'b', GLOBAL = 'c', EMPTY_DICT = '}',
  APPENDS = 'e', BINGET = 'h', LONG_BINGET = 'j', EMPTY_LIST = ']', BINPUT = 'q', LONG_BINPUT = 'r',
  SETITEM = 's', TUPLE = 't', EMPTY_TUPLE = ')', SETITEMS = 'u', BINFLOAT = 'G', PROTO = 0x80,
  TUPLE1 = 0x85, NEWTRUE = 0x88, NEWFALSE = 0x89, LONG1 = 0x8a, NEWOBJ = 0x81,
};
}  // namespace

Pickler::Pickler() {
  op(PROTO);
  op(2);
}

void Pickler::le(uint64_t v, int n) {
  for (int k = 0; k < n; ++k) out_.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

void Pickler::none() { op(NONE); }
void Pickler::boolean(bool v) { op(v ? NEWTRUE : NEWFALSE); }

void Pickler::integer(int64_t v) {
  // CPython's save_long: BININT1 / BININT2 for small non-negative ints, BININT
  // for 32-bit ones, else LONG1 with the minimal two's complement bytes.
  if (v >= 0 && v <= 0xff) {
    op(BININT1);
    le(static_cast<uint64_t>(v), 1);
  } else if (v >= 0 && v <= 0xffff) {
    op(BININT2);
    le(static_cast<uint64_t>(v), 2);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    op(BININT);
    le(static_cast<uint32_t>(static_cast<int32_t>(v)), 4);
  } else {
    // encode_long: little-endian, as few bytes as keep the sign.
    int n = 8;
    const uint64_t u = static_cast<uint64_t>(v);
    while (n > 1 && !long1_eight_) {
      const uint8_t top = static_cast<uint8_t>(u >> (8 * (n - 1)));
      const uint8_t next_sign = static_cast<uint8_t>(u >> (8 * (n - 2))) & 0x80;
      if ((top == 0x00 && !next_sign) || (top == 0xff && next_sign)) --n;
      else break;
    }
    op(LONG1);
    op(static_cast<uint8_t>(n));
    le(u, n);
  }
}

void Pickler::floating(double v) {
  op(BINFLOAT);
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  for (int k = 7; k >= 0; --k) out_.push_back(static_cast<char>((bits >> (8 * k)) & 0xff));
}

void Pickler::string(std::string_view text, const void* identity) {
  if (identity && memo_get(identity)) return;
  EMBER_CHECK(text.size() <= UINT32_MAX, "save_torch: a string of ", text.size(),
              " bytes is longer than pickle protocol 2 allows (4 GiB)");
  op(BINUNICODE);
  le(text.size(), 4);
  out_.append(text);
  if (identity) memo_put(identity);
}

void Pickler::global(std::string_view module, std::string_view name) {
  std::string key;
  key.reserve(module.size() + name.size() + 1);
  key.append(module).push_back('\n');
  key.append(name);
  if (auto it = globals_.find(key); it != globals_.end()) {
    const uint32_t idx = it->second;
    if (idx < 256) {
      op(BINGET);
      le(idx, 1);
    } else {
      op(LONG_BINGET);
      le(idx, 4);
    }
    return;
  }
  op(GLOBAL);
  out_.append(key).push_back('\n');
  globals_.emplace(std::move(key), next_);
  memo_put(nullptr);
}

void Pickler::mark() { op(MARK); }
void Pickler::empty_tuple() { op(EMPTY_TUPLE); }
void Pickler::tuple_end(size_t n) {
  if (n >= 1 && n <= 3) op(static_cast<uint8_t>(TUPLE1 + n - 1));
  else op(TUPLE);
}
void Pickler::empty_list() { op(EMPTY_LIST); }
void Pickler::empty_dict() { op(EMPTY_DICT); }
void Pickler::append() { op(APPEND); }
void Pickler::appends() { op(APPENDS); }
void Pickler::setitem() { op(SETITEM); }
void Pickler::setitems() { op(SETITEMS); }
void Pickler::reduce() { op(REDUCE); }
void Pickler::build() { op(BUILD); }
void Pickler::binpersid() { op(BINPERSID); }
void Pickler::stop() { op(STOP); }
void Pickler::newobj() { op(NEWOBJ); }

bool Pickler::memo_get(const void* identity) {
  auto it = memo_.find(identity);
  if (it == memo_.end()) return false;
  if (it->second < 256) {
    op(BINGET);
    le(it->second, 1);
  } else {
    op(LONG_BINGET);
    le(it->second, 4);
  }
  return true;
}

void Pickler::memo_put(const void* identity) {
  const uint32_t idx = next_++;
  if (idx < 256) {
    op(BINPUT);
    le(idx, 1);
  } else {
    op(LONG_BINPUT);
    le(idx, 4);
  }
  if (identity) memo_[identity] = idx;
}

}  // namespace ember::serialize::pickle
