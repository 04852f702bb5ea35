#include "ember/serialize/ivalue.h"

#include "ember/core/error.h"

namespace ember::serialize {

IValue IValue::list(std::vector<IValue> items) {
  IValue v;
  v.tag_ = Tag::List;
  v.v_ = std::make_shared<const std::vector<IValue>>(std::move(items));
  return v;
}

IValue IValue::tuple(std::vector<IValue> items) {
  IValue v;
  v.tag_ = Tag::Tuple;
  v.v_ = std::make_shared<const std::vector<IValue>>(std::move(items));
  return v;
}

IValue IValue::shared_string(std::shared_ptr<const detail::SharedString> text) {
  EMBER_CHECK(text != nullptr, "IValue::shared_string: null string");
  IValue v;
  v.tag_ = Tag::String;
  v.v_ = std::move(text);
  return v;
}

IValue IValue::dict(IDict items) {
  IValue v;
  v.tag_ = Tag::Dict;
  v.v_ = std::make_shared<const IDict>(std::move(items));
  return v;
}

std::string_view IValue::type_name() const {
  switch (tag_) {
    case Tag::None: return "None";
    case Tag::Bool: return "bool";
    case Tag::Int: return "int";
    case Tag::Double: return "float";
    case Tag::String: return "str";
    case Tag::Tensor: return "Tensor";
    case Tag::List: return "list";
    case Tag::Tuple: return "tuple";
    case Tag::Dict: return "dict";
  }
  return "?";
}

void IValue::type_error(std::string_view expected) const {
  EMBER_FAIL("IValue: expected ", expected, " but got ", type_name());
}

bool IValue::to_bool() const {
  if (tag_ != Tag::Bool) type_error("bool");
  return std::get<bool>(v_);
}
int64_t IValue::to_int() const {
  if (tag_ != Tag::Int) type_error("int");
  return std::get<int64_t>(v_);
}
double IValue::to_double() const {
  if (tag_ == Tag::Int) return static_cast<double>(std::get<int64_t>(v_));
  if (tag_ != Tag::Double) type_error("float");
  return std::get<double>(v_);
}
const std::string& IValue::to_string() const {
  if (tag_ != Tag::String) type_error("str");
  return std::get<std::shared_ptr<const detail::SharedString>>(v_)->str();
}
const Tensor& IValue::to_tensor() const {
  if (tag_ != Tag::Tensor) type_error("Tensor");
  return std::get<Tensor>(v_);
}
const std::vector<IValue>& IValue::to_list() const {
  if (tag_ != Tag::List && tag_ != Tag::Tuple) type_error("list");
  return *std::get<Seq>(v_);
}
const std::vector<IValue>& IValue::to_tuple() const {
  if (tag_ != Tag::Tuple) type_error("tuple");
  return *std::get<Seq>(v_);
}
const IDict& IValue::to_dict() const {
  if (tag_ != Tag::Dict) type_error("dict");
  return *std::get<std::shared_ptr<const IDict>>(v_);
}

const IValue* IValue::find(std::string_view key) const { return to_dict().find(key); }

const IValue& IValue::at(std::string_view key) const {
  const IValue* v = to_dict().find(key);
  EMBER_CHECK(v != nullptr, "IValue: no key '", key, "' in dict");
  return *v;
}

const IValue& IValue::at(int64_t key) const {
  const IValue* v = to_dict().find(key);
  EMBER_CHECK(v != nullptr, "IValue: no key ", key, " in dict");
  return *v;
}

namespace {
void print_string(std::ostream& os, const std::string& s) {
  os << '\'';
  for (char c : s) {
    if (c == '\'' || c == '\\') os << '\\' << c;
    else if (c == '\n') os << "\\n";
    else os << c;
  }
  os << '\'';
}
}  // namespace

std::ostream& operator<<(std::ostream& os, const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None: return os << "None";
    case IValue::Tag::Bool: return os << (v.to_bool() ? "True" : "False");
    case IValue::Tag::Int: return os << v.to_int();
    case IValue::Tag::Double: return os << v.to_double();
    case IValue::Tag::String: print_string(os, v.to_string()); return os;
    case IValue::Tag::Tensor: {
      const Tensor& t = v.to_tensor();
      os << "tensor(" << t.dtype() << "[";
      for (int64_t d = 0; d < t.dim(); ++d) os << (d ? ", " : "") << t.size(d);
      return os << "])";
    }
    case IValue::Tag::List:
    case IValue::Tag::Tuple: {
      const bool tuple = v.is_tuple();
      const auto& items = v.to_list();
      os << (tuple ? '(' : '[');
      for (size_t i = 0; i < items.size(); ++i) os << (i ? ", " : "") << items[i];
      if (tuple && items.size() == 1) os << ',';
      return os << (tuple ? ')' : ']');
    }
    case IValue::Tag::Dict: {
      os << '{';
      bool first = true;
      for (const auto& [k, val] : v.to_dict()) {
        os << (first ? "" : ", ") << k << ": " << val;
        first = false;
      }
      return os << '}';
    }
  }
  return os;
}

void IDict::reserve(size_t n) {
  items_.reserve(n);
}

void IDict::insert(IValue key, IValue value) {
  if (key.is_string()) {
    // The view refers to the string the key IValue shares, which moves into
    // items_ with it (the characters stay where they are).
    const detail::HashedKey k = detail::hashed_key(*std::get<std::shared_ptr<const detail::SharedString>>(key.v_));
    if (auto it = str_index_.find(k); it != str_index_.end()) {
      items_[it->second].second = std::move(value);
      return;
    }
    items_.emplace_back(std::move(key), std::move(value));
    try {
      str_index_.emplace(k, items_.size() - 1);
    } catch (...) {
      items_.pop_back();
      throw;
    }
    return;
  } else if (key.is_int()) {
    const int64_t k = key.to_int();
    if (auto it = int_index_.find(k); it != int_index_.end()) {
      items_[it->second].second = std::move(value);
      return;
    }
    items_.emplace_back(std::move(key), std::move(value));
    try {
      int_index_.emplace(k, items_.size() - 1);
    } catch (...) {
      items_.pop_back();
      throw;
    }
    return;
  }
  EMBER_FAIL("IDict: keys must be str or int, got ", key.type_name());
}

const IValue* IDict::find(std::string_view key) const {
  auto it = str_index_.find(detail::hashed_key(key));
  return it == str_index_.end() ? nullptr : &items_[it->second].second;
}

const IValue* IDict::find(int64_t key) const {
  auto it = int_index_.find(key);
  return it == int_index_.end() ? nullptr : &items_[it->second].second;
}

}  // namespace ember::serialize
