// ember::IValue and ember::IDict (ember/core/ivalue.h).
#include "ember/core/ivalue.h"

#include <cmath>

namespace ember {

namespace {
template <class T>
std::vector<IValue> to_items(const std::vector<T>& v) {
  std::vector<IValue> items;
  items.reserve(v.size());
  for (const T& x : v) items.emplace_back(x);
  return items;
}
}  // namespace

IValue::IValue(const std::vector<double>& v) : IValue(list(to_items(v))) {}
IValue::IValue(const std::vector<int64_t>& v) : IValue(list(to_items(v))) {}
IValue::IValue(const std::vector<Tensor>& v) : IValue(list(to_items(v))) {}

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

const char* IValue::tagKind() const {
  switch (tag_) {
    case Tag::None: return "None";
    case Tag::Bool: return "Bool";
    case Tag::Int: return "Int";
    case Tag::Double: return "Double";
    case Tag::String: return "String";
    case Tag::Tensor: return "Tensor";
    case Tag::List: return isIntList() ? "IntList" : "GenericList";
    case Tag::Tuple: return "Tuple";
    case Tag::Dict: return "GenericDict";
  }
  return "?";
}

void IValue::type_error(std::string_view expected) const {
  EMBER_FAIL("IValue: expected ", expected, " but got ", type_name());
}

void IValue::strict_type_error(std::string_view expected) const {
  EMBER_FAIL("IValue: expected ", expected, " but got ", tagKind());
}

bool IValue::is_tensor_list() const {
  if (!is_sequence() || to_list().empty()) return false;
  for (const IValue& item : to_list())
    if (!item.is_tensor()) return false;
  return true;
}

bool IValue::isIntList() const {
  if (!is_list()) return false;
  for (const IValue& item : to_list())
    if (!item.is_int()) return false;
  return true;
}

bool IValue::to_bool() const {
  if (tag_ != Tag::Bool) type_error("bool");
  return std::get<bool>(v_);
}

int64_t IValue::to_int() const {
  if (tag_ == Tag::Double) {
    const double d = std::get<double>(v_);
    EMBER_CHECK(std::floor(d) == d && std::abs(d) < 9.2e18, "IValue: expected an integer but got ", d);
    return static_cast<int64_t>(d);
  }
  if (tag_ != Tag::Int) type_error("int");
  return std::get<int64_t>(v_);
}

double IValue::to_double() const {
  if (tag_ == Tag::Int) return static_cast<double>(std::get<int64_t>(v_));
  if (tag_ == Tag::Tensor) {
    const Tensor& t = std::get<Tensor>(v_);
    EMBER_CHECK(t.defined() && t.numel() == 1, "IValue: expected a number but got a tensor of ",
                t.defined() ? t.numel() : 0, " elements");
    return t.item<double>();
  }
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

Tensor& IValue::to_tensor() {
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

std::vector<double> IValue::to_double_list() const {
  if (!is_sequence()) type_error("a list of floats");
  std::vector<double> out;
  out.reserve(to_list().size());
  for (const IValue& item : to_list()) {
    if (!item.is_number()) type_error("a list of floats (an element is a " + std::string(item.type_name()) + ")");
    out.push_back(item.to_double());
  }
  return out;
}

std::vector<int64_t> IValue::to_int_list() const {
  if (!is_sequence()) type_error("a list of ints");
  std::vector<int64_t> out;
  out.reserve(to_list().size());
  for (const IValue& item : to_list()) {
    if (!item.is_number()) type_error("a list of ints (an element is a " + std::string(item.type_name()) + ")");
    out.push_back(item.to_int());
  }
  return out;
}

std::vector<Tensor> IValue::to_tensor_list() const {
  if (!is_sequence()) type_error("a list of tensors");
  std::vector<Tensor> out;
  out.reserve(to_list().size());
  for (const IValue& item : to_list()) {
    if (!item.is_tensor()) type_error("a list of tensors (an element is a " + std::string(item.type_name()) + ")");
    out.push_back(item.to_tensor());
  }
  return out;
}

const Tensor& IValue::toTensor() const {
  if (tag_ != Tag::Tensor) strict_type_error("Tensor");
  return std::get<Tensor>(v_);
}
double IValue::toDouble() const {
  if (tag_ != Tag::Double) strict_type_error("Double");
  return std::get<double>(v_);
}
int64_t IValue::toInt() const {
  if (tag_ != Tag::Int) strict_type_error("Int");
  return std::get<int64_t>(v_);
}
bool IValue::toBool() const {
  if (tag_ != Tag::Bool) strict_type_error("Bool");
  return std::get<bool>(v_);
}
std::vector<int64_t> IValue::toIntVector() const {
  if (!isIntList()) strict_type_error("IntList");
  std::vector<int64_t> out;
  for (const IValue& item : to_list()) out.push_back(std::get<int64_t>(item.v_));
  return out;
}
const std::string& IValue::toStringRef() const {
  if (tag_ != Tag::String) strict_type_error("String");
  return std::get<std::shared_ptr<const detail::SharedString>>(v_)->str();
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
bool same_tensor_value(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  return a.dtype() == b.dtype() && a.sizes() == b.sizes() && a.equal(b);
}
}  // namespace

bool operator==(const IValue& a, const IValue& b) {
  if (a.tag_ != b.tag_) return false;
  switch (a.tag_) {
    case IValue::Tag::None: return true;
    case IValue::Tag::Bool: return a.to_bool() == b.to_bool();
    case IValue::Tag::Int: return a.to_int() == b.to_int();
    // Bitwise-equal NaNs compare equal: a saved NaN reads back as the same value.
    case IValue::Tag::Double: {
      const double x = std::get<double>(a.v_), y = std::get<double>(b.v_);
      return x == y || (std::isnan(x) && std::isnan(y));
    }
    case IValue::Tag::String: return a.to_string() == b.to_string();
    case IValue::Tag::Tensor: return same_tensor_value(a.to_tensor(), b.to_tensor());
    case IValue::Tag::List:
    case IValue::Tag::Tuple: return a.to_list() == b.to_list();
    case IValue::Tag::Dict: {
      const IDict& x = a.to_dict();
      const IDict& y = b.to_dict();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!(x.item(i) == y.item(i))) return false;
      return true;
    }
  }
  return false;
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
      if (!t.defined()) return os << "tensor(undefined)";
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

void IDict::reserve(size_t n) { items_.reserve(n); }

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
  }
  if (key.is_int()) {
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

}  // namespace ember
