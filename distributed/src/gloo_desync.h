#pragma once
// The desync report of ProcessGroupGloo (Note [Desync report]): each rank
// records the collective it enters in the group's store; a failed collective
// reads every rank's record to say which ranks had not entered it.
#include <cstdint>
#include <memory>
#include <string>

#include <ember/distributed/store.h>

namespace ember::distributed::gloo_detail {

// Records that rank entered collective `seq` (op and its arguments). Store
// errors are ignored: the record only serves the report.
void record_entry(Store& store, int64_t rank, uint64_t seq, const std::string& op, const std::string& what);

// "Desync report for sequence number seq: ..." naming each rank that had not
// entered it or entered another op as that number, or saying all entered it.
std::string desync_report(Store& store, int64_t rank, int64_t size, uint64_t seq, const std::string& op);

}  // namespace ember::distributed::gloo_detail
