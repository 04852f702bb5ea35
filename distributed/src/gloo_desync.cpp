#include "gloo_desync.h"

#include <sstream>
#include <vector>

// Note [Desync report]: a hang in a collective is most often a rank that
// never called it (a skipped branch, a crash, a different op in the same
// slot). Before running collective `seq`, the worker thread sets the store
// key "ember_desync/<rank>" to "<seq> <op> <arguments>". When a collective
// fails (Gloo's timeout, a vanished peer), the failing rank reads every
// rank's key and reports the ranks whose last entered collective is older
// than seq (with what they last entered, or that they entered none), and
// those that entered seq as another op (a desync of the call order). The
// group's store is under its prefix (PrefixStore), so sub-groups report on
// their own ranks. The cost is one store round trip per collective.
namespace ember::distributed::gloo_detail {

namespace {
std::string key_of(int64_t rank) { return "ember_desync/" + std::to_string(rank); }
}  // namespace

void record_entry(Store& store, int64_t rank, uint64_t seq, const std::string& op, const std::string& what) {
  try {
    store.set(key_of(rank), std::to_string(seq) + " " + op + (what.empty() ? "" : " " + what));
  } catch (const std::exception&) {
    // The store is gone (its server rank died): the collective reports that.
  }
}

std::string desync_report(Store& store, int64_t rank, int64_t size, uint64_t seq, const std::string& op) {
  std::ostringstream report;
  report << "Desync report for sequence number " << seq << " (" << op << "):";
  std::vector<int64_t> missing;
  std::ostringstream details;
  try {
    for (int64_t r = 0; r < size; ++r) {
      if (r == rank) continue;
      if (!store.check({key_of(r)})) {
        missing.push_back(r);
        details << " rank " << r << " has not entered any collective;";
        continue;
      }
      const std::string entry = store.get(key_of(r));
      const size_t space = entry.find(' ');
      const uint64_t last = std::stoull(entry.substr(0, space));
      const std::string last_op = space == std::string::npos ? "" : entry.substr(space + 1);
      if (last < seq) {
        missing.push_back(r);
        details << " rank " << r << " is at sequence number " << last << " (" << last_op << ");";
      } else if (last == seq && last_op.substr(0, last_op.find(' ')) != op) {
        missing.push_back(r);
        details << " rank " << r << " entered sequence number " << seq << " as a different collective ("
                << last_op << ");";
      }
    }
  } catch (const std::exception& e) {
    return report.str() + " the store could not be read (" + e.what() + ")";
  }
  if (missing.empty()) return report.str() + " every rank entered it";
  report << " ranks [";
  for (size_t i = 0; i < missing.size(); ++i) report << (i ? ", " : "") << missing[i];
  report << "] had not entered it:" << details.str();
  std::string text = report.str();
  text.pop_back();  // the last ';'
  return text;
}

}  // namespace ember::distributed::gloo_detail
