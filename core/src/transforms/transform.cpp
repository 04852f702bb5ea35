// TransformBase's printing.
#include "ember/transforms/transform.h"

namespace ember::transforms {

void TransformBase::pretty_print(std::ostream& os) const {
  os << name() << "(";
  bool first = true;
  for (const auto& [key, value] : params()) {
    os << (first ? "" : ", ") << key << "=" << value;
    first = false;
  }
  os << ")";
}

}  // namespace ember::transforms
