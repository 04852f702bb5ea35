// default_collate's non-template parts: stacking tensors and error messages.
#include "ember/datasets/collate.h"

#include <sstream>

#include "ember/ops/shape.h"

namespace ember::datasets {

std::string CollatePath::str() const {
  std::vector<const CollatePath*> chain;
  for (const CollatePath* p = this; p != nullptr; p = p->parent) chain.push_back(p);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const CollatePath& p = **it;
    switch (p.kind) {
      case Kind::Root: out.append("sample"); break;
      case Kind::Index: out.append("[").append(std::to_string(p.index)).append("]"); break;
      case Kind::Key: out.append("[\"").append(p.name).append("\"]"); break;
      case Kind::Field: out.append(".").append(p.name); break;
    }
  }
  return out;
}

namespace detail {

Tensor collate_tensors(std::vector<Tensor>&& tensors, const CollatePath& path) {
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].defined(), "default_collate: ", path.str(), ": batch element ", i,
                " is an undefined tensor");
  const Tensor& first = tensors.front();
  for (size_t i = 1; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.sizes() == first.sizes(), "default_collate: ", path.str(),
                ": tensors in a batch must have the same shape, got ", first.sizes(), " in batch element 0 and ",
                t.sizes(), " in batch element ", i);
    EMBER_CHECK(t.device() == first.device(), "default_collate: ", path.str(),
                ": tensors in a batch must be on one device, got ", first.device(), " in batch element 0 and ",
                t.device(), " in batch element ", i);
  }
  return stack(tensors, 0);
}

void collate_length_mismatch(const CollatePath& path, const char* container, size_t first_size, size_t element,
                             size_t element_size) {
  EMBER_FAIL("default_collate: ", path.str(), ": each ", container,
             " in a batch must have the same size, got size ", first_size, " in batch element 0 and size ",
             element_size, " in batch element ", element);
}

void collate_key_mismatch(const CollatePath& path, std::string_view key, size_t element, bool missing) {
  if (missing)
    EMBER_FAIL("default_collate: ", path.str(), ": batch element ", element, " has no key \"", key,
               "\" (batch element 0 has it); every map in a batch must have the same keys");
  EMBER_FAIL("default_collate: ", path.str(), ": batch element ", element, " has a key \"", key,
             "\" that batch element 0 does not have; every map in a batch must have the same keys");
}

void collate_out_of_range(const CollatePath& path, size_t element) {
  EMBER_FAIL("default_collate: ", path.str(), ": the unsigned value of batch element ", element,
             " does not fit in int64");
}

}  // namespace detail
}  // namespace ember::datasets
