// optim::Value accessors (see ember/optim/value.h).
#include "ember/optim/value.h"

#include <cmath>
#include <ostream>

namespace ember::optim {

namespace {
[[noreturn]] void wrong_type(const Value& v, const char* expected) {
  EMBER_FAIL("optim::Value: expected ", expected, " but got ", v.type_name());
}
}  // namespace

const char* Value::type_name() const {
  switch (v_.index()) {
    case 0: return "None";
    case 1: return "bool";
    case 2: return "int";
    case 3: return "float";
    case 4: return "str";
    case 5: return "list[float]";
    case 6: return "Tensor";
    default: return "list[Tensor]";
  }
}

bool Value::to_bool() const {
  if (const bool* b = std::get_if<bool>(&v_)) return *b;
  wrong_type(*this, "a bool");
}

int64_t Value::to_int() const {
  if (const int64_t* i = std::get_if<int64_t>(&v_)) return *i;
  if (const double* d = std::get_if<double>(&v_)) {
    EMBER_CHECK(std::floor(*d) == *d && std::abs(*d) < 9.2e18, "optim::Value: expected an integer but got ", *d);
    return static_cast<int64_t>(*d);
  }
  wrong_type(*this, "an int");
}

double Value::to_double() const {
  if (const double* d = std::get_if<double>(&v_)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  if (const Tensor* t = std::get_if<Tensor>(&v_)) {
    EMBER_CHECK(t->defined() && t->numel() == 1, "optim::Value: expected a number but got a tensor of ",
                t->defined() ? t->numel() : 0, " elements");
    return t->item<double>();
  }
  wrong_type(*this, "a number");
}

const std::string& Value::to_string() const {
  if (const auto* s = std::get_if<std::string>(&v_)) return *s;
  wrong_type(*this, "a str");
}

const std::vector<double>& Value::to_double_list() const {
  if (const auto* l = std::get_if<std::vector<double>>(&v_)) return *l;
  wrong_type(*this, "a list of floats");
}
std::vector<double>& Value::to_double_list() {
  if (auto* l = std::get_if<std::vector<double>>(&v_)) return *l;
  wrong_type(*this, "a list of floats");
}

const Tensor& Value::to_tensor() const {
  if (const auto* t = std::get_if<Tensor>(&v_)) return *t;
  wrong_type(*this, "a Tensor");
}
Tensor& Value::to_tensor() {
  if (auto* t = std::get_if<Tensor>(&v_)) return *t;
  wrong_type(*this, "a Tensor");
}

const std::vector<Tensor>& Value::to_tensor_list() const {
  if (const auto* l = std::get_if<std::vector<Tensor>>(&v_)) return *l;
  wrong_type(*this, "a list of tensors");
}
std::vector<Tensor>& Value::to_tensor_list() {
  if (auto* l = std::get_if<std::vector<Tensor>>(&v_)) return *l;
  wrong_type(*this, "a list of tensors");
}

namespace {
bool same_tensor_value(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  return a.dtype() == b.dtype() && a.sizes() == b.sizes() && a.equal(b);
}
}  // namespace

bool operator==(const Value& a, const Value& b) {
  if (a.v_.index() != b.v_.index()) return false;
  if (a.is_tensor()) return same_tensor_value(a.to_tensor(), b.to_tensor());
  if (a.is_tensor_list()) {
    const auto& x = a.to_tensor_list();
    const auto& y = b.to_tensor_list();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!same_tensor_value(x[i], y[i])) return false;
    return true;
  }
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Tensor> || std::is_same_v<T, std::vector<Tensor>>)
          return false;  // handled above
        else
          return x == std::get<T>(b.v_);
      },
      a.v_);
}

std::ostream& operator<<(std::ostream& os, const Value& v) {
  switch (v.variant().index()) {
    case 0: return os << "None";
    case 1: return os << (v.to_bool() ? "True" : "False");
    case 2: return os << v.to_int();
    case 3: return os << v.to_double();
    case 4: return os << "'" << v.to_string() << "'";
    case 5: {
      os << "(";
      const auto& l = v.to_double_list();
      for (size_t i = 0; i < l.size(); ++i) os << (i ? ", " : "") << l[i];
      return os << ")";
    }
    case 6: return os << "Tensor(" << v.to_tensor().toString() << ")";
    default: return os << "[" << v.to_tensor_list().size() << " tensors]";
  }
}

}  // namespace ember::optim
