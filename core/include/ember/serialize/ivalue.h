#pragma once
// serialize::IValue, the value tree a PyTorch checkpoint loads into
// (serialize::load_torch), is ember::IValue (ember/core/ivalue.h); these
// names stay for code written against them (docs/serialization.md).
#include "ember/core/ivalue.h"

namespace ember::serialize {

using IValue = ember::IValue;
using IDict = ember::IDict;

namespace detail {
using ember::detail::hashed_key;
using ember::detail::HashedKey;
using ember::detail::HashedKeyEq;
using ember::detail::HashedKeyHash;
using ember::detail::SharedString;
}  // namespace detail

}  // namespace ember::serialize
