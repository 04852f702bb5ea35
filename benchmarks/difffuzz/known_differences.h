#pragma once
// Known and deliberate differences between Ember and libtorch 1.13: a
// mismatch that one of these explains is reported apart and does not fail
// the run. Each entry names the ops, the mismatch kinds and the condition it
// covers, and why (an issue item, or the docs that state the deliberate
// difference). Remove an entry when its fix lands: the run lists entries that
// matched nothing, and a fixed one then shows as unused.
#include <functional>
#include <string>
#include <vector>

#include "runner.h"

namespace difffuzz {

struct KnownDifference {
  std::string id;                  // short name, e.g. "issue18.1"
  std::string reason;              // one line, for the report
  std::vector<std::string> ops;    // ops it covers (empty: any)
  std::vector<std::string> kinds;  // mismatch kinds it covers (empty: any)
  std::function<bool(const CaseResult&, const Mismatch&)> when;  // null: always
  bool deliberate = false;         // Ember differs on purpose (documented)
};

const std::vector<KnownDifference>& known_differences();

// Marks each mismatch (and layout difference) that a known difference explains.
void classify_known(CaseResult& r);

}  // namespace difffuzz
